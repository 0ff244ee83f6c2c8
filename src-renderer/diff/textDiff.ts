/**
 * The word diff of one changed text (a message, a system prompt), with jsdiff. Pure: it runs in the
 * diff worker (diffWorker.ts), or on the page only when the browser refuses the worker.
 *
 * - The common prefix and suffix are cut off first (at a whitespace, so no word is split): a long
 *   message with one edit costs only the stretch between its first and last change.
 * - Short or single-line text: a word diff (`diffWordsWithSpace`).
 * - Long multi-line text: a line diff first (cheap), then a word diff inside each changed block,
 *   so a 2 MB message with a few edits still shows the changed words.
 * - Every jsdiff call has a `timeout` and a `maxEditLength`: when it gives up (`undefined`), the
 *   result says why, and the view shows both sides side by side.
 */
import { diffLines, diffWordsWithSpace } from 'diff';

export interface DiffPart {
  value: string;
  added: boolean;
  removed: boolean;
}

export interface DiffLimits {
  /** jsdiff's `timeout`, per call. */
  timeoutMs: number;
  /** jsdiff's `maxEditLength`: edits (words or lines) beyond which it gives up. */
  maxEditLength: number;
}

export const defaultDiffLimits: DiffLimits = { timeoutMs: 1500, maxEditLength: 5000 };

/** Above this many characters in the changed stretch, multi-line text is diffed line by line first. */
const lineFirstChars = 32 * 1024;

export type TextDiffResult = { kind: 'diff'; method: 'words' | 'lines+words'; parts: DiffPart[]; ms: number } | { kind: 'gave-up'; reason: string; ms: number };

const isSpace = (code: number): boolean => code === 32 || code === 9 || code === 10 || code === 13;
const isNewline = (code: number): boolean => code === 10;

/** Length of the common prefix, cut back to just after a boundary character (or 0). */
function commonPrefix(a: string, b: string, boundary: (code: number) => boolean): number {
  const max = Math.min(a.length, b.length);
  let index = 0;
  while (index < max && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  if (index === a.length && index === b.length) return index;
  while (index > 0 && !boundary(a.charCodeAt(index - 1))) index -= 1;
  return index;
}

/** Length of the common suffix (not reaching into `prefix`), cut back to just after a boundary character (or 0). */
function commonSuffix(a: string, b: string, prefix: number, boundary: (code: number) => boolean): number {
  const max = Math.min(a.length, b.length) - prefix;
  let length = 0;
  while (length < max && a.charCodeAt(a.length - 1 - length) === b.charCodeAt(b.length - 1 - length)) length += 1;
  // Words: the suffix starts with a whitespace. Lines: it starts a line (the character before it is a newline).
  const starts = (start: number) => (boundary === isNewline ? start === 0 || isNewline(a.charCodeAt(start - 1)) : boundary(a.charCodeAt(start)));
  while (length > 0 && !starts(a.length - length)) length -= 1;
  return length;
}

function part(value: string, kind: 'same' | 'added' | 'removed'): DiffPart {
  return { value, added: kind === 'added', removed: kind === 'removed' };
}

/** Joins neighbours of one kind (jsdiff's output and ours meet at the edges). */
function merge(parts: readonly DiffPart[]): DiffPart[] {
  const merged: DiffPart[] = [];
  for (const next of parts) {
    if (next.value === '') continue;
    const last = merged.at(-1);
    if (last && last.added === next.added && last.removed === next.removed) last.value += next.value;
    else merged.push({ value: next.value, added: next.added, removed: next.removed });
  }
  return merged;
}

function words(previous: string, next: string, limits: DiffLimits): DiffPart[] | undefined {
  const changes = diffWordsWithSpace(previous, next, { timeout: limits.timeoutMs, maxEditLength: limits.maxEditLength });
  return changes?.map((change) => ({ value: change.value, added: change.added, removed: change.removed }));
}

/** Line diff, then a word diff of each removed/added block pair; a block whose word diff gives up stays whole lines. */
function linesThenWords(previous: string, next: string, limits: DiffLimits): DiffPart[] | undefined {
  const lines = diffLines(previous, next, { timeout: limits.timeoutMs, maxEditLength: limits.maxEditLength });
  if (lines === undefined) return undefined;
  const parts: DiffPart[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const change = lines[index]!;
    const following = lines[index + 1];
    if (change.removed && following?.added) {
      const refined = words(change.value, following.value, limits);
      if (refined) parts.push(...refined);
      else parts.push(part(change.value, 'removed'), part(following.value, 'added'));
      index += 1;
    } else {
      parts.push({ value: change.value, added: change.added, removed: change.removed });
    }
  }
  return parts;
}

/**
 * `preferLines`: multi-line text is diffed line by line first whatever its length (JSON: a changed
 * property reads best as its line, with the changed words marked inside it).
 */
/** 5000 → "5,000" (no locale: see shared/formatCount.ts). */
function formatLimit(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function diffTexts(
  previous: string,
  next: string,
  limits: DiffLimits = defaultDiffLimits,
  preferLines = false,
  now: () => number = () => performance.now(),
): TextDiffResult {
  const started = now();
  let prefix = commonPrefix(previous, next, isSpace);
  let suffix = commonSuffix(previous, next, prefix, isSpace);
  let before = previous.slice(prefix, previous.length - suffix);
  let after = next.slice(prefix, next.length - suffix);
  const multiLine = before.includes('\n') || after.includes('\n');
  const lineFirst = multiLine && (preferLines || before.length + after.length > lineFirstChars);
  if (lineFirst) {
    // The line diff must see whole lines: the common ends are cut at line breaks instead.
    prefix = commonPrefix(previous, next, isNewline);
    suffix = commonSuffix(previous, next, prefix, isNewline);
    before = previous.slice(prefix, previous.length - suffix);
    after = next.slice(prefix, next.length - suffix);
  }
  let method: 'words' | 'lines+words' = lineFirst ? 'lines+words' : 'words';
  let middle: DiffPart[] | undefined;
  /** Why each attempt gave up, in order. */
  const reasons: string[] = [];
  const attempt = (unit: 'word' | 'line', run: () => DiffPart[] | undefined): DiffPart[] | undefined => {
    const from = now();
    const parts = run();
    const took = now() - from;
    if (parts === undefined) {
      reasons.push(
        took >= limits.timeoutMs
          ? `too many changes to diff ${unit} by ${unit} within ${formatLimit(limits.timeoutMs)} ms (jsdiff's timeout)`
          : `too many changes to diff ${unit} by ${unit}: more than ${formatLimit(limits.maxEditLength)} ${unit} edits (jsdiff's maxEditLength)`,
      );
    }
    return parts;
  };
  if (before === '' || after === '') {
    middle = [part(before, 'removed'), part(after, 'added')];
  } else if (lineFirst) {
    middle = attempt('line', () => linesThenWords(before, after, limits));
  } else {
    middle = attempt('word', () => words(before, after, limits));
    if (middle === undefined && multiLine) {
      method = 'lines+words';
      middle = attempt('line', () => linesThenWords(before, after, limits));
    }
  }
  const ms = now() - started;
  if (middle === undefined) {
    const said = reasons.join('; then ');
    return { kind: 'gave-up', ms, reason: `${said.charAt(0).toUpperCase()}${said.slice(1)}. Both sides are shown in full instead.` };
  }
  return {
    kind: 'diff',
    method,
    ms,
    parts: merge([part(previous.slice(0, prefix), 'same'), ...middle, part(previous.slice(previous.length - suffix), 'same')]),
  };
}
