/**
 * `loopscope export FILE|DIR --otlp OUT.jsonl|URL`: every run of the traces as OpenTelemetry GenAI
 * spans (docs/otlp.md, "Exporting to OpenTelemetry"). Each trace is opened by the engine as
 * `analyze` opens it (its cache reused), its runs, calls and findings read from its database and
 * its content mapped again from its records (otlpExportContent.ts), and turned into spans
 * (otlpExportSpans.ts): one OTLP trace per run tree, sent as OTLP/JSON export requests — written as
 * lines to a file (the `otel-otlp` format; the file appears whole or not at all) or POSTed to an
 * OTLP/HTTP endpoint.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { semconvSchemaUrl } from '../../shared/otel/genAiRegistry';
import type { AnalysisOptions, ReportFinding } from '../../shared/report';
import { expandTraceArguments, withCompanionsInTheirTrace } from '../api/traceFiles';
import {
  DEFAULT_STORE_WORKER_MIN_BYTES,
  eventCount,
  eventsBetween,
  identifyFile,
  openDatabase,
  openTrace,
  openTraceHere,
  optionsKey,
  readReportOutline,
  reportedSources,
  runListRow,
  timedCalls,
  TraceFileError,
  type EventListSqlRow,
  type TraceHandle,
} from '../engine';
import { redactedEventContents } from './otlpExportContent';
import { runSpans, SYNTHETIC_EPOCH_MICROS, traceIdOf, type ExportRun, type KeyValue, type OtlpSpan } from './otlpExportSpans';

export interface OtlpExportOptions {
  /** Trace files and directories as the command line names them: a directory is walked, a sub-agent file read as its session (api/traceFiles.ts). */
  inputs: string[];
  /** A file path (OTLP JSON lines, one ExportTraceServiceRequest per line, written atomically) or an http(s) URL of an OTLP/HTTP endpoint (`/v1/traces` when it has no path). */
  destination: string;
  /** Include message and tool content (arguments, results, input/output messages, error descriptions), credentials redacted first. */
  content: boolean;
  cacheDir?: string;
  /** Progress and summary lines for stderr. */
  log: (line: string) => void;
}

/** Why an export could not be done, naming the file or URL: what the user reads. */
export class OtlpExportError extends Error {}

/** The analysis findings are computed with: `analyze`'s defaults, so the findings are the ones it reports. */
const analysis: AnalysisOptions = { window: 6, threshold: 3 };

/**
 * Spans per export request are capped by size: the OpenTelemetry Collector refuses bodies over 20 MiB
 * (as Loopscope's receiver does), and the `otel-otlp` adapter does not load lines over 16 MiB.
 */
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

const SCOPE = { name: 'loopscope' };

type Destination = { kind: 'file'; path: string } | { kind: 'url'; url: URL };

function destinationOf(destination: string): Destination {
  if (/^https?:\/\//i.test(destination)) {
    let url: URL;
    try {
      url = new URL(destination);
    } catch {
      throw new OtlpExportError(`${destination}: not a valid URL`);
    }
    if (url.pathname === '' || url.pathname === '/') url.pathname = '/v1/traces';
    return { kind: 'url', url };
  }
  return { kind: 'file', path: destination };
}

/** One OTLP/JSON export request holding `spans`, all of one trace. */
function exportRequest(resource: KeyValue[], spans: OtlpSpan[]): string {
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: SCOPE, spans, schemaUrl: semconvSchemaUrl }], schemaUrl: semconvSchemaUrl }],
  });
}

/** The trace's spans as export requests, each under MAX_REQUEST_BYTES (a span larger than that alone is one request). */
function exportRequests(resource: KeyValue[], spans: OtlpSpan[]): string[] {
  const requests: string[] = [];
  let batch: OtlpSpan[] = [];
  let bytes = 0;
  for (const span of spans) {
    const size = JSON.stringify(span).length;
    if (batch.length > 0 && bytes + size > MAX_REQUEST_BYTES) {
      requests.push(exportRequest(resource, batch));
      batch = [];
      bytes = 0;
    }
    batch.push(span);
    bytes += size;
  }
  if (batch.length > 0) requests.push(exportRequest(resource, batch));
  return requests;
}

