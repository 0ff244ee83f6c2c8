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
import { describeCall, issuedCalls, type ResultEntry, type RunTimeline, type TimelineCall, type TimelineEntry } from './timeline';

export type CallState = 'ok' | 'error' | 'dangling' | 'unexecuted' | 'pending' | 'not_issued';

export interface CallResolution {
  call: TimelineCall;
  state: CallState;
  /** The result or not-executed event that answered the call. */
  answerEventId: number | null;
}

export interface CorrelationOutcome {
  findings: Finding[];
  resolutions: CallResolution[];
  /** Results matched to their call, for analyses that need both (tool errors, repetition). */
  resultOf: Map<TimelineCall, ResultEntry>;
}

type Answer = Extract<TimelineEntry, { kind: 'result' | 'not_executed' }>;
type Response = Extract<TimelineEntry, { kind: 'response' }>;

/** What the passes over the run share: what they found so far, and the calls still owed an answer. */
interface Pairing {
  timeline: RunTimeline;
  findings: Finding[];
  resolutions: Map<TimelineCall, CallResolution>;
  resultOf: Map<TimelineCall, ResultEntry>;
  /** Issued calls not answered yet, by call_id, the earliest first. */
  unanswered: Map<string, TimelineCall[]>;
  /** The latest call issued with each call_id. */
  issuedSoFar: Map<string, TimelineCall>;
  /** Calls of responses whose outcome is not `tool_calls`, by call_id: they owe no result. */
  notIssued: Map<string, TimelineCall>;
}

export function correlateCalls(timeline: RunTimeline): CorrelationOutcome {
  const pairing: Pairing = {
    timeline,
    findings: [],
    resolutions: new Map(),
    resultOf: new Map(),
    unanswered: new Map(),
    issuedSoFar: new Map(),
    notIssued: new Map(),
  };
  const answeredBeforeIssue = pairInLogOrder(pairing);
  pairAnswersBeforeTheirCall(pairing, answeredBeforeIssue);
  resolveUnanswered(pairing, lastStepOf(timeline));
  // Every call got its resolution above: not issued, answered, or still unanswered.
  return { findings: pairing.findings, resolutions: issuedCalls(timeline).map((call) => pairing.resolutions.get(call)!), resultOf: pairing.resultOf };
}

/**
 * The pass in log order: each response issues its calls, each result or not-executed mark answers
 * the earliest unanswered call with its call_id. Returns the answers whose call was not issued yet.
 */
function pairInLogOrder(pairing: Pairing): Answer[] {
  const { timeline, findings, unanswered, issuedSoFar } = pairing;
  const answeredBeforeIssue: Answer[] = [];
  for (const entry of timeline.entries) {
    if (entry.kind === 'response') {
      issueCalls(pairing, entry);
      continue;
    }
    if (entry.kind !== 'result' && entry.kind !== 'not_executed') continue;
    const pending = unanswered.get(entry.callId)?.shift();
    if (pending !== undefined) {
      answer(pairing, pending, entry);
      continue;
    }
    const issued = issuedSoFar.get(entry.callId);
    if (issued === undefined) {
      answeredBeforeIssue.push(entry);
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
    if (response.outcome !== 'tool_calls') {
      resolutions.set(call, { call, state: 'not_issued', answerEventId: null });
      notIssued.set(call.callId, call);
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
    const queue = unanswered.get(call.callId) ?? [];
    queue.push(call);
    unanswered.set(call.callId, queue);
  }
}

/** A call answered: by a result (ok or error), or by a not-executed mark, which is a finding. */
function answer(pairing: Pairing, call: TimelineCall, entry: Answer): void {
  const state: CallState = entry.kind === 'not_executed' ? 'unexecuted' : entry.ok ? 'ok' : 'error';
  pairing.resolutions.set(call, { call, state, answerEventId: entry.eventId });
  if (entry.kind === 'result') pairing.resultOf.set(call, entry);
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
function pairAnswersBeforeTheirCall(pairing: Pairing, answeredBeforeIssue: readonly Answer[]): void {
  const { timeline, findings, unanswered, notIssued } = pairing;
  for (const entry of answeredBeforeIssue) {
    // A call from an incomplete response that was answered anyway: the response's own finding
    // (truncated, broken stream) says what went wrong; the result is not an orphan.
    const fromIncomplete = notIssued.get(entry.callId);
    if (fromIncomplete !== undefined && !unanswered.get(entry.callId)?.length) {
      answer(pairing, fromIncomplete, entry);
      continue;
    }
    const later = unanswered.get(entry.callId)?.shift();
    if (later !== undefined) {
      answer(pairing, later, entry);
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
  const stillRunning = isOngoingStatus(timeline.status);
  for (const queue of unanswered.values()) {
    for (const call of queue) {
      if (stillRunning) {
        resolutions.set(call, { call, state: 'pending', answerEventId: null });
        continue;
      }
      resolutions.set(call, { call, state: 'dangling', answerEventId: null });
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

/** The run's last step (never below 0), null when no entry has one: what a dangling call's message says the run ended at. */
function lastStepOf(timeline: RunTimeline): number | null {
  let lastStep: number | null = null;
  for (const entry of timeline.entries) if (entry.step !== null) lastStep = Math.max(lastStep ?? 0, entry.step);
  return lastStep;
}
