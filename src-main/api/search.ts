/**
 * Full-text search over a trace's events (the `search` API method), on the FTS5 index ingest
 * builds (search_index over search_text; engine/ingest/searchText.ts says what is indexed).
 *
 * The user types plain words, never FTS5 syntax: each whitespace-separated word becomes a quoted
 * FTS5 string (so `OR`, `NEAR(`, `-`, `:`, `*` and quotes are text), all words must match, and the
 * last one matches as a prefix, so results appear while the last word is still being typed. A word
 * the tokenizer splits (`foo-bar`, `a.b`) matches as a phrase: its parts next to each other.
 *
 * Hits are ranked by bm25, then by event id. Each hit's snippet is plain text cut from the event's
 * stored text around its first match, computed here rather than by FTS5's snippet(), which would
 * evaluate the query again for every hit (a one-letter prefix expands to thousands of terms).
 */
import type Database from 'better-sqlite3';
import type { ApiParsedRequest, ApiResponse, SearchHit } from '../../shared/api';

/** Characters of context a snippet shows before its first match, and its length at most. */
const CONTEXT_BEFORE = 40;
const SNIPPET_CHARS = 180;

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
function wordsOf(query: string): string[] {
  return query.split(/\s+/u).filter((word) => word !== '');
}

/** The FTS5 query for the words: each a quoted string, all required, the last a prefix. */
function ftsQuery(words: readonly string[]): string {
  return words.map((word, index) => `"${word.replaceAll('"', '""')}"${index === words.length - 1 ? '*' : ''}`).join(' AND ');
}

interface Token {
  start: number;
  end: number;
  folded: string;
}

/** A word as matched: its folded tokens next to each other, the last one a prefix for the last word. */
interface Phrase {
  tokens: string[];
  prefix: boolean;
}

function tokensOf(text: string): Token[] {
  return Array.from(text.matchAll(tokenPattern), (match) => ({ start: match.index, end: match.index + match[0].length, folded: fold(match[0]) }));
}

function phrasesOf(words: readonly string[]): Phrase[] {
  return words.map((word, index) => ({ tokens: tokensOf(word).map((token) => token.folded), prefix: index === words.length - 1 })).filter((phrase) => phrase.tokens.length > 0);
}

/** Where the phrases occur in the text: [start, end) ranges, in text order, not overlapping. */
function matchRanges(text: string, phrases: readonly Phrase[]): [number, number][] {
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

/**
 * Plain text around the first match, with the matches in it as [start, end) ranges (JavaScript
 * string indices). Runs of whitespace (a tool output's line breaks) become one space. Where the
 * tokenizer and this reading of it differ (rare scripts), the snippet is the text's start, unmarked.
 */
function snippetOf(text: string, phrases: readonly Phrase[]): { snippet: string; matches: [number, number][] } {
  const ranges = matchRanges(text, phrases);
  const [firstStart, firstEnd] = ranges[0] ?? [0, 0];
  let start = Math.max(0, firstStart - CONTEXT_BEFORE);
  const cutBefore = start > 0;
  // Begin at a word (not inside one, nor on the whitespace before the text's first one).
  const wordStart = cutBefore ? text.slice(start, firstStart).search(/\s\S/u) + 1 : text.search(/\S/u);
  if (wordStart > 0) start += wordStart;
  let end = Math.max(firstEnd, Math.min(text.length, start + SNIPPET_CHARS));
  const cutAfter = end < text.length;
  // End after a word, not inside one.
  if (cutAfter) {
    const lastSpace = text.slice(firstEnd, end).search(/\s\S*$/u);
    if (lastSpace >= 0) end = firstEnd + lastSpace;
  }
  const matches: [number, number][] = [];
  let snippet = cutBefore ? '…' : '';
  let copied = start;
  for (const [rangeStart, rangeEnd] of ranges) {
    if (rangeStart < copied || rangeEnd > end) continue;
    snippet += collapseWhitespace(text.slice(copied, rangeStart));
    const matchStart = snippet.length;
    snippet += collapseWhitespace(text.slice(rangeStart, rangeEnd));
    matches.push([matchStart, snippet.length]);
    copied = rangeEnd;
  }
  snippet = (snippet + collapseWhitespace(text.slice(copied, end))).trimEnd() + (cutAfter ? '…' : '');
  return { snippet, matches };
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/gu, ' ');
}

interface HitRow {
  eventId: number;
  runPk: number;
  runId: string;
  line: number;
  type: string;
  step: number | null;
  text: string;
}

export function searchEvents(db: Database.Database, request: ApiParsedRequest<'search'>): ApiResponse<'search'> {
  const words = wordsOf(request.query);
  if (words.length === 0) return { total: 0, offset: request.offset, rows: [] };
  const query = ftsQuery(words);
  const runPk = request.runPk ?? null;
  const matching = `
    FROM search_index JOIN events e ON e.id = search_index.rowid
    WHERE search_index MATCH ? AND (? IS NULL OR e.run_pk = ?)`;
  const total = db.prepare<[string, number | null, number | null], number>(`SELECT count(*) ${matching}`).pluck().get(query, runPk, runPk) ?? 0;
  const page = db
    .prepare<[string, number | null, number | null, number, number], number>(
      `SELECT search_index.rowid ${matching} ORDER BY search_index.rank, search_index.rowid LIMIT ? OFFSET ?`,
    )
    .pluck()
    .all(query, runPk, runPk, request.limit, request.offset);
  const hit = db.prepare<[number], HitRow>(
    `SELECT e.id AS eventId, e.run_pk AS runPk, r.run_id AS runId, e.line, e.type, e.step, t.text
     FROM events e JOIN runs r ON r.id = e.run_pk JOIN search_text t ON t.event_id = e.id
     WHERE e.id = ?`,
  );
  const phrases = phrasesOf(words);
  const rows = page.flatMap((eventId): SearchHit[] => {
    const row = hit.get(eventId);
    if (row === undefined) return [];
    const { text, ...event } = row;
    return [{ ...event, ...snippetOf(text, phrases) }];
  });
  return { total, offset: request.offset, rows };
}
