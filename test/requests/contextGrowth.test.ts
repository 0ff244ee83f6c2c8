/** Context growth: the N×S + T×N(N+1)/2 fit, outlier turns, and per-message token attribution. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attributeRequestTokens, contextGrowth, fitContextGrowth } from '../../shared/requests/contextGrowth';
import { messageText } from '../../shared/requests/normalizedRequest';
import { canonicalJson } from '../../shared/trace/canonicalJson';
import { chatRequest, turn, user } from './requestBodies';

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-6, `${actual} ≠ ${expected}`);

describe('context growth', () => {
  it('recovers S and T from a run that grows by exactly T per request', () => {
    const S = 1200;
    const T = 350;
    const inputs = Array.from({ length: 12 }, (_, i) => S + T * (i + 1));
    const fit = fitContextGrowth(inputs);
    assert.ok(fit);
    close(fit.prefixTokens, S);
    close(fit.tokensPerTurn, T);
    close(fit.rSquared ?? 0, 1);
    close(fit.predictedCumulative.at(-1)!, 12 * S + (T * 12 * 13) / 2);
  });

  it('needs two requests to fit', () => {
    assert.equal(fitContextGrowth([900]), null);
  });

  it('names a request whose growth is more than 3× the median step', () => {
    const inputs = [1000, 1300, 1600, 1900, 13900, 14200, 14500];
    const growth = contextGrowth(inputs);
    assert.equal(growth.typicalGrowth, 300);
    assert.deepEqual(growth.outliers, [{ requestIndex: 4, growth: 12000, ratio: 40 }]);
    assert.deepEqual(growth.cumulative.slice(0, 3), [1000, 2300, 3900]);
  });

  it('attributes a request to its parts, scaled to the recorded total, and sums what the turn added by role and tool', () => {
    const request = chatRequest([user('Summarize'), ...turn('c1', 'x'.repeat(400))]);
    const quarter = (text: string) => Math.ceil(text.length / 4);
    const counts = { system: quarter(request.system ?? ''), tools: quarter(canonicalJson(request.tools)), messages: request.messages.map((message) => quarter(messageText(message))) };
    const estimate = attributeRequestTokens(request, [1, 2], counts);
    assert.equal(estimate.scaledToRecorded, false);
    assert.equal(estimate.added.find((group) => group.tool === 'read_file')?.tokens, 100);

    const recorded = attributeRequestTokens(request, [1, 2], counts, 990);
    assert.equal(recorded.total, 990);
    assert.equal(recorded.shares.reduce((sum, share) => sum + share.tokens, 0), 990);
    assert.deepEqual(recorded.added.map((group) => group.role).sort(), ['assistant', 'tool']);
    assert.equal(recorded.appendedTokens, recorded.added.reduce((sum, group) => sum + group.tokens, 0));
    assert.ok(recorded.added.find((group) => group.tool === 'read_file')!.tokens > recorded.shares.find((s) => s.source === 'system')!.tokens);
  });
});
