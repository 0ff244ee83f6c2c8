/**
 * Anthropic Messages stream events (the `data:` payloads, one per line): `message_start` →
 * `content_block_start` / `content_block_delta` / `content_block_stop` per content block →
 * `message_delta` (stop_reason, usage) → `message_stop`, with `ping` in between. A file may hold
 * several messages one after the other. Tool input is the concatenated `input_json_delta` of its
 * block; server tools (`server_tool_use`, `mcp_tool_use`) are run by Anthropic and their results
 * (`*_tool_result` blocks, in the same message or the next one) are in the stream.
 */
import type { Usage } from '../../../../shared/trace/canonicalEvents';
import { isRecord, type Emit, type LineRef, type MappedEvent } from '../formatAdapter';
import { apiErrorFields } from '../httpExchange/apis';
import { defined, toolResult } from '../kit/events';
import { appendText, callFor, count, newCall, type OpenResponse, type StreamLog } from './common';

const KEY = 'anthropic';

export const anthropicStreamTypes: ReadonlySet<string> = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
]);

/** Lines that only make sense inside an Anthropic stream, but do not identify one on their own. */
const anthropicCompanionTypes: ReadonlySet<string> = new Set(['ping', 'error']);

export function isAnthropicEvent(value: Record<string, unknown>): boolean {
  const type = value['type'];
  return typeof type === 'string' && anthropicStreamTypes.has(type);
}

export function isAnthropicCompanion(value: Record<string, unknown>): boolean {
  const type = value['type'];
  return typeof type === 'string' && anthropicCompanionTypes.has(type) && (type !== 'error' || isRecord(value['error']));
}

/** Anthropic's input_tokens leaves cached tokens out; the canonical input is the whole prompt. */
function anthropicUsage(usage: Record<string, unknown>, previous: Usage | undefined): Usage {
  const input = count(usage['input_tokens']);
  const read = count(usage['cache_read_input_tokens']);
  const creation = count(usage['cache_creation_input_tokens']);
  const output = count(usage['output_tokens']);
  const result: Usage = { ...previous };
  if (input !== undefined || read !== undefined || creation !== undefined) {
    result.input_tokens = (input ?? 0) + (read ?? 0) + (creation ?? 0);
    if (read !== undefined) result.cached_input_tokens = read;
    if (creation !== undefined) result.cache_write_tokens = creation;
  }
  // message_delta's output_tokens is the running total: the last one counts.
  if (output !== undefined) result.output_tokens = output;
  return result;
}

function isToolUse(type: string): boolean {
  return type === 'tool_use' || type === 'server_tool_use' || type === 'mcp_tool_use';
}

function isToolResult(type: string): boolean {
  return type.endsWith('tool_result');
}

function resultEvent(log: StreamLog, response: OpenResponse, block: Record<string, unknown>, line: LineRef, typeRaw: string): MappedEvent | null {
  const callId = block['tool_use_id'];
  if (typeof callId !== 'string' || callId === '') return null;
  const content = block['content'];
  const contentType = isRecord(content) && typeof content['type'] === 'string' ? content['type'] : '';
  const failed = block['is_error'] === true || contentType.endsWith('_error');
  const code = isRecord(content) && typeof content['error_code'] === 'string' ? content['error_code'] : undefined;
  const step = log.stepOfCall(callId, response);
  return {
    event: toolResult({
      run_id: log.runId,
      step,
      call_id: callId,
      status: failed ? 'error' : 'ok',
      output: content,
      error: failed ? defined({ code, message: code ?? (contentType || 'error') }) : undefined,
    }),
    typeRaw,
    line,
  };
}

/** A complete or starting content block: text, a tool call, or a server tool's result. */
function applyBlock(log: StreamLog, response: OpenResponse, index: string, block: Record<string, unknown>, line: LineRef, typeRaw: string): boolean {
  const type = typeof block['type'] === 'string' ? block['type'] : '';
  if (type === 'text') appendText(response, block['text']);
  if (isToolUse(type)) {
    const call = callFor(response, index, () => newCall({ server: type !== 'tool_use' }));
    if (typeof block['id'] === 'string') call.callId ??= block['id'];
    if (typeof block['name'] === 'string' && block['name'] !== '') call.name ??= block['name'];
    call.wholeArguments = block['input'];
  }
  if (isToolResult(type)) {
    const result = resultEvent(log, response, block, line, `${typeRaw}/${type}`);
    if (result !== null) {
      response.results.hold(result);
      return true;
    }
  }
  return false;
}

