/**
 * Compaction: the harness replaces (part of) the history with fewer messages — typically a summary
 * — to stay within the context window (docs/semantics.md §9). It is seen three ways, strongest first:
 * - the trace's own marker record (Claude Code `system/compact_boundary`, Codex `compacted`);
 * - the diff of two logged requests: many previous messages replaced by fewer (diffRequests.ts);
 * - only a drop in the input tokens the provider recorded: an append-only history cannot shrink,
 *   so a request whose input falls below `compactionDropRatio` of the previous one's lost part of
 *   its history, whether or not the trace logged it.
 */
import type { z } from 'zod';
import { formatCount } from '../formatCount';
import type { compactionEvidenceSchema } from '../report';

export type CompactionEvidence = z.infer<typeof compactionEvidenceSchema>;

export interface Compaction {
  evidence: CompactionEvidence;
  /** The record that marks it (its raw type and line); null when the trace has none. */
  marker: { typeRaw: string; line: number } | null;
  /** The previous request's input tokens and this one's, recorded or estimated; null when unknown. */
  tokensBefore: number | null;
  tokensAfter: number | null;
  /** tokensBefore − tokensAfter when the input fell; null when unknown or it did not fall. */
  tokensRemoved: number | null;
  /** Messages of the previous request no longer there (removed or replaced); null when only the token drop shows it. */
  messagesRemoved: number | null;
}

/** Below this share of the previous request's input tokens, a request's history was cut. */
export const compactionDropRatio = 0.75;

/**
 * Whether the input fell far enough that the history must have lost messages (a drop of over a
 * quarter). A count of 0 is no request's size — a provider or adapter that did not count — so it
 * is no drop.
 */
export function inputDropped(before: number | null, after: number | null): boolean {
  return before !== null && after !== null && after > 0 && after < before * compactionDropRatio;
}

export function compaction(
  evidence: CompactionEvidence,
  marker: Compaction['marker'],
  tokensBefore: number | null,
  tokensAfter: number | null,
  messagesRemoved: number | null,
): Compaction {
  const tokensRemoved = tokensBefore !== null && tokensAfter !== null && tokensAfter < tokensBefore ? tokensBefore - tokensAfter : null;
  return { evidence, marker, tokensBefore, tokensAfter, tokensRemoved, messagesRemoved };
}

/** "input 151,208 → 21,403 tokens (−129,805)", or null when a side is unknown. */
export function compactionTokens(found: Pick<Compaction, 'tokensBefore' | 'tokensAfter' | 'tokensRemoved'>): string | null {
  if (found.tokensBefore === null || found.tokensAfter === null) return null;
  const removed = found.tokensRemoved === null ? '' : ` (−${formatCount(found.tokensRemoved)})`;
  return `input ${formatCount(found.tokensBefore)} → ${formatCount(found.tokensAfter)} tokens${removed}`;
}
