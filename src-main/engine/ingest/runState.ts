/**
 * What the ingest keeps of each run while its lines stream past: counters, step numbering, its
 * ending or pause, the answers its output may repeat, its open streams and step rows. Functions
 * here change one run's state or turn it into rows; the recorder (eventRecorder.ts) calls them.
 */
import { idText, canonicalEventTypes, type Budgets } from '../../../shared/trace/canonicalEvents';
import { SpanNesting, type SpanExtent } from '../../../shared/trace/spanTree';
import type { RunStatus } from '../../../shared/trace/runStatus';
import { compactTimestamp, compareTimestamps, timestampText, type CompactTimestamp } from '../../../shared/trace/timestamps';
import type { AdaptedEvent } from '../adapters/formatAdapter';
import type { EventSqlRow, RunSqlRow, SpanSqlRow, StepSqlRow } from '../store/traceWriter';
import type { OpenStream } from './streamAssembly';

/**
 * The latest responses with text a run keeps, and how much of each, to tell which one its terminal
 * output repeats (docs/semantics.md §1): an output repeats one of the last few answers, and a long
 * text is recognised by its start. At most 16 KiB per run still open; dropped when it ends.
 */
export const RECENT_ANSWERS = 4;
export const ANSWER_TEXT_CHARS = 4 * 1024;

export interface RunState {
  pk: number;
  runId: string;
  firstLine: number;
  lastLine: number;
  startedAt: string | null;
  endedAt: string | null;
  lastStep: number;
  /** Step opened by a model_request still waiting for its response. */
  openRequestStep: number | null;
  stepIdOrdinals: Map<string, number>;
  modelSteps: Set<number>;
  toolCalls: number;
  toolResults: number;
  inputTokens: number | null;
  outputTokens: number | null;
  budgets: Budgets | null;
  config: unknown;
  startEventId: number | null;
  /** The run's terminal event: its first run_end that is not a pause (docs/semantics.md §2). */
  end: RunEnding | null;
  /** A pause (waiting_for_input/approval) no later event of the loop has lifted yet. */
  pause: RunEnding | null;
  /** The latest responses with text, oldest first (see RECENT_ANSWERS). */
  recentAnswers: { eventId: number; text: string }[];
  openStreams: Map<number, OpenStream>;
  steps: Map<number, StepState>;
  /** Steps changed since the run was last stored: a followed file's run is stored again and again, its rows only where they changed. */
  changedSteps: Set<number>;
  /** Events of the run so far: the next event's `run_index`. */
  events: number;
  /** Events of the run so far that are not bookkeeping: the next such event's `visible_index`. */
  visibleEvents: number;
  /** The run's span tree so far (shared/trace/spanTree.ts): each event's depth, each span's extent. */
  spans: SpanNesting;
  /** Bumped on every change; the run's row is (re)written and (re)analyzed when it differs from `storedVersion`. */
  version: number;
  storedVersion: number;
}

/**
 * A step as its run keeps it between stores: its row without the run and the step (the map's
 * key), its times compact (shared/trace/timestamps.ts). A long run keeps every step it has had.
 */
export type StepState = Omit<StepSqlRow, 'run_pk' | 'step' | 'started_at' | 'ended_at'> & { started_at: CompactTimestamp; ended_at: CompactTimestamp };

/** The row of the run's step, as it is stored. */
export function stepRow(run: RunState, step: number): StepSqlRow {
  const state = run.steps.get(step)!;
  return { run_pk: run.pk, step, ...state, started_at: timestampText(state.started_at), ended_at: timestampText(state.ended_at) };
}

export interface RunEnding {
  status: RunStatus;
  statusRaw: string;
  limit: string | null;
  eventId: number;
  /** The response whose text the run_end's output repeats (docs/semantics.md §1), if any. */
  outputEventId: number | null;
}

/** Events that show the loop at work: logged after a pause, they resume the run (docs/semantics.md §2). */
export const loopActivityTypes: ReadonlySet<string> = new Set(canonicalEventTypes.filter((type) => type !== 'run_end'));

/** A run first seen on `line`, numbered `pk`. */
export function newRunState(pk: number, runId: string, line: number): RunState {
  return {
    pk,
    runId,
    firstLine: line,
    lastLine: line,
    startedAt: null,
    endedAt: null,
    lastStep: 0,
    openRequestStep: null,
    stepIdOrdinals: new Map(),
    modelSteps: new Set(),
    toolCalls: 0,
    toolResults: 0,
    inputTokens: null,
    outputTokens: null,
    budgets: null,
    config: undefined,
    startEventId: null,
    end: null,
    pause: null,
    recentAnswers: [],
    openStreams: new Map(),
    steps: new Map(),
    changedSteps: new Set(),
    events: 0,
    visibleEvents: 0,
    spans: new SpanNesting(),
    version: 0,
    storedVersion: -1,
  };
}

