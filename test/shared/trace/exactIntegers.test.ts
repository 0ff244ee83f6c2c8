/** Integers beyond 2^53 keep the digits the trace wrote (call ids, token counts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { mayHoldUnsafeIntegers, parseJsonExactly } from '../../../shared/trace/exactIntegers';

type Call = [digits: string, key: string, rounded: number];

function parseRecording(text: string): { value: unknown; calls: Call[] } {
  const calls: Call[] = [];
  const value = parseJsonExactly(text, (digits, key, rounded) => {
    calls.push([digits, key, rounded]);
    return `exact:${digits}`;
  });
  return { value, calls };
}

describe('mayHoldUnsafeIntegers', () => {
  it('says maybe from a run of 16 digits, the fewest an integer beyond 2^53 has, where a number can start', () => {
    assert.equal(mayHoldUnsafeIntegers('{"id":1234567890123456}'), true);
    assert.equal(mayHoldUnsafeIntegers('[1, -1234567890123456]'), true);
    assert.equal(mayHoldUnsafeIntegers('{"a": \n\t 1234567890123456}'), true);
    assert.equal(mayHoldUnsafeIntegers('1234567890123456'), true);
    // Inside a string it can still look like one: a maybe, never a wrong no.
    assert.equal(mayHoldUnsafeIntegers('{"text":"id: 1234567890123456"}'), true);
  });

  it('says no for 16 digits inside a string where no number could start', () => {
    assert.equal(mayHoldUnsafeIntegers('{"id":"x1234567890123456y"}'), false);
    assert.equal(mayHoldUnsafeIntegers('{"sha":"1234567890123456abc"}'), false);
  });

  it('never says no for a JSON text holding an integer beyond 2^53, however it is laid out', () => {
    const big = fc.bigInt({ min: 2n ** 53n + 1n, max: 10n ** 30n }).map((n) => ((n & 1n) === 1n ? -n : n));
    const leaf = fc.oneof(big, fc.integer(), fc.string(), fc.constant(null));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, fc.constantFrom(undefined, 0, 1, '\t', ' \n '), (tree, indent) => {
        const bigs: string[] = [];
        const text = JSON.stringify(
          tree,
          (_key, entry: unknown) => (typeof entry === 'bigint' ? `\u0000big${bigs.push(entry.toString()) - 1}` : entry),
          indent as never,
        ).replace(/"\\u0000big(\d+)"/g, (_match, index: string) => bigs[Number(index)]!);
        if (bigs.length > 0) assert.equal(mayHoldUnsafeIntegers(text), true, text);
      }),
      { numRuns: 2000 },
    );
  });

  it('answers as one regular expression over the whole text would, wherever a run of digits starts and ends', () => {
    // Texts of digits and the characters around numbers (JavaScript's whitespace among them), so
    // that runs of 15, 16 and 17 digits fall at every offset of the stride the text is read with.
    const digits = fc.string({ unit: fc.constantFrom('0', '1', '9'), minLength: 1, maxLength: 20 });
    const other = fc.constantFrom(':', ',', '[', ' ', '\t', '\n', '\u00a0', '\u2028', '-', '"', 'a');
    const text = fc.array(fc.oneof(digits, other), { maxLength: 16 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (written) => assert.equal(mayHoldUnsafeIntegers(written), /(?:^|[:,[])\s*-?\d{16}/.test(written), written)),
      { numRuns: 5000 },
    );
  });

  it('says no for 15 digits or fewer, also when runs are split', () => {
    assert.equal(mayHoldUnsafeIntegers('{"id":123456789012345}'), false);
    assert.equal(mayHoldUnsafeIntegers('12345678.12345678'), false);
    assert.equal(mayHoldUnsafeIntegers(''), false);
  });
});

describe('parseJsonExactly', () => {
  it('hands an integer beyond 2^53 to exact with its digits as written, its key and the rounded double', () => {
    const { value, calls } = parseRecording('{"call_id":12345678901234567890,"n":1}');
    assert.deepEqual(value, { call_id: 'exact:12345678901234567890', n: 1 });
    assert.deepEqual(calls, [['12345678901234567890', 'call_id', Number('12345678901234567890')]]);
  });

  it('keeps a negative integer beyond -2^53 exact too', () => {
    const { value, calls } = parseRecording('[-12345678901234567890]');
    assert.deepEqual(value, ['exact:-12345678901234567890']);
    assert.deepEqual(calls, [['-12345678901234567890', '0', -12345678901234567000]]);
  });

  it("gives a top-level integer the key ''", () => {
    const { value, calls } = parseRecording('9007199254740993');
    assert.equal(value, 'exact:9007199254740993');
    assert.deepEqual(calls, [['9007199254740993', '', 9007199254740992]]);
  });

  it('leaves safe integers, fractions, exponents and digit strings as JSON.parse gives them', () => {
    const text =
      '{"safe":9007199254740991,"fraction":12345678901234567890.5,"exponent":1e20,"big_exponent":12345678901234567e3,"text":"12345678901234567890","small":0.5}';
    const { value, calls } = parseRecording(text);
    assert.deepEqual(value, JSON.parse(text));
    assert.deepEqual(calls, []);
  });
});
