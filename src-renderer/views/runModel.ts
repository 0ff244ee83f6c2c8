/**
 * What the run view builds from what it fetched: each timeline row's calls, and the run's findings
 * indexed for O(1) lookups, with where n / p go among them.
 */
import type { CallRow, EventRow, FindingRow } from '../../shared/api';
import { routes, type Route } from '../navigation/route';

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

interface PageCalls {
  /** The calls a model response (or closing stream fragment) issued, in order. */
  byIssuer: ReadonlyMap<number, CallRow[]>;
  /** The call an event answered (a result, or a not-executed mark). */
  byAnswer: ReadonlyMap<number, CallRow>;
  /** Calls by id; an id can repeat (a duplicate_call_id), so each holds every call with that id in order. */
  byCallId: ReadonlyMap<string, CallRow[]>;
}

function indexCalls(calls: readonly CallRow[]): PageCalls {
  const byIssuer = new Map<number, CallRow[]>();
  const byAnswer = new Map<number, CallRow>();
  const byCallId = new Map<string, CallRow[]>();
  for (const call of calls) {
    append(byIssuer, call.eventId, call);
    if (call.answerEventId !== null) byAnswer.set(call.answerEventId, call);
    append(byCallId, call.callId, call);
  }
  return { byIssuer, byAnswer, byCallId };
}

/** The call a `tool_call_start` line starts: the last call with its id issued at or before it. */
function callStartedAt(calls: PageCalls, callId: string, line: number): CallRow | undefined {
  const candidates = calls.byCallId.get(callId) ?? [];
  return candidates.filter((call) => call.line <= line).at(-1) ?? candidates[0];
}

/** An event of the timeline with the tool calls it issued, started or answered. */
export interface TimelineEvent extends EventRow {
  issued: CallRow[] | undefined;
  started: CallRow | undefined;
  answered: CallRow | undefined;
}

/**
 * A page of a run's events with their calls, from the calls the page came with (`runEvents`
 * sends those its events issue, start or answer): the rows carry their calls, so a view holds
 * the calls of the pages it holds and no more — a run can have 375,000.
 */
export function withCalls(events: readonly EventRow[], calls: readonly CallRow[]): TimelineEvent[] {
  const index = indexCalls(calls);
  return events.map((event) => ({
    ...event,
    issued: index.byIssuer.get(event.eventId),
    started: event.type === 'tool_call_start' && event.callId !== null ? callStartedAt(index, event.callId, event.line) : undefined,
    answered: index.byAnswer.get(event.eventId),
  }));
}

export interface RunFindings {
  /** In the order n/p walk them: by line, then as the analysis reported them. */
  ordered: readonly FindingRow[];
  byEvent: ReadonlyMap<number, FindingRow[]>;
  /** Findings of a step with no event of their own. */
  byStep: ReadonlyMap<number, FindingRow[]>;
  /** Findings of the whole run (an unterminated run): shown in the header. */
  ofRun: readonly FindingRow[];
}

export function indexFindings(findings: readonly FindingRow[]): RunFindings {
  const ordered = [...findings].sort((a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER) || a.findingId - b.findingId);
  const byEvent = new Map<number, FindingRow[]>();
  const byStep = new Map<number, FindingRow[]>();
  const ofRun: FindingRow[] = [];
  for (const finding of ordered) {
    if (finding.eventId !== null) append(byEvent, finding.eventId, finding);
    else if (finding.step !== null) append(byStep, finding.step, finding);
    else ofRun.push(finding);
  }
  return { ordered, byEvent, byStep, ofRun };
}

/** Where a finding points: its event, else its step, else its run; one of no run, to the parse errors (the lines that are no event). */
export function findingRoute(traceId: string, finding: FindingRow): Route {
  if (finding.runPk === null) return routes.trace(traceId, 'parse-errors');
  if (finding.eventId !== null) return routes.run(traceId, finding.runPk, { step: finding.step, eventId: finding.eventId });
  return routes.run(traceId, finding.runPk, { step: finding.step });
}

/** The finding after (or before) the active one; with none active, the first at or after the cursor's line (or the last before it). */
export function nextFinding(
  ordered: readonly FindingRow[],
  activeFindingId: number | null,
  cursorLine: number | null,
  direction: 1 | -1,
): FindingRow | undefined {
  const active = ordered.findIndex((finding) => finding.findingId === activeFindingId);
  if (active !== -1) return ordered[active + direction];
  if (direction === 1) return cursorLine === null ? ordered[0] : ordered.find((finding) => (finding.line ?? Infinity) >= cursorLine);
  return cursorLine === null ? undefined : ordered.findLast((finding) => finding.line !== null && finding.line < cursorLine);
}
