/**
 * The compact, ordered view of one run that every analysis reads: what the store keeps of each
 * event, without payloads. Entries are in file order, which is the order the loop logged them.
 */
import type { ApiErrorFacts, Budgets, ModelOutcome } from '../trace/canonicalEvents';
import type { RunStatus } from '../trace/runStatus';
import type { CompactTimestamp } from '../trace/timestamps';
import { FIRST_CAPACITY, grown, HashColumn, NumberColumn } from './columns';

export interface TimelineCall {
  callId: string;
  name: string;
  /** Hash of the canonical arguments; null when they did not parse. */
  argsHash: string | null;
  argsError: string | null;
  argsSummary: string | null;
  step: number | null;
  line: number;
  eventId: number;
  /** Position of the call within its response. */
  index: number;
}

/**
 * A run's calls as they arrive, kept as columns: a long run issues hundreds of thousands and holds
 * them all through its ingest and analysis, where an object per call took ~100 bytes besides its
 * strings (its arguments hash a new one each), and the columns take ~60. Read by row.
 */
export class CallColumns {
  private readonly eventIds = new NumberColumn(Float64Array);
  private readonly indexes = new NumberColumn(Int32Array);
  private readonly lines = new NumberColumn(Float64Array);
  /** NaN for a call without a step. */
  private readonly steps = new NumberColumn(Float64Array);
  private readonly callIds: string[] = [];
  private readonly names: string[] = [];
  private readonly argsHashes = new HashColumn();
  /** By row: only calls whose arguments did not parse have one. */
  private readonly argsErrors = new Map<number, string>();
  private readonly argsSummaries: (string | null)[] = [];

  static of(calls: Iterable<TimelineCall>): CallColumns {
    const columns = new CallColumns();
    for (const call of calls) columns.add(call);
    return columns;
  }

  get length(): number {
    return this.callIds.length;
  }

  add(call: TimelineCall): void {
    const at = this.eventIds.push(call.eventId);
    this.indexes.push(call.index);
    this.lines.push(call.line);
    this.steps.push(call.step ?? Number.NaN);
    this.callIds.push(call.callId);
    this.names.push(call.name);
    this.argsHashes.push(call.argsHash);
    if (call.argsError !== null) this.argsErrors.set(at, call.argsError);
    this.argsSummaries.push(call.argsSummary);
  }

  callId(row: number): string {
    return this.callIds[row]!;
  }

  name(row: number): string {
    return this.names[row]!;
  }

  argsHash(row: number): string | null {
    return this.argsHashes.get(row);
  }

  argsError(row: number): string | null {
    return this.argsErrors.get(row) ?? null;
  }

  argsSummary(row: number): string | null {
    return this.argsSummaries[row]!;
  }

  step(row: number): number | null {
    return orNull(this.steps.get(row));
  }

  line(row: number): number {
    return this.lines.get(row);
  }

  eventId(row: number): number {
    return this.eventIds.get(row);
  }

  index(row: number): number {
    return this.indexes.get(row);
  }

  /**
   * The rows in the order responses list the calls: by response, then by position in it (in
   * arrival order where both tie); null when that is the order they arrived in (almost always).
   */
  responseOrder(): Int32Array | null {
    if (this.arrivedInOrder()) return null;
    const order = Int32Array.from({ length: this.length }, (_, row) => row);
    return order.sort((a, b) => this.eventId(a) - this.eventId(b) || this.index(a) - this.index(b) || a - b);
  }

  private arrivedInOrder(): boolean {
    for (let row = 1; row < this.length; row += 1) {
      const byResponse = this.eventIds.get(row) - this.eventIds.get(row - 1);
      if (byResponse < 0 || (byResponse === 0 && this.indexes.get(row) < this.indexes.get(row - 1))) return false;
    }
    return true;
  }
}

/**
 * Every call of the run, in the order responses list them, read by position: the rules hold
 * positions, not calls, past the call they look at (`at` makes a new object each time).
 */
export class TimelineCalls implements Iterable<TimelineCall> {
  constructor(
    readonly length: number,
    private readonly columns: CallColumns,
    /** The row of each position; null when positions are rows. */
    private readonly rows: Int32Array | null,
  ) {}

  private row(at: number): number {
    return this.rows === null ? at : this.rows[at]!;
  }

