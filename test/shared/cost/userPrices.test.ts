/** The user price file: its schema, its errors, its model patterns. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseUserPrices, userModelPattern, userPriceMatches } from '../../../shared/cost/userPrices';

describe('parseUserPrices', () => {
  it('reads a price file, provider and cache prices optional', () => {
    const prices = parseUserPrices(
      '{ "models": [ { "provider": "acme", "model": "acme-coder-*", "input_mtok": 1.0, "output_mtok": 4.0, "cache_read_mtok": 0.1, "cache_write_mtok": 1.25 },' +
        ' { "model": "local-llm", "input_mtok": 0, "output_mtok": 0 } ] }',
      'prices.json',
    );
    assert.deepEqual(prices, {
      models: [
        { provider: 'acme', model: 'acme-coder-*', input_mtok: 1, output_mtok: 4, cache_read_mtok: 0.1, cache_write_mtok: 1.25 },
        { model: 'local-llm', input_mtok: 0, output_mtok: 0 },
      ],
    });
  });

  it('names the file and the JSON error', () => {
    assert.throws(() => parseUserPrices('{ "models": [,] }', 'prices.json'), /^Error: prices\.json: not valid JSON: /);
    assert.throws(() => parseUserPrices('', 'my prices.json'), /^Error: my prices\.json: not valid JSON: /);
  });

  it('names the file, the path and the problem', () => {
    assert.throws(
      () => parseUserPrices('{ "models": [ { "model": "m", "input_mtok": "1", "output_mtok": 2 } ] }', 'prices.json'),
      (error: Error) => /^prices\.json: models\.0\.input_mtok: .*expected number/.test(error.message),
    );
    assert.throws(
      () => parseUserPrices('{ "models": [ { "model": "m", "input_mtok": 1, "output_mtok": -2 } ] }', 'p.json'),
      /p\.json: models\.0\.output_mtok: /,
    );
    assert.throws(() => parseUserPrices('{ "models": [ { "input_mtok": 1, "output_mtok": 2 } ] }', 'p.json'), /p\.json: models\.0\.model: /);
    assert.throws(() => parseUserPrices('{ "models": [ { "model": " ", "input_mtok": 1, "output_mtok": 2 } ] }', 'p.json'), /p\.json: models\.0\.model: /);
    assert.throws(() => parseUserPrices('[]', 'p.json'), /p\.json: \(top level\): .*expected object/);
    assert.throws(() => parseUserPrices('{}', 'p.json'), /p\.json: models: .*expected array/);
  });

  it('rejects a key it does not know rather than price without it', () => {
    assert.throws(
      () => parseUserPrices('{ "models": [ { "model": "m", "input_mtok": 1, "output_mtok": 2, "cache_read_mtoks": 0.1 } ] }', 'p.json'),
      /p\.json: models\.0: .*cache_read_mtoks/,
    );
  });

  it('lists every problem at once', () => {
    assert.throws(
      () =>
        parseUserPrices(
          '{ "models": [ { "model": "m" }, { "model": "n", "input_mtok": 1, "output_mtok": 1 }, { "model": 3, "input_mtok": 1, "output_mtok": 1 } ] }',
          'p.json',
        ),
      (error: Error) => ['models.0.input_mtok', 'models.0.output_mtok', 'models.2.model'].every((path) => error.message.includes(path)),
    );
  });
});

describe('user model patterns', () => {
  it('matches an exact id without case, and * as any run of characters', () => {
    assert.ok(userModelPattern('acme-coder-*').test('ACME-Coder-7B'));
    assert.ok(userModelPattern('acme-coder-*').test('acme-coder-'));
    assert.ok(!userModelPattern('acme-coder-*').test('my-acme-coder-7b'));
    assert.ok(userModelPattern('*coder*').test('my-acme-coder-7b'));
    assert.ok(userModelPattern('Local-LLM').test('local-llm'));
    assert.ok(!userModelPattern('local-llm').test('local-llm-2'));
  });

  it('takes every other character literally', () => {
    assert.ok(userModelPattern('m.1+(x)').test('m.1+(x)'));
    assert.ok(!userModelPattern('m.1').test('mx1'));
    assert.ok(userModelPattern('a?[b]').test('A?[B]'));
  });

  it('matches any provider when the entry names none, else that one without case', () => {
    const any = { model: 'm', input_mtok: 1, output_mtok: 1 };
    const acme = { ...any, provider: 'Acme' };
    assert.ok(userPriceMatches(any, undefined, 'm'));
    assert.ok(userPriceMatches(any, 'x', 'm'));
    assert.ok(userPriceMatches(acme, 'ACME', 'm'));
    assert.ok(!userPriceMatches(acme, 'other', 'm'));
    assert.ok(!userPriceMatches(acme, undefined, 'm'));
  });
});
