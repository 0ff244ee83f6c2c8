/**
 * Aligning the turns of two runs (shared/compare/alignSteps.ts): exact matches, inserted, removed
 * and changed turns, parallel calls in any order, the first divergence, long runs and runs too
 * different for the diff; and, for random runs, that every turn appears once and in order, that a
 * run aligns with itself, and that swapping the runs swaps removed and inserted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  alignRuns,
  MAX_DIFF_EDITS,
  type AlignedTurn,
  type ComparableCall,
  type ComparableTurn,
  type RunAlignment,
  type TurnOp,
} from '../../../shared/compare/alignSteps';

function call(tool: string, args: unknown): ComparableCall {
  return { tool, args: JSON.stringify(args) };
}

function turn(step: number, calls: ComparableCall[], outcome = calls.length > 0 ? 'tool_calls' : 'text'): ComparableTurn {
  return { step, outcome, calls };
}

/** A run whose turn k reads file k: every turn distinct, so the exact matches are unambiguous. */
function readingRun(length: number): ComparableTurn[] {
  return Array.from({ length }, (_, k) => turn(k + 1, [call('read_file', { path: `src/file${k}.ts` })]));
}

function ops(alignment: RunAlignment): string {
  return alignment.rows.map((row) => `${row.op}:${row.a ?? '-'}/${row.b ?? '-'}`).join(' ');
}

