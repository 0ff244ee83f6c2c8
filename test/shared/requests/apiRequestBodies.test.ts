/** The three API request shapes and the canonical event normalize to the same request model. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from '../../../shared/trace/canonicalJson';
import {
  normalizeAnthropicMessagesRequest,
  normalizeCanonicalRequest,
  normalizeChatCompletionsRequest,
  normalizeResponsesRequest,
} from '../../../shared/requests/apiRequestBodies';
import {
  messageChars,
  messageIdentity,
  messageText,
  normalizedRequestSchema,
  rememberMessageIdentity,
  type NormalizedRequest,
  type RequestMessage,
} from '../../../shared/requests/normalizedRequest';

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

function identities(request: NormalizedRequest | null): string[] {
  assert.ok(request);
  return request.messages.map(messageIdentity);
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
    assert.deepEqual(identities(normalizeAnthropicMessagesRequest(moved)), identities(request), 'a moved cache breakpoint changes no message');
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
    assert.deepEqual(
      normalizeResponsesRequest({ input: 'hi' })?.messages.map((m) => m.content),
      [[{ type: 'text', text: 'hi' }]],
    );
  });

  it('gives the same messages for the same conversation in Chat Completions and Responses', () => {
    assert.deepEqual(identities(normalizeResponsesRequest(responsesBody)), identities(normalizeChatCompletionsRequest(chatBody)));
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
    assert.deepEqual(identities(request), identities(normalizeChatCompletionsRequest(chatBody)));
    const anthropicStyle = normalizeCanonicalRequest({ type: 'model_request', system: 'S', messages: anthropicBody.messages });
    assert.deepEqual(
      anthropicStyle?.messages.map((m) => m.role),
      ['user', 'assistant', 'tool', 'user'],
    );
  });

  it('returns null for a body that is not of that API', () => {
    assert.equal(normalizeChatCompletionsRequest({ input: 'hi' }), null);
    assert.equal(normalizeAnthropicMessagesRequest('text'), null);
  });
});

describe('request normalizers: what counts as the same content', () => {
  const chat = (messages: unknown[], extra: Record<string, unknown> = {}) => normalizeChatCompletionsRequest({ model: 'm', messages, ...extra })!;
  const one = (item: unknown) => chat([item]).messages[0]!;

  it('an empty string, null and a missing content are all no content; a string, a string part and a text block are the same text', () => {
    const call = { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } };
    for (const content of ['', null]) assert.deepEqual(one({ role: 'assistant', content, tool_calls: [call] }).content, []);
    assert.deepEqual(one({ role: 'assistant', tool_calls: [call] }).content, []);
    const text = [{ type: 'text', text: 'hi' }];
    assert.deepEqual(one({ role: 'user', content: 'hi' }).content, text);
    assert.deepEqual(one({ role: 'user', content: ['hi'] }).content, text);
    assert.deepEqual(one({ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }).content, text);
    assert.deepEqual(one({ role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] }).content, text);
    assert.deepEqual(one({ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }).content, text);
  });

  it('anything else is kept whole, by its kind, without cache_control', () => {
    assert.deepEqual(one({ role: 'user', content: [{ type: 'image', source: { data: 'abc' }, cache_control: { type: 'ephemeral' } }] }).content, [
      { type: 'other', kind: 'image', value: { type: 'image', source: { data: 'abc' } } },
    ]);
    assert.deepEqual(one({ role: 'user', content: [{ type: 'text', text: 7 }, 42, { no: 'type' }] }).content, [
      { type: 'other', kind: 'text', value: { type: 'text', text: 7 } },
      { type: 'other', kind: 'unknown', value: 42 },
      { type: 'other', kind: 'unknown', value: { no: 'type' } },
    ]);
    assert.deepEqual(one({ role: 'user', content: 42 }).content, [{ type: 'other', kind: 'number', value: 42 }]);
  });

  it('call arguments: a JSON string parsed, anything else as sent, none as null; a numeric call id as a string', () => {
    const calls = one({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 7, type: 'function', function: { name: 'a', arguments: '{"x": 1}' } },
        { id: 'c2', type: 'function', function: { name: 'b', arguments: 'not json' } },
        { id: 'c3', type: 'function', function: { name: 'c' } },
        { type: 'function', function: { arguments: { y: 2 } } },
        { id: 'c5' },
        'not a call',
      ],
    }).toolCalls;
    assert.deepEqual(calls, [
      { callId: '7', name: 'a', arguments: { x: 1 } },
      { callId: 'c2', name: 'b', arguments: 'not json' },
      { callId: 'c3', name: 'c', arguments: null },
      { callId: '', name: '', arguments: { y: 2 } },
      { callId: 'c5', name: '', arguments: null },
    ]);
    assert.deepEqual(one({ role: 'tool', tool_call_id: 7, content: 'x' }).toolCallId, '7');
    assert.deepEqual(one({ role: 'assistant', content: 'x', tool_calls: 'nope' }).toolCalls, []);
  });

  it('an Anthropic assistant message: tool_use blocks become its calls, the other blocks its content', () => {
    const request = normalizeAnthropicMessagesRequest({
      model: 'm',
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a' } }, { type: 'tool_use' }],
        },
      ],
    })!;
    assert.deepEqual(request.messages[0], {
      role: 'assistant',
      content: [{ type: 'text', text: 'Reading.' }],
      toolCalls: [
        { callId: 't1', name: 'read', arguments: { path: 'a' } },
        { callId: '', name: '', arguments: null },
      ],
      toolCallId: null,
      name: null,
      isError: false,
      sourceIndex: 0,
    });
  });

  it('an Anthropic user message: text before, between and after tool results stays in order; an error result says so', () => {
    const request = normalizeAnthropicMessagesRequest({
      model: 'm',
      messages: [
        {
          role: 'user',
          name: 'ann',
          content: [
            { type: 'text', text: 'before' },
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'one' }], is_error: true },
            { type: 'tool_result', tool_use_id: 't2' },
            { type: 'tool_result', tool_use_id: 't3', content: 'three', is_error: 'yes' },
            { type: 'text', text: 'after' },
          ],
        },
        { role: 'user', name: 'bob', content: 'plain' },
      ],
    })!;
    assert.deepEqual(
      request.messages.map((m) => [m.role, m.toolCallId, m.content, m.isError, m.name, m.sourceIndex]),
      [
        ['user', null, [{ type: 'text', text: 'before' }], false, 'ann', 0],
        ['tool', 't1', [{ type: 'text', text: 'one' }], true, null, 0],
        ['tool', 't2', [], false, null, 0],
        ['tool', 't3', [{ type: 'text', text: 'three' }], false, null, 0],
        ['user', null, [{ type: 'text', text: 'after' }], false, 'ann', 0],
        ['user', null, [{ type: 'text', text: 'plain' }], false, 'bob', 1],
      ],
    );
  });

  it('Responses items: a function_call joins only the assistant message right before it; items without a role keep their type', () => {
    const request = normalizeResponsesRequest({
      input: [
        { role: 'assistant', content: 'a' },
        { type: 'function_call', call_id: 'f1', name: 'read', arguments: '{}' },
        { role: 'user', content: 'u' },
        { type: 'function_call', id: 'f2', name: 'read', arguments: '{}' },
        { type: 'function_call', call_id: 'f3', name: 'read', arguments: '{}' },
        { type: 'function_call_output', call_id: 'f2', output: 'out' },
        { type: 'function_call', arguments: '{}' },
        { type: 'reasoning', summary: [] },
        { id: 'x' },
        'loose text',
        { role: 'critic', content: 'c', name: 'rev' },
        { role: 'tool', tool_call_id: 'f3', content: 't', name: 'read' },
      ],
    })!;
    assert.deepEqual(
      request.messages.map((m) => [m.role, m.toolCalls.map((c) => c.callId), m.toolCallId, m.name, m.sourceIndex]),
      [
        ['assistant', ['f1'], null, null, 0],
        ['user', [], null, null, 2],
        ['assistant', ['f2', 'f3'], null, null, 3],
        ['tool', [], 'f2', null, 5],
        ['assistant', [''], null, null, 6],
        ['reasoning', [], null, null, 7],
        ['unknown', [], null, null, 8],
        ['unknown', [], null, null, 9],
        ['critic', [], null, 'rev', 10],
        ['tool', [], 'f3', 'read', 11],
      ],
    );
    assert.deepEqual(request.messages[5]!.content, [{ type: 'other', kind: 'reasoning', value: { type: 'reasoning', summary: [] } }]);
    assert.deepEqual(request.messages[7]!.content, [{ type: 'text', text: 'loose text' }]);
  });
});

describe('request normalizers: system prompt, tools and parameters', () => {
  it('leading system and developer messages join the API system field, separated by a blank line; later ones stay messages', () => {
    const request = normalizeResponsesRequest({
      instructions: 'Be brief.',
      input: [
        {
          role: 'developer',
          content: [
            { type: 'input_text', text: 'Use tools.' },
            { type: 'image', url: 'x' },
          ],
        },
        { role: 'system', content: 'Never guess.' },
        { role: 'user', content: 'go' },
        { role: 'system', content: 'Late.' },
      ],
    })!;
    assert.equal(request.system, 'Be brief.\n\nUse tools.\n\n{"type":"image","url":"x"}\n\nNever guess.');
    assert.deepEqual(
      request.messages.map((m) => m.role),
      ['user', 'system'],
    );
    assert.equal(normalizeResponsesRequest({ input: [{ role: 'user', content: 'go' }] })!.system, null);
    assert.equal(normalizeAnthropicMessagesRequest({ system: '', messages: [] })!.system, null);
    assert.equal(
      normalizeAnthropicMessagesRequest({
        system: [
          { type: 'text', text: 'A' },
          { type: 'text', text: 'B' },
        ],
        messages: [],
      })!.system,
      'A\n\nB',
    );
    assert.equal(normalizeChatCompletionsRequest({ messages: [{ role: 'system', content: 'S' }] })!.messages.length, 0);
  });

  it('each API tool shape, and a built-in tool kept whole', () => {
    const schema = { type: 'object' };
    assert.deepEqual(
      normalizeChatCompletionsRequest({
        messages: [],
        tools: [
          { type: 'function', function: { name: 'a', description: 'A', parameters: schema }, cache_control: { type: 'ephemeral' } },
          { type: 'function', function: { description: 7 } },
          { name: 'b', input_schema: schema, description: 'B' },
          { type: 'function', name: 'c', parameters: schema },
          { type: 'function', name: 'd' },
          { type: 'web_search', search_context_size: 'low', description: 'Web' },
          { search: true },
          'nonsense',
        ],
      })!.tools,
      [
        { name: 'a', description: 'A', parameters: schema },
        { name: 'unknown', description: null, parameters: null },
        { name: 'b', description: 'B', parameters: schema },
        { name: 'c', description: null, parameters: schema },
        { name: 'd', description: null, parameters: null },
        { name: 'web_search', description: 'Web', parameters: { type: 'web_search', search_context_size: 'low' } },
        { name: 'unknown', description: null, parameters: { search: true } },
        { name: 'unknown', description: null, parameters: 'nonsense' },
      ],
    );
  });

  it('max_completion_tokens and max_output_tokens read as max_tokens, unless the body has max_tokens itself', () => {
    assert.deepEqual(normalizeChatCompletionsRequest({ messages: [], max_completion_tokens: 9, stream: false })!.params, { max_tokens: 9, stream: false });
    assert.deepEqual(normalizeChatCompletionsRequest({ messages: [], max_tokens: 5, max_completion_tokens: 9 })!.params, {
      max_tokens: 5,
      max_completion_tokens: 9,
    });
    assert.deepEqual(normalizeAnthropicMessagesRequest({ messages: [], system: 'S', tools: [], top_k: 3 })!.params, { top_k: 3 });
    assert.deepEqual(normalizeResponsesRequest({ input: 'hi', instructions: 'I', tools: [], max_output_tokens: 4 })!.params, { max_tokens: 4 });
    assert.deepEqual(normalizeCanonicalRequest({ messages: [], params: { max_completion_tokens: 3, model: 'old' }, model: 'new' })!.params, {
      max_tokens: 3,
      model: 'new',
    });
    assert.deepEqual(normalizeCanonicalRequest({})!.params, {});
  });

  it('returns null for a body of another shape', () => {
    assert.equal(normalizeResponsesRequest({ input: 5 }), null);
    assert.equal(normalizeResponsesRequest({ instructions: 5 }), null);
    assert.equal(normalizeCanonicalRequest({ messages: 'hi' }), null);
    assert.equal(normalizeChatCompletionsRequest({ messages: [], tools: 'x' }), null);
    assert.deepEqual(normalizeResponsesRequest({})?.messages, []);
  });
});

describe('a message as a tokenizer sees it', () => {
  const message = (fields: Partial<RequestMessage>): RequestMessage => ({
    role: 'assistant',
    content: [],
    toolCalls: [],
    toolCallId: null,
    name: null,
    isError: false,
    sourceIndex: 0,
    ...fields,
  });
  const image = { type: 'image', data: 'abc' };
  const parts: RequestMessage['content'] = [
    { type: 'text', text: 'Reading.' },
    { type: 'other', kind: 'image', value: image },
  ];
  const calls = [
    { callId: 'c1', name: 'read', arguments: { path: 'a' } },
    { callId: 'c2', name: 'grep', arguments: 'raw args' },
  ];

  it('its text: text parts as written, other parts and calls as JSON, one per line', () => {
    assert.equal(messageText(message({ content: parts, toolCalls: calls })), 'Reading.\n{"data":"abc","type":"image"}\nread({"path":"a"})\ngrep("raw args")');
  });

  it('its characters: the text, other parts and arguments as JSON (a string argument as is), and each call name', () => {
    const expected =
      'Reading.'.length + JSON.stringify(image).length + 'read'.length + JSON.stringify({ path: 'a' }).length + 'grep'.length + 'raw args'.length;
    assert.equal(messageChars(message({ content: parts, toolCalls: calls })), expected);
    assert.equal(
      messageChars(message({ content: [{ type: 'other', kind: 'x', value: undefined }], toolCalls: [{ callId: 'c', name: 'ls', arguments: undefined }] })),
      2,
    );
  });

  it('its identity: everything but where it sat; an identity remembered for a copy is the identity used', () => {
    const base = message({ content: parts, toolCalls: calls });
    assert.equal(messageIdentity({ ...base, sourceIndex: 9 }), messageIdentity({ ...base }));
    for (const change of [{ role: 'user' }, { content: [] }, { toolCalls: [] }, { toolCallId: 'c1' }, { name: 'n' }, { isError: true }]) {
      assert.notEqual(messageIdentity({ ...base, ...change }), messageIdentity({ ...base }), JSON.stringify(change));
    }
    const copy = { ...base, sourceIndex: 3 };
    rememberMessageIdentity(copy, 'remembered');
    assert.equal(messageIdentity(copy), 'remembered');
  });

  it('two messages have the same identity exactly when their content as canonical JSON is the same', () => {
    // The definition the identity stands for: every field but sourceIndex, as canonical JSON.
    const contentJson = ({ role, content, toolCalls, toolCallId, name, isError }: RequestMessage): string =>
      canonicalJson({ role, content, toolCalls, toolCallId, name, isError });
    // Few distinct short values, so equal and near-equal messages are both common; texts that
    // contain the identity's own separators (digits, ':', '-', tags) try to make fields run together.
    const text = fc.constantFrom('', 'a', 'ab', '1:a', '-', 't1:a', 'c', '0', '2:ab', '{"x":1}');
    const value = fc.oneof(fc.constant(null), text, fc.dictionary(fc.constantFrom('x', 'y'), fc.oneof(text, fc.integer({ min: 0, max: 2 }))));
    const part = fc.oneof(fc.record({ type: fc.constant('text' as const), text }), fc.record({ type: fc.constant('other' as const), kind: text, value }));
    const call = fc.record({ callId: text, name: text, arguments: value });
    const generated = fc.record({
      role: fc.constantFrom('user', 'assistant', 'tool', 'us', 'er'),
      content: fc.array(part, { maxLength: 2 }),
      toolCalls: fc.array(call, { maxLength: 2 }),
      toolCallId: fc.option(text),
      name: fc.option(text),
      isError: fc.boolean(),
      sourceIndex: fc.integer({ min: 0, max: 3 }),
    });
    fc.assert(
      fc.property(generated, generated, (a, b) => {
        assert.equal(messageIdentity({ ...a }) === messageIdentity({ ...b }), contentJson(a) === contentJson(b));
      }),
      { numRuns: 20_000 },
    );
    // Fields whose texts, put one after the other, read the same: still different messages.
    const textPart = (t: string) => ({ type: 'text' as const, text: t });
    const lookAlikes: [Partial<RequestMessage>, Partial<RequestMessage>][] = [
      [
        { toolCallId: '', name: null },
        { toolCallId: null, name: '' },
      ],
      [
        { role: 'a', toolCallId: 'b' },
        { role: 'ab', toolCallId: '' },
      ],
      [{ content: [textPart('a'), textPart('b')] }, { content: [textPart('atb')] }],
      [
        { name: '0', isError: false },
        { name: '', isError: false, content: [textPart('0')] },
      ],
    ];
    for (const [a, b] of lookAlikes) assert.notEqual(messageIdentity(message(a)), messageIdentity(message(b)), JSON.stringify([a, b]));
    // Key order inside a value does not count; the order of parts does.
    const withArguments = (args: unknown) => message({ toolCalls: [{ callId: 'c', name: 'ls', arguments: args }] });
    assert.equal(messageIdentity(withArguments({ a: 1, b: 2 })), messageIdentity(withArguments({ b: 2, a: 1 })));
    assert.notEqual(
      messageIdentity(message({ content: [textPart('a'), textPart('b')] })),
      messageIdentity(message({ content: [textPart('b'), textPart('a')] })),
    );
  });
});

describe('request normalizers: the remaining edges', () => {
  it('a part that is not a record, or a record whose type is no text type, is never text', () => {
    const request = normalizeChatCompletionsRequest({
      messages: [{ role: 'user', content: [null, { type: 'summary_text', text: 's' }, { type: 'text', text: 't' }] }],
    })!;
    assert.deepEqual(request.messages[0]!.content, [
      { type: 'other', kind: 'unknown', value: null },
      { type: 'other', kind: 'summary_text', value: { type: 'summary_text', text: 's' } },
      { type: 'text', text: 't' },
    ]);
  });

  it('an assistant message keeps its name; a Responses string input is a user message; a null item is of unknown role', () => {
    assert.equal(normalizeChatCompletionsRequest({ messages: [{ role: 'assistant', name: 'bot', content: 'x' }] })!.messages[0]!.name, 'bot');
    assert.deepEqual(
      normalizeResponsesRequest({ input: 'hi' })!.messages.map((m) => m.role),
      ['user'],
    );
    assert.deepEqual(
      normalizeResponsesRequest({ input: [null] })!.messages.map((m) => [m.role, m.content]),
      [['unknown', [{ type: 'other', kind: 'unknown', value: null }]]],
    );
  });

  it('a function_call without a name calls "", and joins no assistant message that an empty user message came after', () => {
    const request = normalizeResponsesRequest({
      input: [
        { role: 'assistant', content: 'a' },
        { role: 'user', content: [] },
        { type: 'function_call', call_id: 'f1' },
      ],
    })!;
    assert.deepEqual(
      request.messages.map((m) => [m.role, m.toolCalls, m.sourceIndex]),
      [
        ['assistant', [], 0],
        ['assistant', [{ callId: 'f1', name: '', arguments: null }], 2],
      ],
    );
  });

  it("a built-in tool's name is not among its parameters", () => {
    assert.deepEqual(normalizeResponsesRequest({ input: [], tools: [{ type: 'web_search', name: 'search', size: 1 }] })!.tools, [
      { name: 'search', description: null, parameters: { type: 'web_search', size: 1 } },
    ]);
  });

  it('an Anthropic body without messages is none; a canonical event without messages has none', () => {
    assert.equal(normalizeAnthropicMessagesRequest({ system: 'S' }), null);
    assert.deepEqual(normalizeCanonicalRequest({ model: 'm' })!.messages, []);
    assert.deepEqual(normalizeCanonicalRequest({ model: 'm' })!.params, { model: 'm' });
  });

  it('a normalized request is what its schema describes, and the schema rejects a part of no known type', () => {
    const request = normalizeAnthropicMessagesRequest(anthropicBody)!;
    request.messages[0]!.content.push({ type: 'other', kind: 'image', value: { type: 'image' } });
    assert.deepEqual(normalizedRequestSchema.parse(request), request);
    const broken = structuredClone(request) as unknown as { messages: { content: unknown[]; toolCalls: unknown[] }[] };
    broken.messages[0]!.content.push({ type: 'image' });
    assert.equal(normalizedRequestSchema.safeParse(broken).success, false);
    const noCallId = structuredClone(request) as unknown as { messages: { toolCalls: Record<string, unknown>[] }[] };
    delete noCallId.messages[1]!.toolCalls[0]!['callId'];
    assert.equal(normalizedRequestSchema.safeParse(noCallId).success, false);
  });
});

describe('request normalizers: a call as the first item', () => {
  it('a function_call with nothing before it starts an assistant message', () => {
    assert.deepEqual(
      normalizeResponsesRequest({ input: [{ type: 'function_call', call_id: 'f1', name: 'ls' }] })!.messages.map((m) => [
        m.role,
        m.toolCalls.map((c) => c.callId),
        m.sourceIndex,
      ]),
      [['assistant', ['f1'], 0]],
    );
  });
});
