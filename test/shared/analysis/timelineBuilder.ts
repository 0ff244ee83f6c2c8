/**
 * Builds RunTimeline objects tersely for the analysis tests.
 *
 * Line 1 is the run's start; every entry takes the next line, in the order it is added, and the
 * calls of a response share its line. Steps of responses count up from 1 unless given; results,
 * executions and not-executed marks take the step of the call they answer. A run whose status is
 * not `unterminated` gets a `run_end` entry at the end unless one was added explicitly. The run's
 * status is taken from its first `end()` (as ingest does, docs/semantics.md §2); a `pause()` is a
 * run_end the run went on after.
 *
 *   const t = run({ status: 'succeeded' })
 *     .toolCalls({ id: 'c1', name: 'read_file', args: { path: 'a.txt' } })
 *     .result('c1', { hash: 'r1' })
 *     .final()
 *     .build();
 */
import {
  CallColumns,
  TimelineEntriesBuilder,
  type RunTimeline,
  type TimelineCall,
  type TimelineEntries,
  type TimelineEntry,
} from '../../../shared/analysis/timeline';
import type { ApiErrorFacts, Budgets, ModelOutcome } from '../../../shared/trace/canonicalEvents';
import { canonicalJson } from '../../../shared/trace/canonicalJson';
import type { RunStatus } from '../../../shared/trace/runStatus';

export interface CallSpec {
  id: string;
  /** Default `search`. */
  name?: string;
  /** Hashed with canonicalJson, so key order does not matter; default `{}`. */
  args?: unknown;
  /** Sets argsHash to null, as the engine does for arguments that did not parse. */
  argsError?: string;
}

export interface ResponseSpec {
  /** Default: `tool_calls` when there are calls, `final` otherwise. */
  outcome?: ModelOutcome;
  /** Default by outcome: tool_calls, stop, refusal, length. */
  finishReason?: string | null;
  calls?: CallSpec[];
  step?: number | null;
  inputTokens?: number | null;
  outputTokens?: number | null;
  costUsd?: number | null;
  ts?: string | null;
  /** The provider refused the call. */
  apiError?: ApiErrorFacts | null;
  incompleteReason?: string | null;
  /** Assembled from stream fragments rather than logged as a model_response. */
  streamed?: boolean;
  /** The run's terminal output repeats this response's text. */
  repeatedByOutput?: boolean;
}

export interface ResultSpec {
  ok?: boolean;
  errorCode?: string | null;
  /** Of a failed result: the line that says why. */
  errorLine?: string | null;
  hash?: string | null;
  progress?: boolean | null;
  /** Default: the name of the call it answers. */
  name?: string | null;
  step?: number | null;
}

export interface RunSpec {
  runId?: string;
  status?: RunStatus;
  /** Default: the status itself ('' for unterminated). */
  statusRaw?: string;
  endLimit?: string | null;
  budgets?: Budgets | null;
  startedAt?: string | null;
  endedAt?: string | null;
  /** Whether the run logged a run_start (default true). */
  started?: boolean;
}

const defaultFinishReason: Readonly<Record<ModelOutcome, string>> = {
  tool_calls: 'tool_calls',
  final: 'stop',
  refusal: 'refusal',
  incomplete: 'length',
};

export class TimelineBuilder {
  private readonly entries: TimelineEntry[] = [];
  private readonly calls: TimelineCall[] = [];
  private line = 1;
  private eventId = 0;
  private lastStep = 0;
  private endEventId: number | null = null;
  private outputEventId: number | null = null;

  constructor(private readonly spec: RunSpec) {}

  response(spec: ResponseSpec = {}): this {
    const calls = spec.calls ?? [];
    const outcome = spec.outcome ?? (calls.length > 0 ? 'tool_calls' : 'final');
    const step = spec.step === undefined ? this.lastStep + 1 : spec.step;
    if (step !== null) this.lastStep = step;
    const base = this.next(step, spec.ts ?? null);
    const timelineCalls = calls.map((call, index): TimelineCall => {
      const args = call.args ?? {};
      return {
        callId: call.id,
        name: call.name ?? 'search',
        argsHash: call.argsError !== undefined ? null : canonicalJson(args),
        argsError: call.argsError ?? null,
        argsSummary: canonicalJson(args),
        step,
        line: base.line,
        eventId: base.eventId,
        index,
      };
    });
    this.calls.push(...timelineCalls);
    if (spec.repeatedByOutput === true) this.outputEventId = base.eventId;
    this.entries.push({
      ...base,
      kind: 'response',
      outcome,
      finishReason: spec.finishReason === undefined ? defaultFinishReason[outcome] : spec.finishReason,
      incompleteReason: spec.incompleteReason ?? null,
      streamed: spec.streamed ?? false,
      calls: timelineCalls,
      inputTokens: spec.inputTokens ?? null,
      outputTokens: spec.outputTokens ?? null,
      costUsd: spec.costUsd ?? null,
      apiError: spec.apiError ?? null,
    });
    return this;
  }

  /** A model call the provider refused: an incomplete response without finish reason, carrying the error. */
  apiError(status: number | null, type: string | null, message: string | null = null, spec: Omit<ResponseSpec, 'apiError' | 'outcome' | 'calls'> = {}): this {
    return this.response({ finishReason: null, ...spec, outcome: 'incomplete', apiError: { status, type, message } });
  }

  /** A response with outcome tool_calls carrying these calls. */
  toolCalls(...calls: CallSpec[]): this {
    return this.response({ calls });
  }

