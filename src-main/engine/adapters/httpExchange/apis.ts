/**
 * The three model APIs an HTTP exchange log may record, read into one shape: which API an exchange
 * is (by URL, checked against the body), what its request carries (history, tools, parameters, the
 * tool calls and tool results inside the history) and what its non-streamed response says.
 * Streamed responses are assembled in httpExchangeStreams.ts into the same ResponseView.
 */
import type { ApiError, ToolCall, Usage } from '../../../../shared/trace/canonicalEvents';
import { contentHashHalves } from '../../bytes/contentHash';
import { isRecord } from '../formatAdapter';
import { contentText, text, textMember, type PartJoining } from '../kit/jsonValues';

export type ApiKind = 'anthropic-messages' | 'openai-chat' | 'openai-responses';

/** The object form of a canonical API error: what an HTTP log can always say in fields. */
export type ApiErrorObject = Exclude<ApiError, string>;

const ERROR_MESSAGE_CHARS = 1000;

export const apiLabels: Readonly<Record<ApiKind, string>> = {
  'anthropic-messages': 'Anthropic Messages',
  'openai-chat': 'OpenAI Chat Completions',
  'openai-responses': 'OpenAI Responses',
};

/** The last URL read and its path: a log's requests go to one or two endpoints, and parsing a URL is slow. */
let lastPath = { url: '', path: '' };

function pathOf(url: string): string {
  if (url === lastPath.url) return lastPath.path;
  let path: string;
  try {
    path = new URL(url, 'http://relative.invalid').pathname;
  } catch {
    path = url.split(/[?#]/)[0] ?? url;
  }
  lastPath = { url, path: path.replace(/\/+$/, '') };
  return lastPath.path;
}

/** The API an exchange speaks: by the URL's path, confirmed by the request body's shape. */
export function apiOf(url: string, body: Record<string, unknown>): ApiKind | null {
  const path = pathOf(url);
  const messages = Array.isArray(body['messages']);
  const input = typeof body['input'] === 'string' || Array.isArray(body['input']) || typeof body['previous_response_id'] === 'string';
  if (/\/chat\/completions$/.test(path)) return messages ? 'openai-chat' : null;
  if (/\/messages$/.test(path)) return messages ? 'anthropic-messages' : null;
  if (/\/responses$/.test(path)) return input ? 'openai-responses' : null;
  // Anthropic models behind another URL scheme (Bedrock `…/invoke`, Vertex `…:rawPredict`).
  if (messages && typeof body['anthropic_version'] === 'string') return 'anthropic-messages';
  return null;
}

export function urlPath(url: string): string {
  return pathOf(url) || url;
}

/** A finite, non-negative number, else undefined. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

// ---------------------------------------------------------------- requests

export interface RequestView {
  api: ApiKind;
  model: string | undefined;
  system: unknown;
  /** The history exactly as sent (`messages`, or the Responses `input` as a list). */
  messages: unknown[];
  tools: unknown[] | undefined;
  params: Record<string, unknown>;
  previousResponseId: string | undefined;
  /** The conversation items that make up a thread: the history without system/developer messages. */
  items: unknown[];
}

const paramNames = ['model', 'temperature', 'max_tokens', 'max_completion_tokens', 'max_output_tokens', 'tool_choice', 'stream', 'top_p'] as const;

function isInstructionMessage(item: unknown): boolean {
  return isRecord(item) && (item['role'] === 'system' || item['role'] === 'developer');
}

export function readRequest(api: ApiKind, body: Record<string, unknown>): RequestView {
  let messages: unknown[];
  let system: unknown;
  if (api === 'openai-responses') {
    const input = body['input'];
    messages = typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
    system = body['instructions'];
  } else {
    messages = Array.isArray(body['messages']) ? (body['messages'] as unknown[]) : [];
    system = body['system'];
  }
  const params: Record<string, unknown> = {};
  for (const name of paramNames) if (body[name] !== undefined) params[name] = body[name];
  return {
    api,
    model: text(body['model']),
    system,
    messages,
    tools: Array.isArray(body['tools']) ? (body['tools'] as unknown[]) : undefined,
    params,
    previousResponseId: text(body['previous_response_id']),
    items: messages.filter((item) => !isInstructionMessage(item)),
  };
}

/**
 * JSON text with sorted keys and without the keys a client changes between two sends of the same
 * message: `cache_control` (moved to the newest message on every turn) anywhere, and for Responses
 * items their server `id` and `status`. A string content is the same as one text block.
 */
function stableText(value: unknown, dropTop: readonly string[] = []): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Loops rather than map/filter/join: every history item new to a log is written out here.
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) text += (index === 0 ? '' : ',') + stableText(value[index]);
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys: string[] = [];
  let sorted = true;
  for (const key of Object.keys(record)) {
    if (record[key] === undefined || key === 'cache_control' || dropTop.includes(key)) continue;
    if (keys.length > 0 && keys[keys.length - 1]! > key) sorted = false;
    keys.push(key);
  }
  // Parsed JSON keys are mostly in order already; sorting is then skipped.
  if (!sorted) keys.sort();
  let text = '{';
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    let entry = record[key];
    if (key === 'content' && typeof entry === 'string') entry = [{ type: 'text', text: entry }];
    text += `${index === 0 ? '' : ','}${JSON.stringify(key)}:${stableText(entry)}`;
  }
  return `${text}}`;
}

