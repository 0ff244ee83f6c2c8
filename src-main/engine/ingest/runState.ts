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
import { NumberColumn } from '../../../shared/analysis/columns';

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
  steps: StepColumns;
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

/** Timestamps kept compact (shared/trace/timestamps.ts) in a typed array, by row: NaN for none or one kept as text. */
class TimestampColumn {
  private readonly millis = new NumberColumn(Float64Array);
  private readonly texts = new Map<number, string>();

  push(ts: CompactTimestamp): void {
    const row = this.millis.push(typeof ts === 'number' ? ts : Number.NaN);
    if (typeof ts === 'string') this.texts.set(row, ts);
  }

  get(row: number): CompactTimestamp {
    const millis = this.millis.get(row);
    return Number.isNaN(millis) ? (this.texts.get(row) ?? null) : millis;
  }

  set(row: number, ts: CompactTimestamp): void {
    this.millis.set(row, typeof ts === 'number' ? ts : Number.NaN);
    if (typeof ts === 'string') this.texts.set(row, ts);
    else this.texts.delete(row);
  }
}

/**
 * The steps a run has had, as columns by row (a step's row by its number): a long run keeps every
 * step until it ends (a quarter of a million for the longest), where an object per step, with its
 * boxed times, took ~130 bytes in the ingest worker.
 */
export class StepColumns {
  private readonly rows = new Map<number, number>();
  private readonly firstLines = new NumberColumn(Float64Array);
  private readonly lastLines = new NumberColumn(Float64Array);
  private readonly startedAt = new TimestampColumn();
  private readonly endedAt = new TimestampColumn();
  private readonly events = new NumberColumn(Float64Array);
  /** NaN for none. */
  private readonly responseEventIds = new NumberColumn(Float64Array);

  /** Counts an event of the step at `line`, at `ts`; `responseEventId` when it is the step's response. */
  count(step: number, line: number, ts: CompactTimestamp, responseEventId: number | null): void {
    const row = this.rows.get(step);
    if (row === undefined) {
      this.rows.set(step, this.firstLines.push(line));
      this.lastLines.push(line);
      this.startedAt.push(ts);
      this.endedAt.push(ts);
      this.events.push(1);
      this.responseEventIds.push(responseEventId ?? Number.NaN);
      return;
    }
    this.firstLines.set(row, Math.min(this.firstLines.get(row), line));
    this.lastLines.set(row, Math.max(this.lastLines.get(row), line));
    if (ts !== null) {
      const started = this.startedAt.get(row);
      const ended = this.endedAt.get(row);
      if (started === null || compareTimestamps(ts, started) < 0) this.startedAt.set(row, ts);
      if (ended === null || compareTimestamps(ts, ended) > 0) this.endedAt.set(row, ts);
    }
    this.events.set(row, this.events.get(row) + 1);
    if (responseEventId !== null) this.responseEventIds.set(row, responseEventId);
  }

  /** Sets the step's response, when the run has the step; returns whether it has. */
  setResponse(step: number, responseEventId: number): boolean {
    const row = this.rows.get(step);
    if (row === undefined) return false;
    this.responseEventIds.set(row, responseEventId);
    return true;
  }

  /** The row of the run's step, as it is stored. */
  row(runPk: number, step: number): StepSqlRow {
    const row = this.rows.get(step)!;
    const responseEventId = this.responseEventIds.get(row);
    return {
      run_pk: runPk,
      step,
      first_line: this.firstLines.get(row),
      last_line: this.lastLines.get(row),
      started_at: timestampText(this.startedAt.get(row)),
      ended_at: timestampText(this.endedAt.get(row)),
      events: this.events.get(row),
      response_event_id: Number.isNaN(responseEventId) ? null : responseEventId,
    };
  }
}

/** The row of the run's step, as it is stored. */
export function stepRow(run: RunState, step: number): StepSqlRow {
  return run.steps.row(run.pk, step);
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
    steps: new StepColumns(),
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
  run.steps.count(step, row.line, compactTimestamp(row.ts), row.type === 'model_response' ? row.id : null);
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
