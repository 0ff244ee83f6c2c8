/** Tool errors keep their category visible (docs/semantics.md §7): one finding per error result. */
import type { Finding } from '../report';
import { finding } from './finding';
import type { ResultEntry, RunTimeline, TimelineCall } from './timeline';

export function analyzeToolErrors(timeline: RunTimeline, resultOf: ReadonlyMap<TimelineCall, ResultEntry>): Finding[] {
  const callOf = new Map<ResultEntry, TimelineCall>();
  for (const [call, result] of resultOf) callOf.set(result, call);
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
        message: `${name} (${result.callId}${step !== null ? `, step ${step}` : ''}) returned an error${result.errorCode ? ` ${result.errorCode}` : ' without an error code'}`,
        details: { code: result.errorCode },
      });
    });
}
