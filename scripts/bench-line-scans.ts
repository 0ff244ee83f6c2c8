/**
 * CPU cost of the ingest worker's per-line scans against the same modules at a git revision, side
 * by side: the credential scan of every line (findSecrets on the line read as latin1, as
 * findLineSecrets does), the volatile-field masking of every short tool result
 * (withoutVolatileFields, as resultIdentity does) and what ingest takes of every tool output: its
 * search value and its preview (outputSearchValue, outputPreview). The baseline is `git show REV:FILE` of each module written to a temporary
 * directory (the three modules import nothing).
 *
 * Inputs: the lines of the given traces (by default the bench traces in `bench-data/`), and the
 * tool results in them — canonical `tool_result` events, and `tool_result` content blocks of the
 * requests in an exchange log — as JSON text, as a result's output is hashed.
 * Each repetition runs old and new, in alternating order, over all the inputs; the report gives the
 * median CPU milliseconds of each and the median of new ÷ old over the repetitions (each ratio from
 * two passes run one after the other, so that a change in the machine's load cancels out). Both
 * must give the same answers (checked on every pass).
 *
 *   npx tsx scripts/bench-line-scans.ts [--baseline REV] [--repetitions N] [TRACE…]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { repoRoot } from '../devkit/repoPaths';
import * as newSecrets from '../shared/secrets/secretScanner';
import * as newVolatile from '../shared/analysis/volatileFields';
import * as newToolOutput from '../shared/toolOutput';
import { SUMMARY_CHARS } from '../src-main/engine/bytes/contentHash';

const MODULES = {
  secrets: 'shared/secrets/secretScanner.ts',
  volatile: 'shared/analysis/volatileFields.ts',
  toolOutput: 'shared/toolOutput.ts',
} as const;
const DEFAULT_TRACES = ['bench-data/synthetic-200MB-seed1-v1.jsonl', 'bench-data/exchange-200MB-seed1-v1.jsonl'];

interface Implementations {
  secrets: typeof newSecrets;
  volatile: typeof newVolatile;
  toolOutput: Partial<typeof newToolOutput> & Pick<typeof newToolOutput, 'decodeToolOutput' | 'outputPreview'>;
}

async function loadBaseline(revision: string): Promise<{ modules: Implementations; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'loopscope-line-scans-baseline-'));
  const load = async (key: keyof typeof MODULES): Promise<unknown> => {
    const file = join(dir, `${key}.ts`);
    writeFileSync(file, execFileSync('git', ['show', `${revision}:${MODULES[key]}`], { cwd: repoRoot, maxBuffer: 1 << 26 }));
    return import(pathToFileURL(file).href);
  };
  const modules = {
    secrets: (await load('secrets')) as typeof newSecrets,
    volatile: (await load('volatile')) as typeof newVolatile,
    toolOutput: (await load('toolOutput')) as Implementations['toolOutput'],
  };
  return { modules, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

interface Inputs {
  lines: Buffer[];
  /** Results as resultIdentity normalizes them: output JSON text up to the normalized length. */
  resultTexts: string[];
  outputs: unknown[];
}

function toolResultsOf(record: unknown, found: unknown[]): void {
  if (typeof record !== 'object' || record === null) return;
  const value = record as Record<string, unknown>;
  if (value['type'] === 'tool_result' && 'output' in value) found.push(value['output']);
  else if (value['type'] === 'tool_result' && 'content' in value) found.push(value['content']);
  else for (const item of Object.values(value)) toolResultsOf(item, found);
}

