/**
 * Request analysis (docs/semantics.md §9): every model request of a run against the one before it.
 * Per request it stores what the report's `runs[].requests[]` and the app's growth chart show —
 * size, what the turn added (by role and tool), where the history was rewritten, whether the
 * system prompt or tools changed, whether the history was compacted, the input tokens (recorded,
 * or estimated offline) — and the request findings (`requestFindingKinds`).
 *
 * Logged requests are read back from the trace file, which ingest does not parse (their messages
 * are most of a trace's bytes): during ingest as they are written, or after it.
 * Findings are stored under each analysis-options key like every other finding, though they do
 * not depend on the options.
 *
 * Reconstructed requests (formats that log none) extend the previous one by construction, except
 * across a compaction the trace marks; they get sizes and growth, `history_compacted` (marker or
 * a drop in recorded input) and `reconstruction_mismatch`, but no pairing findings: their
 * call/result pairing is the call analysis's.
 */
import type Database from 'better-sqlite3';
import { deleteRunFindings, insertFinding } from '../store/findings';
import { deleteRunRequests, insertRunRequest, markRequestsAnalyzed, replaceRunRequests, type RequestSqlRow } from '../store/requests';
import {
  RawLineReader,
  requestFindingRows,
  requestsAnalyzedForRun,
  runPksOfSource,
  runRequestRows,
  SourceChangedError,
  runRequestSummaryRows,
  type RequestSummarySqlRow,
} from '../store/readModel';
import { answeringUsages, hasLoggedRequests, LoggedRequestReader, reconstructedHistory, type CompactionMarker } from './requestHistory';
import { TokenEstimator } from './tokenEstimator';
import { analyzeLoggedRequests, LiveRequestRuns, tokensOf, type ObservedRequestRow, type RequestRecord } from './loggedRequests';
import { groupAdded, scaleAdded, type AddedTokens, type TokenShare } from '../../../shared/requests/contextGrowth';
import { compaction, inputDropped, type Compaction } from '../../../shared/requests/compaction';
import type { PrefixChange } from '../../../shared/requests/diffRequests';
import {
  historyCompactedFinding,
  reconstructionDisagrees,
  reconstructionMismatchFinding,
  requestFindingKinds,
  type RequestFinding,
} from '../../../shared/requests/requestFindings';
import type { RewriteKind } from '../../../shared/requests/diffRequests';
import type { TokenSource } from '../../../shared/report';
import { TraceFileError } from '../store/traceDatabase';

/**
 * Requests rebuilt from the run's events: each extends the previous one by what happened since,
 * except after a compaction the trace marks, where the history starts over (docs/semantics.md §9).
 * Each is checked against the input the provider recorded for its response: a drop of a quarter
 * or more is a compaction the trace did not mark; a rebuilt request far larger than what was
 * recorded is reported once (`reconstruction_mismatch`).
 */
