/** Reads the analyze report of one ingested, analyzed source out of its database. */
import type Database from 'better-sqlite3';
import type { AnalysisOptions, AnalyzeReport, Finding, ParseError, ReportFinding, RunReport, Severity } from '../../../shared/report';
import { millisBetween } from '../../../shared/trace/timestamps';
import { optionsKey } from '../analysis/analyzeSource';

interface SourceRow {
  unknown_events: number;
  format: string;
  format_reason: string;
  bytes: number;
  lines: number;
  events: number;
}

interface FindingRow {
  run_id: string;
  kind: Finding['kind'];
  severity: Severity;
  step: number | null;
  call_id: string | null;
  line: number | null;
  message: string;
  details_json: string | null;
}

interface ParseErrorRow {
  line: number;
  byte_offset: number;
  byte_length: number;
  message: string;
  excerpt: string;
  loaded: number;
}

type RunRow = Omit<RunReport, 'file' | 'duration_ms' | 'findings'>;

export function buildReport(db: Database.Database, sourceId: number, options: AnalysisOptions, displayPath: string): AnalyzeReport {
  const source = db.prepare<[number], SourceRow>('SELECT format, format_reason, bytes, lines, events, unknown_events FROM sources WHERE id = ?').get(sourceId);
  if (source === undefined) throw new Error(`source ${sourceId} is missing from its database`);
  const parseErrors = db
    .prepare<[number], ParseErrorRow>(
      'SELECT line, byte_offset, byte_length, message, excerpt, loaded FROM parse_errors WHERE source_id = ? ORDER BY line',
    )
    .all(sourceId)
    .map(
      (row): ParseError => ({
        line: row.line,
        offset: row.byte_offset,
        length: row.byte_length,
        message: row.message,
        excerpt: row.excerpt,
        loaded: row.loaded === 1,
      }),
    );
  const findings = db
    .prepare<[number, string], FindingRow>(
      `SELECT r.run_id, f.kind, f.severity, f.step, f.call_id, f.line, f.message, f.details_json
       FROM findings f JOIN runs r ON r.id = f.run_pk
       WHERE f.source_id = ? AND f.options_key = ? ORDER BY r.first_line, f.id`,
    )
    .all(sourceId, optionsKey(options))
    .map(
      (row): ReportFinding => ({
        file: displayPath,
        kind: row.kind,
        severity: row.severity,
        run_id: row.run_id,
        step: row.step,
        call_id: row.call_id,
        line: row.line,
        message: row.message,
        ...(row.details_json !== null ? { details: JSON.parse(row.details_json) as Record<string, unknown> } : {}),
      }),
    );
  const severityCounts = new Map<string, Record<Severity, number>>();
  for (const f of findings) {
    const counts = severityCounts.get(f.run_id) ?? { error: 0, warning: 0, info: 0 };
    counts[f.severity] += 1;
    severityCounts.set(f.run_id, counts);
  }
  const runs = db
    .prepare<[number], RunRow>(
      `SELECT run_id, status, status_raw, steps, tool_calls, tool_results, input_tokens, output_tokens,
              started_at, ended_at, first_line, last_line
       FROM runs WHERE source_id = ? ORDER BY first_line`,
    )
    .all(sourceId)
    .map(
      (row): RunReport => ({
        ...row,
        file: displayPath,
        duration_ms: millisBetween(row.started_at, row.ended_at),
        findings: severityCounts.get(row.run_id) ?? { error: 0, warning: 0, info: 0 },
      }),
    );
  return {
    files: [{ path: displayPath, format: source.format, format_reason: source.format_reason, bytes: source.bytes, lines: source.lines, events: source.events, unknown_events: source.unknown_events, parse_errors: parseErrors }],
    runs,
    findings,
    skipped: [],
  };
}
