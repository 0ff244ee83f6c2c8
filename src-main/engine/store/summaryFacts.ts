/** What a summary of many runs reads beyond the report (shared/summary/runsSummary.ts): calls, recorded costs, a finding's tool. */
import type Database from 'better-sqlite3';
import { prepared } from './preparedStatements';
import { idList } from './sqlText';

export interface SummaryCallSqlRow {
  /** The run that issued it. */
  run_pk: number;
  name: string;
  state: string | null;
  latency_ms: number | null;
}

/** Every call of the sources with how it was answered and its latency, one at a time (a trace can hold millions). */
export function summaryCalls(db: Database.Database, sourceIds: readonly number[]): IterableIterator<SummaryCallSqlRow> {
  return prepared<[], SummaryCallSqlRow>(
    db,
    `SELECT c.run_pk, c.name, c.state, CASE WHEN a.type = 'tool_result' THEN a.latency_ms END AS latency_ms
     FROM calls c JOIN runs r ON r.id = c.run_pk LEFT JOIN events a ON a.id = c.answer_event_id
     WHERE r.source_id IN (${idList(sourceIds)})`,
  ).iterate();
}

/** The tool of call `callId` in run `runId` of the source; undefined when the run issued no such call. */
export function callToolName(db: Database.Database, sourceId: number, runId: string, callId: string): string | undefined {
  return prepared<[number, string, string], { name: string }>(
    db,
    'SELECT c.name FROM tool_calls c JOIN runs r ON r.id = c.run_pk WHERE r.source_id = ? AND r.run_id = ? AND c.call_id = ? LIMIT 1',
  ).get(sourceId, runId, callId)?.name;
}
