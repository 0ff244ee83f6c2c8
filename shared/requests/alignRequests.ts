/**
 * Aligns the messages of two requests and classifies each one (docs/semantics.md §9).
 *
 * Rules, in order:
 * 1. Unchanged: the longest common subsequence of message identities (normalizedRequest.ts), found patience-style — common
 *    prefix and suffix first, then identities that occur exactly once on each side as anchors (their
 *    longest increasing run), recursively between anchors; a gap without unique anchors gets an
 *    exact LCS when it is small (≤ `exactLcsCells` cells) and a greedy in-order match otherwise.
 * 2. Moved: a message not in that subsequence whose identity is still on the other side, paired in order.
 * 3. Modified: within one gap between unchanged messages, a previous and a next message with the
 *    same role and the same tool identity (the call answered, the calls issued), paired in order.
 *    A tool result for another call is another message, not an edit of this one.
 * 4. What is left is removed (only in the previous request) or appended (only in the next).
 */
import { messageIdentity, type RequestMessage } from './normalizedRequest';

export type AlignmentStatus = 'unchanged' | 'appended' | 'removed' | 'modified' | 'moved';

export interface AlignmentEntry {
  status: AlignmentStatus;
  /** Index in the previous request's messages; null for appended. */
  previousIndex: number | null;
  /** Index in the next request's messages; null for removed. */
  nextIndex: number | null;
}

/** Consecutive entries of one status, for a UI that collapses them ("messages 1–14 unchanged"). */
export interface AlignmentRun {
  status: AlignmentStatus;
  /** Position of the run's entries in `entries`, end exclusive. */
  start: number;
  end: number;
  /** Lowest and highest message index the run covers on each side; null when it has none there. */
  previous: { first: number; last: number } | null;
  next: { first: number; last: number } | null;
}

export interface RequestAlignment {
  /** Next-request order; a removed message sits where it was, before the messages added in its gap. */
  entries: AlignmentEntry[];
  runs: AlignmentRun[];
  previousIdentities: string[];
  nextIdentities: string[];
}

/** Above this many DP cells a gap without unique anchors is not searched for a common subsequence. */
export const exactLcsCells = 1_000_000;

type Match = [previous: number, next: number];

/** Indices (into `values`) of one longest strictly increasing subsequence, by patience sorting. */
function longestIncreasing(values: readonly number[]): number[] {
  const tails: number[] = [];
  const back = new Array<number>(values.length).fill(-1);
  values.forEach((value, i) => {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (values[tails[mid]!]! < value) low = mid + 1;
      else high = mid;
    }
    if (low > 0) back[i] = tails[low - 1]!;
    tails[low] = i;
  });
  const result: number[] = [];
  for (let i = tails.at(-1) ?? -1; i !== -1; i = back[i]!) result.push(i);
  return result.reverse();
}

function exactLcs(a: readonly string[], a0: number, a1: number, b: readonly string[], b0: number, b1: number, out: Match[]): void {
  const rows = a1 - a0;
  const cols = b1 - b0;
  const width = cols + 1;
  const table = new Uint32Array((rows + 1) * width);
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = cols - 1; j >= 0; j--) {
      table[i * width + j] = a[a0 + i] === b[b0 + j] ? table[(i + 1) * width + j + 1]! + 1 : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < rows && j < cols) {
    if (a[a0 + i] === b[b0 + j]) {
      out.push([a0 + i, b0 + j]);
      i++;
      j++;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) i++;
    else j++;
  }
}

/** A common subsequence, not the longest: each next identity takes the first unused equal one after the last taken. */
function greedyInOrder(a: readonly string[], a0: number, a1: number, b: readonly string[], b0: number, b1: number, out: Match[]): void {
  const positions = new Map<string, number[]>();
  for (let i = a1 - 1; i >= a0; i--) {
    const stack = positions.get(a[i]!);
    if (stack) stack.push(i);
    else positions.set(a[i]!, [i]);
  }
  let last = a0 - 1;
  for (let j = b0; j < b1; j++) {
    const stack = positions.get(b[j]!);
    while (stack && stack.length > 0 && stack.at(-1)! <= last) stack.pop();
    const i = stack?.pop();
    if (i === undefined) continue;
    out.push([i, j]);
    last = i;
  }
}

