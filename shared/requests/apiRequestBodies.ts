/**
 * Request bodies of the three APIs (and the canonical `model_request` event) to one
 * NormalizedRequest. Messages of any of the three shapes are read by one function, because the
 * canonical event carries "the history exactly as sent", whichever API that was.
 *
 * Rules that make two requests compare equal when the model saw the same thing:
 * - `cache_control` is dropped from blocks and tools: it is a caching directive that clients move
 *   from message to message every turn (Claude Code does), not content.
 * - A string content and a single text block are the same content; an empty string is no content.
 * - Tool-call arguments sent as a JSON string are parsed, so key order and spacing do not count.
 * - Leading `system`/`developer` messages (Chat Completions, Responses) join the system prompt,
 *   after Anthropic's `system` or Responses' `instructions`, separated by a blank line.
 * - `max_completion_tokens` (Chat Completions) and `max_output_tokens` (Responses) are read as
 *   `max_tokens`, so the parameter diff names one key whatever the API.
 */
import { z } from 'zod';
import { canonicalJson } from '../trace/canonicalJson';
import type { ContentPart, IssuedToolCall, NormalizedRequest, RequestMessage, ToolDefinition } from './normalizedRequest';

type JsonRecord = Record<string, unknown>;

function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function idOrNull(value: unknown): string | null {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
}

function withoutKeys(record: JsonRecord, keys: readonly string[]): JsonRecord {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)));
}

function withoutCacheControl(record: JsonRecord): JsonRecord {
  return 'cache_control' in record ? withoutKeys(record, ['cache_control']) : record;
}

const textPartTypes = new Set<unknown>(['text', 'input_text', 'output_text']);

function contentParts(content: unknown): ContentPart[] {
  if (content === null || content === undefined || content === '') return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [{ type: 'other', kind: typeof content, value: content }];
  return content.map((part): ContentPart => {
    if (typeof part === 'string') return { type: 'text', text: part };
    if (isRecord(part) && textPartTypes.has(part['type']) && typeof part['text'] === 'string') {
      return { type: 'text', text: part['text'] };
    }
    const kind = isRecord(part) && typeof part['type'] === 'string' ? part['type'] : 'unknown';
    return { type: 'other', kind, value: isRecord(part) ? withoutCacheControl(part) : part };
  });
}

function parsedArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function message(role: string, sourceIndex: number, fields: Partial<Omit<RequestMessage, 'role' | 'sourceIndex'>> = {}): RequestMessage {
  return { role, content: [], toolCalls: [], toolCallId: null, name: null, isError: false, sourceIndex, ...fields };
}

/** Chat Completions `tool_calls[]`: `{id, function: {name, arguments}}`. */
function chatToolCalls(value: unknown): IssuedToolCall[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((call) => {
    const fn = isRecord(call['function']) ? call['function'] : {};
    return { callId: idOrNull(call['id']) ?? '', name: stringOrNull(fn['name']) ?? '', arguments: parsedArguments(fn['arguments']) };
  });
}

/** An assistant message: Chat Completions `tool_calls`, or Anthropic `tool_use` blocks among its content. */
function assistantMessage(item: JsonRecord, sourceIndex: number): RequestMessage {
  const toolCalls = chatToolCalls(item['tool_calls']);
  const blocks = Array.isArray(item['content']) ? (item['content'] as unknown[]) : null;
  const otherContent: unknown[] = [];
  for (const block of blocks ?? []) {
    if (isRecord(block) && block['type'] === 'tool_use') {
      toolCalls.push({ callId: idOrNull(block['id']) ?? '', name: stringOrNull(block['name']) ?? '', arguments: parsedArguments(block['input']) });
    } else {
      otherContent.push(block);
    }
  }
  return message('assistant', sourceIndex, {
    content: contentParts(blocks ? otherContent : item['content']),
    toolCalls,
    name: stringOrNull(item['name']),
  });
}

/** A user message: Anthropic `tool_result` blocks each become a `tool` message, in block order. */
function userMessages(item: JsonRecord, sourceIndex: number): RequestMessage[] {
  const blocks = item['content'];
  const name = stringOrNull(item['name']);
  if (!Array.isArray(blocks)) return [message('user', sourceIndex, { content: contentParts(blocks), name })];
  const messages: RequestMessage[] = [];
  let pending: unknown[] = [];
  const flush = (): void => {
    if (pending.length > 0) messages.push(message('user', sourceIndex, { content: contentParts(pending), name }));
    pending = [];
  };
  for (const block of blocks) {
    if (isRecord(block) && block['type'] === 'tool_result') {
      flush();
      messages.push(
        message('tool', sourceIndex, {
          content: contentParts(block['content']),
          toolCallId: idOrNull(block['tool_use_id']),
          isError: block['is_error'] === true,
        }),
      );
    } else {
      pending.push(block);
    }
  }
  flush();
  return messages;
}

