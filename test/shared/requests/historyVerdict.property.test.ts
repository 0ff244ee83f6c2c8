/** Properties of the history verdict over random conversations. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { diffRequests } from '../../../shared/requests/diffRequests';
import { assistant, call, chatRequest, result, user, type ChatMessage } from './requestBodies';

/** Few distinct texts, so duplicate messages are common. */
const text = fc.constantFrom('ok', 'done', 'retry', 'a longer answer', '');
const message: fc.Arbitrary<ChatMessage> = fc.oneof(
  text.map(user),
  text.map(assistant),
  fc.constantFrom('c1', 'c2', 'c3').map((id) => call(id)),
  fc.tuple(fc.constantFrom('c1', 'c2', 'c3'), text).map(([id, output]) => result(id, output)),
);
const conversation = fc.array(message, { maxLength: 25 });

describe('history verdict properties', () => {
  it('appending messages always extends, with exactly those appended', () => {
    fc.assert(
      fc.property(conversation, conversation, (history, added) => {
        const d = diffRequests(chatRequest(history), chatRequest([...history, ...added]));
        assert.deepEqual(d.history, { verdict: 'extends', appended: added.map((_, i) => history.length + i) });
      }),
      { numRuns: 300 },
    );
  });

  it('appending messages: each previous message unchanged where it was, each added one appended after them, one run of each', () => {
    fc.assert(
      fc.property(conversation, conversation, (history, added) => {
        const { alignment } = diffRequests(chatRequest(history), chatRequest([...history, ...added]));
        const kept = history.length;
        const total = kept + added.length;
        assert.deepEqual(alignment.entries, [
          ...history.map((_, i) => ({ status: 'unchanged', previousIndex: i, nextIndex: i })),
          ...added.map((_, i) => ({ status: 'appended', previousIndex: null, nextIndex: kept + i })),
        ]);
        assert.deepEqual(alignment.runs, [
          ...(kept > 0 ? [{ status: 'unchanged', start: 0, end: kept, previous: { first: 0, last: kept - 1 }, next: { first: 0, last: kept - 1 } }] : []),
          ...(total > kept ? [{ status: 'appended', start: kept, end: total, previous: null, next: { first: kept, last: total - 1 } }] : []),
        ]);
        assert.equal(alignment.nextIdentities.length, total);
        assert.deepEqual(alignment.previousIdentities, alignment.nextIdentities.slice(0, kept));
      }),
      { numRuns: 300 },
    );
  });

  it('any single edit is a rewrite at that index, classified as an edit', () => {
    fc.assert(
      fc.property(
        conversation.filter((history) => history.length > 0),
        fc.nat(),
        (history, at) => {
          const index = at % history.length;
          const edited = history.map((m, i) => (i === index ? { ...m, content: `${String(m['content'] ?? '')} (edited)` } : m));
          const d = diffRequests(chatRequest(history), chatRequest(edited));
          assert.ok(d.history.verdict === 'rewritten');
          assert.equal(d.history.firstDifference, index);
          assert.equal(d.history.kind, 'edited');
        },
      ),
      { numRuns: 300 },
    );
  });
});
