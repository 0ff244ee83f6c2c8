/** Pricing a response from its recorded usage: user prices, then genai-prices' table (docs/semantics.md §18). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calcPrice, waitForUpdate, type ModelPrice } from '@pydantic/genai-prices';
import { priceResponse, type ResponsePrice, type ResponseUsage } from '../../../shared/cost/priceResponse';
import { parseUserPrices } from '../../../shared/cost/userPrices';

function usage(fields: Partial<ResponseUsage>): ResponseUsage {
  return {
    provider: null,
    model: null,
    input_tokens: null,
    cached_input_tokens: null,
    cache_write_tokens: null,
    output_tokens: null,
    reasoning_tokens: null,
    ...fields,
  };
}

/** The price table's own prices for a model, read from the installed package. */
function tablePrices(model: string, providerId: string): Record<string, number> {
  const found = calcPrice({}, model, { providerId });
  assert.ok(found, `${providerId}:${model} is in the table`);
  const flat: Record<string, number> = {};
  for (const [key, value] of Object.entries(found.model_price)) {
    assert.equal(typeof value, 'number', `${model} ${key} is a flat price`);
    flat[key] = value as number;
  }
  return flat;
}

function assertClose(actual: number, expected: number, message?: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)), `${message ?? ''} ${actual} ≠ ${expected}`);
}

function priced(price: ResponsePrice): Extract<ResponsePrice, { status: 'priced' }> {
  assert.equal(price.status, 'priced', JSON.stringify(price));
  return price as Extract<ResponsePrice, { status: 'priced' }>;
}

function unpriced(price: ResponsePrice): string {
  assert.equal(price.status, 'no_price', JSON.stringify(price));
  return (price as Extract<ResponsePrice, { status: 'no_price' }>).reason;
}

