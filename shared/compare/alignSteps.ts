/**
 * Aligns the turns of two runs of one task (two samples, two prompt versions) so they can be read
 * side by side: which turns match, which changed, which one run has and the other has not, and
 * where the second run first did something different. Pure logic, no I/O.
 *
 * Turn identity. Two turns are the same when they have the same outcome and the same multiset of
 * call keys, a call key being the tool name with the argument string as normalized by the caller
 * (or the call's `identity`, when the caller gives one because `args` is only a summary). The
 * order of calls inside a turn is ignored: parallel calls carry no order. Tool names, argument
 * strings and outcomes are interned to small numbers, so long arguments are hashed once and never
 * copied into keys.
 *
 * Call similarity (0..1). Different tools: 0. Same tool and same arguments: 1. Same tool,
 * different arguments: 0.5 + 0.5 × the overlap of their argument tokens. The tokens are the runs
 * of letters, digits and `_` in the first 2,000 characters of each string (arguments can be
 * 100 KB; the cap bounds a comparison whatever their size), kept as sorted 32-bit hashes so that
 * two calls compare by one merge, and the overlap of two token multisets is
 * shared / (total − shared + 1). The `+ 1` counts "the strings differ somewhere" as one more
 * unshared token, so arguments that differ only in punctuation, in order or past the cap still
 * score below 1 and only identical calls reach 1.
 *
 * Call pairing within a turn. Equal call keys pair first, as a multiset (two identical calls pair
 * with two identical calls); the remaining calls are paired greedily, most similar pair first
 * (ties by position), among pairs of similarity ≥ 0.5, i.e. calls of the same tool. Greedy is not
 * always the best assignment, but turns hold a handful of calls and the result is easy to explain.
 * Paired calls are 'same' when their keys are equal, otherwise 'changed'; the rest are 'removed'
 * (only in a) or 'inserted' (only in b).
 *
 * Turn similarity (0..1). Two turns without calls: 1 when the outcomes are equal, else 0.
 * Otherwise 0.25 × (outcomes equal ? 1 : 0) + 0.75 × (sum of the paired calls' similarities /
 * the larger call count), so calls missing on one side count as 0. Consequences: identical turns
 * score 1; a turn whose only call changed tool scores 0.25 (removed + inserted, not changed); a
 * turn with the same calls but another outcome scores 0.75 (changed).
 *
 * Alignment. First the exact matches: a longest common subsequence of the turn identities,
 * computed with jsdiff's Myers diff (O((n + m) × d) for d differing turns). Every stretch of
 * removed and inserted turns between two exact matches is then paired by a Needleman–Wunsch DP
 * that maximizes the sum of (similarity − 0.5) over the pairs it makes, with only pairs of
 * similarity ≥ 0.5 allowed and gaps free: a pair is 'changed' only when its turns are at least
 * half alike, otherwise they stay 'removed' + 'inserted'. Bounds keep the worst case fast on
 * 10,000-turn runs: a stretch with more than 40,000 cells (200 × 200), or more than 40,000 pairs of
 * calls to compare (its calls in a × its calls in b), is paired by position instead of by DP
 * (k-th with k-th, 'changed' if similarity ≥ 0.5, else removed + inserted); when the runs differ
 * in more than 1,000 turns the diff gives up (its cost would grow with their product), and the
 * part between their common prefix and common suffix is handled as one such stretch.
 *
 * Symmetry. The result does not depend on which run is passed first: the work is always done with
 * the runs in one canonical order (decided by the first turn where they differ) and transposed
 * when the caller passed them the other way round, so swapping a and b swaps 'removed' and
 * 'inserted' and nothing else.
 *
 * Rows follow both runs in order; between two paired turns the removed rows come before the
 * inserted ones. `firstDivergence` is the first row that is not 'same', and `similarity` the
 * mean of the row similarities ('same' 1, 'changed' its turn similarity, 'removed' and
 * 'inserted' 0), 1 for two empty runs.
 */
import { diffArrays } from 'diff';
import { fnv1a32 } from '../fnv1a';

/** One turn of a run as the comparison sees it. */
export interface ComparableTurn {
  /** 1-based model step. */
  step: number;
  /** What the turn ended with: e.g. 'tool_calls', 'text', 'error' — compared as is. */
  outcome: string;
  calls: readonly ComparableCall[];
}