/** The line's JSON value; null for the malformed lines the synthetic trace holds on purpose. */
function parsedOrNull(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

function readInputs(traces: readonly string[]): Inputs {
  const inputs: Inputs = { lines: [], resultTexts: [], outputs: [] };
  for (const trace of traces) {
    const bytes = readFileSync(trace);
    for (let at = 0; at < bytes.length;) {
      const end = bytes.indexOf(10, at) === -1 ? bytes.length : bytes.indexOf(10, at);
      const line = bytes.subarray(at, end);
      inputs.lines.push(line);
      at = end + 1;
      // Only lines that hold a result are parsed: an exchange log's requests resend every earlier result.
      if (line.indexOf('"tool_result"') === -1) continue;
      const found: unknown[] = [];
      toolResultsOf(parsedOrNull(line), found);
      for (const output of found) {
        inputs.outputs.push(output);
        const text = JSON.stringify(output ?? null);
        if (text.length <= newVolatile.NORMALIZED_RESULT_CHARS) inputs.resultTexts.push(text);
      }
    }
  }
  return inputs;
}

type Scan = (modules: Implementations, inputs: Inputs) => unknown[];

const scans: Record<string, Scan> = {
  'secret scan (lines)': (modules, inputs) => inputs.lines.map((line) => modules.secrets.findSecrets(line.toString('latin1'))),
  'volatile fields (results)': (modules, inputs) => inputs.resultTexts.map((text) => modules.volatile.withoutVolatileFields(text)),
  'output search value+preview': (modules, inputs) =>
    inputs.outputs.map((output) => [searchValue(modules.toolOutput, output), modules.toolOutput.outputPreview(output, SUMMARY_CHARS + 1)]),
};

/** What ingest indexes of an output; a baseline without outputSearchValue took it from the decoded output. */
function searchValue(toolOutput: Implementations['toolOutput'], output: unknown): unknown {
  if (toolOutput.outputSearchValue !== undefined) return toolOutput.outputSearchValue(output);
  const decoded = toolOutput.decodeToolOutput(output);
  return decoded.kind === 'json' ? output : decoded.text;
}

function timed(scan: Scan, modules: Implementations, inputs: Inputs): { ms: number; answers: unknown[] } {
  const started = process.cpuUsage();
  const answers = scan(modules, inputs);
  const used = process.cpuUsage(started);
  return { ms: (used.user + used.system) / 1000, answers };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

async function main(): Promise<void> {
  const { values: args, positionals } = parseArgs({
    options: { baseline: { type: 'string', default: 'HEAD' }, repetitions: { type: 'string', default: '5' } },
    allowPositionals: true,
  });
  const traces = positionals.length > 0 ? positionals : DEFAULT_TRACES.map((trace) => join(repoRoot, trace)).filter((trace) => existsSync(trace));
  const repetitions = Math.max(1, Number(args.repetitions) || 5);
  const inputs = readInputs(traces);
  const baseline = await loadBaseline(args.baseline!);
  const current: Implementations = { secrets: newSecrets, volatile: newVolatile, toolOutput: newToolOutput };
  console.log(`Per-line scans: working tree (new) vs ${args.baseline} (old); ${repetitions} repetitions, CPU ms`);
  console.log(`inputs: ${inputs.lines.length} lines, ${inputs.resultTexts.length} short results, ${inputs.outputs.length} outputs from ${traces.join(', ')}`);
  console.log(`${'scan'.padEnd(28)} ${'old ms'.padStart(8)} ${'new ms'.padStart(8)} ${'new/old'.padStart(8)}`);
  try {
    for (const [name, scan] of Object.entries(scans)) {
      const times = { old: [] as number[], new: [] as number[] };
      const ratios: number[] = [];
      for (let repetition = 0; repetition < repetitions; repetition += 1) {
        const order = repetition % 2 === 0 ? (['old', 'new'] as const) : (['new', 'old'] as const);
        const runs = Object.fromEntries(order.map((which) => [which, timed(scan, which === 'old' ? baseline.modules : current, inputs)]));
        const [oldRun, newRun] = [runs['old']!, runs['new']!];
        if (!isDeepStrictEqual(oldRun.answers, newRun.answers)) throw new Error(`${name}: old and new answers differ`);
        times.old.push(oldRun.ms);
        times.new.push(newRun.ms);
        ratios.push(newRun.ms / oldRun.ms);
      }
      console.log(
        `${name.padEnd(28)} ${median(times.old).toFixed(0).padStart(8)} ${median(times.new).toFixed(0).padStart(8)} ${median(ratios).toFixed(3).padStart(8)}`,
      );
    }
  } finally {
    baseline.cleanup();
  }
}

await main();
