/** The three API request shapes and the canonical event normalize to the same request model. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  normalizeAnthropicMessagesRequest,
  normalizeCanonicalRequest,
  normalizeChatCompletionsRequest,
  normalizeResponsesRequest,
} from '../../shared/requests/normalizeRequest';
import { messageHash, type NormalizedRequest } from '../../shared/requests/normalizedRequest';

const weatherSchema = { type: 'object', properties: { city: { type: 'string' } } };

const chatBody = {
  model: 'gpt-4.1-mini',
  temperature: 0.2,
  max_completion_tokens: 512,
  messages: [
    { role: 'system', content: 'You answer weather questions.' },
    { role: 'user', content: 'Weather in Graz?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city": "Graz"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'sunny, 21°C' },
  ],
  tools: [{ type: 'function', function: { name: 'weather', description: 'Current weather', parameters: weatherSchema } }],
};

const anthropicBody = {
  model: 'claude-sonnet-4',
  max_tokens: 512,
  system: [{ type: 'text', text: 'You answer weather questions.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: 'Weather in Graz?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'weather', input: { city: 'Graz' } }] },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: 'sunny, 21°C', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Answer briefly.' },
      ],
    },
  ],
  tools: [{ name: 'weather', description: 'Current weather', input_schema: weatherSchema }],
};

const responsesBody = {
  model: 'gpt-4.1-mini',
  instructions: 'You answer weather questions.',
  max_output_tokens: 512,
  input: [
    { role: 'user', content: [{ type: 'input_text', text: 'Weather in Graz?' }] },
    { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Graz"}' },
    { type: 'function_call_output', call_id: 'c1', output: 'sunny, 21°C' },
  ],
  tools: [{ type: 'function', name: 'weather', description: 'Current weather', parameters: weatherSchema }],
};

function hashes(request: NormalizedRequest | null): string[] {
  assert.ok(request);
  return request.messages.map(messageHash);
}

describe('request normalizers', () => {
  it('reads a Chat Completions body: leading system message, parsed call arguments, tool result by call id', () => {
    const request = normalizeChatCompletionsRequest(chatBody);
    assert.ok(request);
    assert.equal(request.system, 'You answer weather questions.');
    assert.deepEqual(request.tools, [{ name: 'weather', description: 'Current weather', parameters: weatherSchema }]);
    assert.deepEqual(request.params, { model: 'gpt-4.1-mini', temperature: 0.2, max_tokens: 512 });
    assert.deepEqual(
      request.messages.map((m) => [m.role, m.toolCallId, m.toolCalls, m.sourceIndex]),
      [
        ['user', null, [], 1],
        ['assistant', null, [{ callId: 'c1', name: 'weather', arguments: { city: 'Graz' } }], 2],
        ['tool', 'c1', [], 3],
      ],
    );
    assert.equal(request.reconstructed, false);
  });

  it('reads an Anthropic body: system blocks, tool_use, tool_result split from the text beside it, cache_control ignored', () => {
    const request = normalizeAnthropicMessagesRequest(anthropicBody);
    assert.ok(request);
    assert.equal(request.system, 'You answer weather questions.');
    assert.deepEqual(request.tools[0], { name: 'weather', description: 'Current weather', parameters: weatherSchema });
    assert.deepEqual(
      request.messages.map((m) => [m.role, m.toolCallId, m.sourceIndex, m.content]),
      [
        ['user', null, 0, [{ type: 'text', text: 'Weather in Graz?' }]],
        ['assistant', null, 1, []],
        ['tool', 'c1', 2, [{ type: 'text', text: 'sunny, 21°C' }]],
        ['user', null, 2, [{ type: 'text', text: 'Answer briefly.' }]],
      ],
    );
    const moved = structuredClone(anthropicBody);
    delete (moved.messages[2]!.content as Record<string, unknown>[])[0]!['cache_control'];
    assert.deepEqual(hashes(normalizeAnthropicMessagesRequest(moved)), hashes(request), 'a moved cache breakpoint changes no message');
  });

  it('reads a Responses body: instructions, function_call joined to an assistant message, function_call_output by call_id', () => {
    const request = normalizeResponsesRequest(responsesBody);
    assert.ok(request);
    assert.equal(request.system, 'You answer weather questions.');
    assert.deepEqual(request.params, { model: 'gpt-4.1-mini', max_tokens: 512 });
    assert.deepEqual(
      request.messages.map((m) => [m.role, m.toolCallId, m.toolCalls.map((c) => c.callId)]),
      [
        ['user', null, []],
        ['assistant', null, ['c1']],
        ['tool', 'c1', []],
      ],
    );
    assert.deepEqual(normalizeResponsesRequest({ input: 'hi' })?.messages.map((m) => m.content), [[{ type: 'text', text: 'hi' }]]);
  });

  it('gives the same messages for the same conversation in Chat Completions and Responses', () => {
    assert.deepEqual(hashes(normalizeResponsesRequest(responsesBody)), hashes(normalizeChatCompletionsRequest(chatBody)));
  });

  it('reads the canonical model_request event, whatever API its messages follow', () => {
    const request = normalizeCanonicalRequest({
      type: 'model_request',
      step: 1,
      model: 'gpt-4.1-mini',
      messages: chatBody.messages,
      tools: chatBody.tools,
      params: { temperature: 0.2 },
    });
    assert.ok(request);
    assert.equal(request.system, 'You answer weather questions.');
    assert.deepEqual(request.params, { temperature: 0.2, model: 'gpt-4.1-mini' });
    assert.deepEqual(hashes(request), hashes(normalizeChatCompletionsRequest(chatBody)));
    const anthropicStyle = normalizeCanonicalRequest({ type: 'model_request', system: 'S', messages: anthropicBody.messages });
    assert.deepEqual(anthropicStyle?.messages.map((m) => m.role), ['user', 'assistant', 'tool', 'user']);
  });

  it('returns null for a body that is not of that API', () => {
    assert.equal(normalizeChatCompletionsRequest({ input: 'hi' }), null);
    assert.equal(normalizeAnthropicMessagesRequest('text'), null);
  });
});
