/**
 * Context growth over a run's requests (docs/semantics.md §9). With a fixed prefix of S tokens and T new
 * tokens per turn, request n holds S + n×T input tokens and the first N requests cost
 * N×S + T×N(N+1)/2 together: linear growth per request, quadratic in total.
 *
 * - The fit: S and T by least squares on the cumulative input over all requests.
 * - The largest growth: a request's growth is its input minus the previous request's. Every request
 *   that grew is ranked by the tokens it added, largest first: the answer to "where did the context
 *   grow most". Not a ratio to the typical step: in a run whose median step is 377 tokens a 1.2k
 *   result is 3× typical yet nothing to act on, while the 40 KB tool result at the top is. A
 *   compaction's negative step is no growth (the view lists compactions apart). The typical step
 *   (the median of the positive growths) stays as the scale the ranking is read against.
 * - Attribution: every part of a request (system prompt, tool definitions, each message) is
 *   estimated with the given tokenizer; when the provider recorded the request's input tokens the
 *   estimates are scaled to that total (largest remainder, so the parts add up to it exactly).
 */
import type { NormalizedRequest } from './normalizedRequest';

export interface GrowthFit {
  /** S: the fixed prefix, tokens. */
  prefixTokens: number;
  /** T: tokens added per turn. */
  tokensPerTurn: number;
  /** N×S + T×N(N+1)/2 for N = 1…requests. */
  predictedCumulative: number[];
  /** Of the cumulative series; null when the series is constant. */
  rSquared: number | null;
}

export interface GrowthStep {
  /** 0-based request index. */
  requestIndex: number;
  /** Tokens added: this request's input minus the previous one's (> 0). */
  growth: number;
}

export interface ContextGrowth {
  cumulative: number[];
  /** Per request: input minus the previous request's input; null for the first. */
  growth: (number | null)[];
  fit: GrowthFit | null;
  typicalGrowth: number | null;
  /** Every request that grew, the most tokens added first (ties: the earlier request first). */
  largestGrowth: GrowthStep[];
}

/** Least squares for S and T on the cumulative input; null with fewer than two requests. */
export function fitContextGrowth(inputTokens: readonly number[]): GrowthFit | null {
  if (inputTokens.length < 2) return null;
  let sumAA = 0;
  let sumAB = 0;
  let sumBB = 0;
  let sumAC = 0;
  let sumBC = 0;
  let cumulative = 0;
  const series: number[] = [];
  inputTokens.forEach((tokens, i) => {
    const n = i + 1;
    const a = n;
    const b = (n * (n + 1)) / 2;
    cumulative += tokens;
    series.push(cumulative);
    sumAA += a * a;
    sumAB += a * b;
    sumBB += b * b;
    sumAC += a * cumulative;
    sumBC += b * cumulative;
  });
  const determinant = sumAA * sumBB - sumAB * sumAB;
  const prefixTokens = (sumAC * sumBB - sumBC * sumAB) / determinant;
  const tokensPerTurn = (sumAA * sumBC - sumAB * sumAC) / determinant;
  const predictedCumulative = series.map((_, i) => (i + 1) * prefixTokens + (tokensPerTurn * (i + 1) * (i + 2)) / 2);
  const mean = series.reduce((sum, value) => sum + value, 0) / series.length;
  const total = series.reduce((sum, value) => sum + (value - mean) ** 2, 0);
  const residual = series.reduce((sum, value, i) => sum + (value - predictedCumulative[i]!) ** 2, 0);
  return { prefixTokens, tokensPerTurn, predictedCumulative, rSquared: total === 0 ? null : 1 - residual / total };
}

/**
 * What the fit says about the run (docs/semantics.md §9), so no sentence claims more than the fit:
 * - `irregular`: the history was compacted (it started over: no one S and T describe both sides),
 *   R² below `goodFitR2`, or a negative prefix (no run sends fewer than zero tokens): the run does
 *   not grow by a steady step, and S and T describe nothing;
 * - `flat`: T is negligible (over the whole run it adds under 5% of S): each request is about S,
 *   and the total grows linearly with the turns;
 * - `shrinking`: T < 0: each request is smaller than the one before (the history is trimmed);
 * - `quadratic`: T > 0: each request is about S + n×T, and the total grows with the square of the turns.
 */
export type GrowthShape = 'irregular' | 'flat' | 'shrinking' | 'quadratic';

export const goodFitR2 = 0.95;
const flatShare = 0.05;

