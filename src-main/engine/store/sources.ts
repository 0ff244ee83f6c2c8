/**
 * The sources table: a trace file and the files opened with it, each one row with its
 * format, identity and counts, recorded as ingest starts and goes on, read back by the views.
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

/** A source as ingest starts it. */
export interface NewSourceSqlRow {
  path: string;
  size: number;
  mtime_ms: number;
  fingerprint: string;
  format: string;
  format_reason: string;
  parent_source_id: number | null;
  search_indexed: number;
  ingest_started_at: string;
}

/** Records a source being ingested; returns its id. */
export function insertSourceRow(db: Database.Database, row: NewSourceSqlRow): number {
  return Number(
    db
      .prepare(
        `INSERT INTO sources (path, size, mtime_ms, fingerprint, format, format_reason, parent_source_id, search_indexed, ingest_started_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(row.path, row.size, row.mtime_ms, row.fingerprint, row.format, row.format_reason, row.parent_source_id, row.search_indexed, row.ingest_started_at)
      .lastInsertRowid,
  );
}

/** The id the next row of each ingested table gets: row ids are assigned by the ingester, after those already stored. */
export function nextRowIds(db: Database.Database): { event: number; toolCall: number; run: number } {
  const next = (table: string): number => db.prepare<[], { next: number }>(`SELECT coalesce(max(id), 0) + 1 AS next FROM ${table}`).get()?.next ?? 1;
  return { event: next('events'), toolCall: next('tool_calls'), run: next('runs') };
}

/** Records the identity of the bytes of the source ingested so far (a followed file grows). */
export function updateSourceIdentity(db: Database.Database, sourceId: number, identity: { size: number; mtimeMs: number; fingerprint: string }): void {
  db.prepare('UPDATE sources SET size = ?, mtime_ms = ?, fingerprint = ? WHERE id = ?').run(identity.size, identity.mtimeMs, identity.fingerprint, sourceId);
}

/** What ingest counted in the source so far. */
export interface SourceCounts {
  bytesRead: number;
  lines: number;
  blankLines: number;
  events: number;
  unknownEvents: number;
  parseErrors: number;
}

/** Records the source's counts; `completedAt` marks its ingest complete (null: not yet). */
export function updateSourceCounts(db: Database.Database, sourceId: number, counts: SourceCounts, completedAt: string | null): void {
  db.prepare(
    `UPDATE sources SET bytes = ?, lines = ?, blank_lines = ?, events = ?, unknown_events = ?, parse_errors = ?, ingest_completed_at = ?
     WHERE id = ?`,
  ).run(counts.bytesRead, counts.lines, counts.blankLines, counts.events, counts.unknownEvents, counts.parseErrors, completedAt, sourceId);
}
