/** Reading progress reads the same in the app and the CLI, and reaches 100 % only at the end. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { formatProgress } from '../../shared/formatProgress';

it('rounds down, so 100 % means every byte was read', () => {
  assert.equal(formatProgress(0, 1000), '0 %');
  assert.equal(formatProgress(425, 1000), '42 %');
  assert.equal(formatProgress(996, 1000), '99 %');
  assert.equal(formatProgress(1000, 1000), '100 %');
});

it('shows 0 % for an empty file and never more than 100 % for a file that grew while read', () => {
  assert.equal(formatProgress(0, 0), '0 %');
  assert.equal(formatProgress(1200, 1000), '100 %');
});
