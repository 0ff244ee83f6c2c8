/** The typed-array columns a long run is kept in (shared/analysis/columns.ts). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HashColumn, NumberColumn } from '../../../shared/analysis/columns';

describe('columns', () => {
  it('keeps every number pushed, through growth and after being trimmed to nothing', () => {
    const column = new NumberColumn(Float64Array);
    column.trim();
    const pushed = Array.from({ length: 1000 }, (_, at) => at * 1.5 - 7);
    for (const value of pushed) column.push(value);
    column.trim();
    column.push(Number.NaN);
    assert.equal(column.length, 1001);
    assert.deepEqual(
      Array.from({ length: 1000 }, (_, at) => column.get(at)),
      pushed,
    );
    assert.ok(Number.isNaN(column.get(1000)));
  });

  it('gives back each hash as the same text: ingest hashes, other text and none', () => {
    const hashes = ['0000000000000000', 'ffffffffffffffff', '00a1b2c3d4e5f607', null, 'FFFFFFFFFFFFFFFF', '{"path":"a"}', '', '0123456789abcdef0'];
    const column = new HashColumn();
    for (const hash of hashes) column.push(hash);
    column.trim();
    assert.deepEqual(
      hashes.map((_, at) => column.get(at)),
      hashes,
    );
  });
});
