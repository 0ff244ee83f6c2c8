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
 * A string field with its length before it, so no two fields run together into the same text;
 * `-` for null and `~` for a field left out (as canonical JSON tells them apart).
 */
function field(value: string | null | undefined): string {
  if (value === undefined) return '~';
  return value === null ? '-' : `${value.length}:${value}`;
}

/**
 * What identifies a message's content: everything but where it sat in the request. Two messages
 * have the same identity exactly when their role, content, calls, answered call, name and error
 * flag are the same — texts as written, other values as canonical JSON (key order does not
 * count), each field length-prefixed and each item tagged, so the string decodes one way only.
 *
 * The identity is that string itself, not a hash of it: alignment compares identities and keys
 * maps with them, and V8 hashes and compares strings natively, where hashing every character in
 * JavaScript cost more than the rest of a request's analysis. Nothing stores an identity.
 */
function contentIdentity(message: RequestMessage): string {
  const { role, content, toolCalls, toolCallId, name, isError } = message as Partial<RequestMessage>;
  let identity = `${field(role)}${field(toolCallId)}${field(name)}${isError === undefined ? '~' : isError ? '1' : '0'}`;
  if (content === undefined) identity += '~';
  else for (const part of content) identity += part.type === 'text' ? `t${field(part.text)}` : `o${field(part.kind)}${field(canonicalJson(part.value))}`;
  identity += '|';
  if (toolCalls === undefined) identity += '~';
  else for (const call of toolCalls) identity += `c${field(call.callId)}${field(call.name)}${field(canonicalJson(call.arguments))}`;
  return identity;
}

/** Identities already built: a request is compared twice (as the next, then as the previous) and sized once. */
const identities = new WeakMap<RequestMessage, string>();

/**
 * Records a message's identity built elsewhere: the engine normalizes each distinct message once
 * and hands out copies (each with its own `sourceIndex`), whose identity it already knows.
 */
export function rememberMessageIdentity(message: RequestMessage, identity: string): void {
  identities.set(message, identity);
}

export function messageIdentity(message: RequestMessage): string {
  let identity = identities.get(message);
  if (identity === undefined) {
    identity = contentIdentity(message);
    identities.set(message, identity);
  }
  return identity;
}
