/**
 * Which labels an axis can show without overlapping: pure, so the rule is tested apart from the
 * SVG (test/renderer/charts/axisLabels.test.ts). A chart of 286 requests in 900 px has 3 px per request:
 * numbering every request would print a smear, so the numbers step by a round interval that fits,
 * and a few labels that matter more (the largest growth) are placed first and win any overlap.
 */

/** Round steps between numbered ticks: 1, 2, 5, 10, 20, 50, 100, … */
function* roundSteps(): Generator<number> {
  for (let power = 1; ; power *= 10) for (const factor of [1, 2, 5]) yield factor * power;
}

/**
 * The smallest round step whose labels fit: with `band` px per item, a label `labelWidth` px wide
 * plus `gap` px between neighbours needs `step × band ≥ labelWidth + gap`.
 */
export function tickStep(band: number, labelWidth: number, gap: number): number {
  const needed = labelWidth + gap;
  for (const step of roundSteps()) if (step * band >= needed || step >= 1e9) return step;
  return 1;
}

export interface LabelCandidate {
  /** The label's centre, px. */
  x: number;
  width: number;
}

/**
 * Places labels in the order given (most important first), each only if it keeps `gap` px from
 * every label already placed and stays within [min, max]. Returns the indices placed, ascending.
 */
export function placeLabels(candidates: readonly LabelCandidate[], gap: number, bounds: { min: number; max: number }): number[] {
  const placed: { left: number; right: number }[] = [];
  const kept: number[] = [];
  candidates.forEach((candidate, index) => {
    const left = candidate.x - candidate.width / 2;
    const right = candidate.x + candidate.width / 2;
    if (left < bounds.min || right > bounds.max) return;
    if (placed.some((other) => left < other.right + gap && right > other.left - gap)) return;
    placed.push({ left, right });
    kept.push(index);
  });
  return kept.sort((a, b) => a - b);
}

/**
 * The x labels of `count` items in `width` px (item k centred at (k + ½) × band), numbered from
 * 1: the `priority` items first (0-based positions, in rank order), then 1 and every multiple of
 * the round step that fits. Returns the 0-based positions to label, ascending.
 */
export function axisLabelPositions(count: number, width: number, options: { charWidth: number; gap: number; priority?: readonly number[] }): number[] {
  if (count <= 0 || width <= 0) return [];
  const band = width / count;
  const labelWidth = (position: number) => String(position + 1).length * options.charWidth;
  const step = tickStep(band, labelWidth(count - 1), options.gap);
  const order: number[] = [];
  const seen = new Set<number>();
  const add = (position: number) => {
    if (position < 0 || position >= count || seen.has(position)) return;
    seen.add(position);
    order.push(position);
  };
  for (const position of options.priority ?? []) add(position);
  add(0);
  for (let number = step; number <= count; number += step) add(number - 1);
  // Half a label may hang over the plot's edges (a chart keeps margins for it).
  const overhang = labelWidth(count - 1) / 2;
  const candidates = order.map((position) => ({ x: (position + 0.5) * band, width: labelWidth(position) }));
  return placeLabels(candidates, options.gap, { min: -overhang, max: width + overhang })
    .map((index) => order[index]!)
    .sort((a, b) => a - b);
}

/** Steps whose multiples read as round numbers at any power of ten: 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8. */
const roundTickSteps = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8];

/**
 * The top of a value axis with `intervals` grid lines above zero, each at a round step (so the
 * tick labels read 6k, 12k, 18k, 24k, not 6.3k, 13k, 19k): the smallest intervals × step ≥ value.
 * Counts are whole: a step is at least 1.
 */
export function roundAxisMax(value: number, intervals: number): number {
  if (!(value > intervals)) return intervals;
  const needed = value / intervals;
  const power = 10 ** Math.floor(Math.log10(needed));
  const step = roundTickSteps.map((factor) => factor * power).find((candidate) => candidate >= needed) ?? 10 * power;
  return step * intervals;
}
