/** Integers beyond 2^53 keep the digits the trace wrote (call ids, token counts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
  it('says maybe from a run of 16 digits, the fewest an integer beyond 2^53 has', () => {
    assert.equal(mayHoldUnsafeIntegers('{"id":1234567890123456}'), true);
    assert.equal(mayHoldUnsafeIntegers('{"id":"x1234567890123456y"}'), true);
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
