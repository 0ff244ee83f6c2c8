/**
 * How the MCP tools answer: compact JSON text, never more than a cap of characters (a note says
 * what was cut and how to page on), and an API failure as a tool error result with its message.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The most characters an answer carries. */
export const maxAnswerChars = 40_000;

/** Where a page of `shown` rows from `offset` leaves off, when more rows follow. */
export function pageNote(offset: number, shown: number, total: number): string | undefined {
  return offset + shown < total ? `[${shown} of ${total} from offset ${offset}; next page: offset=${offset + shown}]` : undefined;
}

export function joinNotes(...notes: (string | undefined)[]): string | undefined {
  const present = notes.filter((note): note is string => note !== undefined && note !== '');
  return present.length === 0 ? undefined : present.join('\n');
}

/**
 * A page (`{total, offset, <rows>}`) too long for one answer, cut to the rows that fit so that it
 * stays JSON an agent can parse, its page note replaced by where the next page starts. Null when
 * the value is not a page, or not even its first row fits.
 */
function fittedPage(value: unknown, note: string | undefined): { text: string; note: string | undefined } | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const page = value as Record<string, unknown>;
  const lists = Object.keys(page).filter((key) => Array.isArray(page[key]));
  const { offset, total } = page;
  if (lists.length !== 1 || typeof offset !== 'number' || typeof total !== 'number') return null;
  const list = lists[0]!;
  const rows = page[list] as unknown[];
  const textOf = (count: number): string => JSON.stringify({ ...page, [list]: rows.slice(0, count) });
  let fits = 0;
  for (let high = rows.length; fits < high;) {
    const middle = Math.ceil((fits + high) / 2);
    if (textOf(middle).length <= maxAnswerChars) fits = middle;
    else high = middle - 1;
  }
  if (fits === 0) return null;
  const asked = pageNote(offset, rows.length, total);
  const others = (note ?? '').split('\n').filter((line) => line !== asked);
  const cut = `[${fits} of the ${rows.length} ${list} asked fit in ${maxAnswerChars} characters; next page: offset=${offset + fits}]`;
  return { text: textOf(fits), note: joinNotes(cut, ...others) };
}

/** A value as one tool answer: JSON text of at most `maxAnswerChars`, a page cut to the rows that fit, anything else cut with a note. */
export function answer(value: unknown, note?: string): CallToolResult {
  let text = JSON.stringify(value);
  if (text.length > maxAnswerChars) {
    const fitted = fittedPage(value, note);
    if (fitted !== null) {
      text = fitted.text;
      note = fitted.note;
    } else {
      text = `${text.slice(0, maxAnswerChars)}\n[truncated at ${maxAnswerChars} characters: ask for fewer rows with a smaller limit, or page with offset]`;
    }
  }
  return { content: [{ type: 'text', text: note === undefined ? text : `${text}\n${note}` }] };
}

/** A failure (the API's message: unknown run, bad id, no library) as an MCP tool error, not a protocol error. */
export function failure(error: unknown): CallToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** A text cut at `max` characters, saying how much was left out. */
export function cut(text: string | null | undefined, max: number): string | null {
  if (text === null || text === undefined) return null;
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** Runs `ask`, answering its failure as a tool error. */
export async function guarded(ask: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await ask();
  } catch (error) {
    return failure(error);
  }
}