  callId(at: number): string {
    return this.columns.callId(this.row(at));
  }

  name(at: number): string {
    return this.columns.name(this.row(at));
  }

  argsHash(at: number): string | null {
    return this.columns.argsHash(this.row(at));
  }

  step(at: number): number | null {
    return this.columns.step(this.row(at));
  }

  line(at: number): number {
    return this.columns.line(this.row(at));
  }

  eventId(at: number): number {
    return this.columns.eventId(this.row(at));
  }

  /** Position of the call within its response. */
  index(at: number): number {
    return this.columns.index(this.row(at));
  }

  at(at: number): TimelineCall {
    const row = this.row(at);
    const c = this.columns;
    return {
      callId: c.callId(row),
      name: c.name(row),
      argsHash: c.argsHash(row),
      argsError: c.argsError(row),
      argsSummary: c.argsSummary(row),
      step: c.step(row),
      line: c.line(row),
      eventId: c.eventId(row),
      index: c.index(row),
    };
  }

  /** The calls at positions [from, to). */
  slice(from: number, to: number): TimelineCall[] {
    const calls: TimelineCall[] = [];
    for (let at = from; at < to; at += 1) calls.push(this.at(at));
    return calls;
  }

  *[Symbol.iterator](): Generator<TimelineCall> {
    for (let at = 0; at < this.length; at += 1) yield this.at(at);
  }
}

interface EntryBase {
  eventId: number;
  line: number;
  step: number | null;
  /** A long run holds one per event: kept compact (shared/trace/timestamps.ts), read with `timestampText`. */
  ts: CompactTimestamp;
}

export interface ResponseEntry extends EntryBase {
  kind: 'response';
  outcome: ModelOutcome;
  finishReason: string | null;
  /** Why the loop or its adapter says the response is incomplete, as logged. */
  incompleteReason: string | null;
  /** Assembled from stream fragments (no model_response line): a stream with no finish reason broke. */
  streamed: boolean;
  calls: TimelineCall[];
  inputTokens: number | null;
  outputTokens: number | null;
  /** Cost of the call when the trace records it. */
  costUsd: number | null;
  /** The provider refused the call (docs/semantics.md §7); null for a response it gave. */
  apiError: ApiErrorFacts | null;
}

export interface ExecutionEntry extends EntryBase {
  kind: 'execution';
  callId: string;
}

export interface ResultEntry extends EntryBase {
  kind: 'result';
  callId: string;
  name: string | null;
  ok: boolean;
  errorCode: string | null;
  /** Of a failed result: the line of its error output that says why (shared/trace/errorLine.ts). */
  errorLine: string | null;
  resultHash: string | null;
  /** The loop's own progress flag, when it logs one. */
  progress: boolean | null;
}

export interface NotExecutedEntry extends EntryBase {
  kind: 'not_executed';
  callId: string;
  reason: string | null;
}

export interface RunEndEntry extends EntryBase {
  kind: 'run_end';
  /** The status as the loop wrote it; null when it wrote none. */
  statusRaw: string | null;
}

export type TimelineEntry = ResponseEntry | ExecutionEntry | ResultEntry | NotExecutedEntry | RunEndEntry;

export interface RunTimeline {
  runId: string;
  status: RunStatus;
  statusRaw: string;
  /** The budget the loop named in its terminal event (`max_tool_calls`, …), if any. */
  endLimit: string | null;
  budgets: Budgets | null;
  startedAt: string | null;
  endedAt: string | null;
  firstLine: number;
  lastLine: number;
  /** The run has a run_start event. */
  started: boolean;
  /**
   * The run_end the status was taken from: the terminal event, or the pause the run is still in;
   * null while no run_end counts (docs/semantics.md §2).
   */
  endEventId: number | null;
  /** The response whose text the run's terminal output repeats (docs/semantics.md §1), if any. */
  outputEventId: number | null;
  entries: TimelineEntries;
}

export type EntryKind = TimelineEntry['kind'];
const entryKinds: readonly EntryKind[] = ['response', 'execution', 'result', 'not_executed', 'run_end'];
const kindCode: Record<EntryKind, number> = { response: 0, execution: 1, result: 2, not_executed: 3, run_end: 4 };

/**
 * The number columns hold no null: NaN stands for it (SQLite, where every value comes from, has no
 * NaN to confuse it with).
 */
