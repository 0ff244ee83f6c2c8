/**
 * Ingesting one trace into its cache database (and the files that open with it, each its own source
 * in the same database): a completed ingest of the unchanged files is reused (only the analyses it
 * lacks are computed), otherwise the file is parsed — row batches shipped to a store worker that
 * writes them on the other core when the file is large, written on this thread when it is small.
 * Runs in the ingest worker (ingestWorker.ts), or on the calling thread for a small file read once
 * (`ingestHere` in engine.ts: a library of thousands of small traces would otherwise start a
 * worker, and load the engine's code, for each). What it reports goes to `thread.post`.
 */
import { MessageChannel, type MessagePort, type Transferable } from 'node:worker_threads';
import { ensureAnalysis } from '../derive/analyzeSource';
import { GrowingFileIngest, ingestFile, type IngestOptions, type IngestProgress } from '../ingest/ingestFile';
import type { FirstRowIds } from '../ingest/eventRecorder';
import { basename } from 'node:path';
import { identifyFile, openDatabase, prepareDatabase, type CompanionSource, type FileIdentity } from '../store/traceDatabase';
import { adapterNamed } from '../adapters/registry';
import { TraceLoader } from '../pipeline/traceLoader';
import { insertSourceRow, nextRowIds } from '../store/sources';
import { chooseFormat, type ChosenFormat } from '../ingest/detectFormat';
import type { FormatAdapter } from '../adapters/formatAdapter';
import { decodeRow, RowBatcher, runColumns, type RowBatch, type RunSqlRow } from '../store/traceWriter';
import { companionIdentities } from './reusableCache';
import { followFile, idleWhenOpened, TraceFollower } from './fileFollower';
import {
  FLOW_CELLS,
  FLOW_FAILED,
  FLOW_IN_FLIGHT,
  storeReplySchema,
  type IngestRequest,
  type IngestWorkerMessage,
  type StoredRun,
  type StoreRequest,
} from './workerProtocol';

/** Batches parsed but not yet written; a few keep both cores busy without growing memory. */
const MAX_BATCHES_IN_FLIGHT = 4;

/** Where an ingest reports (the engine, through the worker's port, or a caller on its own thread) and what stops it. */
export interface IngestThread {
  post: (message: IngestWorkerMessage, transfer?: Transferable[]) => void;
  /** Aborted: the ingest stops before its next chunk (IngestStopped). */
  stopping: AbortSignal;
}

/** Thrown before the next chunk once the ingest was asked to stop: what was read is left unfinished, so the cache is not reused. */
export class IngestStopped extends Error {}

/**
 * Between two chunks: one turn of the event loop, where the engine's stop message is read (the read
 * itself never yields to it: a chunk is parsed and shipped synchronously), then stops if it came.
 */
async function stopIfAsked(stopping: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (stopping.aborted) throw new IngestStopped('the trace was closed');
}

/**
 * The batch writer, posting the runs of each batch to the engine as they go to the store when the
 * request asks for them: the database is written without a journal during the load, so nobody may
 * read it before the ingest is done, yet a runs table can fill in from these.
 */
function reportingRuns(
  thread: IngestThread,
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
    thread.post({ type: 'runs', source, runs });
  };
}

/** One file to ingest into a source of the trace database. */
interface SourceIngest {
  thread: IngestThread;
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
    beforeNextChunk: async () => {
      await stopIfAsked(job.thread.stopping);
      await extra.beforeNextChunk?.();
    },
  };
  if (!job.followed) return { progress: await ingestFile(identity, format, source.sourceId, job.rows.batcher, options), followed: null };
  const file = new GrowingFileIngest(identity.path, format, source.sourceId, job.rows.batcher, options);
  await file.readTo(identity.size);
  const progress = file.checkpoint();
  job.report(progress);
  return { progress, followed: file };
}

/** The store's reply to the last request: resolves when it is done, rejects when it failed (the engine reports why). */
function storeReply(port: MessagePort): Promise<void> {
  return new Promise((resolve, reject) => {
    port.once('message', (raw: unknown) => {
      if (storeReplySchema.parse(raw).type === 'done') resolve();
      else reject(new Error('the store worker failed; see its error'));
    });
  });
}

/**
 * Parses on this thread while a store worker writes. The engine starts the store and waits for it;
 * this thread waits too only when it goes on with the database (a file opened after this one, or
 * this one followed), so after the trace's last source it can end while the store finishes.
 */
