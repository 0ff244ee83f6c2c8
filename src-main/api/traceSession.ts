/**
 * One open trace, from the first ingest to the host's close: it reads the file through the engine
 * (in its worker), keeps the summary the page polls (state, progress, format, companions, follow
 * state, notice), serves the runs stored so far while the ingest runs, and answers queries from
 * the query worker once the trace is ready (a reopened trace's summary and the runs table's first
 * page are read on this thread, so that it is ready, and its table shown, without waiting for that
 * worker's start-up). A reload, or the file replaced while followed, starts a new ingest; each
 * ingest has a generation, so that only the latest one's results are kept.
 */
import { basename } from 'node:path';
import type Database from 'better-sqlite3';
import { apiMethods, type ApiParsedRequest, type ApiResponse, type TraceSummary } from '../../shared/api';
import type { AnalysisOptions } from '../../shared/report';
import { maskSecretsDeep } from '../../shared/secrets/secretScanner';
import { openDatabase, openTrace, TraceFileError, type FollowOptions, type TraceHandle } from '../engine';
import { ApiError } from './apiError';
import { LiveRuns } from './liveRuns';
import { runs } from './queries/runs';
import type { TraceScope } from './queries/scope';
import { sourceSummary } from './queries/trace';
import type { UserPrices } from '../../shared/cost/userPrices';
import type { QueryClient } from './queryClient';
import type { QueryMethod, QueryTrace } from './queryProtocol';

/** What every session of one API host shares. */
export interface TraceSessionContext {
  queries: QueryClient;
  analysis: AnalysisOptions;
  /** `optionsKey(analysis)`: which stored analysis the queries read. */
  analysisKey: string;
  /** Where trace databases are kept (default: the engine's). */
  cacheDir: string | undefined;
  /** How long a followed file may go without growing before it is idle; null: files are read once. */
  idleAfterMs: number | null;
  /** Called whenever the summary changes, with a copy of it. */
  onUpdate: (summary: TraceSummary) => void;
  /** Called when the file has been read successfully (the recent-files list). */
  onReady: (path: string) => void;
  /** The user price file's prices (docs/semantics.md §18), when the host was given one. */
  userPrices: UserPrices | undefined;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}

/** A trace whose ingest has just started: nothing known yet but its path. */
function ingestingSummary(traceId: string, path: string): TraceSummary {
  return {
    traceId,
    path,
    name: basename(path),
    format: null,
    formatReason: null,
    state: 'ingesting',
    progress: { bytesRead: 0, totalBytes: 0, events: 0, parseErrors: 0 },
    error: null,
    reused: false,
    companions: [],
    follow: null,
    notice: null,
  };
}

/**
 * A read of the trace's database on this thread, for the one that cannot wait for the query
 * worker's start-up (loading the engine's code): a reopened trace's summary, a few indexed
 * queries, so that the trace is ready as soon as its cache is found.
 */
function readHere<T>(trace: QueryTrace, userPrices: UserPrices | undefined, read: (db: Database.Database, scope: TraceScope) => T): T {
  const db = openDatabase(trace.dbPath, { readonly: true });
  try {
    return read(db, { sourceIds: trace.sourceIds, optionsKey: trace.optionsKey, ...(userPrices !== undefined ? { userPrices } : {}) });
  } finally {
    db.close();
  }
}

/** Why the ingest of `path` failed, naming the file. */
function ingestFailure(path: string, error: unknown): ApiError {
  if (error instanceof TraceFileError) return new ApiError('trace_file', `${path}: ${error.reason}`);
  if (error instanceof ApiError) return new ApiError(error.code, `${path}: ${error.message}`);
  return new ApiError('internal', `${path} could not be opened: ${firstLine(error instanceof Error ? error.message : String(error))}`);
}

export class TraceSession {
  private summary: TraceSummary;
  /** The ingested trace, once `summary.state` is `ready`. */
  private handle: TraceHandle | null = null;
  /** Why it could not be opened, once `summary.state` is `failed`. */
  private failure: ApiError | null = null;
  /** Runs stored so far, while `summary.state` is `ingesting`. */
  private readonly live = new LiveRuns();
  /** Bumped by each ingest, so that a reload's results replace, and are never replaced by, an earlier one's. */
  private generation = 0;
  /** Set by `close`: no callback of an ingest still under way changes anything after it. */
  private closed = false;
  /** Aborted by `close`: an ingest under way stops (OpenTraceOptions.stopped). */
  private readonly stopping = new AbortController();
  /** The ingests under way, each settled once its threads have ended or its handle is kept or stopped: what `close` waits for. */
  private readonly openings = new Set<Promise<void>>();
  /**
   * A reopened trace's first page of the runs table (the `runs` request's defaults, which is what
   * the page asks for when it opens the trace), read on this thread once the trace is ready; the
   * first request for exactly it takes it. Gone once the summary changes (a reload, the followed
   * file grew): later asks go to the query worker.
   */
  private firstRuns: { request: string; answer: ApiResponse<'runs'> } | null = null;