describe('alignRuns', () => {
  it('matches identical runs throughout', () => {
    const run = readingRun(5);
    const alignment = alignRuns(run, structuredClone(run));
    assert.equal(ops(alignment), 'same:0/0 same:1/1 same:2/2 same:3/3 same:4/4');
    assert.equal(alignment.firstDivergence, null);
    assert.equal(alignment.similarity, 1);
    assert.deepEqual(alignment.rows[0]?.calls, [{ a: 0, b: 0, op: 'same', similarity: 1 }]);
  });

  it('marks a step inserted in the middle, where the runs first diverge', () => {
    const a = readingRun(4);
    const b = [...a.slice(0, 2), turn(3, [call('grep', { pattern: 'TODO' })]), ...a.slice(2)];
    const alignment = alignRuns(a, b);
    assert.equal(ops(alignment), 'same:0/0 same:1/1 inserted:-/2 same:2/3 same:3/4');
    assert.equal(alignment.firstDivergence, 2);
    assert.deepEqual(alignment.rows[2]?.calls, []);
    assert.equal(alignment.similarity, 4 / 5);
  });

  it('marks a removed step', () => {
    const a = readingRun(4);
    const b = [a[0], a[2], a[3]].filter((t) => t !== undefined);
    const alignment = alignRuns(a, b);
    assert.equal(ops(alignment), 'same:0/0 removed:1/- same:2/1 same:3/2');
    assert.equal(alignment.firstDivergence, 1);
  });

  it('pairs a turn whose argument changed as changed, its call changed', () => {
    const a = readingRun(3);
    const b = [a[0], turn(2, [call('read_file', { path: 'src/other.ts' })]), a[2]].filter((t) => t !== undefined);
    const alignment = alignRuns(a, b);
    assert.equal(ops(alignment), 'same:0/0 changed:1/1 same:2/2');
    assert.equal(alignment.firstDivergence, 1);
    const row = alignment.rows[1];
    assert.ok(row && row.similarity > 0.5 && row.similarity < 1, `similarity ${row?.similarity}`);
    assert.equal(row.calls.length, 1);
    assert.equal(row.calls[0]?.op, 'changed');
    assert.ok((row.calls[0]?.similarity ?? 0) > 0.5 && (row.calls[0]?.similarity ?? 1) < 1);
    assert.ok(alignment.similarity > 2 / 3 && alignment.similarity < 1);
  });

  it('treats parallel calls in another order as the same turn', () => {
    const calls = [call('read_file', { path: 'a.ts' }), call('grep', { pattern: 'x' }), call('read_file', { path: 'b.ts' })];
    const a = [turn(1, calls)];
    const b = [
      turn(
        1,
        [calls[2], calls[0], calls[1]].filter((c) => c !== undefined),
      ),
    ];
    const alignment = alignRuns(a, b);
    assert.equal(ops(alignment), 'same:0/0');
    assert.deepEqual(alignment.rows[0]?.calls, [
      { a: 0, b: 1, op: 'same', similarity: 1 },
      { a: 1, b: 2, op: 'same', similarity: 1 },
      { a: 2, b: 0, op: 'same', similarity: 1 },
    ]);
  });

  it('pairs the calls of a changed turn: equal first, then the same tool, the rest removed or inserted', () => {
    const a = [turn(1, [call('read_file', { path: 'a.ts' }), call('read_file', { path: 'b.ts' }), call('grep', { pattern: 'x' })])];
    const b = [turn(1, [call('read_file', { path: 'c.ts' }), call('list_dir', { path: '.' }), call('read_file', { path: 'a.ts' })])];
    const row = alignRuns(a, b).rows[0];
    assert.equal(row?.op, 'changed');
    assert.deepEqual(
      row.calls.map((c) => `${c.op}:${c.a ?? '-'}/${c.b ?? '-'}`),
      ['same:0/2', 'changed:1/0', 'removed:2/-', 'inserted:-/1'],
    );
  });

  it('shows a turn that called another tool as removed and inserted, not changed', () => {
    const a = readingRun(3);
    const b = [a[0], turn(2, [call('write_file', { path: 'src/file1.ts' })]), a[2]].filter((t) => t !== undefined);
    const alignment = alignRuns(a, b);
    assert.equal(ops(alignment), 'same:0/0 removed:1/- inserted:-/1 same:2/2');
    assert.equal(alignment.firstDivergence, 1);
  });

  it('pairs a turn with the same calls but another outcome as changed', () => {
    const a = [turn(1, [call('read_file', { path: 'a.ts' })], 'tool_calls')];
    const b = [turn(1, [call('read_file', { path: 'a.ts' })], 'error')];
    const alignment = alignRuns(a, b);
    assert.equal(ops(alignment), 'changed:0/0');
    assert.equal(alignment.rows[0]?.similarity, 0.75);
  });

  it('compares turns without calls by outcome', () => {
    assert.equal(ops(alignRuns([turn(1, [], 'text')], [turn(1, [], 'text')])), 'same:0/0');
    assert.equal(ops(alignRuns([turn(1, [], 'text')], [turn(1, [], 'error')])), 'removed:0/- inserted:-/0');
  });

  it('pairs a changed turn with the most similar of several candidates', () => {
    const a = readingRun(4);
    const b = [a[0], turn(2, [call('read_file', { path: 'src/file2.ts', lines: 10 })]), a[3]].filter((t) => t !== undefined);
    assert.equal(ops(alignRuns(a, b)), 'same:0/0 removed:1/- changed:2/1 same:3/2');
  });

  it('compares calls by their identity when the caller gives one, and their arguments for similarity', () => {
    const summary = '{"content":"line 1';
    const a = [turn(1, [{ tool: 'write_file', args: summary, identity: 'hash-1' }])];
    const sameIdentity = [turn(1, [{ tool: 'write_file', args: summary, identity: 'hash-1' }])];
    const otherIdentity = [turn(1, [{ tool: 'write_file', args: summary, identity: 'hash-2' }])];
    assert.equal(ops(alignRuns(a, sameIdentity)), 'same:0/0');
    const changed = alignRuns(a, otherIdentity);
    assert.equal(ops(changed), 'changed:0/0');
    assert.ok((changed.rows[0]?.similarity ?? 1) < 1);
  });

  it('aligns empty runs', () => {
    const run = readingRun(2);
    assert.deepEqual(alignRuns([], []), { rows: [], firstDivergence: null, similarity: 1 });
    const onlyB = alignRuns([], run);
    assert.equal(ops(onlyB), 'inserted:-/0 inserted:-/1');
    assert.equal(onlyB.firstDivergence, 0);
    assert.equal(onlyB.similarity, 0);
    assert.equal(ops(alignRuns(run, [])), 'removed:0/- removed:1/-');
  });

  it('finds the edits in runs of 10,000 turns', () => {
    const a = readingRun(10_000);
    const b = a.slice();
    b[9_000] = turn(9_001, [call('write_file', { path: 'src/file9000.ts' })]);
    b[7_000] = turn(7_001, [call('read_file', { path: 'src/file7000.ts', lines: 40 })]);
    b.splice(5_000, 1);
    b.splice(2_000, 0, turn(2_001, [call('grep', { pattern: 'TODO' })]));
    const alignment = alignRuns(a, b);
    const notSame = alignment.rows.map((row, index) => ({ row, index })).filter(({ row }) => row.op !== 'same');
    assert.deepEqual(
      notSame.map(({ row, index }) => `${index} ${row.op}:${row.a ?? '-'}/${row.b ?? '-'}`),
      ['2000 inserted:-/2000', '5001 removed:5000/-', '7001 changed:7000/7000', '9001 removed:9000/-', '9002 inserted:-/9000'],
    );
    assert.equal(alignment.firstDivergence, 2_000);
    assert.equal(alignment.rows.length, 10_002);
  });

  it('pairs runs too different for the diff by position between their common ends', () => {
    const length = MAX_DIFF_EDITS + 200;
    const a = readingRun(length);
    const b = a.map((t, k) => (k === 0 || k === length - 1 ? t : turn(t.step, [call('read_file', { path: `lib/file${k}.ts` })])));
    const alignment = alignRuns(a, b);
    assert.equal(alignment.rows.length, length);
    assert.deepEqual(
      alignment.rows.map((row) => row.op),
      a.map((_, k) => (k === 0 || k === length - 1 ? 'same' : 'changed')),
    );
    assert.ok(alignment.rows.every((row) => row.a === row.b));
  });
});

