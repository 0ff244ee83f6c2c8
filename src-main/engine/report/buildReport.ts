/**
 * Reads the analyze report of ingested, analyzed sources out of their database: a trace file and
 * the files opened with it, each run linked to the run and call that started it.
 *
 * The report is read in two parts: its outline (files, runs without their requests, findings) and
 * each run's requests, read from the database one run at a time. A run of a million events has a
 * quarter of a million requests, so a caller that writes the report (report/reportJson.ts) holds
 * one request at a time, never the run's list.
 */
import type Database from 'better-sqlite3';
import type { AnalysisOptions, AnalyzeReport, ParseError, ReportFinding, RequestReport, RunReport, Severity } from '../../../shared/report';
import { millisBetween } from '../../../shared/trace/timestamps';
import { optionsKey } from '../derive/analyzeSource';
import { storedRequestSummaries, type RequestSummary } from '../derive/requestAnalysis';
import { parentRunsOf, reportFindings, reportParseErrors, reportRuns, reportSource } from '../store/readModel';

export interface ReportedSource {
  sourceId: number;
  /** How the file is named in the report. */
  displayPath: string;
}

/** A stored request as the report lists it. */
function requestReport(request: RequestSummary): RequestReport {
  return {
    index: request.index,
    line: request.line,
    step: request.step,
    reconstructed: request.reconstructed,
    messages: request.messages,
    appended_messages: request.appendedMessages,
    rewrite:
      request.rewrite === null
        ? null
        : { message_index: request.rewrite.messageIndex, message_number: request.rewrite.messageNumber, kind: request.rewrite.kind },
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
  };
}

/** The run's stored requests as the report lists them, read one at a time (an unanalyzed source lists none). */
export function* runRequestReports(db: Database.Database, runPk: number): Generator<RequestReport> {
  for (const request of storedRequestSummaries(db, runPk)) yield requestReport(request);
}

/** A run of the report without its requests, and the key its requests are read by (`runRequestReports`). */
export interface OutlinedRun {
  runPk: number;
  report: Omit<RunReport, 'requests'>;
}

/** The report without the runs' requests. */
export interface ReportOutline {
  files: AnalyzeReport['files'];
  runs: OutlinedRun[];
  findings: ReportFinding[];
}

export function buildReportOutline(db: Database.Database, sources: readonly ReportedSource[], options: AnalysisOptions): ReportOutline {
  const displayPaths = new Map(sources.map((source) => [source.sourceId, source.displayPath]));
  const outlines = sources.map((source) => buildSourceOutline(db, source, options, displayPaths));
  return {
    files: outlines.flatMap((outline) => outline.files),
    runs: outlines.flatMap((outline) => outline.runs),
    findings: outlines.flatMap((outline) => outline.findings),
  };
}

/** The whole report, every run's requests listed. */
export function buildReport(db: Database.Database, sources: readonly ReportedSource[], options: AnalysisOptions): AnalyzeReport {
  const outline = buildReportOutline(db, sources, options);
  return {
    files: outline.files,
    runs: outline.runs.map(({ runPk, report }) => ({ ...report, requests: [...runRequestReports(db, runPk)] })),
    findings: outline.findings,
    skipped: [],
  };
}

/** The run that started each of `runs`, named by its file in the report (see store/runs.ts `parentRunsOf`). */
function parentsOf(
  db: Database.Database,
  runs: readonly { run_id: string; source_id: number }[],
  displayPaths: ReadonlyMap<number, string>,
): RunReport['parent'][] {
  return parentRunsOf(db, [...displayPaths.keys()], runs).map((parent) => {
    const file = parent === undefined ? undefined : displayPaths.get(parent.source_id);
    return parent === undefined || file === undefined ? undefined : { run_id: parent.run_id, call_id: parent.call_id, file };
  });
}

function buildSourceOutline(
  db: Database.Database,
  { sourceId, displayPath }: ReportedSource,
  options: AnalysisOptions,
  displayPaths: ReadonlyMap<number, string>,
): ReportOutline {
  const source = reportSource(db, sourceId);
  if (source === undefined) throw new Error(`source ${sourceId} is missing from its database`);
  const parseErrors = reportParseErrors(db, sourceId).map((row): ParseError => ({
    line: row.line,
    offset: row.byte_offset,
    length: row.byte_length,
    message: row.message,
    excerpt: row.excerpt,
    loaded: row.loaded === 1,
  }));
  const findings = reportFindings(db, sourceId, optionsKey(options)).map((row): ReportFinding => ({
    file: displayPath,
    kind: row.kind,
    severity: row.severity,
    run_id: row.run_id,
    step: row.step,
    call_id: row.call_id,
    line: row.line,
    message: row.message,
    ...(row.details_json !== null ? { details: JSON.parse(row.details_json) as Record<string, unknown> } : {}),
  }));
  const severityCounts = new Map<string, Record<Severity, number>>();
  for (const f of findings) {
    if (f.run_id === null) continue;
    const counts = severityCounts.get(f.run_id) ?? { error: 0, warning: 0, info: 0 };
    counts[f.severity] += 1;
    severityCounts.set(f.run_id, counts);
  }
  const runRows = reportRuns(db, sourceId);
  const parents = parentsOf(
    db,
    runRows.map((row) => ({ run_id: row.run_id, source_id: sourceId })),
    displayPaths,
  );
  const runs = runRows.map(({ id, ...row }, at): OutlinedRun => {
    const parent = parents[at];
    return {
      runPk: id,
      report: {
        ...row,
        file: displayPath,
        duration_ms: millisBetween(row.started_at, row.ended_at),
        findings: severityCounts.get(row.run_id) ?? { error: 0, warning: 0, info: 0 },
        ...(parent !== undefined ? { parent } : {}),
      },
    };
  });
  return {
    files: [
      {
        path: displayPath,
        format: source.format,
        format_reason: source.format_reason,
        bytes: source.bytes,
        lines: source.lines,
        events: source.events,
        unknown_events: source.unknown_events,
        parse_errors: parseErrors,
      },
    ],
    runs,
    findings,
  };
}
