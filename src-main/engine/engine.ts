/**
 * Opening a trace and reading its report, for the CLI, the desktop app and the HTTP server (through
 * the engine's entry, index.ts): ingest and analysis run in worker threads, never on the caller's
 * event loop; a trace whose cache already holds all of it opens on the caller's thread, without
 * one. Nothing is computed in two places: every consumer goes through these functions.
 */
import { Worker } from 'node:worker_threads';
import type { AnalysisOptions, AnalyzeReport, ReportFinding } from '../../shared/report';
import type { IngestProgress } from './ingest/ingestFile';
import { ingestWorkerMessageSchema, type IngestRequest, type IngestStop, type StoredRuns } from './workers/workerProtocol';
import { endWorker } from './workers/endWorker';
import { workerUrl } from './workers/workerUrl';
import { startStoreWorker, type StoreWorker } from './workers/storeWorkers';
import { watchCompletedFile, type FollowReport } from './workers/fileFollower';
import { reusableCache, type ReusableCache } from './workers/reusableCache';
import { IngestStopped, ingestOrReuseCache } from './workers/traceIngest';
import { buildReport, buildReportOutline, runRequestReports, type ReportedSource, type ReportOutline } from './report/buildReport';
import type { StreamedRun } from './report/reportJson';
import { dirname, join, relative, resolve } from 'node:path';
import type { TurnToCompare } from '../../shared/compare/compareRuns';
import { comparableTurns } from './store/turns';
import { runIdOf, runPksOfSource } from './store/runs';
import { callToolName, summaryCalls } from './store/summaryFacts';
import { responseUsages, runResponseUsages } from './store/responseUsage';
import { costsByRun, RunCost } from '../../shared/cost/runCost';
import type { UserPrices } from '../../shared/cost/userPrices';
import { summaryRunKey, type ToolTally } from '../../shared/summary/runsSummary';
import { defaultCacheDir, openDatabase, TraceFileError, type CompanionSource, type FileIdentity, type TraceFileErrorCode } from './store/traceDatabase';

export { TraceFileError } from './store/traceDatabase';
export type { IngestProgress } from './ingest/ingestFile';
export type { StoredRun, StoredRuns } from './workers/workerProtocol';
export { companionOwnerFile, possibleCompanionFiles } from './ingest/companionFiles';
export { writeReportJson, type StreamedReport, type StreamedRun } from './report/reportJson';
export type { ReportedSource, ReportOutline } from './report/buildReport';

/** Lines longer than this are reported and skipped instead of being loaded whole. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Below this size a second writer thread costs more to start than it saves. */
export const DEFAULT_STORE_WORKER_MIN_BYTES = 16 * 1024 * 1024;

/**
 * Heap limits of the ingest worker. The young generation is kept small: ingest allocates fast and
 * short-lived, and a large nursery only raises peak memory. The old-space cap is a safety net, not
 * a budget: a trace's parse state is small, but analyzing one run holds that run's timeline (a
 * million-event run: ~250 MB), and a lower cap turns such runs into crashes.
 */
const INGEST_WORKER_LIMITS = { maxOldGenerationSizeMb: 1024, maxYoungGenerationSizeMb: 16 };

export interface OpenTraceOptions {
  cacheDir?: string;
  maxLineBytes?: number;
  storeWorkerMinBytes?: number;
  /** Overrides format detection (a name from `formatNames()`). */
  format?: string;
  analysis: AnalysisOptions;
  onProgress?: (progress: IngestProgress) => void;
  /**
   * Called with each batch of runs as the ingest stores them (a run again when it is stored again),
   * all before the returned promise resolves; not called for a reused ingest. The database cannot be
   * read until the ingest is done, so this is how a view shows the runs of a large file as it loads.
   */
  onRuns?: (stored: StoredRuns) => void;
  /**
   * Build the full-text search index (default false): the app searches, `loopscope analyze` does
   * not, and the index costs about a third of the ingest time. A cache built without it is rebuilt
   * when it is asked for.
   */
  searchIndex?: boolean;
  /** Follow the file after reading it (the app does; `loopscope analyze` reads it once). */
  follow?: FollowOptions;
  /**
   * Aborted: an ingest under way stops before its next chunk, leaving the cache unfinished (the
   * next open reads the file again), and the open rejects with OpenStopped once its threads have
   * ended. A process about to exit waits for that: see workers/endWorker.ts.
   */
  stopped?: AbortSignal;
}