// Small alphabets so that random runs share turns and calls, and parallel calls repeat.
const randomCall = fc.record({
  tool: fc.constantFrom('read_file', 'write_file', 'grep'),
  args: fc.constantFrom('{"path":"a.ts"}', '{"path":"b.ts"}', '{"path":"a.ts","lines":5}', '{}'),
});
const randomTurn = fc.record({
  step: fc.nat(),
  outcome: fc.constantFrom('tool_calls', 'tool_calls', 'text', 'error'),
  calls: fc.array(randomCall, { maxLength: 3 }),
});
const randomRun = fc.array(randomTurn, { maxLength: 25 });
/** Two runs, often one derived from the other by a few edits so that long matches occur. */
const runPair = fc.oneof(
  fc.tuple(randomRun, randomRun),
  fc.tuple(randomRun, fc.array(fc.tuple(fc.nat(), fc.option(randomTurn)), { maxLength: 5 })).map(([run, edits]) => {
    const edited = run.slice();
    for (const [at, replacement] of edits) {
      if (replacement === null) edited.splice(at % (edited.length + 1), 1);
      else edited.splice(at % (edited.length + 1), 0, replacement);
    }
    return [run, edited] as [ComparableTurn[], ComparableTurn[]];
  }),
);

const swapOp: Record<TurnOp, TurnOp> = { same: 'same', changed: 'changed', removed: 'inserted', inserted: 'removed' };

/** A row with a and b swapped, as an order-free string (the order within a gap depends on which side is removed). */
function swappedRow(row: AlignedTurn): string {
  const calls = row.calls.map((c) => `${swapOp[c.op]}:${c.b}/${c.a}:${c.similarity}`).sort();
  return `${swapOp[row.op]}:${row.b}/${row.a}:${row.similarity}:${calls.join(',')}`;
}

function rowKey(row: AlignedTurn): string {
  const calls = row.calls.map((c) => `${c.op}:${c.a}/${c.b}:${c.similarity}`).sort();
  return `${row.op}:${row.a}/${row.b}:${row.similarity}:${calls.join(',')}`;
}

describe('alignRuns: properties', () => {
  it('property: every turn of a and of b appears exactly once, in increasing order', () => {
    fc.assert(
      fc.property(runPair, ([a, b]) => {
        const { rows, firstDivergence } = alignRuns(a, b);
        assert.deepEqual(
          rows.flatMap((row) => (row.a === null ? [] : [row.a])),
          a.map((_, k) => k),
        );
        assert.deepEqual(
          rows.flatMap((row) => (row.b === null ? [] : [row.b])),
          b.map((_, k) => k),
        );
        for (const row of rows) {
          assert.equal(row.a === null, row.op === 'inserted');
          assert.equal(row.b === null, row.op === 'removed');
          if (row.op === 'changed') assert.ok(row.similarity >= 0.5 && row.similarity < 1);
          const turnA = row.a === null ? undefined : a[row.a];
          const turnB = row.b === null ? undefined : b[row.b];
          if (turnA && turnB) {
            assert.deepEqual(
              row.calls.flatMap((c) => (c.a === null ? [] : [c.a])).sort(),
              turnA.calls.map((_, k) => k),
            );
            assert.deepEqual(
              row.calls.flatMap((c) => (c.b === null ? [] : [c.b])).sort(),
              turnB.calls.map((_, k) => k),
            );
          }
        }
        const firstNotSame = rows.findIndex((row) => row.op !== 'same');
        assert.equal(firstDivergence, firstNotSame < 0 ? null : firstNotSame);
      }),
    );
  });

  it('property: a run aligned with itself is the same throughout', () => {
    fc.assert(
      fc.property(randomRun, (run) => {
        const alignment = alignRuns(run, run);
        assert.ok(alignment.rows.every((row, k) => row.op === 'same' && row.a === k && row.b === k && row.calls.every((c) => c.op === 'same')));
        assert.equal(alignment.firstDivergence, null);
        assert.equal(alignment.similarity, 1);
      }),
    );
  });

  it('property: swapping the runs swaps removed and inserted and nothing else', () => {
    fc.assert(
      fc.property(runPair, ([a, b]) => {
        const forward = alignRuns(a, b);
        const backward = alignRuns(b, a);
        assert.deepEqual(forward.rows.map(swappedRow).sort(), backward.rows.map(rowKey).sort());
        assert.equal(forward.similarity, backward.similarity);
      }),
    );
  });
});
