/** The requests table's order: by #, Δ or input tokens, unknowns last, ties in run order; what a header click does. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextRequestSort, sortRequests } from '../../../src-renderer/views/requestOrder';

const rows = [
  { index: 0, inputTokens: 1000, delta: null },
  { index: 1, inputTokens: 1400, delta: 400 },
  { index: 2, inputTokens: 13_400, delta: 12_000 },
  { index: 3, inputTokens: null, delta: null },
  { index: 4, inputTokens: 2000, delta: -11_400 },
  { index: 5, inputTokens: 2400, delta: 400 },
];
const order = (sort: Parameters<typeof sortRequests>[1]) => sortRequests(rows, sort, (row) => row.delta).map((row) => row.index);

describe('requests table order', () => {
  it('no sort: the run order', () => {
    assert.deepEqual(order(null), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(order({ column: 'index', descending: true }), [5, 4, 3, 2, 1, 0]);
  });

  it('Δ largest first: the 12,000-token turn on top, the compaction at the bottom of the counted, unknowns last, ties in run order', () => {
    assert.deepEqual(order({ column: 'delta', descending: true }), [2, 1, 5, 4, 0, 3]);
    assert.deepEqual(order({ column: 'delta', descending: false }), [4, 1, 5, 2, 0, 3]);
  });

  it('input tokens, unknown last both ways', () => {
    assert.deepEqual(order({ column: 'input', descending: true }), [2, 5, 4, 1, 0, 3]);
    assert.deepEqual(order({ column: 'input', descending: false }), [0, 1, 4, 5, 2, 3]);
  });

  it('a header click: a new column starts largest first, the same column flips, # ascending is no sort', () => {
    assert.deepEqual(nextRequestSort(null, 'delta'), { column: 'delta', descending: true });
    assert.deepEqual(nextRequestSort({ column: 'delta', descending: true }, 'delta'), { column: 'delta', descending: false });
    assert.deepEqual(nextRequestSort({ column: 'delta', descending: false }, 'input'), { column: 'input', descending: true });
    assert.deepEqual(nextRequestSort(null, 'index'), { column: 'index', descending: true });
    assert.equal(nextRequestSort({ column: 'index', descending: true }, 'index'), null);
    assert.equal(nextRequestSort({ column: 'delta', descending: true }, 'index'), null);
  });
});
