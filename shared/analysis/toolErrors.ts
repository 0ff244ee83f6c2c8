/**
 * Tool errors keep their category visible (docs/semantics.md §7): one finding per error result,
 * with the line of its output that says why it failed when it has one.
 */
import type { Finding } from '../report';
import { finding } from './finding';
import type { CallResolutions } from './callCorrelation';
import type { ResultEntry, RunTimeline } from './timeline';

export function analyzeToolErrors(timeline: RunTimeline, resolutions: CallResolutions): Finding[] {
  // Only error results are reported: only their calls are looked up, by the result's position.
  const callOf = new Map<number, number>();
  for (let call = 0; call < resolutions.length; call += 1) {
    const resultIndex = resolutions.resultIndex(call);
    if (resultIndex !== null && resolutions.state(call) === 'error') callOf.set(resultIndex, call);
  }
  const { entries } = timeline;
  const findings: Finding[] = [];
  for (let index = 0; index < entries.length; index += 1) {
    if (entries.kind(index) !== 'result') continue;
    const result = entries.resultAt(index);
    if (result.ok) continue;
    const call = callOf.get(index);
    const name = call === undefined ? (result.name ?? 'tool') : entries.calls.name(call);
    const step = call === undefined ? result.step : (entries.calls.step(call) ?? result.step);
    findings.push(
      finding(timeline, 'tool_error', {
        severity: 'info',
        step,
        callId: result.callId,
        line: result.line,
        message: `${name} (${result.callId}${step !== null ? `, step ${step}` : ''}) returned an error${errorWords(result)}`,
        // The line is the answer to "why did it fail": kept apart for whoever reads details, not only the message.
        details: result.errorLine === null ? { code: result.errorCode } : { code: result.errorCode, error_line: result.errorLine },
      }),
    );
  }
  return findings;
}

/** ` CODE: line`, ` CODE`, `: line`, or that there is neither. */
function errorWords(result: ResultEntry): string {
  const line = result.errorLine === null ? '' : `: ${result.errorLine}`;
  if (result.errorCode) return ` ${result.errorCode}${line}`;
  return line === '' ? ' without an error code' : line;
}
