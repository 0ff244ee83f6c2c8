/** Context growth: the N×S + T×N(N+1)/2 fit, the turns ranked by growth, and per-message token attribution. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attributeRequestTokens, contextGrowth, fitContextGrowth, groupAdded, growthShape, scaleAdded } from '../../../shared/requests/contextGrowth';
import { messageText } from '../../../shared/requests/normalizedRequest';
import { canonicalJson } from '../../../shared/trace/canonicalJson';
import { assistant, chatRequest, turn, user } from './requestBodies';

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

  it('ranks the request that added 12,000 tokens first', () => {
    const inputs = [1000, 1300, 1600, 1900, 13900, 14200, 14500];
    const growth = contextGrowth(inputs);
    assert.equal(growth.typicalGrowth, 300);
    assert.deepEqual(growth.largestGrowth[0], { requestIndex: 4, growth: 12000 });
    assert.deepEqual(growth.cumulative.slice(0, 3), [1000, 2300, 3900]);
  });

  it('attributes a request to its parts, scaled to the recorded total, and sums what the turn added by role and tool', () => {
    const request = chatRequest([user('Summarize'), ...turn('c1', 'x'.repeat(400))]);
    const quarter = (text: string) => Math.ceil(text.length / 4);
    const counts = {
      system: quarter(request.system ?? ''),
      tools: quarter(canonicalJson(request.tools)),
      messages: request.messages.map((message) => quarter(messageText(message))),
    };
    const estimate = attributeRequestTokens(request, [1, 2], counts);
    assert.equal(estimate.scaledToRecorded, false);
    assert.equal(estimate.added.find((group) => group.tool === 'read_file')?.tokens, 100);

    const recorded = attributeRequestTokens(request, [1, 2], counts, 990);
    assert.equal(recorded.total, 990);
    assert.equal(
      recorded.shares.reduce((sum, share) => sum + share.tokens, 0),
      990,
    );
    assert.deepEqual(recorded.added.map((group) => group.role).sort(), ['assistant', 'tool']);
    assert.equal(
      recorded.appendedTokens,
      recorded.added.reduce((sum, group) => sum + group.tokens, 0),
    );
    assert.ok(recorded.added.find((group) => group.tool === 'read_file')!.tokens > recorded.shares.find((s) => s.source === 'system')!.tokens);
  });
});

describe('context growth: the typical step and the largest growth', () => {
  /** The median of a list, sorted numerically, averaging the middle two of an even count. */
  const medianOf = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const half = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
  };

  it('the typical step is the median of the positive steps only: no zero, no compaction', () => {
    const inputs = [1000, 1000, 1100, 1300, 400, 800, 1300];
    const steps = inputs.slice(1).map((tokens, i) => tokens - inputs[i]!);
    const growth = contextGrowth(inputs);
    assert.deepEqual(growth.growth, [null, ...steps]);
    assert.equal(growth.typicalGrowth, medianOf(steps.filter((step) => step > 0)));
    assert.equal(growth.typicalGrowth, 300, 'the middle of 100, 200, 400, 500 is 300');
  });

  it('an odd count takes the middle step, sorted by size and not as text', () => {
    const growth = contextGrowth([0, 100, 120, 123, 3523, 3623]);
    assert.equal(growth.typicalGrowth, medianOf([100, 20, 3, 3400, 100]));
    assert.equal(growth.typicalGrowth, 100);
  });

  it('ranks every step that grew by tokens added, not by its ratio to the typical step; no zero step, no compaction', () => {
    // Median step 100: the 1,200-token step is 12× typical, yet ranks below the 30,000-token one.
    const growth = contextGrowth([1000, 1100, 2300, 2400, 32400, 32400, 8000, 8100]);
    assert.deepEqual(growth.largestGrowth, [
      { requestIndex: 4, growth: 30000 },
      { requestIndex: 2, growth: 1200 },
      { requestIndex: 1, growth: 100 },
      { requestIndex: 3, growth: 100 },
      { requestIndex: 7, growth: 100 },
    ]);
  });

  it('equal steps keep the order of the run', () => {
    assert.deepEqual(
      contextGrowth([0, 500, 1000, 1500]).largestGrowth.map((step) => step.requestIndex),
      [1, 2, 3],
    );
  });

  it('a run that never grows has no typical step and nothing ranked', () => {
    const growth = contextGrowth([5000, 4000, 4000]);
    assert.equal(growth.typicalGrowth, null);
    assert.deepEqual(growth.largestGrowth, []);
  });

  it('two requests are enough to fit, one is not', () => {
    const fit = fitContextGrowth([1000, 1300]);
    assert.ok(fit);
    // Two points, two unknowns: the fit goes through them exactly.
    close(fit.prefixTokens + fit.tokensPerTurn, 1000);
    close(fit.prefixTokens + 2 * fit.tokensPerTurn, 1300);
    assert.equal(contextGrowth([1000]).fit, null);
  });
});

