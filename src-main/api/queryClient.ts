/**
 * The host's side of the query worker: sends a query, gets a promise of its answer. The worker is
 * started on the first query; one that dies (out of memory on a pathological line, say) fails the
 * queries it was running and is started again for the next.
 */
import { Worker } from 'node:worker_threads';
import { endWorker } from '../engine';
import { ApiError } from './apiError';
import type { SourceSummary } from './queries';
import { queryReplySchema, type LibraryQueryMethod, type QueryMethod, type QueryRequest, type QueryTrace, type QueryWorkerSettings } from './queryProtocol';
import { apiErrorCodes, type ApiErrorCode } from '../../shared/api';
import type { UserPrices } from '../../shared/cost/userPrices';

/**
 * Where the worker's entry file is, as engine/workers/workerUrl.ts finds the engine's: beside this
 * file when running from source, and flat in out/main/ (with every chunk) in the build.
 */
function queryWorkerUrl(): URL {
  const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return new URL(`./queryWorker.${extension}`, import.meta.url);
}

/** The query worker keeps connections and one page of rows at a time; it needs little heap. */
const QUERY_WORKER_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 };

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: ApiError) => void;
}

function errorCode(code: string): ApiErrorCode {
  return (apiErrorCodes as readonly string[]).includes(code) ? (code as ApiErrorCode) : 'internal';
}

export class QueryClient {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed = false;

  /** `userPrices`: the user price file's prices (docs/semantics.md §18), which every cost the worker answers uses. */
  constructor(private readonly userPrices?: UserPrices) {}

  query(method: QueryMethod, trace: QueryTrace, request: unknown): Promise<unknown> {
    return this.send((id) => ({ kind: 'api', id, method, trace, request }));
  }

  /** Run `a.runPk` of trace `a.trace` and run `b.runPk` of `b.trace` side by side. */
  compare(a: { trace: QueryTrace; runPk: number }, b: { trace: QueryTrace; runPk: number }): Promise<unknown> {
    return this.send((id) => ({ kind: 'compare', id, a, b }));
  }

  /** `requestDiff` with the left side in `previousTrace`. */
  requestDiffAcross(trace: QueryTrace, previousTrace: QueryTrace, request: unknown): Promise<unknown> {
    return this.send((id) => ({ kind: 'requestDiffAcross', id, trace, previousTrace, request }));
  }

  library(method: LibraryQueryMethod, libraryDbPath: string, request: unknown): Promise<unknown> {
    return this.send((id) => ({ kind: 'library', id, libraryDbPath, method, request }));
  }

  /** The path of the trace the library knows by `traceId`; null when it knows none. */
  async libraryTrace(libraryDbPath: string, traceId: string): Promise<string | null> {
    return (await this.send((id) => ({ kind: 'libraryTrace', id, libraryDbPath, traceId }))) as string | null;
  }

  async summary(trace: QueryTrace): Promise<SourceSummary> {
    return (await this.send((id) => ({ kind: 'summary', id, trace }))) as SourceSummary;
  }

  /**
   * Closes the worker's connection to a database before it is rewritten; resolves once it is
   * closed (Windows cannot replace a file that is open).
   */
  async release(dbPath: string): Promise<void> {
    if (this.worker === null) return;
    await this.send((id) => ({ kind: 'release', id, dbPath }));
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.failPending('the API host was closed');
    if (worker !== null) await endWorker(worker, () => worker.postMessage({ kind: 'end' } satisfies QueryRequest));
  }

  /** Starts the worker now, so that its start-up (loading its code) overlaps the first ingest instead of following it. */
  start(): void {
    if (!this.closed) this.started();
  }

  private send(message: (id: number) => QueryRequest): Promise<unknown> {
    if (this.closed) return Promise.reject(new ApiError('unavailable', 'the API host is closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.started().postMessage(message(id));
    });
  }

  private started(): Worker {
    if (this.worker !== null) return this.worker;
    const settings: QueryWorkerSettings = this.userPrices === undefined ? {} : { userPrices: this.userPrices };
    const worker = new Worker(queryWorkerUrl(), { resourceLimits: QUERY_WORKER_LIMITS, workerData: settings });
    worker.on('message', (raw: unknown) => {
      const reply = queryReplySchema.parse(raw);
      const pending = this.pending.get(reply.id);
      if (pending === undefined) return;
      this.pending.delete(reply.id);
      if (reply.ok) pending.resolve(reply.result);
      else pending.reject(new ApiError(errorCode(reply.code), reply.message));
    });
    const lost = (reason: string): void => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failPending(reason);
    };
    worker.on('error', (error) => lost(`the query worker failed: ${error.message}`));
    worker.on('exit', (code) => lost(`the query worker exited with code ${code}`));
    this.worker = worker;
    return worker;
  }

  private failPending(reason: string): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const { reject } of pending) reject(new ApiError('internal', `internal error: ${reason}`));
  }
}