export interface ComparableCall {
  tool: string;
  /** The arguments, already normalized by the caller into a canonical string (JSON with sorted keys, volatile values masked). */
  args: string;
  /**
   * What call equality compares instead of `args` when given: e.g. a hash of the full arguments
   * when `args` is only their start. Similarity still reads `args`.
   */
  identity?: string;
}

export type TurnOp = 'same' | 'changed' | 'removed' | 'inserted';

export interface AlignedCall {
  /** Index into the a turn's calls, null when inserted. */
  a: number | null;
  /** Index into the b turn's calls, null when removed. */
  b: number | null;
  op: TurnOp;
  similarity: number;
}

export interface AlignedTurn {
  op: TurnOp;
  /** Index into a (not the step), null when inserted. */
  a: number | null;
  /** Index into b, null when removed. */
  b: number | null;
  /** 0..1; 1 for same, 0 for removed and inserted. */
  similarity: number;
  /** For same/changed: the calls paired within the turn, order-insensitive; empty otherwise. */
  calls: AlignedCall[];
}

export interface RunAlignment {
  rows: AlignedTurn[];
  /** Index into rows of the first row that is not 'same'; null when the runs match throughout. */
  firstDivergence: number | null;
  /** Overall similarity 0..1: the mean of the row similarities, 1 for two empty runs. */
  similarity: number;
}

/** Characters of an argument string that similarity looks at. */
export const ARGUMENT_CHARS_COMPARED = 2_000;
/** Above this many differing turns the LCS diff gives up (its cost grows with (n + m) × edits). */
export const MAX_DIFF_EDITS = 1_000;
/** Stretches of unmatched turns with more cells than this are paired by position, not by DP. */
export const MAX_DP_CELLS = 200 * 200;
/** …or with more pairs of calls to compare than this (calls in a's part × calls in b's part). */
export const MAX_DP_CALL_PAIRS = 40_000;
/** Longer strings are interned by our own hash (see Interner.longTextId); well below V8's 16,383. */
const LONG_TEXT = 1_024;
/** Pairs less alike than this are not 'changed' but 'removed' + 'inserted'. */
const PAIR_THRESHOLD = 0.5;
const OUTCOME_WEIGHT = 0.25;

/** A paired turn or call, before it becomes a row. */
interface Pair {
  a: number;
  b: number;
  op: 'same' | 'changed';
  similarity: number;
}

interface TurnPair extends Pair {
  calls: Pair[];
}

/** A call with its parts interned. */
interface InternedCall {
  tool: number;
  /** The interned identity, or arguments when the call has none. */
  argsId: number;
  argsText: string;
}

interface InternedTurn {
  identity: number;
  outcome: number;
  calls: InternedCall[];
}

export function alignRuns(a: readonly ComparableTurn[], b: readonly ComparableTurn[]): RunAlignment {
  const interner = new Interner();
  const turnsA = a.map((turn) => interner.turn(turn));
  const turnsB = b.map((turn) => interner.turn(turn));
  const swapped = compareRuns(a, b, turnsA, turnsB) > 0;
  const pairs = swapped ? matchTurns(turnsB, turnsA, interner).map(transposeTurnPair) : matchTurns(turnsA, turnsB, interner);
  const rows = buildRows(pairs, a, b);
  const firstDivergence = rows.findIndex((row) => row.op !== 'same');
  const similarity = rows.length === 0 ? 1 : rows.reduce((sum, row) => sum + row.similarity, 0) / rows.length;
  return { rows, firstDivergence: firstDivergence < 0 ? null : firstDivergence, similarity };
}

/** Interns tools, argument strings, outcomes and turn identities; caches argument tokens. */
class Interner {
  private readonly ids = new Map<string, number>();
  private readonly longTexts = new Map<string, { text: string; id: number }[]>();
  private readonly tokens = new Map<number, Int32Array>();
  private nextId = 0;

  turn(turn: ComparableTurn): InternedTurn {
    const outcome = this.id('o', turn.outcome);
    const calls = turn.calls.map((call) => ({ tool: this.id('t', call.tool), argsId: this.id('a', call.identity ?? call.args), argsText: call.args }));
    // The sorted call keys make the identity a multiset: call order inside a turn does not count.
    const callKeys = calls.map((call) => `${call.tool},${call.argsId}`).sort();
    return { identity: this.id('i', `${outcome}|${callKeys.join(';')}`), outcome, calls };
  }

