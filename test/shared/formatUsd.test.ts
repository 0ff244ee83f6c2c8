import assert from 'node:assert/strict';
import { it } from 'node:test';
import { formatUsd } from '../../shared/formatUsd';

it('shows four decimals below a dollar, two above, and never a tiny cost as $0.0000', () => {
  assert.equal(formatUsd(0.0123), '$0.0123');
  assert.equal(formatUsd(12.4), '$12.40');
  assert.equal(formatUsd(0.000001), '<$0.0001');
  assert.equal(formatUsd(0.00005), '$0.0001');
  // A free tier is priced at $0, and says so.
  assert.equal(formatUsd(0), '$0.0000');
});