const orNaN = (value: number | null): number => (value === null ? Number.NaN : value);
const orNull = (value: number): number | null => (Number.isNaN(value) ? null : value);

/** Each kind's own fields, one list per field, a row per entry of the kind (`detail` says which). */
interface ResponseRows {
  /** Null for a stream fragment that closes no stream (yet): not an entry. */
  outcome: (ModelOutcome | null)[];
  finishReason: (string | null)[];
  incompleteReason: (string | null)[];
  streamed: boolean[];
  inputTokens: number[];
  outputTokens: number[];
  costUsd: number[];
  /** By row: a provider error is rare. */
  apiErrors: Map<number, ApiErrorFacts>;
}

interface ResultRows {
  callId: string[];
  name: (string | null)[];
  /** `ok` and `progress`, packed (resultFlags). */
  flags: NumberColumn<Uint8Array>;
  /** By row: most results carry neither (only a failure has them). */
  errorCodes: Map<number, string>;
  errorLines: Map<number, string>;
  resultHash: HashColumn;
}

const OK = 1;
const PROGRESS_LOGGED = 2;
const PROGRESS = 4;

function resultFlags(ok: boolean, progress: boolean | null): number {
  return (ok ? OK : 0) | (progress === null ? 0 : PROGRESS_LOGGED | (progress ? PROGRESS : 0));
}

/** The columns every entry has, sized by the builder (typed arrays, grown by copy) or exactly once built. */
interface EntryColumns {
  kinds: Uint8Array;
  eventIds: Float64Array;
  lines: Float64Array;
  steps: Float64Array;
  /** Epoch milliseconds; NaN for a timestamp kept as text (`tsTexts`) or none. */
  tsMillis: Float64Array;
  /** The entry's row among those of its kind. */
  details: Int32Array;
}

interface KindRows {
  responses: ResponseRows;
  /** Executions' call ids. */
  executions: string[];
  results: ResultRows;
  notExecuted: { callId: string[]; reason: (string | null)[] };
  runEnds: (string | null)[];
}

/**
 * A run's entries as columns rather than one object per entry: a long run holds a million, and an
 * entry as an object (6 to 14 fields of 8 bytes, its headers, a boxed timestamp) took ~120 bytes on
 * average, where the columns take ~75 (37 for the typed arrays, the rest in each kind's lists). The
 * rules read single fields through `kind`, `line`, `step`, `eventId` and `resultAt`, or a whole
 * entry with `at` and iteration, which make a new object each time: the rules hold positions, not
 * entries, past the entry they look at.
 */
export class TimelineEntries implements Iterable<TimelineEntry> {
  constructor(
    readonly length: number,
    private readonly columns: EntryColumns,
    private readonly tsTexts: ReadonlyMap<number, string>,
    private readonly rows: KindRows,
    readonly calls: TimelineCalls,
    /** Per response row: where its calls start in `calls`, and where they end. */
    private readonly callRanges: Int32Array,
  ) {}

  kind(index: number): EntryKind {
    return entryKinds[this.columns.kinds[index]!]!;
  }

  line(index: number): number {
    return this.columns.lines[index]!;
  }

  eventId(index: number): number {
    return this.columns.eventIds[index]!;
  }

  step(index: number): number | null {
    return orNull(this.columns.steps[index]!);
  }

  /** The outcome of the response at `index`, which must be one. */
  outcome(index: number): ModelOutcome {
    return this.rows.responses.outcome[this.columns.details[index]!]!;
  }

  /** Where the calls of the response at `index` (which must be one) start among `calls`. */
  callsFrom(index: number): number {
    return this.callRanges[2 * this.columns.details[index]!]!;
  }

  /** Where the calls of the response at `index` (which must be one) end among `calls`. */
  callsTo(index: number): number {
    return this.callRanges[2 * this.columns.details[index]! + 1]!;
  }

