/**
 * OpenAI Responses API stream events: `response.created` … `response.completed` (or `.incomplete`,
 * `.failed`) per response, with `type` and a `sequence_number` on every event. Output items are
 * announced by `response.output_item.added` and final in `response.output_item.done`; a function
 * call's arguments stream as `response.function_call_arguments.delta` for its item. Hosted tools
 * (`mcp_call`, `web_search_call`, …) run at OpenAI and their item carries the outcome; an
 * `mcp_approval_request` waits for the loop's approval.
 */
import type { Usage } from '../../../../shared/trace/canonicalEvents';
import { isRecord, type Emit, type LineRef, type MappedEvent } from '../formatAdapter';
import { apiErrorFields } from '../httpExchange/apis';
import { defined, toolResult } from '../kit/events';
import { appendText, callFor, count, isoFromEpochSeconds, newCall, type AssembledCall, type OpenResponse, type StreamLog } from './common';

const KEY = 'responses';

/** Items the loop itself must execute (client-side tools). */
const loopCallItems: ReadonlySet<string> = new Set([
  'function_call',
  'custom_tool_call',
  'computer_call',
  'local_shell_call',
  'shell_call',
  'apply_patch_call',
]);

export function isResponsesEvent(value: Record<string, unknown>): boolean {
  const type = value['type'];
  return typeof type === 'string' && type.startsWith('response.') && typeof value['sequence_number'] === 'number';
}

/** The bare `error` event of a Responses stream (`{type:"error", code, message, sequence_number}`). */
export function isResponsesError(value: Record<string, unknown>): boolean {
  return value['type'] === 'error' && typeof value['sequence_number'] === 'number';
}

function responsesUsage(usage: Record<string, unknown>): Usage {
  const input = count(usage['input_tokens']);
  const output = count(usage['output_tokens']);
  const total = count(usage['total_tokens']);
  const details = usage['input_tokens_details'];
  const cached = isRecord(details) ? count(details['cached_tokens']) : undefined;
  // output_tokens includes the reasoning tokens it details.
  const outputDetails = usage['output_tokens_details'];
  const reasoning = isRecord(outputDetails) ? count(outputDetails['reasoning_tokens']) : undefined;
  return {
    ...(input !== undefined ? { input_tokens: input } : {}),
    ...(output !== undefined ? { output_tokens: output } : {}),
    ...(cached !== undefined ? { cached_input_tokens: cached } : {}),
    ...(reasoning !== undefined ? { reasoning_tokens: reasoning } : {}),
    ...(total !== undefined ? { total_tokens: total } : {}),
  };
}

function isCallItem(type: string): boolean {
  return loopCallItems.has(type) || type === 'mcp_approval_request' || type.endsWith('_call');
}

/** Per-response map from item id to the call's key (its output_index). */
const itemKeys = new WeakMap<OpenResponse, Map<string, string>>();

function applyItem(response: OpenResponse, key: string, item: Record<string, unknown>, done: boolean): AssembledCall | null {
  const type = typeof item['type'] === 'string' ? item['type'] : '';
  if (type === 'message' && done) {
    // The text arrived as deltas already; take it from the final item only when there were none.
    if (response.text === '' && Array.isArray(item['content'])) {
      for (const part of item['content']) if (isRecord(part) && part['type'] === 'output_text') appendText(response, part['text']);
    }
    return null;
  }
  if (!isCallItem(type)) return null;
  const loop = loopCallItems.has(type);
  const approval = type === 'mcp_approval_request';
  const call = callFor(response, key, () => newCall({ server: !loop && !approval, approval }));
  if (typeof item['id'] === 'string') itemKeys.get(response)?.set(item['id'], key);
  const callId = loop ? item['call_id'] : item['id'];
  if (typeof callId === 'string' && callId !== '') call.callId ??= callId;
  const name = typeof item['name'] === 'string' && item['name'] !== '' ? item['name'] : loop || approval ? undefined : type;
  if (name !== undefined) call.name ??= name;
  const whole = item['arguments'] ?? item['input'] ?? item['action'] ?? (typeof item['code'] === 'string' ? { code: item['code'] } : undefined);
  if (done || (whole !== undefined && whole !== '')) {
    if (whole !== undefined && (done || !call.streamed)) {
      // The final item holds the whole arguments: they replace the fragments.
      call.wholeArguments = whole;
      if (done) call.streamed = false;
    }
  }
  return call;
}