  /** A session of `path` (absolute); `start` reads it. */
  constructor(
    traceId: string,
    readonly path: string,
    private readonly context: TraceSessionContext,
  ) {
    this.summary = ingestingSummary(traceId, path);
  }

  /** The first ingest. */
  start(): void {
    this.ingest();
  }

  /** A copy of the summary, safe to hand out. */
  snapshot(): TraceSummary {
    return { ...this.summary, progress: { ...this.summary.progress }, companions: [...this.summary.companions] };
  }

  /** Reads the file again; an ingest under way already reads it as it is now. */
  reload(): void {
    if (this.summary.state !== 'ingesting') this.ingest();
  }

  /** Reads the file again when it failed: the file may have been fixed or created since. */
  retryIfFailed(): void {
    if (this.summary.state === 'failed') this.ingest();
  }

  /** A query of the page: from the runs stored so far while ingesting (`runs` only), else from the query worker. */
  async query<M extends QueryMethod>(method: M, request: ApiParsedRequest<M>): Promise<unknown> {
    if (this.summary.state === 'ingesting') {
      // Run ids and statuses are the trace's text too: masked as the query worker masks its answers.
      if (method === 'runs') return maskSecretsDeep(this.live.page(request as ApiParsedRequest<'runs'>));
    }
    const trace = this.readyTrace();
    if (method === 'runs' && this.firstRuns !== null && this.firstRuns.request === JSON.stringify(request)) {
      const { answer } = this.firstRuns;
      this.firstRuns = null;
      // Only now: its start-up (loading its code, 0.1–0.6 s) no longer competes with the page loading.
      this.context.queries.start();
      return answer;
    }
    return this.context.queries.query(method, trace, request);
  }

  /** Resolves once the ingests under way have ended (the trace is ready or failed). */
  async opened(): Promise<void> {
    await Promise.all(this.openings);
  }

  /** The database a query of the ready trace reads; rejects while it is being read or when it could not be. */
  readyTrace(): QueryTrace {
    if (this.summary.state === 'ingesting') {
      const { bytesRead, totalBytes } = this.summary.progress;
      const done = totalBytes > 0 ? ` (${Math.floor((100 * bytesRead) / totalBytes)}% read)` : '';
      throw new ApiError('not_ready', `${this.summary.name} is still being read${done}; this view is available once it is ready`);
    }
    if (this.failure !== null || this.handle === null) throw this.failure ?? new ApiError('internal', `${this.summary.name} has no database`);
    return this.queryTrace(this.handle);
  }

  /**
   * Stops the ingest or following under way; nothing changes after. Resolves once their threads
   * have ended, so that a process may exit then (see engine/workers/endWorker.ts).
   */
  async close(): Promise<void> {
    this.closed = true;
    this.stopping.abort();
    await Promise.all(this.openings);
    await this.handle?.stop();
  }

  private updated(): void {
    this.firstRuns = null;
    this.context.onUpdate(this.snapshot());
  }

  private queryTrace(handle: TraceHandle): QueryTrace {
    return {
      dbPath: handle.dbPath,
      sourceIds: [handle.sourceId, ...handle.companions.map((companion) => companion.sourceId)],
      optionsKey: this.context.analysisKey,
    };
  }

  /** Starts a new ingest (the previous one's handle stopped first); `notice` says why, when it is not the page's asking. */
  private ingest(notice: string | null = null): void {
    this.generation += 1;
    const generation = this.generation;
    const current = (): boolean => !this.closed && this.generation === generation;
    const previous = this.handle;
    this.handle = null;
    this.failure = null;
    this.live.clear();
    this.summary = { ...ingestingSummary(this.summary.traceId, this.path), notice };
    this.updated();
    const follow = this.followCallbacks(current);
    const opening = this.read(previous, follow, current).then(
      (handle) => this.ready(handle, follow, current),
      (error: unknown) => {
        if (current()) this.failed(error);
      },
    );
    this.openings.add(opening);
    void opening.finally(() => this.openings.delete(opening));
  }

  /** What the engine reports while following the file, for the ingest that `current` belongs to; undefined when files are read once. */
  private followCallbacks(current: () => boolean): FollowOptions | undefined {
    if (this.context.idleAfterMs === null) return undefined;
    // The follow reports of one ingest, in order: a summary query must not overtake the next report.
    let reports = Promise.resolve();
    const report = (action: () => Promise<void> | void): void => {
      reports = reports.then(action).catch(() => undefined);
    };
    return {
      idleMs: this.context.idleAfterMs,
      // The counts come from the database: the worker's are the trace file's alone, without its companions.
      onFollowed: (_progress, idle) => report(() => this.followed(current, idle)),
      onReplaced: (reason) =>
        report(() => {
          if (current()) this.ingest(`${this.summary.name} was read again from the start at ${new Date().toLocaleTimeString()}: ${reason}.`);
        }),
      onStopped: (reason) =>
        report(() => {
          if (!current() || this.summary.follow === null) return;
          this.summary = {
            ...this.summary,
            follow: { ...this.summary.follow, state: 'stopped' },
            notice: `${this.summary.name} is no longer followed: ${reason}.`,
          };
          this.updated();
        }),
    };
  }

