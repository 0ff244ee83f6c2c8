/**
 * Where the words of a search query occur in a text, read the way the search index (SQLite FTS5,
 * unicode61 tokenizer with diacritics removed) reads them: every word must match a whole token, the
 * last one may be a token's start, and a word the tokenizer splits (`foo-bar`, `a.b`) matches its
 * parts next to each other. The server cuts snippets with it; the inspector highlights with it, so
 * what is marked is what was found.
 */

/**
 * Word characters as the unicode61 tokenizer sees them, closely enough to find what it matched:
 * letters, numbers, marks (diacritics, removed when folding) and private-use characters.
 */
const tokenPattern = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const asciiOnly = /^\p{ASCII}*$/u;

/** A token as unicode61 with remove_diacritics compares it: lower case, diacritics removed. */
function fold(token: string): string {
  return asciiOnly.test(token) ? token.toLowerCase() : token.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The user's words, as typed: separated by whitespace. */
export function queryWords(query: string): string[] {
  return query.split(/\s+/u).filter((word) => word !== '');
}

interface Token {
  start: number;
  end: number;
  folded: string;
}

/** A word as matched: its folded tokens next to each other, the last one a prefix for the last word. */
export interface Phrase {
  tokens: string[];
  prefix: boolean;
}

function tokensOf(text: string): Token[] {
  return Array.from(text.matchAll(tokenPattern), (match) => ({ start: match.index, end: match.index + match[0].length, folded: fold(match[0]) }));
}

export function phrasesOf(words: readonly string[]): Phrase[] {
  return words
    .map((word, index) => ({ tokens: tokensOf(word).map((token) => token.folded), prefix: index === words.length - 1 }))
    .filter((phrase) => phrase.tokens.length > 0);
}

/** Where the phrases occur in the text: [start, end) ranges, in text order, not overlapping. */
export function matchRanges(text: string, phrases: readonly Phrase[]): [number, number][] {
  if (phrases.length === 0) return [];
  const tokens = tokensOf(text);
  const ranges: [number, number][] = [];
  for (let at = 0; at < tokens.length; at += 1) {
    const phrase = phrases.find(({ tokens: parts, prefix }) =>
      parts.every((part, offset) => {
        const folded = tokens[at + offset]?.folded;
        if (folded === undefined) return false;
        return prefix && offset === parts.length - 1 ? folded.startsWith(part) : folded === part;
      }),
    );
    if (phrase === undefined) continue;
    ranges.push([tokens[at]!.start, tokens[at + phrase.tokens.length - 1]!.end]);
    at += phrase.tokens.length - 1;
  }
  return ranges;
}