  /** The entry at `index`; undefined past either end (as an array's `[index]`). */
  at(at: number): TimelineEntry | undefined {
    if (at < 0 || at >= this.length) return undefined;
    const { columns, rows } = this;
    const row = columns.details[at]!;
    const millis = columns.tsMillis[at]!;
    const eventId = columns.eventIds[at]!;
    const line = columns.lines[at]!;
    const step = orNull(columns.steps[at]!);
    const ts = Number.isNaN(millis) ? (this.tsTexts.get(at) ?? null) : millis;
    switch (this.kind(at)) {
      case 'response': {
        const r = rows.responses;
        return {
          eventId,
          line,
          step,
          ts,
          kind: 'response',
          outcome: r.outcome[row]!,
          finishReason: r.finishReason[row]!,
          incompleteReason: r.incompleteReason[row]!,
          streamed: r.streamed[row]!,
          calls: this.calls.slice(this.callRanges[2 * row]!, this.callRanges[2 * row + 1]!),
          inputTokens: orNull(r.inputTokens[row]!),
          outputTokens: orNull(r.outputTokens[row]!),
          costUsd: orNull(r.costUsd[row]!),
          apiError: r.apiErrors.get(row) ?? null,
        };
      }
      case 'execution':
        return { eventId, line, step, ts, kind: 'execution', callId: rows.executions[row]! };
      case 'result':
        return this.resultOf(at, { eventId, line, step, ts });
      case 'not_executed':
        return { eventId, line, step, ts, kind: 'not_executed', callId: rows.notExecuted.callId[row]!, reason: rows.notExecuted.reason[row]! };
      case 'run_end':
        return { eventId, line, step, ts, kind: 'run_end', statusRaw: rows.runEnds[row]! };
    }
  }

  /** The result at `index`, which must be one. */
  resultAt(index: number): ResultEntry {
    const millis = this.columns.tsMillis[index]!;
    return this.resultOf(index, {
      eventId: this.columns.eventIds[index]!,
      line: this.columns.lines[index]!,
      step: this.step(index),
      ts: Number.isNaN(millis) ? (this.tsTexts.get(index) ?? null) : millis,
    });
  }

  private resultOf(index: number, base: EntryBase): ResultEntry {
    const r = this.rows.results;
    const row = this.columns.details[index]!;
    const flags = r.flags.get(row);
    return {
      ...base,
      kind: 'result',
      callId: r.callId[row]!,
      name: r.name[row]!,
      ok: (flags & OK) !== 0,
      errorCode: r.errorCodes.get(row) ?? null,
      errorLine: r.errorLines.get(row) ?? null,
      resultHash: r.resultHash.get(row),
      progress: (flags & PROGRESS_LOGGED) === 0 ? null : (flags & PROGRESS) !== 0,
    };
  }

  *[Symbol.iterator](): Generator<TimelineEntry> {
    for (let index = 0; index < this.length; index += 1) yield this.at(index)!;
  }
}

/**
 * Takes a run's entries one at a time, in log order, into columns, and its calls at the end
 * (`build`). The one way a timeline is made: the engine's assembler and the tests' builder use it.
 * A stream fragment is added as a response without outcome, set when its stream closes
 * (`setOutcome`); one whose stream never closes is no entry.
 */
export class TimelineEntriesBuilder {
  private length = 0;
  private columns: EntryColumns = {
    kinds: new Uint8Array(FIRST_CAPACITY),
    eventIds: new Float64Array(FIRST_CAPACITY),
    lines: new Float64Array(FIRST_CAPACITY),
    steps: new Float64Array(FIRST_CAPACITY),
    tsMillis: new Float64Array(FIRST_CAPACITY),
    details: new Int32Array(FIRST_CAPACITY),
  };
  private readonly tsTexts = new Map<number, string>();
  private readonly rows: KindRows = {
    responses: { outcome: [], finishReason: [], incompleteReason: [], streamed: [], inputTokens: [], outputTokens: [], costUsd: [], apiErrors: new Map() },
    executions: [],
    results: { callId: [], name: [], flags: new NumberColumn(Uint8Array), errorCodes: new Map(), errorLines: new Map(), resultHash: new HashColumn() },
    notExecuted: { callId: [], reason: [] },
    runEnds: [],
  };
  /** Responses without outcome: fragments whose stream has not closed (yet). */
  private openFragments = 0;

  /** Entries added so far (stream fragments included). */
  get size(): number {
    return this.length;
  }

