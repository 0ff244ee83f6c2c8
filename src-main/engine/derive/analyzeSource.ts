/**
 * The derive stage for events: assembles each run's stored rows into a compact timeline, runs the
 * pure analyses of shared/analysis, and stores the findings and the call ↔ result states.
 *
 * Rows reach the assembler two ways, through the same code: during ingest, the store worker feeds
 * it the rows it is writing (no read-back), and analyzes a run as soon as it ends; afterwards,
 * `ensureAnalysis` reads rows back with SQL (other options, or a run that changed after it was
 * analyzed). Findings are stored per set of options (window, threshold), so reopening a trace with
 * the same options reuses them and different options recompute only this stage, never the ingest.
 */
import type Database from 'better-sqlite3';
import { analyzeRun } from '../../../shared/analysis/analyzeRun';
import { CallColumns, TimelineEntriesBuilder, type RunTimeline, type TimelineEntry } from '../../../shared/analysis/timeline';
import type { AnalysisOptions } from '../../../shared/report';
import { canonicalEventTypes, type ApiErrorFacts, type ModelOutcome } from '../../../shared/trace/canonicalEvents';
import { compactTimestamp } from '../../../shared/trace/timestamps';
import { deleteRunFindings, insertFinding } from '../store/findings';
import { isAnalyzed, RunAnalysisRows, type TimelineEventSqlRow, type TimelineRunSqlRow } from '../store/runAnalysis';
import { runPksOfSource } from '../store/readModel';
import type { ToolCallSqlRow } from '../store/traceWriter';
import { replaceRequestFindings } from './requestAnalysis';
import { replaceSecretFindings } from './secretFindings';

export function optionsKey(options: AnalysisOptions): string {
  return `window=${options.window};threshold=${options.threshold}`;
}

/** Event types that become timeline entries: all but the run's start and the requests (and unknown events). */
export const timelineEventTypes: ReadonlySet<string> = new Set(canonicalEventTypes.filter((type) => type !== 'run_start' && type !== 'model_request'));

/**
 * The entry of an event (a stream fragment's is made by the assembler), its repeated strings passed
 * through `shared`. A response's calls are left empty: they are written after it and come with the
 * timeline's build.
 */
function toEntry(event: TimelineEventSqlRow, shared: <T extends string | null>(value: T) => T, callIdOf: (callId: string) => string): TimelineEntry | null {
  const { id: eventId, line, step } = event;
  const ts = compactTimestamp(event.ts);
  switch (event.type) {
    case 'model_response':
      if (event.outcome === null) return null;
      return {
        eventId,
        line,
        step,
        ts,
        kind: 'response',
        outcome: shared(event.outcome) as ModelOutcome,
        finishReason: shared(event.finish_reason),
        incompleteReason: event.incomplete_reason,
        streamed: false,
        calls: [],
        inputTokens: event.input_tokens,
        outputTokens: event.output_tokens,
        costUsd: event.cost_usd,
        apiError: event.api_error === null ? null : (JSON.parse(event.api_error) as ApiErrorFacts),
      };
    case 'tool_call_start':
      return event.call_id === null ? null : { eventId, line, step, ts, kind: 'execution', callId: callIdOf(event.call_id) };
    case 'tool_result':
      return {
        eventId,
        line,
        step,
        ts,
        kind: 'result',
        callId: callIdOf(event.call_id ?? ''),
        name: shared(event.name),
        ok: event.result_ok === 1,
        errorCode: shared(event.error_code),
        errorLine: event.error_line,
        resultHash: event.result_hash,
        progress: event.progress === null ? null : event.progress === 1,
      };
    case 'tool_call_not_executed':
      return { eventId, line, step, ts, kind: 'not_executed', callId: callIdOf(event.call_id ?? ''), reason: event.summary };
    case 'run_end':
      return { eventId, line, step, ts, kind: 'run_end', statusRaw: event.summary };
    default:
      return null;
  }
}

type AssembledCall = Pick<ToolCallSqlRow, 'event_id' | 'call_index' | 'call_id' | 'name' | 'step' | 'line' | 'args_hash' | 'args_error' | 'args_summary'>;

