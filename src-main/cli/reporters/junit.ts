/**
 * `analyze --report junit`: the report as JUnit XML, the test-report format CI systems read
 * (Jenkins, GitLab, Azure Pipelines, GitHub test-report actions). A trace file is a test suite, a
 * run a test case (classname = the file, name = the run id), and a finding at or above --fail-on a
 * `<failure>` of its case (type = the kind); findings below the threshold are lines of the case's
 * `<system-out>`. A case has as many failures as its findings (Jenkins' junit-10.xsd allows it);
 * a suite's `failures` counts the cases that failed, as JUnit counts tests. Lines of the file that
 * could not be read are an `<error>` case; a file of a directory that is no trace, a skipped one.
 */
import { findingTool, reachesFailOn, type CiReport, type CiReportOptions } from './ciReport';
import type { ReportFinding } from '../../../shared/report';

/** Characters XML 1.0 does not allow (controls but tab, newline, return; lone surrogates; U+FFFE/U+FFFF). */
const notXmlCharacter = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text content: the five entities escaped, a carriage return kept as a reference, characters XML cannot hold replaced by U+FFFD. */
export function xmlText(value: string): string {
  return value
    .replace(notXmlCharacter, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;');
}

/** An attribute value: as text, with tabs and newlines as references so that attribute normalization keeps them. */
export function xmlAttribute(value: string): string {
  return xmlText(value).replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

function element(name: string, attributes: Record<string, string | number | undefined>, body?: string): string {
  const attrs = Object.entries(attributes)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${xmlAttribute(String(value))}"`)
    .join('');
  return body === undefined ? `<${name}${attrs}/>` : `<${name}${attrs}>${body}</${name}>`;
}

/** Seconds with at most three decimals (the Surefire time pattern). */
function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

/** One line for a finding below the threshold: severity, kind, where, message. */
function findingLine(finding: ReportFinding): string {
  const where = [finding.step !== null ? `step ${finding.step}` : null, finding.line !== null ? `line ${finding.line}` : null].filter(Boolean).join(', ');
  return `${finding.severity} ${finding.kind}${where !== '' ? ` (${where})` : ''}: ${finding.message}`;
}

/** The failure's body: everything that locates the finding, one fact a line. */
function failureBody(finding: ReportFinding): string {
  const tool = findingTool(finding);
  return [
    `severity: ${finding.severity}`,
    `file: ${finding.file}${finding.line !== null ? `:${finding.line}` : ''}`,
    finding.run_id !== null ? `run: ${finding.run_id}` : null,
    finding.step !== null ? `step: ${finding.step}` : null,
    finding.line !== null ? `line: ${finding.line}` : null,
    finding.call_id !== null ? `call id: ${finding.call_id}` : null,
    tool !== null ? `tool: ${tool}` : null,
    finding.details !== undefined && Object.keys(finding.details).length > 0 ? `details: ${JSON.stringify(finding.details)}` : null,
  ]
    .filter((line): line is string => line !== null)
    .join('\n');
}

interface TestCase {
  xml: string;
  failed: boolean;
  errored: boolean;
  skipped: boolean;
  ms: number | null;
}

function findingsCase(file: string, name: string, ms: number | null, findings: readonly ReportFinding[], options: CiReportOptions): TestCase {
  const failing = findings.filter((finding) => reachesFailOn(finding.severity, options.failOn));
  const below = findings.filter((finding) => !reachesFailOn(finding.severity, options.failOn));
  const children = [
    ...failing.map((finding) => element('failure', { type: finding.kind, message: finding.message }, xmlText(failureBody(finding)))),
    ...(below.length > 0 ? [element('system-out', {}, xmlText(below.map(findingLine).join('\n')))] : []),
  ];
  const attributes = { classname: file, name, time: ms === null ? undefined : seconds(ms) };
  return {
    xml: children.length === 0 ? element('testcase', attributes) : element('testcase', attributes, `\n      ${children.join('\n      ')}\n    `),
    failed: failing.length > 0,
    errored: false,
    skipped: false,
    ms,
  };
}

function suite(name: string, cases: readonly TestCase[], properties: Record<string, string | number>): string {
  const known = cases.filter((testCase) => testCase.ms !== null);
  const attributes = {
    name,
    tests: cases.length,
    failures: cases.filter((testCase) => testCase.failed).length,
    errors: cases.filter((testCase) => testCase.errored).length,
    skipped: cases.filter((testCase) => testCase.skipped).length,
    time: known.length === 0 ? undefined : seconds(known.reduce((sum, testCase) => sum + testCase.ms!, 0)),
    file: name,
  };
  const props = Object.entries(properties).map(([key, value]) => element('property', { name: key, value: String(value) }));
  const body = [element('properties', {}, props.join('')), ...cases.map((testCase) => testCase.xml)];
  return element('testsuite', attributes, `\n    ${body.join('\n    ')}\n  `);
}

export function formatJunitReport(report: CiReport, options: CiReportOptions): string {
  const suites: { xml: string; cases: TestCase[] }[] = [];
  for (const file of report.files) {
    const findings = report.findings.filter((finding) => finding.file === file.path);
    const runs = report.runs.filter((run) => run.file === file.path);
    const cases: TestCase[] = runs.map((run) =>
      findingsCase(
        file.path,
        run.run_id,
        run.duration_ms,
        findings.filter((finding) => finding.run_id === run.run_id),
        options,
      ),
    );
    // A finding of no run (a credential on a line that is no event), or of a run the report does not list.
    const listed = new Set(runs.map((run) => run.run_id));
    const elsewhere = findings.filter((finding) => finding.run_id === null || !listed.has(finding.run_id));
    if (elsewhere.length > 0) cases.push(findingsCase(file.path, '(outside any run)', null, elsewhere, options));
    const unread = file.parse_errors.filter((error) => !error.loaded);
    const repaired = file.parse_errors.filter((error) => error.loaded);
    if (file.parse_errors.length > 0) {
      const children = [
        ...unread.map((error) =>
          element(
            'error',
            { type: 'parse_error', message: `line ${error.line}: ${error.message}` },
            xmlText(`line ${error.line} (byte ${error.offset}) could not be read: ${error.message}${error.excerpt !== '' ? `\n${error.excerpt}` : ''}`),
          ),
        ),
        ...(repaired.length > 0
          ? [
              element(
                'system-out',
                {},
                xmlText(repaired.map((error) => `line ${error.line} (byte ${error.offset}) read with a repair: ${error.message}`).join('\n')),
              ),
            ]
          : []),
      ];
      cases.push({
        xml: element('testcase', { classname: file.path, name: '(parse errors)' }, `\n      ${children.join('\n      ')}\n    `),
        failed: false,
        errored: unread.length > 0,
        skipped: false,
        ms: null,
      });
    }
    suites.push({ xml: suite(file.path, cases, { format: file.format, lines: file.lines, events: file.events }), cases });
  }
  for (const file of report.skipped) {
    const cases: TestCase[] = [
      {
        xml: element('testcase', { classname: file.path, name: '(not analyzed)' }, element('skipped', { message: file.reason })),
        failed: false,
        errored: false,
        skipped: true,
        ms: null,
      },
    ];
    suites.push({ xml: suite(file.path, cases, {}), cases });
  }
  const cases = suites.flatMap((entry) => entry.cases);
  const known = cases.filter((testCase) => testCase.ms !== null);
  const root = element(
    'testsuites',
    {
      name: 'loopscope analyze',
      tests: cases.length,
      failures: cases.filter((testCase) => testCase.failed).length,
      errors: cases.filter((testCase) => testCase.errored).length,
      time: known.length === 0 ? undefined : seconds(known.reduce((sum, testCase) => sum + testCase.ms!, 0)),
    },
    suites.length === 0 ? '' : `\n  ${suites.map((entry) => entry.xml).join('\n  ')}\n`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root}\n`;
}
