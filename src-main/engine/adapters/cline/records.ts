/**
 * Cline's UI messages read into typed records: a message's common fields, the JSON text some of
 * them carry (a request's usage, a failure), and the call a tool, command, MCP or browser message
 * makes.
 */
import type { ApiError } from '../../../../shared/trace/canonicalEvents';
import { isRecord, type LineRef } from '../formatAdapter';
import { text as textValue, type JsonObject as Json } from '../kit/jsonValues';

/** What a tool message's `tool` is answered as in the next request's `[<name> for …] Result:` header. */
const resultHeaderNames: Readonly<Record<string, readonly string[]>> = {
  readFile: ['read_file'],
  editedExistingFile: ['replace_in_file', 'write_to_file', 'apply_patch', 'edit_file'],
  newFileCreated: ['write_to_file', 'apply_patch'],
  fileDeleted: ['apply_patch', 'delete_file'],
  listFilesTopLevel: ['list_files'],
  listFilesRecursive: ['list_files'],
  listCodeDefinitionNames: ['list_code_definition_names'],
  searchFiles: ['search_files'],
  webFetch: ['web_fetch'],
  webSearch: ['web_search'],
  summarizeTask: ['summarize_task'],
  useSkill: ['use_skill'],
  command: ['execute_command'],
  mcp: ['use_mcp_tool', 'access_mcp_resource'],
  browser: ['browser_action'],
};

/** Tools whose UI `content` is their output (a listing, search hits) or a repeat of the path, not an argument. */
const contentIsOutput = new Set(['readFile', 'listFilesTopLevel', 'listFilesRecursive', 'listCodeDefinitionNames', 'searchFiles', 'webFetch', 'webSearch']);

const COMMAND_REQ_APP = 'REQ_APP';

/** A UI message's fields as the adapter reads them. */
export interface UiMessage {
  record: Json;
  type: 'say' | 'ask';
  /** The `say` or `ask` subtype. */
  sub: string;
  /** Its `ts` (epoch milliseconds) as ISO text. */
  ts: string;
  /** `<type>/<sub>`: the message's own type, shown beside the canonical one. */
  typeRaw: string;
  /** Its `text`, '' when it has none. */
  text: string;
  /** Its index in the array: a call it makes is named by it (`msg-<index>`). */
  position: number;
  line: LineRef;
}

/** The call a tool, command, MCP or browser message makes. */
export interface CallRequest {
  name: string;
  /** Result header names that answer it; empty: any tool that is not conversational. */
  headers: readonly string[];
  arguments: unknown;
}

function isoOf(ts: unknown): string | undefined {
  if (typeof ts !== 'number' || !Number.isFinite(ts)) return undefined;
  const date = new Date(ts);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The message's fields, or why the element is not a Cline UI message. */
export function readUiMessage(value: unknown, position: number, line: LineRef): UiMessage | string {
  if (!isRecord(value)) return `not an object`;
  const type = value['type'] === 'say' ? 'say' : value['type'] === 'ask' ? 'ask' : undefined;
  const sub = type === undefined ? undefined : value[type];
  if (type === undefined || typeof sub !== 'string') return `no "type":"say"|"ask" with its "say"/"ask" subtype`;
  const ts = isoOf(value['ts']);
  if (ts === undefined) return `no "ts" (epoch milliseconds)`;
  const text = typeof value['text'] === 'string' ? value['text'] : '';
  return { record: value, type, sub, ts, typeRaw: `${type}/${sub}`, text, position, line };
}

/** Cline's failure text as a canonical API error: the `{message, code}` object it writes as JSON text is read as one. */
export function apiErrorOf(text: string): ApiError {
  let parsed: unknown;
  try {
    parsed = text.trimStart().startsWith('{') ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!isRecord(parsed) || typeof parsed['message'] !== 'string') return text;
  return { ...(typeof parsed['code'] === 'string' ? { code: parsed['code'] } : {}), message: parsed['message'] };
}

export function parseJsonText(text: unknown): Json | undefined {
  if (typeof text !== 'string' || !text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Cline's tokensIn leaves out cache reads and writes (it adds all four for the context size); the request's size is the sum. */
export function usageOf(info: Json): Json | undefined {
  const tokensIn = count(info['tokensIn']);
  const tokensOut = count(info['tokensOut']);
  const cacheWrites = count(info['cacheWrites']);
  const cacheReads = count(info['cacheReads']);
  const cost = count(info['cost']);
  const anyInput = tokensIn !== undefined || cacheWrites !== undefined || cacheReads !== undefined;
  if (!anyInput && tokensOut === undefined && cost === undefined) return undefined;
  return {
    ...(anyInput ? { input_tokens: (tokensIn ?? 0) + (cacheWrites ?? 0) + (cacheReads ?? 0) } : {}),
    ...(tokensOut !== undefined ? { output_tokens: tokensOut } : {}),
    ...(cacheReads !== undefined ? { cached_input_tokens: cacheReads } : {}),
    ...(tokensIn !== undefined ? { uncached_input_tokens: tokensIn } : {}),
    ...(cacheWrites !== undefined ? { cache_write_tokens: cacheWrites } : {}),
    ...(cost !== undefined ? { cost_usd: cost } : {}),
  };
}

/** The call a message of subtype `sub` (tool, command, use_mcp_server, browser_action[_launch]) with this text makes. */
export function callRequestOf(sub: string, text: string): CallRequest {
  if (sub === 'tool') {
    const tool = parseJsonText(text);
    const kind = tool === undefined ? undefined : textValue(tool['tool']);
    const headers = (kind !== undefined ? resultHeaderNames[kind] : undefined) ?? [];
    if (tool === undefined) return { name: kind ?? 'tool', headers, arguments: { text } };
    const { content, ...rest } = tool;
    void content;
    return { name: kind ?? 'tool', headers, arguments: kind !== undefined && contentIsOutput.has(kind) ? rest : tool };
  }
  if (sub === 'command') {
    const requiresApproval = text.endsWith(COMMAND_REQ_APP);
    const command = requiresApproval ? text.slice(0, -COMMAND_REQ_APP.length) : text;
    return {
      name: 'execute_command',
      headers: resultHeaderNames['command']!,
      arguments: { command, ...(requiresApproval ? { requires_approval: true } : {}) },
    };
  }
  if (sub === 'use_mcp_server') {
    const request = parseJsonText(text) ?? { text };
    const name = textValue(request['toolName']) ?? (textValue(request['type']) === 'access_mcp_resource' ? 'access_mcp_resource' : 'use_mcp_tool');
    return { name, headers: resultHeaderNames['mcp']!, arguments: request };
  }
  const args = sub === 'browser_action_launch' ? { action: 'launch', url: text } : (parseJsonText(text) ?? { text });
  return { name: 'browser_action', headers: resultHeaderNames['browser']!, arguments: args };
}
