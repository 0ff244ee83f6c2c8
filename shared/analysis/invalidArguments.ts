/**
 * Arguments must parse before execution (docs/semantics.md §4). A call whose arguments never became
 * valid JSON — a malformed string, or streamed fragments joined into something that is not JSON —
 * is reported, and doubly so when the loop executed it anyway.
 */
import type { Finding } from '../report';
import { finding } from './finding';
import { describeCall, responses, type RunTimeline, type TimelineCall } from './timeline';

export function analyzeInvalidArguments(timeline: RunTimeline): Finding[] {
  // Only calls of a response that issued them: a call of an incomplete response has unfinished
  // arguments by nature, and its response's verdict speaks for it (docs/semantics.md §1).
  const invalid: TimelineCall[] = [];
  for (const response of responses(timeline)) {
    if (response.outcome === 'tool_calls') for (const call of response.calls) if (call.argsError !== null) invalid.push(call);
  }
  if (invalid.length === 0) return [];
  // Which of them ran: only their call_ids are looked for (a long run executes every other call too).
  const invalidIds = new Set(invalid.map((call) => call.callId));
  const executed = new Set<string>();
  for (const entry of timeline.entries) {
    if ((entry.kind === 'execution' || (entry.kind === 'result' && entry.ok)) && invalidIds.has(entry.callId)) executed.add(entry.callId);
  }
  return invalid.map((call) => {
    const wasExecuted = executed.has(call.callId);
    return finding(timeline, 'invalid_arguments', {
      severity: 'error',
      step: call.step,
      callId: call.callId,
      line: call.line,
      message: `${describeCall(call)} has invalid arguments: ${call.argsError}${wasExecuted ? '; it was executed anyway' : ''}`,
      details: { executed: wasExecuted },
    });
  });
}
