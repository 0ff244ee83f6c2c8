/** Trace timestamps: ISO text or Unix epochs in seconds or milliseconds, normalized to ISO. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compactTimestamp, compareTimestamps, millisBetween, timestampText, toIsoTimestamp } from '../../../shared/trace/timestamps';

describe('toIsoTimestamp', () => {
  it('has no timestamp for a missing one', () => {
    assert.equal(toIsoTimestamp(undefined), null);
    assert.equal(toIsoTimestamp(null), null);
  });

  it('reads epochs from 1e11 up as milliseconds and smaller ones as seconds', () => {
    // 1e11 ms is 1973-03-03T09:46:40Z; 1e11 - 1 s is in the year 5138.
    assert.equal(toIsoTimestamp(1e11), new Date(Date.UTC(1973, 2, 3, 9, 46, 40)).toISOString());
    assert.equal(toIsoTimestamp(1e11 - 1), new Date((1e11 - 1) * 1000).toISOString());
    assert.equal(toIsoTimestamp(1748960467), '2025-06-03T14:21:07.000Z');
    assert.equal(toIsoTimestamp(1748960467.452), '2025-06-03T14:21:07.452Z');
    assert.equal(toIsoTimestamp(1748960467452), '2025-06-03T14:21:07.452Z');
    assert.equal(toIsoTimestamp(0), '1970-01-01T00:00:00.000Z');
  });

  it('normalizes other ISO spellings to UTC with milliseconds', () => {
    assert.equal(toIsoTimestamp('2025-06-03T16:21:07+02:00'), '2025-06-03T14:21:07.000Z');
    assert.equal(toIsoTimestamp('2025-06-03T14:21:07.452+00:00'), '2025-06-03T14:21:07.452Z');
    assert.equal(toIsoTimestamp('2025-06-03T14:21:07Z'), '2025-06-03T14:21:07.000Z');
  });

  it('keeps a timestamp already in the normalized form as written', () => {
    assert.equal(toIsoTimestamp('2025-06-03T14:21:07.452Z'), '2025-06-03T14:21:07.452Z');
    // A leap second, which a JavaScript date cannot hold: the loop's timestamp is kept, not lost.
    assert.equal(toIsoTimestamp('2016-12-31T23:59:60.000Z'), '2016-12-31T23:59:60.000Z');
  });

  it('has no timestamp for text that is not one, even around a normalized timestamp', () => {
    for (const text of ['yesterday', '', 'x2025-06-03T14:21:07.452Z', '2025-06-03T14:21:07.452Zx', '2025-06-03T14:21:07.452Z garbage']) {
      assert.equal(toIsoTimestamp(text), null, text);
    }
  });

  it('has no timestamp for an epoch no date can hold', () => {
    assert.equal(toIsoTimestamp(Number.NaN), null);
    assert.equal(toIsoTimestamp(Number.POSITIVE_INFINITY), null);
    assert.equal(toIsoTimestamp(1e20), null);
  });
});

describe('millisBetween', () => {
  it('is the time from start to end, negative when the end comes first', () => {
    assert.equal(millisBetween('2025-06-03T14:21:07.452Z', '2025-06-03T14:21:09.000Z'), 1548);
    assert.equal(millisBetween('2025-06-03T14:21:09.000Z', '2025-06-03T14:21:07.452Z'), -1548);
  });

  it('is unknown when either end is', () => {
    assert.equal(millisBetween(null, '2025-06-03T14:21:09.000Z'), null);
    assert.equal(millisBetween('2025-06-03T14:21:09.000Z', null), null);
    assert.equal(millisBetween(null, null), null);
  });

  it('is unknown, not NaN, when an end is kept as written but is no date (a leap second)', () => {
    const leapSecond = toIsoTimestamp('2016-12-31T23:59:60.000Z');
    assert.equal(leapSecond, '2016-12-31T23:59:60.000Z');
    assert.equal(millisBetween('2016-12-31T23:59:59.000Z', leapSecond), null);
    assert.equal(millisBetween(leapSecond, '2017-01-01T00:00:00.000Z'), null);
  });
});

describe('compactTimestamp', () => {
  // Dates from year 0 to 9999, written as toISOString writes them, and the same texts bent out of that form.
  const canonical = fc
    .date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
    .map((date) => date.toISOString());
  const bent = canonical.chain((text) =>
    fc.constantFrom(
      text.replace('.', ','),
      text.replace('Z', '+00:00'),
      text.slice(0, 19) + 'Z',
      text.replace('T', ' '),
      text.toLowerCase(),
      `${text.slice(0, 17)}60.000Z`,
    ),
  );
  const anyText = fc.oneof(canonical, bent, fc.string({ maxLength: 30 }));

  it('gives back the text it was made from, whatever the text', () => {
    fc.assert(fc.property(fc.option(anyText, { nil: null }), (text) => assert.equal(timestampText(compactTimestamp(text)), text)));
  });

  it('is a number exactly for the texts toISOString writes, and text otherwise', () => {
    fc.assert(fc.property(canonical, (text) => assert.equal(compactTimestamp(text), Date.parse(text))));
    fc.assert(fc.property(bent, (text) => assert.equal(compactTimestamp(text), text)));
    // In a minute it has just read, digits and marks are still checked one by one.
    for (const text of [
      '2025-06-03T14:21:0x.452Z',
      '2025-06-03T14:21:-1.452Z',
      '2025-06-03T14:21:07.4 2Z',
      '2025-06-03T14:21:07:452Z',
      '2025-06-03T14:21:07.452z',
    ]) {
      assert.equal(compactTimestamp('2025-06-03T14:21:07.452Z'), Date.parse('2025-06-03T14:21:07.452Z'));
      assert.equal(compactTimestamp(text), text);
    }
  });

  it('orders compact timestamps, numbers and texts alike, as their texts order', () => {
    fc.assert(
      fc.property(anyText, anyText, (a, b) => {
        const order = Math.sign(compareTimestamps(compactTimestamp(a)!, compactTimestamp(b)!));
        assert.equal(order, a < b ? -1 : a > b ? 1 : 0, `${a} vs ${b}`);
      }),
    );
  });
});
