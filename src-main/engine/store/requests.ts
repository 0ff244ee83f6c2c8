/**
 * The requests table: each model request of a run as the request analysis stored it
 * (derive/requestAnalysis.ts) — written a run at a time, read back by run, by source, and by
 * line — and the `requests_analyzed` mark of a source.
 */
import type Database from 'better-sqlite3';
import { prepared } from './preparedStatements';

export interface RequestSqlRow {
  request_index: number;
  event_id: number;
  line: number;
  step: number | null;
  reconstructed: number;
  messages: number;
  appended_messages: number;
  rewrite_at: number | null;
  rewrite_number: number | null;
  rewrite_kind: string | null;
  prefix_change_json: string | null;
  compaction_json: string | null;
  input_tokens: number | null;
  input_tokens_source: string | null;
  cached_input_tokens: number | null;
  output_tokens: number | null;
  added_json: string;
  findings_json: string;
}

/** A stored request without what the turn added and its findings. */
export type RequestSummarySqlRow = Omit<RequestSqlRow, 'added_json' | 'findings_json'>;

/** Replaces the run's stored requests with `rows`, each inserted as it is iterated. */
export function replaceRunRequests(db: Database.Database, runPk: number, rows: Iterable<RequestSqlRow>): void {
  deleteRunRequests(db, runPk);
  for (const row of rows) insertRunRequest(db, runPk, row);
}

export function deleteRunRequests(db: Database.Database, runPk: number): void {
  prepared(db, 'DELETE FROM requests WHERE run_pk = ?').run(runPk);
}

/** Adds one request of the run (its requests stored one at a time as they are analyzed). */
export function insertRunRequest(db: Database.Database, runPk: number, r: RequestSqlRow): void {
  prepared(
    db,
    `INSERT INTO requests (run_pk, request_index, event_id, line, step, reconstructed, messages, appended_messages, rewrite_at, rewrite_number, rewrite_kind,
       prefix_change_json, compaction_json, input_tokens, input_tokens_source, cached_input_tokens, output_tokens, added_json, findings_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    runPk,
    r.request_index,
    r.event_id,
    r.line,
    r.step,
    r.reconstructed,
    r.messages,
    r.appended_messages,
    r.rewrite_at,
    r.rewrite_number,
    r.rewrite_kind,
    r.prefix_change_json,
    r.compaction_json,
    r.input_tokens,
    r.input_tokens_source,
    r.cached_input_tokens,
    r.output_tokens,
    r.added_json,
    r.findings_json,
  );
}

/** Records that every run of the source has its requests stored. */
export function markRequestsAnalyzed(db: Database.Database, sourceId: number): void {
  prepared(db, 'UPDATE sources SET requests_analyzed = 1 WHERE id = ?').run(sourceId);
}

/** Whether the requests of the run's source were analyzed; undefined for an unknown run. */
export function requestsAnalyzedForRun(db: Database.Database, runPk: number): boolean | undefined {
  const row = prepared<[number], { requests_analyzed: number }>(
    db,
    'SELECT s.requests_analyzed FROM runs r JOIN sources s ON s.id = r.source_id WHERE r.id = ?',
  ).get(runPk);
  return row === undefined ? undefined : row.requests_analyzed !== 0;
}

/** The run's stored requests, in order. */
export function runRequestRows(db: Database.Database, runPk: number): RequestSqlRow[] {
  return prepared<[number], RequestSqlRow>(db, 'SELECT * FROM requests WHERE run_pk = ? ORDER BY request_index').all(runPk);
}

/** The stored requests of a run of an analyzed source, in order, without what turns added and their findings; read one at a time. */
export function runRequestSummaryRows(db: Database.Database, runPk: number): IterableIterator<RequestSummarySqlRow> {
  return prepared<[number], RequestSummarySqlRow>(
    db,
    `SELECT q.request_index, q.event_id, q.line, q.step, q.reconstructed, q.messages, q.appended_messages, q.rewrite_at, q.rewrite_number, q.rewrite_kind,
            q.prefix_change_json, q.compaction_json, q.input_tokens, q.input_tokens_source, q.cached_input_tokens, q.output_tokens
     FROM requests q JOIN runs r ON r.id = q.run_pk JOIN sources s ON s.id = r.source_id
     WHERE q.run_pk = ? AND s.requests_analyzed = 1 ORDER BY q.request_index`,
  ).iterate(runPk);
}

/** The line, step and findings of the run's requests that carry findings, in order. */
export function requestFindingRows(db: Database.Database, runPk: number): { line: number; step: number | null; findings_json: string }[] {
  return prepared<[number], { line: number; step: number | null; findings_json: string }>(
    db,
    "SELECT line, step, findings_json FROM requests WHERE run_pk = ? AND findings_json <> '[]' ORDER BY request_index",
  ).all(runPk);
}

/** The run's request at the event or the nearest before it, else the nearest after it: one index seek, however long the run. */
export function requestNearEvent(
  db: Database.Database,
  runPk: number,
  at: { line: number; eventId: number },
): { event_id: number; line: number; reconstructed: number } | undefined {
  // By line, and by event within a line: a format that writes a whole run on one line (a SWE-agent
  // trajectory, an OpenHands evaluation) has every request and response on the same line.
  const nearest = (sql: string) =>
    prepared<[{ runPk: number; line: number; eventId: number }], { event_id: number; line: number; reconstructed: number }>(
      db,
      `SELECT event_id, line, reconstructed FROM requests WHERE run_pk = @runPk AND ${sql} LIMIT 1`,
    ).get({ runPk, ...at });
  return (
    nearest('line <= @line AND (line < @line OR event_id <= @eventId) ORDER BY line DESC, event_id DESC') ??
    nearest('line >= @line AND (line > @line OR event_id > @eventId) ORDER BY line, event_id')
  );
}
