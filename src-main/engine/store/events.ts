/**
 * The events table read back: pages of a run's events by position, one event in a scope, and the
 * lines around an event. Events are written by `TraceStore` (traceWriter.ts).
 */
import type Database from 'better-sqlite3';
import { prepared } from './preparedStatements';
import { idList } from './sqlText';
import type { EventSqlRow } from './traceWriter';

const eventListColumnNames = [
  'id',
  'source_id',
  'run_pk',
  'line',
  'byte_offset',
  'byte_length',
  'type',
  'type_raw',
  'step',
  'ts',
  'call_id',
  'name',
  'outcome',
  'finish_reason',
  'input_tokens',
  'output_tokens',
  'model',
  'provider',
  'cached_input_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'cost_usd',
  'latency_ms',
  'result_ok',
  'error_code',
  'summary',
  'run_index',
  'visible_index',
  'span_depth',
] as const satisfies readonly (keyof EventSqlRow)[];

/** The stored event columns a view lists. */
export type EventListSqlRow = Pick<EventSqlRow, (typeof eventListColumnNames)[number]>;

const eventListColumns = eventListColumnNames.join(', ');

/** Which position a run's event list is paged by: every event, or those that are not bookkeeping. */
export type EventPosition = 'run_index' | 'visible_index';

/**
 * The run's events counted by their position index: one seek to its last entry. `IS NOT NULL`
 * (which max ignores anyway) lets SQLite use the partial visible_index index; without it, it walks
 * every event of the run in the run_index one.
 */
export function eventCount(db: Database.Database, runPk: number, position: EventPosition): number {
  const last = prepared<[number], { last: number | null }>(db, `SELECT max(${position}) AS last FROM events WHERE run_pk = ? AND ${position} IS NOT NULL`).get(
    runPk,
  )?.last;
  return (last ?? -1) + 1;
}

/** Up to `limit` of the run's events with `from <= position < before`, by position (a keyset seek). */
export function eventsBetween(db: Database.Database, runPk: number, position: EventPosition, from: number, before: number, limit: number): EventListSqlRow[] {
  return prepared<[number, number, number, number], EventListSqlRow>(
    db,
    `SELECT ${eventListColumns} FROM events WHERE run_pk = ? AND ${position} >= ? AND ${position} < ? ORDER BY ${position} LIMIT ?`,
  ).all(runPk, from, before, limit);
}

/** Event `eventId` if it belongs to one of `sourceIds`. */
export function eventInSources(db: Database.Database, sourceIds: readonly number[], eventId: number): EventListSqlRow | undefined {
  return prepared<[number], EventListSqlRow>(db, `SELECT ${eventListColumns} FROM events WHERE id = ? AND source_id IN (${idList(sourceIds)})`).get(eventId);
}

/**
 * The position of the run's first event (not bookkeeping, when paged by `visible_index`) at or
 * after `line` — on that line, of step `step` or later: a record that holds many steps (an Inspect
 * sample is one record) must not put every step at its first event.
 */
export function firstPositionOfStep(
  db: Database.Database,
  position: EventPosition,
  at: { sourceId: number; line: number; runPk: number; step: number },
): number | undefined {
  return prepared<[{ sourceId: number; line: number; runPk: number; step: number }], { position: number }>(
    db,
    `SELECT ${position} AS position FROM events WHERE source_id = @sourceId AND line >= @line AND run_pk = @runPk AND ${position} IS NOT NULL
       AND (line > @line OR step >= @step) ORDER BY source_id, line, id LIMIT 1`,
  ).get(at)?.position;
}

/**
 * The lines folded into the event on `line`: the ones after it, up to the next line that is an
 * event, that produced no event of their own (absorbed_lines).
 */
export function absorbedLinesAfter(db: Database.Database, sourceId: number, line: number): number[] {
  const nextEventLine =
    prepared<[number, number], { line: number | null }>(db, 'SELECT min(line) AS line FROM events WHERE source_id = ? AND line > ?').get(sourceId, line)
      ?.line ?? null;
  return prepared<[number, number, number | null, number | null], { line: number }>(
    db,
    'SELECT line FROM absorbed_lines WHERE source_id = ? AND line > ? AND (? IS NULL OR line < ?) ORDER BY line',
  )
    .all(sourceId, line, nextEventLine, nextEventLine)
    .map((absorbed) => absorbed.line);
}

/** What reading an event's content needs: where its record is, and what it is. */
export interface ContentEventSqlRow {
  id: number;
  source_id: number;
  line: number;
  byte_offset: number;
  byte_length: number;
  type: string;
  type_raw: string;
  call_id: string | null;
}