  /** Sorted hashes of the word tokens in the first ARGUMENT_CHARS_COMPARED characters, computed once per distinct string. */
  argumentTokens(call: InternedCall): Int32Array {
    let tokens = this.tokens.get(call.argsId);
    if (tokens === undefined) {
      const words = call.argsText.slice(0, ARGUMENT_CHARS_COMPARED).match(/[\p{L}\p{N}_]+/gu) ?? [];
      tokens = Int32Array.from(words, fnv1a32).sort();
      this.tokens.set(call.argsId, tokens);
    }
    return tokens;
  }

  // One id space for all kinds; the one-letter prefix keeps a tool and an outcome of the same name apart.
  private id(kind: string, value: string): number {
    if (value.length > LONG_TEXT) return this.longTextId(kind, value);
    const key = kind + value;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(key, id);
    }
    return id;
  }

  // V8 hashes a string longer than 16,383 characters by its length alone, so a Map keyed by many
  // long arguments of one length degrades to comparing each with all the others (3,000 strings of
  // 17,000 characters: 5 s). Strings past LONG_TEXT are bucketed by our own hash of all their text.
  private longTextId(kind: string, value: string): number {
    const key = `${kind}${value.length}:${fnv1a32(value)}`;
    const bucket = this.longTexts.get(key) ?? [];
    const found = bucket.find((entry) => entry.text === value);
    if (found) return found.id;
    const id = this.nextId++;
    bucket.push({ text: value, id });
    this.longTexts.set(key, bucket);
    return id;
  }
}

/** The paired turns of a and b in order of both, exact matches first, then the stretches between them. */
function matchTurns(a: readonly InternedTurn[], b: readonly InternedTurn[], interner: Interner): TurnPair[] {
  const pairs: Pair[] = [];
  const pairStretch = (aStart: number, aEnd: number, bStart: number, bEnd: number) => {
    // A loop, not push(...): a stretch can hold more pairs than a call takes arguments.
    for (const pair of pairUnmatched(a, b, aStart, aEnd, bStart, bEnd, interner)) pairs.push(pair);
  };
  const changes = diffArrays(
    a.map((turn) => turn.identity),
    b.map((turn) => turn.identity),
    { maxEditLength: MAX_DIFF_EDITS },
  );
  if (changes === undefined) {
    // Too different for the diff: keep the common ends, pair the middle as one stretch.
    let prefix = 0;
    while (prefix < a.length && prefix < b.length && a[prefix]?.identity === b[prefix]?.identity) prefix++;
    let suffix = 0;
    while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix]?.identity === b[b.length - 1 - suffix]?.identity) suffix++;
    for (let k = 0; k < prefix; k++) pairs.push({ a: k, b: k, op: 'same', similarity: 1 });
    pairStretch(prefix, a.length - suffix, prefix, b.length - suffix);
    for (let k = suffix; k > 0; k--) pairs.push({ a: a.length - k, b: b.length - k, op: 'same', similarity: 1 });
  } else {
    let aPos = 0;
    let bPos = 0;
    let stretchA = 0;
    let stretchB = 0;
    for (const change of changes) {
      if (change.removed) aPos += change.count;
      else if (change.added) bPos += change.count;
      else {
        pairStretch(stretchA, aPos, stretchB, bPos);
        for (let k = 0; k < change.count; k++) pairs.push({ a: aPos + k, b: bPos + k, op: 'same', similarity: 1 });
        aPos += change.count;
        bPos += change.count;
        stretchA = aPos;
        stretchB = bPos;
      }
    }
    pairStretch(stretchA, aPos, stretchB, bPos);
  }
  return pairs.map((pair) => {
    const turnA = a[pair.a];
    const turnB = b[pair.b];
    return { ...pair, calls: turnA && turnB ? pairCalls(turnA.calls, turnB.calls, interner) : [] };
  });
}