function countIn(values: readonly string[], from: number, to: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = from; i < to; i++) counts.set(values[i]!, (counts.get(values[i]!) ?? 0) + 1);
  return counts;
}

function commonSubsequence(a: readonly string[], a0: number, a1: number, b: readonly string[], b0: number, b1: number, out: Match[]): void {
  while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) out.push([a0++, b0++]);
  const suffix: Match[] = [];
  while (a0 < a1 && b0 < b1 && a[a1 - 1] === b[b1 - 1]) suffix.push([--a1, --b1]);
  if (a0 < a1 && b0 < b1) {
    const countsA = countIn(a, a0, a1);
    const countsB = countIn(b, b0, b1);
    const positionInA = new Map<string, number>();
    for (let i = a0; i < a1; i++) if (countsA.get(a[i]!) === 1) positionInA.set(a[i]!, i);
    const candidates: Match[] = [];
    for (let j = b0; j < b1; j++) {
      const i = positionInA.get(b[j]!);
      if (i !== undefined && countsB.get(b[j]!) === 1) candidates.push([i, j]);
    }
    const anchors = longestIncreasing(candidates.map(([i]) => i)).map((k) => candidates[k]!);
    if (anchors.length > 0) {
      let fromA = a0;
      let fromB = b0;
      for (const [i, j] of anchors) {
        commonSubsequence(a, fromA, i, b, fromB, j, out);
        out.push([i, j]);
        fromA = i + 1;
        fromB = j + 1;
      }
      commonSubsequence(a, fromA, a1, b, fromB, b1, out);
    } else if ((a1 - a0) * (b1 - b0) <= exactLcsCells) {
      exactLcs(a, a0, a1, b, b0, b1, out);
    } else {
      greedyInOrder(a, a0, a1, b, b0, b1, out);
    }
  }
  out.push(...suffix.reverse());
}

/** Role plus the calls a message answers or issues: what must agree for a message to count as edited. */
function toolIdentity(message: RequestMessage): string {
  return JSON.stringify([message.role, message.toolCallId, message.toolCalls.map((call) => call.callId)]);
}

function runsOf(entries: readonly AlignmentEntry[]): AlignmentRun[] {
  const runs: AlignmentRun[] = [];
  const widen = (range: { first: number; last: number } | null, index: number | null) =>
    index === null ? range : range === null ? { first: index, last: index } : { first: Math.min(range.first, index), last: Math.max(range.last, index) };
  entries.forEach((entry, position) => {
    const last = runs.at(-1);
    const run = last && last.status === entry.status ? last : null;
    if (run) {
      run.end = position + 1;
      run.previous = widen(run.previous, entry.previousIndex);
      run.next = widen(run.next, entry.nextIndex);
    } else {
      runs.push({ status: entry.status, start: position, end: position + 1, previous: widen(null, entry.previousIndex), next: widen(null, entry.nextIndex) });
    }
  });
  return runs;
}

/**
 * The usual turn: the next request resends the previous one's messages as they were and appends
 * to them. What the rules give then (all of the previous unchanged, the rest appended), built
 * directly instead of through the search, the gap pass and the run collapsing, which every request
 * of a run would otherwise pay for.
 */
function appendedAlignment(previousIdentities: string[], nextIdentities: string[]): RequestAlignment {
  const kept = previousIdentities.length;
  const total = nextIdentities.length;
  const entries: AlignmentEntry[] = [];
  for (let i = 0; i < kept; i++) entries.push({ status: 'unchanged', previousIndex: i, nextIndex: i });
  for (let j = kept; j < total; j++) entries.push({ status: 'appended', previousIndex: null, nextIndex: j });
  const runs: AlignmentRun[] = [];
  if (kept > 0) runs.push({ status: 'unchanged', start: 0, end: kept, previous: { first: 0, last: kept - 1 }, next: { first: 0, last: kept - 1 } });
  if (total > kept) runs.push({ status: 'appended', start: kept, end: total, previous: null, next: { first: kept, last: total - 1 } });
  return { entries, runs, previousIdentities, nextIdentities };
}

