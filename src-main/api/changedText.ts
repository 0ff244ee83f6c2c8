/**
 * What the request diff sends of a modified message: both texts whole when they are short; for
 * long ones, only their changed lines with a few lines of context, each unchanged stretch between
 * them replaced on both sides by the same marker line. The view's word diff then sees the marker
 * as unchanged text, the page never receives (or parses) megabytes it would fold away, and an
 * edit anywhere in a 2 MB message is shown — not only edits in its first kilobytes.
 *
 * Runs in the query worker, off the UI thread. A line diff first; for one long line (or changes on
 * every line) a word diff, keeping some characters of context. jsdiff gets a timeout and an edit
 * limit like every diff; when both give up, the texts are cut to the stretch between their common
 * prefix and suffix, capped.
 */
import { diffLines, diffWordsWithSpace, type Change } from 'diff';

/** Texts up to this long are sent whole. */
const SEND_WHOLE_CHARS = 64 * 1024;
/** Unchanged lines kept before and after each change. */
const CONTEXT_LINES = 3;
/** Characters of context kept next to a change within one long line. */
const CONTEXT_CHARS = 300;
/** Each side's excerpt is cut at this many characters. */
const MAX_EXCERPT_CHARS = 512 * 1024;
const diffLimits = { timeout: 1000, maxEditLength: 20_000 };

export interface ChangedText {
  previousText: string;
  nextText: string;
  /** Null when both texts are sent whole; otherwise what was left out. */
  excerpt: string | null;
}

function cap(text: string): { text: string; capped: boolean } {
  return text.length <= MAX_EXCERPT_CHARS ? { text, capped: false } : { text: text.slice(0, MAX_EXCERPT_CHARS), capped: true };
}

/** Splits text into lines that keep their `\n`. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

interface Unchanged {
  /** What is kept of an unchanged stretch: its head (after a change), a marker, its tail (before a change). */
  kept: string;
  /** Units left out (lines or characters); 0 when kept whole. */
  elided: number;
}

/** Unchanged lines: CONTEXT_LINES kept next to each change, the rest replaced by a marker line. */
function unchangedLines(value: string, first: boolean, last: boolean): Unchanged {
  const lines = linesOf(value);
  const head = first ? 0 : CONTEXT_LINES;
  const tail = last ? 0 : CONTEXT_LINES;
  if (lines.length <= head + tail + 1) return { kept: value, elided: 0 };
  const skipped = lines.slice(head, lines.length - tail);
  const chars = skipped.reduce((sum, line) => sum + line.length, 0);
  const marker = `⋯ ${skipped.length.toLocaleString('en-US')} unchanged line${skipped.length === 1 ? '' : 's'} (${chars.toLocaleString('en-US')} characters) not sent ⋯\n`;
  return { kept: lines.slice(0, head).join('') + marker + lines.slice(lines.length - tail).join(''), elided: skipped.length };
}

/** Unchanged words: CONTEXT_CHARS kept next to each change, the rest replaced by a marker. */
function unchangedChars(value: string, first: boolean, last: boolean): Unchanged {
  const head = first ? 0 : CONTEXT_CHARS;
  const tail = last ? 0 : CONTEXT_CHARS;
  if (value.length <= head + tail + 200) return { kept: value, elided: 0 };
  const elided = value.length - head - tail;
  return { kept: `${value.slice(0, head)} ⋯ ${elided.toLocaleString('en-US')} unchanged characters not sent ⋯ ${value.slice(value.length - tail)}`, elided };
}

/** Both sides of a jsdiff result with long unchanged stretches left out; null when nothing could be. */
function excerpt(parts: readonly Change[], unchanged: (value: string, first: boolean, last: boolean) => Unchanged, unit: string): ChangedText | null {
  let before = '';
  let after = '';
  let elided = 0;
  parts.forEach((part, index) => {
    if (part.added) after += part.value;
    else if (part.removed) before += part.value;
    else {
      const kept = unchanged(part.value, index === 0, index === parts.length - 1);
      elided += kept.elided;
      before += kept.kept;
      after += kept.kept;
    }
  });
  if (elided === 0) return null;
  const previousCut = cap(before);
  const nextCut = cap(after);
  const notes = [`${elided.toLocaleString('en-US')} unchanged ${unit} are left out`];
  if (previousCut.capped || nextCut.capped) notes.push(`the changes are cut at ${MAX_EXCERPT_CHARS / 1024} KiB per side`);
  return { previousText: previousCut.text, nextText: nextCut.text, excerpt: notes.join('; ') };
}

/** When every diff gives up: the stretch between the common prefix and suffix, with some context, capped. */
function byPrefixAndSuffix(previous: string, next: string): ChangedText {
  const max = Math.min(previous.length, next.length);
  let prefix = 0;
  while (prefix < max && previous.charCodeAt(prefix) === next.charCodeAt(prefix)) prefix += 1;
  let suffix = 0;
  while (suffix < max - prefix && previous.charCodeAt(previous.length - 1 - suffix) === next.charCodeAt(next.length - 1 - suffix)) suffix += 1;
  const start = Math.max(0, prefix - CONTEXT_CHARS);
  const previousEnd = Math.min(previous.length, previous.length - suffix + CONTEXT_CHARS);
  const nextEnd = Math.min(next.length, next.length - suffix + CONTEXT_CHARS);
  const lead = start > 0 ? `⋯ ${start.toLocaleString('en-US')} unchanged characters not sent ⋯ ` : '';
  const trailChars = previous.length - previousEnd;
  const trail = trailChars > 0 ? ` ⋯ ${trailChars.toLocaleString('en-US')} unchanged characters not sent ⋯` : '';
  const previousCut = cap(previous.slice(start, previousEnd));
  const nextCut = cap(next.slice(start, nextEnd));
  const notes = [
    `too many changes to list: the changed stretch (characters ${(prefix + 1).toLocaleString('en-US')}–${(previous.length - suffix).toLocaleString('en-US')} of the previous text) is sent`,
  ];
  if (previousCut.capped || nextCut.capped) notes.push(`cut at ${MAX_EXCERPT_CHARS / 1024} KiB per side`);
  return { previousText: lead + previousCut.text + trail, nextText: lead + nextCut.text + trail, excerpt: notes.join('; ') };
}

export function changedText(previous: string, next: string): ChangedText {
  if (previous.length <= SEND_WHOLE_CHARS && next.length <= SEND_WHOLE_CHARS) return { previousText: previous, nextText: next, excerpt: null };
  const lines = diffLines(previous, next, diffLimits);
  const byLines = lines === undefined ? null : excerpt(lines, unchangedLines, 'lines');
  if (byLines !== null) return byLines;
  // One long changed line (or changes on every line): find the changed words instead.
  const words = diffWordsWithSpace(previous, next, diffLimits);
  return (words === undefined ? null : excerpt(words, unchangedChars, 'characters')) ?? byPrefixAndSuffix(previous, next);
}
