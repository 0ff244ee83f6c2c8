/**
 * OpenAI Chat Completions stream chunks (`chat.completion.chunk`), as OpenAI and the compatible
 * providers (DeepSeek, xAI, Mistral, …) send them: every chunk carries the response `id`; tool
 * calls arrive as `delta.tool_calls[]` fragments joined by `index` (the `id` and the name only on
 * the first one, later ones may carry `name: ""`, or the whole arguments at once); `finish_reason`
 * closes the choice, and `usage` may come on that chunk or on a last one with `choices: []`.
 */
import { isRecord, type Emit, type LineRef } from '../formatAdapter';
import { defined } from '../kit/events';
import { appendText, callFor, count, isoFromEpochSeconds, type FragmentFields, type OpenResponse, type StreamLog } from './common';
import type { Usage } from '../../../../shared/trace/canonicalEvents';

export const CHAT_CHUNK = 'chat.completion.chunk';

export function isChatChunk(value: Record<string, unknown>): boolean {
  return value['object'] === CHAT_CHUNK;
}

function chatUsage(usage: Record<string, unknown>): Usage {
  const details = usage['prompt_tokens_details'];
  const cached = isRecord(details) ? count(details['cached_tokens']) : undefined;
  // completion_tokens includes the reasoning tokens it details.
  const outputDetails = usage['completion_tokens_details'];
  const reasoning = isRecord(outputDetails) ? count(outputDetails['reasoning_tokens']) : undefined;
  const input = count(usage['prompt_tokens']) ?? count(usage['input_tokens']);
  const output = count(usage['completion_tokens']) ?? count(usage['output_tokens']);
  const total = count(usage['total_tokens']);
  return {
    ...(input !== undefined ? { input_tokens: input } : {}),
    ...(output !== undefined ? { output_tokens: output } : {}),
    ...(cached !== undefined ? { cached_input_tokens: cached } : {}),
    ...(reasoning !== undefined ? { reasoning_tokens: reasoning } : {}),
    ...(total !== undefined ? { total_tokens: total } : {}),
  };
}

/** Per-response state beyond the shared one: which choices have finished. */
const choiceState = new WeakMap<OpenResponse, { seen: Set<number>; finished: Set<number> }>();

/** Folds one choice's delta into the response; returns what the fragment event shows of it. */
function applyChoice(response: OpenResponse, choice: Record<string, unknown>, fragment: FragmentFields): void {
  const choiceIndex = typeof choice['index'] === 'number' ? choice['index'] : 0;
  const state = choiceState.get(response)!;
  state.seen.add(choiceIndex);
  const delta = choice['delta'];
  if (isRecord(delta)) {
    if (typeof delta['content'] === 'string' && delta['content'] !== '') {
      appendText(response, delta['content']);
      fragment.text_delta = delta['content'];
    }
    if (typeof delta['refusal'] === 'string') response.refusal += delta['refusal'];
    const toolCalls = delta['tool_calls'];
    if (Array.isArray(toolCalls)) {
      toolCalls.forEach((part, position) => {
        if (!isRecord(part)) return;
        const index = typeof part['index'] === 'number' ? part['index'] : undefined;
        const id = typeof part['id'] === 'string' && part['id'] !== '' ? part['id'] : undefined;
        // Parallel calls interleave: join per choice and per call index (by id, or by position, when a provider omits the index).
        const key = `${choiceIndex}:${index !== undefined ? `#${index}` : id !== undefined ? `id:${id}` : `@${position}`}`;
        const call = callFor(response, key);
        if (id !== undefined) call.callId ??= id;
        const fn = part['function'];
        if (isRecord(fn)) {
          if (typeof fn['name'] === 'string' && fn['name'] !== '') call.name ??= fn['name'];
          if (typeof fn['arguments'] === 'string') {
            call.argumentParts.push(fn['arguments']);
            call.streamed = true;
            fragment.arguments_delta = fn['arguments'];
          }
        }
        if (index !== undefined) fragment.index = index;
        if (id !== undefined) fragment.call_id = id;
        if (isRecord(fn) && typeof fn['name'] === 'string' && fn['name'] !== '') fragment.name = fn['name'];
      });
    }
    // The legacy single `function_call` delta.
    const functionCall = delta['function_call'];
    if (isRecord(functionCall)) {
      const call = callFor(response, `${choiceIndex}:function_call`);
      if (typeof functionCall['name'] === 'string' && functionCall['name'] !== '') call.name ??= functionCall['name'];
      if (typeof functionCall['arguments'] === 'string') {
        call.argumentParts.push(functionCall['arguments']);
        call.streamed = true;
      }
    }
  }
  const finish = choice['finish_reason'];
  if (typeof finish === 'string' && finish !== '') {
    if (choiceIndex === 0 || response.finishReason === null) response.finishReason = finish;
    state.finished.add(choiceIndex);
    fragment.finish_reason = finish;
  }
}

export function mapChatChunk(log: StreamLog, value: Record<string, unknown>, line: LineRef, emit: Emit): { reason: string } | undefined {
  const id = value['id'];
  const choices = value['choices'];
  if (typeof id !== 'string' || id === '') return { reason: 'chat.completion.chunk without an "id": it cannot be joined to its response' };
  if (choices !== undefined && !Array.isArray(choices)) return { reason: 'chat.completion.chunk whose "choices" is not an array' };
  const ts = isoFromEpochSeconds(value['created']);
  log.seen(line, ts);
  const key = `chat:${id}`;
  let response = log.get(key);
  if (response === undefined && log.wasClosed(id)) {
    log.unknown(emit, line, `${CHAT_CHUNK} (after its response ended)`, undefined, ts);
    return undefined;
  }
  // A response that only waited for its usage chunk is over once another response speaks.
  for (const other of [...log.openResponses()]) {
    if (other.key !== key && other.key.startsWith('chat:') && other.ended) log.close(emit, other);
  }
  if (response === undefined) {
    response = log.start(key, id, line, CHAT_CHUNK, ts, typeof value['model'] === 'string' ? value['model'] : undefined, 'openai');
    choiceState.set(response, { seen: new Set(), finished: new Set() });
  }
  const fragment: FragmentFields = {};
  for (const choice of choices ?? []) if (isRecord(choice)) applyChoice(response, choice, fragment);
  const state = choiceState.get(response)!;
  if (state.finished.size > 0 && [...state.seen].every((index) => state.finished.has(index))) response.ended = true;
  const usage = value['usage'];
  if (isRecord(usage)) response.usage = chatUsage(usage);
  log.fragment(emit, response, line, CHAT_CHUNK, defined({ ts, ...fragment }));
  if (response.ended && response.usage !== undefined) log.close(emit, response);
  return undefined;
}
