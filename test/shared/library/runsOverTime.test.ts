import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runsOverTime } from '../../../shared/library/runsOverTime';

describe('runsOverTime', () => {
  it('counts days within two months, the empty ones too', () => {
    const { granularity, periods } = runsOverTime([
      { day: '2025-06-03', runs: 2, failed: 1 },
      { day: '2025-06-01', runs: 1, failed: 0 },
    ]);
    assert.equal(granularity, 'day');
    assert.deepEqual(
      periods.map((period) => [period.period, period.runs, period.failed]),
      [
        ['2025-06-01', 1, 0],
        ['2025-06-02', 0, 0],
        ['2025-06-03', 2, 1],
      ],
    );
  });

  it('counts weeks from Monday over a longer span, each with its first and last day', () => {
    const { granularity, periods } = runsOverTime([
      { day: '2025-06-04', runs: 1, failed: 0 },
      { day: '2025-08-20', runs: 3, failed: 2 },
    ]);
    assert.equal(granularity, 'week');
    assert.deepEqual(periods[0], { period: 'week of 2025-06-02', from: '2025-06-02', to: '2025-06-08', runs: 1, failed: 0 });
    const last = periods.at(-1)!;
    assert.deepEqual([last.from, last.to, last.runs, last.failed], ['2025-08-18', '2025-08-24', 3, 2]);
    assert.equal(periods.length, 12);
  });

  it('counts months over years, across a year boundary', () => {
    const { granularity, periods } = runsOverTime([
      { day: '2024-11-30', runs: 1, failed: 1 },
      { day: '2027-01-01', runs: 1, failed: 0 },
    ]);
    assert.equal(granularity, 'month');
    assert.equal(periods.length, 27);
    assert.deepEqual(periods[1], { period: '2024-12', from: '2024-12-01', to: '2024-12-31', runs: 0, failed: 0 });
    assert.equal(periods.at(-1)!.period, '2027-01');
  });

  it('has nothing to count without days', () => {
    assert.deepEqual(runsOverTime([]).periods, []);
  });
});
