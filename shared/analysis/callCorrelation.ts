/**
 * Exactly one result per call (docs/semantics.md §4): pairs every issued call with its result by
 * `call_id` within the run, in log order, and reports every way that pairing can fail.
 *
 * Calls of a response whose outcome is not `tool_calls` (a broken stream, a truncated response)
 * were never legitimately issued, so they owe no result; `invalid_arguments` speaks for them.
 */
import type { Finding } from '../report';
import { isOngoingStatus } from '../trace/runStatus';
import { finding, runEnding } from './finding';
import { describeCall, lastStepOf, type RunTimeline, type TimelineCall, type TimelineEntry } from './timeline';

export type CallState = 'ok' | 'error' | 'dangling' | 'unexecuted' | 'pending' | 'not_issued';
const callStates: readonly CallState[] = ['ok', 'error', 'dangling', 'unexecuted', 'pending', 'not_issued'];
const stateCode: Record<CallState, number> = { ok: 0, error: 1, dangling: 2, unexecuted: 3, pending: 4, not_issued: 5 };

/** How one call was answered (CallResolutions.at). */
export interface CallResolution {
  call: TimelineCall;
  state: CallState;
  /** The result or not-executed event that answered the call. */
  answerEventId: number | null;
  /**
   * Where the result matched to the call is among the entries, for analyses that need both (tool
   * errors, repetition); null for a not-executed mark or no answer.
   */
  resultIndex: number | null;
}

/**
 * How each call of the run was answered, by the call's position among the timeline's calls: a long
 * run issues hundreds of thousands, so no object per call (`at` makes one).
 */
export class CallResolutions implements Iterable<CallResolution> {
  private readonly states: Uint8Array;
  /** NaN for none. */
  private readonly answerEventIds: Float64Array;
  /** -1 for none. */
  private readonly resultIndexes: Int32Array;

  constructor(private readonly timeline: RunTimeline) {
    const { length } = timeline.entries.calls;
    this.states = new Uint8Array(length);
    this.answerEventIds = new Float64Array(length).fill(Number.NaN);
    this.resultIndexes = new Int32Array(length).fill(-1);
  }

  get length(): number {
    return this.states.length;
  }

  state(call: number): CallState {
    return callStates[this.states[call]!]!;
  }

  answerEventId(call: number): number | null {
    const id = this.answerEventIds[call]!;
    return Number.isNaN(id) ? null : id;
  }

  resultIndex(call: number): number | null {
    const index = this.resultIndexes[call]!;
    return index === -1 ? null : index;
  }

  setState(call: number, state: CallState): void {
    this.states[call] = stateCode[state];
  }

  /** The call's answer: the event that answered it, and that result's position among the entries when the answer is a result. */
  setAnswer(call: number, answerEventId: number, resultIndex: number | null): void {
    this.answerEventIds[call] = answerEventId;
    if (resultIndex !== null) this.resultIndexes[call] = resultIndex;
  }

  at(call: number): CallResolution {
    return {
      call: this.timeline.entries.calls.at(call),
      state: this.state(call),
      answerEventId: this.answerEventId(call),
      resultIndex: this.resultIndex(call),
    };
  }

  *[Symbol.iterator](): Generator<CallResolution> {
    for (let call = 0; call < this.length; call += 1) yield this.at(call);
  }
}

export interface CorrelationOutcome {
  findings: Finding[];
  /** One per call of every response, in the order responses list them (issuedCalls). */
  resolutions: CallResolutions;
}

type Answer = Extract<TimelineEntry, { kind: 'result' | 'not_executed' }>;
/** An answer with its position among the entries. */
interface PlacedAnswer {
  entry: Answer;
  index: number;
}

/**
 * What the passes over the run share: what they found so far, and the calls still owed an
 * answer. Calls are held by position (issuedCalls), as the resolutions are.
 */
