/** Per-tool latency distribution of the Calls list: nearest-rank percentiles. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { latencyByTool, nearestRankPercentile } from '../../shared/latencyStats';

describe('nearestRankPercentile', () => {
  it('picks a value that was recorded, by nearest rank', () => {
    const values = [15, 20, 35, 40, 50];
    assert.equal(nearestRankPercentile(values, 5), 15);
    assert.equal(nearestRankPercentile(values, 30), 20);
    assert.equal(nearestRankPercentile(values, 40), 20);
    assert.equal(nearestRankPercentile(values, 50), 35);
    assert.equal(nearestRankPercentile(values, 95), 50);
    assert.equal(nearestRankPercentile(values, 100), 50);
  });

  it('gives the single value for every percentile of one', () => {
    assert.equal(nearestRankPercentile([7], 50), 7);
    assert.equal(nearestRankPercentile([7], 95), 7);
  });

  it('does not interpolate between two values', () => {
    assert.equal(nearestRankPercentile([100, 9000], 50), 100);
    assert.equal(nearestRankPercentile([100, 9000], 95), 9000);
  });

  it('p95 of 100 values is the 95th', () => {
    const values = Array.from({ length: 100 }, (_, index) => index + 1);
    assert.equal(nearestRankPercentile(values, 95), 95);
    assert.equal(nearestRankPercentile(values, 50), 50);
  });

  it('is null for no values and refuses a percentile outside (0, 100]', () => {
    assert.equal(nearestRankPercentile([], 50), null);
    assert.throws(() => nearestRankPercentile([1], 0), RangeError);
    assert.throws(() => nearestRankPercentile([1], 101), RangeError);
    assert.throws(() => nearestRankPercentile([1], Number.NaN), RangeError);
  });
});

describe('latencyByTool', () => {
  it('counts every call, takes percentiles over the timed ones only, slowest tool first', () => {
    const stats = latencyByTool([
      { name: 'shell', latencyMs: 300 },
      { name: 'read', latencyMs: 5 },
      { name: 'shell', latencyMs: 100 },
      { name: 'shell', latencyMs: null },
      { name: 'shell', latencyMs: 20_000 },
      { name: 'read', latencyMs: 10 },
      { name: 'think', latencyMs: null },
    ]);
    assert.deepEqual(stats, [
      { name: 'shell', calls: 4, timed: 3, p50: 300, p95: 20_000, max: 20_000 },
      { name: 'read', calls: 2, timed: 2, p50: 5, p95: 10, max: 10 },
      { name: 'think', calls: 1, timed: 0, p50: null, p95: null, max: null },
    ]);
  });

  it('orders by max when p95 ties, then by name', () => {
    const stats = latencyByTool([
      { name: 'b', latencyMs: 10 },
      { name: 'a', latencyMs: 10 },
      { name: 'c', latencyMs: 10 },
      { name: 'c', latencyMs: 1 },
      { name: 'c', latencyMs: 1 },
    ]);
    assert.deepEqual(
      stats.map((tool) => tool.name),
      ['a', 'b', 'c'],
    );
  });

  it('ignores a latency that is not a finite number and returns nothing for no calls', () => {
    assert.deepEqual(latencyByTool([{ name: 'x', latencyMs: Number.POSITIVE_INFINITY }]), [{ name: 'x', calls: 1, timed: 0, p50: null, p95: null, max: null }]);
    assert.deepEqual(latencyByTool([]), []);
  });
});
