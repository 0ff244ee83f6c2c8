/** The CI reporters of `analyze --report FORMAT`: each a pure function of the report to the text printed. */
import type { CiReport, CiReportOptions, ReportFormat } from './ciReport';
import { formatGithubAnnotations } from './githubAnnotations';
import { formatJunitReport } from './junit';
import { formatSarifReport, type SarifToolInfo } from './sarif';

export { reportFormats, type CiReport, type CiReportOptions, type ReportFormat } from './ciReport';
export { formatGithubStepSummary } from './githubAnnotations';

export function formatCiReport(format: ReportFormat, report: CiReport, options: CiReportOptions, tool: SarifToolInfo): string {
  if (format === 'junit') return formatJunitReport(report, options);
  if (format === 'sarif') return formatSarifReport(report, options, tool);
  return formatGithubAnnotations(report, options);
}