  /**
   * Adds an entry (a response's `calls` are not read: calls come with `build`). A response with a
   * null outcome is a stream fragment; returns its response row, for `setOutcome`.
   */
  add(entry: TimelineEntry | (Omit<ResponseEntry, 'outcome'> & { outcome: ModelOutcome | null })): number {
    if (this.length === this.columns.kinds.length) this.resize(Math.max(FIRST_CAPACITY, this.length * 2));
    const at = this.length;
    const { columns, rows } = this;
    columns.kinds[at] = kindCode[entry.kind];
    columns.eventIds[at] = entry.eventId;
    columns.lines[at] = entry.line;
    columns.steps[at] = orNaN(entry.step);
    columns.tsMillis[at] = typeof entry.ts === 'number' ? entry.ts : Number.NaN;
    if (typeof entry.ts === 'string') this.tsTexts.set(at, entry.ts);
    let row: number;
    switch (entry.kind) {
      case 'response': {
        const r = rows.responses;
        row = r.outcome.push(entry.outcome) - 1;
        if (entry.outcome === null) this.openFragments += 1;
        r.finishReason.push(entry.finishReason);
        r.incompleteReason.push(entry.incompleteReason);
        r.streamed.push(entry.streamed);
        r.inputTokens.push(orNaN(entry.inputTokens));
        r.outputTokens.push(orNaN(entry.outputTokens));
        r.costUsd.push(orNaN(entry.costUsd));
        if (entry.apiError !== null) r.apiErrors.set(row, entry.apiError);
        break;
      }
      case 'execution':
        row = rows.executions.push(entry.callId) - 1;
        break;
      case 'result': {
        const r = rows.results;
        row = r.callId.push(entry.callId) - 1;
        r.name.push(entry.name);
        r.flags.push(resultFlags(entry.ok, entry.progress));
        if (entry.errorCode !== null) r.errorCodes.set(row, entry.errorCode);
        if (entry.errorLine !== null) r.errorLines.set(row, entry.errorLine);
        r.resultHash.push(entry.resultHash);
        break;
      }
      case 'not_executed':
        row = rows.notExecuted.callId.push(entry.callId) - 1;
        rows.notExecuted.reason.push(entry.reason);
        break;
      case 'run_end':
        row = rows.runEnds.push(entry.statusRaw) - 1;
        break;
    }
    columns.details[at] = row;
    this.length += 1;
    return row;
  }

  /** A stream fragment's stream closed on it: it is a response with this outcome. */
  setOutcome(responseRow: number, outcome: ModelOutcome, finishReason: string | null): void {
    const r = this.rows.responses;
    if (r.outcome[responseRow] === null) this.openFragments -= 1;
    r.outcome[responseRow] = outcome;
    r.finishReason[responseRow] = finishReason;
  }

  /**
   * The entries so far, with their calls (listed in the order responses list them: by response
   * event id, then position). The builder can take more entries and calls afterwards (a followed
   * run), and build again.
   */
  build(calls: CallColumns): TimelineEntries {
    // Cut to size, and shared with the entries built: a run that ended keeps one copy of its columns.
    if (this.columns.kinds.length !== this.length) this.resize(this.length);
    this.rows.results.flags.trim();
    this.rows.results.resultHash.trim();
    let { columns } = this;
    let length = this.length;
    let tsTexts: ReadonlyMap<number, string> = this.tsTexts;
    if (this.openFragments > 0) ({ columns, length, tsTexts } = this.withoutOpenFragments());
    const order = calls.responseOrder();
    const rowAt = (at: number): number => (order === null ? at : order[at]!);
    const responseRows = this.rows.responses.outcome.length;
    const callRanges = new Int32Array(2 * responseRows);
    // Responses come in event id order, and so do the calls: one walk finds each response's calls.
    let next = 0;
    let attached = 0;
    for (let index = 0; index < length; index += 1) {
      if (columns.kinds[index] !== kindCode.response) continue;
      const eventId = columns.eventIds[index]!;
      const row = columns.details[index]!;
      while (next < calls.length && calls.eventId(rowAt(next)) < eventId) next += 1;
      callRanges[2 * row] = next;
      while (next < calls.length && calls.eventId(rowAt(next)) === eventId) next += 1;
      callRanges[2 * row + 1] = next;
      attached += next - callRanges[2 * row]!;
    }
    const listed = attached === calls.length ? new TimelineCalls(calls.length, calls, order) : this.attachedOnly(calls, rowAt, columns, length, callRanges);
    return new TimelineEntries(length, columns, tsTexts, this.rows, listed, callRanges);
  }

