/**
 * Streamed responses, reassembled from their server-sent events into one ResponseView: text, tool
 * calls with their argument fragments joined per call (parallel calls interleave), the finish
 * reason, usage. A stream that never reached its closing event is incomplete, and each of its calls
 * keeps the arguments joined so far (possibly not valid JSON: the engine reports that).
 */
import type { ToolCall, Usage } from '../../../../shared/trace/canonicalEvents';
import {
  anthropicUsage,
  apiErrorFields,
  openAiUsage,
  readResponsesObject,
  readResponsesOutput,
  responsesFinishReason,
  type ApiErrorObject,
  type ApiKind,
  type ResponseView,
} from './apis';
import { apiErrorFacts, describeApiError } from '../../../../shared/trace/canonicalEvents';
import type { SseEvent } from './sse';
import { isRecord } from '../formatAdapter';
import { text } from '../kit/jsonValues';

interface CallParts {
  callId: string | undefined;
  name: string | undefined;
  /** Arguments as the opening event carried them (Anthropic: `input: {}`; Responses: `""`). */
  initial: unknown;
  parts: string[];
  /** The complete arguments, when a closing event repeats them. */
  done: string | undefined;
}

function newCall(): CallParts {
  return { callId: undefined, name: undefined, initial: undefined, parts: [], done: undefined };
}

function toolCallsOf(calls: Iterable<CallParts>, fallbackId: (position: number) => string): ToolCall[] {
  const result: ToolCall[] = [];
  let position = 0;
  for (const call of calls) {
    const args = call.done ?? (call.parts.length > 0 ? call.parts.join('') : call.initial);
    result.push({ call_id: call.callId ?? fallbackId(position), name: call.name ?? '', ...(args !== undefined ? { arguments: args } : {}) });
    position += 1;
  }
  return result;
}

function finish(
  view: ResponseView,
  extra: { usage?: Usage | undefined; responseId?: string | undefined; model?: string | undefined; refusal?: string },
): ResponseView {
  if (extra.usage !== undefined) view.usage = extra.usage;
  if (extra.responseId !== undefined) view.responseId = extra.responseId;
  if (extra.model !== undefined) view.model = extra.model;
  if (extra.refusal !== undefined && extra.refusal !== '') view.refusal = extra.refusal;
  return view;
}

function payload(event: SseEvent): Record<string, unknown> | null {
  return isRecord(event.data) ? event.data : null;
}

/** The provider's error an `error` event carries (`{error: {type, message}}`, or its fields at the top). */
function streamError(data: Record<string, unknown>): ApiErrorObject {
  // A bare Responses error event's own `type: "error"` names the event, not the error.
  return apiErrorFields(isRecord(data['error']) ? data['error'] : { code: data['code'], message: data['message'] });
}

/** A stream broken by the provider: incomplete, with the error it sent. */
function brokenBy(view: ResponseView, error: ApiErrorObject): void {
  view.apiError = error;
  view.incompleteReason = `stream error: ${describeApiError(apiErrorFacts(error))}`;
}

