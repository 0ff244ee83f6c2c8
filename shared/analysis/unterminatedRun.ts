import type { Finding } from '../report';
import { finding } from './finding';
import { lastStepOf, type RunTimeline, type TimelineEntry } from './timeline';

/** A run with no terminal event crashed or was killed (one still being written is `running`, and not reported). */
export function analyzeUnterminatedRun(timeline: RunTimeline): Finding[] {
  if (timeline.status !== 'unterminated') return [];
  // Neither a start nor any model or tool activity: a group of records (side requests, bookkeeping), not a loop.
  if (!timeline.started && timeline.entries.length === 0) return [];
  const lastStep = lastStepOf(timeline);
  const last = timeline.entries.at(timeline.entries.length - 1);
  const seen =
    last === undefined ? 'the run started and logged no model or tool event' : `its last model or tool event is ${describe(last)} (line ${last.line})`;
  const open = unansweredCalls(timeline.entries);
  const openText = open === 0 ? '' : `; ${open} call${open === 1 ? '' : 's'} still without a result`;
  return [
    finding(timeline, 'unterminated_run', {
      severity: 'warning',
      step: null,
      line: timeline.lastLine,
      message: `run ${timeline.runId} has no terminal event: ${seen}${openText}; nothing after it says the loop ended, so it crashed, was killed, or its log was cut (the last event is at line ${timeline.lastLine}${lastStep !== null ? `, step ${lastStep}` : ''})`,
    }),
  ];
}

/** What the run's last event is, in the words a user reads in a finding. */
function describe(entry: TimelineEntry): string {
  const step = entry.step !== null ? ` at step ${entry.step}` : '';
  switch (entry.kind) {
    case 'response':
      if (entry.calls.length > 0) return `a model response${step} issuing ${entry.calls.map((call) => `${call.name} (${call.callId})`).join(', ')}`;
      return `a model response${step} with outcome ${entry.outcome}${entry.finishReason !== null ? ` (finish reason "${entry.finishReason}")` : ''}`;
    case 'execution':
      return `the start of call ${entry.callId}${step}`;
    case 'result':
      return `the ${entry.ok ? 'result' : 'error result'} of ${entry.name ?? 'call'} (${entry.callId})${step}, which no model response follows`;
    case 'not_executed':
      return `a not-executed mark for call ${entry.callId}${step}`;
    case 'run_end':
      return `a run_end with status "${entry.statusRaw ?? ''}"${step}, which does not end the run`;
  }
}

/** Calls issued (by a `tool_calls` response, docs/semantics.md §4) that have neither a result nor a not-executed mark. */
function unansweredCalls(entries: Iterable<TimelineEntry>): number {
  const open = new Set<string>();
  for (const entry of entries) {
    if (entry.kind === 'response') {
      if (entry.outcome === 'tool_calls') for (const call of entry.calls) open.add(call.callId);
    } else if (entry.kind === 'result' || entry.kind === 'not_executed') open.delete(entry.callId);
  }
  return open.size;
}