export function growthShape(fit: Pick<GrowthFit, 'prefixTokens' | 'tokensPerTurn' | 'rSquared' | 'predictedCumulative'>, compacted = false): GrowthShape {
  if (compacted || fit.prefixTokens < 0 || (fit.rSquared !== null && fit.rSquared < goodFitR2)) return 'irregular';
  if (Math.abs(fit.tokensPerTurn) * fit.predictedCumulative.length <= flatShare * fit.prefixTokens) return 'flat';
  return fit.tokensPerTurn < 0 ? 'shrinking' : 'quadratic';
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function contextGrowth(inputTokens: readonly number[]): ContextGrowth {
  let running = 0;
  const cumulative = inputTokens.map((tokens) => (running += tokens));
  const growth = inputTokens.map((tokens, i) => (i === 0 ? null : tokens - inputTokens[i - 1]!));
  const typicalGrowth = median(growth.filter((step): step is number => step !== null && step > 0));
  const largestGrowth: GrowthStep[] = [];
  growth.forEach((step, requestIndex) => {
    if (step !== null && step > 0) largestGrowth.push({ requestIndex, growth: step });
  });
  largestGrowth.sort((a, b) => b.growth - a.growth || a.requestIndex - b.requestIndex);
  return { cumulative, growth, fit: fitContextGrowth(inputTokens), typicalGrowth, largestGrowth };
}

export interface TokenShare {
  source: 'system' | 'tools' | 'message';
  messageIndex: number | null;
  role: string | null;
  /** The tool whose result this is (role `tool`), or the tools an assistant message calls. */
  tools: string[];
  /** Added by this request (one of the `appended` messages). */
  appended: boolean;
  tokens: number;
}

/** What a request added, grouped: one entry per role, and per tool for tool results. */
export interface AddedTokens {
  role: string;
  /** The tool whose results these are (role `tool`); null for other roles. */
  tool: string | null;
  messages: number;
  tokens: number;
}

export interface RequestTokenAttribution {
  total: number;
  /** True when the shares were scaled to the recorded input tokens; false: a pure estimate. */
  scaledToRecorded: boolean;
  shares: TokenShare[];
  /** Tokens of the appended messages, together and grouped by role and tool. */
  appendedTokens: number;
  added: AddedTokens[];
}

/** Estimated tokens of each part of a request; the caller counts (shared/ holds no tokenizer). */
export interface RequestTokenCounts {
  system: number;
  tools: number;
  /** Per message, in request order. */
  messages: readonly number[];
}

/** Rounds `values` scaled to sum to `total` exactly: floors, then the largest remainders get +1. */
function scaleTo(values: readonly number[], total: number): number[] {
  const sum = values.reduce((a, b) => a + b, 0);
  const exact = values.map((value) => (value * total) / sum);
  const floors = exact.map(Math.floor);
  let left = total - floors.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((value, i) => i).sort((i, j) => exact[j]! - floors[j]! - (exact[i]! - floors[i]!));
  for (const i of byRemainder) {
    if (left <= 0) break;
    floors[i]!++;
    left--;
  }
  return floors;
}

/** Groups appended shares by role, and tool results by tool, largest first. */
export function groupAdded(shares: readonly Pick<TokenShare, 'appended' | 'role' | 'tools' | 'tokens'>[]): AddedTokens[] {
  const groups = new Map<string, AddedTokens>();
  for (const share of shares) {
    if (!share.appended || share.role === null) continue;
    const tool = share.role === 'tool' ? (share.tools[0] ?? null) : null;
    // Not a joined string: a tool named '' (a call sent without a name) is not "no tool".
    const key = JSON.stringify([share.role, tool]);
    const group = groups.get(key) ?? { role: share.role, tool, messages: 0, tokens: 0 };
    group.messages += 1;
    group.tokens += share.tokens;
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => b.tokens - a.tokens);
}

/**
 * What a turn added, scaled to its recorded growth (this request's input minus the previous
 * one's) when the history only grew: the new messages are exactly that growth.
 */
export function scaleAdded(added: readonly AddedTokens[], growth: number): AddedTokens[] {
  const estimated = added.reduce((sum, group) => sum + group.tokens, 0);
  if (growth <= 0 || estimated <= 0) return [...added];
  const scaled = scaleTo(
    added.map((group) => group.tokens),
    growth,
  );
  return added.map((group, i) => ({ ...group, tokens: scaled[i]! })).sort((a, b) => b.tokens - a.tokens);
}

/** The tool a message answers or calls, by the calls issued earlier in the request. */
function messageTools(request: NormalizedRequest): string[][] {
  const callNames = new Map<string, string>();
  return request.messages.map((message) => {
    for (const call of message.toolCalls) callNames.set(call.callId, call.name);
    const answered = message.toolCallId !== null ? (callNames.get(message.toolCallId) ?? message.name) : null;
    return answered !== null ? [answered] : message.toolCalls.map((call) => call.name);
  });
}

/**
 * Splits a request's tokens among its parts (docs/semantics.md §9: 685 + 202 + 57 + 3 + 23 + 20 = 990 = the
 * server's prompt_tokens). With the recorded input the estimates are scaled to it exactly.
 */
export function attributeRequestTokens(
  request: NormalizedRequest,
  appended: readonly number[],
  counts: RequestTokenCounts,
  recordedInputTokens: number | null = null,
): RequestTokenAttribution {
  const appendedSet = new Set(appended);
  const shares: TokenShare[] = [];
  if (request.system !== null) shares.push({ source: 'system', messageIndex: null, role: null, tools: [], appended: false, tokens: counts.system });
  if (request.tools.length > 0)
    shares.push({ source: 'tools', messageIndex: null, role: null, tools: request.tools.map((tool) => tool.name), appended: false, tokens: counts.tools });
  const tools = messageTools(request);
  request.messages.forEach((message, messageIndex) => {
    shares.push({
      source: 'message',
      messageIndex,
      role: message.role,
      tools: tools[messageIndex]!,
      appended: appendedSet.has(messageIndex),
      tokens: counts.messages[messageIndex] ?? 0,
    });
  });

  const estimated = shares.reduce((sum, share) => sum + share.tokens, 0);
  const scaledToRecorded = recordedInputTokens !== null && estimated > 0;
  if (scaledToRecorded)
    scaleTo(
      shares.map((share) => share.tokens),
      recordedInputTokens,
    ).forEach((tokens, i) => (shares[i]!.tokens = tokens));
  const added = groupAdded(shares);
  return {
    total: scaledToRecorded ? recordedInputTokens : estimated,
    scaledToRecorded,
    shares,
    appendedTokens: added.reduce((sum, group) => sum + group.tokens, 0),
    added,
  };
}
