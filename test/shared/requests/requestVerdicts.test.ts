/**
 * The verdicts between two requests a user reads (docs/semantics.md §9): message numbers as logged,
 * a changed system prompt or tool set, compaction, a rebuilt request against its recorded usage,
 * and the sentence the growth fit allows.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compaction, compactionTokens, inputDropped } from '../../../shared/requests/compaction';
import { fitContextGrowth, growthShape } from '../../../shared/requests/contextGrowth';
import { diffRequests } from '../../../shared/requests/diffRequests';
import { normalizeAnthropicMessagesRequest, normalizeResponsesRequest } from '../../../shared/requests/apiRequestBodies';
import type { NormalizedRequest } from '../../../shared/requests/normalizedRequest';
import {
  historyCompactedFinding,
  historyRewriteFinding,
  missingToolResultFindings,
  prefixChangeFinding,
  prefixChangeText,
  reconstructionDisagrees,
  reconstructionMismatchFinding,
  requestFindingKinds,
} from '../../../shared/requests/requestFindings';
import { assistant, chatRequest, turn, user } from './requestBodies';

const history = [user('Summarize the notes'), ...turn('c1'), ...turn('c2')];

function rewrittenNumber(previous: NormalizedRequest, next: NormalizedRequest): number {
  const { history: verdict } = diffRequests(previous, next);
  assert.ok(verdict.verdict === 'rewritten');
  return verdict.messageNumber;
}

describe('message numbers as logged', () => {
  it('Chat Completions: the system message is message 1, so the first history message is message 2', () => {
    const edited = [user('Summarize the notes, briefly'), ...history.slice(1)];
    const { history: verdict } = diffRequests(chatRequest(history), chatRequest(edited));
    assert.ok(verdict.verdict === 'rewritten');
    assert.equal(verdict.firstDifference, 0, 'index 0 of the history, which holds no system message');
    assert.equal(verdict.messageNumber, 2);
    assert.match(historyRewriteFinding(2, verdict)?.message ?? '', /at message 2:/);
  });

  it('two leading system messages both count', () => {
    const twoSystems = (messages: Record<string, unknown>[]) => chatRequest([{ role: 'system', content: 'Be brief.' }, ...messages]);
    assert.equal(rewrittenNumber(twoSystems(history), twoSystems([history[0]!, assistant('edited'), ...history.slice(2)])), 4);
  });

  it('Anthropic: `system` is a field, not a message, so message 1 is the first of `messages`; tool results of one user message share its number', () => {
    const body = (result: string) => ({
      model: 'claude-sonnet-4-5',
      system: 'You read notes.',
      messages: [
        { role: 'user', content: 'Read a and b' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'a', name: 'read', input: {} },
            { type: 'tool_use', id: 'b', name: 'read', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'a', content: 'A' },
            { type: 'tool_result', tool_use_id: 'b', content: result },
          ],
        },
      ],
    });
    const previous = normalizeAnthropicMessagesRequest(body('B'))!;
    const next = normalizeAnthropicMessagesRequest(body('B, edited'))!;
    // The second tool result is index 3 of the normalized history, but it was sent in message 3.
    const { history: verdict } = diffRequests(previous, next);
    assert.ok(verdict.verdict === 'rewritten');
    assert.equal(verdict.firstDifference, 3);
    assert.equal(verdict.messageNumber, 3);
  });

  it('Responses: an assistant message joined with the function calls after it keeps the number of its first item', () => {
    const input = (output: string) => [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'Reading.' },
      { type: 'function_call', call_id: 'f1', name: 'read', arguments: '{}' },
      { type: 'function_call', call_id: 'f2', name: 'read', arguments: '{}' },
      { type: 'function_call_output', call_id: 'f1', output },
    ];
    const request = normalizeResponsesRequest({ model: 'gpt-5', instructions: 'Be brief.', input: input('x') })!;
    assert.deepEqual(
      request.messages.map((message) => [message.role, message.toolCalls.length, message.sourceIndex + 1]),
      [
        ['user', 0, 1],
        ['assistant', 2, 2],
        ['tool', 0, 5],
      ],
    );
    assert.equal(rewrittenNumber(request, normalizeResponsesRequest({ model: 'gpt-5', instructions: 'Be brief.', input: input('y') })!), 5);
  });

  it('a request that ends before the difference (its last messages dropped) numbers it in the previous request', () => {
    assert.equal(rewrittenNumber(chatRequest(history), chatRequest(history.slice(0, 3))), 5);
  });
});

describe('system prompt and tool definitions between requests', () => {
  const tool = (name: string, description = `The ${name} tool`) => ({ type: 'function', function: { name, description, parameters: { type: 'object' } } });

  it('a changed system prompt is a finding even when the history only grew', () => {
    const next = chatRequest([...history, ...turn('c3')]);
    next.system = 'You are helpful. Today is Tuesday.';
    const diff = diffRequests(chatRequest(history), next);
    assert.equal(diff.history.verdict, 'extends');
    assert.deepEqual(diff.prefix, { system: true, toolsAdded: [], toolsRemoved: [], toolsChanged: [], toolsReordered: false });
    const finding = prefixChangeFinding(2, diff.prefix);
    assert.equal(finding?.kind, 'system_or_tools_changed');
    assert.equal(finding?.severity, 'warning');
    assert.equal(
      finding?.message,
      'Request 2 changes the system prompt of request 1. They come before the first message, so provider prompt caching is invalidated from the first token.',
    );
  });

  it('names the tools added, removed, changed and a new order', () => {
    const previous = chatRequest(history, { tools: [tool('read'), tool('write'), tool('grep')] });
    const changed = diffRequests(previous, chatRequest(history, { tools: [tool('read', 'Reads a file'), tool('grep'), tool('search')] }));
    assert.deepEqual(changed.prefix, { system: false, toolsAdded: ['search'], toolsRemoved: ['write'], toolsChanged: ['read'], toolsReordered: false });
    assert.match(prefixChangeFinding(2, changed.prefix)?.message ?? '', /the tool definitions \(added: search; removed: write; changed: read\)/);
    const reordered = diffRequests(previous, chatRequest(history, { tools: [tool('grep'), tool('read'), tool('write')] }));
    assert.deepEqual(reordered.prefix, { system: false, toolsAdded: [], toolsRemoved: [], toolsChanged: [], toolsReordered: true });
  });

  it('the same system prompt and tools, or parameters alone changing, are no prefix change', () => {
    const same = diffRequests(
      chatRequest(history, { tools: [tool('read')] }),
      chatRequest([...history, ...turn('c3')], { tools: [tool('read')], temperature: 0 }),
    );
    assert.equal(same.prefix, null);
    assert.equal(prefixChangeFinding(2, same.prefix), null);
  });
});

describe('compaction', () => {
  it('a drop of more than a quarter of the recorded input is one; growth, a small dip or a count of 0 is not', () => {
    assert.equal(inputDropped(165_000, 36_000), true);
    assert.equal(inputDropped(10_000, 7_400), true);
    assert.equal(inputDropped(10_000, 7_600), false, 'a dip of 24%: thinking blocks dropped, a reminder gone');
    assert.equal(inputDropped(10_000, 12_000), false);
    assert.equal(inputDropped(3_369, 0), false, 'no request has 0 input tokens: that is a count not made');
    assert.equal(inputDropped(null, 100), false);
  });

  it('a marked compaction is reported as one, with the tokens it removed, as info', () => {
    const found = compaction('marker', { typeRaw: 'system/compact_boundary', line: 8 }, 165_000, 36_000, 120);
    assert.equal(found.tokensRemoved, 129_000);
    const finding = historyCompactedFinding(7, found, 1);
    assert.equal(finding.kind, 'history_compacted');
    assert.equal(finding.severity, 'info');
    assert.equal(
      finding.message,
      'Request 7 follows a compaction of the history (system/compact_boundary on line 8): 120 earlier messages replaced; input 165,000 → 36,000 tokens (−129,000). Provider prompt caching starts over from message 1.',
    );
    assert.deepEqual(finding.details['marker'], { type: 'system/compact_boundary', line: 8 });
  });

  it('a compaction seen only in the recorded usage says the rebuilt history is off from there', () => {
    const finding = historyCompactedFinding(44, compaction('token_drop', null, 41_160, 11_763, null), null);
    assert.match(finding.message, /^Request 44's recorded input 41,160 → 11,763 tokens \(−29,397\) although the trace shows no message removed/);
  });

  it('a logged request that replaces many messages by a summary is a compaction, not a suspect rewrite', () => {
    const next = [user('Summary: notes c1 and c2 were read.'), ...turn('c3')];
    const diff = diffRequests(chatRequest(history), chatRequest(next));
    assert.ok(diff.history.verdict === 'rewritten' && diff.history.kind === 'compacted');
    assert.equal(historyRewriteFinding(2, diff.history), null);
  });

  it('a compaction the trace marks makes the rewrite a compaction whatever the counts say', () => {
    const previous = chatRequest([user('go'), assistant('ok')]);
    const next = chatRequest([user('Summary: go, ok.'), assistant('next'), user('more'), assistant('done')]);
    const unmarked = diffRequests(previous, next);
    assert.ok(unmarked.history.verdict === 'rewritten' && unmarked.history.kind !== 'compacted', 'two messages replaced by four reads as an edit');
    const marked = diffRequests(previous, next, true);
    assert.ok(marked.history.verdict === 'rewritten' && marked.history.kind === 'compacted');
    assert.equal(
      diffRequests(previous, chatRequest([user('go'), assistant('ok'), user('more')]), true).history.verdict,
      'extends',
      'a marker does not make an extension a rewrite',
    );
  });
});

describe('a rebuilt request against its recorded usage', () => {
  it('disagrees when the rebuilt request is far larger than what the provider counted', () => {
    assert.equal(reconstructionDisagrees(60_000, 3_600), true);
    assert.equal(reconstructionDisagrees(2_000, 1_000), true);
  });

  it('agrees when the recorded input is larger (the system prompt and tools are not in a rebuilt request), close, or small', () => {
    assert.equal(reconstructionDisagrees(1_000, 16_000), false);
    assert.equal(reconstructionDisagrees(1_400, 1_000), false, 'within 1.5×');
    assert.equal(reconstructionDisagrees(700, 300), false, 'fewer than 500 tokens apart');
    assert.equal(reconstructionDisagrees(554, 0), false, 'a recorded 0 is no count');
    assert.equal(reconstructionDisagrees(60_000, null), false);
  });
});

describe('what the growth fit may say', () => {
  const shapeOf = (inputs: number[]) => growthShape(fitContextGrowth(inputs)!);

  it('steady growth: quadratic in total', () => {
    assert.equal(shapeOf([1000, 1200, 1400, 1600, 1800]), 'quadratic');
  });

  it('a negative per-turn term never reads as growing with the square of the turns', () => {
    const fit = fitContextGrowth([2000, 1800, 1600, 1400, 1200])!;
    assert.ok(fit.tokensPerTurn < 0);
    assert.equal(growthShape(fit), 'shrinking');
  });

  it('the same size every turn: flat (linear in total)', () => {
    assert.equal(shapeOf([5000, 5000, 5010, 5000, 5005]), 'flat');
  });

  it('a compacted history says nothing about S and T, however well the numbers fit', () => {
    const fit = fitContextGrowth([1000, 1200, 1400, 1600, 1800])!;
    assert.equal(growthShape(fit, true), 'irregular');
  });

  it('a poor fit or a negative prefix says nothing about S and T', () => {
    assert.equal(growthShape({ prefixTokens: -300, tokensPerTurn: 900, rSquared: 0.99, predictedCumulative: [0, 0, 0] }), 'irregular');
    assert.equal(growthShape({ prefixTokens: 1000, tokensPerTurn: 200, rSquared: 0.8, predictedCumulative: [0, 0, 0] }), 'irregular');
  });
});

describe('compaction and mismatch: the boundaries', () => {
  it('an input of exactly three quarters of the previous one is no drop; just below it is', () => {
    assert.equal(inputDropped(10_000, 7_500), false);
    assert.equal(inputDropped(10_000, 7_499), true);
    assert.equal(inputDropped(10_000, null), false);
    assert.equal(inputDropped(null, null), false);
  });

  it('tokens removed only when both counts are known and the input fell', () => {
    assert.equal(compaction('diff', null, 5_000, 5_000, 2).tokensRemoved, null, 'the same input removed nothing');
    assert.equal(compaction('diff', null, 5_000, 6_000, 2).tokensRemoved, null);
    assert.equal(compaction('diff', null, 5_000, null, 2).tokensRemoved, null);
    assert.equal(compaction('diff', null, 5_000, 4_000, 2).tokensRemoved, 1_000);
  });

  it('the tokens are told only when both sides are known, and the fall only when the input fell', () => {
    assert.equal(compactionTokens({ tokensBefore: null, tokensAfter: 900, tokensRemoved: null }), null);
    assert.equal(compactionTokens({ tokensBefore: 900, tokensAfter: null, tokensRemoved: null }), null);
    assert.equal(compactionTokens(compaction('diff', null, 1_000, 1_200, 3)), 'input 1,000 → 1,200 tokens');
  });

  it('a compaction seen in the diff of logged requests: one message replaced, no tokens known, the cache starts over where the histories part', () => {
    const found = compaction('diff', null, null, null, 1);
    const finding = historyCompactedFinding(3, found, 4);
    assert.equal(
      finding.message,
      'Request 3 follows a compaction of the history: 1 earlier message replaced. Provider prompt caching starts over from message 4.',
    );
    assert.deepEqual(finding.details, {
      request: 3,
      evidence: 'diff',
      marker: null,
      message_number: 4,
      tokens_before: null,
      tokens_after: null,
      tokens_removed: null,
      messages_removed: 1,
    });
  });

  it('a marker with no message count and no tokens says only where it is', () => {
    const finding = historyCompactedFinding(2, compaction('marker', { typeRaw: 'compacted', line: 12 }, null, null, null), null);
    assert.equal(finding.message, 'Request 2 follows a compaction of the history (compacted on line 12). Provider prompt caching starts over from message 1.');
  });

  it('a token drop without the counts still says the input fell', () => {
    const finding = historyCompactedFinding(9, compaction('token_drop', null, null, null, null), null);
    assert.match(finding.message, /^Request 9's recorded input fell although the trace shows no message removed: /);
    assert.match(finding.message, /so the requests rebuilt after it still hold messages the model no longer saw\.$/);
  });

  it('a rebuilt request exactly 1.5× the recorded input agrees; 500 tokens above it is enough', () => {
    assert.equal(reconstructionDisagrees(1_500, 1_000), false, 'exactly 1.5×');
    assert.equal(reconstructionDisagrees(1_501, 1_000), true);
    assert.equal(reconstructionDisagrees(900, 400), true, 'exactly 500 above, over 1.5×');
    assert.equal(reconstructionDisagrees(899, 400), false, '499 above');
    assert.equal(reconstructionDisagrees(600, 1), true, 'a recorded 1 is a count');
  });

  it('the mismatch finding says both numbers', () => {
    const finding = reconstructionMismatchFinding(5, 12_345, 2_000);
    assert.equal(finding.kind, 'reconstruction_mismatch');
    assert.equal(finding.severity, 'info');
    assert.equal(finding.callId, null);
    assert.match(
      finding.message,
      /^Request 5 was rebuilt from the trace as about 12,345 input tokens, but the provider recorded 2,000 for its response: the rebuilt history holds more than the model was sent/,
    );
    assert.match(finding.message, /so the sizes of the rebuilt requests from here on are not what the model saw\.$/);
    assert.deepEqual(finding.details, { request: 5, estimated_input_tokens: 12_345, recorded_input_tokens: 2_000 });
  });
});

describe('what the growth fit may say: the boundaries', () => {
  const fit = (prefixTokens: number, tokensPerTurn: number, rSquared: number | null, requests = 5) => ({
    prefixTokens,
    tokensPerTurn,
    rSquared,
    predictedCumulative: new Array<number>(requests).fill(0),
  });

  it('R² of exactly 0.95 is a good fit; a prefix of exactly 0 is no negative prefix', () => {
    assert.equal(growthShape(fit(1000, 200, 0.95)), 'quadratic');
    assert.equal(growthShape(fit(1000, 200, 0.9499)), 'irregular');
    assert.equal(growthShape(fit(0, 200, 0.99)), 'quadratic');
  });

  it('a constant cumulative series has no R² and says nothing against the fit', () => {
    assert.equal(fitContextGrowth([0, 0, 0])?.rSquared, null);
    assert.equal(growthShape(fit(1000, 0, null)), 'flat');
  });

  it('T × N of exactly 5% of S is flat, just above it is not; a negative T counts by its size', () => {
    assert.equal(growthShape(fit(1000, 10, 0.99, 5)), 'flat');
    assert.equal(growthShape(fit(1000, 10.01, 0.99, 5)), 'quadratic');
    assert.equal(growthShape(fit(1000, -10, 0.99, 5)), 'flat');
    assert.equal(growthShape(fit(1000, -10.01, 0.99, 5)), 'shrinking');
  });
});

describe('findings: lists and joins', () => {
  it('the request finding kinds are exactly the kinds the request findings have (the engine clears them by this list)', () => {
    const verdict = diffRequests(chatRequest(history), chatRequest([assistant('edited'), ...history.slice(1)])).history;
    const produced = [
      historyRewriteFinding(2, verdict),
      historyCompactedFinding(2, compaction('diff', null, null, null, 2), 1),
      prefixChangeFinding(2, { system: true, toolsAdded: [], toolsRemoved: [], toolsChanged: [], toolsReordered: false }),
      ...missingToolResultFindings(2, { missingToolResults: [], orphanToolResults: [{ callId: null, messageIndex: 0, messageNumber: 1 }] }),
      reconstructionMismatchFinding(2, 5_000, 1_000),
    ].map((finding) => finding?.kind);
    assert.deepEqual([...requestFindingKinds].sort(), [...new Set(produced)].sort());
  });

  it('several tools added, removed or changed are listed with commas', () => {
    const text = prefixChangeText({ system: false, toolsAdded: ['a', 'b'], toolsRemoved: ['c', 'd'], toolsChanged: ['e', 'f'], toolsReordered: true });
    assert.equal(text, 'the tool definitions (added: a, b; removed: c, d; changed: e, f; sent in another order)');
  });

  it('a marked compaction turns a rewrite into a compaction but leaves an extension as it is', () => {
    const previous = chatRequest([user('go'), assistant('ok')]);
    assert.deepEqual(diffRequests(previous, chatRequest([user('go'), assistant('ok'), user('more')]), true).history, { verdict: 'extends', appended: [2] });
  });
});

describe('message numbers as logged: the next request counts', () => {
  it('a next request with one more system message numbers the difference by its own messages', () => {
    const previous = chatRequest(history);
    const next = chatRequest([{ role: 'system', content: 'Be brief.' }, user('Summarize the notes, briefly'), ...history.slice(1)]);
    // The next request: system, system, then the edited first message — message 3 as it was logged.
    assert.equal(rewrittenNumber(previous, next), 3);
  });
});