const contentColumns = 'id, source_id, line, byte_offset, byte_length, type, type_raw, call_id';

export function contentEvent(db: Database.Database, eventId: number): ContentEventSqlRow | undefined {
  return prepared<[number], ContentEventSqlRow>(db, `SELECT ${contentColumns} FROM events WHERE id = ?`).get(eventId);
}

/**
 * Among the run's first `withinEvents` events, up to 20 whose records ingest summarized (a record
 * that carries a prompt's text) and whose type is not canonical: where a run's first prompt is.
 */
export function summarizedUnknownEvents(db: Database.Database, runPk: number, withinEvents: number): ContentEventSqlRow[] {
  return prepared<[number, number], ContentEventSqlRow>(
    db,
    `SELECT ${contentColumns} FROM events WHERE run_pk = ? AND run_index < ? AND type = 'unknown' AND summary IS NOT NULL ORDER BY run_index LIMIT 20`,
  ).all(runPk, withinEvents);
}

/** Where the record of an absorbed line is. */
export function absorbedLineLocation(db: Database.Database, sourceId: number, line: number): { byte_offset: number; byte_length: number } | undefined {
  return prepared<[number, number], { byte_offset: number; byte_length: number }>(
    db,
    'SELECT byte_offset, byte_length FROM absorbed_lines WHERE source_id = ? AND line = ? LIMIT 1',
  ).get(sourceId, line);
}

/** A `model_request` event: where its record is. */
export interface RequestEventSqlRow {
  id: number;
  source_id: number;
  line: number;
  step: number | null;
  byte_offset: number;
  byte_length: number;
}

export function runHasModelRequest(db: Database.Database, runPk: number): boolean {
  return prepared<[number], { one: number }>(db, "SELECT 1 AS one FROM events WHERE run_pk = ? AND type = 'model_request' LIMIT 1").get(runPk) !== undefined;
}

/** Every `model_request` event of the run, in order. */
export function modelRequestEvents(db: Database.Database, runPk: number): RequestEventSqlRow[] {
  return prepared<[number], RequestEventSqlRow>(
    db,
    "SELECT id, source_id, line, step, byte_offset, byte_length FROM events WHERE run_pk = ? AND type = 'model_request' ORDER BY id",
  ).all(runPk);
}

/** A request or response event with the usage it records. */
export interface UsageEventSqlRow {
  id: number;
  type: string;
  input_tokens: number | null;
  cached_input_tokens: number | null;
  output_tokens: number | null;
}

/** The run's requests and responses (a stream's last fragment stands for its response), in order. */
export function usageEvents(db: Database.Database, runPk: number): IterableIterator<UsageEventSqlRow> {
  return prepared<[number], UsageEventSqlRow>(
    db,
    `SELECT id, type, input_tokens, cached_input_tokens, output_tokens FROM events
     WHERE run_pk = ? AND (type IN ('model_request', 'model_response') OR (type = 'stream_fragment' AND outcome IS NOT NULL)) ORDER BY id`,
  ).iterate(runPk);
}

/** An event as a reconstructed request history reads it. */
export interface HistoryEventSqlRow {
  id: number;
  line: number;
  step: number | null;
  type: string;
  type_raw: string;
  call_id: string | null;
  name: string | null;
  outcome: string | null;
  result_ok: number | null;
  summary: string | null;
  content_chars: number | null;
  byte_length: number;
  input_tokens: number | null;
  cached_input_tokens: number | null;
  output_tokens: number | null;
}

/**
 * Up to `limit` events of the run after event `afterId`, in order: the run's history a page at a
 * time, so that no statement stays open while its reader writes on the same connection.
 */
export function historyEventsPage(db: Database.Database, runPk: number, afterId: number, limit: number): HistoryEventSqlRow[] {
  return prepared<[number, number, number], HistoryEventSqlRow>(
    db,
    `SELECT id, line, step, type, type_raw, call_id, name, outcome, result_ok, summary, content_chars, byte_length, input_tokens, cached_input_tokens, output_tokens
     FROM events WHERE run_pk = ? AND id > ? ORDER BY id LIMIT ?`,
  ).all(runPk, afterId, limit);
}

/** The run's tool results that name a child run, in order. */
export function childRunResults(db: Database.Database, runPk: number): { id: number; call_id: string | null; child_run_id: string }[] {
  return prepared<[number], { id: number; call_id: string | null; child_run_id: string }>(
    db,
    // +run_pk: through the small index of results that started a run, not all of the run's events.
    `SELECT id, call_id, child_run_id FROM events WHERE +run_pk = ? AND type = 'tool_result' AND child_run_id IS NOT NULL ORDER BY id`,
  ).all(runPk);
}

