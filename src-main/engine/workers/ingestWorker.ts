/**
 * The ingest worker: opens one trace (and the files that open with it, each its own source in the
 * same database). It reuses a completed ingest of the unchanged files, or
 * parses the file — shipping row batches to a store worker that writes them on the other core when
 * the file is large, writing them itself when it is small — then reports progress and the outcome
 * to the engine.
 */
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { ensureAnalysis } from '../analysis/analyzeSource';
import { ingestFile, type IngestProgress } from '../ingest/ingestFile';
import type { FirstRowIds } from '../ingest/traceIngester';
import { basename } from 'node:path';
import { identifyFile, openDatabase, prepareDatabase, TraceFileError, type CompanionSource, type FileIdentity } from '../store/traceDatabase';
import { adapterNamed } from '../adapters/registry';
import { companionFiles } from '../ingest/companionFiles';
import { TraceLoader } from '../store/traceLoader';
import { chooseFormat, type ChosenFormat } from '../ingest/detectFormat';
import type { FormatAdapter } from '../adapters/formatAdapter';
import { decodeRow, RowBatcher, runColumns, type RowBatch, type RunRow } from '../store/traceWriter';
import { workerUrl } from './workerUrl';
import {
  ingestRequestSchema,
  storeReplySchema,
  type IngestRequest,
  type IngestWorkerMessage,
  type StoredRun,
  type StoreRequest,
} from './workerProtocol';

/** Batches parsed but not yet written; a few keep both cores busy without growing memory. */
const MAX_BATCHES_IN_FLIGHT = 4;
const FLOW_IN_FLIGHT = 0;
const FLOW_FAILED = 1;
/**
 * The store worker's heap cap is a safety net, not a budget: what it keeps is the timeline of each
 * run still open, which for one run of a million events is ~250 MB (see engine.ts on heap caps).
 */
const STORE_WORKER_LIMITS = { maxOldGenerationSizeMb: 1024, maxYoungGenerationSizeMb: 16 };

function post(message: IngestWorkerMessage): void {
  parentPort?.postMessage(message);
}

/**
 * The batch writer, posting the runs of each batch to the engine as they go to the store when the
 * request asks for them: the database is written without a journal during the load, so nobody may
 * read it before the ingest is done, yet a runs table can fill in from these.
 */
function reportingRuns(request: IngestRequest, identity: FileIdentity, format: FormatAdapter, sourceId: number, write: (batch: RowBatch) => void): (batch: RowBatch) => void {
  if (!request.reportRuns) return write;
  const source = { sourceId, path: identity.path, format: format.name };
  return (batch) => {
    write(batch);
    if (batch.runs.length === 0) return;
    const runs = batch.runs.map((values): StoredRun => {
      const run = decodeRow<RunRow>(values, runColumns);
      return {
        id: run.id,
        run_id: run.run_id,
        status: run.status,
        status_raw: run.status_raw,
        first_line: run.first_line,
        last_line: run.last_line,
        started_at: run.started_at,
        ended_at: run.ended_at,
        steps: run.steps,
        tool_calls: run.tool_calls,
        tool_results: run.tool_results,
        input_tokens: run.input_tokens,
        output_tokens: run.output_tokens,
      };
    });
    post({ type: 'runs', source, runs });
  };
}

/** One file to ingest into a source of the trace database. */
interface SourceIngest {
  request: IngestRequest;
  identity: FileIdentity;
  format: FormatAdapter;
  dbPath: string;
  source: NewSource;
  report: (progress: IngestProgress) => void;
}