/** The open was stopped (OpenTraceOptions.stopped) before the trace was open. */
export class OpenStopped extends Error {
  constructor(path: string) {
    super(`the ingest of ${path} was stopped`);
  }
}

/** How a file still being written is followed (see workers/fileFollower.ts). */
export interface FollowOptions {
  /** A run without a terminal event is `running` until the file has not grown for this long; then `unterminated`. */
  idleMs: number;
  /** The file's new lines are stored and analyzed, or (`idle`) it has not grown for `idleMs`. */
  onFollowed: (progress: IngestProgress, idle: boolean) => void;
  /** What was read is no longer the file's beginning (truncated, rotated, rewritten): it must be read again. Following has ended. */
  onReplaced: (reason: string) => void;
  /** Following has ended (the file was deleted, or could not be read); what was read stays. */
  onStopped: (reason: string) => void;
}

export interface TraceHandle {
  path: string;
  dbPath: string;
  sourceId: number;
  /** Files opened with the trace (a Claude Code session's sub-agent transcripts), absolute paths. */
  companions: CompanionSource[];
  /** True when an earlier ingest of the unchanged file was reused. */
  reused: boolean;
  /**
   * Whether runs without a terminal event are unterminated rather than running: true for a file
   * read once, and for a followed one that had not grown for the idle time when it was opened.
   */
  idle: boolean;
  /** Stops following the file (nothing to do for a file read once). */
  stop: () => Promise<void>;
}

export function openTrace(path: string, options: OpenTraceOptions): Promise<TraceHandle> {
  const request: IngestRequest = {
    path,
    cacheDir: options.cacheDir ?? defaultCacheDir(),
    maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    storeWorkerMinBytes: options.storeWorkerMinBytes ?? DEFAULT_STORE_WORKER_MIN_BYTES,
    ...(options.format !== undefined ? { format: options.format } : {}),
    analysis: options.analysis,
    reportRuns: options.onRuns !== undefined,
    searchIndex: options.searchIndex ?? false,
    follow: options.follow === undefined ? null : { idleMs: options.follow.idleMs },
  };
  const cached = reusableCache(request);
  if (cached !== null) return Promise.resolve(reusedTrace(path, cached, options.follow));
  if (options.stopped?.aborted) return Promise.reject(new OpenStopped(path));
  return ingestInWorker(path, request, options);
}

/**
 * Opens a trace on the calling thread, never in a worker: reused from its cache, or ingested here,
 * the rows written on this thread too. For a caller that is a worker itself and opens many small
 * files one after another (the library, src-main/api/library/): starting an ingest worker, which
 * loads the engine's code, costs more than reading a small file. Not followed; no progress.
 */
export async function openTraceHere(
  path: string,
  options: Pick<OpenTraceOptions, 'cacheDir' | 'maxLineBytes' | 'format' | 'analysis' | 'searchIndex' | 'stopped'>,
): Promise<TraceHandle> {
  const request: IngestRequest = {
    path,
    cacheDir: options.cacheDir ?? defaultCacheDir(),
    maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    // Never a store worker: this thread writes what it parses.
    storeWorkerMinBytes: Number.MAX_SAFE_INTEGER,
    ...(options.format !== undefined ? { format: options.format } : {}),
    analysis: options.analysis,
    reportRuns: false,
    searchIndex: options.searchIndex ?? false,
    follow: null,
  };
  const cached = reusableCache(request);
  if (cached !== null) return reusedTrace(path, cached, undefined);
  try {
    const { done } = await ingestOrReuseCache(request, { post: () => undefined, stopping: options.stopped ?? new AbortController().signal });
    return { path, dbPath: done.dbPath, sourceId: done.sourceId, companions: done.companions, reused: done.reused, idle: true, stop: async () => undefined };
  } catch (error) {
    if (error instanceof IngestStopped) throw new OpenStopped(path);
    throw error;
  }
}

/** What following a file reports, to the caller's callbacks. */
function reportFollow(follow: FollowOptions | undefined, message: FollowReport): void {
  if (message.type === 'followed') follow?.onFollowed(message.progress, message.idle);
  else if (message.type === 'replaced') follow?.onReplaced(message.reason);
  else follow?.onStopped(message.reason);
}

/**
 * Watches a completely read file on this thread for a change, which makes the caller read it again;
 * returns what stops watching. Nothing to watch when the file is not followed.
 */
