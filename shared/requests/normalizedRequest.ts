/**
 * One model request in a shape shared by every API (docs/semantics.md §9): the system prompt, the tool
 * definitions, the history as a flat list of messages, and the parameters. Requests logged by
 * OpenAI Chat Completions, Anthropic Messages, OpenAI Responses or the canonical `model_request`
 * event all normalize to it (apiRequestBodies.ts), so two requests can be diffed whatever wrote them.
 *
 * Messages are split so that each carries at most one tool result: an Anthropic user message with
 * three `tool_result` blocks and a text block becomes three `tool` messages and one `user` message.
 * Tool results then pair with their calls the same way in every API. `sourceIndex` points back to
 * the message or input item as sent.
 */
import { z } from 'zod';
import { canonicalJson } from '../trace/canonicalJson';

export const contentPartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  /** Images, documents, reasoning blocks, …: kept whole, compared as JSON. */
  z.object({ type: z.literal('other'), kind: z.string(), value: z.unknown() }),
]);
export type ContentPart = z.infer<typeof contentPartSchema>;

export const issuedToolCallSchema = z.object({
  callId: z.string(),
  name: z.string(),
  /** Parsed when the API sent a JSON string that parses; otherwise exactly as sent. */
  arguments: z.unknown(),
});
export type IssuedToolCall = z.infer<typeof issuedToolCallSchema>;

export const requestMessageSchema = z.object({
  /** `system`, `developer`, `user`, `assistant`, `tool`, or the item type of an item no API role fits. */
  role: z.string(),
  content: z.array(contentPartSchema),
  toolCalls: z.array(issuedToolCallSchema),
  /** The call this message answers (role `tool`). */
  toolCallId: z.string().nullable(),
  name: z.string().nullable(),
  isError: z.boolean(),
  /**
   * Index of the message (or Responses input item) as sent that this message came from, system and
   * developer messages counted; in a reconstructed request, its position in the rebuilt history.
   */
  sourceIndex: z.number().int(),
});
export type RequestMessage = z.infer<typeof requestMessageSchema>;

export const toolDefinitionSchema = z.object({
  name: z.string(),
  description: z.string().nullable(),
  /** The JSON schema of the arguments; for built-in tools (web search, …) the definition itself. */
  parameters: z.unknown(),
});
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

export const normalizedRequestSchema = z.object({
  system: z.string().nullable(),
  tools: z.array(toolDefinitionSchema),
  messages: z.array(requestMessageSchema),
  /** `model`, `temperature`, `max_tokens`, `tool_choice`, `stream` and every other body field. */
  params: z.record(z.string(), z.unknown()),
  /** True when rebuilt from the messages the model had seen rather than logged as sent. */
  reconstructed: z.boolean(),
});
export type NormalizedRequest = z.infer<typeof normalizedRequestSchema>;

/**
 * The text of a message as a tokenizer or a text diff sees it: text parts as written, tool calls
 * and other parts as canonical JSON, one per line.
 */
export function messageText(message: RequestMessage): string {
  const parts = message.content.map((part) => (part.type === 'text' ? part.text : canonicalJson(part.value)));
  for (const call of message.toolCalls) parts.push(`${call.name}(${canonicalJson(call.arguments)})`);
  return parts.join('\n');
}

/** Characters of a message's content, without building its text (sizes many messages cheaply). */
export function messageChars(message: RequestMessage): number {
  let chars = 0;
  for (const part of message.content) chars += part.type === 'text' ? part.text.length : (JSON.stringify(part.value)?.length ?? 0);
  for (const call of message.toolCalls)
    chars += call.name.length + (typeof call.arguments === 'string' ? call.arguments.length : (JSON.stringify(call.arguments)?.length ?? 0));
  return chars;
}

/**
 * The number a user sees for a message: 1-based, counting every message of the request as it was
 * logged — system and developer messages included (docs/semantics.md §9). Anthropic's `system`
 * field is not a message, so there message 1 is the first of `messages`.
 */
export function messageNumber(message: RequestMessage): number {
  return message.sourceIndex + 1;
}

/**
 * What identifies a message's content: everything but where it sat in the request. Two messages
 * with the same content hash are the same message for alignment.
 */
export function messageContentJson(message: RequestMessage): string {
  const { role, content, toolCalls, toolCallId, name, isError } = message;
  return canonicalJson({ role, content, toolCalls, toolCallId, name, isError });
}

/** Hashes of messages already hashed: a request is compared twice (as the next, then as the previous) and sized once. */
const hashes = new WeakMap<RequestMessage, string>();

/**
 * cyrb53 over the canonical JSON: 53 bits, as hex. Pure (no node:crypto, so the renderer can run
 * it); collisions among the few thousand messages of one run are negligible at 53 bits.
 */
/**
 * Records a message's hash computed elsewhere: the engine normalizes each distinct message once
 * and hands out copies (each with its own `sourceIndex`), whose hash it already knows.
 */
export function rememberMessageHash(message: RequestMessage, hash: string): void {
  hashes.set(message, hash);
}

export function messageHash(message: RequestMessage): string {
  let hash = hashes.get(message);
  if (hash === undefined) {
    hash = hashText(messageContentJson(message));
    hashes.set(message, hash);
  }
  return hash;
}

export function hashText(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}
