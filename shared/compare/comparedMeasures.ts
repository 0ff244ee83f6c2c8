/**
 * A comparison of two runs as both its readers show it, the terminal (`loopscope compare`) and the
 * app (CompareView.tsx): each measure of A and B as text with B − A, and the steps of the first
 * divergence. Each reader words its own sentences around these.
 */
import { formatCount } from '../formatCount';
import { formatDuration } from '../formatDuration';
import { formatUsd } from '../formatUsd';
import { findingTotal, type CompareReport, type ComparedRun } from './compareRuns';

export interface ComparedMeasure {
  label: string;
  a: string;
  b: string;
  /** B − A with its sign: `+1`, `−2,000`, `±0`; `?` where either run does not record the measure. */
  change: string;
}

/** A signed difference; `?` when unknown. */
export function formatChange(value: number | null, format: (magnitude: number) => string): string {
  if (value === null) return '?';
  if (value === 0) return '±0';
  return `${value > 0 ? '+' : '−'}${format(Math.abs(value))}`;
}

const orDash = (value: number | null, format: (value: number) => string): string => (value === null ? '—' : format(value));

/** Findings, steps, tool calls, tokens, cost (docs/semantics.md §19) and duration; the status is left to each reader (a badge in the app). */
export function comparedMeasures(report: CompareReport): ComparedMeasure[] {
  const { a, b, delta } = report;
  const measure = (label: string, value: (run: ComparedRun) => string, change: string): ComparedMeasure => ({ label, a: value(a), b: value(b), change });
  return [
    measure('Findings', (run) => formatCount(findingTotal(run.findings)), formatChange(delta.findings, formatCount)),
    measure('Steps', (run) => formatCount(run.steps), formatChange(delta.steps, formatCount)),
    measure('Tool calls', (run) => formatCount(run.tool_calls), formatChange(delta.tool_calls, formatCount)),
    measure('Input tokens', (run) => orDash(run.input_tokens, formatCount), formatChange(delta.input_tokens, formatCount)),
    measure('Output tokens', (run) => orDash(run.output_tokens, formatCount), formatChange(delta.output_tokens, formatCount)),
    measure('Cost', (run) => (run.cost_usd === null ? 'no price' : formatUsd(run.cost_usd)), formatChange(delta.cost_usd, formatUsd)),
    measure('Duration', (run) => orDash(run.duration_ms, formatDuration), formatChange(delta.duration_ms, formatDuration)),
  ];
}

type ComparedTurn = ComparedRun['turns'][number];

export interface DivergencePlace {
  /** The aligned row where it happens (its op: changed, removed or inserted). */
  row: CompareReport['alignment']['rows'][number];
  /** Each run's turn there; null for the run without one. */
  turnA: ComparedTurn | null;
  turnB: ComparedTurn | null;
}

/** Where B first did something different from A; null when the runs take the same turns. */
export function firstDivergence(report: CompareReport): DivergencePlace | null {
  const { alignment, a, b } = report;
  const row = alignment.first_divergence === null ? undefined : alignment.rows[alignment.first_divergence];
  if (row === undefined) return null;
  const turnOf = (run: ComparedRun, index: number | null): ComparedTurn | null => (index === null ? null : (run.turns[index] ?? null));
  return { row, turnA: turnOf(a, row.a), turnB: turnOf(b, row.b) };
}

/** "A step 2", "B step 3": the steps of a divergence, those the runs have. */
export function divergenceSteps(place: DivergencePlace): string[] {
  return [place.turnA === null ? null : `A step ${place.turnA.step}`, place.turnB === null ? null : `B step ${place.turnB.step}`].filter(
    (side) => side !== null,
  );
}
