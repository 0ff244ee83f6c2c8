/**
 * A trace's search terms as a Bloom filter the library keeps (docs/semantics.md §19), so that a
 * search across thousands of traces opens only the traces that may hold every word — a rare word
 * is looked up in a handful, not in all of them. A filter never says no to a trace that holds the
 * words (no false negatives); about one trace in a hundred it says "maybe" wrongly, and that trace
 * is searched for nothing.
 *
 * Its entries are the terms of the trace's full-text index (folded as the index folds them: lower
 * case, diacritics removed), each as a whole (`t` + term), and the first four characters of each
 * (`p` + prefix), because the query's last word matches as a prefix. Only a query written in ASCII
 * is looked up: its words split and fold (lower case) the same in the index's tokenizer and in
 * shared/searchMatches.ts; a query with any other character (which the two might fold apart: `İ`,
 * ligatures) cannot rule a trace out, so every trace is searched.
 */
import { phrasesOf } from '../searchMatches';
import { fnv1a32 } from '../fnv1a';

const PREFIX_CHARS = 4;
/** 10 bits per entry and 7 probes: about 1% false positives. */
const BITS_PER_ENTRY = 10;
const PROBES = 7;
/** A trace with more entries than this (tens of megabytes of filter) keeps none, and is always searched. */
export const MAX_FILTER_ENTRIES = 4_000_000;

const asciiText = /^\p{ASCII}*$/u;

/** The second hash of double hashing: the first, mixed (murmur3's finaliser), odd so every probe differs. */
function mixed(hash: number): number {
  let h = hash;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) | 1) >>> 0;
}

function probe(filter: Uint8Array, entry: string, set: boolean): boolean {
  const bits = filter.length * 8;
  const first = fnv1a32(entry);
  const step = mixed(first);
  for (let index = 0; index < PROBES; index += 1) {
    const bit = (first + Math.imul(index, step)) >>> 0;
    const at = bit % bits;
    const mask = 1 << (at & 7);
    if (set) filter[at >>> 3]! |= mask;
    else if ((filter[at >>> 3]! & mask) === 0) return false;
  }
  return true;
}

/** The filter of a trace's terms; null when it has too many to be worth keeping (it is then always searched). */
export function buildTermFilter(terms: Iterable<string>): Uint8Array | null {
  const entries = new Set<string>();
  for (const term of terms) {
    entries.add(`t${term}`);
    entries.add(`p${term.slice(0, PREFIX_CHARS)}`);
    if (entries.size > MAX_FILTER_ENTRIES) return null;
  }
  const filter = new Uint8Array(Math.max(8, Math.ceil((entries.size * BITS_PER_ENTRY) / 8)));
  for (const entry of entries) probe(filter, entry, true);
  return filter;
}

/**
 * False only when the trace cannot hold the query's words (as shared/searchMatches.ts reads them):
 * some word's token is not among its terms, or, for the last word's last token, no term starts with
 * its first four characters.
 */
export function mayHoldWords(filter: Uint8Array, words: readonly string[]): boolean {
  if (!words.every((word) => asciiText.test(word))) return true;
  for (const phrase of phrasesOf(words)) {
    for (const [index, token] of phrase.tokens.entries()) {
      const asPrefix = phrase.prefix && index === phrase.tokens.length - 1;
      if (asPrefix && token.length < PREFIX_CHARS) continue;
      if (!probe(filter, asPrefix ? `p${token.slice(0, PREFIX_CHARS)}` : `t${token}`, false)) return false;
    }
  }
  return true;
}
