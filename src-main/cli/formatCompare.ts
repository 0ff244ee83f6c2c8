/**
 * The terminal rendering of a comparison of two runs: each run's measures with B's difference,
 * the first divergence, then the aligned turns (`=` same, `~` changed, `-` only in A, `+` only in B).
 */
import type { CompareReport, ComparedRun } from '../../shared/compare/compareRuns';
import { formatCount } from '../../shared/formatCount';
import { formatDuration } from '../../shared/formatDuration';

const ansi = { red: '31', green: '32', yellow: '33', dim: '2', bold: '1' } as const;
const opMarks = { same: '=', changed: '~', removed: '-', inserted: '+' } as const;
/** Width of one side's turn text in the aligned listing. */
const SIDE_CHARS = 56;

function signed(value: number | null, format: (magnitude: number) => string): string {
  if (value === null) return '?';
  if (value === 0) return '±0';
  return `${value > 0 ? '+' : '−'}${format(Math.abs(value))}`;
}

const dollars = (value: number): string => `$${value.toFixed(value < 1 ? 4 : 2)}`;

function findingTotal(run: ComparedRun): number {
  return run.findings.error + run.findings.warning + run.findings.info;
}

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
  const { a, b, delta, alignment } = report;
  const out: string[] = [];
  const measures: [string, (run: ComparedRun) => string, string][] = [
    ['status', (run) => (run.status_raw === run.status ? run.status : `${run.status} (${run.status_raw})`), a.status === b.status ? 'same' : 'changed'],
    ['findings', (run) => formatCount(findingTotal(run)), signed(delta.findings, formatCount)],
    ['steps', (run) => formatCount(run.steps), signed(delta.steps, formatCount)],
    ['tool calls', (run) => formatCount(run.tool_calls), signed(delta.tool_calls, formatCount)],
    ['input tokens', (run) => (run.input_tokens === null ? '?' : formatCount(run.input_tokens)), signed(delta.input_tokens, formatCount)],
    ['output tokens', (run) => (run.output_tokens === null ? '?' : formatCount(run.output_tokens)), signed(delta.output_tokens, formatCount)],
    ['cost (recorded)', (run) => (run.cost_usd === null ? 'not recorded' : dollars(run.cost_usd)), signed(delta.cost_usd, dollars)],
    ['duration', (run) => formatDuration(run.duration_ms, '?'), signed(delta.duration_ms, formatDuration)],
  ];
  out.push(`${paint(ansi.bold, 'A')}  ${a.file}#${a.run_id}`, `${paint(ansi.bold, 'B')}  ${b.file}#${b.run_id}`, '');
  const labelWidth = Math.max(...measures.map(([label]) => label.length));
  const aValues = measures.map(([, value]) => value(a));
  const valueWidth = Math.max(...aValues.map((text) => text.length), 1);
  out.push(paint(ansi.dim, `${''.padEnd(labelWidth)}  ${'A'.padEnd(valueWidth)}  B  (B − A)`));
  measures.forEach(([label, value, change], index) => {
    out.push(`${label.padEnd(labelWidth)}  ${aValues[index]!.padEnd(valueWidth)}  ${value(b)}  ${paint(ansi.dim, `(${change})`)}`);
  });
  out.push('');

  const divergence = alignment.first_divergence === null ? undefined : alignment.rows[alignment.first_divergence];
  if (divergence === undefined) {
    out.push(paint(ansi.green, `The runs take the same ${formatCount(alignment.rows.length)} turns.`));
  } else {
    const where = [
      divergence.a === null ? null : `A step ${a.turns[divergence.a]!.step}`,
      divergence.b === null ? null : `B step ${b.turns[divergence.b]!.step}`,
    ]
      .filter((part) => part !== null)
      .join(', ');
    const what = { changed: 'does something different', removed: 'B has no turn for this', inserted: 'B takes a turn A does not', same: '' }[divergence.op];
    out.push(paint(ansi.yellow, `First divergence: ${where}: ${what}.`));
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
