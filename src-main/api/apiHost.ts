/**
 * The API host: the one implementation of shared/api.ts, behind both transports (Electron IPC and
 * the HTTP server of `loopscope serve`). It keeps the open traces — each ingested by the engine in
 * its worker, its progress and the runs stored so far kept here — and answers every query from
 * the query worker, so nothing heavy ever runs on the caller's event loop (the Electron main
 * thread).
 *
 * Every call is checked at both ends: the request is parsed with the method's schema (a mismatch
 * is `invalid_request`, naming the field) and so is the response (a mismatch is a bug, reported as
 * `internal`, never passed on as data).
 */
import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { apiMethods, isApiMethod, type ApiMethod, type ApiParsedRequest, type ApiResponse, type Notice, type TraceSummary } from '../../shared/api';
import type { AnalysisOptions } from '../../shared/report';
import { maskSecretsDeep } from '../../shared/secrets/secretScanner';
import { openTrace, optionsKey, TraceFileError, type TraceHandle } from '../engine';
import { ApiError, invalidRequest } from './apiError';
import { LiveRuns } from './liveRuns';
import { QueryClient } from './queryClient';
import { isQueryMethod, type QueryMethod, type QueryTrace } from './queryProtocol';

export { ApiError, toApiError } from './apiError';

export interface ApiHostOptions {
  shell: 'electron' | 'browser';
  version: string;
  /** Where trace databases are kept (default: the engine's, $LOOPSCOPE_CACHE_DIR or ~/.cache/loopscope). */
  cacheDir?: string;
  /** Analysis options of every trace (default: window 6, threshold 3, as `loopscope analyze`). */
  analysis?: AnalysisOptions;
  /** Whether the page may open files by path or dialog (Electron: yes; `loopscope serve`: no). */
  canOpenPaths: boolean;
  /** The native open dialog: the paths picked, none when cancelled. */
  openDialog?: () => Promise<string[]>;
  /** Files opened before; a file is added once it opened successfully. */
  recentFiles?: { list(): string[]; add(path: string): void };
  /** Called whenever a trace's summary changes (state, progress, runs stored so far), on the caller's thread. */
  onTraceUpdate?: (summary: TraceSummary) => void;
  /**
   * Every open file is followed while it is written; a run without a terminal event is running
   * until its file has not grown for this long (default `defaultIdleAfterMs`). Null: read once.
   */
  idleAfterMs?: number | null;
}

/** How long a followed file may go without growing before its runs without a terminal event count as unterminated. */
export const defaultIdleAfterMs = 60_000;

export interface ApiHost {
  /** One API call, as a transport received it; rejects with an ApiError (see `toApiError`). */
  call(method: string, request: unknown): Promise<unknown>;
  /**
   * Opens a trace file, or returns the one already open for the path (one that failed is read
   * again); ingest goes on in the background. Never rejects for a bad file: the trace is `failed`.
   */
  open(path: string): Promise<TraceSummary>;
  /** Keeps a notice for the page (shown until dismissed); the oldest go beyond `maxNotices`. */
  notify(title: string, lines: string[]): void;
  close(): Promise<void>;
}

/** Notices kept at most: a launch loop that keeps failing must not grow the page without end. */
export const maxNotices = 20;

export const defaultAnalysis: AnalysisOptions = { window: 6, threshold: 3 };

interface OpenTrace {
  path: string;
  summary: TraceSummary;
  /** The ingested trace, once `summary.state` is `ready`. */
  handle: TraceHandle | null;
  /** Why it could not be opened, once `summary.state` is `failed`. */
  failure: ApiError | null;
  /** Runs stored so far, while `summary.state` is `ingesting`. */
  live: LiveRuns;
  /** Bumped by each ingest, so that a reload's results replace, and are never replaced by, an earlier one's. */
  generation: number;
}