/**
 * The identity of one history item, for prefix matching (role + content, as the brief of a
 * thread): the content hash of its stable text, as two 32-bit halves.
 */
function itemIdentity(api: ApiKind, item: unknown): Int32Array {
  return contentHashHalves(stableText(item, api === 'openai-responses' ? ['id', 'status'] : []));
}

/** Characters of item JSON a HistoryHasher remembers; more start it over (hashes are only computed again). */
const REMEMBERED_ITEM_CHARS = 16 * 1024 * 1024;
/** Characters of the histories a HistoryHasher keeps to compare the next request of their conversation with; the least recent go first. */
const REMEMBERED_HISTORY_CHARS = 2 * 1024 * 1024;

/**
 * Whether two parsed values have the same JSON text (what JSON.stringify would write): the same
 * members in the same order, strings compared natively (a memcmp, however long).
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!sameJson(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  const otherKeys = Object.keys(b);
  if (keys.length !== otherKeys.length) return false;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if (key !== otherKeys[index] || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/** A history hashed before: its items as parsed and, after each, the hash state and the characters of JSON so far. */
interface HashedHistory {
  items: readonly unknown[];
  hashes: number[];
  /** Two 32-bit words of mixing state per item. */
  states: Int32Array;
  chars: number[];
}

/**
 * Cumulative hashes of request histories: entry i identifies items[0..i]. Every request resends
 * the history before it, and most of a request is its conversation's previous request: the last
 * history that began with the same first two items is kept (two: conversations that run side by
 * side on one task — an evaluation's samples of it, retries — share their first item, the task,
 * and part at the answer after it; keyed by the first alone, each of their requests would find
 * another sample's history and hash its own again), and the items this one shares with it are
 * confirmed equal member by member (strings compared natively) and take its hashes as they are.
 * The items after them are hashed one by one, each distinct item once, keyed by its JSON text as
 * parsed (JSON.stringify is native): equal texts are equal values with their keys in the same
 * order, so their stable texts, and hashes, are equal too. An item's hash is kept as two 32-bit
 * halves and the cumulative step mixes them into the prefix's hash with a few multiplications: a
 * 53-bit number, cheap to make and to look up, that only has to tell a thread's prefixes apart.
 */
