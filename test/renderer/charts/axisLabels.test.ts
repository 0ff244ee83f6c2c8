/** The growth chart's x labels: thinned to a round step that fits, the important ones first, never overlapping. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { axisLabelPositions, placeLabels, roundAxisMax, tickStep } from '../../../src-renderer/charts/axisLabels';

const charWidth = 7;
const gap = 6;

/** No two labels closer than `gap` px: each needs its own width plus the gap. */
function assertNoOverlap(positions: readonly number[], count: number, width: number) {
  const band = width / count;
  for (let i = 1; i < positions.length; i += 1) {
    const [a, b] = [positions[i - 1]!, positions[i]!];
    const room = (b - a) * band;
    const needed = (String(a + 1).length * charWidth) / 2 + (String(b + 1).length * charWidth) / 2 + gap;
    assert.ok(room >= needed, `labels ${a + 1} and ${b + 1} overlap: ${room.toFixed(1)} px apart, ${needed} needed`);
  }
}

describe('axis labels', () => {
  it('the step is the smallest of 1, 2, 5, 10, 20, 50… that fits', () => {
    assert.equal(tickStep(40, 21, 6), 1);
    assert.equal(tickStep(20, 21, 6), 2);
    assert.equal(tickStep(3, 21, 6), 10);
    assert.equal(tickStep(1, 21, 6), 50);
  });

  it('labels every request when there is room', () => {
    assert.deepEqual(axisLabelPositions(10, 900, { charWidth, gap }), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('139 requests in 900 px: 1 and every 5th (a round step), none overlapping', () => {
    const positions = axisLabelPositions(139, 900, { charWidth, gap });
    assert.deepEqual(positions.slice(0, 4), [0, 4, 9, 14]);
    assertNoOverlap(positions, 139, 900);
  });

  it('286 requests at 1024 px and at 1440 px: thinned, none overlapping', () => {
    for (const width of [560, 900, 1300]) {
      const positions = axisLabelPositions(286, width, { charWidth, gap });
      assert.ok(positions.length >= 5 && positions.length < 286 / 2, `${positions.length} labels at ${width} px`);
      assertNoOverlap(positions, 286, width);
    }
  });

  it('a priority label is always shown, and the round ticks that would touch it give way', () => {
    const positions = axisLabelPositions(286, 900, { charWidth, gap, priority: [136] });
    assert.ok(positions.includes(136), 'request 137 is labelled');
    assert.ok(!positions.includes(139), 'request 140 would overlap 137: dropped');
    assertNoOverlap(positions, 286, 900);
  });

  it('of two priority labels that overlap, the first in rank wins', () => {
    assert.deepEqual(
      placeLabels(
        [
          { x: 100, width: 20 },
          { x: 110, width: 20 },
          { x: 200, width: 20 },
        ],
        4,
        { min: 0, max: 300 },
      ),
      [0, 2],
    );
    assert.deepEqual(
      placeLabels(
        [
          { x: 110, width: 20 },
          { x: 100, width: 20 },
        ],
        4,
        { min: 0, max: 300 },
      ),
      [0],
    );
  });

  it('a label outside the bounds is not placed; nothing to place gives nothing', () => {
    assert.deepEqual(placeLabels([{ x: 5, width: 20 }], 4, { min: 0, max: 300 }), []);
    assert.deepEqual(axisLabelPositions(0, 900, { charWidth, gap }), []);
    assert.deepEqual(axisLabelPositions(5, 0, { charWidth, gap }), []);
  });

  it('a value axis tops out at four round steps at or above the largest value', () => {
    assert.equal(roundAxisMax(22_000, 4), 24_000, 'ticks 6k, 12k, 18k, 24k');
    assert.equal(roundAxisMax(25_000, 4), 32_000);
    assert.equal(roundAxisMax(9_000, 4), 10_000, 'ticks 2.5k, 5k, 7.5k, 10k');
    assert.equal(roundAxisMax(200_000, 4), 200_000);
    assert.equal(roundAxisMax(3, 4), 4, 'whole counts: a step of at least 1');
    assert.equal(roundAxisMax(0, 4), 4, 'nothing to show: a unit per interval');
  });
});