interface Pairing {
  timeline: RunTimeline;
  findings: Finding[];
  /** Each starts as `pending` (or `not_issued`) and is settled in place. */
  resolutions: CallResolutions;
  /** Issued calls not answered yet, by call_id, the earliest first; a call_id leaves once all its calls are answered. */
  unanswered: Map<string, Unanswered>;
  /** The latest call issued with each call_id. */
  issuedSoFar: Map<string, number>;
  /** Calls of responses whose outcome is not `tool_calls`, by call_id: they owe no result. */
  notIssued: Map<string, number>;
}

export function correlateCalls(timeline: RunTimeline): CorrelationOutcome {
  const pairing: Pairing = {
    timeline,
    findings: [],
    resolutions: new CallResolutions(timeline),
    unanswered: new Map(),
    issuedSoFar: new Map(),
    notIssued: new Map(),
  };
  const answeredBeforeIssue = pairInLogOrder(pairing);
  pairAnswersBeforeTheirCall(pairing, answeredBeforeIssue);
  resolveUnanswered(pairing, lastStepOf(timeline));
  return { findings: pairing.findings, resolutions: pairing.resolutions };
}

/**
 * The unanswered calls of one call_id, the earliest first: almost always one, kept as is (a long
 * run would otherwise make a list for every call it issues).
 */
type Unanswered = number | number[];

function queueOf(unanswered: Unanswered): number[] {
  return Array.isArray(unanswered) ? unanswered : [unanswered];
}

/** The earliest unanswered call with this call_id, taken off its queue. */
function takeUnanswered(unanswered: Map<string, Unanswered>, callId: string): number | undefined {
  const waiting = unanswered.get(callId);
  if (waiting === undefined) return undefined;
  if (!Array.isArray(waiting)) {
    unanswered.delete(callId);
    return waiting;
  }
  const earliest = waiting.shift();
  if (waiting.length === 1) unanswered.set(callId, waiting[0]!);
  return earliest;
}

/**
 * The pass in log order: each response issues its calls, each result or not-executed mark answers
 * the earliest unanswered call with its call_id. Returns the answers whose call was not issued yet.
 */
function pairInLogOrder(pairing: Pairing): PlacedAnswer[] {
  const { timeline, findings, unanswered, issuedSoFar } = pairing;
  const { entries } = timeline;
  const answeredBeforeIssue: PlacedAnswer[] = [];
  for (let index = 0; index < entries.length; index += 1) {
    const kind = entries.kind(index);
    if (kind === 'response') {
      issueCalls(pairing, index);
      continue;
    }
    if (kind !== 'result' && kind !== 'not_executed') continue;
    const entry = entries.at(index) as Answer;
    const pending = takeUnanswered(unanswered, entry.callId);
    if (pending !== undefined) {
      answer(pairing, pending, { entry, index });
      continue;
    }
    const issued = issuedSoFar.get(entry.callId);
    if (issued === undefined) {
      answeredBeforeIssue.push({ entry, index });
      continue;
    }
    const what = entry.kind === 'result' ? 'a second result' : 'a not-executed mark';
    const call = entries.calls.at(issued);
    findings.push(
      finding(timeline, 'duplicate_result', {
        severity: 'error',
        step: call.step,
        callId: entry.callId,
        line: entry.line,
        message: `${describeCall(call)} received ${what} at line ${entry.line}; exactly one result per call is expected`,
        details: { call_line: call.line },
      }),
    );
  }
  return answeredBeforeIssue;
}

/** The calls of the response at `index`: owed a result when the response asked for tools, and a call_id used twice is a finding. */
function issueCalls(pairing: Pairing, index: number): void {
  const { timeline, findings, resolutions, unanswered, issuedSoFar, notIssued } = pairing;
  const { entries } = timeline;
  const { calls } = entries;
  const issuing = entries.outcome(index) === 'tool_calls';
  for (let at = entries.callsFrom(index); at < entries.callsTo(index); at += 1) {
    const callId = calls.callId(at);
    resolutions.setState(at, issuing ? 'pending' : 'not_issued');
    if (!issuing) {
      notIssued.set(callId, at);
      continue;
    }
    const earlier = issuedSoFar.get(callId);
    if (earlier !== undefined) {
      const [first, second] = [calls.at(earlier), calls.at(at)];
      findings.push(
        finding(timeline, 'duplicate_call_id', {
          severity: 'error',
          step: second.step,
          callId,
          line: second.line,
          message: `call_id ${callId} was issued twice: ${first.name} at step ${first.step ?? '?'} (line ${first.line}) and ${second.name} at step ${second.step ?? '?'} (line ${second.line}); results cannot be told apart`,
          details: { first_line: first.line, second_line: second.line },
        }),
      );
    }
    issuedSoFar.set(callId, at);
    const waiting = unanswered.get(callId);
    unanswered.set(callId, waiting === undefined ? at : [...queueOf(waiting), at]);
  }
}

