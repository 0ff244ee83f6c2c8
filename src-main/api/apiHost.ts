/**
 * The API host: the one implementation of shared/api.ts, behind both transports (Electron IPC and
 * the HTTP server of `loopscope serve`). It keeps the open traces (a TraceSession each: ingested
 * by the engine in its worker, queried through the query worker, so nothing heavy ever runs on
 * the caller's event loop, the Electron main thread), the page's notices, and the table of
 * methods.
 *
 * Every call is checked at both ends: the request is parsed with the method's schema (a mismatch
 * is `invalid_request`, naming the field) and so is the response (a mismatch is a bug, reported as
 * `internal`, never passed on as data).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { apiMethods, isApiMethod, type ApiMethod, type ApiParsedRequest, type ApiResponse, type Notice, type TraceSummary } from '../../shared/api';
import type { AnalysisOptions } from '../../shared/report';
import { optionsKey } from '../engine';
import { ApiError, invalidRequest } from './apiError';
import { QueryClient } from './queryClient';
import { isLibraryQueryMethod, isQueryMethod, type LibraryQueryMethod, type QueryMethod } from './queryProtocol';
import { LibraryHost } from './library/libraryHost';
import type { UserPrices } from '../../shared/cost/userPrices';
import { defaultCacheDir } from '../engine';
import { maskSecretsDeep } from '../../shared/secrets/secretScanner';
import { ClickHouseClient, ClickHouseError } from '../clickhouse/clickhouseClient';
import { ClickHouseLibrary } from '../clickhouse/clickhouseLibrary';
import { clickHouseLibraryName, type ClickHouseLibraryLocation } from '../clickhouse/clickhouseLocation';
import { traceIdFor } from './traceId';
import { TraceSession } from './traceSession';

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
  /**
   * The directories (and files) kept as a library (docs/semantics.md §18): indexed in the
   * background, looked at again every `rescanMs` (default `defaultRescanMs`; null: once).
   */
  library?: { roots: readonly string[]; rescanMs?: number | null };
  /**
   * A library loaded into ClickHouse (docs/clickhouse.md), in place of one kept here: the start
   * page's queries and status are answered by ClickHouse, and a run opens from its trace file when
   * that file is reachable on this machine. `library` is then not indexed.
   */
  clickHouseLibrary?: ClickHouseLibraryLocation;
  /** Prices for models the built-in table lacks (docs/semantics.md §18): the library's runs are priced with them. */
  userPrices?: UserPrices;
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
  /**
   * Adds directories to the library (docs/semantics.md §19), starting one when there is none: what
   * a second launch of the desktop app with a directory asks. A library is kept by its set of
   * roots, so the larger set is a library of its own, indexed in the background (each trace from
   * its cache when it has one); the previous one stops.
   */
  addLibraryRoots(directories: readonly string[]): Promise<void>;
  /** Keeps a notice for the page (shown until dismissed); the oldest go beyond `maxNotices`. */
  notify(title: string, lines: string[]): void;
  close(): Promise<void>;
}

/** Notices kept at most: a launch loop that keeps failing must not grow the page without end. */
export const maxNotices = 20;

export const defaultAnalysis: AnalysisOptions = { window: 6, threshold: 3 };

type Handlers = { [M in ApiMethod]: (request: ApiParsedRequest<M>) => Promise<ApiResponse<M>> | ApiResponse<M> };

function notAllowed(what: string): ApiError {
  return new ApiError('not_allowed', `${what} is only possible in the desktop app; \`loopscope serve\` shows the files named on its command line`);
}

/** The host's notices, newest last, at most `maxNotices` of them. */
class NoticeBoard {
  private readonly notices: Notice[] = [];
  private lastNoticeId = 0;

  list(): Notice[] {
    return this.notices.slice();
  }

  notify(title: string, lines: string[]): void {
    this.lastNoticeId += 1;
    this.notices.push({ id: this.lastNoticeId, title, lines, at: new Date().toISOString() });
    this.notices.splice(0, Math.max(0, this.notices.length - maxNotices));
  }

  dismiss(id: number): void {
    const index = this.notices.findIndex((notice) => notice.id === id);
    if (index >= 0) this.notices.splice(index, 1);
  }
}

/**
 * Holds one call to the API contract at both ends: the request is parsed by the method's schema
 * before `answer` sees it, and the answer is checked against the response schema before it leaves.
 */
