import assert from 'node:assert/strict';
import { it } from 'node:test';
import { formatCount } from '../../shared/formatCount';

it('groups thousands the way en-US does, for whole and fractional counts', () => {
  for (const value of [0, 7, 999, 1000, 12345, 1234567, 1000000000, 60000, 1234.5, 0.25]) {
    assert.equal(formatCount(value), value.toLocaleString('en-US', { maximumFractionDigits: 20 }), String(value));
  }
});