function watchOnThisThread(identity: FileIdentity, follow: FollowOptions | undefined): () => void {
  if (follow === undefined) return () => undefined;
  const watching = new AbortController();
  watchCompletedFile(identity, (message) => reportFollow(follow, message), { stopped: watching.signal }).catch((error: unknown) => {
    if (!watching.signal.aborted) follow.onStopped(`following the file stopped: ${error instanceof Error ? error.message : String(error)}`);
  });
  return () => watching.abort();
}

/** A trace opened from its cache as it is, on this thread: no worker is started. */
function reusedTrace(path: string, cached: ReusableCache, follow: FollowOptions | undefined): TraceHandle {
  const stopWatching = watchOnThisThread(cached.identity, follow);
  return {
    path,
    dbPath: cached.dbPath,
    sourceId: cached.sourceId,
    companions: cached.companions,
    reused: true,
    idle: true,
    stop: async () => stopWatching(),
  };
}

/**
 * Ingests the trace (or computes what its cache lacks) in an ingest worker, and the sources it asks
 * for in store workers, which this thread owns: the ingest worker ends once it has shipped the last
 * batch (unless it follows the file), while the store worker may still be analyzing. The trace is
 * open when every store is done and the ingest worker has ended (or, following, said done).
 */
function ingestInWorker(path: string, request: IngestRequest, options: OpenTraceOptions): Promise<TraceHandle> {
  return new Promise((resolve, reject) => {
    const ingest = new Worker(workerUrl('ingestWorker'), { workerData: request, resourceLimits: INGEST_WORKER_LIMITS });
    const ingestEnded = new Promise<void>((ended) => ingest.once('exit', () => ended()));
    const stores: StoreWorker[] = [];
    let ingestDone = false;
    let settled = false;
    const endThreads = (): Promise<unknown> =>
      endWorker(ingest, () => ingest.postMessage({ type: 'stop' } satisfies IngestStop)).then(() => Promise.all(stores.map((store) => store.end())));
    /** Settles the open once; the stop signal (a session's, outliving many opens) lets go of it. */
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      options.stopped?.removeEventListener('abort', stop);
      return true;
    };
    const stop = (): void => {
      if (settle()) void endThreads().then(() => reject(new OpenStopped(path)));
    };
    options.stopped?.addEventListener('abort', stop, { once: true });
    const fail = (error: unknown): void => {
      if (!settle()) return;
      void endThreads();
      reject(error);
    };
    // A store that failed makes the ingest fail too (its batches are refused), but the store's own
    // error says why: it is on its way, and fails the open.
    const ingestFailed = (error: Error): void => {
      if (!stores.some((store) => store.failed())) fail(error);
    };
    ingest.on('message', (raw: unknown) => {
      const message = ingestWorkerMessageSchema.parse(raw);
      if (message.type === 'progress') options.onProgress?.(message.progress);
      else if (message.type === 'runs') options.onRuns?.({ source: message.source, runs: message.runs });
      else if (message.type === 'store') {
        const store = startStoreWorker(message.store);
        stores.push(store);
        store.stored.catch((error: unknown) => fail(new Error(`ingest of ${path} failed: ${error instanceof Error ? error.message : String(error)}`)));
      } else if (message.type === 'done') {
        ingestDone = true;
        // A followed file goes on in the ingest worker; otherwise it is ending, and its heap with it.
        const stored = Promise.all([...stores.map((store) => store.stored), message.idle ? ingestEnded : null]);
        stored.then(
          () => {
            if (!settle()) return;
            const stopWatching = message.idle ? watchOnThisThread(message.ingested, options.follow) : () => undefined;
            resolve({
              path,
              dbPath: message.dbPath,
              sourceId: message.sourceId,
              companions: message.companions,
              reused: message.reused,
              idle: message.idle,
              stop: async () => {
                stopWatching();
                await endWorker(ingest, () => ingest.postMessage({ type: 'stop' } satisfies IngestStop));
              },
            });
          },
          // A store that failed has failed the open already, with its error.
          () => undefined,
        );
      } else if (message.type === 'followed' || message.type === 'replaced' || message.type === 'stopped') reportFollow(options.follow, message);
      else if (message.code === 'internal') ingestFailed(new Error(`ingest of ${path} failed: ${message.message}`));
      else ingestFailed(new TraceFileError(message.code as TraceFileErrorCode, path, message.message));
    });
    ingest.on('error', (error) => {
      // After the trace opened, only a followed file's ingest is still running in the worker.
      if (settled) options.follow?.onStopped(`following the file stopped: ${error.message}`);
      else ingestFailed(error);
    });
    ingest.on('exit', (code) => {
      if (!ingestDone) ingestFailed(new Error(`ingest worker for ${path} exited with code ${code} before finishing`));
    });
  });
}