export class HistoryHasher {
  private readonly known = new Map<string, Int32Array>();
  private knownChars = 0;
  /**
   * By the JSON text of their second item (their first when it is the only one), least recently
   * hashed first; the first is compared as the others are (the task, often the longest message,
   * is not worth writing out again for every request).
   */
  private readonly histories = new Map<string, HashedHistory>();
  private historyChars = 0;

  prefixHashes(api: ApiKind, items: readonly unknown[]): number[] {
    if (items.length === 0) return [];
    const keyAt = items.length > 1 ? 1 : 0;
    const keyText = JSON.stringify(items[keyAt]) ?? 'undefined';
    // Which item the text is of: a one-item history stays apart from a longer one whose second item reads the same.
    const key = `${keyAt} ${keyText}`;
    const found = this.histories.get(key);
    const before = found !== undefined && (keyAt === 0 || sameJson(items[0], found.items[0])) ? found : undefined;
    let shared = 0;
    if (before !== undefined) {
      shared = keyAt + 1;
      while (shared < items.length && shared < before.items.length && sameJson(items[shared], before.items[shared])) shared += 1;
    }
    const history: HashedHistory = {
      items,
      hashes: before === undefined ? [] : before.hashes.slice(0, shared),
      states: new Int32Array(2 * items.length),
      chars: before === undefined ? [] : before.chars.slice(0, shared),
    };
    if (before !== undefined) history.states.set(before.states.subarray(0, 2 * shared));
    let h1 = shared === 0 ? 0x9e3779b9 : history.states[2 * shared - 2]!;
    let h2 = shared === 0 ? 0x85ebca6b : history.states[2 * shared - 1]!;
    let chars = shared === 0 ? 0 : history.chars[shared - 1]!;
    for (let index = shared; index < items.length; index++) {
      const text = index === keyAt ? keyText : (JSON.stringify(items[index]) ?? 'undefined');
      const halves = this.itemHalves(api, items[index], text);
      h1 = Math.imul(h1 ^ halves[0]!, 2654435761);
      h2 = Math.imul(h2 ^ halves[1]!, 1597334677);
      h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
      h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
      history.hashes.push(4294967296 * (2097151 & h2) + (h1 >>> 0));
      history.states[2 * index] = h1;
      history.states[2 * index + 1] = h2;
      chars += text.length;
      history.chars.push(chars);
    }
    this.keep(key, history, found);
    return history.hashes.slice();
  }

  /** Keeps `history` under `key` in place of `replaced`, forgetting the least recent beyond the budget. */
  private keep(key: string, history: HashedHistory, replaced: HashedHistory | undefined): void {
    if (replaced !== undefined) this.historyChars -= replaced.chars.at(-1)!;
    this.histories.delete(key);
    this.histories.set(key, history);
    this.historyChars += history.chars.at(-1)!;
    for (const [text, oldest] of this.histories) {
      if (this.historyChars <= REMEMBERED_HISTORY_CHARS || oldest === history) break;
      this.histories.delete(text);
      this.historyChars -= oldest.chars.at(-1)!;
    }
  }

  private itemHalves(api: ApiKind, item: unknown, text: string): Int32Array {
    let halves = this.known.get(text);
    if (halves === undefined) {
      halves = itemIdentity(api, item);
      if (this.knownChars + text.length > REMEMBERED_ITEM_CHARS) {
        this.known.clear();
        this.knownChars = 0;
      }
      this.known.set(text, halves);
      this.knownChars += text.length;
    }
    return halves;
  }
}

/** The tool-call ids an assistant item of the history carries. */
export function callIdsIn(api: ApiKind, item: unknown): string[] {
  if (!isRecord(item)) return [];
  if (api === 'anthropic-messages') {
    const content = item['content'];
    if (item['role'] !== 'assistant' || !Array.isArray(content)) return [];
    return content
      .filter((block) => isRecord(block) && block['type'] === 'tool_use' && typeof block['id'] === 'string')
      .map((block) => (block as Record<string, string>)['id']!);
  }
  if (api === 'openai-chat') {
    const calls = item['tool_calls'];
    if (item['role'] !== 'assistant' || !Array.isArray(calls)) return [];
    return calls.filter((call) => isRecord(call) && typeof call['id'] === 'string').map((call) => (call as Record<string, string>)['id']!);
  }
  const type = item['type'];
  return (type === 'function_call' || type === 'custom_tool_call') && typeof item['call_id'] === 'string' ? [item['call_id']] : [];
}