/** The outcome a hosted tool's final item reports, as its tool result; null while it has none. */
function hostedResult(
  log: StreamLog,
  response: OpenResponse,
  call: AssembledCall,
  item: Record<string, unknown>,
  line: LineRef,
  typeRaw: string,
): MappedEvent | null {
  if (!call.server || call.callId === null) return null;
  const status = typeof item['status'] === 'string' ? item['status'] : undefined;
  const error = item['error'];
  const hasError = error !== undefined && error !== null;
  const output = item['output'] ?? item['outputs'] ?? item['results'] ?? item['result'];
  const finished = hasError || output !== undefined || status === 'completed' || status === 'failed' || status === 'incomplete';
  if (!finished) return null;
  const failed = hasError || status === 'failed' || status === 'incomplete';
  const message = typeof error === 'string' ? error : isRecord(error) && typeof error['message'] === 'string' ? error['message'] : (status ?? 'error');
  const code = isRecord(error) && typeof error['code'] === 'string' ? error['code'] : undefined;
  const step = log.stepOfCall(call.callId, response);
  return {
    event: toolResult({
      run_id: log.runId,
      step,
      call_id: call.callId,
      name: call.name ?? undefined,
      status: failed ? 'error' : 'ok',
      output: output ?? null,
      error: failed ? defined({ code, message }) : undefined,
    }),
    typeRaw,
    line,
  };
}

function endResponse(response: OpenResponse, body: Record<string, unknown>): void {
  const status = typeof body['status'] === 'string' ? body['status'] : undefined;
  const details = body['incomplete_details'];
  const reason = status === 'incomplete' && isRecord(details) && typeof details['reason'] === 'string' ? details['reason'] : status;
  // Responses have no finish reason; their status stands for it, except a failure, which is no way of finishing.
  if (reason !== undefined && status !== 'failed') response.finishReason = reason;
  if (status === 'failed') {
    const error = body['error'];
    response.failure = `response failed${isRecord(error) && typeof error['message'] === 'string' ? `: ${error['message']}` : ''}`;
    response.apiError = isRecord(error) ? apiErrorFields(error) : { type: 'response.failed' };
  }
  if (isRecord(body['usage'])) response.usage = responsesUsage(body['usage']);
  // The final output is authoritative: add any call whose item events the log lacks.
  const output = body['output'];
  if (Array.isArray(output)) {
    const known = new Set([...response.calls.values()].map((call) => call.callId));
    output.forEach((item, index) => {
      if (!isRecord(item)) return;
      const id = loopCallItems.has(String(item['type'])) ? item['call_id'] : item['id'];
      if (typeof id === 'string' && !known.has(id) && !response.calls.has(String(index))) applyItem(response, String(index), item, true);
    });
  }
  response.ended = true;
}

/** Why an event could not be mapped; undefined when it was. */
type Rejection = { reason: string } | undefined;

/** An event inside an open response, with the fields every handler reads. */
interface ResponseEvent {
  log: StreamLog;
  response: OpenResponse;
  value: Record<string, unknown>;
  type: string;
  line: LineRef;
  emit: Emit;
  outputIndex: number | undefined;
}

/** `response.created` / `.queued` / `.in_progress`: the first starts a response, the rest repeat it. */
function mapResponseStart(log: StreamLog, current: OpenResponse | undefined, type: string, body: unknown, line: LineRef, emit: Emit): Rejection {
  if (!isRecord(body) || typeof body['id'] !== 'string') return { reason: `${type} without a response id` };
  const ts = isoFromEpochSeconds(body['created_at']);
  log.seen(line, ts);
  if (current !== undefined && current.responseId === body['id']) {
    log.fragment(emit, current, line, type);
    return undefined;
  }
  // A response that never completed was cut where the next one starts.
  if (current !== undefined) log.close(emit, current);
  const response = log.start(KEY, body['id'], line, type, ts, typeof body['model'] === 'string' ? body['model'] : undefined, 'openai');
  itemKeys.set(response, new Map());
  log.fragment(emit, response, line, type, defined({ ts }));
  return undefined;
}

/** The call key an argument event addresses: its output_index, else the key its item id was announced with. */
function argumentsKey({ response, value, outputIndex }: ResponseEvent): string | undefined {
  const itemId = typeof value['item_id'] === 'string' ? value['item_id'] : undefined;
  return outputIndex !== undefined ? String(outputIndex) : itemId !== undefined ? itemKeys.get(response)?.get(itemId) : undefined;
}

/** `response.output_item.added` / `.done`: an output item announced or final; a hosted tool's final item may carry its result. */
function mapOutputItem({ log, response, value, type, line, emit, outputIndex }: ResponseEvent): Rejection {
  const item = value['item'];
  if (!isRecord(item) || outputIndex === undefined) return { reason: `${type} without an output_index or an item` };
  const call = applyItem(response, String(outputIndex), item, type.endsWith('.done'));
  const result = call !== null && type.endsWith('.done') ? hostedResult(log, response, call, item, line, `${type}/${String(item['type'])}`) : null;
  if (result !== null) response.results.hold(result);
  else
    log.fragment(emit, response, line, type, {
      index: outputIndex,
      ...(call?.callId ? { call_id: call.callId } : {}),
      ...(call?.name ? { name: call.name } : {}),
    });
  return undefined;
}