describe('priceResponse from the genai-prices table', () => {
  const gpt4o = tablePrices('gpt-4o', 'openai');

  it('prices an OpenAI model at its input and output prices', () => {
    const price = priced(priceResponse(usage({ provider: 'openai', model: 'gpt-4o', input_tokens: 1000, output_tokens: 100 })));
    assertClose(price.usd, (1000 * gpt4o.input_mtok! + 100 * gpt4o.output_mtok!) / 1e6);
    assert.equal(price.source, 'genai-prices');
    assert.equal(price.priced_as, 'gpt-4o');
  });

  it('prices cache reads at the cache price and only the rest of the prompt at the input price', () => {
    assert.notEqual(gpt4o.cache_read_mtok, gpt4o.input_mtok);
    const price = priced(priceResponse(usage({ provider: 'openai', model: 'gpt-4o', input_tokens: 1000, cached_input_tokens: 400, output_tokens: 100 })));
    assertClose(price.usd, (600 * gpt4o.input_mtok! + 400 * gpt4o.cache_read_mtok! + 100 * gpt4o.output_mtok!) / 1e6);
  });

  it('takes cache reads and writes out of the input total, never adding them on top (Anthropic)', () => {
    const sonnet = tablePrices('claude-3-5-sonnet-20241022', 'anthropic');
    const recorded = usage({
      provider: 'anthropic',
      model: 'claude-3-5-sonnet-20241022',
      input_tokens: 10_000,
      cached_input_tokens: 6000,
      cache_write_tokens: 3000,
      output_tokens: 500,
    });
    const price = priced(priceResponse(recorded));
    const expected = (1000 * sonnet.input_mtok! + 6000 * sonnet.cache_read_mtok! + 3000 * sonnet.cache_write_mtok! + 500 * sonnet.output_mtok!) / 1e6;
    assertClose(price.usd, expected);
    // Double counting would price the whole 10,000 at the input price as well as the cache parts.
    const doubleCounted = expected + (9000 * sonnet.input_mtok!) / 1e6;
    assert.ok(price.usd < doubleCounted);
    const direct = calcPrice({ input_tokens: 10_000, cache_read_tokens: 6000, cache_write_tokens: 3000, output_tokens: 500 }, 'claude-3-5-sonnet-20241022', {
      providerId: 'anthropic',
    });
    assertClose(price.usd, direct!.total_price);
  });

  it('counts reasoning once, inside the output', () => {
    const o3 = { input_tokens: 1000, output_tokens: 800 };
    const withReasoning = priced(priceResponse(usage({ model: 'o3-2025-04-16', ...o3, reasoning_tokens: 600 }), { at: new Date('2025-08-01') }));
    const without = priced(priceResponse(usage({ model: 'o3-2025-04-16', ...o3 }), { at: new Date('2025-08-01') }));
    assert.equal(withReasoning.usd, without.usd);
  });

  it('prices reasoning at its own price where the table has one, the rest of the output at the output price', () => {
    const deep = tablePrices('sonar-deep-research', 'perplexity');
    assert.ok(deep.output_reasoning_mtok !== undefined && deep.output_reasoning_mtok !== deep.output_mtok);
    const price = priced(
      priceResponse(usage({ provider: 'perplexity', model: 'sonar-deep-research', input_tokens: 100, output_tokens: 800, reasoning_tokens: 600 })),
    );
    assertClose(price.usd, (100 * deep.input_mtok! + 200 * deep.output_mtok! + 600 * deep.output_reasoning_mtok!) / 1e6);
  });

  it('finds models by genai-prices rules: dated ids, case, loose provider names, no provider', () => {
    const tokens = { input_tokens: 1000, output_tokens: 100 };
    const reference = priced(priceResponse(usage({ provider: 'openai', model: 'gpt-4o', ...tokens }))).usd;
    for (const [provider, model] of [
      [null, 'gpt-4o'],
      ['openai', 'gpt-4o-2024-08-06'],
      ['OpenAI', 'GPT-4o'],
      ['azure', 'gpt-4o'],
      [' openai ', ' gpt-4o '],
    ] as const) {
      const price = priced(priceResponse(usage({ provider, model, ...tokens })));
      assert.equal(price.usd, reference, `${provider} ${model}`);
      assert.equal(price.priced_as, 'gpt-4o');
    }
    for (const provider of ['google', 'gemini', 'vertex_ai', null]) {
      assert.equal(priced(priceResponse(usage({ provider, model: 'models/gemini-1.5-pro', ...tokens }))).priced_as, 'gemini-1.5-pro', String(provider));
    }
  });

  it('looks by model when the provider is one genai-prices does not know, or lacks the model (a gateway)', () => {
    const tokens = { input_tokens: 1000, output_tokens: 100 };
    const reference = priced(priceResponse(usage({ provider: 'openai', model: 'gpt-4o', ...tokens }))).usd;
    for (const provider of ['acme-gateway', 'openrouter', 'litellm']) {
      const price = priced(priceResponse(usage({ provider, model: 'gpt-4o', ...tokens })));
      assert.equal(price.usd, reference, provider);
      assert.equal(price.priced_as, 'gpt-4o');
    }
  });

  it('strips a leading provider/ prefix only when the whole id is not in the table', () => {
    const tokens = { input_tokens: 1000, output_tokens: 100 };
    assert.equal(calcPrice(tokens, 'openai/gpt-4o'), null, 'the whole id alone is not found');
    const reference = priced(priceResponse(usage({ model: 'gpt-4o', ...tokens }))).usd;
    assert.equal(priced(priceResponse(usage({ model: 'openai/gpt-4o', ...tokens }))).usd, reference);
    assert.equal(priced(priceResponse(usage({ model: 'openrouter/openai/gpt-4o', ...tokens }))).priced_as, 'gpt-4o');
    const sonnet = priced(priceResponse(usage({ provider: 'anthropic', model: 'anthropic/claude-3-5-sonnet-20241022', ...tokens })));
    assert.equal(sonnet.priced_as, 'claude-3-5-sonnet');
    // OpenRouter's table names its models with the prefix: the whole id is found there first.
    const routed = priced(priceResponse(usage({ provider: 'openrouter', model: 'openai/gpt-4o', ...tokens })));
    assert.equal(routed.priced_as, 'openai/gpt-4o');
  });

  it('prices a model whose prices changed at the time of the response', () => {
    const tokens = { model: 'o3', input_tokens: 1000, output_tokens: 100 };
    const before = new Date('2025-05-01T00:00:00Z');
    const after = new Date('2025-07-01T00:00:00Z');
    for (const at of [before, after]) {
      const expected = calcPrice({ input_tokens: 1000, output_tokens: 100 }, 'o3', { providerId: 'openai', timestamp: at })!.total_price;
      assertClose(priced(priceResponse(usage(tokens), { at })).usd, expected, at.toISOString());
    }
    assert.ok(priced(priceResponse(usage(tokens), { at: before })).usd > priced(priceResponse(usage(tokens), { at: after })).usd);
  });

  it('prices every model with changing prices by the time of each response, in any order of times', async () => {
    const providers = (await waitForUpdate()) ?? [];
    const times = [
      '2025-01-01T00:00:00Z',
      '2026-09-01T02:00:00Z',
      '2025-06-10T00:00:00Z',
      '2027-06-01T08:00:00Z',
      '2025-06-09T23:59:59.999Z',
      '2026-01-15T12:00:00Z',
      '2025-01-01T00:00:00Z',
    ];
    let compared = 0;
    for (const provider of providers) {
      for (const model of provider.models.filter((each) => Array.isArray(each.prices))) {
        for (const time of times) {
          const at = new Date(time);
          const found = calcPrice({ input_tokens: 5000, cache_read_tokens: 1000, output_tokens: 300 }, model.id, { providerId: provider.id, timestamp: at });
          if (found === null || found.model.id !== model.id) continue;
          const price = priceResponse(usage({ provider: provider.id, model: model.id, input_tokens: 5000, cached_input_tokens: 1000, output_tokens: 300 }), {
            at,
          });
          // A model priced by the page, say, has no price for tokens: that is no price, not $0.
          if (price.status === 'no_price') {
            assert.match(price.reason, /has no price for (input|output) tokens/);
            continue;
          }
          assertClose(price.usd, found.total_price, `${provider.id}:${model.id} at ${time}`);
          compared += 1;
        }
      }
    }
    assert.ok(compared >= 100, `compared ${compared}`);
  });

  it('has no price, with the reason, for what it cannot price', () => {
    assert.match(
      unpriced(priceResponse(usage({ model: 'no-such-model-xyz', input_tokens: 10, output_tokens: 1 }))),
      /model "no-such-model-xyz" is not in the price table/,
    );
    assert.equal(unpriced(priceResponse(usage({ input_tokens: 10, output_tokens: 1 }))), 'no model recorded');
    assert.equal(unpriced(priceResponse(usage({ model: '  ', input_tokens: 10 }))), 'no model recorded');
    assert.equal(unpriced(priceResponse(usage({ model: 'gpt-4o' }))), 'no usage recorded');
    assert.match(unpriced(priceResponse(usage({ model: 'gpt-4o', input_tokens: 100, cached_input_tokens: 150 }))), /exceed the input tokens/);
    assert.match(unpriced(priceResponse(usage({ model: 'gpt-4o', cached_input_tokens: 150 }))), /exceed the input tokens \(0\)/);
    assert.match(unpriced(priceResponse(usage({ model: 'gpt-4o', output_tokens: 10, reasoning_tokens: 20 }))), /reasoning tokens \(20\) exceed/);
    assert.match(unpriced(priceResponse(usage({ model: 'gpt-4o', input_tokens: -1 }))), /invalid input_tokens/);
    assert.match(unpriced(priceResponse(usage({ model: 'gpt-4o', output_tokens: Number.NaN }))), /invalid output_tokens/);
  });

  it('takes a count that is not recorded as none', () => {
    const price = priced(priceResponse(usage({ model: 'gpt-4o', output_tokens: 100 })));
    assertClose(price.usd, (100 * gpt4o.output_mtok!) / 1e6);
  });

  it('agrees with calcPrice on every model of the table', async () => {
    const providers = await waitForUpdate();
    assert.ok(providers && providers.length > 10);
    const at = new Date('2026-01-15T12:00:00Z');
    const usages = [
      { input_tokens: 1000, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 100, output_reasoning_tokens: 0 },
      { input_tokens: 50_000, cache_read_tokens: 30_000, cache_write_tokens: 5000, output_tokens: 2000, output_reasoning_tokens: 1500 },
      // Past every tier's start: tiered prices step up with the whole prompt.
      { input_tokens: 300_000, cache_read_tokens: 200_000, cache_write_tokens: 50_000, output_tokens: 8000, output_reasoning_tokens: 100 },
    ];
    let compared = 0;
    for (const provider of providers) {
      for (const model of provider.models) {
        for (const tokens of usages) {
          let expected: number;
          try {
            const found = calcPrice(tokens, model.id, { providerId: provider.id, timestamp: at });
            // Only ids that genai-prices itself maps back to this entry.
            if (found === null || found.model.id !== model.id || found.provider.id !== provider.id) continue;
            expected = found.total_price;
          } catch {
            continue;
          }
          const price = priceResponse(
            usage({
              provider: provider.id,
              model: model.id,
              input_tokens: tokens.input_tokens,
              cached_input_tokens: tokens.cache_read_tokens,
              cache_write_tokens: tokens.cache_write_tokens,
              output_tokens: tokens.output_tokens,
              reasoning_tokens: tokens.output_reasoning_tokens,
            }),
            { at },
          );
          if (price.status === 'no_price') {
            const prices = (Array.isArray(model.prices) ? model.prices.map((each) => each.prices) : [model.prices]) as ModelPrice[];
            assert.ok(
              prices.some((each) => each['input_mtok'] === undefined || each['output_mtok'] === undefined),
              `${provider.id}:${model.id} ${price.reason}`,
            );
            assert.match(price.reason, /has no price for (input|output) tokens/);
            continue;
          }
          assertClose(price.usd, expected, `${provider.id}:${model.id} ${JSON.stringify(tokens)}`);
          compared += 1;
        }
      }
    }
    assert.ok(compared > 3000, `compared ${compared}`);
  });
});