/** Anthropic Messages: message_start, content_block_start/delta/stop per index, message_delta, message_stop. */
function assembleAnthropic(events: readonly SseEvent[], fallbackId: (position: number) => string): ResponseView {
  const texts = new Map<number, string[]>();
  const calls = new Map<number, CallParts>();
  let responseId: string | undefined;
  let model: string | undefined;
  let usage: Record<string, unknown> = {};
  let stopReason: string | null | undefined;
  let closed = false;
  let error: ApiErrorObject | undefined;
  for (const event of events) {
    const data = payload(event);
    if (data === null) continue;
    const type = text(data['type']) ?? event.event;
    const index = typeof data['index'] === 'number' ? data['index'] : -1;
    switch (type) {
      case 'message_start': {
        const message = isRecord(data['message']) ? data['message'] : {};
        responseId = text(message['id']);
        model = text(message['model']);
        if (isRecord(message['usage'])) usage = { ...message['usage'] };
        break;
      }
      case 'content_block_start': {
        const block = isRecord(data['content_block']) ? data['content_block'] : {};
        if (block['type'] === 'text') texts.set(index, [text(block['text']) ?? '']);
        if (block['type'] === 'tool_use') {
          const call = newCall();
          call.callId = text(block['id']);
          call.name = text(block['name']);
          call.initial = block['input'];
          calls.set(index, call);
        }
        break;
      }
      case 'content_block_delta': {
        const delta = isRecord(data['delta']) ? data['delta'] : {};
        if (delta['type'] === 'text_delta' && typeof delta['text'] === 'string') texts.get(index)?.push(delta['text']);
        if (delta['type'] === 'input_json_delta' && typeof delta['partial_json'] === 'string') calls.get(index)?.parts.push(delta['partial_json']);
        break;
      }
      case 'message_delta': {
        const delta = isRecord(data['delta']) ? data['delta'] : {};
        if ('stop_reason' in delta) stopReason = text(delta['stop_reason']) ?? null;
        if (isRecord(data['usage'])) usage = { ...usage, ...data['usage'] };
        break;
      }
      case 'message_stop':
        closed = true;
        break;
      case 'error':
        error = streamError(data);
        break;
      default:
        break;
    }
  }
  const outputTexts = [...texts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, parts]) => parts.join(''))
    .filter((part) => part !== '');
  const ordered = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  const view: ResponseView = {
    complete: closed && error === undefined,
    text: outputTexts.length > 0 ? outputTexts.join('\n') : null,
    toolCalls: toolCallsOf(ordered, fallbackId),
    finishReason: stopReason,
  };
  if (error !== undefined) brokenBy(view, error);
  else if (!closed) view.incompleteReason = 'the stream ended before message_stop';
  return finish(view, { usage: anthropicUsage(usage), responseId, model });
}

/** OpenAI Chat Completions: chunks whose `choices[0].delta` carries text and tool calls by `index`. */
function assembleChat(events: readonly SseEvent[], fallbackId: (position: number) => string): ResponseView {
  const texts: string[] = [];
  const refusals: string[] = [];
  const calls = new Map<number, CallParts>();
  let responseId: string | undefined;
  let model: string | undefined;
  let usage: Usage | undefined;
  let finishReason: string | undefined;
  let error: ApiErrorObject | undefined;
  for (const event of events) {
    const data = payload(event);
    if (data === null) continue;
    if (isRecord(data['error'])) {
      error = streamError(data);
      continue;
    }
    responseId ??= text(data['id']);
    model ??= text(data['model']);
    usage = openAiUsage(data['usage']) ?? usage;
    const choices = Array.isArray(data['choices']) ? data['choices'] : [];
    const choice = choices.find((entry) => isRecord(entry) && (entry['index'] ?? 0) === 0);
    if (!isRecord(choice)) continue;
    const delta = isRecord(choice['delta']) ? choice['delta'] : {};
    if (typeof delta['content'] === 'string') texts.push(delta['content']);
    if (typeof delta['refusal'] === 'string') refusals.push(delta['refusal']);
    for (const fragment of Array.isArray(delta['tool_calls']) ? delta['tool_calls'] : []) {
      if (!isRecord(fragment)) continue;
      const index = typeof fragment['index'] === 'number' ? fragment['index'] : calls.size;
      let call = calls.get(index);
      if (call === undefined) {
        call = newCall();
        calls.set(index, call);
      }
      const fn = isRecord(fragment['function']) ? fragment['function'] : {};
      const id = text(fragment['id']);
      const name = text(fn['name']);
      if (id !== undefined && id !== '') call.callId ??= id;
      if (name !== undefined && name !== '') call.name ??= name;
      if (typeof fn['arguments'] === 'string') call.parts.push(fn['arguments']);
    }
    if (typeof choice['finish_reason'] === 'string') finishReason = choice['finish_reason'];
  }
  const ordered = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  const joined = texts.join('');
  const view: ResponseView = {
    complete: finishReason !== undefined && error === undefined,
    text: joined === '' ? null : joined,
    toolCalls: toolCallsOf(ordered, fallbackId),
    finishReason,
  };
  if (error !== undefined) brokenBy(view, error);
  else if (finishReason === undefined) view.incompleteReason = 'the stream ended before a finish_reason';
  return finish(view, { usage, responseId, model, refusal: refusals.join('') });
}