  /** The calls of the responses among the entries (a call of no response is no call of the run), with `callRanges` moved onto them. */
  private attachedOnly(calls: CallColumns, rowAt: (at: number) => number, columns: EntryColumns, length: number, callRanges: Int32Array): TimelineCalls {
    const listed: number[] = [];
    for (let index = 0; index < length; index += 1) {
      if (columns.kinds[index] !== kindCode.response) continue;
      const row = columns.details[index]!;
      const [from, to] = [callRanges[2 * row]!, callRanges[2 * row + 1]!];
      callRanges[2 * row] = listed.length;
      for (let at = from; at < to; at += 1) listed.push(rowAt(at));
      callRanges[2 * row + 1] = listed.length;
    }
    return new TimelineCalls(listed.length, calls, Int32Array.from(listed));
  }

  private resize(capacity: number): void {
    const c = this.columns;
    this.columns = {
      kinds: grown(c.kinds, capacity),
      eventIds: grown(c.eventIds, capacity),
      lines: grown(c.lines, capacity),
      steps: grown(c.steps, capacity),
      tsMillis: grown(c.tsMillis, capacity),
      details: grown(c.details, capacity),
    };
  }

  /** A copy of the columns without the fragments that close no stream, for a build while some are open. */
  private withoutOpenFragments(): { columns: EntryColumns; length: number; tsTexts: ReadonlyMap<number, string> } {
    const c = this.columns;
    const kept: number[] = [];
    for (let index = 0; index < this.length; index += 1) {
      if (c.kinds[index] !== kindCode.response || this.rows.responses.outcome[c.details[index]!] !== null) kept.push(index);
    }
    const pick = <T extends Uint8Array | Float64Array | Int32Array>(column: T): T => {
      const picked = new (column.constructor as new (length: number) => T)(kept.length);
      kept.forEach((from, to) => (picked[to] = column[from]!));
      return picked;
    };
    const tsTexts = new Map<number, string>();
    kept.forEach((from, to) => {
      const text = this.tsTexts.get(from);
      if (text !== undefined) tsTexts.set(to, text);
    });
    const columns = {
      kinds: pick(c.kinds),
      eventIds: pick(c.eventIds),
      lines: pick(c.lines),
      steps: pick(c.steps),
      tsMillis: pick(c.tsMillis),
      details: pick(c.details),
    };
    return { columns, length: kept.length, tsTexts };
  }
}

/** Position of the run's terminal event (or unlifted pause) among the entries; -1 when there is none. */
export function endIndex(timeline: RunTimeline): number {
  const { entries } = timeline;
  for (let index = 0; index < entries.length; index += 1) if (entries.eventId(index) === timeline.endEventId) return index;
  return -1;
}

/**
 * The run's responses, then the calls they list, walked rather than copied: on a long run each
 * copy is a list of hundreds of thousands, and several analyses ask for them.
 */
export function* responses(timeline: RunTimeline): Generator<ResponseEntry> {
  const { entries } = timeline;
  for (let index = 0; index < entries.length; index += 1) if (entries.kind(index) === 'response') yield entries.at(index) as ResponseEntry;
}

export function issuedCalls(timeline: RunTimeline): TimelineCalls {
  return timeline.entries.calls;
}

/** The last response at or before the entry at `index`; undefined when there is none. */
export function lastResponseUpTo(timeline: RunTimeline, index: number): ResponseEntry | undefined {
  for (let at = index; at >= 0; at -= 1) {
    if (timeline.entries.kind(at) === 'response') return timeline.entries.at(at) as ResponseEntry;
  }
  return undefined;
}

/** The run's last step (never below 0), null when no entry has one: what a finding says the run ended at. */
export function lastStepOf(timeline: RunTimeline): number | null {
  const { entries } = timeline;
  let lastStep: number | null = null;
  for (let index = 0; index < entries.length; index += 1) {
    const step = entries.step(index);
    if (step !== null) lastStep = Math.max(lastStep ?? 0, step);
  }
  return lastStep;
}

export function describeCall(call: Pick<TimelineCall, 'name' | 'callId' | 'step'>): string {
  return `call ${call.name} (${call.callId}${call.step !== null ? `, step ${call.step}` : ''})`;
}
