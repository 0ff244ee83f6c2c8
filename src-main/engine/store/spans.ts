/**
 * Spans read back (shared/trace/spanTree.ts): where collapsed spans start in a run's event list,
 * and the header of each span an event begins. Spans are written by `TraceStore` (traceWriter.ts).
 */
import type Database from 'better-sqlite3';
import type { EventPosition } from './events';
import { prepared } from './preparedStatements';
import type { SpanSqlRow } from './traceWriter';

/** Of each of the run's spans `beginEventIds`: the position of its begin event, and how many events it holds. */
export function spanExtents(
  db: Database.Database,
  runPk: number,
  position: EventPosition,
  beginEventIds: readonly number[],
): { start: number | null; events: number; visible_events: number }[] {
  return prepared<[number, string], { start: number | null; events: number; visible_events: number }>(
    db,
    `SELECT e.${position} AS start, s.events, s.visible_events FROM spans s JOIN events e ON e.id = s.begin_event_id WHERE s.run_pk = ? AND s.begin_event_id IN (SELECT value FROM json_each(?))`,
  ).all(runPk, JSON.stringify(beginEventIds));
}

export type SpanHeaderSqlRow = Pick<SpanSqlRow, 'begin_event_id' | 'name' | 'type' | 'events' | 'visible_events' | 'started_at' | 'ended_at'>;

/** The spans that these events begin. */
export function spansBegunBy(db: Database.Database, eventIds: readonly number[]): SpanHeaderSqlRow[] {
  return prepared<[string], SpanHeaderSqlRow>(
    db,
    'SELECT begin_event_id, name, type, events, visible_events, started_at, ended_at FROM spans WHERE begin_event_id IN (SELECT value FROM json_each(?))',
  ).all(JSON.stringify(eventIds));
}