function* analyzeReconstructedRequests(db: Database.Database, runPk: number): Generator<RequestRecord> {
  // Each record is yielded as it is made (and stored by the caller): only the last one is kept.
  let count = 0;
  let previous: RequestRecord | null = null;
  const callNames = new Map<string, string>();
  let messages = 0;
  let estimate = 0;
  let previousInput: number | null = null;
  let pending: Pick<TokenShare, 'appended' | 'role' | 'tools' | 'tokens'>[] = [];
  // The compaction marked since the last response.
  let marker: CompactionMarker | null = null;
  // A history cut without a marker, or a mismatch already reported: the rebuilt sizes are off from there on.
  let unreliable = false;
  const append = (role: string, tools: string[], tokens: number): void => {
    messages += 1;
    estimate += tokens;
    pending.push({ appended: true, role, tools, tokens });
  };
  for (const item of reconstructedHistory(db, runPk)) {
    if (item.kind === 'compaction') {
      marker ??= item.marker;
      messages = 0;
      estimate = 0;
      pending = [];
      continue;
    }
    if (item.kind === 'message') {
      const { message } = item;
      const answered = message.toolCallId === null ? null : (callNames.get(message.toolCallId) ?? message.name);
      append(message.role, answered === null ? [] : [answered], item.tokens);
      continue;
    }
    const number = count + 1;
    const tokens = tokensOf(item.usage, estimate);
    const before = previous?.inputTokens ?? null;
    const findings: RequestFinding[] = [];
    let rewrite: RequestRecord['rewrite'] = null;
    let compacted: Compaction | null = null;
    if (previous !== null && marker !== null) {
      // The rebuilt history starts over at the marker: it differs from message 1 on.
      rewrite = { messageIndex: 0, messageNumber: 1, kind: 'compacted' };
      // Every message of the previous request is gone: the history starts over at the marker.
      compacted = compaction('marker', marker, before, tokens.inputTokens, previous.messages);
      findings.push(historyCompactedFinding(number, compacted, 1));
      unreliable = false;
    } else if (previous !== null && item.usage.inputTokens !== null && inputDropped(previousInput, item.usage.inputTokens)) {
      compacted = compaction('token_drop', null, previousInput, item.usage.inputTokens, null);
      findings.push(historyCompactedFinding(number, compacted, null));
      unreliable = true;
    }
    if (!unreliable && reconstructionDisagrees(estimate, item.usage.inputTokens)) {
      findings.push(reconstructionMismatchFinding(number, estimate, item.usage.inputTokens));
      unreliable = true;
    }
    const scale = item.usage.inputTokens !== null && estimate > 0 ? item.usage.inputTokens / estimate : 1;
    const growth = item.usage.inputTokens !== null && previousInput !== null ? item.usage.inputTokens - previousInput : null;
    const added = groupAdded(pending.map((share) => ({ ...share, tokens: Math.round(share.tokens * scale) })));
    previous = {
      index: count,
      eventId: item.eventId,
      line: item.line,
      step: item.step,
      reconstructed: true,
      messages,
      appendedMessages: pending.length,
      rewrite,
      prefixChange: null,
      compaction: compacted,
      ...tokens,
      cachedInputTokens: item.usage.cachedInputTokens,
      outputTokens: item.usage.outputTokens,
      added: count === 0 ? [] : growth === null || compacted !== null ? added : scaleAdded(added, growth),
      findings,
    };
    yield previous;
    count += 1;
    pending = [];
    marker = null;
    previousInput = item.usage.inputTokens;
    if (item.message !== null) {
      for (const call of item.message.toolCalls) callNames.set(call.callId, call.name);
      append(
        'assistant',
        item.message.toolCalls.map((call) => call.name),
        item.tokens,
      );
    }
  }
}

/** Replaces the run's request findings under one options key with those its stored requests carry. */
export function replaceRequestFindings(db: Database.Database, sourceId: number, runPk: number, optionsKey: string): void {
  deleteRunFindings(db, runPk, optionsKey, requestFindingKinds);
  for (const row of requestFindingRows(db, runPk)) {
    for (const finding of JSON.parse(row.findings_json) as RequestFinding[]) {
      insertFinding(db, {
        source_id: sourceId,
        options_key: optionsKey,
        run_pk: runPk,
        kind: finding.kind,
        severity: finding.severity,
        step: row.step,
        call_id: finding.callId ?? null,
        line: row.line,
        message: finding.message,
        details_json: JSON.stringify(finding.details),
      });
    }
  }
}

/**
 * Analyzes and stores the requests of one source's runs. During ingest the loader hands it the
 * request events and usages it sees being written, and each logged request is analyzed as soon as
 * its usage is final (loggedRequests.ts: the rows have no index yet, so nothing is read back with
 * SQL); a run's are stored when it ends. `analyzePending` does every other run (reconstructed ones, runs with streamed responses, runs that changed later) with SQL,
 * once the indexes exist, and marks the source analyzed.
 *
 * A trace file that changed since its ingest began cannot be read back: nothing is stored and the
 * source stays unanalyzed (`sources.requests_analyzed` = 0), which the `requests` method reports.
 */
export class SourceRequestAnalyzer {
  private readonly reader: LoggedRequestReader;
  private readonly estimator = new TokenEstimator();
  private readonly stored = new Set<number>();
  private readonly readable: boolean;
  private readonly live: LiveRequestRuns;

  /** `analyzedRuns`: runs whose requests an earlier load of the source stored already. */
  constructor(
    private readonly db: Database.Database,
    private readonly sourceId: number,
    analyzedRuns: Iterable<number> = [],
  ) {
    this.reader = new LoggedRequestReader(db);
    this.live = new LiveRequestRuns(this.reader, this.estimator, (runPk, record, first) => {
      if (first) deleteRunRequests(db, runPk);
      insertRunRequest(db, runPk, requestRow(record));
    });
    this.readable = fileUnchanged(db, sourceId);
    for (const runPk of analyzedRuns) this.stored.add(runPk);
  }

  /** During ingest: a request, response or stream fragment of a run not analyzed yet, as it is written, in order. */
  observe(runPk: number, row: ObservedRequestRow): void {
    if (this.readable) this.live.observe(runPk, row);
  }

  /** The run ended during ingest: its logged requests are stored (when they could be analyzed as they came; the rest at the end). */
  runEnded(runPk: number): void {
    if (this.live.end(runPk)) this.stored.add(runPk);
  }

