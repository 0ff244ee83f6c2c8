/**
 * A request read message by message from its bytes (src-main/engine/derive/requestBytes.ts) is
 * exactly the request read whole, for every logged request of the fixtures and examples, and for
 * random histories written with random whitespace; Responses bodies and broken lines are left to
 * the whole read.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RequestBytesReader } from '../../../src-main/engine/derive/requestBytes';
import { apiOf } from '../../../src-main/engine/adapters/httpExchange/apis';
import { normalizeAnthropicMessagesRequest, normalizeCanonicalRequest, normalizeChatCompletionsRequest } from '../../../shared/requests/apiRequestBodies';
import type { NormalizedRequest } from '../../../shared/requests/normalizedRequest';
import { fixtures } from '../../support/formatTests';
import { changedHistory, historyChange, historyMessage } from '../../support/historyEdits';
import { examplesDir } from '../../../devkit/repoPaths';

const examples = examplesDir;

function wholeExchange(line: string): NormalizedRequest | null {
  const request = (JSON.parse(line) as { request: { url: string; body: Record<string, unknown> } }).request;
  const api = apiOf(request.url, request.body);
  if (api === 'openai-chat') return normalizeChatCompletionsRequest(request.body);
  if (api === 'anthropic-messages') return normalizeAnthropicMessagesRequest(request.body);
  return null;
}

describe('a request read message by message', () => {
  it('equals the request read whole, for every Chat and Anthropic exchange of the fixtures; Responses bodies are left to the whole read', () => {
    const reader = new RequestBytesReader();
    let compared = 0;
    for (const name of ['anthropic-messages', 'openai-chat', 'openai-responses']) {
      for (const line of readFileSync(join(fixtures, 'http-exchange', `${name}.jsonl`), 'utf8')
        .split('\n')
        .filter(Boolean)) {
        const fromBytes = reader.exchange(Buffer.from(line));
        if (name === 'openai-responses') {
          assert.equal(fromBytes, null);
          continue;
        }
        assert.deepEqual(fromBytes, wholeExchange(line));
        compared += 1;
      }
    }
    assert.ok(compared >= 8, `${compared} requests compared`);
  });

  it('equals the request read whole, for every model_request line of the examples (read twice: the second time from the cache)', () => {
    const reader = new RequestBytesReader();
    let compared = 0;
    for (const name of readdirSync(examples).filter((file) => file.endsWith('.jsonl'))) {
      for (const line of readFileSync(join(examples, name), 'utf8').split('\n')) {
        let record: unknown;
        try {
          record = JSON.parse(line);
        } catch {
          // A cut request line is left to the whole read, which reports what is wrong with it.
          if (line.includes('"model_request"')) assert.equal(reader.canonical(Buffer.from(line)), null);
          continue;
        }
        if ((record as { type?: string }).type !== 'model_request') continue;
        const whole = normalizeCanonicalRequest(record);
        assert.deepEqual(reader.canonical(Buffer.from(line)), whole, `${name}`);
        assert.deepEqual(reader.canonical(Buffer.from(line)), whole, `${name}, cached`);
        compared += 1;
      }
    }
    assert.ok(compared >= 50, `${compared} requests compared`);
  });

  it('still equals the request read whole when its cache of messages is far smaller than the history (it starts over)', () => {
    const reader = new RequestBytesReader(300);
    const line = readFileSync(join(examples, 'normal-query.jsonl'), 'utf8')
      .split('\n')
      .filter((text) => text.includes('"model_request"'))
      .at(-1)!;
    for (let round = 0; round < 3; round++) assert.deepEqual(reader.canonical(Buffer.from(line)), normalizeCanonicalRequest(JSON.parse(line)));
  });

  it('equals the request read whole for random histories written with random whitespace', () => {
    const text = fc.string({ maxLength: 12 });
    const id = fc.constantFrom('call_1', 'call_2', 'call_3');
    const message = fc.oneof(
      fc.record({ role: fc.constantFrom('user', 'system', 'developer'), content: text }),
      fc.record({
        role: fc.constant('assistant'),
        content: fc.option(text, { nil: null }),
        tool_calls: fc.array(
          fc.record({
            id,
            type: fc.constant('function'),
            function: fc.record({ name: fc.constantFrom('read', 'list'), arguments: fc.constantFrom('{"a":1}', '{}', 'not json') }),
          }),
          { maxLength: 2 },
        ),
      }),
      fc.record({ role: fc.constant('tool'), tool_call_id: id, content: text }),
      fc.record({
        role: fc.constant('user'),
        content: fc.array(
          fc.oneof(fc.record({ type: fc.constant('text'), text }), fc.record({ type: fc.constant('tool_result'), tool_use_id: id, content: text })),
          { maxLength: 3 },
        ),
      }),
    );
    const reader = new RequestBytesReader();
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 8 }),
        fc.constantFrom(0, 1, 2),
        fc.option(fc.constantFrom('be brief', 'you are a bot'), { nil: undefined }),
        (messages, indent, system) => {
          const event = {
            type: 'model_request',
            run_id: 'r',
            model: 'm',
            ...(system !== undefined ? { system } : {}),
            messages,
            tools: [{ type: 'function', function: { name: 'read', parameters: {} } }],
            params: { max_completion_tokens: 5 },
          };
          const line = indent === 0 ? JSON.stringify(event) : JSON.stringify(event, null, indent).replaceAll('\n', ' ');
          assert.deepEqual(reader.canonical(Buffer.from(line)), normalizeCanonicalRequest(JSON.parse(line)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("equals the request read whole along a run whose requests extend, edit, drop and cut the previous one's history (the bytes shared with it are reused)", () => {
    fc.assert(
      fc.property(
        fc.array(historyMessage, { maxLength: 4 }),
        fc.array(historyChange, { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (first, steps, asExchange) => {
          const reader = new RequestBytesReader();
          let history: unknown[] = first;
          const read = (messages: unknown[]) => {
            if (asExchange) {
              const line = JSON.stringify({
                request: { url: 'https://api.openai.com/v1/chat/completions', body: { model: 'm', messages, temperature: 0 } },
                response: { status: 200 },
              });
              assert.deepEqual(reader.exchange(Buffer.from(line)), wholeExchange(line));
            } else {
              const line = JSON.stringify({ type: 'model_request', run_id: 'r', model: 'm', messages });
              assert.deepEqual(reader.canonical(Buffer.from(line)), normalizeCanonicalRequest(JSON.parse(line)));
            }
          };
          read(history);
          for (const change of steps) {
            history = changedHistory(history, change);
            read(history);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