/**
 * Messages (Chat Completions, Anthropic) and input items (Responses) to RequestMessages.
 * Consecutive Responses `function_call` items join the assistant message before them, as the
 * calls of one Chat Completions assistant message do.
 */
export function normalizeMessages(items: readonly unknown[]): RequestMessage[] {
  const messages: RequestMessage[] = [];
  // The last item the latest assistant message covers: a function_call right after it joins it,
  // while the message keeps the index of its first item (its number as logged).
  let assistantEnd = -1;
  items.forEach((item, sourceIndex) => {
    if (!isRecord(item)) {
      messages.push(message('unknown', sourceIndex, { content: contentParts([item]) }));
      return;
    }
    const type = item['type'];
    if (type === 'function_call') {
      const call = {
        callId: idOrNull(item['call_id']) ?? idOrNull(item['id']) ?? '',
        name: stringOrNull(item['name']) ?? '',
        arguments: parsedArguments(item['arguments']),
      };
      const last = messages.at(-1);
      if (last && last.role === 'assistant' && assistantEnd === sourceIndex - 1) last.toolCalls.push(call);
      else messages.push(message('assistant', sourceIndex, { toolCalls: [call] }));
      assistantEnd = sourceIndex;
      return;
    }
    if (type === 'function_call_output') {
      messages.push(message('tool', sourceIndex, { content: contentParts(item['output']), toolCallId: idOrNull(item['call_id']) }));
      return;
    }
    const role = stringOrNull(item['role']);
    if (role === null) {
      messages.push(message(typeof type === 'string' ? type : 'unknown', sourceIndex, { content: contentParts([item]) }));
      return;
    }
    if (role === 'assistant') {
      messages.push(assistantMessage(item, sourceIndex));
      assistantEnd = sourceIndex;
    } else if (role === 'user') messages.push(...userMessages(item, sourceIndex));
    else if (role === 'tool') {
      messages.push(
        message('tool', sourceIndex, { content: contentParts(item['content']), toolCallId: idOrNull(item['tool_call_id']), name: stringOrNull(item['name']) }),
      );
    } else messages.push(message(role, sourceIndex, { content: contentParts(item['content']), name: stringOrNull(item['name']) }));
  });
  return messages;
}

function partsText(parts: readonly ContentPart[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : canonicalJson(part.value))).join('\n\n');
}

/** Anthropic's `system` (a string or text blocks), Responses' `instructions`, the canonical `system`. */
export function systemText(value: unknown): string | null {
  const parts = contentParts(value);
  return parts.length === 0 ? null : partsText(parts);
}

function isSystemRole(role: string): boolean {
  return role === 'system' || role === 'developer';
}

/** The system prompt: the API's own field first, then the leading system/developer messages. */
function splitSystem(explicit: string | null, messages: RequestMessage[]): { system: string | null; messages: RequestMessage[] } {
  let leading = 0;
  while (leading < messages.length && isSystemRole(messages[leading]!.role)) leading++;
  const texts = [explicit, ...messages.slice(0, leading).map((m) => partsText(m.content))].filter((text): text is string => text !== null);
  return { system: texts.length === 0 ? null : texts.join('\n\n'), messages: messages.slice(leading) };
}

/** Chat Completions `{type:'function', function:{…}}`, Anthropic `{name, input_schema}`, Responses `{type:'function', name, parameters}`, or a built-in tool. */
export function normalizeTool(definition: unknown): ToolDefinition {
  if (!isRecord(definition)) return { name: 'unknown', description: null, parameters: definition };
  const tool = withoutCacheControl(definition);
  if (isRecord(tool['function'])) {
    const fn = tool['function'];
    return { name: stringOrNull(fn['name']) ?? 'unknown', description: stringOrNull(fn['description']), parameters: fn['parameters'] ?? null };
  }
  const name = stringOrNull(tool['name']) ?? stringOrNull(tool['type']) ?? 'unknown';
  const description = stringOrNull(tool['description']);
  if ('input_schema' in tool) return { name, description, parameters: tool['input_schema'] };
  if (tool['type'] === 'function') return { name, description, parameters: tool['parameters'] ?? null };
  return { name, description, parameters: withoutKeys(tool, ['name', 'description']) };
}