describe('token attribution: scaling and grouping', () => {
  const request = chatRequest([user('Summarize'), ...turn('c1', 'x'.repeat(40)), ...turn('c2', 'y'.repeat(40))], {
    tools: [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }],
  });

  it('scales the parts to the recorded total by largest remainder: floors first, then the largest fractions get one more', () => {
    // 1+2+3 = 6 estimated, 7 recorded: exact shares 1.17, 2.33, 3.5 → floors 1, 2, 3; the 1 left goes to the .5.
    const attribution = attributeRequestTokens(chatRequest([user('a'), assistant('b')]), [], { system: 1, tools: 0, messages: [2, 3] }, 7);
    assert.deepEqual(
      attribution.shares.map((share) => [share.source, share.tokens]),
      [
        ['system', 1],
        ['message', 2],
        ['message', 4],
      ],
    );
    // 1+2+3+4+0+0+0 = 10 estimated, 7 recorded: exact shares 0.7, 1.4, 2.1, 2.8 → floors 0, 1, 2, 2; the 2 left go to the .8 and the .7.
    const withTools = attributeRequestTokens(request, [], { system: 1, tools: 2, messages: [3, 4, 0, 0, 0] }, 7);
    assert.deepEqual(
      withTools.shares.map((share) => share.tokens),
      [1, 1, 2, 3, 0, 0, 0],
    );
    assert.equal(withTools.total, 7);
    assert.equal(withTools.scaledToRecorded, true);
  });

  it('names each share: no system share without a system prompt, no tools share without tools, a tool result by the call it answers', () => {
    const attribution = attributeRequestTokens(request, [3, 4], { system: 5, tools: 7, messages: [1, 2, 3, 4, 5] });
    assert.deepEqual(
      attribution.shares.map((share) => [share.source, share.messageIndex, share.role, share.tools, share.appended, share.tokens]),
      [
        ['system', null, null, [], false, 5],
        ['tools', null, null, ['read_file'], false, 7],
        ['message', 0, 'user', [], false, 1],
        ['message', 1, 'assistant', ['read_file'], false, 2],
        ['message', 2, 'tool', ['read_file'], false, 3],
        ['message', 3, 'assistant', ['read_file'], true, 4],
        ['message', 4, 'tool', ['read_file'], true, 5],
      ],
    );
    assert.deepEqual(attribution.added, [
      { role: 'tool', tool: 'read_file', messages: 1, tokens: 5 },
      { role: 'assistant', tool: null, messages: 1, tokens: 4 },
    ]);
    assert.equal(attribution.appendedTokens, 9);
    assert.equal(attribution.total, 5 + 7 + 1 + 2 + 3 + 4 + 5);
    assert.equal(attribution.scaledToRecorded, false);

    const bare = { ...request, system: null, tools: [] };
    assert.deepEqual(
      attributeRequestTokens(bare, [], { system: 5, tools: 7, messages: [1] }).shares.map((share) => [share.source, share.tokens]),
      [
        ['message', 1],
        ['message', 0],
        ['message', 0],
        ['message', 0],
        ['message', 0],
      ],
    );
  });

  it('a tool result whose call is not in the request is named by its own name field', () => {
    const orphan = chatRequest([
      user('go'),
      { role: 'tool', tool_call_id: 'gone', name: 'grep', content: 'hit' },
      { role: 'tool', tool_call_id: 'gone2', content: 'hit' },
    ]);
    assert.deepEqual(
      attributeRequestTokens(orphan, [], { system: 0, tools: 0, messages: [1, 1, 1] }).shares.map((share) => share.tools),
      [[], [], ['grep'], []],
    );
  });

  it('an estimate of nothing is not scaled to the recorded input', () => {
    const attribution = attributeRequestTokens({ ...request, system: null, tools: [] }, [], { system: 0, tools: 0, messages: [] }, 500);
    assert.equal(attribution.scaledToRecorded, false);
    assert.equal(attribution.total, 0);
  });

  it('groups what a turn added by role, and tool results by tool, largest first', () => {
    const share = (role: string | null, tools: string[], tokens: number, appended = true) => ({ role, tools, tokens, appended });
    assert.deepEqual(
      groupAdded([
        share('tool', ['grep'], 10),
        share('tool', ['read_file'], 30),
        share('tool', ['grep'], 25),
        share('assistant', ['grep'], 20),
        share('user', [], 99, false),
        share(null, [], 50),
        share('tool', [], 1),
      ]),
      [
        { role: 'tool', tool: 'grep', messages: 2, tokens: 35 },
        { role: 'tool', tool: 'read_file', messages: 1, tokens: 30 },
        { role: 'assistant', tool: null, messages: 1, tokens: 20 },
        { role: 'tool', tool: null, messages: 1, tokens: 1 },
      ],
    );
  });

  it('scales what a turn added to its recorded growth, largest first; no growth or no estimate leaves it', () => {
    const added = [
      { role: 'assistant', tool: null, messages: 1, tokens: 10 },
      { role: 'tool', tool: 'grep', messages: 1, tokens: 30 },
    ];
    assert.deepEqual(scaleAdded(added, 80), [
      { role: 'tool', tool: 'grep', messages: 1, tokens: 60 },
      { role: 'assistant', tool: null, messages: 1, tokens: 20 },
    ]);
    assert.deepEqual(scaleAdded(added, 0), added);
    assert.deepEqual(scaleAdded(added, -5), added);
    const nothing = [{ role: 'user', tool: null, messages: 1, tokens: 0 }];
    assert.deepEqual(scaleAdded(nothing, 100), nothing);
  });
});

