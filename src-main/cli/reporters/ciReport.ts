/**
 * What the CI reporters (`analyze --report junit|sarif|github`) read, and what they share. Each
 * reporter is a pure function of the report and these options to the text it prints: no I/O, no
 * clock, no environment — the CLI passes the current directory and the threshold in.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { severityRank, type AnalyzeReport, type ReportFinding, type RunReport, type Severity, type SkippedFile } from '../../../shared/report';

export const reportFormats = ['junit', 'sarif', 'github'] as const;
export type ReportFormat = (typeof reportFormats)[number];

export type FailOn = 'error' | 'warning' | 'never';

/** The analysis report without each run's requests (`analyze` reads its outline): every reporter needs only this. */
export interface CiReport {
  files: AnalyzeReport['files'];
  runs: readonly Omit<RunReport, 'requests'>[];
  findings: readonly ReportFinding[];
  skipped: readonly SkippedFile[];
}

export interface CiReportOptions {
  /** `--fail-on`: findings at or above it fail (JUnit failures, the GitHub summary's verdict). */
  failOn: FailOn;
  /** The directory file paths are made relative to (SARIF and GitHub name files from the repository root). */
  cwd: string;
}

/** The finding fails the analysis at this threshold (exit 1). */
export function reachesFailOn(severity: Severity, failOn: FailOn): boolean {
  return failOn !== 'never' && severityRank[severity] >= severityRank[failOn];
}

/** A path relative to the current directory that leaves it (or is it: a trace is never the directory). */
function outside(fromCwd: string): boolean {
  return fromCwd === '' || fromCwd === '..' || fromCwd.startsWith(`..${sep}`) || isAbsolute(fromCwd);
}

/**
 * A trace path as a relative URI reference with forward slashes, from `cwd` (percent-encoded per
 * segment); a file outside `cwd` is an absolute file:// URI, with `relative: false`.
 */
export function artifactUri(path: string, cwd: string): { uri: string; relative: boolean } {
  const absolute = resolve(cwd, path);
  const fromCwd = relative(cwd, absolute);
  if (outside(fromCwd)) return { uri: pathToFileURL(absolute).href, relative: false };
  return { uri: fromCwd.split(sep).map(encodeURIComponent).join('/'), relative: true };
}

/** A path relative to `cwd` with forward slashes, as GitHub names a file of the repository; unchanged when outside it. */
export function repositoryPath(path: string, cwd: string): string {
  const fromCwd = relative(cwd, resolve(cwd, path));
  if (outside(fromCwd)) return path.split(sep).join('/');
  return fromCwd.split(sep).join('/');
}

export function countBySeverity(findings: readonly ReportFinding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const finding of findings) counts[finding.severity] += 1;
  return counts;
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The tool a finding names in its details (a repeated action, a call missing from the history), if any. */
export function findingTool(finding: ReportFinding): string | null {
  const name = finding.details?.['name'];
  return typeof name === 'string' && name !== '' ? name : null;
}