/** A fragment of a call's arguments (function, custom tool or MCP call). */
function mapArgumentsDelta(event: ResponseEvent): Rejection {
  const { log, response, value, type, line, emit, outputIndex } = event;
  const key = argumentsKey(event);
  const delta = value['delta'];
  if (key === undefined || typeof delta !== 'string') return { reason: `${type} without an output_index/item_id or a string delta` };
  const call = callFor(response, key);
  call.argumentParts.push(delta);
  call.streamed = true;
  log.fragment(emit, response, line, type, { ...(outputIndex !== undefined ? { index: outputIndex } : {}), arguments_delta: delta });
  return undefined;
}

/** A call's whole arguments, which replace its fragments. */
function mapArgumentsDone(event: ResponseEvent): Rejection {
  const { log, response, value, type, line, emit, outputIndex } = event;
  const key = argumentsKey(event);
  const whole = value['arguments'] ?? value['input'];
  if (key !== undefined && typeof whole === 'string') {
    const call = callFor(response, key);
    call.argumentParts = [whole];
    call.streamed = true;
  }
  log.fragment(emit, response, line, type, outputIndex !== undefined ? { index: outputIndex } : {});
  return undefined;
}

/** `response.completed` / `.incomplete` / `.failed`: the final response object closes the response. */
function mapResponseEnd({ log, response, type, line, emit }: ResponseEvent, body: unknown, endTs: string | undefined): Rejection {
  if (!isRecord(body)) return { reason: `${type} without its response object` };
  if (endTs !== undefined) response.ts ??= endTs;
  endResponse(response, body);
  log.fragment(emit, response, line, type, {
    ...(endTs !== undefined ? { ts: endTs } : {}),
    ...(response.finishReason !== null ? { finish_reason: response.finishReason } : {}),
  });
  log.close(emit, response);
  return undefined;
}

/** The bare `error` event: the stream failed, which ends the response. */
function mapStreamError({ log, response, value, type, line, emit }: ResponseEvent): Rejection {
  response.failure = `stream error${typeof value['code'] === 'string' ? ` ${value['code']}` : ''}${typeof value['message'] === 'string' ? `: ${value['message']}` : ''}`;
  response.apiError = apiErrorFields({ code: value['code'], message: value['message'] });
  response.ended = true;
  log.fragment(emit, response, line, type);
  log.close(emit, response);
  return undefined;
}

export function mapResponsesEvent(log: StreamLog, value: Record<string, unknown>, line: LineRef, emit: Emit): Rejection {
  const type = value['type'] as string;
  const response = log.get(KEY);
  const body = value['response'];
  if (type === 'response.created' || type === 'response.queued' || type === 'response.in_progress')
    return mapResponseStart(log, response, type, body, line, emit);
  const endTs = isRecord(body) ? isoFromEpochSeconds(body['completed_at']) : undefined;
  log.seen(line, endTs);
  if (response === undefined) {
    log.unknown(emit, line, `${type} (outside a response)`);
    return undefined;
  }
  const outputIndex = typeof value['output_index'] === 'number' ? value['output_index'] : undefined;
  const event: ResponseEvent = { log, response, value, type, line, emit, outputIndex };
  switch (type) {
    case 'response.output_item.added':
    case 'response.output_item.done':
      return mapOutputItem(event);
    case 'response.function_call_arguments.delta':
    case 'response.custom_tool_call_input.delta':
    case 'response.mcp_call_arguments.delta':
      return mapArgumentsDelta(event);
    case 'response.function_call_arguments.done':
    case 'response.custom_tool_call_input.done':
    case 'response.mcp_call_arguments.done':
      return mapArgumentsDone(event);
    case 'response.output_text.delta':
      appendText(response, value['delta']);
      log.fragment(emit, response, line, type, typeof value['delta'] === 'string' ? { text_delta: value['delta'] } : {});
      return undefined;
    case 'response.refusal.delta':
      if (typeof value['delta'] === 'string') response.refusal += value['delta'];
      log.fragment(emit, response, line, type);
      return undefined;
    case 'response.completed':
    case 'response.incomplete':
    case 'response.failed':
      return mapResponseEnd(event, body, endTs);
    case 'error':
      return mapStreamError(event);
    default:
      log.fragment(emit, response, line, type, outputIndex !== undefined ? { index: outputIndex } : {});
      return undefined;
  }
}
