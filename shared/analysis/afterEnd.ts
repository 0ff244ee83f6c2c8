/**
 * What a loop logged after its run had ended (docs/semantics.md §2, §3). The first run_end that is
 * not a pause ends the run; everything the loop logged after it is still shown and counted, and
 * reported here: a second run_end as a duplicate, a tool call that ran (or completed) as an error,
 * since the loop acted after it said it had stopped, and anything else as one warning.
 */
import type { Finding } from '../report';
import { formatCount } from '../formatCount';
import { finding } from './finding';
import { endIndex, issuedCalls, type ExecutionEntry, type RunEndEntry, type RunTimeline, type TimelineEntry } from './timeline';

/** How many of the other events after the end a warning lists by line before it only counts them. */
const LISTED_EVENTS = 5;

/** "ended at line 9 with status cancelled" */
function describeEnd(end: RunEndEntry): string {
  return `ended at line ${end.line}${end.statusRaw !== null ? ` with status ${end.statusRaw}` : ''}`;
}

/** An event after the end that is no side effect: a model call, an error result, a not-executed mark. */
function describeEvent(entry: Exclude<TimelineEntry, RunEndEntry | ExecutionEntry>): string {
  switch (entry.kind) {
    case 'response':
      return `a model call${entry.step !== null ? ` at step ${entry.step}` : ''} (line ${entry.line})`;
    case 'result':
      return `an error result of tool call ${entry.callId} (line ${entry.line})`;
    case 'not_executed':
      return `a not-executed mark for tool call ${entry.callId} (line ${entry.line})`;
  }
}

/**
 * The tool name of each call a side effect after the end names (the latest call issued with its
 * call_id): only those, since a long run issues hundreds of thousands of calls before its end.
 */
function issuedNames(timeline: RunTimeline, after: readonly TimelineEntry[]): Map<string, string> {
  const wanted = new Set<string>();
  for (const entry of after) if (entry.kind === 'execution' || (entry.kind === 'result' && entry.ok)) wanted.add(entry.callId);
  const names = new Map<string, string>();
  if (wanted.size === 0) return names;
  const calls = issuedCalls(timeline);
  for (let at = 0; at < calls.length; at += 1) if (wanted.has(calls.callId(at))) names.set(calls.callId(at), calls.name(at));
  return names;
}

export function analyzeAfterEnd(timeline: RunTimeline): Finding[] {
  const index = endIndex(timeline);
  const end = timeline.entries.at(index);
  if (end?.kind !== 'run_end') return [];
  const findings: Finding[] = [];
  const after: TimelineEntry[] = [];
  for (let at = index + 1; at < timeline.entries.length; at += 1) after.push(timeline.entries.at(at)!);
  const nameOf = issuedNames(timeline, after);
  const sideEffects = new Set<string>();
  const others: Exclude<TimelineEntry, RunEndEntry | ExecutionEntry>[] = [];

  for (const entry of after) {
    if (entry.kind === 'run_end') {
      findings.push(
        finding(timeline, 'duplicate_run_end', {
          severity: 'warning',
          step: entry.step,
          line: entry.line,
          message: `a second run_end at line ${entry.line}${entry.statusRaw !== null ? ` (status ${entry.statusRaw})` : ''} for a run that had already ${describeEnd(end)}: the first run_end counts, so the run's status is ${timeline.status}${entry.statusRaw !== null && entry.statusRaw !== end.statusRaw ? '; the two disagree' : ''}`,
          details: { end_line: end.line, end_status_raw: end.statusRaw, status_raw: entry.statusRaw },
        }),
      );
      continue;
    }
    // A started or successfully completed call is a side effect; an error result or a not-executed mark records none.
    if (entry.kind === 'execution' || (entry.kind === 'result' && entry.ok)) {
      if (sideEffects.has(entry.callId)) continue;
      sideEffects.add(entry.callId);
      const name = nameOf.get(entry.callId) ?? (entry.kind === 'result' ? entry.name : null);
      findings.push(
        finding(timeline, 'event_after_end', {
          severity: 'error',
          step: entry.step,
          callId: entry.callId,
          line: entry.line,
          message: `tool call ${entry.callId}${name !== null ? ` (${name})` : ''} ${entry.kind === 'execution' ? 'started' : 'completed'} at line ${entry.line}, after the run had ${describeEnd(end)}: the loop acted after its terminal event`,
          details: { end_line: end.line, event: entry.kind },
        }),
      );
      continue;
    }
    others.push(entry);
  }

  const [first] = others;
  if (first !== undefined) {
    const listed = others.slice(0, LISTED_EVENTS).map(describeEvent).join(', ');
    const more = others.length > LISTED_EVENTS ? ` and ${formatCount(others.length - LISTED_EVENTS)} more` : '';
    findings.push(
      finding(timeline, 'event_after_end', {
        severity: 'warning',
        step: first.step,
        line: first.line,
        message: `${formatCount(others.length)} event${others.length === 1 ? ' was' : 's were'} logged after the run had ${describeEnd(end)}: ${listed}${more}`,
        details: { end_line: end.line, events: others.length, model_calls: others.filter((entry) => entry.kind === 'response').length },
      }),
    );
  }
  return findings;
}