  /** A run stored earlier received rows after it: it is analyzed again at the end. */
  forget(runPk: number): void {
    this.stored.delete(runPk);
    this.live.forget(runPk);
  }

  /**
   * Every run not stored yet (or forgotten since), read with SQL, its findings stored under the
   * ingest's options key; then the source is analyzed. Inside a transaction, after the query
   * indexes are built. A followed file calls it again after each batch of appended lines.
   */
  analyzePending(optionsKey: string): void {
    if (this.readable) {
      for (const runPk of runPksOfSource(this.db, this.sourceId)) {
        if (this.stored.has(runPk)) continue;
        const records = hasLoggedRequests(this.db, runPk)
          ? analyzeLoggedRequests(this.reader.requestEvents(runPk), answeringUsages(this.db, runPk), this.reader, this.estimator)
          : analyzeReconstructedRequests(this.db, runPk);
        this.store(runPk, records);
        replaceRequestFindings(this.db, this.sourceId, runPk, optionsKey);
      }
      markRequestsAnalyzed(this.db, this.sourceId);
    }
  }

  close(): void {
    this.reader.close();
  }

  /** Stores the records, each turned into its row as it is made and inserted: a run's records are never all held. */
  private store(runPk: number, records: Iterable<RequestRecord>): void {
    function* rows(): Generator<RequestSqlRow> {
      for (const record of records) yield requestRow(record);
    }
    replaceRunRequests(this.db, runPk, rows());
    this.stored.add(runPk);
  }
}

function requestRow(r: RequestRecord): RequestSqlRow {
  const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));
  return {
    request_index: r.index,
    event_id: r.eventId,
    line: r.line,
    step: r.step,
    reconstructed: r.reconstructed ? 1 : 0,
    messages: r.messages,
    appended_messages: r.appendedMessages,
    rewrite_at: r.rewrite?.messageIndex ?? null,
    rewrite_number: r.rewrite?.messageNumber ?? null,
    rewrite_kind: r.rewrite?.kind ?? null,
    prefix_change_json: json(r.prefixChange),
    compaction_json: json(r.compaction),
    input_tokens: r.inputTokens,
    input_tokens_source: r.inputTokensSource,
    cached_input_tokens: r.cachedInputTokens,
    output_tokens: r.outputTokens,
    added_json: JSON.stringify(r.added),
    findings_json: JSON.stringify(r.findings),
  };
}

/**
 * Whether the source's file is still the one being ingested (its requests can be read back). A file
 * deleted (or made unreadable) since the ingest opened it is not: the ingest goes on from its open
 * file, without the requests.
 */
function fileUnchanged(db: Database.Database, sourceId: number): boolean {
  try {
    RawLineReader.open(db, sourceId)?.close();
    return true;
  } catch (error) {
    if (error instanceof SourceChangedError || error instanceof TraceFileError) return false;
    throw error;
  }
}

/** A stored request without what the turn added and its findings (what the report lists). */
export type RequestSummary = Omit<RequestRecord, 'added' | 'findings'>;

function summaryOf(row: RequestSummarySqlRow): RequestSummary {
  return {
    index: row.request_index,
    eventId: row.event_id,
    line: row.line,
    step: row.step,
    reconstructed: row.reconstructed === 1,
    messages: row.messages,
    appendedMessages: row.appended_messages,
    rewrite: row.rewrite_at === null ? null : { messageIndex: row.rewrite_at, messageNumber: row.rewrite_number!, kind: row.rewrite_kind as RewriteKind },
    prefixChange: row.prefix_change_json === null ? null : (JSON.parse(row.prefix_change_json) as PrefixChange),
    compaction: row.compaction_json === null ? null : (JSON.parse(row.compaction_json) as Compaction),
    inputTokens: row.input_tokens,
    inputTokensSource: row.input_tokens_source as TokenSource | null,
    cachedInputTokens: row.cached_input_tokens,
    outputTokens: row.output_tokens,
  };
}

/** The stored requests of a run, in order; null when its source's requests could not be analyzed. */
export function storedRunRequests(db: Database.Database, runPk: number): RequestRecord[] | null {
  if (requestsAnalyzedForRun(db, runPk) !== true) return null;
  return runRequestRows(db, runPk).map((row) => ({
    ...summaryOf(row),
    added: JSON.parse(row.added_json) as AddedTokens[],
    findings: JSON.parse(row.findings_json) as RequestFinding[],
  }));
}

/** The run's stored requests in order, read one at a time (the report lists them all); none when they could not be analyzed. */
export function* storedRequestSummaries(db: Database.Database, runPk: number): Generator<RequestSummary> {
  for (const row of runRequestSummaryRows(db, runPk)) yield summaryOf(row);
}
