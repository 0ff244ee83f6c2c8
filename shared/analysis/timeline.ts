/**
 * The compact, ordered view of one run that every analysis reads: what the store keeps of each
 * event, without payloads. Entries are in file order, which is the order the loop logged them.
 */
import type { ApiErrorFacts, Budgets, ModelOutcome } from '../trace/canonicalEvents';
import type { RunStatus } from '../trace/runStatus';
import type { CompactTimestamp } from '../trace/timestamps';

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
  entries: TimelineEntry[];
}

/** Position of the run's terminal event (or unlifted pause) among the entries; -1 when there is none. */
export function endIndex(timeline: RunTimeline): number {
  return timeline.entries.findIndex((entry) => entry.eventId === timeline.endEventId);
}

/**
 * The run's responses, then the calls they list, walked rather than copied: on a long run each
 * copy is a list of hundreds of thousands, and several analyses ask for them.
 */
export function* responses(timeline: RunTimeline): Generator<ResponseEntry> {
  for (const entry of timeline.entries) if (entry.kind === 'response') yield entry;
}

export function* issuedCalls(timeline: RunTimeline): Generator<TimelineCall> {
  for (const response of responses(timeline)) yield* response.calls;
}

/** The last response at or before the entry at `index`; undefined when there is none. */
export function lastResponseUpTo(timeline: RunTimeline, index: number): ResponseEntry | undefined {
  for (let at = index; at >= 0; at -= 1) {
    const entry = timeline.entries[at]!;
    if (entry.kind === 'response') return entry;
  }
  return undefined;
}

export function describeCall(call: Pick<TimelineCall, 'name' | 'callId' | 'step'>): string {
  return `call ${call.name} (${call.callId}${call.step !== null ? `, step ${call.step}` : ''})`;
}
