/** The terminal rendering of an analyze report: one block per run, then parse errors, then a summary. */
import type { AnalyzeReport, ReportFinding, RequestReport, RunReport, Severity } from '../../shared/report';
import { formatCount } from '../../shared/formatCount';
import { formatDuration } from '../../shared/formatDuration';

const ansi = { red: '31', yellow: '33', cyan: '36', dim: '2', bold: '1' } as const;

function formatTokens(value: number | null): string {
  return value === null ? '?' : formatCount(value);
}

function plural(count: number, word: string): string {
  return `${formatCount(count)} ${word}${count === 1 ? '' : 's'}`;
}

export function formatTextReport(report: AnalyzeReport, options: { color: boolean }): string {
  const paint = (code: string, text: string): string => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const severityColor: Record<Severity, string> = { error: ansi.red, warning: ansi.yellow, info: ansi.cyan };
  const out: string[] = [];

  // A finding of no run (a secret on a line that is no event) is listed with its file, after the runs.
  const runKey = (file: string, runId: string | null): string => `${file}\u0000${runId ?? ''}`;
  const findingsByRun = new Map<string, ReportFinding[]>();
  for (const f of report.findings) {
    const key = runKey(f.file, f.run_id);
    findingsByRun.set(key, [...(findingsByRun.get(key) ?? []), f]);
  }

  for (const file of report.files) {
    out.push(
      paint(ansi.bold, file.path) +
        paint(
          ansi.dim,
          `  ${file.format} · ${plural(file.lines, 'line')} · ${plural(file.events, 'event')} · ${plural(file.parse_errors.length, 'parse error')}`,
        ),
    );
    const runs = report.runs.filter((run) => run.file === file.path);
    for (const run of runs) out.push('', ...formatRun(run, findingsByRun.get(runKey(run.file, run.run_id)) ?? [], paint, severityColor));
    const outsideRuns = report.findings.filter((f) => f.file === file.path && f.run_id === null);
    if (outsideRuns.length > 0) out.push('', paint(ansi.bold, 'findings outside any run'), ...formatFindings(outsideRuns, paint, severityColor));
    if (file.parse_errors.length > 0) {
      out.push('', paint(ansi.bold, 'parse errors'));
      for (const error of file.parse_errors) {
        out.push(`  ${paint(error.loaded ? ansi.yellow : ansi.red, `line ${error.line}`)} ${paint(ansi.dim, `(byte ${error.offset})`)}  ${error.message}`);
        if (error.excerpt !== '') out.push(`      ${paint(ansi.dim, error.excerpt)}`);
      }
    }
    out.push('');
  }

  for (const file of report.skipped) out.push(paint(ansi.dim, `skipped ${file.path}: ${file.reason}`));
  if (report.skipped.length > 0) out.push('');

  const bySeverity = { error: 0, warning: 0, info: 0 };
  for (const f of report.findings) bySeverity[f.severity] += 1;
  const parseErrors = report.files.reduce((sum, file) => sum + file.parse_errors.length, 0);
  out.push(
    `${plural(report.runs.length, 'run')}: ${paint(ansi.red, plural(bySeverity.error, 'error'))}, ${paint(ansi.yellow, plural(bySeverity.warning, 'warning'))}, ${formatCount(bySeverity.info)} info; ${plural(parseErrors, 'parse error')}`,
  );
  return `${out.join('\n')}\n`;
}

/** "request 3" / "requests 3, 7". */
function requestNumbers(requests: readonly RequestReport[]): string {
  return `request${requests.length === 1 ? '' : 's'} ${requests.map((request) => request.index + 1).join(', ')}`;
}

/**
 * The run's requests in a line: how many, what broke the prompt cache (a compaction, another
 * rewrite, a changed system prompt or tool set) or append-only when nothing did, and how the
 * input grew (docs/semantics.md §9).
 */
function requestsFact(requests: readonly RequestReport[]): string | null {
  if (requests.length === 0) return null;
  const kind = requests.every((request) => request.reconstructed) ? 'reconstructed' : 'logged';
  const compacted = requests.filter((request) => request.compaction !== null);
  const rewritten = requests.filter((request) => request.rewrite !== null && request.compaction === null);
  const prefixChanged = requests.filter((request) => request.prefix_change !== null);
  const removed = compacted.reduce((sum, request) => sum + (request.compaction?.tokens_removed ?? 0), 0);
  const changes = [
    compacted.length > 0 && `history compacted before ${requestNumbers(compacted)}${removed > 0 ? ` (−${formatTokens(removed)} tokens)` : ''}`,
    rewritten.length > 0 && `history rewritten in ${requestNumbers(rewritten)}`,
    prefixChanged.length > 0 && `system prompt or tools changed in ${requestNumbers(prefixChanged)}`,
  ].filter((change): change is string => change !== false);
  const history = changes.length === 0 ? 'append-only' : changes.join(' · ');
  const tokens = (request: RequestReport): string =>
    request.input_tokens === null ? '?' : `${formatTokens(request.input_tokens)}${request.input_tokens_source === 'estimated' ? ' (est.)' : ''}`;
  const growth = requests.length === 1 ? `input ${tokens(requests[0]!)} tokens` : `input ${tokens(requests[0]!)} → ${tokens(requests.at(-1)!)} tokens`;
  return `${plural(requests.length, 'request')} (${kind}) · ${history} · ${growth}`;
}

function formatRun(
  run: RunReport,
  findings: ReportFinding[],
  paint: (code: string, text: string) => string,
  severityColor: Record<Severity, string>,
): string[] {
  const raw = run.status_raw !== '' && run.status_raw !== run.status ? ` (${run.status_raw})` : '';
  const tokens =
    run.input_tokens === null && run.output_tokens === null ? null : `${formatTokens(run.input_tokens)} in / ${formatTokens(run.output_tokens)} out tokens`;
  const facts = [
    plural(run.steps, 'step'),
    plural(run.tool_calls, 'tool call'),
    plural(run.tool_results, 'result'),
    tokens,
    formatDuration(run.duration_ms, null),
    `lines ${run.first_line}–${run.last_line}`,
  ].filter((fact): fact is string => fact !== null);
  const lines = [`${paint(ansi.bold, `run ${run.run_id}`)}  ${run.status}${raw}`];
  if (run.parent !== undefined) {
    lines.push(`  ${paint(ansi.dim, `started by run ${run.parent.run_id}${run.parent.call_id !== null ? `, call ${run.parent.call_id}` : ''}`)}`);
  }
  lines.push(`  ${paint(ansi.dim, facts.join(' · '))}`);
  const requests = requestsFact(run.requests);
  if (requests !== null) lines.push(`  ${paint(ansi.dim, requests)}`);
  lines.push(...formatFindings(findings, paint, severityColor));
  if (findings.length === 0) lines.push(`  ${paint(ansi.dim, 'no findings')}`);
  return lines;
}

function formatFindings(findings: readonly ReportFinding[], paint: (code: string, text: string) => string, severityColor: Record<Severity, string>): string[] {
  // Kinds padded to the longest among the findings, so their messages line up.
  const kindWidth = Math.max(0, ...findings.map((f) => f.kind.length));
  return findings.map((f) => {
    const where = [f.step !== null ? `step ${f.step}` : null, f.line !== null ? `line ${f.line}` : null].filter(Boolean).join(', ');
    return `  ${paint(severityColor[f.severity], f.severity.padEnd(7))} ${f.kind.padEnd(kindWidth)} ${paint(ansi.dim, where.padEnd(18))} ${f.message}`;
  });
}