  /** A final answer. */
  final(spec: Omit<ResponseSpec, 'calls' | 'outcome'> = {}): this {
    return this.response({ ...spec, outcome: 'final' });
  }

  result(callId: string, spec: ResultSpec = {}): this {
    const call = this.callFor(callId);
    this.entries.push({
      ...this.next(spec.step === undefined ? this.stepFor(callId) : spec.step),
      kind: 'result',
      callId,
      name: spec.name === undefined ? (call?.name ?? null) : spec.name,
      ok: spec.ok ?? true,
      errorCode: spec.errorCode ?? null,
      errorLine: spec.errorLine ?? null,
      resultHash: spec.hash === undefined ? `result-of-${callId}` : spec.hash,
      progress: spec.progress ?? null,
    });
    return this;
  }

  /** An error result with this code. */
  error(callId: string, code: string | null, spec: Omit<ResultSpec, 'ok' | 'errorCode'> = {}): this {
    return this.result(callId, { ...spec, ok: false, errorCode: code });
  }

  /** A tool_call_start: the loop began executing the call. */
  execution(callId: string): this {
    this.entries.push({ ...this.next(this.stepFor(callId)), kind: 'execution', callId });
    return this;
  }

  notExecuted(callId: string, reason: string | null = null): this {
    this.entries.push({ ...this.next(this.stepFor(callId)), kind: 'not_executed', callId, reason });
    return this;
  }

  /** A run_end; the first one is where the run's status comes from. */
  end(spec: { statusRaw?: string | null; ts?: string | null } = {}): this {
    const entry: TimelineEntry = {
      ...this.next(null, spec.ts ?? null),
      kind: 'run_end',
      statusRaw: spec.statusRaw === undefined ? (this.spec.statusRaw ?? this.spec.status ?? 'succeeded') : spec.statusRaw,
    };
    this.entries.push(entry);
    this.endEventId ??= entry.eventId;
    return this;
  }

  /** A run_end with a paused status that later events lifted: not where the run's status comes from. */
  pause(statusRaw = 'waiting_for_input'): this {
    this.entries.push({ ...this.next(null), kind: 'run_end', statusRaw });
    return this;
  }

  build(): RunTimeline {
    const status = this.spec.status ?? 'succeeded';
    if (status !== 'unterminated' && this.endEventId === null) this.end();
    return {
      runId: this.spec.runId ?? 'run-1',
      status,
      statusRaw: this.spec.statusRaw ?? (status === 'unterminated' ? '' : status),
      endLimit: this.spec.endLimit ?? null,
      budgets: this.spec.budgets ?? null,
      startedAt: this.spec.startedAt ?? null,
      endedAt: this.spec.endedAt ?? null,
      firstLine: 1,
      lastLine: this.line,
      started: this.spec.started ?? true,
      endEventId: this.endEventId,
      outputEventId: this.outputEventId,
      entries: entriesOf(this.entries, this.calls),
    };
  }

  private next(step: number | null, ts: string | null = null): { eventId: number; line: number; step: number | null; ts: string | null } {
    this.line += 1;
    this.eventId += 1;
    return { eventId: this.eventId, line: this.line, step, ts };
  }

  private callFor(callId: string): TimelineCall | undefined {
    return this.calls.findLast((call) => call.callId === callId);
  }

  private stepFor(callId: string): number | null {
    return this.callFor(callId)?.step ?? (this.lastStep > 0 ? this.lastStep : null);
  }
}

export function run(spec: RunSpec = {}): TimelineBuilder {
  return new TimelineBuilder(spec);
}

/** The entries' columns, made as the engine makes them (calls in the order responses list them). */
function entriesOf(entries: readonly TimelineEntry[], calls: Iterable<TimelineCall>): TimelineEntries {
  const builder = new TimelineEntriesBuilder();
  for (const entry of entries) builder.add(entry);
  return builder.build(CallColumns.of(calls));
}

/** The timeline with its entries edited (a timestamp set after the fact, an entry added, a response's calls changed), made again from them. */
export function edited(timeline: RunTimeline, edit: (entries: TimelineEntry[]) => void): RunTimeline {
  const entries = [...timeline.entries];
  edit(entries);
  return {
    ...timeline,
    entries: entriesOf(
      entries,
      entries.flatMap((entry) => (entry.kind === 'response' ? entry.calls : [])),
    ),
  };
}

/** The nth call (0-based) issued with this call_id. */
export function callOf(timeline: RunTimeline, callId: string, nth = 0): TimelineCall {
  const call = [...timeline.entries.calls].filter((c) => c.callId === callId)[nth];
  if (call === undefined) throw new Error(`no call ${callId} #${nth} in the timeline`);
  return call;
}

/** Whether two call records stand for the same call (calls are made anew each time they are read). */
export function sameCall(a: TimelineCall, b: TimelineCall): boolean {
  return a.eventId === b.eventId && a.index === b.index;
}

/** The line of the nth entry (0-based) of this kind, optionally for one call_id. */
export function lineOf(timeline: RunTimeline, kind: TimelineEntry['kind'], callId?: string, nth = 0): number {
  const entry = [...timeline.entries].filter((e) => e.kind === kind && (callId === undefined || ('callId' in e && e.callId === callId)))[nth];
  if (entry === undefined) throw new Error(`no ${kind} entry${callId !== undefined ? ` for ${callId}` : ''} #${nth} in the timeline`);
  return entry.line;
}

/** The line of the nth response (0-based). */
export function responseLine(timeline: RunTimeline, nth: number): number {
  return lineOf(timeline, 'response', undefined, nth);
}
