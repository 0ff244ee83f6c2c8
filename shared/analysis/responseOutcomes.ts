/**
 * What each model response says about the loop (docs/semantics.md §1): a refusal, or a response
 * that is not whole — a dropped tool call, a cut-off text, a finish reason nobody knows, a stream
 * that broke. Each incomplete response gets one verdict saying why; acting on it is an error of
 * its own: executing one of its calls, or ending the run as a success on it.
 */
import type { Finding, FindingKind, Severity } from '../report';
import { isContentFilterFinishReason, isKnownFinishReason, isToolCallFinishReason, isTruncationFinishReason } from '../trace/modelOutcome';
import { claimsSuccess } from '../trace/runStatus';
import { describeCall, endIndex, lastResponseUpTo, responses, type ResponseEntry, type RunTimeline, type TimelineCall } from './timeline';
import { finding, runEnding } from './finding';

interface Incompleteness {
  kind: Extract<FindingKind, 'dropped_tool_call' | 'truncated_response' | 'unknown_finish_reason' | 'incomplete_response'>;
  severity: Severity;
  /** Why the response is not whole, as the end of a sentence about it. */
  cause: string;
}

function stepText(response: ResponseEntry): string {
  return `the model response at step ${response.step ?? '?'}`;
}

/**
 * The one verdict on an incomplete response, from the most telling sign down (docs/semantics.md
 * §1): a tool-call finish with no call, a truncation or filter, an unknown finish reason, then any
 * other incomplete outcome (a broken stream, the loop's own `incomplete`). A refusal is reported
 * as a refusal, not as incomplete.
 */
export function incompletenessOf(response: ResponseEntry): Incompleteness | null {
  if (response.outcome === 'refusal') return null;
  const reason = response.finishReason;
  if (response.calls.length === 0 && ((reason !== null && isToolCallFinishReason(reason)) || response.outcome === 'tool_calls')) {
    const said = reason !== null ? `"${reason}"` : 'outcome tool_calls';
    return {
      kind: 'dropped_tool_call',
      severity: 'error',
      cause: `finished with ${said} but carries no tool call: the provider likely dropped a malformed call`,
    };
  }
  if (reason !== null && (isTruncationFinishReason(reason) || isContentFilterFinishReason(reason))) {
    const by = `${isContentFilterFinishReason(reason) ? "by the provider's content filter " : ''}(finish reason "${reason}")`;
    return { kind: 'truncated_response', severity: 'warning', cause: `was cut off ${by}: its text and any tool call in it are incomplete` };
  }
  if (reason !== null && !isKnownFinishReason(reason)) {
    return {
      kind: 'unknown_finish_reason',
      severity: 'warning',
      cause: `has an unknown finish reason "${reason}": the response cannot be trusted as complete`,
    };
  }
  if (response.outcome !== 'incomplete') return null;
  const what =
    response.streamed && reason === null
      ? 'is incomplete: its stream ended without a finish reason (the stream broke)'
      : response.incompleteReason !== null
        ? `is incomplete ("${response.incompleteReason}")`
        : reason !== null
          ? `is incomplete (finish reason "${reason}")`
          : 'is logged as incomplete';
  const calls = response.calls.length > 0 ? ', and its calls are not calls to run' : '';
  return { kind: 'incomplete_response', severity: 'warning', cause: `${what}: it is not a finished answer${calls}` };
}

