/** The span tree of a run read from its begin/end records (shared/trace/spanTree.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hiddenCount, mergeRanges, positionOfShown, shownIndexOf, SpanNesting, type SpanExtent, type SpanMarker } from '../../../shared/trace/spanTree';

type Step = SpanMarker | { visible?: boolean; ts?: string } | null;

/** Feeds `steps` as a run's events (ids = 100 + index); returns each event's depth and every span, open ones last. */
function nest(steps: readonly Step[]): { depths: number[]; spans: Map<string, SpanExtent> } {
  const nesting = new SpanNesting();
  const depths: number[] = [];
  const spans = new Map<string, SpanExtent>();
  const keep = (extent: SpanExtent) => spans.set(extent.name ?? `#${extent.beginEventId}`, extent);
  steps.forEach((step, index) => {
    const marker = step !== null && 'kind' in step ? step : undefined;
    const plain = step !== null && !('kind' in step) ? step : {};
    const { depth, ended } = nesting.accept({
      eventId: 100 + index,
      runIndex: index,
      visible: plain.visible ?? marker?.kind !== 'end',
      ts: plain.ts ?? null,
      ...(marker ? { marker } : {}),
    });
    depths.push(depth);
    ended.forEach(keep);
  });
  nesting.openSpans().forEach(keep);
  return { depths, spans };
}

const begin = (id: string, parentId: string | null = null): SpanMarker => ({ kind: 'begin', id, parentId, name: id, type: 'solver' });
const end = (id: string): SpanMarker => ({ kind: 'end', id });

describe('span nesting', () => {
  it('nests balanced spans: the begin sits at its parent depth, its events and its end one deeper', () => {
    const { depths, spans } = nest([null, begin('a'), null, begin('b', 'a'), null, end('b'), null, end('a'), null]);
    assert.deepEqual(depths, [0, 0, 1, 1, 2, 2, 1, 1, 0]);
    assert.deepEqual([spans.get('a')?.beginIndex, spans.get('a')?.lastIndex, spans.get('a')?.events, spans.get('a')?.depth], [1, 7, 6, 0]);
    assert.deepEqual([spans.get('b')?.beginIndex, spans.get('b')?.lastIndex, spans.get('b')?.events, spans.get('b')?.depth], [3, 5, 2, 1]);
  });

  it('counts the events that are not bookkeeping apart from all of them', () => {
    const { spans } = nest([begin('a'), { visible: false }, {}, { visible: false }, end('a')]);
    assert.equal(spans.get('a')?.events, 4);
    assert.equal(spans.get('a')?.visibleEvents, 1);
  });

  it('ends a span with no end record at the end of the run, at its last event', () => {
    const { depths, spans } = nest([begin('a'), {}, begin('b', 'a'), {}]);
    assert.deepEqual(depths, [0, 1, 1, 2]);
    assert.deepEqual([spans.get('a')?.lastIndex, spans.get('b')?.lastIndex], [3, 3]);
  });

  it('ends the spans left open inside a span when that span ends', () => {
    const { depths, spans } = nest([begin('a'), begin('b', 'a'), {}, end('a'), {}]);
    assert.deepEqual(depths, [0, 1, 2, 1, 0]);
    assert.deepEqual([spans.get('b')?.lastIndex, spans.get('a')?.lastIndex], [2, 3]);
  });

  it('makes a begin whose parent is an outer span a sibling of the spans still open inside that parent', () => {
    // Interleaved tool spans (a, b both children of s): a ends where b begins; a's late end is an ordinary event.
    const { depths, spans } = nest([begin('s'), begin('a', 's'), {}, begin('b', 's'), end('a'), end('b'), end('s')]);
    assert.deepEqual(depths, [0, 1, 2, 1, 2, 2, 1]);
    assert.deepEqual([spans.get('a')?.lastIndex, spans.get('a')?.depth, spans.get('b')?.depth, spans.get('b')?.lastIndex], [2, 1, 1, 5]);
  });

  it('treats an end of a span that is not open as an ordinary event', () => {
    const { depths, spans } = nest([end('ghost'), begin('a'), end('ghost'), end('a'), end('a')]);
    assert.deepEqual(depths, [0, 0, 1, 1, 0]);
    assert.equal(spans.get('a')?.lastIndex, 3);
    assert.equal(spans.size, 1);
  });

  it('leaves events outside every span at depth 0 and reports no span for a run without markers', () => {
    const { depths, spans } = nest([{}, {}, {}]);
    assert.deepEqual(depths, [0, 0, 0]);
    assert.equal(spans.size, 0);
  });

  it('takes the span time from its begin to the latest time inside it', () => {
    const { spans } = nest([{ ...begin('a') }, { ts: '2025-01-01T00:00:02.000Z' }, { ts: '2025-01-01T00:00:01.000Z' }, end('a')]);
    assert.equal(spans.get('a')?.endedAt, '2025-01-01T00:00:02.000Z');
  });
});

