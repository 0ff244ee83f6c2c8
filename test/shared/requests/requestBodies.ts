/** Small Chat Completions conversations, normalized by the real normalizer, for the request tests. */
import { normalizeChatCompletionsRequest } from '../../../shared/requests/apiRequestBodies';
import type { NormalizedRequest } from '../../../shared/requests/normalizedRequest';

export type ChatMessage = Record<string, unknown>;

export const user = (text: string): ChatMessage => ({ role: 'user', content: text });
export const assistant = (text: string): ChatMessage => ({ role: 'assistant', content: text });
export const call = (id: string, name = 'read_file', args: unknown = { path: `${id}.txt` }): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
export const result = (id: string, output = `contents of ${id}`): ChatMessage => ({ role: 'tool', tool_call_id: id, content: output });

/** A turn of an agent loop: the call and its result. */
export const turn = (id: string, output?: string): ChatMessage[] => [call(id), result(id, output)];

export function chatRequest(messages: ChatMessage[], extra: Record<string, unknown> = {}): NormalizedRequest {
  const request = normalizeChatCompletionsRequest({
    model: 'gpt-4.1-mini',
    messages: [{ role: 'system', content: 'You are helpful.' }, ...messages],
    ...extra,
  });
  if (!request) throw new Error('not a Chat Completions body');
  return request;
}
