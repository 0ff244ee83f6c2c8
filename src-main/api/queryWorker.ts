/**
 * The query worker: every SQLite read of the API happens here, on its own thread, so the caller's
 * event loop (the Electron main thread) never waits for a query. One read-only connection per
 * trace database, opened on first use and kept until the host releases it.
 */
import { parentPort } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { apiMethods, type ApiParsedRequest } from '../../shared/api';
import { maskSecretsDeep } from '../../shared/secrets/secretScanner';
import { openDatabase } from '../engine';
import { asApiError, invalidRequest } from './apiError';
import { queries, sourceSummary, type TraceScope } from './queries';
import { queryRequestSchema, type QueryMethod, type QueryReply, type QueryTrace } from './queryProtocol';

const connections = new Map<string, Database.Database>();

function connection(dbPath: string): Database.Database {
  let db = connections.get(dbPath);
  if (db === undefined) {
    db = openDatabase(dbPath, { readonly: true });
    connections.set(dbPath, db);
  }
  return db;
}

function release(dbPath: string): void {
  connections.get(dbPath)?.close();
  connections.delete(dbPath);
}

function scopeOf(trace: QueryTrace): TraceScope {
  return { sourceIds: trace.sourceIds, optionsKey: trace.optionsKey };
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
    else if (message.kind === 'summary') result = sourceSummary(connection(message.trace.dbPath), scopeOf(message.trace));
    else release(message.dbPath);
    reply({ ok: true, id: message.id, result });
  } catch (error) {
    const failure = asApiError(error);
    reply({ ok: false, id: message.id, code: failure.code, message: failure.message });
  }
});