/** Parses on this thread while the store worker writes; resolves once the database is complete and analyzed. */
async function ingestThroughStoreWorker({ request, identity, format, dbPath, source: { sourceId, firstIds }, report }: SourceIngest): Promise<void> {
  const flowBuffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const flow = new Int32Array(flowBuffer);
  const store = new Worker(workerUrl('storeWorker'), {
    workerData: { dbPath, sourceId, analysis: request.analysis, flow: flowBuffer },
    resourceLimits: STORE_WORKER_LIMITS,
  });
  const outcome = new Promise<void>((resolve, reject) => {
    store.on('message', (raw: unknown) => {
      const reply = storeReplySchema.parse(raw);
      if (reply.type === 'done') resolve();
      else reject(new Error(`writing the trace database failed: ${reply.message}`));
    });
    store.on('error', reject);
    store.on('exit', (code) => reject(new Error(`the store worker exited with code ${code}`)));
  });
  const send = (message: StoreRequest): void => store.postMessage(message);
  const failed = (): boolean => Atomics.load(flow, FLOW_FAILED) !== 0;
  const ship = (batch: RowBatch): void => {
    if (failed()) throw new Error('the store worker failed; see its error');
    Atomics.add(flow, FLOW_IN_FLIGHT, 1);
    send({ type: 'batch', batch });
  };
  // This thread only parses and must not outrun the writer: between chunks it waits for the
  // batches in flight to drain. The wait is asynchronous and raced with the writer's outcome, so a
  // writer that dies (out of memory, say) ends the ingest with its error instead of hanging it.
  const drained = async (): Promise<void> => {
    for (;;) {
      if (failed()) throw new Error('the store worker failed; see its error');
      const inFlight = Atomics.load(flow, FLOW_IN_FLIGHT);
      if (inFlight < MAX_BATCHES_IN_FLIGHT) return;
      const waiting = Atomics.waitAsync(flow, FLOW_IN_FLIGHT, inFlight, 1000);
      if (waiting.async) await Promise.race([waiting.value, outcome]);
    }
  };
  try {
    const counters = await ingestFile(identity, format, sourceId, new RowBatcher(reportingRuns(request, identity, format, sourceId, ship)), {
      maxLineBytes: request.maxLineBytes,
      firstIds,
      searchIndex: request.searchIndex,
      beforeNextChunk: drained,
      onProgress: report,
    });
    send({ type: 'finish', counters });
  } catch (error) {
    // When the store failed first, its error explains more than the flow-control error it caused here.
    if (failed()) return outcome.finally(() => store.terminate());
    outcome.catch(() => undefined);
    void store.terminate();
    throw error;
  }
  return outcome.finally(() => store.terminate());
}

async function ingestOnThisThread({ request, identity, format, dbPath, source: { sourceId, firstIds }, report }: SourceIngest): Promise<void> {
  const db = openDatabase(dbPath);
  try {
    const loader = new TraceLoader(db, sourceId, request.analysis);
    const counters = await ingestFile(identity, format, sourceId, new RowBatcher(reportingRuns(request, identity, format, sourceId, loader.write)), {
      maxLineBytes: request.maxLineBytes,
      firstIds,
      searchIndex: request.searchIndex,
      onProgress: report,
    });
    loader.finish(counters);
  } finally {
    db.close();
  }
}

/** The companion files of a trace read as `format` that can be read now; one that cannot is left out. */
function companionIdentities(adapter: FormatAdapter | undefined, path: string): FileIdentity[] {
  if (adapter === undefined) return [];
  return companionFiles(adapter, path).flatMap((companion) => {
    try {
      return [identifyFile(companion)];
    } catch {
      // Deleted or unreadable since it was listed: the trace opens without it.
      return [];
    }
  });
}

interface NewSource {
  sourceId: number;
  /** Row ids continue past those of the sources already in the database. */
  firstIds: FirstRowIds;
}

