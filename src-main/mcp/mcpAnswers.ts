/**
 * How the MCP tools answer: compact JSON text, never more than a cap of characters (a note says
 * what was cut and how to page on), and an API failure as a tool error result with its message.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The most characters an answer carries. */
export const maxAnswerChars = 40_000;

/** A value as one tool answer: JSON text, cut at `maxAnswerChars` with a note. */
export function answer(value: unknown, note?: string): CallToolResult {
  let text = JSON.stringify(value);
  if (text.length > maxAnswerChars) {
    text = `${text.slice(0, maxAnswerChars)}\n[truncated at ${maxAnswerChars} characters: ask for fewer rows with a smaller limit, or page with offset]`;
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
