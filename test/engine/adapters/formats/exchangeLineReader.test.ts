/**
 * An HTTP exchange line read from its bytes with its conversation's earlier messages
 * (src-main/engine/adapters/httpExchange/exchangeLineReader.ts) is exactly what JSON.parse gives
 * for the whole line, along interleaved conversations whose requests extend, edit, drop and cut
 * their histories; a line it cannot read that way is left to the whole parse.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ExchangeLineReader } from '../../../../src-main/engine/adapters/httpExchange/exchangeLineReader';
import { changedHistory, historyChange } from '../../../support/historyEdits';

/** A system prompt long enough that every line is one the reader reads (it leaves short lines to the parse). */
const SYSTEM = { role: 'system', content: `You are a careful agent. ${'Follow the rules. '.repeat(2200)}` };
const URL = 'https://api.openai.com/v1/chat/completions';

function exchangeLine(messages: unknown[], indent: number, extra: Record<string, unknown> = {}): string {
  const record = {
    request: { url: URL, method: 'POST', body: { model: 'gpt-4.1', messages, tools: [{ type: 'function', function: { name: 'read' } }], temperature: 0 } },
    response: { status: 200, body: { choices: [{ message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] } },
    ...extra,
  };
  return indent === 0 ? JSON.stringify(record) : JSON.stringify(record, null, indent).replaceAll('\n', ' ');
}

describe('an HTTP exchange line read from its bytes', () => {
  it('is the line as JSON.parse reads it, along interleaved conversations that extend, edit, drop and cut their histories', () => {
    // Conversations told apart by their task (the second message), or not: samples of one task share it.
    const task = fc.constantFrom('Fix the failing test.', 'Fix the failing test.', 'Rename the module.');
    const step = fc.record({ conversation: fc.nat({ max: 2 }), change: historyChange, indent: fc.constantFrom(0, 0, 1) });
    let readFromBytes = 0;
    fc.assert(
      fc.property(fc.array(task, { minLength: 3, maxLength: 3 }), fc.array(step, { minLength: 1, maxLength: 12 }), (tasks, steps) => {
        const reader = new ExchangeLineReader();
        const histories: unknown[][] = tasks.map((content) => [SYSTEM, { role: 'user', content }]);
        for (const { conversation, change: edit, indent } of steps) {
          const history = changedHistory(histories[conversation]!, edit);
          histories[conversation] = history;
          const line = exchangeLine(history, indent);
          const read = reader.read(Buffer.from(line));
          if (line.length >= 32 * 1024) {
            assert.notEqual(read, null, 'a long exchange line is read from its bytes');
            readFromBytes += 1;
          }
          if (read !== null) assert.deepEqual(read.value, JSON.parse(line));
        }
      }),
      { numRuns: 300 },
    );
    assert.ok(readFromBytes > 500, `${readFromBytes} lines read from their bytes`);
  });

  it('shares the objects of the messages a later request repeats, and only those', () => {
    const reader = new ExchangeLineReader();
    const first = [SYSTEM, { role: 'user', content: 'task' }, { role: 'assistant', content: 'looking' }];
    const earlier = reader.read(Buffer.from(exchangeLine(first, 0)))!.value as { request: { body: { messages: unknown[] } } };
    const next = [...first.slice(0, 2), { role: 'assistant', content: 'looked' }, { role: 'user', content: 'go on' }];
    const later = reader.read(Buffer.from(exchangeLine(next, 0)))!.value as { request: { body: { messages: unknown[] } } };
    const [a, b] = [earlier.request.body.messages, later.request.body.messages];
    assert.equal(b[0], a[0]);
    assert.equal(b[1], a[1]);
    assert.notEqual(b[2], a[2]);
    assert.deepEqual(b, next);
  });

  it('leaves to the whole parse what it cannot read as JSON.parse does: a repeated key, invalid JSON, a rounded integer, invalid UTF-8, a short line', () => {
    const reader = new ExchangeLineReader();
    const history = [SYSTEM, { role: 'user', content: 'task' }];
    const line = exchangeLine(history, 0);
    assert.notEqual(reader.read(Buffer.from(line)), null);
    const cases: [string, Buffer][] = [
      ['messages given twice', Buffer.from(line.replace('"messages":[', '"messages":[],"messages":['))],
      ['request given twice', Buffer.from(`${line.slice(0, -1)},"request":{"url":"${URL}"}}`)],
      ['a stray comma in a new message', Buffer.from(line.replace('{"role":"user","content":"task"}', '{"role":"user","content":"task",}'))],
      ['a stray comma outside the messages', Buffer.from(line.replace('"temperature":0', '"temperature":0,'))],
      ['an integer beyond 2^53', Buffer.from(line.replace('"temperature":0', '"temperature":12345678901234567890'))],
      ['invalid UTF-8', Buffer.concat([Buffer.from(line.slice(0, 100)), Buffer.from([0xff]), Buffer.from(line.slice(100))])],
      ['a short line', Buffer.from(exchangeLine([{ role: 'user', content: 'hi' }], 0))],
      ['a cut line', Buffer.from(line.slice(0, -20))],
    ];
    for (const [what, bytes] of cases) assert.equal(reader.read(bytes), null, what);
  });
});