export interface ToolResultFact {
  callId: string;
  output: unknown;
  isError: boolean;
  typeRaw: string;
}

/** The rule for API content blocks read as one text: the blocks with a non-empty `text`, one a line. */
const TEXT_BLOCKS_BY_LINE: PartJoining = { separator: '\n', partText: (block) => textMember(block) || undefined };

/** Text of a tool result's content (a string or content blocks), for an error message; other JSON as written. */
export function resultText(content: unknown): string {
  return contentText(content, TEXT_BLOCKS_BY_LINE) ?? (content === undefined || content === null ? '' : JSON.stringify(content));
}

/** The tool results a history item carries, in order. */
export function resultsIn(api: ApiKind, item: unknown): ToolResultFact[] {
  if (!isRecord(item)) return [];
  if (api === 'anthropic-messages') {
    const content = item['content'];
    if (item['role'] !== 'user' || !Array.isArray(content)) return [];
    return content
      .filter((block) => isRecord(block) && block['type'] === 'tool_result' && typeof block['tool_use_id'] === 'string')
      .map((block) => {
        const record = block as Record<string, unknown>;
        return { callId: record['tool_use_id'] as string, output: record['content'], isError: record['is_error'] === true, typeRaw: 'user tool_result' };
      });
  }
  if (api === 'openai-chat') {
    if (item['role'] !== 'tool' || typeof item['tool_call_id'] !== 'string') return [];
    return [{ callId: item['tool_call_id'], output: item['content'], isError: false, typeRaw: 'tool message' }];
  }
  const type = item['type'];
  if ((type !== 'function_call_output' && type !== 'custom_tool_call_output') || typeof item['call_id'] !== 'string') return [];
  return [{ callId: item['call_id'], output: item['output'], isError: item['status'] === 'incomplete', typeRaw: type }];
}

// --------------------------------------------------------------- responses

export interface ResponseView {
  /** The response arrived whole: a JSON body, or a stream that reached its closing event. */
  complete: boolean;
  text: string | null;
  toolCalls: ToolCall[];
  /** As the provider sent it; undefined when it sent none (a stream cut before its end). */
  finishReason: string | null | undefined;
  refusal?: string;
  usage?: Usage;
  responseId?: string;
  model?: string;
  incompleteReason?: string;
  /** The provider's error inside a response (a stream's error event, a failed Responses object). */
  apiError?: ApiErrorObject;
}

export function anthropicUsage(usage: unknown): Usage | undefined {
  if (!isRecord(usage)) return undefined;
  const input = count(usage['input_tokens']);
  const creation = count(usage['cache_creation_input_tokens']);
  const read = count(usage['cache_read_input_tokens']);
  const output = count(usage['output_tokens']);
  const result: Usage = {};
  // Anthropic's input_tokens leaves out the cached part; the canonical input counts all of it.
  if (input !== undefined || creation !== undefined || read !== undefined) result.input_tokens = (input ?? 0) + (creation ?? 0) + (read ?? 0);
  if (output !== undefined) result.output_tokens = output;
  if (read !== undefined) result.cached_input_tokens = read;
  if (creation !== undefined) result.cache_write_tokens = creation;
  return Object.keys(result).length > 0 ? result : undefined;
}

