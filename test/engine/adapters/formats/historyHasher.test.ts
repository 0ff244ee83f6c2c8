/**
 * The prefix hashes an HTTP exchange log's requests are matched to their conversations by: a
 * history resent as new objects hashes as it did, and any difference a client could make to an
 * item — however deep, however far inside a long text — gives another hash.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { HistoryHasher } from '../../../../src-main/engine/adapters/httpExchange/apis';

/** The same values as new objects, as the next line's JSON.parse gives them. */
const resent = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const longText = (middle: string) => `${'a'.repeat(5000)}${middle}${'z'.repeat(5000)}`;

describe('HistoryHasher', () => {
  it('gives a resent history the hashes it gave before, and a longer one the same prefix hashes', () => {
    const history = [
      { role: 'user', content: longText('question') },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'contents' },
    ];
    const hasher = new HistoryHasher();
    const first = hasher.prefixHashes('openai-chat', history);
    assert.deepEqual(hasher.prefixHashes('openai-chat', resent(history)), first);
    const longer = hasher.prefixHashes('openai-chat', [...resent(history), { role: 'assistant', content: 'done' }]);
    assert.deepEqual(longer.slice(0, 3), first);
    assert.equal(new Set(longer).size, 4);
    // A fresh hasher (nothing remembered) agrees: remembering never changes a hash.
    assert.deepEqual(new HistoryHasher().prefixHashes('openai-chat', resent(history)), first);
  });

  it('tells apart items that differ only in the middle of a long text, or deep inside', () => {
    const hasher = new HistoryHasher();
    const a = hasher.prefixHashes('openai-chat', [{ role: 'user', content: longText('one') }]);
    const b = hasher.prefixHashes('openai-chat', [{ role: 'user', content: longText('two') }]);
    assert.notDeepEqual(a, b);
    const call = (args: string) => [
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }] },
    ];
    assert.notDeepEqual(hasher.prefixHashes('openai-chat', call('{"n":1}')), hasher.prefixHashes('openai-chat', call('{"n":2}')));
    assert.notDeepEqual(
      hasher.prefixHashes('openai-chat', [{ role: 'user', content: [1, 2] }]),
      hasher.prefixHashes('openai-chat', [{ role: 'user', content: [[1, 2]] }]),
    );
  });

  it('hashes as stable text: keys in another order, a moved cache_control and a string content as a text block are the same item', () => {
    const hasher = new HistoryHasher();
    const plain = hasher.prefixHashes('anthropic-messages', [{ role: 'user', content: 'hi' }]);
    assert.deepEqual(hasher.prefixHashes('anthropic-messages', [{ content: 'hi', role: 'user' }]), plain);
    assert.deepEqual(hasher.prefixHashes('anthropic-messages', [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]), plain);
    assert.deepEqual(
      hasher.prefixHashes('anthropic-messages', [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }]),
      plain,
    );
  });

  it('agrees with a fresh hasher on every item of many histories of look-alike long texts', () => {
    const middle = fc.string({ unit: fc.constantFrom('m', 'n'), minLength: 3, maxLength: 3 });
    const item = fc.record({ role: fc.constantFrom('user', 'assistant'), content: middle.map(longText) });
    fc.assert(
      fc.property(fc.array(fc.array(item, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 40 }), (histories) => {
        const hasher = new HistoryHasher();
        for (const history of histories) {
          assert.deepEqual(hasher.prefixHashes('openai-chat', resent(history)), new HistoryHasher().prefixHashes('openai-chat', history));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('agrees with a fresh hasher on interleaved conversations that grow, are edited, cut back and retried', () => {
    const message = fc.record({ role: fc.constantFrom('user', 'assistant', 'tool'), content: fc.constantFrom('a', 'b', longText('c'), longText('d')) });
    const change = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), conversation: fc.nat(3), message }),
      fc.record({ kind: fc.constant('edit' as const), conversation: fc.nat(3), at: fc.nat(8), message }),
      fc.record({ kind: fc.constant('cut' as const), conversation: fc.nat(3), at: fc.nat(8) }),
      fc.record({ kind: fc.constant('retry' as const), conversation: fc.nat(3) }),
    );
    fc.assert(
      fc.property(fc.array(change, { maxLength: 60 }), (changes) => {
        // Four conversations under two system prompts; two give the same task under different prompts.
        const conversations = [0, 1, 2, 3].map(
          (n) =>
            [
              { role: 'system', content: `system ${n % 2}` },
              { role: 'user', content: `task ${n % 3}` },
            ] as unknown[],
        );
        const hasher = new HistoryHasher();
        for (const step of changes) {
          const history = conversations[step.conversation]!;
          if (step.kind === 'append') history.push(step.message);
          if (step.kind === 'edit' && step.at < history.length) history[step.at] = step.message;
          if (step.kind === 'cut') history.splice(Math.max(1, step.at));
          assert.deepEqual(hasher.prefixHashes('openai-chat', resent(history)), new HistoryHasher().prefixHashes('openai-chat', history));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("agrees with a fresh hasher when one history's only item is another's second", () => {
    const x = { role: 'user', content: 'x' };
    const y = { role: 'system', content: 'y' };
    const hasher = new HistoryHasher();
    for (const history of [[x], [y, x], [x], [x, x], [y, x, x], [x]]) {
      assert.deepEqual(hasher.prefixHashes('openai-chat', resent(history)), new HistoryHasher().prefixHashes('openai-chat', history));
    }
  });

  it('agrees with a fresh hasher when the histories it keeps go over their budget (each 1 M characters, several at a time)', () => {
    const big = (n: number) => ({ role: 'user', content: `${n}`.repeat(1_000_000) });
    const conversations = [0, 1, 2, 3].map((n) => [big(n)] as unknown[]);
    const hasher = new HistoryHasher();
    for (let turn = 0; turn < 3; turn++) {
      for (const [n, history] of conversations.entries()) {
        history.push({ role: 'assistant', content: `turn ${turn} of ${n}` });
        assert.deepEqual(hasher.prefixHashes('openai-chat', resent(history)), new HistoryHasher().prefixHashes('openai-chat', history));
      }
    }
  });
});
