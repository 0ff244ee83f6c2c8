/**
 * What each model response used, as stored for pricing (store/responseUsage.ts): the model, the
 * provider and the token counts — cache reads and writes as parts of the input, reasoning as part
 * of the output — of traces in several formats, written to a temp dir and read by the real engine
 * into a real SQLite file. What a format does not record stays null.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openTrace } from '../../src-main/engine/engine';
import { responseUsages, type ResponseUsageSqlRow } from '../../src-main/engine/store/readModel';
import { openDatabase } from '../../src-main/engine/store/traceDatabase';
import { defaultAnalysis, temporaryDir } from '../support/engineHarness';

/** The pricing facts of a response, without its ids and time. */
type Usage = Pick<
  ResponseUsageSqlRow,
  'model' | 'provider' | 'input_tokens' | 'cached_input_tokens' | 'cache_write_tokens' | 'output_tokens' | 'reasoning_tokens' | 'cost_usd'
>;

const none: Usage = {
  model: null,
  provider: null,
  input_tokens: null,
  cached_input_tokens: null,
  cache_write_tokens: null,
  output_tokens: null,
  reasoning_tokens: null,
  cost_usd: null,
};

const usage = (fields: Partial<Usage>): Usage => ({ ...none, ...fields });

describe('response usage', () => {
  const dir = temporaryDir('response-usage');
  after(() => dir.remove());

  /** The trace's response rows as `responseUsages` yields them, read with `format`. */
  async function responsesOf(name: string, lines: readonly unknown[], format: string): Promise<ResponseUsageSqlRow[]> {
    const path = join(dir.path, name);
    writeFileSync(path, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n');
    const cache = temporaryDir('response-usage-cache');
    try {
      const trace = await openTrace(path, { cacheDir: cache.path, analysis: defaultAnalysis, format });
      const db = openDatabase(trace.dbPath, { readonly: true });
      try {
        const rows = [...responseUsages(db, [trace.sourceId])];
        const ids = rows.map((row) => row.event_id);
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => a - b),
          'in event id order',
        );
        return rows;
      } finally {
        db.close();
      }
    } finally {
      cache.remove();
    }
  }

  const usagesOf = (rows: readonly ResponseUsageSqlRow[]): Usage[] =>
    rows.map(({ model, provider, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost_usd }) => ({
      model,
      provider,
      input_tokens,
      cached_input_tokens,
      cache_write_tokens,
      output_tokens,
      reasoning_tokens,
      cost_usd,
    }));

  it('canonical: the fields as written, a response naming none all null, a stream that closed without a response as its last fragment', async () => {
    const rows = await responsesOf(
      'canonical.jsonl',
      [
        { type: 'run_start', run_id: 'r', config: { provider: 'anthropic', model: 'claude-sonnet-4-5' } },
        {
          type: 'model_response',
          run_id: 'r',
          step: 1,
          ts: '2025-06-03T14:21:08.287Z',
          model: 'claude-sonnet-4-5-20250929',
          provider: 'anthropic',
          tool_calls: [{ call_id: 'c1', name: 'lookup', arguments: '{}' }],
          usage: { input_tokens: 15503, cached_input_tokens: 14000, cache_write_tokens: 1500, output_tokens: 41, reasoning_tokens: 12, cost_usd: 0.0123 },
        },
        { type: 'tool_result', run_id: 'r', step: 1, call_id: 'c1', output: 'ok' },
        // OpenAI's aliases count as input and output; no model named: none stored, not the run's.
        { type: 'model_response', run_id: 'r', step: 2, text: 'thinking', usage: { prompt_tokens: 900, completion_tokens: 30 } },
        { type: 'stream_fragment', run_id: 'r', step: 3, response_id: 's', text_delta: 'Do' },
        { type: 'stream_fragment', run_id: 'r', step: 3, response_id: 's', text_delta: 'ne', finish_reason: 'stop' },
        { type: 'run_end', run_id: 'r', status: 'completed' },
      ],
      'loopscope',
    );
    assert.deepEqual(usagesOf(rows), [
      usage({
        model: 'claude-sonnet-4-5-20250929',
        provider: 'anthropic',
        input_tokens: 15503,
        cached_input_tokens: 14000,
        cache_write_tokens: 1500,
        output_tokens: 41,
        reasoning_tokens: 12,
        cost_usd: 0.0123,
      }),
      usage({ input_tokens: 900, output_tokens: 30 }),
      none,
    ]);
    assert.deepEqual(
      rows.map((row) => [row.step, row.ts]),
      [
        [1, '2025-06-03T14:21:08.287Z'],
        [2, null],
        [3, null],
      ],
    );
    assert.ok(rows.every((row) => row.run_pk === rows[0]?.run_pk));
  });

  const anthropicUrl = 'https://api.anthropic.com/v1/messages';
  const exchange = (url: string, at: number, body: unknown, response: Record<string, unknown>): Record<string, unknown> => ({
    request: { timestamp: at, method: 'POST', url, headers: { 'content-type': 'application/json' }, body },
    response: { timestamp: at + 1, headers: { 'content-type': 'application/json' }, ...response },
  });
  const sse = (events: Record<string, unknown>[]): string =>
    events.map((event) => `event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`).join('');

  it('Anthropic Messages log: input is all three counts, cache reads and writes its parts; a streamed one too; an error names the model asked for', async () => {
    const messages = [{ role: 'user', content: 'Summarize the changelog.' }];
    const rows = await responsesOf(
      'anthropic.jsonl',
      [
        exchange(
          anthropicUrl,
          1750000000,
          { model: 'claude-sonnet-4-5', max_tokens: 1024, messages },
          {
            status_code: 200,
            body: {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              model: 'claude-sonnet-4-5-20250929',
              content: [{ type: 'text', text: 'It fixes rounding.' }],
              stop_reason: 'end_turn',
              usage: { input_tokens: 3, cache_creation_input_tokens: 1500, cache_read_input_tokens: 14000, output_tokens: 41 },
            },
          },
        ),
        exchange(
          anthropicUrl,
          1750000010,
          { model: 'claude-sonnet-4-5', max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'And the tests?' }] },
          {
            status_code: 200,
            body: sse([
              {
                type: 'message_start',
                message: {
                  id: 'msg_2',
                  type: 'message',
                  role: 'assistant',
                  model: 'claude-sonnet-4-5-20250929',
                  content: [],
                  usage: { input_tokens: 5, cache_creation_input_tokens: 200, cache_read_input_tokens: 15500, output_tokens: 1 },
                },
              },
              { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
              { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'They pass.' } },
              { type: 'content_block_stop', index: 0 },
              { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 17 } },
              { type: 'message_stop' },
            ]),
          },
        ),
        exchange(
          anthropicUrl,
          1750000020,
          { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Again?' }] },
          { status_code: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
        ),
      ],
      'http-exchange',
    );
    assert.deepEqual(usagesOf(rows), [
      usage({
        model: 'claude-sonnet-4-5-20250929',
        provider: 'anthropic',
        input_tokens: 15503,
        cached_input_tokens: 14000,
        cache_write_tokens: 1500,
        output_tokens: 41,
      }),
      usage({
        model: 'claude-sonnet-4-5-20250929',
        provider: 'anthropic',
        input_tokens: 15705,
        cached_input_tokens: 15500,
        cache_write_tokens: 200,
        output_tokens: 17,
      }),
      usage({ model: 'claude-sonnet-4-5', provider: 'anthropic' }),
    ]);
  });

  it('OpenAI Chat Completions and Responses log: cached and reasoning tokens from their details, the provider from the host', async () => {
    const rows = await responsesOf(
      'openai.jsonl',
      [
        exchange(
          'https://api.openai.com/v1/chat/completions',
          1750000000,
          { model: 'o4-mini', messages: [{ role: 'user', content: 'Plan the release.' }] },
          {
            status_code: 200,
            body: {
              id: 'chatcmpl-1',
              object: 'chat.completion',
              model: 'o4-mini-2025-04-16',
              choices: [{ index: 0, message: { role: 'assistant', content: 'Tag, build, publish.' }, finish_reason: 'stop' }],
              usage: {
                prompt_tokens: 2000,
                completion_tokens: 300,
                total_tokens: 2300,
                prompt_tokens_details: { cached_tokens: 1024 },
                completion_tokens_details: { reasoning_tokens: 256 },
              },
            },
          },
        ),
        exchange(
          'https://api.openai.com/v1/responses',
          1750000010,
          { model: 'gpt-5', input: 'Write the notes.' },
          {
            status_code: 200,
            body: {
              id: 'resp_1',
              object: 'response',
              status: 'completed',
              model: 'gpt-5-2025-08-07',
              output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Notes.' }] }],
              usage: {
                input_tokens: 1200,
                input_tokens_details: { cached_tokens: 0 },
                output_tokens: 500,
                output_tokens_details: { reasoning_tokens: 448 },
                total_tokens: 1700,
              },
            },
          },
        ),
        // An OpenAI-compatible provider elsewhere: its host names it.
        exchange(
          'https://api.deepseek.com/chat/completions',
          1750000020,
          { model: 'deepseek-chat', messages: [{ role: 'user', content: 'Hi' }] },
          {
            status_code: 200,
            body: {
              id: 'chatcmpl-2',
              object: 'chat.completion',
              model: 'deepseek-chat',
              choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }],
              usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
            },
          },
        ),
      ],
      'http-exchange',
    );
    assert.deepEqual(usagesOf(rows), [
      usage({ model: 'o4-mini-2025-04-16', provider: 'openai', input_tokens: 2000, cached_input_tokens: 1024, output_tokens: 300, reasoning_tokens: 256 }),
      usage({ model: 'gpt-5-2025-08-07', provider: 'openai', input_tokens: 1200, cached_input_tokens: 0, output_tokens: 500, reasoning_tokens: 448 }),
      usage({ model: 'deepseek-chat', provider: 'api.deepseek.com', input_tokens: 10, output_tokens: 3 }),
    ]);
  });

  it('Claude Code session: the message’s model and Anthropic usage, once per message', async () => {
    const session = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
    const base = { isSidechain: false, userType: 'external', cwd: '/home/dev/app', sessionId: session, version: '2.1.40' };
    const assistant = (uuid: string, parent: string, at: string, content: unknown[], stop: string | null, outputTokens: number) => ({
      ...base,
      parentUuid: parent,
      type: 'assistant',
      uuid,
      timestamp: at,
      requestId: 'req_1',
      message: {
        model: 'claude-opus-4-1-20250805',
        id: 'msg_01A',
        type: 'message',
        role: 'assistant',
        content,
        stop_reason: stop,
        usage: { input_tokens: 3, cache_creation_input_tokens: 1500, cache_read_input_tokens: 14000, output_tokens: outputTokens },
      },
    });
    const rows = await responsesOf(
      `${session}.jsonl`,
      [
        {
          ...base,
          parentUuid: null,
          type: 'user',
          uuid: 'u1',
          timestamp: '2026-03-05T11:00:04.000Z',
          message: { role: 'user', content: 'Add a CHANGELOG entry' },
        },
        // Claude Code writes a line per content block, each repeating the usage as it grows.
        assistant('a1', 'u1', '2026-03-05T11:00:06.000Z', [{ type: 'thinking', thinking: 'Short entry.' }], null, 10),
        assistant('a2', 'a1', '2026-03-05T11:00:07.000Z', [{ type: 'text', text: 'Done: added the entry.' }], 'end_turn', 41),
      ],
      'claude-code',
    );
    assert.deepEqual(usagesOf(rows), [
      usage({
        model: 'claude-opus-4-1-20250805',
        provider: 'anthropic',
        input_tokens: 15503,
        cached_input_tokens: 14000,
        cache_write_tokens: 1500,
        output_tokens: 41,
      }),
    ]);
  });

  it('Codex rollout: the model of the turn context, the session’s provider, cached and reasoning tokens of token_count', async () => {
    const line = (at: string, type: string, payload: Record<string, unknown>) => ({ timestamp: `2026-01-19T15:02:${at}Z`, type, payload });
    const tokenCount = (input: number, cached: number, output: number, reasoning: number) => ({
      type: 'token_count',
      info: {
        total_token_usage: {
          input_tokens: input,
          cached_input_tokens: cached,
          output_tokens: output,
          reasoning_output_tokens: reasoning,
          total_tokens: input + output,
        },
        last_token_usage: {
          input_tokens: input,
          cached_input_tokens: cached,
          output_tokens: output,
          reasoning_output_tokens: reasoning,
          total_tokens: input + output,
        },
        model_context_window: 258400,
      },
    });
    const rows = await responsesOf(
      'rollout-2026-01-19T15-02-00-019bd6f2-8a41-7c3e-b5d0-2f7e19a6c384.jsonl',
      [
        line('00.007', 'session_meta', {
          id: '019bd6f2-8a41-7c3e-b5d0-2f7e19a6c384',
          timestamp: '2026-01-19T15:02:00.000Z',
          cwd: '/work/cart',
          originator: 'codex_cli_rs',
          cli_version: '0.104.0',
          source: 'cli',
          model_provider: 'openai',
        }),
        line('00.035', 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Why is the test flaky?' }] }),
        line('00.049', 'turn_context', { cwd: '/work/cart', approval_policy: 'on-request', model: 'gpt-5.3-codex', effort: 'high', summary: 'auto' }),
        line('04.370', 'response_item', { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"npm test"}', call_id: 'call_1' }),
        line('04.444', 'event_msg', tokenCount(18000, 3456, 300, 180)),
        line('05.000', 'response_item', { type: 'function_call_output', call_id: 'call_1', output: 'Process exited with code 0' }),
        line('06.000', 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It depends on the clock.' }] }),
        line('06.100', 'event_msg', tokenCount(19000, 17920, 120, 0)),
        line('06.200', 'event_msg', { type: 'task_complete', last_agent_message: 'It depends on the clock.' }),
      ],
      'codex',
    );
    assert.deepEqual(usagesOf(rows), [
      usage({ model: 'gpt-5.3-codex', provider: 'openai', input_tokens: 18000, cached_input_tokens: 3456, output_tokens: 300, reasoning_tokens: 180 }),
      usage({ model: 'gpt-5.3-codex', provider: 'openai', input_tokens: 19000, cached_input_tokens: 17920, output_tokens: 120, reasoning_tokens: 0 }),
    ]);
  });

  it('OpenTelemetry GenAI spans: response model (else the request’s), gen_ai.provider.name (else gen_ai.system), gen_ai.usage.*', async () => {
    const attribute = (key: string, value: string | number) => ({
      key,
      value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value },
    });
    const span = (id: string, parent: string, name: string, start: number, end: number, attributes: Record<string, string | number>) => ({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: id,
      parentSpanId: parent,
      name,
      kind: 3,
      startTimeUnixNano: `${1762250000 + start}000000000`,
      endTimeUnixNano: `${1762250000 + end}000000000`,
      attributes: Object.entries(attributes).map(([key, value]) => attribute(key, value)),
      status: {},
    });
    const line = {
      resourceSpans: [
        {
          resource: { attributes: [attribute('service.name', 'planner')] },
          scopeSpans: [
            {
              scope: { name: 'genai', version: '1.0.0' },
              spans: [
                span('b7ad6b7169203331', '', 'invoke_agent Planner', 0, 10, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Planner' }),
                span('c1c1c1c1c1c1c101', 'b7ad6b7169203331', 'chat claude-sonnet-4', 1, 2, {
                  'gen_ai.operation.name': 'chat',
                  'gen_ai.provider.name': 'anthropic',
                  'gen_ai.request.model': 'claude-sonnet-4',
                  'gen_ai.response.model': 'claude-sonnet-4-20250514',
                  'gen_ai.response.finish_reasons': '["end_turn"]',
                  'gen_ai.usage.input_tokens': 5120,
                  'gen_ai.usage.output_tokens': 100,
                  'gen_ai.usage.cache_read.input_tokens': 4500,
                  'gen_ai.usage.cache_creation.input_tokens': 500,
                }),
                span('c1c1c1c1c1c1c102', 'b7ad6b7169203331', 'chat o3', 3, 4, {
                  'gen_ai.operation.name': 'chat',
                  'gen_ai.system': 'openai',
                  'gen_ai.request.model': 'o3',
                  'gen_ai.response.finish_reasons': '["stop"]',
                  'gen_ai.usage.input_tokens': 800,
                  'gen_ai.usage.output_tokens': 600,
                  'gen_ai.usage.reasoning.output_tokens': 512,
                }),
              ],
            },
          ],
        },
      ],
    };
    const rows = await responsesOf('spans.jsonl', [line], 'otel-otlp');
    assert.deepEqual(usagesOf(rows), [
      usage({
        model: 'claude-sonnet-4-20250514',
        provider: 'anthropic',
        input_tokens: 5120,
        cached_input_tokens: 4500,
        cache_write_tokens: 500,
        output_tokens: 100,
      }),
      usage({ model: 'o3', provider: 'openai', input_tokens: 800, output_tokens: 600, reasoning_tokens: 512 }),
    ]);
  });

  it('yields nothing for sources it is not given', async () => {
    const path = join(dir.path, 'other.jsonl');
    writeFileSync(path, `${JSON.stringify({ type: 'model_response', run_id: 'r', model: 'm', usage: { input_tokens: 1 } })}\n`);
    const cache = temporaryDir('response-usage-cache');
    try {
      const trace = await openTrace(path, { cacheDir: cache.path, analysis: defaultAnalysis });
      const db = openDatabase(trace.dbPath, { readonly: true });
      try {
        assert.equal([...responseUsages(db, [trace.sourceId])].length, 1);
        assert.deepEqual([...responseUsages(db, [trace.sourceId + 1])], []);
        assert.deepEqual([...responseUsages(db, [])], []);
      } finally {
        db.close();
      }
    } finally {
      cache.remove();
    }
  });
});
