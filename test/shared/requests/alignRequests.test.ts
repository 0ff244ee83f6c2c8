/** Aligning two requests' messages, the verdict on the history, and the findings it gives. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { alignRequests } from '../../../shared/requests/alignRequests';
import { checkToolPairing, diffRequests } from '../../../shared/requests/diffRequests';
import { historyRewriteFinding, missingToolResultFindings } from '../../../shared/requests/requestFindings';
import { assistant, call, chatRequest, result, turn, user, type ChatMessage } from './requestBodies';

function diff(previous: ChatMessage[], next: ChatMessage[]) {
  return diffRequests(chatRequest(previous), chatRequest(next));
}

function statuses(previous: ChatMessage[], next: ChatMessage[]): string[] {
  return diff(previous, next).alignment.entries.map((e) => `${e.status} ${e.previousIndex ?? '-'}→${e.nextIndex ?? '-'}`);
}

const history = [user('Summarize the notes'), ...turn('c1'), ...turn('c2'), ...turn('c3')];

describe('request alignment and verdict', () => {
  it('append-only: the previous messages unchanged, the new turn appended, verdict extends', () => {
    const d = diff(history, [...history, ...turn('c4')]);
    assert.deepEqual(d.history, { verdict: 'extends', appended: [7, 8] });
    assert.deepEqual(
      d.alignment.runs.map((r) => [r.status, r.next]),
      [
        ['unchanged', { first: 0, last: 6 }],
        ['appended', { first: 7, last: 8 }],
      ],
    );
    assert.equal(historyRewriteFinding(2, d.history), null);
  });

  it('identical requests: everything unchanged, extends with nothing appended', () => {
    const d = diff(history, history);
    assert.deepEqual(d.history, { verdict: 'extends', appended: [] });
    assert.equal(d.alignment.runs.length, 1);
  });

  it('an edit in the middle: that message modified, the rest unchanged, rewritten at its index', () => {
    const edited = [...history];
    edited[4] = result('c2', '[output truncated]');
    const d = diff(history, [...edited, ...turn('c4')]);
    assert.deepEqual(statuses(history, [...edited, ...turn('c4')]).slice(3, 6), ['unchanged 3→3', 'modified 4→4', 'unchanged 5→5']);
    assert.equal(d.history.verdict, 'rewritten');
    assert.ok(d.history.verdict === 'rewritten');
    assert.equal(d.history.firstDifference, 4);
    assert.equal(d.history.kind, 'edited');
    const finding = historyRewriteFinding(3, d.history);
    assert.equal(finding?.kind, 'history_rewrite');
    assert.equal(finding?.severity, 'warning');
    // Index 4 of the history is message 6 as logged: the system message is message 1.
    assert.equal(d.history.messageNumber, 6);
    assert.match(finding?.message ?? '', /at message 6: an earlier message was edited/);
    assert.match(finding?.message ?? '', /caching is invalidated from message 6 on/);
  });

  it('removal: a dropped turn is removed, not an edit of the next call (another call id)', () => {
    const next = [history[0]!, ...turn('c2'), ...turn('c3'), ...turn('c4')];
    assert.deepEqual(statuses(history, next).slice(0, 3), ['unchanged 0→0', 'removed 1→-', 'removed 2→-']);
    const d = diff(history, next);
    assert.ok(d.history.verdict === 'rewritten');
    assert.equal(d.history.firstDifference, 1);
    assert.equal(d.history.kind, 'dropped');
    assert.deepEqual(d.history.counts, { modified: 0, removed: 2, moved: 0, appended: 2 });
  });

  it('reorder: turns swapped are moved, verdict reordered', () => {
    const next = [history[0]!, ...turn('c2'), ...turn('c1'), ...turn('c3')];
    const d = diff(history, next);
    assert.equal(d.alignment.entries.filter((e) => e.status === 'moved').length, 2);
    assert.ok(d.history.verdict === 'rewritten');
    assert.equal(d.history.firstDifference, 1);
    assert.equal(d.history.kind, 'reordered');
  });

  it('compaction: the history replaced by a summary, verdict compacted', () => {
    const next = [user('Summary of the conversation so far: notes c1–c3 were read.'), ...turn('c4')];
    const d = diff(history, next);
    assert.ok(d.history.verdict === 'rewritten');
    assert.equal(d.history.firstDifference, 0);
    assert.equal(d.history.kind, 'compacted');
    // A compaction is reported as one (history_compacted), not as a suspect rewrite.
    assert.equal(historyRewriteFinding(5, d.history), null);
  });

  it('an insertion before earlier messages is a rewrite too', () => {
    const next = [history[0]!, user('Reminder: be brief.'), ...history.slice(1)];
    const d = diff(history, next);
    assert.ok(d.history.verdict === 'rewritten');
    assert.equal(d.history.firstDifference, 1);
    assert.equal(d.history.kind, 'inserted');
  });

  it('collapses runs with their ranges on both sides', () => {
    const edited = [...history];
    edited[2] = result('c1', 'changed');
    const { runs } = alignRequests(chatRequest(history).messages, chatRequest(edited).messages);
    assert.deepEqual(
      runs.map((r) => [r.status, r.start, r.end, r.previous, r.next]),
      [
        ['unchanged', 0, 2, { first: 0, last: 1 }, { first: 0, last: 1 }],
        ['modified', 2, 3, { first: 2, last: 2 }, { first: 2, last: 2 }],
        ['unchanged', 3, 7, { first: 3, last: 6 }, { first: 3, last: 6 }],
      ],
    );
  });

  it('gives up exact search on a huge gap without anchors and still classifies every message', () => {
    const previous = Array.from({ length: 1200 }, () => user('same'));
    const next = [assistant('start'), ...Array.from({ length: 1100 }, () => user('same')), assistant('end')];
    const { entries } = alignRequests(chatRequest(previous).messages, chatRequest(next).messages);
    assert.equal(entries.filter((e) => e.status === 'unchanged').length, 1100, 'equal messages in order stay unchanged, not moved');
    assert.equal(entries.filter((e) => e.previousIndex !== null).length, 1200);
    assert.equal(entries.filter((e) => e.nextIndex !== null).length, 1102);
  });
});

describe('tool pairing in a request', () => {
  it('flags a call whose result is missing while later messages exist, and a result without its call', () => {
    const next = [user('go'), call('c1'), user('and?'), result('c9')];
    const d = diff([user('go')], next);
    assert.deepEqual(d.toolPairing, {
      missingToolResults: [{ callId: 'c1', name: 'read_file', messageIndex: 1, messageNumber: 3 }],
      orphanToolResults: [{ callId: 'c9', messageIndex: 3, messageNumber: 5 }],
    });
    // One finding per call, each naming its call id; numbered as logged: the system message is message 1.
    const findings = missingToolResultFindings(2, d.toolPairing);
    assert.deepEqual(
      findings.map((f) => [f.kind, f.severity, f.callId, f.message]),
      [
        ['missing_tool_result_in_history', 'error', 'c1', 'Request 2 carries tool call c1 (read_file, message 3) without its result.'],
        ['missing_tool_result_in_history', 'error', 'c9', 'Request 2 carries a tool result for c9 (message 5) without the call that issued it.'],
      ],
    );
  });

  it('a complete history, or a call in the last message, owes nothing', () => {
    assert.deepEqual(missingToolResultFindings(2, diff([], history).toolPairing), []);
    assert.deepEqual(missingToolResultFindings(2, diff([], [...history, call('c4')]).toolPairing), []);
  });
});

describe('what a rewrite is called: compacted against edited, dropped and inserted', () => {
  // Plain messages, so that only a message of the same role can be an edit of another.
  const previous = [user('task'), assistant('a1'), user('u1'), assistant('a2'), user('u2')];
  const rewrite = (next: ChatMessage[]) => {
    const verdict = diff(previous, next).history;
    assert.ok(verdict.verdict === 'rewritten');
    return verdict;
  };

  it('two previous messages replaced by one, with the rest unchanged after it: compacted', () => {
    const verdict = rewrite([user('task'), user('Summary: a1, u1'), assistant('a2'), user('u2')]);
    assert.equal(verdict.kind, 'compacted');
    assert.equal(verdict.firstDifference, 1);
    assert.deepEqual(verdict.counts, { modified: 1, removed: 1, moved: 0, appended: 0 });
    assert.equal(historyRewriteFinding(2, verdict), null);
  });

  it('two previous messages replaced by as many: an edit, not a compaction', () => {
    const verdict = rewrite([user('task'), assistant('a1, edited'), user('u1, edited'), assistant('a2'), user('u2')]);
    assert.equal(verdict.kind, 'edited');
    assert.deepEqual(verdict.counts, { modified: 2, removed: 0, moved: 0, appended: 0 });
    assert.match(historyRewriteFinding(2, verdict)?.message ?? '', /: an earlier message was edited\./);
  });

  it('two previous messages removed and nothing in their place: dropped, not a compaction into nothing', () => {
    const verdict = rewrite([user('task'), assistant('a2'), user('u2')]);
    assert.equal(verdict.kind, 'dropped');
    assert.deepEqual(verdict.counts, { modified: 0, removed: 2, moved: 0, appended: 0 });
    const finding = historyRewriteFinding(4, verdict);
    assert.equal(
      finding?.message,
      'Request 4 rewrites the history of request 3 at message 3: earlier messages were dropped. Provider prompt caching is invalidated from message 3 on.',
    );
    assert.deepEqual(finding?.details, { request: 4, message_index: 1, message_number: 3, rewrite: 'dropped', counts: verdict.counts });
  });

  it('the kind is read from the first stretch of changes only: an edit, then later two messages dropped, is an edit', () => {
    const verdict = rewrite([user('task'), assistant('a1, edited'), user('u1'), user('u2')]);
    assert.equal(verdict.kind, 'edited');
    assert.deepEqual(verdict.counts, { modified: 1, removed: 1, moved: 0, appended: 0 });
  });

  it('a message inserted, and a reorder, each say so in the finding', () => {
    const inserted = rewrite([user('task'), user('Reminder'), ...previous.slice(1)]);
    assert.equal(inserted.kind, 'inserted');
    assert.deepEqual(inserted.counts, { modified: 0, removed: 0, moved: 0, appended: 1 });
    assert.match(historyRewriteFinding(2, inserted)?.message ?? '', /at message 3: a message was inserted before earlier ones\./);
    const reordered = rewrite([user('task'), user('u1'), assistant('a1'), assistant('a2'), user('u2')]);
    assert.equal(reordered.kind, 'reordered');
    assert.match(historyRewriteFinding(2, reordered)?.message ?? '', /at message 3: earlier messages were reordered\./);
  });
});

describe('tool pairing: results without a call id, calls just before the last message', () => {
  it('a tool result that names no call is an orphan, reported as having no call id', () => {
    const next = chatRequest([user('go'), ...turn('c1'), { role: 'tool', content: 'stray output' }, user('and?')]).messages;
    const pairing = checkToolPairing(next);
    assert.deepEqual(pairing, { missingToolResults: [], orphanToolResults: [{ callId: null, messageIndex: 3, messageNumber: 5 }] });
    const [finding] = missingToolResultFindings(6, pairing);
    assert.equal(finding?.callId, null);
    assert.equal(finding?.message, 'Request 6 carries a tool result for no call id (message 5) without the call that issued it.');
    assert.deepEqual(finding?.details, { request: 6, problem: 'orphan_result', message_index: 3, message_number: 5 });
  });

  it('a call in the next-to-last message owes its result; its finding names the tool and where it is', () => {
    const pairing = checkToolPairing(chatRequest([user('go'), call('c1', 'grep'), user('well?')]).messages);
    assert.deepEqual(pairing.missingToolResults, [{ callId: 'c1', name: 'grep', messageIndex: 1, messageNumber: 3 }]);
    assert.deepEqual(missingToolResultFindings(2, pairing)[0]?.details, {
      request: 2,
      problem: 'missing_result',
      name: 'grep',
      message_index: 1,
      message_number: 3,
    });
  });

  it('a call with an empty id is not answered by a result without one', () => {
    const pairing = checkToolPairing(
      chatRequest([
        { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'ls', arguments: '{}' } }] },
        { role: 'tool', content: 'x' },
        user('next'),
      ]).messages,
    );
    assert.deepEqual(
      pairing.missingToolResults.map((missing) => missing.callId),
      [''],
    );
    assert.deepEqual(
      pairing.orphanToolResults.map((orphan) => orphan.callId),
      [null],
    );
  });
});

describe('alignment: edits pair in order, within their gap, removals first', () => {
  it('edits never cross: a user and an assistant message swapped and edited give one edit, the other message removed and added', () => {
    const previous = [user('task'), user('u1'), assistant('a1'), user('end')];
    const next = [user('task'), assistant('a1, edited'), user('u1, edited'), user('end')];
    // u1 pairs with its edit; a1 came after u1, so the edited a1 sent before it is no edit of it.
    assert.deepEqual(statuses(previous, next), ['unchanged 0→0', 'appended -→1', 'modified 1→2', 'removed 2→-', 'unchanged 3→3']);
  });

  it('an edit never crosses an unchanged message: one added before it and another dropped after it are an insertion and a removal', () => {
    const previous = [assistant('anchor'), user('old')];
    const next = [user('new'), assistant('anchor')];
    assert.deepEqual(statuses(previous, next), ['appended -→0', 'unchanged 0→1', 'removed 1→-']);
    const verdict = diff(previous, next).history;
    assert.ok(verdict.verdict === 'rewritten');
    assert.equal(verdict.kind, 'inserted');
  });

  it('in a gap, the removed messages sit where they were: after an edit of the message before them', () => {
    const previous = [user('task'), user('x'), assistant('y'), user('end')];
    const next = [user('task'), user('x, edited'), user('end')];
    assert.deepEqual(statuses(previous, next), ['unchanged 0→0', 'modified 1→1', 'removed 2→-', 'unchanged 3→2']);
    assert.deepEqual(
      diff(previous, next).alignment.runs.map((r) => [r.status, r.start, r.end, r.previous, r.next]),
      [
        ['unchanged', 0, 1, { first: 0, last: 0 }, { first: 0, last: 0 }],
        ['modified', 1, 2, { first: 1, last: 1 }, { first: 1, last: 1 }],
        ['removed', 2, 3, { first: 2, last: 2 }, null],
        ['unchanged', 3, 4, { first: 3, last: 3 }, { first: 2, last: 2 }],
      ],
    );
  });

  it('moved messages are paired in order, and a run of them spans the lowest to the highest index', () => {
    const previous = [user('task'), user('a'), user('b'), user('c'), user('end')];
    const next = [user('task'), user('end'), user('c'), user('b'), user('a')];
    const { alignment } = diff(previous, next);
    const moved = alignment.entries.filter((entry) => entry.status === 'moved');
    // The longest common subsequence keeps task and one more; every other message moved, to where it is now.
    assert.equal(alignment.entries.filter((entry) => entry.status === 'unchanged').length, 2);
    assert.equal(moved.length, 3);
    for (const entry of moved) assert.equal(alignment.previousIdentities[entry.previousIndex!], alignment.nextIdentities[entry.nextIndex!]);
    const movedRun = alignment.runs.find((run) => run.status === 'moved' && run.end - run.start > 1);
    assert.ok(movedRun);
    const covered = alignment.entries.slice(movedRun.start, movedRun.end).map((entry) => entry.previousIndex!);
    assert.deepEqual(movedRun.previous, { first: Math.min(...covered), last: Math.max(...covered) });
  });

  it('copies of a message that moved pair first to first', () => {
    const previous = [user('task'), user('dup'), user('dup'), assistant('x'), user('end')];
    const next = [user('task'), assistant('x'), user('dup'), user('dup'), user('end')];
    const entries = diff(previous, next).alignment.entries;
    const pairs = entries.filter((entry) => entry.status !== 'unchanged').map((entry) => [entry.status, entry.previousIndex, entry.nextIndex]);
    // x is the one message found once on each side, so it anchors the alignment and the copies are what moved.
    assert.deepEqual(pairs, [
      ['moved', 1, 2],
      ['moved', 2, 3],
    ]);
  });
});

describe('what a rewrite is called: the counts that decide it', () => {
  const rewrite = (previous: ChatMessage[], next: ChatMessage[]) => {
    const verdict = diff(previous, next).history;
    assert.ok(verdict.verdict === 'rewritten');
    return verdict;
  };

  it('two user messages replaced by one assistant summary (nothing edited, only removed and added): compacted', () => {
    const verdict = rewrite([user('task'), user('u1'), user('u2'), assistant('end')], [user('task'), assistant('Summary: u1, u2'), assistant('end')]);
    assert.deepEqual(verdict.counts, { modified: 0, removed: 2, moved: 0, appended: 1 });
    assert.equal(verdict.kind, 'compacted');
  });

  it('one message replaced by two: dropped, not compacted — the messages added do not count as replaced', () => {
    const verdict = rewrite([user('task'), assistant('a'), user('end')], [user('task'), user('p'), user('q'), user('end')]);
    assert.deepEqual(verdict.counts, { modified: 0, removed: 1, moved: 0, appended: 2 });
    assert.equal(verdict.kind, 'dropped');
  });

  it('a stretch with a moved message among others is a reorder', () => {
    const verdict = rewrite([user('task'), user('A'), user('B'), user('end')], [user('task'), assistant('X'), user('B'), user('A'), user('end')]);
    assert.deepEqual(verdict.counts, { modified: 0, removed: 0, moved: 1, appended: 1 });
    assert.equal(verdict.kind, 'reordered');
  });
});

describe('alignment: the longest common subsequence', () => {
  const lcsLength = (a: string[], b: string[]) => {
    const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
    for (let i = a.length - 1; i >= 0; i--)
      for (let j = b.length - 1; j >= 0; j--) table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    return table[0]![0]!;
  };
  const texts = (previous: string[], next: string[]) => diff(previous.map(user), next.map(user)).alignment;

  it('unique messages anchor it: the longest run still in order stays, every other message moved', () => {
    for (const order of [
      [3, 1, 2, 5, 4, 6],
      [6, 5, 4, 3, 2, 1],
      [2, 4, 1, 6, 3, 5],
      [1, 2, 3, 4, 5, 6],
      [5, 6, 1, 2, 3, 4],
    ]) {
      const previous = ['task', ...[1, 2, 3, 4, 5, 6].map(String), 'end'];
      const next = ['task', ...order.map(String), 'end'];
      const { entries } = texts(previous, next);
      const unchanged = entries.filter((entry) => entry.status === 'unchanged').length;
      assert.equal(unchanged, lcsLength(previous, next), order.join(','));
      assert.equal(entries.filter((entry) => entry.status === 'moved').length, next.length - unchanged, order.join(','));
    }
  });

  it('a gap too large for the exact search still keeps every copy in order, the first message of the gap included', () => {
    const previous = [...Array.from({ length: 1000 }, () => user('same')), assistant('old end')];
    const next = [assistant('new start'), ...Array.from({ length: 1000 }, () => user('same'))];
    const { entries } = diff(previous, next).alignment;
    assert.deepEqual(
      entries.filter((e) => e.status === 'unchanged').map((e) => [e.previousIndex, e.nextIndex]),
      Array.from({ length: 1000 }, (_, i) => [i, i + 1]),
    );
  });

  it('messages that all occur twice: an exact search finds the longest common subsequence, the earliest previous message left over moved', () => {
    const { entries } = texts(['A', 'B', 'A', 'B'], ['B', 'A', 'B', 'A']);
    assert.equal(lcsLength(['A', 'B', 'A', 'B'], ['B', 'A', 'B', 'A']), 3);
    assert.deepEqual(
      entries.map((e) => `${e.status} ${e.previousIndex}→${e.nextIndex}`),
      ['unchanged 1→0', 'unchanged 2→1', 'unchanged 3→2', 'moved 0→3'],
    );
  });

  it('every message is classified once, consistently, and as many kept as a longest common subsequence where the search is exact', () => {
    const symbol = fc.constantFrom('a', 'b', 'c');
    fc.assert(
      fc.property(fc.array(symbol, { maxLength: 12 }), fc.array(symbol, { maxLength: 12 }), (previousTexts, nextTexts) => {
        const previous = previousTexts.map(user);
        const next = nextTexts.map(user);
        const { entries, previousIdentities, nextIdentities } = diff(previous, next).alignment;
        assert.deepEqual(
          entries
            .filter((e) => e.previousIndex !== null)
            .map((e) => e.previousIndex)
            .sort((x, y) => x! - y!),
          previous.map((_, i) => i),
        );
        assert.deepEqual(
          entries.filter((e) => e.nextIndex !== null).map((e) => e.nextIndex),
          next.map((_, j) => j),
        );
        let last = -1;
        for (const entry of entries) {
          if (entry.status === 'unchanged' || entry.status === 'moved')
            assert.equal(previousIdentities[entry.previousIndex!], nextIdentities[entry.nextIndex!]);
          if (entry.status === 'modified') assert.notEqual(previousIdentities[entry.previousIndex!], nextIdentities[entry.nextIndex!]);
          if (entry.status !== 'unchanged') continue;
          assert.ok(entry.previousIndex! > last);
          last = entry.previousIndex!;
        }
        // Past the common start and end, a gap where no message occurs once on each side is searched exactly.
        let start = 0;
        while (start < previousTexts.length && start < nextTexts.length && previousTexts[start] === nextTexts[start]) start++;
        let end = 0;
        while (end < previousTexts.length - start && end < nextTexts.length - start && previousTexts.at(-1 - end) === nextTexts.at(-1 - end)) end++;
        const counts = (values: string[]) => values.reduce((map, value) => map.set(value, (map.get(value) ?? 0) + 1), new Map<string, number>());
        const inPrevious = counts(previousTexts.slice(start, previousTexts.length - end));
        const inNext = counts(nextTexts.slice(start, nextTexts.length - end));
        const anyUnique = [...inPrevious].some(([value, count]) => count === 1 && inNext.get(value) === 1);
        if (!anyUnique) assert.equal(entries.filter((e) => e.status === 'unchanged').length, lcsLength(previousTexts, nextTexts));
      }),
      { numRuns: 500 },
    );
  });
});