/** An event a request diff names: a request, or (in a run without logged requests) a response. */
export interface DiffEventSqlRow {
  id: number;
  source_id: number;
  run_pk: number;
  line: number;
  type: string;
  outcome: string | null;
}

/** Event `eventId` if it belongs to one of `sourceIds`. */
export function diffEventInSources(db: Database.Database, sourceIds: readonly number[], eventId: number): DiffEventSqlRow | undefined {
  return db
    .prepare<[number, string], DiffEventSqlRow>(
      `SELECT e.id, e.source_id, e.run_pk, e.line, e.type, e.outcome FROM events e WHERE e.id = ? AND e.source_id IN (SELECT value FROM json_each(?))`,
    )
    .get(eventId, JSON.stringify(sourceIds));
}

/** The request before `eventId` in its run: the previous `model_request`, or (`reconstructed`) the previous response. */
export function previousRequestEventId(db: Database.Database, runPk: number, eventId: number, reconstructed: boolean): number | null {
  const sql = reconstructed
    ? "SELECT id FROM events WHERE run_pk = ? AND id < ? AND (type = 'model_response' OR (type = 'stream_fragment' AND outcome IS NOT NULL)) ORDER BY id DESC LIMIT 1"
    : "SELECT id FROM events WHERE run_pk = ? AND type = 'model_request' AND id < ? ORDER BY id DESC LIMIT 1";
  return db.prepare<[number, number], { id: number }>(sql).get(runPk, eventId)?.id ?? null;
}

/** How many requests (`reconstructed`: responses) of the run come up to `eventId`, itself included. */
export function requestsUpTo(db: Database.Database, runPk: number, eventId: number, reconstructed: boolean): number | undefined {
  const sql = reconstructed
    ? "SELECT count(*) AS n FROM events WHERE run_pk = ? AND (type = 'model_response' OR (type = 'stream_fragment' AND outcome IS NOT NULL)) AND id <= ?"
    : "SELECT count(*) AS n FROM events WHERE run_pk = ? AND type = 'model_request' AND id <= ?";
  return db.prepare<[number, number], { n: number }>(sql).get(runPk, eventId)?.n;
}

export interface TimedResponseSqlRow {
  id: number;
  step: number | null;
  ts: string | null;
  latency_ms: number | null;
  outcome: string | null;
  api_error: string | null;
  /** The time of the event before it that is not bookkeeping, when only its end is recorded. */
  previous_ts: string | null;
}

/** The run's first `limit` model responses with the times a waterfall draws them from. */
export function timedResponses(db: Database.Database, runPk: number, limit: number): TimedResponseSqlRow[] {
  return prepared<[number], TimedResponseSqlRow>(
    db,
    // The event before a response (not bookkeeping), looked up only for a response with a time: a
    // run without timestamps must not scan back from each of its responses.
    `SELECT e.id, e.step, e.ts, e.latency_ms, e.outcome, e.api_error,
       CASE WHEN e.ts IS NULL OR e.latency_ms IS NOT NULL THEN NULL ELSE
         (SELECT p.ts FROM events p WHERE p.run_pk = e.run_pk AND p.run_index < e.run_index AND p.visible_index IS NOT NULL AND p.ts IS NOT NULL ORDER BY p.run_index DESC LIMIT 1)
       END AS previous_ts
     FROM events e WHERE e.run_pk = ? AND e.type = 'model_response' ORDER BY e.run_index LIMIT ${limit}`,
  ).all(runPk);
}

/** How many model responses the run has. */
export function responseCount(db: Database.Database, runPk: number): number {
  return prepared<[number], { n: number }>(db, "SELECT count(*) AS n FROM events WHERE run_pk = ? AND type = 'model_response'").get(runPk)!.n;
}

/** How many tool calls the run has. */
export function callCount(db: Database.Database, runPk: number): number {
  return prepared<[number], { n: number }>(db, 'SELECT count(*) AS n FROM tool_calls WHERE run_pk = ?').get(runPk)!.n;
}

/** The run's `tool_call_start` events, in order, read as they are used (a reader may stop early). */
export function callStarts(db: Database.Database, runPk: number): IterableIterator<{ call_id: string; ts: string | null }> {
  return prepared<[number], { call_id: string; ts: string | null }>(
    db,
    "SELECT call_id, ts FROM events WHERE run_pk = ? AND type = 'tool_call_start' ORDER BY run_index",
  ).iterate(runPk);
}
