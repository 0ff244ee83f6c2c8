/** Durations read the same in the app and the CLI: one formatter, its unit chosen after rounding. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration } from '../../shared/formatDuration';

describe('formatDuration', () => {
  it('shows whole milliseconds under a second, and a positive sub-millisecond latency as under 1 ms', () => {
    assert.equal(formatDuration(0), '0 ms');
    assert.equal(formatDuration(0.3), '< 1 ms');
    assert.equal(formatDuration(12.4), '12 ms');
    assert.equal(formatDuration(999.4), '999 ms');
  });

  it('moves to seconds when the milliseconds round to a thousand', () => {
    assert.equal(formatDuration(999.6), '1.00 s');
    assert.equal(formatDuration(1000), '1.00 s');
    assert.equal(formatDuration(4254), '4.25 s');
  });

  it('shows two decimals under 10 s and one from 10 s, deciding after rounding', () => {
    assert.equal(formatDuration(9994), '9.99 s');
    assert.equal(formatDuration(9996), '10.0 s');
    assert.equal(formatDuration(12_345), '12.3 s');
    assert.equal(formatDuration(59_940), '59.9 s');
  });

  it('reads 59.96 s as a minute, never as "60.0 s"', () => {
    assert.equal(formatDuration(59_960), '1 min');
  });

  it('shows minutes with whole seconds, and whole minutes alone', () => {
    assert.equal(formatDuration(60_000), '1 min');
    assert.equal(formatDuration(65_400), '1 min 5 s');
    assert.equal(formatDuration(119_600), '2 min', 'never "1 min 60 s"');
    assert.equal(formatDuration(3_599_400), '59 min 59 s');
  });

  it('shows hours with whole minutes once the seconds round to an hour', () => {
    assert.equal(formatDuration(3_599_600), '1 h');
    assert.equal(formatDuration(3_900_000), '1 h 5 min');
    assert.equal(formatDuration(7_170_000), '2 h', '1 h 59 min 30 s rounds to the next hour');
    assert.equal(formatDuration(100 * 3_600_000), '100 h');
  });

  it('keeps the sign of a negative duration (an end logged before its start)', () => {
    assert.equal(formatDuration(-1500), '-1.50 s');
  });

  it("returns the caller's word for a duration that was not recorded", () => {
    assert.equal(formatDuration(null, '—'), '—');
    assert.equal(formatDuration(null, null), null);
    assert.equal(formatDuration(2500, null), '2.50 s');
  });
});
