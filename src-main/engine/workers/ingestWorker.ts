/**
 * The ingest worker: opens one trace (and the files that open with it, each its own source in the
 * same database). It reuses a completed ingest of the unchanged files, or
 * parses the file — shipping row batches to a store worker that writes them on the other core when
 * the file is large, writing them itself when it is small — then reports progress and the outcome
 * to the engine. A file followed as it is written goes on in fileFollower.ts, which reports
 * through the same messages.
 */
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { ensureAnalysis } from '../derive/analyzeSource';
import { GrowingFileIngest, ingestFile, type IngestOptions, type IngestProgress } from '../ingest/ingestFile';
import type { FirstRowIds } from '../ingest/eventRecorder';
import { basename } from 'node:path';
import { identifyFile, openDatabase, prepareDatabase, TraceFileError, type CompanionSource, type FileIdentity } from '../store/traceDatabase';
import { adapterNamed } from '../adapters/registry';
import { TraceLoader } from '../pipeline/traceLoader';
import { insertSourceRow, nextRowIds } from '../store/sources';
import { chooseFormat, type ChosenFormat } from '../ingest/detectFormat';
import type { FormatAdapter } from '../adapters/formatAdapter';
import { decodeRow, RowBatcher, runColumns, type RowBatch, type RunSqlRow } from '../store/traceWriter';
import { workerUrl } from './workerUrl';
import { companionIdentities } from './reusableCache';
import { followFile, idleWhenOpened, TraceFollower, watchCompletedFile } from './fileFollower';
import { ingestRequestSchema, storeReplySchema, type IngestRequest, type IngestWorkerMessage, type StoredRun, type StoreRequest } from './workerProtocol';

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
function reportingRuns(
  request: IngestRequest,
  identity: FileIdentity,
  format: FormatAdapter,
  sourceId: number,
  write: (batch: RowBatch) => void,
): (batch: RowBatch) => void {
  if (!request.reportRuns) return write;
  const source = { sourceId, path: identity.path, format: format.name };
  return (batch) => {
    write(batch);
    if (batch.runs.length === 0) return;
    const runs = batch.runs.map((values): StoredRun => {
      const run = decodeRow<RunSqlRow>(values, runColumns);
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
  /** Whether the file ends at `identity.size` (finish the ingest) or is followed (checkpoint, and keep the parse state). */
  followed: boolean;
  rows: RowTarget;
}

/**
 * Where the ingester's row batches go. It changes once for a followed file: from the bulk load's
 * writer (maybe a store worker) to the append loader on this thread, with the same parse state.
 */
class RowTarget {
  write: (batch: RowBatch) => void = () => {
    throw new Error('rows written before their target was set');
  };
  readonly batcher = new RowBatcher((batch) => this.write(batch));
}

/**
 * Reads the file up to its identified size into `rows`. A file that is not followed is finished;
 * a followed one gets its first checkpoint, and the ingest that goes on from there is returned.
 */
async function loadSource(
  job: SourceIngest,
  extra: Pick<IngestOptions, 'beforeNextChunk'> = {},
): Promise<{ progress: IngestProgress; followed: GrowingFileIngest | null }> {
  const { identity, format, source } = job;
  const options: IngestOptions = {
    maxLineBytes: job.request.maxLineBytes,
    firstIds: source.firstIds,
    searchIndex: job.request.searchIndex,
    onProgress: job.report,
    ...extra,
  };
  if (!job.followed) return { progress: await ingestFile(identity, format, source.sourceId, job.rows.batcher, options), followed: null };
  const file = new GrowingFileIngest(identity.path, format, source.sourceId, job.rows.batcher, options);
  await file.readTo(identity.size);
  const progress = file.checkpoint();
  job.report(progress);
  return { progress, followed: file };
}

/** Parses on this thread while the store worker writes; resolves once the database is complete (or checkpointed) and analyzed. */
async function ingestThroughStoreWorker(job: SourceIngest): Promise<GrowingFileIngest | null> {
  const {
    request,
    identity,
    format,
    dbPath,
    source: { sourceId },
  } = job;
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
  let loaded: Awaited<ReturnType<typeof loadSource>>;
  try {
    job.rows.write = reportingRuns(request, identity, format, sourceId, ship);
    loaded = await loadSource(job, { beforeNextChunk: drained });
    send({ type: 'finish', counters: loaded.progress, complete: loaded.followed === null, ingested: identity });
  } catch (error) {
    // When the store failed first, its error explains more than the flow-control error it caused here.
    if (failed()) return outcome.then(() => null).finally(() => store.terminate());
    outcome.catch(() => undefined);
    void store.terminate();
    throw error;
  }
  await outcome.finally(() => store.terminate());
  return loaded.followed;
}

async function ingestOnThisThread(job: SourceIngest): Promise<GrowingFileIngest | null> {
  const {
    request,
    identity,
    format,
    dbPath,
    source: { sourceId },
  } = job;
  const db = openDatabase(dbPath);
  try {
    const loader = new TraceLoader(db, sourceId, request.analysis);
    job.rows.write = reportingRuns(request, identity, format, sourceId, loader.write);
    const loaded = await loadSource(job);
    if (loaded.followed === null) loader.finish(loaded.progress);
    else loader.checkpoint(loaded.progress, identity);
    return loaded.followed;
  } finally {
    db.close();
  }
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
    const sourceId = insertSourceRow(db, {
      path: identity.path,
      size: identity.size,
      mtime_ms: identity.mtimeMs,
      fingerprint: identity.fingerprint,
      format,
      format_reason: reason,
      parent_source_id: parentSourceId,
      search_indexed: searchIndex ? 1 : 0,
      ingest_started_at: new Date().toISOString(),
    });
    return { sourceId, firstIds: nextRowIds(db) };
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

  /**
   * The reporter for the next file; `finished` adds its last counters to the trace's. A followed
   * file goes on reading after that, but the trace is open by then: what it reads is reported by
   * `followed` messages, not as opening progress, so its reporter falls silent.
   */
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
    let finished = false;
    return {
      report: (progress) => {
        if (finished) return;
        last = progress;
        post({ type: 'progress', progress: add(progress) });
      },
      finished: () => {
        finished = true;
        if (last !== null) this.done = add(last);
      },
    };
  }
}

/** Ingests one file; a followed one's ingest is returned to go on with, and where its rows go. */
async function ingestSource(
  request: IngestRequest,
  identity: FileIdentity,
  adapter: FormatAdapter,
  dbPath: string,
  source: NewSource,
  progress: TraceProgress,
  followed: boolean,
): Promise<{ ingest: GrowingFileIngest; rows: RowTarget } | null> {
  const file = progress.forFile();
  const job: SourceIngest = { request, identity, format: adapter, dbPath, source, report: file.report, followed, rows: new RowTarget() };
  const growing = identity.size >= request.storeWorkerMinBytes ? await ingestThroughStoreWorker(job) : await ingestOnThisThread(job);
  file.finished();
  return growing === null ? null : { ingest: growing, rows: job.rows };
}

/** The cache holds the trace; `follow`, for a followed file, watches it until it is replaced or deleted. */
interface CachedTrace {
  done: Extract<IngestWorkerMessage, { type: 'done' }>;
  follow: (() => Promise<void>) | null;
}

/**
 * Brings the file's cache database up to date: a reusable cache only gets the analyses it lacks,
 * otherwise the file and its companions are ingested into a fresh one.
 */
async function ingestOrReuseCache(request: IngestRequest): Promise<CachedTrace> {
  const identity = identifyFile(request.path);
  const prepared = prepareDatabase(identity, request.cacheDir, request.format, request.searchIndex, (format) =>
    companionIdentities(adapterNamed(format), identity.path),
  );
  if (prepared.reusable !== null) {
    const { sourceId, companions } = prepared.reusable;
    try {
      for (const id of [sourceId, ...companions.map((companion) => companion.sourceId)]) ensureAnalysis(prepared.db, id, request.analysis);
    } finally {
      prepared.db.close();
    }
    return {
      done: { type: 'done', dbPath: prepared.dbPath, sourceId, companions, reused: true, idle: true },
      follow: request.follow === null ? null : () => watchCompletedFile(identity, post),
    };
  }
  prepared.db.close();
  const format: ChosenFormat = chooseFormat(identity, request.format);
  const companionFiles = companionIdentities(format.adapter, identity.path);
  const progress = new TraceProgress(identity.size + companionFiles.reduce((sum, companion) => sum + companion.size, 0));
  const main = insertSource(prepared.dbPath, identity, format.adapter.name, format.reason, null, request.searchIndex);
  // A ZIP container is written whole, never appended to: it is not followed.
  const followed = request.follow !== null && !idleWhenOpened(identity, request.follow) && format.adapter.framing !== 'zip-json';
  const growing = await ingestSource(request, identity, format.adapter, prepared.dbPath, main, progress, followed);
  const companions: CompanionSource[] = [];
  for (const companion of companionFiles) {
    const reason = `opened with ${basename(identity.path)}: ${format.adapter.name} keeps this file beside it`;
    const source = insertSource(prepared.dbPath, companion, format.adapter.name, reason, main.sourceId, request.searchIndex);
    await ingestSource(request, companion, format.adapter, prepared.dbPath, source, progress, false);
    companions.push({ path: companion.path, sourceId: source.sourceId });
  }
  const done = { type: 'done', dbPath: prepared.dbPath, sourceId: main.sourceId, companions, reused: false, idle: growing === null } as const;
  if (request.follow === null) return { done, follow: null };
  if (growing === null) return { done, follow: () => watchCompletedFile(identity, post) };
  const { idleMs } = request.follow;
  const follower = new TraceFollower(request.analysis, prepared.dbPath, main.sourceId, growing, identity);
  return { done, follow: () => followFile(idleMs, follower, post) };
}

async function run(request: IngestRequest): Promise<void> {
  const cached = await ingestOrReuseCache(request);
  post(cached.done);
  if (cached.follow === null) return;
  try {
    await cached.follow();
  } catch (error) {
    post({ type: 'stopped', reason: `following the file stopped: ${error instanceof Error ? error.message : String(error)}` });
  }
}

run(ingestRequestSchema.parse(workerData)).catch((error: unknown) => {
  if (error instanceof TraceFileError) post({ type: 'failed', code: error.code, message: error.reason });
  else post({ type: 'failed', code: 'internal', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
});