/** Pairs the turns a[aStart..aEnd) with b[bStart..bEnd), none of which the diff matched exactly. */
function pairUnmatched(
  a: readonly InternedTurn[],
  b: readonly InternedTurn[],
  aStart: number,
  aEnd: number,
  bStart: number,
  bEnd: number,
  interner: Interner,
): Pair[] {
  const rows = aEnd - aStart;
  const cols = bEnd - bStart;
  if (rows === 0 || cols === 0) return [];
  const similarity = (i: number, j: number): number => {
    const turnA = a[aStart + i];
    const turnB = b[bStart + j];
    return turnA && turnB ? turnSimilarity(turnA, turnB, interner) : 0;
  };
  const pair = (i: number, j: number, value: number): Pair => ({
    a: aStart + i,
    b: bStart + j,
    // Only reachable after the diff gave up: equal turns can then meet here.
    op: a[aStart + i]?.identity === b[bStart + j]?.identity ? 'same' : 'changed',
    similarity: value,
  });

  const callCount = (turns: readonly InternedTurn[], start: number, end: number) => turns.slice(start, end).reduce((sum, turn) => sum + turn.calls.length, 0);
  if (rows * cols > MAX_DP_CELLS || callCount(a, aStart, aEnd) * callCount(b, bStart, bEnd) > MAX_DP_CALL_PAIRS) {
    const pairs: Pair[] = [];
    for (let k = 0; k < Math.min(rows, cols); k++) {
      const value = similarity(k, k);
      if (value >= PAIR_THRESHOLD) pairs.push(pair(k, k, value));
    }
    return pairs;
  }

  // Needleman–Wunsch: best[i][j] is the best score aligning the first i with the first j turns;
  // a pair scores similarity − 0.5 and is allowed only at ≥ 0.5, a gap scores 0.
  const width = cols + 1;
  const similarities = new Float64Array(rows * cols);
  const best = new Float64Array((rows + 1) * width);
  for (let i = 1; i <= rows; i++) {
    for (let j = 1; j <= cols; j++) {
      const value = similarity(i - 1, j - 1);
      similarities[(i - 1) * cols + (j - 1)] = value;
      const skip = Math.max(best[(i - 1) * width + j] ?? 0, best[i * width + j - 1] ?? 0);
      const take = value >= PAIR_THRESHOLD ? (best[(i - 1) * width + j - 1] ?? 0) + value - PAIR_THRESHOLD : -Infinity;
      best[i * width + j] = Math.max(skip, take);
    }
  }
  const pairs: Pair[] = [];
  let i = rows;
  let j = cols;
  while (i > 0 && j > 0) {
    const value = similarities[(i - 1) * cols + (j - 1)] ?? 0;
    const score = best[i * width + j] ?? 0;
    // A pair wins ties, so turns exactly half alike are 'changed' as documented.
    if (value >= PAIR_THRESHOLD && score === (best[(i - 1) * width + j - 1] ?? 0) + value - PAIR_THRESHOLD) {
      pairs.push(pair(i - 1, j - 1, value));
      i--;
      j--;
    } else if (score === (best[(i - 1) * width + j] ?? 0)) i--;
    else j--;
  }
  return pairs.reverse();
}

function turnSimilarity(a: InternedTurn, b: InternedTurn, interner: Interner): number {
  if (a.identity === b.identity) return 1;
  const outcomeScore = a.outcome === b.outcome ? 1 : 0;
  const callCount = Math.max(a.calls.length, b.calls.length);
  if (callCount === 0) return outcomeScore;
  const callScore = pairCalls(a.calls, b.calls, interner).reduce((sum, pair) => sum + pair.similarity, 0) / callCount;
  return OUTCOME_WEIGHT * outcomeScore + (1 - OUTCOME_WEIGHT) * callScore;
}

/** Pairs the calls of two turns: equal keys first, then the most similar of the same tool. */
function pairCalls(a: readonly InternedCall[], b: readonly InternedCall[], interner: Interner): Pair[] {
  const pairs: Pair[] = [];
  const pairedA = new Array<boolean>(a.length).fill(false);
  const pairedB = new Array<boolean>(b.length).fill(false);
  const waitingByKey = new Map<string, number[]>();
  b.forEach((call, j) => {
    const key = `${call.tool},${call.argsId}`;
    const waiting = waitingByKey.get(key);
    if (waiting) waiting.push(j);
    else waitingByKey.set(key, [j]);
  });
  a.forEach((call, i) => {
    const j = waitingByKey.get(`${call.tool},${call.argsId}`)?.shift();
    if (j === undefined) return;
    pairs.push({ a: i, b: j, op: 'same', similarity: 1 });
    pairedA[i] = true;
    pairedB[j] = true;
  });

  const candidates: Pair[] = [];
  a.forEach((callA, i) => {
    if (pairedA[i]) return;
    b.forEach((callB, j) => {
      if (pairedB[j] || callA.tool !== callB.tool) return;
      candidates.push({ a: i, b: j, op: 'changed', similarity: callSimilarity(callA, callB, interner) });
    });
  });
  candidates.sort((x, y) => y.similarity - x.similarity || x.a - y.a || x.b - y.b);
  for (const candidate of candidates) {
    if (pairedA[candidate.a] || pairedB[candidate.b] || candidate.similarity < PAIR_THRESHOLD) continue;
    pairs.push(candidate);
    pairedA[candidate.a] = true;
    pairedB[candidate.b] = true;
  }
  return pairs;
}