export function analyzeResponseOutcomes(timeline: RunTimeline): Finding[] {
  const findings: Finding[] = [];
  // By the response's event id: an entry is made anew each time it is read (timeline.ts).
  const verdicts = new Map<number, Incompleteness>();
  for (const response of responses(timeline)) {
    const where = { step: response.step, line: response.line };
    const verdict = incompletenessOf(response);
    if (verdict !== null) {
      verdicts.set(response.eventId, verdict);
      // A call the provider refused is reported once, as api_error (docs/semantics.md §7); it still
      // counts as incomplete when the loop acts on it.
      if (response.apiError === null)
        findings.push(finding(timeline, verdict.kind, { severity: verdict.severity, ...where, message: `${stepText(response)} ${verdict.cause}` }));
    }
    if (response.outcome === 'refusal') {
      findings.push(
        finding(timeline, 'refusal', { severity: 'warning', ...where, message: `${stepText(response)} is a refusal: the model declined the task` }),
      );
    }
  }
  findings.push(...executedIncompleteCalls(timeline, verdicts), ...acceptedIncompleteAnswer(timeline, verdicts));
  return findings;
}

/**
 * A call taken from an incomplete response and then executed or answered (a tool_call_start or a
 * tool_result for it): the loop acted on a call the model never finished issuing. A later complete
 * response that issues the same call_id takes the id over.
 */
function executedIncompleteCalls(timeline: RunTimeline, verdicts: ReadonlyMap<number, Incompleteness>): Finding[] {
  const findings: Finding[] = [];
  const fromIncomplete = new Map<string, { call: TimelineCall; verdict: Incompleteness }>();
  for (const entry of timeline.entries) {
    if (entry.kind === 'response') {
      const verdict = verdicts.get(entry.eventId);
      for (const call of entry.calls) {
        if (verdict !== undefined) fromIncomplete.set(call.callId, { call, verdict });
        else fromIncomplete.delete(call.callId);
      }
      continue;
    }
    if (entry.kind !== 'execution' && entry.kind !== 'result') continue;
    const taken = fromIncomplete.get(entry.callId);
    if (taken === undefined) continue;
    fromIncomplete.delete(entry.callId);
    const acted = entry.kind === 'execution' ? 'was executed' : entry.ok ? 'was executed (its result is logged)' : 'was answered with an error result';
    findings.push(
      finding(timeline, 'incomplete_call_executed', {
        severity: 'error',
        step: taken.call.step,
        callId: taken.call.callId,
        line: entry.line,
        message: `${describeCall(taken.call)} came from an incomplete response (${taken.verdict.kind}, line ${taken.call.line}) and ${acted} at line ${entry.line}: a call from a response that is not whole must not be run`,
        details: { response_line: taken.call.line },
      }),
    );
  }
  return findings;
}

/**
 * A run that ends as a success on an incomplete response: the response its output repeats, or,
 * when the output repeats none, the last response before the end.
 */
function acceptedIncompleteAnswer(timeline: RunTimeline, verdicts: ReadonlyMap<number, Incompleteness>): Finding[] {
  if (!claimsSuccess(timeline.status)) return [];
  // The terminal event: the first run_end that counts (docs/semantics.md §2).
  const index = endIndex(timeline);
  const end = timeline.entries.at(index);
  if (end === undefined) return [];
  const repeated = repeatedResponseBefore(timeline, index);
  const source = repeated ?? lastResponseUpTo(timeline, index - 1);
  if (source === undefined) return [];
  const verdict = verdicts.get(source.eventId);
  if (verdict === undefined) return [];
  const how = repeated !== undefined ? 'its output repeats the text of' : 'it ended right after';
  return [
    finding(timeline, 'incomplete_answer_accepted', {
      severity: 'error',
      step: source.step,
      line: end.line,
      message: `${runEnding(timeline, null)}, but ${how} ${stepText(source)} (line ${source.line}), which is incomplete (${verdict.kind}): an incomplete response is never a finished task`,
      details: { response_line: source.line },
    }),
  ];
}

/** The response the run's output repeats, when it comes before the entry at `index`. */
function repeatedResponseBefore(timeline: RunTimeline, index: number): ResponseEntry | undefined {
  const { entries } = timeline;
  for (let at = 0; at < index; at += 1) {
    if (entries.kind(at) === 'response' && entries.eventId(at) === timeline.outputEventId) return entries.at(at) as ResponseEntry;
  }
  return undefined;
}