/**
 * The step an event belongs to: as logged (`step`, or `step_id` numbered in order of first
 * appearance), else inferred — a request or response without a step opens the next one, and
 * tool events belong to the current one.
 */
export function stepOf(run: RunState, event: AdaptedEvent): number {
  let step = event.step;
  if (step === undefined && event.step_id !== undefined) {
    step = run.stepIdOrdinals.get(idText(event.step_id));
    if (step === undefined) {
      step = run.stepIdOrdinals.size + 1;
      run.stepIdOrdinals.set(idText(event.step_id), step);
    }
  }
  if (step === undefined) {
    if (event.type === 'model_request') step = run.lastStep + 1;
    else if (event.type === 'model_response' || event.type === 'stream_fragment') step = run.openRequestStep ?? run.lastStep + 1;
    else step = run.lastStep;
  }
  if (event.type === 'model_request') run.openRequestStep = step;
  if (event.type === 'model_response') run.openRequestStep = null;
  run.lastStep = Math.max(run.lastStep, step);
  return step;
}

/** Keeps the step's row (one per model call; step 0 holds what came before the first) up to date. */
export function countInStep(run: RunState, row: EventSqlRow): void {
  const step = row.step ?? 0;
  run.changedSteps.add(step);
  const existing = run.steps.get(step);
  const ts = compactTimestamp(row.ts);
  if (existing === undefined) {
    run.steps.set(step, {
      first_line: row.line,
      last_line: row.line,
      started_at: ts,
      ended_at: ts,
      events: 1,
      response_event_id: row.type === 'model_response' ? row.id : null,
    });
    return;
  }
  existing.first_line = Math.min(existing.first_line, row.line);
  existing.last_line = Math.max(existing.last_line, row.line);
  if (ts !== null) {
    if (existing.started_at === null || compareTimestamps(ts, existing.started_at) < 0) existing.started_at = ts;
    if (existing.ended_at === null || compareTimestamps(ts, existing.ended_at) > 0) existing.ended_at = ts;
  }
  existing.events += 1;
  if (row.type === 'model_response') existing.response_event_id = row.id;
}

/** Keeps a response's text among the run's latest answers (see RECENT_ANSWERS). */
export function rememberAnswer(run: RunState, eventId: number, text: string | null | undefined): void {
  if (text === null || text === undefined || text.trim() === '') return;
  run.recentAnswers.push({ eventId, text: text.slice(0, ANSWER_TEXT_CHARS) });
  if (run.recentAnswers.length > RECENT_ANSWERS) run.recentAnswers.shift();
}

/** The id of a call written without one: its run, step and position. */
export function derivedCallId(run: RunState, step: number, index: number): string {
  return `${run.runId}:step${step}:call${index}`;
}

/** A span's row as far as the run has come: stored when it ends, and while open each time the run is stored. */
export function spanRow(runPk: number, span: SpanExtent): SpanSqlRow {
  return {
    begin_event_id: span.beginEventId,
    run_pk: runPk,
    depth: span.depth,
    name: span.name,
    type: span.type,
    last_index: span.lastIndex,
    events: span.events,
    visible_events: span.visibleEvents,
    started_at: span.startedAt,
    ended_at: span.endedAt,
  };
}

/**
 * The run's row: a run that has not ended but is paused shows the pause; one whose pause was lifted
 * (or that never paused) has `openStatus`, what a run without a terminal event is stored as.
 */
export function runRow(run: RunState, sourceId: number, openStatus: 'running' | 'unterminated'): RunSqlRow {
  const ending = run.end ?? run.pause;
  const status = ending ? { status: ending.status, raw: ending.statusRaw } : { status: openStatus, raw: '' };
  return {
    id: run.pk,
    source_id: sourceId,
    run_id: run.runId,
    status: status.status,
    status_raw: status.raw,
    end_limit: ending?.limit ?? null,
    budgets_json: run.budgets ? JSON.stringify(run.budgets) : null,
    config_json: run.config === undefined ? null : JSON.stringify(run.config),
    first_line: run.firstLine,
    last_line: run.lastLine,
    started_at: run.startedAt,
    ended_at: run.endedAt,
    steps: run.modelSteps.size,
    tool_calls: run.toolCalls,
    tool_results: run.toolResults,
    input_tokens: run.inputTokens,
    output_tokens: run.outputTokens,
    start_event_id: run.startEventId,
    end_event_id: ending?.eventId ?? null,
    output_event_id: ending?.outputEventId ?? null,
  };
}
