/**
 * Request n against request n+1 (or any two requests): the message alignment, a verdict on the
 * history, tool-call pairing inside the next request, and separate diffs of the system prompt,
 * the tool definitions and the parameters (docs/semantics.md §9).
 *
 * Message numbers shown to a user are 1-based and count every message of the request as it was
 * logged, system and developer messages included (`messageNumber`); indices are 0-based positions
 * in the normalized history, which holds no system message.
 *
 * Verdict: `extends` when every previous message is still there, unchanged and in place, and the
 * next request only adds messages after them (no messages added is also `extends`: an identical
 * request). Otherwise `rewritten` at k, the length of the common prefix — the first message where
 * the histories differ, which is also where a provider's prefix cache stops matching. What happened
 * is read from the first stretch of non-unchanged entries from there:
 * - `reordered`: it contains a moved message;
 * - `compacted`: it replaces r ≥ 2 previous messages (removed or modified) with a ≥ 1 messages,
 *   a < r — many messages replaced by fewer, typically a summary. Messages the turn appended at
 *   the end fall in the same stretch when nothing unchanged follows, so a compaction of two or three
 *   messages followed by a new turn of as many reads as an edit; real compactions replace many;
 * - `edited`: it starts with a modified message;
 * - `dropped`: it starts with a removed message;
 * - `inserted`: it starts with a new message before previous ones that are still there.
 */
import { canonicalJson } from '../trace/canonicalJson';
import { alignRequests, type AlignmentEntry, type RequestAlignment } from './alignRequests';
import { messageNumber, type NormalizedRequest, type RequestMessage, type ToolDefinition } from './normalizedRequest';

export type RewriteKind = 'edited' | 'dropped' | 'reordered' | 'compacted' | 'inserted';

export type HistoryVerdict =
  | { verdict: 'extends'; appended: number[] }
  | {
      verdict: 'rewritten';
      /** 0-based index of the first message where the histories differ (same in both requests). */
      firstDifference: number;
      /** The same message as a user counts it: 1-based, as logged (system messages included). */
      messageNumber: number;
      kind: RewriteKind;
      /** Every change from that point on, counted. */
      counts: { modified: number; removed: number; moved: number; appended: number };
    };

function countChanges(entries: readonly AlignmentEntry[]): { modified: number; removed: number; moved: number; appended: number } {
  const counts = { modified: 0, removed: 0, moved: 0, appended: 0 };
  for (const entry of entries) if (entry.status !== 'unchanged') counts[entry.status]++;
  return counts;
}

function rewriteKind(entries: readonly AlignmentEntry[]): RewriteKind {
  const firstChange = entries.findIndex((entry) => entry.status !== 'unchanged');
  let end = firstChange;
  while (end < entries.length && entries[end]!.status !== 'unchanged') end++;
  const stretch = entries.slice(firstChange, end);
  if (stretch.some((entry) => entry.status === 'moved')) return 'reordered';
  const replaced = stretch.filter((entry) => entry.previousIndex !== null).length;
  const replacing = stretch.filter((entry) => entry.nextIndex !== null).length;
  // 1 ≤ replacing < replaced: at least two replaced.
  if (replacing >= 1 && replacing < replaced) return 'compacted';
  const first = stretch[0]!.status;
  return first === 'modified' ? 'edited' : first === 'removed' ? 'dropped' : 'inserted';
}

/**
 * The number a user sees for the first differing message: in the next request, or — when the next
 * request ends before it (its last messages were dropped) — in the previous one.
 */
export function differenceNumber(previous: readonly RequestMessage[], next: readonly RequestMessage[], firstDifference: number): number {
  // A rewrite differs before the previous request's end, so the previous request always has it.
  return messageNumber((next[firstDifference] ?? previous[firstDifference])!);
}

export function historyVerdict(alignment: RequestAlignment, numberOf: (firstDifference: number) => number): HistoryVerdict {
  const { previousIdentities, nextIdentities, entries } = alignment;
  let prefix = 0;
  // Past the end of the next request its identity is undefined, which no previous identity equals.
  while (prefix < previousIdentities.length && previousIdentities[prefix] === nextIdentities[prefix]) prefix++;
  if (prefix === previousIdentities.length) {
    return { verdict: 'extends', appended: nextIdentities.map((_, j) => j).slice(prefix) };
  }
  return { verdict: 'rewritten', firstDifference: prefix, messageNumber: numberOf(prefix), kind: rewriteKind(entries), counts: countChanges(entries) };
}

export interface UnansweredCall {
  callId: string;
  name: string;
  /** Index of the assistant message that issued it. */
  messageIndex: number;
  /** Its number as logged (1-based, system messages included). */
  messageNumber: number;
}

export interface OrphanResult {
  callId: string | null;
  messageIndex: number;
  messageNumber: number;
}

export interface ToolPairing {
  /** Calls with no result anywhere in the request although a later message exists. */
  missingToolResults: UnansweredCall[];
  /** Tool results whose call is not in the request. */
  orphanToolResults: OrphanResult[];
}

/**
 * Within one request: a call must come with its result and a result with its call (docs/semantics.md §9).
 * A call in the last message owes nothing yet — the request is the one that will be answered.
 */