/** OpenAI Responses: typed events; function-call arguments arrive as deltas per output item. */
function assembleResponses(events: readonly SseEvent[], fallbackId: (position: number) => string): ResponseView {
  const texts = new Map<number, string[]>();
  const calls = new Map<number, CallParts>();
  let responseId: string | undefined;
  let model: string | undefined;
  let last: Record<string, unknown> | undefined;
  let closed = false;
  let error: ApiErrorObject | undefined;
  for (const event of events) {
    const data = payload(event);
    if (data === null) continue;
    const type = text(data['type']) ?? event.event ?? '';
    const index = typeof data['output_index'] === 'number' ? data['output_index'] : -1;
    const response = isRecord(data['response']) ? data['response'] : undefined;
    if (response !== undefined) {
      last = response;
      responseId ??= text(response['id']);
      model ??= text(response['model']);
    }
    switch (type) {
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const item = isRecord(data['item']) ? data['item'] : {};
        if (item['type'] !== 'function_call' && item['type'] !== 'custom_tool_call') break;
        let call = calls.get(index);
        if (call === undefined) {
          call = newCall();
          calls.set(index, call);
        }
        call.callId ??= text(item['call_id']);
        call.name ??= text(item['name']);
        const args = item['type'] === 'function_call' ? item['arguments'] : item['input'];
        if (type === 'response.output_item.added') call.initial = args;
        else if (typeof args === 'string') call.done = args;
        break;
      }
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        if (typeof data['delta'] === 'string') calls.get(index)?.parts.push(data['delta']);
        break;
      case 'response.function_call_arguments.done':
        if (typeof data['arguments'] === 'string' && calls.has(index)) calls.get(index)!.done = data['arguments'];
        break;
      case 'response.output_text.delta':
        if (typeof data['delta'] === 'string') {
          const parts = texts.get(index) ?? [];
          parts.push(data['delta']);
          texts.set(index, parts);
        }
        break;
      case 'response.completed':
      case 'response.incomplete':
        closed = true;
        break;
      case 'response.failed':
        error = response !== undefined && isRecord(response['error']) ? apiErrorFields(response['error']) : { type: 'response.failed' };
        break;
      case 'error':
        error = streamError(data);
        break;
      default:
        break;
    }
  }
  if (closed && error === undefined && last !== undefined && Array.isArray(last['output']) && last['output'].length > 0) {
    // The closing event carries the whole response: it is the authority, the deltas were a preview.
    return readResponsesObject(last, true);
  }
  const ordered = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  const outputTexts = [...texts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, parts]) => parts.join(''))
    .filter((part) => part !== '');
  const view: ResponseView = {
    complete: closed && error === undefined,
    text: outputTexts.length > 0 ? outputTexts.join('\n') : null,
    toolCalls: toolCallsOf(ordered, fallbackId),
    finishReason: last !== undefined && (closed || error !== undefined) ? responsesFinishReason(last) : undefined,
  };
  if (error !== undefined) brokenBy(view, error);
  else if (!closed) view.incompleteReason = 'the stream ended before response.completed';
  const refusals = last !== undefined && Array.isArray(last['output']) ? readResponsesOutput(last['output']).refusals.join('') : '';
  return finish(view, { usage: last !== undefined ? openAiUsage(last['usage']) : undefined, responseId, model, refusal: refusals });
}

export function assembleStream(api: ApiKind, events: readonly SseEvent[], fallbackId: (position: number) => string): ResponseView {
  if (api === 'anthropic-messages') return assembleAnthropic(events, fallbackId);
  if (api === 'openai-chat') return assembleChat(events, fallbackId);
  return assembleResponses(events, fallbackId);
}