export function openAiUsage(usage: unknown): Usage | undefined {
  if (!isRecord(usage)) return undefined;
  const result: Usage = {};
  const input = count(usage['prompt_tokens']) ?? count(usage['input_tokens']);
  const output = count(usage['completion_tokens']) ?? count(usage['output_tokens']);
  const details = usage['prompt_tokens_details'] ?? usage['input_tokens_details'];
  const cached = isRecord(details) ? count(details['cached_tokens']) : undefined;
  // Chat's completion_tokens and Responses' output_tokens include the reasoning tokens they detail.
  const outputDetails = usage['completion_tokens_details'] ?? usage['output_tokens_details'];
  const reasoning = isRecord(outputDetails) ? count(outputDetails['reasoning_tokens']) : undefined;
  const total = count(usage['total_tokens']);
  if (input !== undefined) result.input_tokens = input;
  if (output !== undefined) result.output_tokens = output;
  if (cached !== undefined) result.cached_input_tokens = cached;
  if (reasoning !== undefined) result.reasoning_tokens = reasoning;
  if (total !== undefined) result.total_tokens = total;
  return Object.keys(result).length > 0 ? result : undefined;
}

function joinText(parts: readonly string[]): string | null {
  const nonEmpty = parts.filter((part) => part !== '');
  return nonEmpty.length > 0 ? nonEmpty.join('\n') : null;
}

function withOptional(
  view: ResponseView,
  extra: { usage?: Usage | undefined; responseId?: string | undefined; model?: string | undefined; refusal?: string | undefined },
): ResponseView {
  if (extra.usage !== undefined) view.usage = extra.usage;
  if (extra.responseId !== undefined) view.responseId = extra.responseId;
  if (extra.model !== undefined) view.model = extra.model;
  if (extra.refusal !== undefined && extra.refusal !== '') view.refusal = extra.refusal;
  return view;
}

function readAnthropicMessage(body: Record<string, unknown>): ResponseView {
  const content = Array.isArray(body['content']) ? body['content'] : [];
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block['type'] === 'text' && typeof block['text'] === 'string') texts.push(block['text']);
    if (block['type'] === 'tool_use' && typeof block['id'] === 'string') {
      toolCalls.push({ call_id: block['id'], name: text(block['name']) ?? '', arguments: block['input'] });
    }
  }
  return withOptional(
    { complete: true, text: joinText(texts), toolCalls, finishReason: text(body['stop_reason']) ?? null },
    { usage: anthropicUsage(body['usage']), responseId: text(body['id']), model: text(body['model']) },
  );
}

function readChatCompletion(body: Record<string, unknown>): ResponseView {
  const choices = Array.isArray(body['choices']) ? body['choices'] : [];
  const choice = choices.find((entry) => isRecord(entry) && (entry['index'] ?? 0) === 0) ?? choices[0];
  const message = isRecord(choice) && isRecord(choice['message']) ? choice['message'] : {};
  const toolCalls: ToolCall[] = [];
  for (const call of Array.isArray(message['tool_calls']) ? message['tool_calls'] : []) {
    if (!isRecord(call) || typeof call['id'] !== 'string') continue;
    const fn = isRecord(call['function']) ? call['function'] : {};
    toolCalls.push({ call_id: call['id'], name: text(fn['name']) ?? '', arguments: fn['arguments'] });
  }
  const content = message['content'];
  return withOptional(
    {
      complete: true,
      text: typeof content === 'string' ? content : Array.isArray(content) ? joinText([contentText(content, TEXT_BLOCKS_BY_LINE) ?? '']) : null,
      toolCalls,
      finishReason: isRecord(choice) ? (text(choice['finish_reason']) ?? null) : null,
    },
    { usage: openAiUsage(body['usage']), responseId: text(body['id']), model: text(body['model']), refusal: text(message['refusal']) },
  );
}

/** The finish reason of a Responses object: its status, or why it is incomplete. */
export function responsesFinishReason(body: Record<string, unknown>): string | null {
  const status = text(body['status']);
  if (status === 'incomplete') {
    const details = body['incomplete_details'];
    return (isRecord(details) ? text(details['reason']) : undefined) ?? status;
  }
  return status ?? null;
}