function callSimilarity(a: InternedCall, b: InternedCall, interner: Interner): number {
  if (a.tool !== b.tool) return 0;
  if (a.argsId === b.argsId) return 1;
  return 0.5 + 0.5 * tokenOverlap(interner.argumentTokens(a), interner.argumentTokens(b));
}

/** shared / (total − shared + 1) of two sorted token multisets: below 1 for strings known to differ. */
function tokenOverlap(a: Int32Array, b: Int32Array): number {
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] ?? 0;
    const y = b[j] ?? 0;
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return shared / (a.length + b.length - shared + 1);
}

/**
 * Orders two runs independently of how they were passed: by the first turn where their identities
 * differ (outcome, call count, then the sorted calls), else by length. Positive means "swap".
 */
function compareRuns(a: readonly ComparableTurn[], b: readonly ComparableTurn[], turnsA: readonly InternedTurn[], turnsB: readonly InternedTurn[]): number {
  for (let k = 0; k < Math.min(a.length, b.length); k++) {
    const turnA = a[k];
    const turnB = b[k];
    if (turnsA[k]?.identity === turnsB[k]?.identity || !turnA || !turnB) continue;
    return compareTurns(turnA, turnB);
  }
  return a.length - b.length;
}

function compareTurns(a: ComparableTurn, b: ComparableTurn): number {
  const byKey = (x: ComparableCall, y: ComparableCall) => compareText(x.tool, y.tool) || compareText(x.identity ?? x.args, y.identity ?? y.args);
  const callsA = [...a.calls].sort(byKey);
  const callsB = [...b.calls].sort(byKey);
  let order = compareText(a.outcome, b.outcome) || callsA.length - callsB.length;
  for (let k = 0; order === 0 && k < callsA.length; k++) {
    const callA = callsA[k];
    const callB = callsB[k];
    if (callA && callB) order = byKey(callA, callB);
  }
  return order;
}

function compareText(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function transposeTurnPair(pair: TurnPair): TurnPair {
  return { ...pair, a: pair.b, b: pair.a, calls: pair.calls.map((call) => ({ ...call, a: call.b, b: call.a })) };
}

/** Rows in order of both runs: before each pair, the unpaired turns of a (removed) then of b (inserted). */
function buildRows(pairs: readonly TurnPair[], a: readonly ComparableTurn[], b: readonly ComparableTurn[]): AlignedTurn[] {
  const rows: AlignedTurn[] = [];
  let nextA = 0;
  let nextB = 0;
  const fillTo = (aEnd: number, bEnd: number) => {
    for (; nextA < aEnd; nextA++) rows.push({ op: 'removed', a: nextA, b: null, similarity: 0, calls: [] });
    for (; nextB < bEnd; nextB++) rows.push({ op: 'inserted', a: null, b: nextB, similarity: 0, calls: [] });
  };
  for (const pair of pairs) {
    fillTo(pair.a, pair.b);
    const calls = buildCallRows(pair.calls, a[pair.a]?.calls.length ?? 0, b[pair.b]?.calls.length ?? 0);
    rows.push({ op: pair.op, a: pair.a, b: pair.b, similarity: pair.similarity, calls });
    nextA = pair.a + 1;
    nextB = pair.b + 1;
  }
  fillTo(a.length, b.length);
  return rows;
}

/** Calls in order of a's calls (paired or removed), then b's unpaired calls (inserted). */
function buildCallRows(pairs: readonly Pair[], countA: number, countB: number): AlignedCall[] {
  const byA = new Map(pairs.map((pair) => [pair.a, pair]));
  const pairedB = new Set(pairs.map((pair) => pair.b));
  const rows: AlignedCall[] = [];
  for (let i = 0; i < countA; i++) {
    const pair = byA.get(i);
    rows.push(pair ? { a: i, b: pair.b, op: pair.op, similarity: pair.similarity } : { a: i, b: null, op: 'removed', similarity: 0 });
  }
  for (let j = 0; j < countB; j++) if (!pairedB.has(j)) rows.push({ a: null, b: j, op: 'inserted', similarity: 0 });
  return rows;
}