  /** The engine's ingest, reporting progress and the runs stored so far while it runs. */
  private async read(previous: TraceHandle | null, follow: FollowOptions | undefined, current: () => boolean): Promise<TraceHandle> {
    if (previous !== null) {
      await previous.stop();
      // A reload rewrites the database the query worker may hold open.
      await this.context.queries.release(previous.dbPath);
    }
    return openTrace(this.path, {
      ...(this.context.cacheDir !== undefined ? { cacheDir: this.context.cacheDir } : {}),
      analysis: this.context.analysis,
      ...(follow !== undefined ? { follow } : {}),
      // The app searches: its ingests build the full-text index.
      searchIndex: true,
      stopped: this.stopping.signal,
      onProgress: (progress) => {
        if (!current()) return;
        // A file being ingested (never a reused cache): the query worker's start-up overlaps the ingest instead of following it.
        this.context.queries.start();
        this.summary.progress = { bytesRead: progress.bytesRead, totalBytes: progress.totalBytes, events: progress.events, parseErrors: progress.parseErrors };
        this.updated();
      },
      onRuns: (stored) => {
        if (!current()) return;
        this.live.add(stored);
        // The trace file is ingested before the files opened with it: the first runs are its own.
        this.summary.format ??= stored.source.format;
        this.updated();
      },
    });
  }

  /** The ingest is done: the summary from the database; a superseded ingest's handle is stopped instead. */
  private async ready(handle: TraceHandle, follow: FollowOptions | undefined, current: () => boolean): Promise<void> {
    try {
      if (!current()) return await handle.stop();
      const trace = this.queryTrace(handle);
      const summary = handle.reused ? readHere(trace, this.context.userPrices, sourceSummary) : await this.context.queries.summary(trace);
      if (!current()) return await handle.stop();
      this.handle = handle;
      this.live.clear();
      this.summary = {
        ...this.summary,
        format: summary.format,
        formatReason: summary.formatReason,
        state: 'ready',
        progress: { bytesRead: summary.bytes, totalBytes: summary.bytes, events: summary.events, parseErrors: summary.parseErrors },
        reused: handle.reused,
        companions: handle.companions.map((companion) => companion.path),
        follow: follow === undefined ? null : { state: handle.idle ? 'idle' : 'following', idleAfterMs: follow.idleMs, revision: 0, grewAt: null },
      };
      this.context.onReady(this.path);
      this.updated();
      // After what is under way (`loopscope serve` printing its URL), long before the page asks.
      if (handle.reused) setImmediate(() => this.readFirstRuns(handle));
    } catch (error) {
      if (current()) this.failed(error);
    }
  }

  /**
   * A reopened trace's first page of the runs table, read on this thread (200 rows through the
   * indexes, masked as the query worker masks its answers): see `firstRuns`.
   */
  private readFirstRuns(handle: TraceHandle): void {
    if (this.closed || this.handle !== handle) return;
    const request = apiMethods.runs.request.parse({ traceId: this.summary.traceId });
    try {
      const answer = readHere(this.queryTrace(handle), this.context.userPrices, (db, scope) => maskSecretsDeep(runs(db, scope, request)));
      this.firstRuns = { request: JSON.stringify(request), answer };
    } catch {
      // The page's own request goes to the query worker, which reports what is wrong.
    }
  }

  private failed(error: unknown): void {
    this.failure = ingestFailure(this.path, error);
    this.live.clear();
    this.summary = { ...this.summary, state: 'failed', error: this.failure.message };
    this.updated();
  }

  /** The summary after the followed file grew (or went idle): counts from the database, the views told to reload. */
  private async followed(current: () => boolean, idle: boolean): Promise<void> {
    if (!current() || this.handle === null || this.summary.follow === null) return;
    const summary = await this.context.queries.summary(this.queryTrace(this.handle));
    if (!current() || this.summary.follow === null) return;
    this.summary.progress = { bytesRead: summary.bytes, totalBytes: summary.bytes, events: summary.events, parseErrors: summary.parseErrors };
    this.summary.follow = {
      ...this.summary.follow,
      state: idle ? 'idle' : 'following',
      revision: this.summary.follow.revision + 1,
      grewAt: idle ? this.summary.follow.grewAt : new Date().toISOString(),
    };
    this.updated();
  }
}