/**
 * How a companion file is named in reports: beside the trace as the caller named it, so a
 * relative path given on the command line gives relative companion paths.
 */
function companionDisplayPath(trace: TraceHandle, companion: CompanionSource, mainAbsolute: string): string {
  return join(dirname(trace.path), relative(dirname(mainAbsolute), companion.path));
}

/** The files of an opened trace as its report names them: the main file and its companions. */
export function reportedSources(trace: TraceHandle): ReportedSource[] {
  const mainAbsolute = resolve(trace.path);
  return [
    { sourceId: trace.sourceId, displayPath: trace.path },
    ...trace.companions.map((companion) => ({ sourceId: companion.sourceId, displayPath: companionDisplayPath(trace, companion, mainAbsolute) })),
  ];
}

export function readReport(trace: TraceHandle, options: AnalysisOptions): AnalyzeReport {
  const db = openDatabase(trace.dbPath, { readonly: true });
  try {
    return buildReport(db, reportedSources(trace), options);
  } finally {
    db.close();
  }
}

/** The trace's report without its runs' requests: what to write the report from (`runsWithRequests`). */
export function readReportOutline(trace: TraceHandle, options: AnalysisOptions): ReportOutline {
  const db = openDatabase(trace.dbPath, { readonly: true });
  try {
    return buildReportOutline(db, reportedSources(trace), options);
  } finally {
    db.close();
  }
}

/**
 * The outline's runs, each with its requests read from the trace's database as they are iterated:
 * one request at a time, the database open until the last run is iterated.
 */
export function* runsWithRequests(trace: TraceHandle, outline: ReportOutline): Generator<StreamedRun> {
  const db = openDatabase(trace.dbPath, { readonly: true });
  try {
    for (const { runPk, report } of outline.runs) yield { report, requests: runRequestReports(db, runPk) };
  } finally {
    db.close();
  }
}

/** A run as the comparison of two runs reads it (docs/semantics.md §16): its turns and its cost (§19, shared/cost/runCost.ts). */
export function readRunToCompare(trace: TraceHandle, runPk: number, userPrices?: UserPrices): { turns: TurnToCompare[]; costUsd: number | null } {
  const db = openDatabase(trace.dbPath, { readonly: true });
  try {
    const cost = new RunCost(userPrices);
    for (const response of runResponseUsages(db, runPk)) cost.add(response);
    return { turns: comparableTurns(db, runPk), costUsd: cost.usd() };
  } finally {
    db.close();
  }
}

/**
 * What a summary of the trace's runs needs beyond its report (shared/summary/runsSummary.ts): each
 * call counted into `tools`, each run's cost (§19, shared/cost/runCost.ts), and the tool of each
 * finding's call.
 */
export function readSummaryFacts(
  trace: TraceHandle,
  findings: readonly ReportFinding[],
  tools: ToolTally,
  userPrices?: UserPrices,
): { costs: Map<string, number>; findingTools: (string | null)[] } {
  const db = openDatabase(trace.dbPath, { readonly: true });
  try {
    const sources = reportedSources(trace);
    const sourceIds = sources.map((source) => source.sourceId);
    const displayPaths = new Map(sources.map((source) => [source.sourceId, source.displayPath]));
    const sourceOfPath = new Map(sources.map((source) => [source.displayPath, source.sourceId]));
    for (const call of summaryCalls(db, sourceIds)) tools.add(call);
    const runKeys = new Map(
      sourceIds.flatMap((sourceId) =>
        runPksOfSource(db, sourceId).map((runPk) => [runPk, summaryRunKey(displayPaths.get(sourceId) ?? '', runIdOf(db, runPk))] as const),
      ),
    );
    const costs = new Map<string, number>();
    for (const [runPk, cost] of costsByRun(
      (function* () {
        for (const response of responseUsages(db, sourceIds)) yield { ...response, run: response.run_pk };
      })(),
      userPrices,
    )) {
      const key = runKeys.get(runPk);
      const usd = cost.usd();
      if (key !== undefined && usd !== null) costs.set(key, usd);
    }
    const findingTools = findings.map((finding) => {
      const sourceId = sourceOfPath.get(finding.file);
      if (sourceId === undefined || finding.run_id === null || finding.call_id === null) return null;
      return callToolName(db, sourceId, finding.run_id, finding.call_id) ?? null;
    });
    return { costs, findingTools };
  } finally {
    db.close();
  }
}
