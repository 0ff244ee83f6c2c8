/**
 * Full-text search over a trace's events (the `search` API method), on the FTS5 index ingest
 * builds (search_index over search_text; engine/ingest/searchText.ts says what is indexed).
 *
 * The user types plain words, never FTS5 syntax: each whitespace-separated word becomes a quoted
 * FTS5 string (so `OR`, `NEAR(`, `-`, `:`, `*` and quotes are text), all words must match, and the
 * last one matches as a prefix, so results appear while the last word is still being typed. A word
 * the tokenizer splits (`foo-bar`, `a.b`) matches as a phrase: its parts next to each other.
 *
 * Hits are listed by position (run, step, line), as the user reads the trace; `afterEventId` asks
 * for those after an event (the inspector's "next match"). Each hit's snippet is plain text cut from the event's
 * stored text around its first match, computed here rather than by FTS5's snippet(), which would
 * evaluate the query again for every hit (a one-letter prefix expands to thousands of terms).
 */
import type Database from 'better-sqlite3';
import type { ApiParsedRequest, ApiResponse, SearchHit } from '../../shared/api';
import { matchRanges, phrasesOf, queryWords, type Phrase } from '../../shared/searchMatches';
import { searchHitReader, searchPage } from '../engine';

/** Characters of context a snippet shows before its first match, and its length at most. */
const CONTEXT_BEFORE = 40;
const SNIPPET_CHARS = 180;

/** The FTS5 query for the words: each a quoted string, all required, the last a prefix. */
export function ftsQuery(words: readonly string[]): string {
  return words.map((word, index) => `"${word.replaceAll('"', '""')}"${index === words.length - 1 ? '*' : ''}`).join(' AND ');
}

/**
 * Plain text around the first match, with the matches in it as [start, end) ranges (JavaScript
 * string indices). Runs of whitespace (a tool output's line breaks) become one space. Where the
 * tokenizer and this reading of it differ (rare scripts), the snippet is the text's start, unmarked.
 */
export function snippetOf(text: string, phrases: readonly Phrase[]): { snippet: string; matches: [number, number][] } {
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

export function searchEvents(db: Database.Database, request: ApiParsedRequest<'search'>): ApiResponse<'search'> {
  const words = queryWords(request.query);
  if (words.length === 0) return { total: 0, offset: request.offset, rows: [] };
  const query = ftsQuery(words);
  const { total, eventIds } = searchPage(db, query, { runPk: request.runPk ?? null, afterEventId: request.afterEventId }, request);
  const hit = searchHitReader(db);
  const phrases = phrasesOf(words);
  const rows = eventIds.flatMap((eventId): SearchHit[] => {
    const row = hit(eventId);
    if (row === undefined) return [];
    const { text, ...event } = row;
    return [{ ...event, ...snippetOf(text, phrases) }];
  });
  return { total, offset: request.offset, rows };
}