export function responsesErrorText(body: Record<string, unknown>): string | undefined {
  const error = body['error'];
  if (!isRecord(error)) return undefined;
  return [text(error['code']) ?? text(error['type']), text(error['message'])].filter(Boolean).join(': ') || undefined;
}

/** Text, refusal and tool calls of Responses output items. */
export function readResponsesOutput(output: readonly unknown[]): { texts: string[]; refusals: string[]; toolCalls: ToolCall[] } {
  const texts: string[] = [];
  const refusals: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const item of output) {
    if (!isRecord(item)) continue;
    if (item['type'] === 'message' && Array.isArray(item['content'])) {
      for (const part of item['content']) {
        if (!isRecord(part)) continue;
        if (part['type'] === 'output_text' && typeof part['text'] === 'string') texts.push(part['text']);
        if (part['type'] === 'refusal' && typeof part['refusal'] === 'string') refusals.push(part['refusal']);
      }
    }
    if ((item['type'] === 'function_call' || item['type'] === 'custom_tool_call') && typeof item['call_id'] === 'string') {
      toolCalls.push({
        call_id: item['call_id'],
        name: text(item['name']) ?? '',
        arguments: item['type'] === 'function_call' ? item['arguments'] : item['input'],
      });
    }
  }
  return { texts, refusals, toolCalls };
}

export function readResponsesObject(body: Record<string, unknown>, complete: boolean): ResponseView {
  const { texts, refusals, toolCalls } = readResponsesOutput(Array.isArray(body['output']) ? body['output'] : []);
  const view: ResponseView = { complete, text: joinText(texts), toolCalls, finishReason: responsesFinishReason(body) };
  const error = responsesErrorText(body);
  if (error !== undefined) view.incompleteReason = error;
  return withOptional(view, {
    usage: openAiUsage(body['usage']),
    responseId: text(body['id']),
    model: text(body['model']),
    refusal: joinText(refusals) ?? undefined,
  });
}

/** A non-streamed 2xx response body; null when it is not the API's response object. */
export function readResponseBody(api: ApiKind, body: unknown): ResponseView | null {
  if (!isRecord(body)) return null;
  if (api === 'anthropic-messages') return Array.isArray(body['content']) ? readAnthropicMessage(body) : null;
  if (api === 'openai-chat') return Array.isArray(body['choices']) ? readChatCompletion(body) : null;
  return Array.isArray(body['output']) || typeof body['status'] === 'string' ? readResponsesObject(body, true) : null;
}

/** The provider's error object (`{type, code, message}`) as a canonical API error, without status. */
export function apiErrorFields(error: Record<string, unknown>): { type?: string; code?: string; message?: string } {
  const type = text(error['type']);
  const code = text(error['code']);
  const message = text(error['message']);
  return {
    ...(type !== undefined ? { type } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(message !== undefined ? { message: message.slice(0, ERROR_MESSAGE_CHARS) } : {}),
  };
}

/**
 * What an error response says (docs/semantics.md §7): its status, and the API's error object, or
 * the start of a body that is not one as the message.
 */
export function readApiError(status: number | undefined, body: unknown, bodyRaw: unknown): ApiErrorObject {
  const withStatus = status !== undefined ? { status } : {};
  let message: string | undefined;
  if (isRecord(body)) {
    const error = body['error'];
    if (isRecord(error)) {
      const fields = apiErrorFields(error);
      if (Object.keys(fields).length > 0) return { ...withStatus, ...fields };
    }
    message = typeof error === 'string' ? error : typeof body['message'] === 'string' ? body['message'] : JSON.stringify(body);
  } else if (typeof body === 'string' && body !== '') message = body;
  else if (typeof bodyRaw === 'string' && bodyRaw !== '') message = bodyRaw;
  return { ...withStatus, ...(message !== undefined ? { message: message.slice(0, ERROR_MESSAGE_CHARS) } : {}) };
}