describe('context growth: the quality of the fit', () => {
  /** R² of the cumulative series against the fit's prediction, computed here from its definition. */
  const rSquaredOf = (inputs: number[], predicted: number[]) => {
    const series = inputs.map((_, i) => inputs.slice(0, i + 1).reduce((a, b) => a + b, 0));
    const mean = series.reduce((a, b) => a + b, 0) / series.length;
    let total = 0;
    let residual = 0;
    series.forEach((value, i) => {
      total += (value - mean) * (value - mean);
      residual += (value - predicted[i]!) * (value - predicted[i]!);
    });
    return { series, rSquared: 1 - residual / total };
  };

  for (const inputs of [
    [1000, 1500, 1200, 3000, 2000, 2600],
    [100, 20000, 100, 100, 100, 100, 100],
  ]) {
    it(`is least squares with the R² of its residuals: ${inputs.join(', ')}`, () => {
      const fit = fitContextGrowth(inputs)!;
      const { series, rSquared } = rSquaredOf(inputs, fit.predictedCumulative);
      close(fit.rSquared!, rSquared);
      // Least squares: the residuals are orthogonal to both regressors, n and n(n+1)/2.
      const residuals = series.map((value, i) => value - fit.predictedCumulative[i]!);
      close(residuals.reduce((sum, r, i) => sum + r * (i + 1), 0) / 1e6, 0);
      close(residuals.reduce((sum, r, i) => sum + (r * (i + 1) * (i + 2)) / 2, 0) / 1e6, 0);
    });
  }

  it('one huge turn in a flat run fits poorly, so the run is irregular though its prefix is positive', () => {
    const fit = fitContextGrowth([100, 20000, 100, 100, 100, 100, 100])!;
    assert.ok(fit.prefixTokens > 0);
    assert.ok(fit.rSquared! < 0.95);
    assert.equal(growthShape(fit), 'irregular');
  });
});

describe('token attribution: a named user message is no tool', () => {
  it('only a tool result is named by a tool; a user message with a name field calls none', () => {
    const request = chatRequest([
      { role: 'user', name: 'ann', content: 'hi' },
      { role: 'tool', tool_call_id: 'x', name: 'grep', content: 'out' },
    ]);
    assert.deepEqual(
      attributeRequestTokens(request, [], { system: 0, tools: 0, messages: [1, 1] })
        .shares.filter((share) => share.source === 'message')
        .map((share) => share.tools),
      [[], ['grep']],
    );
  });
});

describe('token attribution: a tool without a name', () => {
  it('results for a call sent without a name and results whose call is unknown are two groups, not one', () => {
    const share = (tools: string[], tokens: number) => ({ role: 'tool', tools, tokens, appended: true });
    assert.deepEqual(groupAdded([share([''], 5), share([], 3)]), [
      { role: 'tool', tool: '', messages: 1, tokens: 5 },
      { role: 'tool', tool: null, messages: 1, tokens: 3 },
    ]);
  });
});