describe('collapsed span ranges', () => {
  it('merges nested and adjacent ranges and drops empty ones', () => {
    assert.deepEqual(
      mergeRanges([
        [10, 12],
        [2, 8],
        [4, 5],
        [9, 9],
        [20, 19],
      ]),
      [[2, 12]],
    );
    assert.deepEqual(
      mergeRanges([
        [5, 6],
        [1, 2],
      ]),
      [
        [1, 2],
        [5, 6],
      ],
    );
    assert.deepEqual(mergeRanges([]), []);
  });

  it('maps positions to the shown list and back around hidden ranges', () => {
    const hidden = mergeRanges([
      [2, 4],
      [8, 8],
    ]);
    // Positions 0 1 [2 3 4] 5 6 7 [8] 9 → shown 0 1 _ _ _ 2 3 4 _ 5
    assert.deepEqual(
      [0, 1, 5, 6, 7, 9].map((position) => shownIndexOf(position, hidden)),
      [0, 1, 2, 3, 4, 5],
    );
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((shown) => positionOfShown(shown, hidden)),
      [0, 1, 5, 6, 7, 9],
    );
    assert.equal(hiddenCount(hidden), 4);
  });

  it('puts an event inside a collapsed span at its header', () => {
    const hidden = mergeRanges([
      [2, 4],
      [8, 8],
    ]);
    assert.equal(shownIndexOf(3, hidden), 1);
    assert.equal(shownIndexOf(8, hidden), 4);
  });

  it('leaves positions unchanged when nothing is collapsed', () => {
    assert.equal(shownIndexOf(7, []), 7);
    assert.equal(positionOfShown(7, []), 7);
  });
});

describe('span time', () => {
  it('starts a span whose begin has no time at its earliest event', () => {
    const { spans } = nest([begin('a'), { ts: '2025-01-01T00:00:03.000Z' }, { ts: '2025-01-01T00:00:01.000Z' }, end('a')]);
    assert.deepEqual([spans.get('a')?.startedAt, spans.get('a')?.endedAt], ['2025-01-01T00:00:01.000Z', '2025-01-01T00:00:03.000Z']);
  });
});

describe('a hostile span log', () => {
  it('reads 100,000 nested spans, never ended, in linear time', { timeout: 5000 }, () => {
    const nesting = new SpanNesting();
    const deep = 100_000;
    for (let index = 0; index < deep; index += 1) {
      const marker: SpanMarker = { kind: 'begin', id: `s${index}`, parentId: index === 0 ? null : `s${index - 1}` };
      assert.equal(nesting.accept({ eventId: index, runIndex: index, visible: true, ts: null, marker }).depth, index);
    }
    const last = nesting.accept({ eventId: deep, runIndex: deep, visible: true, ts: '2025-01-01T00:00:00.000Z' });
    assert.equal(last.depth, deep);
    const open = nesting.openSpans();
    assert.equal(open.length, deep);
    // The outermost holds every later event, and the one time stamp reaches it through the spans inside.
    assert.deepEqual([open[0]?.events, open[0]?.visibleEvents, open[0]?.endedAt], [deep, deep, '2025-01-01T00:00:00.000Z']);
    // An end for the outermost ends them all, innermost first.
    const { ended } = nesting.accept({ eventId: deep + 1, runIndex: deep + 1, visible: false, ts: null, marker: end('s0') });
    assert.equal(ended.length, deep);
    assert.deepEqual([ended.at(-1)?.depth, ended.at(-1)?.events, ended.at(-1)?.visibleEvents], [0, deep + 1, deep]);
  });

  it('keeps a span id begun again while open apart: an end closes the innermost of them', () => {
    const { depths, spans } = nest([begin('x'), { kind: 'begin', id: 'x', parentId: 'x', name: 'x2' }, {}, end('x'), {}, end('x')]);
    assert.deepEqual(depths, [0, 1, 2, 2, 1, 1]);
    assert.deepEqual([spans.get('x2')?.lastIndex, spans.get('x')?.lastIndex], [3, 5]);
  });
});