/**
 * Collects one run's rows, in id order, into its timeline's columns (shared/analysis/timeline.ts).
 * A long run holds one entry per event until it ends (a million for the longest), so each row goes
 * into the columns at once (no row kept beside it), the strings rows repeat — tool names, outcomes,
 * error codes — are shared, not one copy per row as they arrive from another thread, and the calls
 * go into columns too (CallColumns), put in response order once, when the timeline is built.
 *
 * A call's id is written three times (the call, its start, its result), and every copy arrives as
 * its own string: the start and the answer take the call's string instead, so a run holds one
 * per call. Feed a batch's calls before its events (`addCall` first): a call is then known when
 * its start and its result arrive, even in the same batch. Only the calls not answered yet are
 * kept for that (`unansweredCallIds`): in a run that answers its calls, a handful at a time.
 */
export class RunTimelineAssembler {
  private readonly entries = new TimelineEntriesBuilder();
  /** Stream fragments' response rows, by event id: a fragment is a response once its stream closes on it. */
  private readonly fragments = new Map<number, number>();
  private readonly calls = new CallColumns();
  private readonly strings = new Map<string, string>();
  private readonly unansweredCallIds = new Map<string, string>();

  private readonly intern = <T extends string | null>(value: T): T => {
    if (value === null) return value;
    const known = this.strings.get(value);
    if (known !== undefined) return known as T;
    this.strings.set(value, value);
    return value;
  };

  /** The call's own string for a call id its start or answer repeats; an answer's call is no longer waited for. */
  private readonly callIdOf = (callId: string, answers: boolean): string => {
    const known = this.unansweredCallIds.get(callId);
    if (answers) this.unansweredCallIds.delete(callId);
    return known ?? callId;
  };

  addEvent(event: TimelineEventSqlRow): void {
    if (!timelineEventTypes.has(event.type)) return;
    if (event.type !== 'stream_fragment') {
      const entry = toEntry(event, this.intern, (callId) => this.callIdOf(callId, event.type !== 'tool_call_start'));
      if (entry !== null) this.entries.add(entry);
      return;
    }
    // A response without outcome until its stream closes on it (setStreamOutcome), with only the fields analysis reads.
    const row = this.entries.add({
      eventId: event.id,
      line: event.line,
      step: event.step,
      ts: compactTimestamp(event.ts),
      kind: 'response',
      outcome: this.intern(event.outcome) as ModelOutcome | null,
      finishReason: this.intern(event.finish_reason),
      incompleteReason: null,
      streamed: true,
      calls: [],
      inputTokens: event.input_tokens,
      outputTokens: event.output_tokens,
      costUsd: event.cost_usd,
      apiError: null,
    });
    this.fragments.set(event.id, row);
  }

  addCall(row: AssembledCall): void {
    // A call_id issued again while an earlier call with it is unanswered keeps the earlier string.
    const callId = this.unansweredCallIds.get(row.call_id) ?? row.call_id;
    this.unansweredCallIds.set(callId, callId);
    this.calls.add({
      callId,
      name: this.intern(row.name),
      argsHash: row.args_hash,
      argsError: row.args_error,
      argsSummary: row.args_summary,
      step: row.step,
      line: row.line,
      eventId: row.event_id,
      index: row.call_index,
    });
  }

  /** Events taken so far. */
  get size(): number {
    return this.entries.size;
  }

  /** A stream without a model_response closed on this fragment (see TraceIngester.emitStream). */
  setStreamOutcome(eventId: number, outcome: string, finishReason: string | null): void {
    const row = this.fragments.get(eventId);
    if (row === undefined) return;
    this.entries.setOutcome(row, this.intern(outcome) as ModelOutcome, this.intern(finishReason));
  }

  build(run: TimelineRunSqlRow): RunTimeline {
    return {
      runId: run.run_id,
      status: run.status as RunTimeline['status'],
      statusRaw: run.status_raw,
      endLimit: run.end_limit,
      budgets: run.budgets_json === null ? null : (JSON.parse(run.budgets_json) as RunTimeline['budgets']),
      startedAt: run.started_at,
      endedAt: run.ended_at,
      firstLine: run.first_line,
      lastLine: run.last_line,
      started: run.start_event_id !== null,
      endEventId: run.end_event_id,
      outputEventId: run.output_event_id,
      entries: this.entries.build(this.calls),
    };
  }
}

