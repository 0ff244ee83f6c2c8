/**
 * What each model response says about the loop (docs/semantics.md §1): a dropped tool call, a truncated
 * response, a refusal, a finish reason nobody knows. Each of these means "not done", whatever the
 * loop did next.
 */
import type { Finding } from '../report';
import { isContentFilterFinishReason, isKnownFinishReason, isToolCallFinishReason, isTruncationFinishReason } from '../trace/modelOutcome';
import { finding } from './finding';
import { responses, type RunTimeline } from './timeline';

export function analyzeResponseOutcomes(timeline: RunTimeline): Finding[] {
  const findings: Finding[] = [];
  for (const response of responses(timeline)) {
    const where = { step: response.step, line: response.line };
    const reason = response.finishReason;
    const stepText = `the model response at step ${response.step ?? '?'}`;
    if (response.calls.length === 0 && ((reason !== null && isToolCallFinishReason(reason)) || response.outcome === 'tool_calls')) {
      findings.push(
        finding(timeline, 'dropped_tool_call', {
          severity: 'error',
          ...where,
          message: `${stepText} finished with ${reason !== null ? `"${reason}"` : 'outcome tool_calls'} but carries no tool call: the provider likely dropped a malformed call`,
        }),
      );
    }
    if (reason !== null && (isTruncationFinishReason(reason) || isContentFilterFinishReason(reason))) {
      const cause = isContentFilterFinishReason(reason) ? "by the provider's content filter" : `(finish reason "${reason}")`;
      findings.push(
        finding(timeline, 'truncated_response', {
          severity: 'warning',
          ...where,
          message: `${stepText} was cut off ${cause}: its text and any tool call in it are incomplete`,
        }),
      );
    }
    if (response.outcome === 'refusal') {
      findings.push(finding(timeline, 'refusal', { severity: 'warning', ...where, message: `${stepText} is a refusal: the model declined the task` }));
    }
    if (reason !== null && !isKnownFinishReason(reason)) {
      findings.push(
        finding(timeline, 'unknown_finish_reason', {
          severity: 'warning',
          ...where,
          message: `${stepText} has an unknown finish reason "${reason}": the response cannot be trusted as complete`,
        }),
      );
    }
  }
  return findings;
}