/** Stable for a path across launches, so a URL naming a trace still names it after a restart. */
function traceIdFor(absolutePath: string): string {
  return createHash('sha256').update(absolutePath).digest('hex').slice(0, 16);
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

/** Why the ingest of `path` failed, naming the file. */
function ingestFailure(path: string, error: unknown): ApiError {
  if (error instanceof TraceFileError) return new ApiError('trace_file', `${path}: ${error.reason}`);
  if (error instanceof ApiError) return new ApiError(error.code, `${path}: ${error.message}`);
  return new ApiError('internal', `${path} could not be opened: ${firstLine(error instanceof Error ? error.message : String(error))}`);
}

type Handlers = { [M in ApiMethod]: (request: ApiParsedRequest<M>) => Promise<ApiResponse<M>> | ApiResponse<M> };

export function createApiHost(options: ApiHostOptions): ApiHost {
  const analysis = options.analysis ?? defaultAnalysis;
  const idleAfterMs = options.idleAfterMs === undefined ? defaultIdleAfterMs : options.idleAfterMs;
  const analysisKey = optionsKey(analysis);
  const queries = new QueryClient();
  const traces = new Map<string, OpenTrace>();
  let closed = false;

  const snapshot = (trace: OpenTrace): TraceSummary => ({ ...trace.summary, progress: { ...trace.summary.progress }, companions: [...trace.summary.companions] });
  const updated = (trace: OpenTrace): void => options.onTraceUpdate?.(snapshot(trace));

  /** A followed trace's summary after its file grew (or went idle): counts from the database, the views told to reload. */
  async function followed(trace: OpenTrace, generation: () => boolean, idle: boolean): Promise<void> {
    if (!generation() || trace.handle === null || trace.summary.follow === null) return;
    const summary = await queries.summary(queryTrace(trace.handle));
    if (!generation() || trace.summary.follow === null) return;
    trace.summary.progress = { bytesRead: summary.bytes, totalBytes: summary.bytes, events: summary.events, parseErrors: summary.parseErrors };
    trace.summary.follow = {
      ...trace.summary.follow,
      state: idle ? 'idle' : 'following',
      revision: trace.summary.follow.revision + 1,
      grewAt: idle ? trace.summary.follow.grewAt : new Date().toISOString(),
    };
    updated(trace);
  }

  function ingest(trace: OpenTrace, notice: string | null = null): void {
    trace.generation += 1;
    const generation = trace.generation;
    const current = (): boolean => !closed && trace.generation === generation;
    const previous = trace.handle;
    trace.handle = null;
    trace.failure = null;
    trace.live.clear();
    trace.summary = { ...ingestingSummary(trace.summary.traceId, trace.path), notice };
    updated(trace);
    queries.start();
    // The follow reports of one ingest, in order: a summary query must not overtake the next report.
    let reports = Promise.resolve();
    const report = (action: () => Promise<void> | void): void => {
      reports = reports.then(action).catch(() => undefined);
    };
    const follow =
      idleAfterMs === null
        ? undefined
        : {
            idleMs: idleAfterMs,
            // The counts come from the database: the worker's are the trace file's alone, without its companions.
            onFollowed: (_progress: unknown, idle: boolean) => report(() => followed(trace, current, idle)),
            onReplaced: (reason: string) =>
              report(() => {
                if (current()) ingest(trace, `${trace.summary.name} was read again from the start at ${new Date().toLocaleTimeString()}: ${reason}.`);
              }),
            onStopped: (reason: string) =>
              report(() => {
                if (!current() || trace.summary.follow === null) return;
                trace.summary = { ...trace.summary, follow: { ...trace.summary.follow, state: 'stopped' }, notice: `${trace.summary.name} is no longer followed: ${reason}.` };
                updated(trace);
              }),
          };
    const reading = async (): Promise<TraceHandle> => {
      if (previous !== null) {
        await previous.stop();
        // A reload rewrites the database the query worker may hold open.
        await queries.release(previous.dbPath);
      }
      return openTrace(trace.path, {
        ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
        analysis,
        ...(follow !== undefined ? { follow } : {}),
        // The app searches: its ingests build the full-text index.
        searchIndex: true,
        onProgress: (progress) => {
          if (!current()) return;
          trace.summary.progress = { bytesRead: progress.bytesRead, totalBytes: progress.totalBytes, events: progress.events, parseErrors: progress.parseErrors };
          updated(trace);
        },
        onRuns: (stored) => {
          if (!current()) return;
          trace.live.add(stored);
          // The trace file is ingested before the files opened with it: the first runs are its own.
          trace.summary.format ??= stored.source.format;
          updated(trace);
        },
      });
    };
    reading()
      .then(async (handle) => {
        if (!current()) return void handle.stop();
        const summary = await queries.summary(queryTrace(handle));
        if (!current()) return void handle.stop();
        trace.handle = handle;
        trace.live.clear();
        trace.summary = {
          ...trace.summary,
          format: summary.format,
          formatReason: summary.formatReason,
          state: 'ready',
          progress: { bytesRead: summary.bytes, totalBytes: summary.bytes, events: summary.events, parseErrors: summary.parseErrors },
          reused: handle.reused,
          companions: handle.companions.map((companion) => companion.path),
          follow: follow === undefined ? null : { state: handle.idle ? 'idle' : 'following', idleAfterMs: follow.idleMs, revision: 0, grewAt: null },
        };
        options.recentFiles?.add(trace.path);
        updated(trace);
      })
      .catch((error: unknown) => {
        if (!current()) return;
        trace.failure = ingestFailure(trace.path, error);
        trace.live.clear();
        trace.summary = { ...trace.summary, state: 'failed', error: trace.failure.message };
        updated(trace);
      });
  }

  function queryTrace(handle: TraceHandle): QueryTrace {
    return { dbPath: handle.dbPath, sourceIds: [handle.sourceId, ...handle.companions.map((companion) => companion.sourceId)], optionsKey: analysisKey };
  }

  function open(path: string): TraceSummary {
    if (closed) throw new ApiError('unavailable', 'the API host is closed');
    const absolute = resolve(path);
    const traceId = traceIdFor(absolute);
    let trace = traces.get(traceId);
    if (trace === undefined) {
      trace = {
        path: absolute,
        summary: ingestingSummary(traceId, absolute),
        handle: null,
        failure: null,
        live: new LiveRuns(),
        generation: 0,
      };
      traces.set(traceId, trace);
      ingest(trace);
    } else if (trace.summary.state === 'failed') {
      // Opened again after it failed: the file may have been fixed or created since.
      ingest(trace);
    }
    return snapshot(trace);
  }

  function traceNamed(traceId: string): OpenTrace {
    const trace = traces.get(traceId);
    if (trace === undefined) throw new ApiError('not_found', `no open trace ${traceId}; open the file again`);
    return trace;
  }

  async function query<M extends QueryMethod>(method: M, request: ApiParsedRequest<M> & { traceId: string }): Promise<unknown> {
    const trace = traceNamed(request.traceId);
    if (trace.summary.state === 'ingesting') {
      // Run ids and statuses are the trace's text too: masked as the query worker masks its answers.
      if (method === 'runs') return maskSecretsDeep(trace.live.page(request as ApiParsedRequest<'runs'>));
      const { bytesRead, totalBytes } = trace.summary.progress;
      const done = totalBytes > 0 ? ` (${Math.floor((100 * bytesRead) / totalBytes)}% read)` : '';
      throw new ApiError('not_ready', `${trace.summary.name} is still being read${done}; this view is available once it is ready`);
    }
    if (trace.failure !== null || trace.handle === null) throw trace.failure ?? new ApiError('internal', `${trace.summary.name} has no database`);
    return queries.query(method, queryTrace(trace.handle), request);
  }

  function notAllowed(what: string): ApiError {
    return new ApiError('not_allowed', `${what} is only possible in the desktop app; \`loopscope serve\` shows the files named on its command line`);
  }

  const notices: Notice[] = [];
  let lastNoticeId = 0;

  function notify(title: string, lines: string[]): void {
    lastNoticeId += 1;
    notices.push({ id: lastNoticeId, title, lines, at: new Date().toISOString() });
    notices.splice(0, Math.max(0, notices.length - maxNotices));
  }

  const hostHandlers = {
    notices: () => notices.slice(),
    dismissNotice: (request) => {
      const index = notices.findIndex((notice) => notice.id === request.id);
      if (index >= 0) notices.splice(index, 1);
      return {};
    },
    appInfo: () => ({ version: options.version, shell: options.shell, canOpenPaths: options.canOpenPaths }),
    listTraces: () => [...traces.values()].map(snapshot),
    openDialog: async () => {
      if (!options.canOpenPaths || options.openDialog === undefined) throw notAllowed('Opening files with a dialog');
      const paths = await options.openDialog();
      return paths.map(open);
    },
    openPath: (request) => {
      if (!options.canOpenPaths) throw notAllowed('Opening a file by its path');
      return open(request.path);
    },
    reload: (request) => {
      const trace = traceNamed(request.traceId);
      // An ingest under way already reads the file as it is now.
      if (trace.summary.state !== 'ingesting') ingest(trace);
      return snapshot(trace);
    },
    recentFiles: () => options.recentFiles?.list() ?? [],
    trace: (request) => snapshot(traceNamed(request.traceId)),
  } satisfies Partial<Handlers>;

  async function call(method: string, request: unknown): Promise<unknown> {
    if (!isApiMethod(method)) throw new ApiError('not_found', `no API method named "${method.slice(0, 64)}"`);
    const schemas = apiMethods[method];
    // A method without parameters may be called without a request.
    const parsed = schemas.request.safeParse(request === undefined ? {} : request);
    if (!parsed.success) throw invalidRequest(method, parsed.error);
    const response = isQueryMethod(method)
      ? await query(method, parsed.data as ApiParsedRequest<QueryMethod>)
      : await (hostHandlers[method] as (request: unknown) => unknown)(parsed.data);
    const checked = schemas.response.safeParse(response);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new ApiError('internal', `internal error: the ${method} response does not match the API contract (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'})`);
    }
    return checked.data;
  }

  return {
    call,
    open: async (path) => open(path),
    notify,
    close: async () => {
      closed = true;
      await Promise.all([...traces.values()].map((trace) => trace.handle?.stop()));
      await queries.close();
    },
  };
}