describe('priceResponse with user prices', () => {
  const userPrices = parseUserPrices(
    JSON.stringify({
      models: [
        { provider: 'acme', model: 'acme-coder-*', input_mtok: 1, output_mtok: 4, cache_read_mtok: 0.1, cache_write_mtok: 1.25 },
        { model: 'gpt-4o', input_mtok: 100, output_mtok: 100 },
        { model: 'acme-*', input_mtok: 2, output_mtok: 8 },
      ],
    }),
    'prices.json',
  );

  it('wins over the table', () => {
    const price = priced(priceResponse(usage({ provider: 'openai', model: 'gpt-4o', input_tokens: 1000, output_tokens: 100 }), { userPrices }));
    assert.equal(price.source, 'user');
    assertClose(price.usd, (1100 * 100) / 1e6);
    // The same pair without the user's prices is the table's again: no lookup is shared between them.
    assert.equal(priced(priceResponse(usage({ provider: 'openai', model: 'gpt-4o', input_tokens: 1000, output_tokens: 100 }))).source, 'genai-prices');
  });

  it('matches wildcards and provider without case, first matching entry first', () => {
    const recorded = { input_tokens: 1000, cached_input_tokens: 500, cache_write_tokens: 200, output_tokens: 100 };
    const price = priced(priceResponse(usage({ provider: 'ACME', model: 'ACME-Coder-7B', ...recorded }), { userPrices }));
    assert.equal(price.source, 'user');
    assert.equal(price.priced_as, 'acme-coder-*');
    assertClose(price.usd, (300 * 1 + 500 * 0.1 + 200 * 1.25 + 100 * 4) / 1e6);
    // Another provider skips the first entry; the next one prices cache tokens at its input price.
    const other = priced(priceResponse(usage({ provider: 'other', model: 'acme-coder-7b', ...recorded }), { userPrices }));
    assert.equal(other.priced_as, 'acme-*');
    assertClose(other.usd, (1000 * 2 + 100 * 8) / 1e6);
  });

  it('matches a provider-prefixed id without its prefix', () => {
    assert.equal(priced(priceResponse(usage({ model: 'acme/acme-tiny', input_tokens: 10 }), { userPrices })).priced_as, 'acme-*');
  });

  it('does not price what no entry and no table row matches', () => {
    assert.match(unpriced(priceResponse(usage({ model: 'private-model', input_tokens: 10 }), { userPrices })), /"private-model" is not in the price table/);
  });
});