const maxTokensAliases = ['max_completion_tokens', 'max_output_tokens'];

/** A body's parameters: every member but the structural ones, `max_completion_tokens`/`max_output_tokens` read as `max_tokens`. */
export function requestParams(body: JsonRecord, structuralKeys: readonly string[]): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (structuralKeys.includes(key) || value === undefined) continue;
    params[maxTokensAliases.includes(key) && !('max_tokens' in body) ? 'max_tokens' : key] = value;
  }
  return params;
}

const toolsField = z.array(z.unknown()).optional();

const chatCompletionsBodySchema = z.looseObject({ messages: z.array(z.unknown()), tools: toolsField });
const anthropicMessagesBodySchema = z.looseObject({ messages: z.array(z.unknown()), system: z.unknown().optional(), tools: toolsField });
const responsesBodySchema = z.looseObject({
  input: z.union([z.string(), z.array(z.unknown())]).optional(),
  instructions: z.string().nullable().optional(),
  tools: toolsField,
});

/**
 * A request from its normalized parts: the API's own system field and the leading system or
 * developer messages become the system prompt. The engine calls it with messages it normalized
 * one by one (each distinct message once: requests resend the same history).
 */
export function assembleRequest(
  explicitSystem: string | null,
  normalizedMessages: RequestMessage[],
  tools: ToolDefinition[],
  params: Record<string, unknown>,
): NormalizedRequest {
  const { system, messages } = splitSystem(explicitSystem, normalizedMessages);
  return { system, tools, messages, params, reconstructed: false };
}

function request(
  explicitSystem: string | null,
  items: readonly unknown[],
  tools: readonly unknown[] | undefined,
  params: Record<string, unknown>,
): NormalizedRequest {
  return assembleRequest(explicitSystem, normalizeMessages(items), (tools ?? []).map(normalizeTool), params);
}

/** An OpenAI Chat Completions request body; null when the body has no `messages` array. */
export function normalizeChatCompletionsRequest(body: unknown): NormalizedRequest | null {
  const parsed = chatCompletionsBodySchema.safeParse(body);
  if (!parsed.success) return null;
  return request(null, parsed.data.messages, parsed.data.tools, requestParams(parsed.data, ['messages', 'tools']));
}

/** An Anthropic Messages request body; null when the body has no `messages` array. */
export function normalizeAnthropicMessagesRequest(body: unknown): NormalizedRequest | null {
  const parsed = anthropicMessagesBodySchema.safeParse(body);
  if (!parsed.success) return null;
  return request(systemText(parsed.data.system), parsed.data.messages, parsed.data.tools, requestParams(parsed.data, ['messages', 'system', 'tools']));
}

/** An OpenAI Responses request body; `input` may be a plain string (one user message). */
export function normalizeResponsesRequest(body: unknown): NormalizedRequest | null {
  const parsed = responsesBodySchema.safeParse(body);
  if (!parsed.success) return null;
  const input = parsed.data.input;
  const items = typeof input === 'string' ? [{ role: 'user', content: input }] : (input ?? []);
  return request(systemText(parsed.data.instructions), items, parsed.data.tools, requestParams(parsed.data, ['input', 'instructions', 'tools']));
}

const canonicalRequestSchema = z.looseObject({
  model: z.string().optional(),
  system: z.unknown().optional(),
  messages: z.array(z.unknown()).optional(),
  tools: toolsField,
  params: z.record(z.string(), z.unknown()).optional(),
});

/** The canonical `model_request` event (docs/trace-format.md): messages of any of the three APIs. */
export function normalizeCanonicalRequest(event: unknown): NormalizedRequest | null {
  const parsed = canonicalRequestSchema.safeParse(event);
  if (!parsed.success) return null;
  const { model, system, messages, tools, params } = parsed.data;
  return request(systemText(system), messages ?? [], tools, canonicalParams(params, model));
}

/** The canonical event's parameters: its `params` and its `model`. */
export function canonicalParams(params: Record<string, unknown> | undefined, model: string | undefined): Record<string, unknown> {
  // An absent model (undefined) is skipped like any undefined member.
  return requestParams({ ...params, model }, []);
}
