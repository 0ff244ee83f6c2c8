/**
 * Messages between the page and the diff worker. A long text crosses in pieces (`chunk`), each
 * posted in a task of its own: copying 4 MB into the worker in one message would hold the page
 * for tens of milliseconds; a piece of `chunkChars` takes a few.
 */
import type { DiffLayout } from '../navigation/route';
import type { SideBySideResult } from './sideBySide';
import type { DiffLimits, TextDiffResult } from './textDiff';

export const chunkChars = 256 * 1024;

export type DiffWorkerRequest =
  /** A diff whose texts follow in `chunks` pieces (previous side first). */
  | { type: 'diff'; id: number; previousLength: number; nextLength: number; chunks: number; limits: DiffLimits; preferLines: boolean; layout: DiffLayout }
  | { type: 'chunk'; id: number; text: string }
  | { type: 'cancel'; id: number };

/** A word diff (`words`) or two columns of lines (`side-by-side`). */
export type DiffResult = TextDiffResult | SideBySideResult;

export type DiffWorkerReply = { id: number; result: DiffResult } | { id: number; error: string };

/** `text` in pieces of at most `chunkChars` (at least one, possibly empty). */
export function pieces(text: string): string[] {
  if (text.length <= chunkChars) return [text];
  const out: string[] = [];
  for (let start = 0; start < text.length; start += chunkChars) out.push(text.slice(start, start + chunkChars));
  return out;
}