export function mapAnthropicEvent(log: StreamLog, value: Record<string, unknown>, line: LineRef, emit: Emit): { reason: string } | undefined {
  const type = value['type'] as string;
  log.seen(line, undefined);
  let response = log.get(KEY);
  if (type === 'message_start') {
    const message = value['message'];
    if (!isRecord(message) || typeof message['id'] !== 'string') return { reason: 'message_start without a message id' };
    // A message that never reached message_stop was cut where the next one starts.
    if (response !== undefined) log.close(emit, response);
    response = log.start(KEY, message['id'], line, type, undefined, typeof message['model'] === 'string' ? message['model'] : undefined, 'anthropic');
    if (isRecord(message['usage'])) response.usage = anthropicUsage(message['usage'], undefined);
    if (typeof message['stop_reason'] === 'string') response.finishReason = message['stop_reason'];
    const content = message['content'];
    if (Array.isArray(content)) content.forEach((block, index) => isRecord(block) && applyBlock(log, response!, `pre${index}`, block, line, type));
    log.fragment(emit, response, line, type, response.finishReason !== null ? { finish_reason: response.finishReason } : {});
    return undefined;
  }
  if (response === undefined) {
    log.unknown(emit, line, `${type} (outside a message)`);
    return undefined;
  }
  const index = typeof value['index'] === 'number' ? value['index'] : undefined;
  switch (type) {
    case 'content_block_start': {
      const block = value['content_block'];
      if (index === undefined || !isRecord(block)) return { reason: 'content_block_start without an index or a content_block' };
      const isResult = applyBlock(log, response, String(index), block, line, type);
      if (!isResult) {
        const call = response.calls.get(String(index));
        log.fragment(emit, response, line, type, {
          index,
          ...(call?.callId ? { call_id: call.callId } : {}),
          ...(call?.name ? { name: call.name } : {}),
        });
      }
      return undefined;
    }
    case 'content_block_delta': {
      const delta = value['delta'];
      if (index === undefined || !isRecord(delta)) return { reason: 'content_block_delta without an index or a delta' };
      if (delta['type'] === 'text_delta') {
        appendText(response, delta['text']);
        log.fragment(emit, response, line, type, { index, ...(typeof delta['text'] === 'string' ? { text_delta: delta['text'] } : {}) });
        return undefined;
      }
      if (delta['type'] === 'input_json_delta' && typeof delta['partial_json'] === 'string') {
        const call = callFor(response, String(index));
        call.argumentParts.push(delta['partial_json']);
        call.streamed = true;
        log.fragment(emit, response, line, type, { index, arguments_delta: delta['partial_json'] });
        return undefined;
      }
      log.fragment(emit, response, line, type, { index });
      return undefined;
    }
    case 'message_delta': {
      const delta = value['delta'];
      if (isRecord(delta) && typeof delta['stop_reason'] === 'string') response.finishReason = delta['stop_reason'];
      if (isRecord(value['usage'])) response.usage = anthropicUsage(value['usage'], response.usage);
      log.fragment(emit, response, line, type, response.finishReason !== null ? { finish_reason: response.finishReason } : {});
      return undefined;
    }
    case 'message_stop':
      response.ended = true;
      log.fragment(emit, response, line, type);
      log.close(emit, response);
      return undefined;
    case 'error': {
      const error = value['error'] as Record<string, unknown>;
      response.failure = `stream error${typeof error['type'] === 'string' ? ` ${error['type']}` : ''}${typeof error['message'] === 'string' ? `: ${error['message']}` : ''}`;
      response.apiError = apiErrorFields(error);
      response.ended = true;
      log.fragment(emit, response, line, type);
      log.close(emit, response);
      return undefined;
    }
    default:
      // content_block_stop, ping.
      log.fragment(emit, response, line, type, index !== undefined ? { index } : {});
      return undefined;
  }
}
