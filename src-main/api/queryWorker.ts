/**
 * The query worker: every SQLite read of the API happens here, on its own thread, so the caller's
 * event loop (the Electron main thread) never waits for a query. One read-only connection per
 * trace database, opened on first use and kept until the host releases it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { apiMethods, type ApiParsedRequest } from '../../shared/api';
import { maskSecretsDeep } from '../../shared/secrets/secretScanner';
import { openDatabase } from '../engine';
import { asApiError, invalidRequest } from './apiError';
import { queries, sourceSummary, type TraceScope } from './queries';
import { queryRequestSchema, queryWorkerSettingsSchema, type LibraryQueryMethod, type QueryMethod, type QueryReply, type QueryTrace } from './queryProtocol';
import { openLibraryForReading } from './library/libraryDatabase';
import { libraryAggregates, libraryRuns, librarySignatures, libraryTracePath } from './library/libraryQueries';
import { librarySearch } from './library/librarySearch';
import { compareTwoRuns } from './queries/compare';
import { requestDiff } from './requestDiff';
import { ApiError } from './apiError';

const { userPrices } = queryWorkerSettingsSchema.parse(workerData ?? {});

const connections = new Map<string, Database.Database>();

function connection(dbPath: string): Database.Database {
  let db = connections.get(dbPath);
  if (db === undefined) {
    db = openDatabase(dbPath, { readonly: true });
    connections.set(dbPath, db);
  }
  return db;
}

/**
 * A read of a trace database the worker may not hold a connection to: a search across a library
 * of thousands of traces opens each in turn, and keeps only those it held already.
 */
function withTrace<T>(dbPath: string, read: (db: Database.Database) => T): T {
  const held = connections.get(dbPath);
  if (held !== undefined) return read(held);
  const db = openDatabase(dbPath, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

function libraryConnection(dbPath: string): Database.Database {
  let db = connections.get(dbPath);
  if (db === undefined) {
    db = openLibraryForReading(dbPath);
    if (db === undefined) throw new ApiError('unavailable', 'the library is not created yet; try again in a moment');
    connections.set(dbPath, db);
  }
  return db;
}

const libraryQueries = {
  libraryRuns,
  libraryAggregates,
  librarySignatures,
  librarySearch: (db: Database.Database, request: ApiParsedRequest<'librarySearch'>) => librarySearch(db, withTrace, request),
};

/** The answer to a library query, credentials masked as every answer's are (see `answer`). */
function answerLibrary(method: LibraryQueryMethod, libraryDbPath: string, request: unknown): unknown {
  const parsed = apiMethods[method].request.safeParse(request);
  if (!parsed.success) throw invalidRequest(method, parsed.error);
  const query = libraryQueries[method] as (db: Database.Database, request: unknown) => unknown;
  return maskSecretsDeep(query(libraryConnection(libraryDbPath), parsed.data));
}

function release(dbPath: string): void {
  connections.get(dbPath)?.close();
  connections.delete(dbPath);
}

function scopeOf(trace: QueryTrace): TraceScope {
  return { sourceIds: trace.sourceIds, optionsKey: trace.optionsKey, ...(userPrices !== undefined ? { userPrices } : {}) };
}

/**
 * The answer to one API query, with every credential in it masked: this is the one place every
 * view's trace content passes through (records read from the file, requests and diffs, previews,
 * search snippets), so a new view cannot forget it. Only the inspector's explicit reveal of one
 * event (`event` with `revealSecrets`) is answered as the trace wrote it.
 */
function answer<M extends QueryMethod>(method: M, trace: QueryTrace, request: unknown): unknown {
  const parsed = apiMethods[method].request.safeParse(request);
  if (!parsed.success) throw invalidRequest(method, parsed.error);
  const query = queries[method] as (db: Database.Database, scope: TraceScope, request: unknown) => unknown;
  const result = query(connection(trace.dbPath), scopeOf(trace), parsed.data);
  const revealed = method === 'event' && (parsed.data as ApiParsedRequest<'event'>).revealSecrets;
  return revealed ? result : maskSecretsDeep(result);
}

/** A request diff between two traces (`requestDiff` with `previousTraceId`), masked as every answer is. */
function requestDiffAcross(trace: QueryTrace, previousTrace: QueryTrace, request: unknown): unknown {
  const parsed = apiMethods.requestDiff.request.safeParse(request);
  if (!parsed.success) throw invalidRequest('requestDiff', parsed.error);
  return maskSecretsDeep(
    requestDiff({ db: connection(trace.dbPath), sourceIds: trace.sourceIds }, parsed.data, {
      db: connection(previousTrace.dbPath),
      sourceIds: previousTrace.sourceIds,
    }),
  );
}

function reply(message: QueryReply): void {
  parentPort?.postMessage(message);
}

/** Closes every connection between two queries; with the port closed too, the thread ends on its own. */
function end(): void {
  for (const db of connections.values()) db.close();
  connections.clear();
  parentPort?.close();
}

parentPort?.on('message', (raw: unknown) => {
  const message = queryRequestSchema.parse(raw);
  if (message.kind === 'end') return end();
  try {
    let result: unknown = null;
    if (message.kind === 'api') result = answer(message.method, message.trace, message.request);
    else if (message.kind === 'compare')
      result = maskSecretsDeep(
        compareTwoRuns(
          { db: connection(message.a.trace.dbPath), scope: scopeOf(message.a.trace), runPk: message.a.runPk },
          { db: connection(message.b.trace.dbPath), scope: scopeOf(message.b.trace), runPk: message.b.runPk },
        ),
      );
    else if (message.kind === 'requestDiffAcross') result = requestDiffAcross(message.trace, message.previousTrace, message.request);
    else if (message.kind === 'library') result = answerLibrary(message.method, message.libraryDbPath, message.request);
    else if (message.kind === 'libraryTrace') result = libraryTracePath(libraryConnection(message.libraryDbPath), message.traceId) ?? null;
    else if (message.kind === 'summary') result = sourceSummary(connection(message.trace.dbPath), scopeOf(message.trace));
    else release(message.dbPath);
    reply({ ok: true, id: message.id, result });
  } catch (error) {
    const failure = asApiError(error);
    reply({ ok: false, id: message.id, code: failure.code, message: failure.message });
  }
});
