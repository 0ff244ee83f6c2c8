/**
 * The sources table read back: a trace file and the files opened with it, each one row with its
 * format, identity and counts. Sources are written by the ingest worker (`insertSource`).
 */
import type Database from 'better-sqlite3';
import { prepared } from './preparedStatements';
import { idList } from './sqlText';

export function sourcePath(db: Database.Database, sourceId: number): string | undefined {
  return prepared<[number], { path: string }>(db, 'SELECT path FROM sources WHERE id = ?').get(sourceId)?.path;
}

export function sourcePathAndFormat(db: Database.Database, sourceId: number): { path: string; format: string } | undefined {
  return prepared<[number], { path: string; format: string }>(db, 'SELECT path, format FROM sources WHERE id = ?').get(sourceId);
}

export function sourcePaths(db: Database.Database, sourceIds: readonly number[]): { id: number; path: string }[] {
  return prepared<[], { id: number; path: string }>(db, `SELECT id, path FROM sources WHERE id IN (${idList(sourceIds)})`).all();
}

export function sourceFormat(db: Database.Database, sourceId: number): { format: string; format_reason: string } | undefined {
  return prepared<[number], { format: string; format_reason: string }>(db, 'SELECT format, format_reason FROM sources WHERE id = ?').get(sourceId);
}

/** Bytes, events and parse errors summed over the sources. */
export function sourceTotals(db: Database.Database, sourceIds: readonly number[]): { bytes: number; events: number; parse_errors: number } | undefined {
  return prepared<[], { bytes: number; events: number; parse_errors: number }>(
    db,
    `SELECT sum(bytes) AS bytes, sum(events) AS events, sum(parse_errors) AS parse_errors FROM sources WHERE id IN (${idList(sourceIds)})`,
  ).get();
}

/** A source as the report describes its file. */
export interface ReportSourceSqlRow {
  unknown_events: number;
  format: string;
  format_reason: string;
  bytes: number;
  lines: number;
  events: number;
}

export function reportSource(db: Database.Database, sourceId: number): ReportSourceSqlRow | undefined {
  return db.prepare<[number], ReportSourceSqlRow>('SELECT format, format_reason, bytes, lines, events, unknown_events FROM sources WHERE id = ?').get(sourceId);
}