function startsWith(values: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > values.length) return false;
  for (let i = 0; i < prefix.length; i++) if (values[i] !== prefix[i]) return false;
  return true;
}

export function alignRequests(previous: readonly RequestMessage[], next: readonly RequestMessage[]): RequestAlignment {
  const previousIdentities = previous.map(messageIdentity);
  const nextIdentities = next.map(messageIdentity);
  if (startsWith(nextIdentities, previousIdentities)) return appendedAlignment(previousIdentities, nextIdentities);
  const unchanged: Match[] = [];
  commonSubsequence(previousIdentities, 0, previous.length, nextIdentities, 0, next.length, unchanged);

  const partnerOfNext = new Array<number | null>(next.length).fill(null);
  const statusOfNext = new Array<AlignmentStatus>(next.length).fill('appended');
  const previousTaken = new Array<boolean>(previous.length).fill(false);
  for (const [i, j] of unchanged) {
    partnerOfNext[j] = i;
    statusOfNext[j] = 'unchanged';
    previousTaken[i] = true;
  }

  const leftoverPrevious = new Map<string, number[]>();
  previousIdentities.forEach((identity, i) => {
    if (previousTaken[i]) return;
    const queue = leftoverPrevious.get(identity);
    if (queue) queue.push(i);
    else leftoverPrevious.set(identity, [i]);
  });
  nextIdentities.forEach((identity, j) => {
    if (statusOfNext[j] !== 'appended') return;
    const i = leftoverPrevious.get(identity)?.shift();
    if (i === undefined) return;
    partnerOfNext[j] = i;
    statusOfNext[j] = 'moved';
    previousTaken[i] = true;
  });

  // Gaps between consecutive unchanged pairs (and before the first and after the last).
  const bounds: Match[] = [[-1, -1], ...unchanged, [previous.length, next.length]];
  for (let g = 0; g + 1 < bounds.length; g++) {
    const [startA, startB] = bounds[g]!;
    const [endA, endB] = bounds[g + 1]!;
    let fromB = startB + 1;
    for (let i = startA + 1; i < endA; i++) {
      if (previousTaken[i]) continue;
      const identity = toolIdentity(previous[i]!);
      for (let j = fromB; j < endB; j++) {
        if (statusOfNext[j] !== 'appended' || toolIdentity(next[j]!) !== identity) continue;
        partnerOfNext[j] = i;
        statusOfNext[j] = 'modified';
        previousTaken[i] = true;
        fromB = j + 1;
        break;
      }
    }
  }

  const entries: AlignmentEntry[] = [];
  let nextRemoved = 0;
  const emitRemovedBefore = (limit: number): void => {
    for (; nextRemoved < limit; nextRemoved++) {
      if (!previousTaken[nextRemoved]) entries.push({ status: 'removed', previousIndex: nextRemoved, nextIndex: null });
    }
  };
  // Within a gap, removals come before additions, as in a text diff.
  const removalBound = new Array<number>(next.length);
  let bound = previous.length;
  for (let j = next.length - 1; j >= 0; j--) {
    if (statusOfNext[j] === 'unchanged' || statusOfNext[j] === 'modified') bound = partnerOfNext[j]!;
    removalBound[j] = bound;
  }
  statusOfNext.forEach((status, j) => {
    if (status !== 'moved') emitRemovedBefore(removalBound[j]!);
    entries.push({ status, previousIndex: partnerOfNext[j] ?? null, nextIndex: j });
  });
  emitRemovedBefore(previous.length);
  return { entries, runs: runsOf(entries), previousIdentities, nextIdentities };
}
