/**
 * `analyze --report github`: the findings as GitHub Actions workflow commands, which the runner turns
 * into annotations on the trace files: one line per finding, whatever its severity — `::error`,
 * `::warning` or `::notice` (info) — then a plain summary line. `--fail-on` decides the exit code
 * and the summary's verdict, not which findings are annotated.
 *
 *   ::error file=traces/a.jsonl,line=12,title=loopscope dangling_call (run r1)::call … never received a result
 *
 * Escaping follows @actions/core (toCommandValue/escapeData/escapeProperty): in the message `%`,
 * CR and LF are percent-encoded; in a property also `:` and `,`. So a finding's text can never end
 * the command or start another one.
 */
import type { FindingKind, Severity } from '../../../shared/report';
import { countBySeverity, plural, reachesFailOn, repositoryPath, type CiReport, type CiReportOptions } from './ciReport';
import { findingRules } from './findingRules';

const commands: Readonly<Record<Severity, string>> = { error: 'error', warning: 'warning', info: 'notice' };

export function escapeCommandData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeCommandProperty(value: string): string {
  return escapeCommandData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function command(name: string, properties: Record<string, string | number | undefined>, message: string): string {
  const props = Object.entries(properties)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${escapeCommandProperty(String(value))}`)
    .join(',');
  return `::${name}${props !== '' ? ` ${props}` : ''}::${escapeCommandData(message)}`;
}

/** What the runs came to, and whether --fail-on fails the step: the last line. */
function summaryLine(report: CiReport, options: CiReportOptions): string {
  const counts = countBySeverity(report.findings);
  const parseErrors = report.files.reduce((sum, file) => sum + file.parse_errors.length, 0);
  const failing = report.findings.filter((finding) => reachesFailOn(finding.severity, options.failOn)).length;
  const verdict =
    options.failOn === 'never'
      ? 'never fails (--fail-on never)'
      : failing > 0
        ? `fails: ${plural(failing, 'finding')} at or above ${options.failOn}`
        : 'passes';
  const skipped = report.skipped.length > 0 ? `, ${plural(report.skipped.length, 'file')} skipped` : '';
  return `loopscope: ${plural(report.runs.length, 'run')} in ${plural(report.files.length, 'file')}${skipped}: ${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')}, ${counts.info} info; ${plural(parseErrors, 'parse error')}; ${verdict}`;
}

export function formatGithubAnnotations(report: CiReport, options: CiReportOptions): string {
  const lines = report.findings.map((finding) =>
    command(
      commands[finding.severity],
      {
        file: repositoryPath(finding.file, options.cwd),
        line: finding.line !== null && finding.line >= 1 ? finding.line : undefined,
        title: `loopscope ${finding.kind}${finding.run_id !== null ? ` (run ${finding.run_id})` : ''}`,
      },
      finding.message,
    ),
  );
  return `${[...lines, summaryLine(report, options)].join('\n')}\n`;
}

/** A Markdown table cell: pipes escaped, lines joined, HTML not interpreted. */
function cell(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|');
}

/**
 * The job summary ($GITHUB_STEP_SUMMARY, appended by the CLI): the summary line, and the findings by
 * kind and severity with how many runs they are in. Small on purpose: the annotations carry the rest.
 */
export function formatGithubStepSummary(report: CiReport, options: CiReportOptions): string {
  const groups = new Map<string, { kind: FindingKind; severity: Severity; findings: number; runs: Set<string> }>();
  for (const finding of report.findings) {
    const key = `${finding.kind}\u0000${finding.severity}`;
    const group = groups.get(key) ?? { kind: finding.kind, severity: finding.severity, findings: 0, runs: new Set<string>() };
    group.findings += 1;
    if (finding.run_id !== null) group.runs.add(`${finding.file}\u0000${finding.run_id}`);
    groups.set(key, group);
  }
  const rank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
  const rows = [...groups.values()].sort((a, b) => rank[a.severity] - rank[b.severity] || b.findings - a.findings || (a.kind < b.kind ? -1 : 1));
  const out = ['### Loopscope', '', cell(summaryLine(report, options).replace(/^loopscope: /, ''))];
  if (rows.length > 0) {
    out.push('', '| severity | finding | findings | runs | meaning |', '|---|---|--:|--:|---|');
    for (const row of rows) {
      out.push(`| ${row.severity} | \`${row.kind}\` | ${row.findings} | ${row.runs.size} | ${cell(findingRules[row.kind].short)} |`);
    }
  }
  return `${out.join('\n')}\n\n`;
}