/** A call answered: by a result (ok or error), or by a not-executed mark, which is a finding. */
function answer(pairing: Pairing, call: number, { entry, index }: PlacedAnswer): void {
  const { resolutions } = pairing;
  resolutions.setState(call, entry.kind === 'not_executed' ? 'unexecuted' : entry.ok ? 'ok' : 'error');
  resolutions.setAnswer(call, entry.eventId, entry.kind === 'result' ? index : null);
  if (entry.kind === 'not_executed') {
    const issued = pairing.timeline.entries.calls.at(call);
    pairing.findings.push(
      finding(pairing.timeline, 'unexecuted_call', {
        severity: 'warning',
        step: issued.step,
        callId: issued.callId,
        line: entry.line,
        message: `${describeCall(issued)} was not executed${entry.reason ? `: ${entry.reason}` : ''}; the loop marked it instead of leaving it dangling`,
      }),
    );
  }
}

/** Answers logged before any call with their call_id: an incomplete response's call, a call issued later (out of order), or none (an orphan). */
function pairAnswersBeforeTheirCall(pairing: Pairing, answeredBeforeIssue: readonly PlacedAnswer[]): void {
  const { timeline, findings, unanswered, notIssued } = pairing;
  for (const placed of answeredBeforeIssue) {
    const { entry } = placed;
    // A call from an incomplete response that was answered anyway: the response's own finding
    // (truncated, broken stream) says what went wrong; the result is not an orphan.
    const fromIncomplete = notIssued.get(entry.callId);
    if (fromIncomplete !== undefined && !unanswered.has(entry.callId)) {
      answer(pairing, fromIncomplete, placed);
      continue;
    }
    const laterCall = takeUnanswered(unanswered, entry.callId);
    if (laterCall !== undefined) {
      const later = timeline.entries.calls.at(laterCall);
      answer(pairing, laterCall, placed);
      findings.push(
        finding(timeline, 'out_of_order_result', {
          severity: 'warning',
          step: later.step,
          callId: entry.callId,
          line: entry.line,
          message: `the result for ${describeCall(later)} was logged at line ${entry.line}, before the call itself (line ${later.line})`,
          details: { call_line: later.line },
        }),
      );
      continue;
    }
    const mark = entry.kind === 'result' ? `tool result${entry.name ? ` from ${entry.name}` : ''}` : 'not-executed mark';
    findings.push(
      finding(timeline, 'orphan_result', {
        severity: 'error',
        step: entry.step,
        callId: entry.callId,
        line: entry.line,
        message: `${mark} at line ${entry.line} answers call_id ${entry.callId}, which no model response in this run issued`,
      }),
    );
  }
}

/** Calls no answer reached: pending while the run is still going, dangling (a finding) once it ended. */
function resolveUnanswered(pairing: Pairing, lastStep: number | null): void {
  const { timeline, findings, resolutions, unanswered } = pairing;
  // Still running, a call is pending as issued; once the run ended, it dangles (a finding).
  if (isOngoingStatus(timeline.status)) return;
  for (const waiting of unanswered.values()) {
    for (const at of queueOf(waiting)) {
      const call = timeline.entries.calls.at(at);
      resolutions.setState(at, 'dangling');
      findings.push(
        finding(timeline, 'dangling_call', {
          severity: 'error',
          step: call.step,
          callId: call.callId,
          line: call.line,
          message: `${describeCall(call)} never received a result; ${runEnding(timeline, lastStep)}`,
        }),
      );
    }
  }
}
