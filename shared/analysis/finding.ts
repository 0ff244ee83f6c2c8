import type { Finding, FindingKind, Severity } from '../report';
import type { RunTimeline } from './timeline';

export interface FindingInput {
  severity: Severity;
  step: number | null;
  callId?: string | null;
  line: number | null;
  message: string;
  details?: Record<string, unknown>;
}

export function finding(timeline: RunTimeline, kind: FindingKind, input: FindingInput): Finding {
  return {
    kind,
    severity: input.severity,
    run_id: timeline.runId,
    step: input.step,
    call_id: input.callId ?? null,
    line: input.line,
    message: input.message,
    ...(input.details ? { details: input.details } : {}),
  };
}

/** "the run ended at step 6 with status budget_exceeded" — the context most call findings need. */
export function runEnding(timeline: RunTimeline, lastStep: number | null): string {
  const where = lastStep !== null ? ` at step ${lastStep}` : '';
  if (timeline.status === 'unterminated') return `the run stopped${where} without a terminal event`;
  const raw = timeline.statusRaw !== '' && timeline.statusRaw !== timeline.status ? ` (${timeline.statusRaw})` : '';
  return `the run ended${where} with status ${timeline.status}${raw}`;
}