/**
 * Analyzes runs of one source for one set of options and stores the results; call its methods
 * inside a transaction.
 */
export class SourceAnalyzer {
  private readonly key: string;
  private readonly rows: RunAnalysisRows;

  constructor(
    private readonly db: Database.Database,
    private readonly sourceId: number,
    private readonly options: AnalysisOptions,
  ) {
    this.key = optionsKey(options);
    this.rows = new RunAnalysisRows(db, timelineEventTypes);
  }

  /**
   * Reads the run back from the database and analyzes it again. Only the call states that changed
   * are written: a followed file's running run is analyzed again after every append, and most of
   * its calls were answered long before.
   */
  analyzeStoredRun(runPk: number): void {
    const stored = this.assembleStoredRun(runPk);
    if (stored !== null) this.analyze(stored.run, stored.assembler, stored.callStates);
  }

  /** The run as stored: its row, its rows assembled, and its call states (keyed `event:index`, valued `state:answer`). */
  assembleStoredRun(runPk: number): { run: TimelineRunSqlRow; assembler: RunTimelineAssembler; callStates: Map<string, string> } | null {
    const run = this.storedRun(runPk);
    if (run === undefined) return null;
    const assembler = new RunTimelineAssembler();
    for (const call of this.rows.calls(runPk)) assembler.addCall(call);
    for (const event of this.rows.events(runPk)) assembler.addEvent(event);
    const callStates = new Map<string, string>();
    for (const row of this.rows.callStates(runPk)) callStates.set(`${row.event_id}:${row.call_index}`, `${row.state}:${row.answer_event_id}`);
    return { run, assembler, callStates };
  }

  storedRun(runPk: number): TimelineRunSqlRow | undefined {
    return this.rows.run(runPk);
  }

  /**
   * Analyzes a run whose rows the caller assembled, and stores the results. With `callStates` (the
   * run's call states as stored), only the states that changed are written, and the map follows.
   */
  analyze(run: TimelineRunSqlRow, assembler: RunTimelineAssembler, callStates?: Map<string, string>): void {
    const timeline = assembler.build(run);
    const analysis = analyzeRun(timeline, this.options);
    deleteRunFindings(this.db, run.id, this.key);
    for (const f of analysis.findings) {
      insertFinding(this.db, {
        source_id: this.sourceId,
        options_key: this.key,
        run_pk: run.id,
        kind: f.kind,
        severity: f.severity,
        step: f.step,
        call_id: f.call_id,
        line: f.line,
        message: f.message,
        details_json: f.details ? JSON.stringify(f.details) : null,
      });
    }
    const { calls } = timeline.entries;
    for (let at = 0; at < calls.length; at += 1) {
      const row = {
        event_id: calls.eventId(at),
        call_index: calls.index(at),
        state: analysis.calls.state(at),
        answer_event_id: analysis.calls.answerEventId(at),
      };
      if (callStates === undefined) {
        this.rows.writeCallState(run.id, row);
        continue;
      }
      const key = `${row.event_id}:${row.call_index}`;
      const value = `${row.state}:${row.answer_event_id}`;
      if (callStates.get(key) === value) continue;
      this.rows.writeCallState(run.id, row);
      callStates.set(key, value);
    }
    replaceRequestFindings(this.db, this.sourceId, run.id, this.key);
  }

  /** Stores the source's secret findings and records that every run of the source is analyzed for these options. */
  markComplete(): void {
    replaceSecretFindings(this.db, this.sourceId, this.key);
    this.rows.markAnalyzed(this.sourceId, this.key);
  }
}

/** Analyzes every run of the source unless findings for these options are already stored. */
export function ensureAnalysis(db: Database.Database, sourceId: number, options: AnalysisOptions): void {
  if (isAnalyzed(db, sourceId, optionsKey(options))) return;
  const runPks = runPksOfSource(db, sourceId);
  const analyzer = new SourceAnalyzer(db, sourceId, options);
  db.transaction(() => {
    for (const runPk of runPks) analyzer.analyzeStoredRun(runPk);
    analyzer.markComplete();
  })();
}