async function callChecked(method: string, request: unknown, answer: (method: ApiMethod, parsed: unknown) => Promise<unknown>): Promise<unknown> {
  if (!isApiMethod(method)) throw new ApiError('not_found', `no API method named "${method.slice(0, 64)}"`);
  const schemas = apiMethods[method];
  // A method without parameters may be called without a request.
  const parsed = schemas.request.safeParse(request === undefined ? {} : request);
  if (!parsed.success) throw invalidRequest(method, parsed.error);
  const checked = schemas.response.safeParse(await answer(method, parsed.data));
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new ApiError(
      'internal',
      `internal error: the ${method} response does not match the API contract (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'})`,
    );
  }
  return checked.data;
}

function clickHouseLibraryOf(location: ClickHouseLibraryLocation): ClickHouseLibrary {
  const { url, user, password } = location;
  const client = new ClickHouseClient({ url, ...(user !== undefined ? { user } : {}), ...(password !== undefined ? { password } : {}) });
  return new ClickHouseLibrary({ client, database: location.database, name: clickHouseLibraryName(location) });
}

/** A ClickHouse that cannot be reached or refuses a query leaves the page a message to show, not an internal error. */
async function fromClickHouse<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof ClickHouseError) throw new ApiError('unavailable', error.message);
    throw error;
  }
}

