/**
 * Parse errors read back: lines that could not be read as the format, as the report and the API
 * list them. They are written by `TraceStore` (traceWriter.ts).
 */
import type Database from 'better-sqlite3';
import { prepared } from './preparedStatements';
import { idList } from './sqlText';
import type { ParseErrorSqlRow } from './traceWriter';

/** The source's parse errors by line, as the report lists them. */
export function reportParseErrors(db: Database.Database, sourceId: number): Omit<ParseErrorSqlRow, 'source_id'>[] {
  return db
    .prepare<[number], Omit<ParseErrorSqlRow, 'source_id'>>(
      'SELECT line, byte_offset, byte_length, message, excerpt, loaded FROM parse_errors WHERE source_id = ? ORDER BY line',
    )
    .all(sourceId);
}

/** A parse error with the path of its file. */
export type ParseErrorListSqlRow = ParseErrorSqlRow & { file: string };

/** A page of the sources' parse errors, by file and line, and how many there are. */
export function parseErrorPage(
  db: Database.Database,
  sourceIds: readonly number[],
  page: { limit: number; offset: number },
): { total: number; rows: ParseErrorListSqlRow[] } {
  const where = `p.source_id IN (${idList(sourceIds)})`;
  const total = prepared<[], { total: number }>(db, `SELECT count(*) AS total FROM parse_errors p WHERE ${where}`).get()?.total ?? 0;
  const rows = prepared<[number, number], ParseErrorListSqlRow>(
    db,
    `SELECT p.source_id, s.path AS file, p.line, p.byte_offset, p.byte_length, p.message, p.excerpt, p.loaded
     FROM parse_errors p JOIN sources s ON s.id = p.source_id WHERE ${where} ORDER BY p.source_id, p.line LIMIT ? OFFSET ?`,
  ).all(page.limit, page.offset);
  return { total, rows };
}
