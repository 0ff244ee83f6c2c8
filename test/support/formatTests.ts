/** Helpers shared by the format tests (test/engine/adapters/formats/): fixture paths, detection, report summaries, the engine's stored events. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { queries } from '../../src-main/api/queries';
import type { FormatAdapter } from '../../src-main/engine/adapters/formatAdapter';
import { openTrace, readReport } from '../../src-main/engine/engine';
import { sampleFile } from '../../src-main/engine/ingest/detectFormat';
import { openDatabase } from '../../src-main/engine/store/traceDatabase';
import type { AnalyzeReport } from '../../shared/report';
import { normalizeTerminalStatus } from '../../shared/trace/runStatus';
import { defaultAnalysis, temporaryDir } from './engineHarness';
import { examplesDir, testFixturesDir } from '../../devkit/repoPaths';

/** test/fixtures/formats: one directory per format. */
export const fixtures = join(testFixturesDir, 'formats');

/** Files under `dir` (recursively) whose name matches `pattern`; none when `dir` does not exist. */
export function filesUnder(dir: string, pattern: RegExp): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path, pattern);
    return pattern.test(name) ? [path] : [];
  });
}

export function jsonlFiles(dir: string): string[] {
  return filesUnder(dir, /\.jsonl$/);
}

/** Trace files and logs, for formats that read `.ndjson` and `.log` too. */
export const TRACE_AND_LOG_NAMES = /\.(jsonl|json|traj|ndjson|log)$/;

/** Trace files: JSONL logs and whole JSON documents. */
export function traceFiles(dir: string): string[] {
  return filesUnder(dir, /\.(jsonl|json|traj)$/);
}

/**
 * The examples that are logs in another format than the canonical one (an HTTP exchange log, say):
 * their `expected/<name>.json` names that `format`.
 */
function examplesInOtherFormats(): Set<string> {
  const examples = examplesDir;
  const others = readdirSync(examples).filter((file) => {
    if (!file.endsWith('.jsonl')) return false;
    const expected = JSON.parse(readFileSync(join(examples, 'expected', file.replace(/\.jsonl$/, '.json')), 'utf8')) as { format?: string };
    return expected.format !== undefined;
  });
  return new Set(others.map((file) => join(examples, file)));
}

/** Files under examples/ whose name matches `pattern`, but the examples in another format. */
function canonicalExampleFiles(pattern: RegExp): string[] {
  const others = examplesInOtherFormats();
  return filesUnder(examplesDir, pattern).filter((path) => !others.has(path));
}

/** The canonical examples and every other format's fixtures whose name matches `pattern`. */
export function examplesAndOtherFixtures(format: string, pattern: RegExp = /\.jsonl$/): string[] {
  return [
    ...canonicalExampleFiles(pattern),
    ...readdirSync(fixtures)
      .filter((name) => name !== format)
      .flatMap((name) => filesUnder(join(fixtures, name), pattern)),
  ];
}

/** Asserts `detect` claims neither the canonical JSONL examples nor the trace files of the `others` formats' fixtures. */
export function assertRejectsExamplesAndFixtures(detect: (path: string) => string | null, others: string[]): void {
  for (const path of canonicalExampleFiles(/\.jsonl$/)) assert.equal(detect(path), null, path);
  for (const other of others) {
    const otherDir = join(fixtures, other);
    if (!statSync(otherDir, { throwIfNoEntry: false })?.isDirectory()) continue;
    for (const path of traceFiles(otherDir)) assert.equal(detect(path), null, path);
  }
}

/** What `adapter` says of the file's detection sample. */
export function detectFile(adapter: FormatAdapter, path: string): string | null {
  return adapter.detect(sampleFile({ path, size: statSync(path).size, mtimeMs: 0, fingerprint: '' }));
}

/** The findings as sorted `[kind, call_id]` pairs. */
export function findingsOf(report: AnalyzeReport): [string, string | null][] {
  return report.findings
    .map((finding): [string, string | null] => [finding.kind, finding.call_id])
    .sort((a, b) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`));
}

/** The runs' status, steps, calls, results and tokens. */
export function runsOf(report: AnalyzeReport) {
  return report.runs.map(({ run_id, status, status_raw, steps, tool_calls, tool_results, input_tokens, output_tokens }) => ({
    run_id,
    status,
    status_raw,
    steps,
    tool_calls,
    tool_results,
    input_tokens,
    output_tokens,
  }));
}

/** The runs' status, steps, calls and results. */
export function runCountsOf(report: AnalyzeReport) {
  return report.runs.map(({ run_id, status, status_raw, steps, tool_calls, tool_results }) => ({
    run_id,
    status,
    status_raw,
    steps,
    tool_calls,
    tool_results,
  }));
}

/** The columns every format test reads from the stored events. */
export interface StoredEvent {
  line: number;
  type: string;
  type_raw: string;
  step: number | null;
}

/** The normalized status the engine gives a raw one. */
export const normalized = (raw: string) => normalizeTerminalStatus({ status: raw }).status;

/** The report of a trace read with `--format`, and its stored events selected by `query`, in emission order. */
export async function ingestEvents<Row>(path: string, format: string, query: string): Promise<{ report: AnalyzeReport; events: Row[] }> {
  const cache = temporaryDir(format);
  try {
    const trace = await openTrace(path, { cacheDir: cache.path, analysis: defaultAnalysis, format });
    const db = openDatabase(trace.dbPath, { readonly: true });
    try {
      const events = db.prepare(query).all() as Row[];
      return { report: readReport(trace, defaultAnalysis), events };
    } finally {
      db.close();
    }
  } finally {
    cache.remove();
  }
}

/**
 * Each call of a trace with the latency the calls view shows (null: "not recorded"), as
 * `[call_id, latency_ms]` in call order, read through the API's own calls query.
 */
export async function callLatencies(path: string, format?: string): Promise<[string, number | null][]> {
  const cache = temporaryDir('latency');
  try {
    const trace = await openTrace(path, { cacheDir: cache.path, analysis: defaultAnalysis, ...(format !== undefined ? { format } : {}) });
    const db = openDatabase(trace.dbPath, { readonly: true });
    try {
      const sourceIds = (db.prepare('SELECT id FROM sources ORDER BY id').all() as { id: number }[]).map((row) => row.id);
      const calls = queries.calls(db, { sourceIds, optionsKey: '' }, { traceId: 'test', offset: 0, limit: 2000 });
      return calls.rows.map((call): [string, number | null] => [call.callId, call.latencyMs]);
    } finally {
      db.close();
    }
  } finally {
    cache.remove();
  }
}

/** The latency of each model response as stored (what the timeline and inspector show; null: "not recorded"), in order. */
export async function modelLatencies(path: string, format: string): Promise<(number | null)[]> {
  const { events } = await ingestEvents<{ latency_ms: number | null }>(path, format, "SELECT latency_ms FROM events WHERE type = 'model_response' ORDER BY id");
  return events.map((event) => event.latency_ms);
}