async function ingestThroughStoreWorker(job: SourceIngest, last: boolean): Promise<GrowingFileIngest | null> {
  const {
    request,
    identity,
    format,
    dbPath,
    source: { sourceId },
  } = job;
  const flowBuffer = new SharedArrayBuffer(FLOW_CELLS * Int32Array.BYTES_PER_ELEMENT);
  const flow = new Int32Array(flowBuffer);
  const { port1: toStore, port2: storePort } = new MessageChannel();
  job.thread.post({ type: 'store', store: { dbPath, sourceId, analysis: request.analysis, flow: flowBuffer, port: storePort } }, [storePort]);
  const send = (message: StoreRequest): void => toStore.postMessage(message);
  const failed = (): boolean => Atomics.load(flow, FLOW_FAILED) !== 0;
  const ship = (batch: RowBatch): void => {
    if (failed()) throw new Error('the store worker failed; see its error');
    Atomics.add(flow, FLOW_IN_FLIGHT, 1);
    send({ type: 'batch', batch });
  };
  // This thread only parses and must not outrun the writer: between chunks it waits for the
  // batches in flight to drain. A store that fails raises its flag and wakes this wait; one that
  // dies (out of memory, say) is seen by the engine, which then ends this thread.
  const drained = async (): Promise<void> => {
    for (;;) {
      if (failed()) throw new Error('the store worker failed; see its error');
      const inFlight = Atomics.load(flow, FLOW_IN_FLIGHT);
      if (inFlight < MAX_BATCHES_IN_FLIGHT) return;
      const waiting = Atomics.waitAsync(flow, FLOW_IN_FLIGHT, inFlight);
      if (waiting.async) await waiting.value;
    }
  };
  // Listening for the reply also keeps this thread alive while it waits for the store to drain
  // (an Atomics wait does not). A failure is seen by its flag, and reported by the engine.
  const stored = storeReply(toStore);
  stored.catch(() => undefined);
  try {
    job.rows.write = reportingRuns(job.thread, request, identity, format, sourceId, ship);
    const loaded = await loadSource(job, { beforeNextChunk: drained });
    send({ type: 'finish', counters: loaded.progress, complete: loaded.followed === null, ingested: identity });
    if (!last || loaded.followed !== null) await stored;
    return loaded.followed;
  } catch (error) {
    if (error instanceof IngestStopped) send({ type: 'abandon' });
    throw error;
  } finally {
    // Messages already sent are still delivered: closing only says nothing more comes.
    toStore.close();
  }
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
    job.rows.write = reportingRuns(job.thread, request, identity, format, sourceId, loader.write);
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

  constructor(
    private readonly thread: IngestThread,
    totalBytes: number,
  ) {
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
        this.thread.post({ type: 'progress', progress: add(progress) });
      },
      finished: () => {
        finished = true;
        if (last !== null) this.done = add(last);
      },
    };
  }
}

/**
 * Ingests one file; a followed one's ingest is returned to go on with, and where its rows go.
 * `last`: no file of the trace comes after this one.
 */
async function ingestSource(
  thread: IngestThread,
  request: IngestRequest,
  identity: FileIdentity,
  adapter: FormatAdapter,
  dbPath: string,
  source: NewSource,
  progress: TraceProgress,
  { followed, last }: { followed: boolean; last: boolean },
): Promise<{ ingest: GrowingFileIngest; rows: RowTarget } | null> {
  const file = progress.forFile();
  const job: SourceIngest = { thread, request, identity, format: adapter, dbPath, source, report: file.report, followed, rows: new RowTarget() };
  const growing = identity.size >= request.storeWorkerMinBytes ? await ingestThroughStoreWorker(job, last) : await ingestOnThisThread(job);
  file.finished();
  return growing === null ? null : { ingest: growing, rows: job.rows };
}

/** The cache holds the trace (or its store workers are finishing it); `follow`, for a file still growing, follows it. */
export interface CachedTrace {
  done: Extract<IngestWorkerMessage, { type: 'done' }>;
  follow: (() => Promise<void>) | null;
}

/**
 * Brings the file's cache database up to date: a reusable cache only gets the analyses it lacks,
 * otherwise the file and its companions are ingested into a fresh one.
 */
export async function ingestOrReuseCache(request: IngestRequest, thread: IngestThread): Promise<CachedTrace> {
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
    return { done: { type: 'done', dbPath: prepared.dbPath, sourceId, companions, reused: true, idle: true, ingested: identity }, follow: null };
  }
  prepared.db.close();
  const format: ChosenFormat = chooseFormat(identity, request.format);
  const companionFiles = companionIdentities(format.adapter, identity.path);
  const progress = new TraceProgress(thread, identity.size + companionFiles.reduce((sum, companion) => sum + companion.size, 0));
  const main = insertSource(prepared.dbPath, identity, format.adapter.name, format.reason, null, request.searchIndex);
  // A ZIP container is written whole, never appended to: it is not followed.
  const followed = request.follow !== null && !idleWhenOpened(identity, request.follow) && format.adapter.framing !== 'zip-json';
  const growing = await ingestSource(thread, request, identity, format.adapter, prepared.dbPath, main, progress, {
    followed,
    last: companionFiles.length === 0,
  });
  const companions: CompanionSource[] = [];
  for (const [index, companion] of companionFiles.entries()) {
    const reason = `opened with ${basename(identity.path)}: ${format.adapter.name} keeps this file beside it`;
    const source = insertSource(prepared.dbPath, companion, format.adapter.name, reason, main.sourceId, request.searchIndex);
    await ingestSource(thread, request, companion, format.adapter, prepared.dbPath, source, progress, {
      followed: false,
      last: index === companionFiles.length - 1,
    });
    companions.push({ path: companion.path, sourceId: source.sourceId });
  }
  const done = {
    type: 'done',
    dbPath: prepared.dbPath,
    sourceId: main.sourceId,
    companions,
    reused: false,
    idle: growing === null,
    ingested: identity,
  } as const;
  if (request.follow === null || growing === null) return { done, follow: null };
  const { idleMs } = request.follow;
  const follower = new TraceFollower(request.analysis, prepared.dbPath, main.sourceId, growing, identity);
  return { done, follow: () => followFile(idleMs, follower, (message) => thread.post(message), thread.stopping) };
}