export function createApiHost(options: ApiHostOptions): ApiHost {
  const analysis = options.analysis ?? defaultAnalysis;
  const idleAfterMs = options.idleAfterMs === undefined ? defaultIdleAfterMs : options.idleAfterMs;
  const queries = new QueryClient(options.userPrices);
  const traces = new Map<string, TraceSession>();
  let closed = false;
  const sessionContext = {
    queries,
    analysis,
    analysisKey: optionsKey(analysis),
    cacheDir: options.cacheDir,
    idleAfterMs,
    onUpdate: (summary: TraceSummary) => options.onTraceUpdate?.(summary),
    onReady: (path: string) => options.recentFiles?.add(path),
    userPrices: options.userPrices,
  };

  function open(path: string): TraceSummary {
    if (closed) throw new ApiError('unavailable', 'the API host is closed');
    const absolute = resolve(path);
    const traceId = traceIdFor(absolute);
    let trace = traces.get(traceId);
    if (trace === undefined) {
      trace = new TraceSession(traceId, absolute, sessionContext);
      traces.set(traceId, trace);
      trace.start();
    } else {
      trace.retryIfFailed();
    }
    return trace.snapshot();
  }

  const notices = new NoticeBoard();

  function startLibrary(roots: readonly string[]): LibraryHost {
    // The start page of a library asks the query worker at once: its start-up overlaps the page's loading.
    queries.start();
    return new LibraryHost({
      roots,
      cacheDir: options.cacheDir ?? defaultCacheDir(),
      analysis,
      ...(options.userPrices !== undefined ? { userPrices: options.userPrices } : {}),
      ...(options.library?.rescanMs !== undefined ? { rescanMs: options.library.rescanMs } : {}),
      // A library file being written now is followed as an open trace is: its runs running until it goes idle.
      followIdleMs: idleAfterMs,
      onFailure: (message) => notices.notify('The library could not be indexed', [message]),
    });
  }

  const clickHouse = options.clickHouseLibrary === undefined ? null : clickHouseLibraryOf(options.clickHouseLibrary);
  let library = options.library === undefined || clickHouse !== null ? null : startLibrary(options.library.roots);

  async function addLibraryRoots(directories: readonly string[]): Promise<void> {
    if (closed) throw new ApiError('unavailable', 'the API host is closed');
    // The start page reads ClickHouse: a directory indexed here would never show on it.
    if (clickHouse !== null) {
      throw new ApiError(
        'not_allowed',
        `the library is the one loaded into ClickHouse; load ${directories.join(', ')} into it with \`loopscope export DIR --clickhouse …\``,
      );
    }
    const current = library?.currentStatus().roots ?? [];
    const roots = [...new Set([...current, ...directories.map((directory) => resolve(directory))])];
    if (roots.length === current.length) return;
    const previous = library;
    library = startLibrary(roots);
    await previous?.close();
  }

  /** A trace of the ClickHouse library, opened from its file: the file was read where the trace was loaded, and may not be here. */
  async function clickHouseTraceNamed(from: ClickHouseLibrary, traceId: string): Promise<TraceSession> {
    const path = await fromClickHouse(() => from.tracePath(traceId));
    if (path === undefined) throw new ApiError('not_found', `no trace ${traceId} in the library in ClickHouse`);
    if (!existsSync(path)) throw new ApiError('not_found', `the trace file ${path} is on the machine that loaded it; it is not reachable here`);
    open(path);
    const trace = traces.get(traceId);
    if (trace === undefined) throw new ApiError('not_found', `the trace file ${path} here is not the trace ${traceId} the library loaded`);
    return trace;
  }

  /** The session of an open trace; a trace of the library is opened when one of its runs is asked for. */
  async function traceNamed(traceId: string): Promise<TraceSession> {
    const trace = traces.get(traceId);
    if (trace !== undefined) return trace;
    if (clickHouse !== null) return clickHouseTraceNamed(clickHouse, traceId);
    const path = library === null ? null : await queries.libraryTrace(library.dbPath, traceId);
    if (path === null) throw new ApiError('not_found', `no open trace ${traceId}; open the file again`);
    open(path);
    return traces.get(traceId) ?? (await traceNamed(traceId));
  }

  /** A query names its trace: that session answers it. */
  async function queryOf<M extends QueryMethod>(method: M, request: ApiParsedRequest<M> & { traceId: string }): Promise<unknown> {
    return (await traceNamed(request.traceId)).query(method, request);
  }

  /** A library query: answered once the library database exists. */
  async function libraryQuery(method: LibraryQueryMethod, request: unknown): Promise<unknown> {
    // Masked as the query worker masks the local library's answers: runs' tasks and search snippets are trace content.
    if (clickHouse !== null) return maskSecretsDeep(await fromClickHouse(() => clickHouse.query(method, request)));
    if (library === null) throw new ApiError('not_found', 'there is no library: give `loopscope serve` or `open` a directory');
    await library.created;
    return queries.library(method, library.dbPath, request);
  }

  const hostHandlers = {
    notices: () => notices.list(),
    dismissNotice: (request) => {
      notices.dismiss(request.id);
      return {};
    },
    appInfo: () => ({ version: options.version, shell: options.shell, canOpenPaths: options.canOpenPaths }),
    listTraces: () => [...traces.values()].map((trace) => trace.snapshot()),
    openDialog: async () => {
      if (!options.canOpenPaths || options.openDialog === undefined) throw notAllowed('Opening files with a dialog');
      const paths = await options.openDialog();
      return paths.map(open);
    },
    openPath: (request) => {
      if (!options.canOpenPaths) throw notAllowed('Opening a file by its path');
      return open(request.path);
    },
    reload: async (request) => {
      const trace = await traceNamed(request.traceId);
      trace.reload();
      return trace.snapshot();
    },
    recentFiles: () => options.recentFiles?.list() ?? [],
    trace: async (request) => (await traceNamed(request.traceId)).snapshot(),
    libraryStatus: async () => (clickHouse !== null ? fromClickHouse(() => clickHouse.status()) : (library?.currentStatus() ?? null)),
    compareRuns: async (request) => {
      const a = await traceNamed(request.traceId);
      const b = request.traceIdB === undefined ? a : await traceNamed(request.traceIdB);
      // Runs picked in the library may be of traces not opened yet: a comparison waits for them to be read.
      await Promise.all([a.opened(), b.opened()]);
      // Checked against the response schema by callChecked, as every answer is.
      return (await queries.compare(
        { trace: a.readyTrace(), runPk: request.runPkA },
        { trace: b.readyTrace(), runPk: request.runPkB },
      )) as ApiResponse<'compareRuns'>;
    },
  } satisfies Partial<Handlers>;

  /** A request diff whose left side is of another trace: both are read (opened first, when from the library) in the query worker. */
  async function requestDiffAcross(request: ApiParsedRequest<'requestDiff'> & { previousTraceId: string }): Promise<unknown> {
    const [current, previous] = await Promise.all([traceNamed(request.traceId), traceNamed(request.previousTraceId)]);
    await Promise.all([current.opened(), previous.opened()]);
    return queries.requestDiffAcross(current.readyTrace(), previous.readyTrace(), request);
  }

  async function answer(method: ApiMethod, parsed: unknown): Promise<unknown> {
    if (method === 'requestDiff') {
      const request = parsed as ApiParsedRequest<'requestDiff'>;
      if (request.previousTraceId !== undefined && request.previousTraceId !== request.traceId)
        return requestDiffAcross({ ...request, previousTraceId: request.previousTraceId });
    }
    if (isQueryMethod(method)) return queryOf(method, parsed as ApiParsedRequest<QueryMethod> & { traceId: string });
    if (isLibraryQueryMethod(method)) return libraryQuery(method, parsed);
    return (hostHandlers[method] as (request: unknown) => unknown)(parsed);
  }

  return {
    call: (method, request) => callChecked(method, request, answer),
    open: async (path) => open(path),
    addLibraryRoots,
    notify: (title, lines) => notices.notify(title, lines),
    close: async () => {
      closed = true;
      await Promise.all([...traces.values()].map((trace) => trace.close()));
      await library?.close();
      await queries.close();
    },
  };
}
