/**
 * Tool errors keep their category visible (docs/semantics.md §7): one finding per error result,
 * with the line of its output that says why it failed when it has one.
 */
import type { Finding } from '../report';
import { finding } from './finding';
import type { CallResolution } from './callCorrelation';
import type { ResultEntry, RunTimeline, TimelineCall } from './timeline';

export function analyzeToolErrors(timeline: RunTimeline, resolutions: readonly CallResolution[]): Finding[] {
  // Only error results are reported: only their calls are looked up.
  const callOf = new Map<ResultEntry, TimelineCall>();
  for (const { call, result } of resolutions) if (result !== null && !result.ok) callOf.set(result, call);
  return timeline.entries
    .filter((entry): entry is ResultEntry => entry.kind === 'result' && !entry.ok)
    .map((result) => {
      const call = callOf.get(result);
      const name = call?.name ?? result.name ?? 'tool';
      const step = call?.step ?? result.step;
      return finding(timeline, 'tool_error', {
        severity: 'info',
        step,
        callId: result.callId,
        line: result.line,
        message: `${name} (${result.callId}${step !== null ? `, step ${step}` : ''}) returned an error${errorWords(result)}`,
        // The line is the answer to "why did it fail": kept apart for whoever reads details, not only the message.
        details: result.errorLine === null ? { code: result.errorCode } : { code: result.errorCode, error_line: result.errorLine },
      });
    });
}

/** ` CODE: line`, ` CODE`, `: line`, or that there is neither. */
function errorWords(result: ResultEntry): string {
  const line = result.errorLine === null ? '' : `: ${result.errorLine}`;
  if (result.errorCode) return ` ${result.errorCode}${line}`;
  return line === '' ? ' without an error code' : line;
}
