import type { Finding } from '../report';
import { finding } from './finding';
import type { RunTimeline } from './timeline';

/** A run with no terminal event crashed or was killed (one still being written is `running`, and not reported). */
export function analyzeUnterminatedRun(timeline: RunTimeline): Finding[] {
  if (timeline.status !== 'unterminated') return [];
  // Neither a start nor any model or tool activity: a group of records (side requests, bookkeeping), not a loop.
  if (!timeline.started && timeline.entries.length === 0) return [];
  const lastStep = timeline.entries.reduce<number | null>((max, entry) => (entry.step !== null ? Math.max(max ?? 0, entry.step) : max), null);
  return [
    finding(timeline, 'unterminated_run', {
      severity: 'warning',
      step: null,
      line: timeline.lastLine,
      message: `run ${timeline.runId} has no terminal event: it crashed, was killed, or its log was cut; the last event is at line ${timeline.lastLine}${lastStep !== null ? ` (step ${lastStep})` : ''}`,
    }),
  ];
}
