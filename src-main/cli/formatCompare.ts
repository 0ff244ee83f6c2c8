/**
 * The terminal rendering of a comparison of two runs: each run's measures with B's difference,
 * the first divergence, then the aligned turns (`=` same, `~` changed, `-` only in A, `+` only in B).
 */
import { comparedMeasures, divergenceSteps, firstDivergence } from '../../shared/compare/comparedMeasures';
import type { CompareReport, ComparedRun } from '../../shared/compare/compareRuns';
import { formatCount } from '../../shared/formatCount';

const ansi = { red: '31', green: '32', yellow: '33', dim: '2', bold: '1' } as const;
const opMarks = { same: '=', changed: '~', removed: '-', inserted: '+' } as const;
/** Width of one side's turn text in the aligned listing. */
const SIDE_CHARS = 56;

/** One turn as a line: its step, then its calls `tool(args…)`, or how the response ended when it called nothing. */
function turnText(run: ComparedRun, index: number | null): string {
  if (index === null) return '';
  const turn = run.turns[index];
  if (turn === undefined) return '';
  const what = turn.calls.length === 0 ? `(${turn.outcome})` : turn.calls.map((call) => `${call.tool}(${call.args})`).join(' · ');
  return cut(`${turn.step}  ${what}`, SIDE_CHARS);
}

/** The text in at most `chars` code points, its end replaced by `…` when cut (a surrogate pair is never split). */
function cut(text: string, chars: number): string {
  const points = Array.from(text);
  return points.length <= chars ? text : `${points.slice(0, chars - 1).join('')}…`;
}

export function formatCompareText(report: CompareReport, options: { color: boolean }): string {
  const paint = (code: string, text: string): string => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const { a, b, alignment } = report;
  const out: string[] = [];
  // Labels in lower case, as the rest of the terminal output writes them.
  const measures = [
    {
      label: 'status',
      a: a.status_raw === a.status ? a.status : `${a.status} (${a.status_raw})`,
      b: b.status_raw === b.status ? b.status : `${b.status} (${b.status_raw})`,
      change: a.status === b.status ? 'same' : 'changed',
    },
    ...comparedMeasures(report).map((measure) => ({ ...measure, label: measure.label.toLowerCase() })),
  ];
  out.push(`${paint(ansi.bold, 'A')}  ${a.file}#${a.run_id}`, `${paint(ansi.bold, 'B')}  ${b.file}#${b.run_id}`, '');
  const labelWidth = Math.max(...measures.map((measure) => measure.label.length));
  const valueWidth = Math.max(...measures.map((measure) => measure.a.length), 1);
  out.push(paint(ansi.dim, `${''.padEnd(labelWidth)}  ${'A'.padEnd(valueWidth)}  B  (B − A)`));
  for (const measure of measures)
    out.push(`${measure.label.padEnd(labelWidth)}  ${measure.a.padEnd(valueWidth)}  ${measure.b}  ${paint(ansi.dim, `(${measure.change})`)}`);
  out.push('');

  const divergence = firstDivergence(report);
  if (divergence === null) {
    out.push(paint(ansi.green, `The runs take the same ${formatCount(alignment.rows.length)} turns.`));
  } else {
    const what = { changed: 'does something different', removed: 'B has no turn for this', inserted: 'B takes a turn A does not', same: '' }[divergence.row.op];
    out.push(paint(ansi.yellow, `First divergence: ${divergenceSteps(divergence).join(', ')}: ${what}.`));
  }
  out.push(paint(ansi.dim, `Similarity ${(alignment.similarity * 100).toFixed(0)} % over ${formatCount(alignment.rows.length)} aligned turns.`), '');

  out.push(paint(ansi.dim, `${'A'.padEnd(SIDE_CHARS)}     B`));
  alignment.rows.forEach((row, index) => {
    const mark = opMarks[row.op];
    const line = `${turnText(a, row.a).padEnd(SIDE_CHARS)}  ${mark}  ${turnText(b, row.b)}`;
    const color = row.op === 'same' ? ansi.dim : row.op === 'removed' ? ansi.red : row.op === 'inserted' ? ansi.green : ansi.yellow;
    out.push(paint(index === alignment.first_divergence ? ansi.bold : color, line));
  });
  return `${out.join('\n')}\n`;
}
