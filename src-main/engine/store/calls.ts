/**
 * Tool calls read back through the `calls` view (each call with its state and answer, see
 * schema.ts): pages of the Calls list, the calls of some events, latency samples, and what the
 * waterfall and sub-agent views need. Calls are written by `TraceStore` (traceWriter.ts), their
 * states by the analysis (derive/analyzeSource.ts).
 */
import type Database from 'better-sqlite3';
import type { CallRow, CallSort } from '../../../shared/api';
import { prepared } from './preparedStatements';
import { containsPattern, idList } from './sqlText';

/** How a call was answered, as the analysis stored it (call_states). */
export type CallState = CallRow['state'];

export interface CallListSqlRow {
  run_pk: number;
  run_id: string;
  event_id: number;
  call_index: number;
  call_id: string;
  name: string;
  step: number | null;
  line: number;
  args_summary: string | null;
  args_error: string | null;
  state: CallState;
  answer_event_id: number | null;
  error_code: string | null;
  error_line: string | null;
  answer_type: string | null;
  answer_latency_ms: number | null;
}

/**
 * Each call with its run, how it was answered, and the result's error code and latency: the one
 * ingest stored on the result, from what the format records (docs/semantics.md §11).
 */
const callListSelect = `
  SELECT c.run_pk, r.run_id, c.event_id, c.call_index, c.call_id, c.name, c.step, c.line, c.args_summary, c.args_error, c.state, c.answer_event_id,
         a.error_code, a.error_line, a.type AS answer_type, a.latency_ms AS answer_latency_ms
  FROM calls c JOIN runs r ON r.id = c.run_pk LEFT JOIN events a ON a.id = c.answer_event_id`;

/** A call's latency: its result's; a call marked not executed has none, nothing ran. */
const callLatencySql = "CASE WHEN a.type = 'tool_result' THEN a.latency_ms END";

/** Calls the user has to look at first: failed, never answered, not run; answered ones last. */
const callStateRankSql =
  "CASE c.state WHEN 'error' THEN 0 WHEN 'dangling' THEN 1 WHEN 'unexecuted' THEN 2 WHEN 'not_issued' THEN 3 WHEN 'pending' THEN 4 WHEN 'ok' THEN 5 ELSE 6 END";

/** ORDER BY for the Calls list; ties (and unknown values, always last) in log order. */
function callOrder(sort: CallSort, descending: boolean): string {
  const direction = descending ? 'DESC' : 'ASC';
  switch (sort) {
    case 'position':
      return `c.id ${direction}`;
    case 'step':
      return `c.step IS NULL, c.step ${direction}, c.id`;
    case 'tool':
      return `c.name ${direction}, c.id`;
    case 'state':
      return `${callStateRankSql} ${direction}, c.id`;
    case 'latency':
      return `${callLatencySql} IS NULL, ${callLatencySql} ${direction}, c.id`;
  }
}

export interface CallPageQuery {
  sourceIds: readonly number[];
  runPk?: number | undefined;
  name?: string | undefined;
  state?: string | undefined;
  /** Matched in the tool name, call id, argument summary and error, and the result's error line. */
  text?: string | undefined;
  sort: CallSort;
  descending: boolean;
  limit: number;
  offset: number;
}

/** A page of the calls that pass the filters, how many pass them, and the tool names of the whole scope (trace or run). */
export function callPage(db: Database.Database, query: CallPageQuery): { total: number; rows: CallListSqlRow[]; names: string[] } {
  const scopeConditions = [`r.source_id IN (${idList(query.sourceIds)})`];
  const params: Record<string, unknown> = {};
  if (query.runPk !== undefined) {
    scopeConditions.push('r.id = @runPk');
    params['runPk'] = query.runPk;
  }
  const conditions = [...scopeConditions];
  if (query.name !== undefined) {
    conditions.push('c.name = @name');
    params['name'] = query.name;
  }
  if (query.state !== undefined) {
    conditions.push('c.state = @state');
    params['state'] = query.state;
  }
  if (query.text !== undefined && query.text !== '') {
    conditions.push(
      "(c.name LIKE @text ESCAPE '\\' OR c.call_id LIKE @text ESCAPE '\\' OR c.args_summary LIKE @text ESCAPE '\\' OR c.args_error LIKE @text ESCAPE '\\' OR a.error_line LIKE @text ESCAPE '\\')",
    );
    params['text'] = containsPattern(query.text);
  }
  const where = conditions.join(' AND ');
  const total =
    prepared<[Record<string, unknown>], { total: number }>(
      db,
      `SELECT count(*) AS total FROM calls c JOIN runs r ON r.id = c.run_pk LEFT JOIN events a ON a.id = c.answer_event_id WHERE ${where}`,
    ).get(params)?.total ?? 0;
  const rows = prepared<[Record<string, unknown>], CallListSqlRow>(
    db,
    `${callListSelect} WHERE ${where} ORDER BY ${callOrder(query.sort, query.descending)} LIMIT @limit OFFSET @offset`,
  ).all({
    ...params,
    limit: query.limit,
    offset: query.offset,
  });
  const names = prepared<[Record<string, unknown>], { name: string }>(
    db,
    `SELECT DISTINCT c.name FROM tool_calls c JOIN runs r ON r.id = c.run_pk WHERE ${scopeConditions.join(' AND ')} ORDER BY c.name`,
  )
    .all(query.runPk === undefined ? {} : { runPk: query.runPk })
    .map((row) => row.name);
  return { total, rows, names };
}

