/** What each model response used, as the trace recorded it: the facts a response is priced by. */
import type Database from 'better-sqlite3';
import { prepared } from './preparedStatements';
import { responseEventsSql } from './runs';
import { idList } from './sqlText';

/**
 * One response's model, provider and token counts (null where the trace records none). Token
 * semantics (shared/trace/canonicalEvents.ts, `usageSchema`): `input_tokens` is the whole prompt,
 * of which `cached_input_tokens` were read from the provider's cache and `cache_write_tokens`
 * written to it; `output_tokens` includes the `reasoning_tokens`.
 */
export interface ResponseUsageSqlRow {
  event_id: number;
  run_pk: number;
  step: number | null;
  ts: string | null;
  model: string | null;
  provider: string | null;
  input_tokens: number | null;
  cached_input_tokens: number | null;
  cache_write_tokens: number | null;
  output_tokens: number | null;
  reasoning_tokens: number | null;
  /** What the trace says the response cost. */
  cost_usd: number | null;
}

/**
 * Every response of the sources (`responseEventsSql`: each model_response, and the fragment that
 * closed a stream), in event id order, one at a time: a trace can hold millions. Read in rowid
 * order (`+source_id` keeps the planner off the line index, which would need a sort).
 */
export function responseUsages(db: Database.Database, sourceIds: readonly number[]): IterableIterator<ResponseUsageSqlRow> {
  return prepared<[], ResponseUsageSqlRow>(
    db,
    `SELECT id AS event_id, run_pk, step, ts, model, provider, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost_usd
     FROM events WHERE +source_id IN (${idList(sourceIds)}) AND ${responseEventsSql} ORDER BY id`,
  ).iterate();
}

/** The responses of one run, as `responseUsages` reads them. */
export function runResponseUsages(db: Database.Database, runPk: number): IterableIterator<ResponseUsageSqlRow> {
  return prepared<[number], ResponseUsageSqlRow>(
    db,
    `SELECT id AS event_id, run_pk, step, ts, model, provider, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost_usd
     FROM events WHERE run_pk = ? AND ${responseEventsSql} ORDER BY id`,
  ).iterate(runPk);
}
