/**
 * `analyze --report sarif`: the report as SARIF 2.1.0, the format GitHub code scanning (and other
 * static-analysis dashboards) ingest. One run of the tool `loopscope`, a rule per finding kind
 * present, and a result per finding, located at its trace file (relative to the current
 * directory, under %SRCROOT%) and line, with the run it belongs to as a logical location.
 *
 * Each result has a partial fingerprint that stays the same from one eval to the next while the
 * failure does: its failure signature (docs/semantics.md §15: the kind and the message with its ids,
 * numbers and paths masked), the file, and which occurrence of that signature in the file it is —
 * not the run id or line, which change with every run of a loop.
 */
import { createHash } from 'node:crypto';
import { findingSubject } from '../../../shared/summary/runsSummary';
import { signatureOf } from '../../../shared/signatures/failureSignature';
import type { FindingKind, ReportFinding, Severity } from '../../../shared/report';
import { artifactUri, findingTool, type CiReport, type CiReportOptions } from './ciReport';
import { findingRules, findingsReferencePath } from './findingRules';

export const sarifSchemaUri = 'https://json.schemastore.org/sarif-2.1.0.json';

export interface SarifToolInfo {
  version: string;
  /** The project's home page (package.json `homepage`); without it, rules carry no helpUri. */
  homepage?: string | undefined;
}

type SarifLevel = 'error' | 'warning' | 'note';

const levels: Readonly<Record<Severity, SarifLevel>> = { error: 'error', warning: 'warning', info: 'note' };

/** The key of `partialFingerprints`: versioned, so that a change of how it is made starts new alerts rather than mismatching old ones. */
export const fingerprintKey = 'loopscopeFailureSignature/v1';

function fingerprint(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/** `homepage` + `path#anchor`, for a home page with or without a trailing slash. */
function under(homepage: string, path: string): string {
  return `${homepage.replace(/\/+$/, '')}/${path}`;
}

function rule(kind: FindingKind, tool: SarifToolInfo): Record<string, unknown> {
  const described = findingRules[kind];
  return {
    id: kind,
    name: described.name,
    shortDescription: { text: described.short },
    fullDescription: { text: described.full },
    defaultConfiguration: { level: levels[described.defaultSeverity] },
    help: { text: `${described.full} Exactly when it fires and when it does not: Loopscope's docs/semantics.md, §12 Findings reference.` },
    ...(tool.homepage !== undefined ? { helpUri: under(tool.homepage, findingsReferencePath) } : {}),
    properties: { tags: ['agent-loop', ...(kind === 'secret_in_trace' ? ['security'] : [])] },
  };
}

function location(finding: ReportFinding, options: CiReportOptions): Record<string, unknown> {
  const { uri, relative } = artifactUri(finding.file, options.cwd);
  return {
    physicalLocation: {
      artifactLocation: { uri, ...(relative ? { uriBaseId: '%SRCROOT%' } : {}) },
      ...(finding.line !== null && finding.line >= 1 ? { region: { startLine: finding.line } } : {}),
    },
    ...(finding.run_id !== null
      ? { logicalLocations: [{ name: finding.run_id, fullyQualifiedName: `${finding.file}#${finding.run_id}`, kind: 'object' }] }
      : {}),
  };
}

export function formatSarifReport(report: CiReport, options: CiReportOptions, tool: SarifToolInfo): string {
  const kinds = [...new Set(report.findings.map((finding) => finding.kind))].sort();
  const ruleIndex = new Map(kinds.map((kind, index) => [kind, index]));
  // Which occurrence of its signature in its file each finding is: the same failure twice in a file stays two alerts.
  const occurrences = new Map<string, number>();
  const results = report.findings.map((finding) => {
    const signature = signatureOf(findingSubject({ finding, tool: findingTool(finding) })).key;
    const occurrenceKey = JSON.stringify([finding.file, signature]);
    const occurrence = occurrences.get(occurrenceKey) ?? 0;
    occurrences.set(occurrenceKey, occurrence + 1);
    const properties = {
      severity: finding.severity,
      ...(finding.run_id !== null ? { run_id: finding.run_id } : {}),
      ...(finding.step !== null ? { step: finding.step } : {}),
      ...(finding.call_id !== null ? { call_id: finding.call_id } : {}),
      ...(finding.details !== undefined ? { details: finding.details } : {}),
    };
    return {
      ruleId: finding.kind,
      ruleIndex: ruleIndex.get(finding.kind),
      level: levels[finding.severity],
      message: { text: finding.message },
      locations: [location(finding, options)],
      partialFingerprints: { [fingerprintKey]: fingerprint([artifactUri(finding.file, options.cwd).uri, signature, occurrence]) },
      properties,
    };
  });
  // Lines that could not be read are no finding, but the analysis did not see them: said as notifications of the invocation.
  const notifications = report.files.flatMap((file) =>
    file.parse_errors.map((error) => {
      const { uri, relative } = artifactUri(file.path, options.cwd);
      return {
        level: error.loaded ? 'warning' : 'error',
        message: { text: `line ${error.line}${error.loaded ? ' was read with a repair' : ' could not be read'}: ${error.message}` },
        locations: [{ physicalLocation: { artifactLocation: { uri, ...(relative ? { uriBaseId: '%SRCROOT%' } : {}) }, region: { startLine: error.line } } }],
      };
    }),
  );
  const sarif = {
    $schema: sarifSchemaUri,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'loopscope',
            version: tool.version,
            semanticVersion: tool.version,
            ...(tool.homepage !== undefined ? { informationUri: tool.homepage } : {}),
            rules: kinds.map((kind) => rule(kind, tool)),
          },
        },
        invocations: [{ executionSuccessful: true, ...(notifications.length > 0 ? { toolExecutionNotifications: notifications } : {}) }],
        results,
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}