/** Records a source being ingested; its `ingest_completed_at` is set when the load finishes. */
function insertSource(dbPath: string, identity: FileIdentity, format: string, reason: string, parentSourceId: number | null, searchIndex: boolean): NewSource {
  const db = openDatabase(dbPath);
  try {
    const sourceId = Number(
      db
        .prepare(
          `INSERT INTO sources (path, size, mtime_ms, fingerprint, format, format_reason, parent_source_id, search_indexed, ingest_started_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(identity.path, identity.size, identity.mtimeMs, identity.fingerprint, format, reason, parentSourceId, searchIndex ? 1 : 0, new Date().toISOString())
        .lastInsertRowid,
    );
    const next = (table: string): number => db.prepare<[], { next: number }>(`SELECT coalesce(max(id), 0) + 1 AS next FROM ${table}`).get()?.next ?? 1;
    return { sourceId, firstIds: { event: next('events'), toolCall: next('tool_calls'), run: next('runs') } };
  } finally {
    db.close();
  }
}

/**
 * Progress over a trace and the files opened with it, as one: each file's counters are added to
 * those of the files read before it, and the total is all their bytes, so a bar never jumps back.
 */
class TraceProgress {
  private done: IngestProgress;

  constructor(totalBytes: number) {
    this.done = { bytesRead: 0, totalBytes, lines: 0, blankLines: 0, events: 0, unknownEvents: 0, parseErrors: 0 };
  }

  /** The reporter for the next file; `finished` adds its last counters to the trace's. */
  forFile(): { report: (progress: IngestProgress) => void; finished: () => void } {
    const before = this.done;
    const add = (progress: IngestProgress): IngestProgress => ({
      bytesRead: before.bytesRead + progress.bytesRead,
      totalBytes: before.totalBytes,
      lines: before.lines + progress.lines,
      blankLines: before.blankLines + progress.blankLines,
      events: before.events + progress.events,
      unknownEvents: before.unknownEvents + progress.unknownEvents,
      parseErrors: before.parseErrors + progress.parseErrors,
    });
    let last: IngestProgress | null = null;
    return {
      report: (progress) => {
        last = progress;
        post({ type: 'progress', progress: add(progress) });
      },
      finished: () => {
        if (last !== null) this.done = add(last);
      },
    };
  }
}

async function ingestSource(request: IngestRequest, identity: FileIdentity, adapter: FormatAdapter, dbPath: string, source: NewSource, progress: TraceProgress): Promise<void> {
  const file = progress.forFile();
  const job: SourceIngest = { request, identity, format: adapter, dbPath, source, report: file.report };
  if (identity.size >= request.storeWorkerMinBytes) await ingestThroughStoreWorker(job);
  else await ingestOnThisThread(job);
  file.finished();
}

async function openTrace(request: IngestRequest): Promise<Extract<IngestWorkerMessage, { type: 'done' }>> {
  const identity = identifyFile(request.path);
  const prepared = prepareDatabase(identity, request.cacheDir, request.format, request.searchIndex, (format) => companionIdentities(adapterNamed(format), identity.path));
  if (prepared.reusable !== null) {
    const { sourceId, companions } = prepared.reusable;
    try {
      for (const id of [sourceId, ...companions.map((companion) => companion.sourceId)]) ensureAnalysis(prepared.db, id, request.analysis);
    } finally {
      prepared.db.close();
    }
    return { type: 'done', dbPath: prepared.dbPath, sourceId, companions, reused: true };
  }
  prepared.db.close();
  const format: ChosenFormat = chooseFormat(identity, request.format);
  const companionFiles = companionIdentities(format.adapter, identity.path);
  const progress = new TraceProgress(identity.size + companionFiles.reduce((sum, companion) => sum + companion.size, 0));
  const main = insertSource(prepared.dbPath, identity, format.adapter.name, format.reason, null, request.searchIndex);
  await ingestSource(request, identity, format.adapter, prepared.dbPath, main, progress);
  const companions: CompanionSource[] = [];
  for (const companion of companionFiles) {
    const reason = `opened with ${basename(identity.path)}: ${format.adapter.name} keeps this file beside it`;
    const source = insertSource(prepared.dbPath, companion, format.adapter.name, reason, main.sourceId, request.searchIndex);
    await ingestSource(request, companion, format.adapter, prepared.dbPath, source, progress);
    companions.push({ path: companion.path, sourceId: source.sourceId });
  }
  return { type: 'done', dbPath: prepared.dbPath, sourceId: main.sourceId, companions, reused: false };
}

openTrace(ingestRequestSchema.parse(workerData)).then(post, (error: unknown) => {
  if (error instanceof TraceFileError) post({ type: 'failed', code: error.code, message: error.reason });
  else post({ type: 'failed', code: 'internal', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
});
