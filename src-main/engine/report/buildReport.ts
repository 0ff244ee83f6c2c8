/**
 * Reads the analyze report of ingested, analyzed sources out of their database: a trace file and
 * the files opened with it, each run linked to the run and call that started it.
 */
import type Database from 'better-sqlite3';
import type { AnalysisOptions, AnalyzeReport, Finding, ParseError, ReportFinding, RequestReport, RunReport, Severity } from '../../../shared/report';
import { millisBetween } from '../../../shared/trace/timestamps';
import { optionsKey } from '../analysis/analyzeSource';
import { storedSourceRequests, type RequestSummary } from '../analysis/requestAnalysis';
import { prepared } from '../store/preparedStatements';

interface SourceRow {
  unknown_events: number;
  format: string;
  format_reason: string;
  bytes: number;
  lines: number;
  events: number;
}

interface FindingRow {
  run_id: string | null;
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

type RunRow = Omit<RunReport, 'file' | 'duration_ms' | 'findings' | 'parent' | 'requests'> & { id: number };

interface ParentRow {
  run_id: string;
  call_id: string | null;
  source_id: number;
}

export interface ReportedSource {
  sourceId: number;
  /** How the file is named in the report. */
  displayPath: string;
}

/** The run's requests as the report lists them (an unanalyzed source lists none). */
function requestReports(requests: readonly RequestSummary[]): RequestReport[] {
  return requests.map((request) => ({
    index: request.index,
    line: request.line,
    step: request.step,
    reconstructed: request.reconstructed,
    messages: request.messages,
    appended_messages: request.appendedMessages,
    rewrite: request.rewrite === null ? null : { message_index: request.rewrite.messageIndex, message_number: request.rewrite.messageNumber, kind: request.rewrite.kind },
    prefix_change:
      request.prefixChange === null
        ? null
        : {
            system: request.prefixChange.system,
            tools_added: request.prefixChange.toolsAdded,
            tools_removed: request.prefixChange.toolsRemoved,
            tools_changed: request.prefixChange.toolsChanged,
            tools_reordered: request.prefixChange.toolsReordered,
          },
    compaction:
      request.compaction === null
        ? null
        : {
            evidence: request.compaction.evidence,
            marker: request.compaction.marker === null ? null : { type: request.compaction.marker.typeRaw, line: request.compaction.marker.line },
            tokens_before: request.compaction.tokensBefore,
            tokens_after: request.compaction.tokensAfter,
            tokens_removed: request.compaction.tokensRemoved,
            messages_removed: request.compaction.messagesRemoved,
          },
    input_tokens: request.inputTokens,
    input_tokens_source: request.inputTokensSource,
    cached_input_tokens: request.cachedInputTokens,
    output_tokens: request.outputTokens,
  }));
}

export function buildReport(db: Database.Database, sources: readonly ReportedSource[], options: AnalysisOptions): AnalyzeReport {
  const displayPaths = new Map(sources.map((source) => [source.sourceId, source.displayPath]));
  const reports = sources.map((source) => buildSourceReport(db, source, options, displayPaths));
  return {
    files: reports.flatMap((report) => report.files),
    runs: reports.flatMap((report) => report.runs),
    findings: reports.flatMap((report) => report.findings),
    skipped: [],
  };
}

/**
 * The run that started `runId`: the one holding a tool result that names it, else — for a run of a
 * companion file that no result names — the parent file's run whose id prefixes it (`<session>/…`).
 */
function parentOf(db: Database.Database, runId: string, sourceId: number, displayPaths: ReadonlyMap<number, string>): RunReport['parent'] {
  const named = prepared<[string], ParentRow>(
    db,
    `SELECT r.run_id, e.call_id, r.source_id FROM events e JOIN runs r ON r.id = e.run_pk
     WHERE e.child_run_id = ? AND e.type = 'tool_result' ORDER BY e.id LIMIT 1`,
  ).get(runId);
  const parent =
    named ??
    prepared<[number, string], ParentRow>(
      db,
      `SELECT r.run_id, NULL AS call_id, r.source_id FROM runs r JOIN sources s ON s.parent_source_id = r.source_id
       WHERE s.id = ? AND substr(?, 1, length(r.run_id) + 1) = r.run_id || '/' ORDER BY r.first_line LIMIT 1`,
    ).get(sourceId, runId);
  if (parent === undefined) return undefined;
  const file = displayPaths.get(parent.source_id);
  return file === undefined ? undefined : { run_id: parent.run_id, call_id: parent.call_id, file };
}

function buildSourceReport(db: Database.Database, { sourceId, displayPath }: ReportedSource, options: AnalysisOptions, displayPaths: ReadonlyMap<number, string>): AnalyzeReport {
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
       FROM findings f LEFT JOIN runs r ON r.id = f.run_pk
       WHERE f.source_id = ? AND f.options_key = ? ORDER BY coalesce(r.first_line, f.line), f.id`,
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
    if (f.run_id === null) continue;
    const counts = severityCounts.get(f.run_id) ?? { error: 0, warning: 0, info: 0 };
    counts[f.severity] += 1;
    severityCounts.set(f.run_id, counts);
  }
  const requestsByRun = storedSourceRequests(db, sourceId);
  const runs = db
    .prepare<[number], RunRow>(
      `SELECT id, run_id, status, status_raw, steps, tool_calls, tool_results, input_tokens, output_tokens,
              started_at, ended_at, first_line, last_line
       FROM runs WHERE source_id = ? ORDER BY first_line`,
    )
    .all(sourceId)
    .map(
      ({ id, ...row }): RunReport => {
        const parent = parentOf(db, row.run_id, sourceId, displayPaths);
        return {
          ...row,
          file: displayPath,
          duration_ms: millisBetween(row.started_at, row.ended_at),
          findings: severityCounts.get(row.run_id) ?? { error: 0, warning: 0, info: 0 },
          ...(parent !== undefined ? { parent } : {}),
          requests: requestReports(requestsByRun.get(id) ?? []),
        };
      },
    );
  return {
    files: [{ path: displayPath, format: source.format, format_reason: source.format_reason, bytes: source.bytes, lines: source.lines, events: source.events, unknown_events: source.unknown_events, parse_errors: parseErrors }],
    runs,
    findings,
    skipped: [],
  };
}