/** Each call of the scope (trace, or run `runPk`): its tool, run and latency. */
export function callLatencySamples(
  db: Database.Database,
  sourceIds: readonly number[],
  runPk: number | undefined,
): { name: string; latency_ms: number | null; run_pk: number }[] {
  const conditions = [`r.source_id IN (${idList(sourceIds)})`];
  if (runPk !== undefined) conditions.push('r.id = @runPk');
  return prepared<[Record<string, unknown>], { name: string; latency_ms: number | null; run_pk: number }>(
    db,
    `SELECT c.name, c.run_pk, ${callLatencySql} AS latency_ms FROM calls c JOIN runs r ON r.id = c.run_pk LEFT JOIN events a ON a.id = c.answer_event_id WHERE ${conditions.join(' AND ')}`,
  ).all(runPk === undefined ? {} : { runPk });
}

/** The run's calls issued by events `issuers` or named by `callIds`, in log order. */
export function callsIssuedByOrNamed(db: Database.Database, runPk: number, issuers: readonly number[], callIds: readonly string[]): CallListSqlRow[] {
  // Two index seeks (tool_calls by issuing event, by call id), not one OR that scans the run's calls.
  return prepared<[{ runPk: number; issuers: string; callIds: string }], CallListSqlRow>(
    db,
    `${callListSelect} WHERE c.id IN (
       SELECT id FROM tool_calls WHERE run_pk = @runPk AND event_id IN (SELECT value FROM json_each(@issuers))
       UNION SELECT id FROM tool_calls WHERE run_pk = @runPk AND call_id IN (SELECT value FROM json_each(@callIds)))
     ORDER BY c.id`,
  ).all({ runPk, issuers: JSON.stringify(issuers), callIds: JSON.stringify(callIds) });
}

/** The calls event `eventId` of run `runPk` issued. */
export function callsIssuedBy(db: Database.Database, runPk: number, eventId: number): CallListSqlRow[] {
  // With its run: tool_calls is indexed by (run_pk, event_id), not by event alone.
  return prepared<[number, number], CallListSqlRow>(db, `${callListSelect} WHERE c.run_pk = ? AND c.event_id = ? ORDER BY c.call_index`).all(runPk, eventId);
}

/** The call `callId` of run `runPk` that event `eventId` answers. */
export function callAnsweredBy(db: Database.Database, runPk: number, callId: string, eventId: number): CallListSqlRow | undefined {
  return prepared<[number, string, number], CallListSqlRow>(db, `${callListSelect} WHERE c.run_pk = ? AND c.call_id = ? AND c.answer_event_id = ? LIMIT 1`).all(
    runPk,
    callId,
    eventId,
  )[0];
}

/** The first call `callId` of run `runPk`: its tool, event, step and where it was issued. */
export function callOfRun(
  db: Database.Database,
  runPk: number,
  callId: string,
): { name: string; event_id: number; step: number | null; line: number; source_id: number } | undefined {
  return prepared<[number, string], { name: string; event_id: number; step: number | null; line: number; source_id: number }>(
    db,
    'SELECT c.name, c.event_id, c.step, c.line, r.source_id FROM tool_calls c JOIN runs r ON r.id = c.run_pk WHERE c.run_pk = ? AND c.call_id = ? ORDER BY c.id LIMIT 1',
  ).get(runPk, callId);
}

export interface WaterfallCallSqlRow {
  event_id: number;
  call_id: string;
  name: string;
  step: number | null;
  state: CallState;
  answer_event_id: number | null;
  answer_type: string | null;
  issued_ts: string | null;
  answered_ts: string | null;
  latency_ms: number | null;
}

/** The run's first `limit` calls with the times of their issuing and answering events. */
export function timedCalls(db: Database.Database, runPk: number, limit: number): WaterfallCallSqlRow[] {
  return prepared<[number], WaterfallCallSqlRow>(
    db,
    `SELECT c.event_id, c.call_id, c.name, c.step, c.state, c.answer_event_id, a.type AS answer_type, i.ts AS issued_ts, a.ts AS answered_ts, a.latency_ms
     FROM calls c JOIN events i ON i.id = c.event_id LEFT JOIN events a ON a.id = c.answer_event_id
     WHERE c.run_pk = ? ORDER BY c.event_id, c.call_index LIMIT ${limit}`,
  ).all(runPk);
}

export interface IssuedCallSqlRow {
  event_id: number;
  call_id: string;
  name: string;
  args_summary: string | null;
}

/** The run's calls issued by events `firstEventId` to `lastEventId`, by issuing event, in order. */
export function issuedCallsBetween(db: Database.Database, runPk: number, firstEventId: number, lastEventId: number): IssuedCallSqlRow[] {
  return prepared<[number, number, number], IssuedCallSqlRow>(
    db,
    'SELECT event_id, call_id, name, args_summary FROM tool_calls WHERE run_pk = ? AND event_id BETWEEN ? AND ? ORDER BY event_id, call_index',
  ).all(runPk, firstEventId, lastEventId);
}
