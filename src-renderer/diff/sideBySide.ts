/**
 * A changed text as two columns of numbered lines, the way a code review shows it: JSON on both
 * sides is pretty-printed first (a one-line JSON object diffed word by word reads as "hikingtotals
 * boots,and sizeshipment"; pretty-printed, each property is a line of its own), then the two texts
 * are diffed line by line, removed lines paired with the added lines that replaced them (their
 * changed words marked inside), and long unchanged stretches folded to a few lines of context.
 * Pure: it runs in the diff worker (diffWorker.ts) like the word diff.
 */
import { diffLines, diffWordsWithSpace } from 'diff';
import type { DiffLimits } from './textDiff';

/** A piece of a line: `changed` pieces are what differs from the paired line. */
export interface LineSegment {
  text: string;
  changed: boolean;
}

export interface SideLine {
  /** 1-based line number on its side. */
  number: number;
  segments: LineSegment[];
}

export type SideRow =
  | { kind: 'same' | 'changed' | 'removed' | 'added'; left: SideLine | null; right: SideLine | null }
  /** Unchanged lines folded away: `rows` are them, shown on demand. */
  | { kind: 'fold'; rows: SideRow[] };

export type SideBySideResult = { kind: 'lines'; json: boolean; rows: SideRow[]; ms: number } | { kind: 'gave-up'; reason: string; ms: number };

/** Unchanged lines kept next to a change; a longer unchanged stretch is folded. */
export const contextLines = 3;
/** Paired lines longer than this are marked as wholly changed (a word diff of them costs more than it shows). */
const wordDiffChars = 2000;
/**
 * Characters of paired lines word-diffed per text: past it, further pairs are marked wholly
 * changed, so 10,000 edited lines cost one line diff, not 10,000 word diffs.
 */
export const wordDiffBudget = 256 * 1024;

/** `text` pretty-printed when it is a JSON object or array (2-space indent, keys in their order); otherwise as is. */
export function prettyJson(text: string): string | null {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return null;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return null;
  }
}

function splitLines(block: string): string[] {
  const lines = block.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The changed words of two paired lines, as segments of each side; `wordDiff` false: wholly changed. */
function pairSegments(before: string, after: string, limits: DiffLimits, wordDiff: boolean): [LineSegment[], LineSegment[]] {
  const whole = (): [LineSegment[], LineSegment[]] => [[{ text: before, changed: true }], [{ text: after, changed: true }]];
  if (!wordDiff || before.length + after.length > wordDiffChars) return whole();
  const parts = diffWordsWithSpace(before, after, { timeout: limits.timeoutMs, maxEditLength: limits.maxEditLength });
  if (parts === undefined) return whole();
  const left: LineSegment[] = [];
  const right: LineSegment[] = [];
  for (const part of parts) {
    if (!part.added) left.push({ text: part.value, changed: part.removed });
    if (!part.removed) right.push({ text: part.value, changed: part.added });
  }
  return [left, right];
}

/** Folds unchanged stretches longer than 2 × `contextLines` + 1 to their edges next to changes. */
function fold(rows: SideRow[]): SideRow[] {
  const out: SideRow[] = [];
  let index = 0;
  while (index < rows.length) {
    if (rows[index]!.kind !== 'same') {
      out.push(rows[index]!);
      index += 1;
      continue;
    }
    let end = index;
    while (end < rows.length && rows[end]!.kind === 'same') end += 1;
    const stretch = rows.slice(index, end);
    const keepBefore = index === 0 ? 0 : contextLines;
    const keepAfter = end === rows.length ? 0 : contextLines;
    if (stretch.length > keepBefore + keepAfter + 1) {
      out.push(
        ...stretch.slice(0, keepBefore),
        { kind: 'fold', rows: stretch.slice(keepBefore, stretch.length - keepAfter) },
        ...stretch.slice(stretch.length - keepAfter),
      );
    } else {
      out.push(...stretch);
    }
    index = end;
  }
  return out;
}

export function sideBySide(previous: string, next: string, limits: DiffLimits, now: () => number = () => performance.now()): SideBySideResult {
  const started = now();
  const prettyPrevious = prettyJson(previous);
  const prettyNext = prettyJson(next);
  const json = prettyPrevious !== null && prettyNext !== null;
  const [before, after] = json ? [prettyPrevious, prettyNext] : [previous, next];
  // Every line ends with a newline, so a last line without one still pairs with its new version.
  const ended = (value: string) => (value === '' || value.endsWith('\n') ? value : `${value}\n`);
  const changes = diffLines(ended(before), ended(after), { timeout: limits.timeoutMs, maxEditLength: limits.maxEditLength });
  if (changes === undefined) {
    return {
      kind: 'gave-up',
      ms: now() - started,
      reason: `Too many changed lines to pair within ${limits.timeoutMs} ms or ${limits.maxEditLength} edits (jsdiff's limits). Both sides are shown in full instead.`,
    };
  }
  const rows: SideRow[] = [];
  let budget = wordDiffBudget;
  let leftNumber = 1;
  let rightNumber = 1;
  const line = (side: 'left' | 'right', text: string, segments?: LineSegment[]): SideLine => ({
    number: side === 'left' ? leftNumber++ : rightNumber++,
    segments: segments ?? [{ text, changed: false }],
  });
  for (let index = 0; index < changes.length; index += 1) {
    const change = changes[index]!;
    const lines = splitLines(change.value);
    if (!change.added && !change.removed) {
      for (const text of lines) rows.push({ kind: 'same', left: line('left', text), right: line('right', text) });
      continue;
    }
    const following = changes[index + 1];
    if (change.removed && following?.added) {
      // A replaced block: its lines side by side, pairwise, the longer side's rest alone.
      const added = splitLines(following.value);
      for (let k = 0; k < Math.max(lines.length, added.length); k += 1) {
        const [removedText, addedText] = [lines[k], added[k]];
        if (removedText !== undefined && addedText !== undefined) {
          const [left, right] = pairSegments(removedText, addedText, limits, budget > 0);
          budget -= removedText.length + addedText.length;
          rows.push({ kind: 'changed', left: line('left', removedText, left), right: line('right', addedText, right) });
        } else if (removedText !== undefined) {
          rows.push({ kind: 'removed', left: line('left', removedText, [{ text: removedText, changed: true }]), right: null });
        } else if (addedText !== undefined) {
          rows.push({ kind: 'added', left: null, right: line('right', addedText, [{ text: addedText, changed: true }]) });
        }
      }
      index += 1;
      continue;
    }
    for (const text of lines) {
      rows.push(
        change.removed
          ? { kind: 'removed', left: line('left', text, [{ text, changed: true }]), right: null }
          : { kind: 'added', left: null, right: line('right', text, [{ text, changed: true }]) },
      );
    }
  }
  return { kind: 'lines', json, rows: fold(rows), ms: now() - started };
}