export function checkToolPairing(messages: readonly RequestMessage[]): ToolPairing {
  // A result without a call id (null) answers no call and matches none: call ids are strings.
  const issued = new Set<string | null>();
  const answered = new Set<string | null>();
  for (const message of messages) {
    for (const call of message.toolCalls) issued.add(call.callId);
    answered.add(message.toolCallId);
  }
  const missingToolResults: UnansweredCall[] = [];
  const orphanToolResults: OrphanResult[] = [];
  messages.forEach((message, messageIndex) => {
    if (messageIndex < messages.length - 1) {
      for (const call of message.toolCalls) {
        if (!answered.has(call.callId)) missingToolResults.push({ callId: call.callId, name: call.name, messageIndex, messageNumber: messageNumber(message) });
      }
    }
    if (message.role === 'tool' && !issued.has(message.toolCallId)) {
      orphanToolResults.push({ callId: message.toolCallId, messageIndex, messageNumber: messageNumber(message) });
    }
  });
  return { missingToolResults, orphanToolResults };
}

export interface SystemDiff {
  changed: boolean;
  previous: string | null;
  next: string | null;
}

export interface ToolsDiff {
  added: string[];
  removed: string[];
  /** Tools in both whose description or parameter schema differs. */
  changed: { name: string; description: boolean; parameters: boolean; previous: ToolDefinition; next: ToolDefinition }[];
  /** The tools both requests define are sent in another order: the bytes of the prefix differ all the same. */
  reordered: boolean;
}

export interface ParamChange {
  key: string;
  /** undefined when the key is absent on that side. */
  previous: unknown;
  next: unknown;
}

export function diffSystem(previous: string | null, next: string | null): SystemDiff {
  return { changed: previous !== next, previous, next };
}

/** By tool name; a name defined twice keeps its last definition, as providers read it. */
export function diffTools(previous: readonly ToolDefinition[], next: readonly ToolDefinition[]): ToolsDiff {
  // The same definitions (the engine reuses them while a run sends the same bytes): nothing to compare.
  if (previous === next) return { added: [], removed: [], changed: [], reordered: false };
  const before = new Map(previous.map((tool) => [tool.name, tool]));
  const after = new Map(next.map((tool) => [tool.name, tool]));
  const changed: ToolsDiff['changed'] = [];
  for (const [name, nextTool] of after) {
    const previousTool = before.get(name);
    if (!previousTool) continue;
    const description = previousTool.description !== nextTool.description;
    const parameters = canonicalJson(previousTool.parameters) !== canonicalJson(nextTool.parameters);
    if (description || parameters) changed.push({ name, description, parameters, previous: previousTool, next: nextTool });
  }
  const kept = (names: Iterable<string>, other: ReadonlyMap<string, ToolDefinition>) => [...names].filter((name) => other.has(name));
  return {
    added: [...after.keys()].filter((name) => !before.has(name)),
    removed: [...before.keys()].filter((name) => !after.has(name)),
    changed,
    reordered: kept(before.keys(), after).join('\u0000') !== kept(after.keys(), before).join('\u0000'),
  };
}

/**
 * What changed before the first message: the system prompt or the tool definitions. Providers
 * render them ahead of the history, so any change there means the prompt cache matches nothing
 * (docs/semantics.md §9). Null when both are the same.
 */
export interface PrefixChange {
  system: boolean;
  toolsAdded: string[];
  toolsRemoved: string[];
  toolsChanged: string[];
  toolsReordered: boolean;
}

export function prefixChange(system: SystemDiff, tools: ToolsDiff): PrefixChange | null {
  const change = {
    system: system.changed,
    toolsAdded: tools.added,
    toolsRemoved: tools.removed,
    toolsChanged: tools.changed.map((tool) => tool.name),
    toolsReordered: tools.reordered,
  };
  const changed = change.system || change.toolsAdded.length + change.toolsRemoved.length + change.toolsChanged.length > 0 || change.toolsReordered;
  return changed ? change : null;
}

/** Every key whose value differs (as canonical JSON), in the order the keys first appear. */
export function diffParams(previous: Record<string, unknown>, next: Record<string, unknown>): ParamChange[] {
  const keys = [...new Set([...Object.keys(previous), ...Object.keys(next)])];
  return keys
    .filter((key) => canonicalJson(previous[key]) !== canonicalJson(next[key]) || key in previous !== key in next)
    .map((key) => ({ key, previous: previous[key], next: next[key] }));
}

export interface RequestDiff {
  alignment: RequestAlignment;
  history: HistoryVerdict;
  /** Pairing problems of the next request. */
  toolPairing: ToolPairing;
  system: SystemDiff;
  tools: ToolsDiff;
  /** The system prompt or tool definitions changed; null when neither did. */
  prefix: PrefixChange | null;
  params: ParamChange[];
}

/**
 * `compactionMarked`: the trace marks a compaction between the two (a reconstructed request's
 * history starts over there), so a rewrite is a compaction whatever the counts say.
 */
export function diffRequests(previous: NormalizedRequest, next: NormalizedRequest, compactionMarked = false): RequestDiff {
  const alignment = alignRequests(previous.messages, next.messages);
  const system = diffSystem(previous.system, next.system);
  const tools = diffTools(previous.tools, next.tools);
  const history = historyVerdict(alignment, (firstDifference) => differenceNumber(previous.messages, next.messages, firstDifference));
  return {
    alignment,
    history: compactionMarked && history.verdict === 'rewritten' ? { ...history, kind: 'compacted' } : history,
    toolPairing: checkToolPairing(next.messages),
    system,
    tools,
    prefix: prefixChange(system, tools),
    params: diffParams(previous.params, next.params),
  };
}
