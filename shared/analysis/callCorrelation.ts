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

export interface CallResolution {
  call: TimelineCall;
  state: CallState;
  /** The result or not-executed event that answered the call. */
  answerEventId: number | null;
  /**
   * Where the result matched to the call is among the entries, for analyses that need both (tool
   * errors, repetition); null for a not-executed mark or no answer. A position, not the entry: an
   * entry held per call would be an object per call again (timeline.ts).
   */
  resultIndex: number | null;
}

export interface CorrelationOutcome {
  findings: Finding[];
  /**
   * One per call of every response, in the order responses list them (issuedCalls). A long run
   * issues hundreds of thousands of calls, so the resolutions are the only per-call record: no
   * map from call to resolution or to result beside them.
   */
  resolutions: CallResolution[];
}

type Answer = Extract<TimelineEntry, { kind: 'result' | 'not_executed' }>;
/** An answer with its position among the entries. */
interface PlacedAnswer {
  entry: Answer;
  index: number;
}
type Response = Extract<TimelineEntry, { kind: 'response' }>;

/** What the passes over the run share: what they found so far, and the calls still owed an answer. */
interface Pairing {
  timeline: RunTimeline;
  findings: Finding[];
  /** In issue order; each starts as `pending` (or `not_issued`) and is settled in place. */
  resolutions: CallResolution[];
  /** Issued calls not answered yet, by call_id, the earliest first; a call_id leaves once all its calls are answered. */
  unanswered: Map<string, Unanswered>;
  /** The latest call issued with each call_id. */
  issuedSoFar: Map<string, TimelineCall>;
  /** Calls of responses whose outcome is not `tool_calls`, by call_id: they owe no result. */
  notIssued: Map<string, CallResolution>;
}

export function correlateCalls(timeline: RunTimeline): CorrelationOutcome {
  const pairing: Pairing = {
    timeline,
    findings: [],
    resolutions: [],
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
type Unanswered = CallResolution | CallResolution[];

function queueOf(unanswered: Unanswered): CallResolution[] {
  return Array.isArray(unanswered) ? unanswered : [unanswered];
}

/** The earliest unanswered call with this call_id, taken off its queue. */
function takeUnanswered(unanswered: Map<string, Unanswered>, callId: string): CallResolution | undefined {
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
  const answeredBeforeIssue: PlacedAnswer[] = [];
  let index = -1;
  for (const entry of timeline.entries) {
    index += 1;
    if (entry.kind === 'response') {
      issueCalls(pairing, entry);
      continue;
    }
    if (entry.kind !== 'result' && entry.kind !== 'not_executed') continue;
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
    findings.push(
      finding(timeline, 'duplicate_result', {
        severity: 'error',
        step: issued.step,
        callId: entry.callId,
        line: entry.line,
        message: `${describeCall(issued)} received ${what} at line ${entry.line}; exactly one result per call is expected`,
        details: { call_line: issued.line },
      }),
    );
  }
  return answeredBeforeIssue;
}

/** A response's calls: owed a result when the response asked for tools, and a call_id used twice is a finding. */
function issueCalls(pairing: Pairing, response: Response): void {
  const { timeline, findings, resolutions, unanswered, issuedSoFar, notIssued } = pairing;
  for (const call of response.calls) {
    const resolution: CallResolution = { call, state: response.outcome === 'tool_calls' ? 'pending' : 'not_issued', answerEventId: null, resultIndex: null };
    resolutions.push(resolution);
    if (response.outcome !== 'tool_calls') {
      notIssued.set(call.callId, resolution);
      continue;
    }
    const earlier = issuedSoFar.get(call.callId);
    if (earlier !== undefined) {
      findings.push(
        finding(timeline, 'duplicate_call_id', {
          severity: 'error',
          step: call.step,
          callId: call.callId,
          line: call.line,
          message: `call_id ${call.callId} was issued twice: ${earlier.name} at step ${earlier.step ?? '?'} (line ${earlier.line}) and ${call.name} at step ${call.step ?? '?'} (line ${call.line}); results cannot be told apart`,
          details: { first_line: earlier.line, second_line: call.line },
        }),
      );
    }
    issuedSoFar.set(call.callId, call);
    const waiting = unanswered.get(call.callId);
    unanswered.set(call.callId, waiting === undefined ? resolution : [...queueOf(waiting), resolution]);
  }
}

/** A call answered: by a result (ok or error), or by a not-executed mark, which is a finding. */
function answer(pairing: Pairing, resolution: CallResolution, { entry, index }: PlacedAnswer): void {
  const { call } = resolution;
  resolution.state = entry.kind === 'not_executed' ? 'unexecuted' : entry.ok ? 'ok' : 'error';
  resolution.answerEventId = entry.eventId;
  if (entry.kind === 'result') resolution.resultIndex = index;
  else {
    pairing.findings.push(
      finding(pairing.timeline, 'unexecuted_call', {
        severity: 'warning',
        step: call.step,
        callId: call.callId,
        line: entry.line,
        message: `${describeCall(call)} was not executed${entry.reason ? `: ${entry.reason}` : ''}; the loop marked it instead of leaving it dangling`,
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
    const laterResolution = takeUnanswered(unanswered, entry.callId);
    if (laterResolution !== undefined) {
      const later = laterResolution.call;
      answer(pairing, laterResolution, placed);
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
  const { timeline, findings, unanswered } = pairing;
  // Still running, a call is pending as issued; once the run ended, it dangles (a finding).
  if (isOngoingStatus(timeline.status)) return;
  for (const waiting of unanswered.values()) {
    for (const resolution of queueOf(waiting)) {
      const { call } = resolution;
      resolution.state = 'dangling';
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