/** Where export requests go: lines of a temporary file renamed at the end, or POSTs. */
interface Sink {
  send(request: string): Promise<void>;
  /** Everything was sent: the file takes its name. */
  commit(): void;
  /** The export failed: nothing is left under the file's name. */
  abandon(): void;
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'its directory does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'ENOSPC') return 'the disk is full';
  return error instanceof Error ? error.message : String(error);
}

function fileSink(path: string): Sink {
  const temporary = join(dirname(resolve(path)), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.partial`);
  let fd: number;
  try {
    fd = openSync(temporary, 'w');
  } catch (error) {
    throw new OtlpExportError(`${path}: cannot be written: ${reason(error)}`);
  }
  let closed = false;
  const close = (): void => {
    if (!closed) closeSync(fd);
    closed = true;
  };
  return {
    send(request) {
      try {
        writeSync(fd, `${request}\n`);
      } catch (error) {
        throw new OtlpExportError(`${path}: cannot be written: ${reason(error)}`);
      }
      return Promise.resolve();
    },
    commit() {
      close();
      try {
        renameSync(temporary, path);
      } catch (error) {
        rmSync(temporary, { force: true });
        throw new OtlpExportError(`${path}: cannot be written: ${reason(error)}`);
      }
    },
    abandon() {
      close();
      rmSync(temporary, { force: true });
    },
  };
}

/** How much of an endpoint's refusal is quoted. */
const ANSWER_EXCERPT_CHARS = 500;

function urlSink(url: URL): Sink {
  return {
    async send(request) {
      let answer: Response;
      try {
        answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request });
      } catch (error) {
        const cause = (error as { cause?: unknown }).cause;
        throw new OtlpExportError(`${url.href}: cannot be reached: ${reason(cause ?? error)}`);
      }
      const body = await answer.text().catch(() => '');
      if (answer.status < 200 || answer.status > 299) {
        const excerpt = body.trim().slice(0, ANSWER_EXCERPT_CHARS);
        throw new OtlpExportError(`${url.href}: the endpoint answered ${answer.status} ${answer.statusText}${excerpt !== '' ? `: ${excerpt}` : ''}`);
      }
    },
    commit() {},
    abandon() {},
  };
}

/** A trace's runs as the export reads them, each child under the run that started it. */
function exportRuns(trace: TraceHandle): { roots: ExportRun[]; all: ExportRun[]; format: string } {
  const outline = readReportOutline(trace, analysis);
  const db = openDatabase(trace.dbPath, { readonly: true });
  try {
    const sources = reportedSources(trace);
    const sourceIds = sources.map((source) => source.sourceId);
    const sourceIndex = new Map(sourceIds.map((id, index) => [id, index]));
    const key = optionsKey(analysis);
    const runsByFile = new Map<string, ExportRun>();
    const rowsBySource = new Map<number, EventListSqlRow[]>();
    const runs = outline.runs.map(({ runPk, report }) => {
      const row = runListRow(db, sourceIds, key, runPk);
      if (row === undefined) throw new Error(`run ${report.run_id} is missing from ${trace.dbPath}`);
      const count = eventCount(db, runPk, 'run_index');
      const events = eventsBetween(db, runPk, 'run_index', 0, count, count);
      rowsBySource.set(row.source_id, [...(rowsBySource.get(row.source_id) ?? []), ...events]);
      const run: ExportRun = {
        key: `${sourceIndex.get(row.source_id) ?? 0}:${report.run_id}`,
        runId: report.run_id,
        status: report.status,
        statusRaw: report.status_raw,
        endLimit: row.end_limit,
        config: parseObject(row.config_json),
        budgets: row.budgets_json === null ? null : (JSON.parse(row.budgets_json) as unknown),
        events,
        calls: timedCalls(db, runPk, Number.MAX_SAFE_INTEGER),
        contents: new Map(),
        findings: outline.findings.filter((finding: ReportFinding) => finding.file === report.file && finding.run_id === report.run_id),
        children: [],
      };
      runsByFile.set(`${report.file}\u0000${report.run_id}`, run);
      return { run, report };
    });
    for (const [sourceId, rows] of rowsBySource) {
      const contents = redactedEventContents(db, sourceId, rows);
      for (const { run } of runs) for (const event of run.events) if (contents.has(event.id)) run.contents.set(event.id, contents.get(event.id)!);
    }
    const roots: ExportRun[] = [];
    for (const { run, report } of runs) {
      const parent = report.parent === undefined ? undefined : runsByFile.get(`${report.parent.file}\u0000${report.parent.run_id}`);
      if (parent !== undefined && parent !== run) parent.children.push({ run, callId: report.parent?.call_id ?? null });
      else roots.push(run);
    }
    return { roots, all: runs.map(({ run }) => run), format: outline.files[0]?.format ?? '' };
  } finally {
    db.close();
  }
}

function parseObject(json: string | null): Record<string, unknown> {
  if (json === null) return {};
  const value = JSON.parse(json) as unknown;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export async function exportOtlp(options: OtlpExportOptions): Promise<{ traces: number; runs: number; spans: number }> {
  const destination = destinationOf(options.destination);
  const files = withCompanionsInTheirTrace(expandTraceArguments(options.inputs));
  const sink = destination.kind === 'file' ? fileSink(destination.path) : urlSink(destination.url);
  const totals = { traces: 0, runs: 0, spans: 0 };
  try {
    for (const file of files) {
      let trace: TraceHandle;
      try {
        // As the library opens them: a small file on this thread (an engine worker costs more to start than it saves), a large one in a worker.
        const small = identifyFile(file.path).size < DEFAULT_STORE_WORKER_MIN_BYTES;
        trace = small
          ? await openTraceHere(file.path, { cacheDir: options.cacheDir, analysis })
          : await openTrace(file.path, { cacheDir: options.cacheDir, analysis });
      } catch (error) {
        // As `analyze`: a file a directory walk found that is no trace is skipped, not fatal.
        if (file.fromDirectory && error instanceof TraceFileError && error.code === 'unknown_format') {
          options.log(`skipped ${file.path}: ${error.message}`);
          continue;
        }
        throw error;
      }
      const identity = identifyFile(file.path);
      const { roots, all, format } = exportRuns(trace);
      const resource = [
        { key: 'service.name', value: { stringValue: 'unknown_service' } },
        { key: 'loopscope.source.file', value: { stringValue: basename(file.path) } },
        { key: 'loopscope.source.format', value: { stringValue: format } },
      ];
      let spans = 0;
      for (const root of roots) {
        // The file's content (its size and fingerprint) and the run's place in it name the trace: not the path, not the time.
        const traceId = traceIdOf(`${identity.size}\u0000${identity.fingerprint}\u0000${root.key}`);
        const service = typeof root.config['service'] === 'string' ? root.config['service'] : undefined;
        const treeResource = service === undefined ? resource : [{ key: 'service.name', value: { stringValue: service } }, ...resource.slice(1)];
        const treeSpans = runSpans(root, traceId, null, SYNTHETIC_EPOCH_MICROS, { content: options.content });
        for (const request of exportRequests(treeResource, treeSpans)) await sink.send(request);
        spans += treeSpans.length;
      }
      totals.traces += roots.length;
      totals.runs += all.length;
      totals.spans += spans;
      options.log(`${file.path}: ${all.length} run${all.length === 1 ? '' : 's'} as ${roots.length} trace${roots.length === 1 ? '' : 's'}, ${spans} spans`);
    }
    sink.commit();
  } catch (error) {
    sink.abandon();
    throw error;
  }
  const where = destination.kind === 'file' ? destination.path : destination.url.href;
  options.log(
    `exported ${totals.runs} runs as ${totals.traces} traces (${totals.spans} spans) to ${where}${options.content ? ', content included (credentials redacted)' : ''}`,
  );
  return totals;
}
