/** The trace as a whole: its parse errors (`parseErrors`) and the format and counts of its files. */
import type Database from 'better-sqlite3';
import { parseErrorPage, sourceFormat, sourceTotals } from '../../engine';
import type { Query, TraceScope } from './scope';

export const parseErrors: Query<'parseErrors'> = (db, scope, request) => {
  const page = parseErrorPage(db, scope.sourceIds, request);
  return {
    total: page.total,
    offset: request.offset,
    rows: page.rows.map((row) => ({
      sourceId: row.source_id,
      file: row.file,
      line: row.line,
      offset: row.byte_offset,
      length: row.byte_length,
      message: row.message,
      excerpt: row.excerpt,
      loaded: row.loaded === 1,
    })),
  };
};

export interface SourceSummary {
  format: string;
  formatReason: string;
  /** Sizes and counts over the trace's files. */
  bytes: number;
  events: number;
  parseErrors: number;
}

/** The format and counts of an ingested trace: a reused ingest reports no progress, so its summary comes from here. */
export function sourceSummary(db: Database.Database, scope: TraceScope): SourceSummary {
  const main = sourceFormat(db, scope.sourceIds[0] ?? -1);
  if (main === undefined) throw new Error('the trace source is missing from its database');
  const totals = sourceTotals(db, scope.sourceIds);
  return {
    format: main.format,
    formatReason: main.format_reason,
    bytes: totals?.bytes ?? 0,
    events: totals?.events ?? 0,
    parseErrors: totals?.parse_errors ?? 0,
  };
}
