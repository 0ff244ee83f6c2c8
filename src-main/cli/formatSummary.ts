/** The terminal rendering of `analyze --summary`: what the runs add up to, then the report's totals. */
import type { AnalyzeReport } from '../../shared/report';
import type { Distribution, RunsSummary } from '../../shared/summary/runsSummary';
import { formatCount } from '../../shared/formatCount';
import { formatDuration } from '../../shared/formatDuration';
import { formatUsd } from '../../shared/formatUsd';

const ansi = { yellow: '33', dim: '2', bold: '1' } as const;

function plural(count: number, word: string): string {
  return `${formatCount(count)} ${word}${count === 1 ? '' : 's'}`;
}

const percent = (share: number): string => `${(share * 100).toFixed(share < 0.1 && share > 0 ? 1 : 0)} %`;

/** A column of right-aligned cells under a left-aligned first column. */
function table(rows: readonly (readonly string[])[], indent = '  '): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => indent + row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  '));
}

function spread(name: string, d: Distribution, format: (value: number) => string, of: number): string[] {
  if (d.runs === 0) return [name, '—', '—', '—', '—', `none of ${formatCount(of)} runs records it`];
  return [
    name,
    format(d.p50!),
    format(d.p95!),
    format(d.max!),
    format(d.total),
    d.runs === of ? '' : `${formatCount(d.runs)} of ${formatCount(of)} runs record it`,
  ];
}

export function formatSummaryText(summary: RunsSummary, report: AnalyzeReport, options: { color: boolean }): string {
  const paint = (code: string, text: string): string => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const out: string[] = [];
  const parseErrors = report.files.reduce((sum, file) => sum + file.parse_errors.length, 0);
  out.push(
    paint(ansi.bold, `${plural(summary.runs, 'run')} in ${plural(report.files.length, 'file')}`) +
      paint(ansi.dim, `${report.skipped.length > 0 ? ` · ${formatCount(report.skipped.length)} skipped` : ''} · ${plural(parseErrors, 'parse error')}`),
    '',
  );

  out.push(
    paint(ansi.bold, 'Runs by status'),
    ...table(summary.by_status.map((row) => [row.status, formatCount(row.runs), percent(row.runs / Math.max(1, summary.runs))])),
    '',
  );

  if (summary.findings.length > 0) {
    out.push(
      paint(ansi.bold, 'Findings by kind'),
      ...table([['kind', 'runs', 'findings'], ...summary.findings.map((row) => [row.kind, formatCount(row.runs), formatCount(row.findings)])]),
      '',
    );
    out.push(paint(ansi.bold, 'Failure signatures, most runs first'));
    for (const signature of summary.signatures) {
      const who = signature.tool === null ? signature.kind : `${signature.kind} · ${signature.tool}`;
      out.push(
        `  ${paint(ansi.yellow, `${plural(signature.runs, 'run')} (${percent(signature.share)})`)} · ${plural(signature.findings, 'finding')}  ${who}`,
        `      ${signature.text}`,
        paint(
          ansi.dim,
          `      e.g. ${signature.example.file}${signature.example.run_id === null ? '' : `#${signature.example.run_id}`}${signature.example.line === null ? '' : `, line ${signature.example.line}`}` +
            (signature.first_seen === null ? '' : ` · first ${signature.first_seen}, last ${signature.last_seen}`),
        ),
      );
    }
    if (summary.more_signatures > 0)
      out.push(paint(ansi.dim, `  … and ${plural(summary.more_signatures, 'more signature')} (--json lists the first ${summary.signatures.length})`));
    out.push('');
  }

  if (summary.tools.length > 0) {
    const ms = (value: number | null): string => (value === null ? '—' : formatDuration(value));
    out.push(
      paint(ansi.bold, 'Tools'),
      ...table([
        ['tool', 'calls', 'errors', 'error rate', 'p50', 'p95'],
        ...summary.tools.map((tool) => [
          tool.name,
          formatCount(tool.calls),
          formatCount(tool.errors),
          percent(tool.error_rate),
          ms(tool.p50_ms),
          ms(tool.p95_ms),
        ]),
      ]),
      '',
    );
  }

  out.push(
    paint(ansi.bold, 'Per run'),
    ...table([
      ['', 'p50', 'p95', 'max', 'total', ''],
      spread('input tokens', summary.input_tokens, formatCount, summary.runs),
      spread('output tokens', summary.output_tokens, formatCount, summary.runs),
      spread('cost', summary.cost_usd, formatUsd, summary.runs),
      spread('duration', summary.duration_ms, formatDuration, summary.runs),
    ]).map((line) => line.trimEnd()),
  );
  return `${out.join('\n')}\n`;
}
