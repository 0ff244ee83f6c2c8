/**
 * The CI reporters of `analyze --report junit|sarif|github` (src-main/cli/reporters/), each output
 * validated against its schema by a real validator: SARIF by Ajv against the OASIS SARIF 2.1.0
 * schema, JUnit by libxml2 (xmllint-wasm) against Jenkins' junit-10.xsd — both shipped in
 * test/fixtures/schemas/ (README there says where from) — and GitHub workflow commands parsed back
 * with the runner's grammar. First the pure formatters on a report of awkward text, then the built
 * CLI on the bundled examples, compared with `analyze --json`.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { validateXML } from 'xmllint-wasm';
import { findingKindSchema, type ReportFinding, type Severity } from '../../shared/report';
import { formatJunitReport, xmlAttribute, xmlText } from '../../src-main/cli/reporters/junit';
import { fingerprintKey, formatSarifReport } from '../../src-main/cli/reporters/sarif';
import { escapeCommandData, escapeCommandProperty, formatGithubAnnotations, formatGithubStepSummary } from '../../src-main/cli/reporters/githubAnnotations';
import { findingRules } from '../../src-main/cli/reporters/findingRules';
import type { CiReport, CiReportOptions, FailOn } from '../../src-main/cli/reporters/ciReport';
import { repoRoot, testFixturesDir } from '../../devkit/repoPaths';
import { analyzeJson, runCli } from '../support/cli';

const schemasDir = join(testFixturesDir, 'schemas');

// ---------------------------------------------------------------- validators

// The OASIS schema is draft-04; Ajv's strict mode rejects some of its constructs (`required` inside
// `anyOf` naming properties defined elsewhere), which are valid JSON Schema: validate, not lint it.
const ajv = new Ajv04({ allErrors: true, strict: false });
addFormats(ajv);
const sarifSchema: unknown = JSON.parse(readFileSync(join(schemasDir, 'sarif-schema-2.1.0.json'), 'utf8'));
const validateSarifDocument = ajv.compile(sarifSchema as object);

function assertValidSarif(text: string): SarifLog {
  const document: unknown = JSON.parse(text);
  const valid = validateSarifDocument(document);
  assert.ok(valid, `SARIF schema errors: ${JSON.stringify(validateSarifDocument.errors?.slice(0, 5), null, 2)}`);
  return document as SarifLog;
}

const junitXsd = readFileSync(join(schemasDir, 'junit-10.xsd'), 'utf8');

async function assertValidJunit(xml: string): Promise<void> {
  const result = await validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [{ fileName: 'junit-10.xsd', contents: junitXsd }] });
  assert.ok(result.valid, `JUnit XSD errors: ${result.errors.map((error) => error.rawMessage).join('\n')}`);
}

/** XPath over the document with libxml2 (`xmllint --xpath`): what a real XML parser reads back. */
async function xpath(xml: string, expression: string): Promise<string> {
  const result = await validateXML({
    xml: [{ fileName: 'report.xml', contents: xml }],
    normalization: 'format',
    modifyArguments: (args) => ['--xpath', expression, ...args.filter((arg) => arg !== '--format')],
  });
  assert.deepEqual(result.errors, []);
  // xmllint ends what it prints with a newline of its own.
  return result.normalized.replace(/\n$/, '');
}

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: string;
  message: { text: string };
  locations: {
    physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region?: { startLine: number } };
    logicalLocations?: { name: string }[];
  }[];
  partialFingerprints: Record<string, string>;
}
interface SarifLog {
  $schema: string;
  version: string;
  runs: {
    tool: {
      driver: { name: string; version: string; rules: { id: string; name: string; shortDescription: { text: string }; fullDescription: { text: string } }[] };
    };
    results: SarifResult[];
    invocations: { toolExecutionNotifications?: { level: string; message: { text: string } }[] }[];
  }[];
}

/**
 * A workflow command line, parsed as the Actions runner does (ActionCommand.TryParseV2): `::name`,
 * then `key=value` properties split on `,` up to the next `::`, then the data; unescaped with the
 * runner's tables (properties: %0D %0A %3A %2C %25; data: %0D %0A %25).
 */
function parseWorkflowCommand(line: string): { command: string; properties: Record<string, string>; message: string } | null {
  if (!line.startsWith('::')) return null;
  const end = line.indexOf('::', 2);
  if (end === -1) return null;
  const head = line.slice(2, end);
  const space = head.indexOf(' ');
  const command = space === -1 ? head : head.slice(0, space);
  const properties: Record<string, string> = {};
  if (space !== -1) {
    for (const pair of head.slice(space + 1).split(',')) {
      const equals = pair.indexOf('=');
      if (equals <= 0) continue;
      properties[pair.slice(0, equals)] = pair
        .slice(equals + 1)
        .replace(/%0D/g, '\r')
        .replace(/%0A/g, '\n')
        .replace(/%3A/g, ':')
        .replace(/%2C/g, ',')
        .replace(/%25/g, '%');
    }
  }
  const message = line
    .slice(end + 2)
    .replace(/%0D/g, '\r')
    .replace(/%0A/g, '\n')
    .replace(/%25/g, '%');
  return { command, properties, message };
}

describe('the validators', () => {
  test('reject what the schemas forbid (so that passing means something)', async () => {
    const minimal = { version: '2.1.0', runs: [{ tool: { driver: { name: 'loopscope' } }, results: [{ message: { text: 'm' }, level: 'note' }] }] };
    assert.equal(validateSarifDocument(minimal), true);
    assert.equal(validateSarifDocument({ ...minimal, runs: [{ ...minimal.runs[0], results: [{ message: { text: 'm' }, level: 'info' }] }] }), false);
    assert.equal(validateSarifDocument({ ...minimal, version: '2.0.0' }), false);
    const junit = async (xml: string): Promise<boolean> =>
      (await validateXML({ xml: [{ fileName: 'r.xml', contents: xml }], schema: [{ fileName: 'junit-10.xsd', contents: junitXsd }] })).valid;
    assert.equal(await junit('<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="t"/></testsuite></testsuites>'), true);
    assert.equal(await junit('<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase/></testsuite></testsuites>'), false);
    assert.equal(await junit('<testsuites><testsuite name="a" tests="1" failures="0" errors="0" time="1.2345"/></testsuites>'), false);
    assert.equal(await junit('<testsuites><testsuite name="a &amp b" tests="1" failures="0" errors="0"/></testsuites>'), false);
  });
});

// ---------------------------------------------------------------- a report of awkward text

const awkward = 'a, b: 100% done;\r\nnext line <tag attr="x"> & \'q\' — ünïcödé 😀 %0A %25 ::error:: ]]> end';
/** What XML can hold of `awkward` plus characters it cannot: NUL, ESC, a lone surrogate, U+FFFF. */
const unrepresentable = 'ctl \u0000 \u001b[31m \uD800 \uFFFF tab\there';

function finding(overrides: Partial<ReportFinding> & Pick<ReportFinding, 'kind' | 'severity'>): ReportFinding {
  return { run_id: 'run-1', step: 1, call_id: null, line: 3, message: 'a message', file: 'traces/a.jsonl', ...overrides };
}

function fileReport(path: string, parseErrors: CiReport['files'][number]['parse_errors'] = []): CiReport['files'][number] {
  return { path, format: 'loopscope', format_reason: 'test', bytes: 100, lines: 10, events: 8, unknown_events: 0, parse_errors: parseErrors };
}

function run(file: string, runId: string, durationMs: number | null): CiReport['runs'][number] {
  return {
    run_id: runId,
    file,
    status: 'succeeded',
    status_raw: 'succeeded',
    steps: 2,
    tool_calls: 1,
    tool_results: 1,
    input_tokens: null,
    output_tokens: null,
    started_at: null,
    ended_at: null,
    duration_ms: durationMs,
    first_line: 1,
    last_line: 10,
    findings: { error: 0, warning: 0, info: 0 },
  };
}

const oddFile = 'traces/odd, name:1% é.jsonl';
const oddRun = 'run,1:a%b\nx';

const sampleReport: CiReport = {
  files: [
    fileReport('traces/a.jsonl', [
      { line: 7, offset: 300, length: 12, message: 'not valid JSON: <oops> & "quotes"', excerpt: '{"type": \u0001', loaded: false },
      { line: 9, offset: 400, length: 5, message: 'invalid UTF-8 replaced', excerpt: '', loaded: true },
    ]),
    fileReport(oddFile),
  ],
  runs: [run('traces/a.jsonl', 'run-1', 1234.5), run('traces/a.jsonl', 'run-2', null), run(oddFile, oddRun, 20)],
  findings: [
    finding({ kind: 'dangling_call', severity: 'error', call_id: 'call_1', line: 4, message: `call get_order ${awkward}` }),
    finding({ kind: 'repeated_action', severity: 'warning', line: 6, message: 'get_order repeated 3 times', details: { name: 'get_order', arguments: '{}' } }),
    finding({ kind: 'tool_error', severity: 'info', line: 5, message: 'tool get_order failed: E404' }),
    finding({ kind: 'tool_error', severity: 'info', run_id: 'run-2', line: 8, message: `odd ${unrepresentable}` }),
    finding({ kind: 'secret_in_trace', severity: 'error', run_id: null, step: null, line: 9, message: 'github token in line 9' }),
    finding({ kind: 'budget_exceeded', severity: 'warning', file: oddFile, run_id: oddRun, line: null, step: null, message: awkward }),
  ],
  skipped: [{ path: 'traces/notes.txt', reason: 'not a known trace format' }],
};

const options = (failOn: FailOn): CiReportOptions => ({ failOn, cwd: '/work/repo' });
const atOrAbove = (severity: Severity, failOn: FailOn): boolean =>
  failOn !== 'never' && { error: 2, warning: 1, info: 0 }[severity] >= { error: 2, warning: 1, info: 0 }[failOn];

// ---------------------------------------------------------------- JUnit

describe('--report junit (pure)', () => {
  for (const failOn of ['error', 'warning', 'never'] as const) {
    test(`is valid against junit-10.xsd, with a failure per finding at or above ${failOn}`, async () => {
      const xml = formatJunitReport(sampleReport, options(failOn));
      await assertValidJunit(xml);
      const failing = sampleReport.findings.filter((f) => atOrAbove(f.severity, failOn));
      assert.equal(Number(await xpath(xml, 'count(//failure)')), failing.length);
      const below = sampleReport.findings.length - failing.length;
      const outLines = await xpath(xml, '//system-out/text()');
      assert.equal(outLines.split('\n').filter((line) => /^(error|warning|info) [a-z_]+[ :]/.test(line)).length, below);
      // Test cases: three runs, findings outside any run, the parse errors, the skipped file.
      assert.equal(await xpath(xml, 'string(/testsuites/@tests)'), '6');
      assert.equal(await xpath(xml, 'string(/testsuites/@errors)'), '1');
    });
  }

  test('a suite per file, a case per run (classname = file, name = run id), times in seconds', async () => {
    const xml = formatJunitReport(sampleReport, options('error'));
    assert.equal(await xpath(xml, 'count(/testsuites/testsuite)'), '3');
    assert.equal(await xpath(xml, 'string(//testsuite[1]/@name)'), 'traces/a.jsonl');
    assert.equal(await xpath(xml, 'string(//testsuite[1]/@tests)'), '4');
    // Cases that failed, not failure elements: run-1 (dangling_call) and the case of findings outside any run (the secret).
    assert.equal(await xpath(xml, 'string(//testsuite[1]/@failures)'), '2');
    assert.equal(await xpath(xml, 'string(//testsuite[1]/@errors)'), '1');
    assert.equal(await xpath(xml, 'string(//testsuite[1]/testcase[@name="run-1"]/@time)'), '1.234');
    assert.equal(await xpath(xml, 'count(//testsuite[1]/testcase[@name="run-2"]/@time)'), '0');
    assert.equal(await xpath(xml, 'string(//testsuite[1]/testcase[@name="run-1"]/failure/@type)'), 'dangling_call');
    const body = await xpath(xml, 'string(//testsuite[1]/testcase[@name="run-1"]/failure)');
    assert.match(body, /^severity: error$/m);
    assert.match(body, /^line: 4$/m);
    assert.match(body, /^call id: call_1$/m);
    // Below the threshold: lines of the case's system-out.
    const out = await xpath(xml, 'string(//testsuite[1]/testcase[@name="run-1"]/system-out)');
    assert.deepEqual(out.split('\n'), [
      'warning repeated_action (step 1, line 6): get_order repeated 3 times',
      'info tool_error (step 1, line 5): tool get_order failed: E404',
    ]);
    // Unreadable lines: an <error> each; the skipped file: a skipped case.
    assert.equal(await xpath(xml, 'count(//testcase[@name="(parse errors)"]/error)'), '1');
    assert.equal(await xpath(xml, 'string(//testcase[@name="(parse errors)"]/error/@message)'), 'line 7: not valid JSON: <oops> & "quotes"');
    assert.equal(await xpath(xml, 'string(//testsuite[@name="traces/notes.txt"]/@skipped)'), '1');
    assert.equal(await xpath(xml, 'string(//testsuite[@name="traces/notes.txt"]/testcase/skipped/@message)'), 'not a known trace format');
  });

  test('awkward text reads back exactly; characters XML 1.0 cannot hold become U+FFFD', async () => {
    const xml = formatJunitReport(sampleReport, options('warning'));
    await assertValidJunit(xml);
    assert.equal(await xpath(xml, 'string(//testcase[@name="run-1"]/failure[@type="dangling_call"]/@message)'), `call get_order ${awkward}`);
    assert.equal(await xpath(xml, `string(//testsuite[2]/testcase/@name)`), oddRun);
    assert.equal(await xpath(xml, `string(//testsuite[2]/@name)`), oddFile);
    assert.equal(await xpath(xml, 'string(//testsuite[2]/testcase/failure/@message)'), awkward);
    assert.equal(
      await xpath(xml, 'string(//testcase[@name="run-2"]/system-out)'),
      'info tool_error (step 1, line 8): odd ctl \uFFFD \uFFFD[31m \uFFFD \uFFFD tab\there',
    );
    // In an attribute too, where a tab must survive attribute-value normalization.
    const asFailure = formatJunitReport(
      { ...sampleReport, findings: [finding({ kind: 'tool_error', severity: 'error', message: `odd ${unrepresentable}` })] },
      options('error'),
    );
    await assertValidJunit(asFailure);
    assert.equal(await xpath(asFailure, 'string(//failure/@message)'), 'odd ctl \uFFFD \uFFFD[31m \uFFFD \uFFFD tab\there');
    const notXml = [...xml].filter((character) => {
      const code = character.codePointAt(0)!;
      return (code < 0x20 && code !== 0x9 && code !== 0xa && code !== 0xd) || (code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff;
    });
    assert.deepEqual(notXml, []);
  });

  test('escapes all five entities, in text and attributes', () => {
    assert.equal(xmlText(`<a href="x">&'`), '&lt;a href=&quot;x&quot;&gt;&amp;&apos;');
    assert.equal(xmlAttribute('a\tb\nc\rd'), 'a&#9;b&#10;c&#13;d');
    assert.equal(xmlText('😀\uD83D'), '😀\uFFFD');
  });

  test('no file: an empty, valid document', async () => {
    const xml = formatJunitReport({ files: [], runs: [], findings: [], skipped: [] }, options('error'));
    await assertValidJunit(xml);
    assert.equal(await xpath(xml, 'string(/testsuites/@tests)'), '0');
  });
});

// ---------------------------------------------------------------- SARIF

describe('--report sarif (pure)', () => {
  const sarif = (report: CiReport = sampleReport, cwd = '/work/repo'): SarifLog =>
    assertValidSarif(formatSarifReport(report, { failOn: 'error', cwd }, { version: '1.2.3', homepage: 'https://example.org/loopscope/' }));

  test('is valid SARIF 2.1.0: every finding a result, levels by severity, a rule per kind present', () => {
    const log = sarif();
    assert.equal(log.version, '2.1.0');
    assert.equal(log.$schema, 'https://json.schemastore.org/sarif-2.1.0.json');
    const [run0] = log.runs;
    assert.ok(run0);
    assert.equal(run0.tool.driver.name, 'loopscope');
    assert.equal(run0.tool.driver.version, '1.2.3');
    assert.deepEqual(
      run0.results.map((r) => [r.ruleId, r.level, r.message.text]),
      sampleReport.findings.map((f) => [f.kind, { error: 'error', warning: 'warning', info: 'note' }[f.severity], f.message]),
    );
    const kinds = [...new Set(sampleReport.findings.map((f) => f.kind))].sort();
    assert.deepEqual(
      run0.tool.driver.rules.map((rule) => rule.id),
      kinds,
    );
    for (const result of run0.results) assert.equal(run0.tool.driver.rules[result.ruleIndex]?.id, result.ruleId);
    const rule = run0.tool.driver.rules.find((r) => r.id === 'dangling_call');
    assert.equal(rule?.shortDescription.text, findingRules.dangling_call.short);
    assert.equal(rule?.fullDescription.text, findingRules.dangling_call.full);
  });

  test('locations: the file relative to the current directory, forward slashes, %SRCROOT%; the line when known; the run', () => {
    const [run0] = sarif().runs;
    const first = run0!.results[0]!.locations[0]!;
    assert.deepEqual(first.physicalLocation, { artifactLocation: { uri: 'traces/a.jsonl', uriBaseId: '%SRCROOT%' }, region: { startLine: 4 } });
    assert.deepEqual(
      first.logicalLocations?.map((l) => l.name),
      ['run-1'],
    );
    const odd = run0!.results[5]!.locations[0]!;
    assert.equal(decodeURIComponent(odd.physicalLocation.artifactLocation.uri), oddFile);
    assert.equal(odd.physicalLocation.region, undefined);
    assert.equal(run0!.results[4]!.locations[0]!.logicalLocations, undefined);
    // Given absolute, inside the current directory: relative all the same; outside it: a file URI.
    const absolute = sarif({ ...sampleReport, findings: [finding({ kind: 'refusal', severity: 'warning', file: '/work/repo/traces/b.jsonl' })] });
    assert.equal(absolute.runs[0]!.results[0]!.locations[0]!.physicalLocation.artifactLocation.uri, 'traces/b.jsonl');
    const outside = sarif({ ...sampleReport, findings: [finding({ kind: 'refusal', severity: 'warning', file: '/elsewhere/b.jsonl' })] });
    assert.deepEqual(outside.runs[0]!.results[0]!.locations[0]!.physicalLocation.artifactLocation, { uri: 'file:///elsewhere/b.jsonl' });
  });

  test('fingerprints: the same failure keeps its fingerprint when run ids and lines change; two occurrences differ', () => {
    const fingerprints = (report: CiReport): string[] => sarif(report).runs[0]!.results.map((r) => r.partialFingerprints[fingerprintKey]!);
    const before = fingerprints(sampleReport);
    assert.equal(new Set(before).size, before.length);
    const shifted: CiReport = {
      ...sampleReport,
      findings: sampleReport.findings.map((f) => ({
        ...f,
        run_id: f.run_id === null ? null : `${f.run_id}-again`,
        line: f.line === null ? null : f.line + 10,
        call_id: f.call_id === null ? null : 'call_f00baa1234',
      })),
    };
    assert.deepEqual(fingerprints(shifted), before);
    const twice = fingerprints({ ...sampleReport, findings: [sampleReport.findings[0]!, { ...sampleReport.findings[0]!, line: 40 }] });
    assert.notEqual(twice[0], twice[1]);
  });

  test('parse errors are notifications of the invocation', () => {
    const notifications = sarif().runs[0]!.invocations[0]!.toolExecutionNotifications ?? [];
    assert.deepEqual(
      notifications.map((n) => n.level),
      ['error', 'warning'],
    );
  });

  test('every finding kind has a rule with a name and descriptions; names are distinct', () => {
    for (const kind of findingKindSchema.options) {
      const rule = findingRules[kind];
      assert.match(rule.name, /^[A-Z][A-Za-z]+$/, kind);
      assert.ok(rule.short.length > 10 && rule.full.length > rule.short.length, kind);
    }
    assert.equal(new Set(Object.values(findingRules).map((rule) => rule.name)).size, findingKindSchema.options.length);
    // A report of every kind validates.
    const all: CiReport = {
      ...sampleReport,
      findings: findingKindSchema.options.map((kind) => finding({ kind, severity: findingRules[kind].defaultSeverity })),
    };
    assert.equal(sarif(all).runs[0]!.tool.driver.rules.length, findingKindSchema.options.length);
  });

  test('no finding: a valid log with no rules and no results', () => {
    const log = sarif({ files: [], runs: [], findings: [], skipped: [] });
    assert.deepEqual(log.runs[0]!.results, []);
    assert.deepEqual(log.runs[0]!.tool.driver.rules, []);
  });
});

// ---------------------------------------------------------------- GitHub

describe('--report github (pure)', () => {
  test('a command per finding by severity, properties and messages round-trip exactly, then the summary', () => {
    const lines = formatGithubAnnotations(sampleReport, options('error')).trimEnd().split('\n');
    assert.equal(lines.length, sampleReport.findings.length + 1);
    sampleReport.findings.forEach((f, index) => {
      const parsed = parseWorkflowCommand(lines[index]!);
      assert.ok(parsed, lines[index]);
      assert.equal(parsed.command, { error: 'error', warning: 'warning', info: 'notice' }[f.severity]);
      assert.equal(parsed.message, f.message);
      assert.equal(parsed.properties['file'], f.file);
      assert.equal(parsed.properties['line'], f.line === null ? undefined : String(f.line));
      assert.equal(parsed.properties['title'], `loopscope ${f.kind}${f.run_id !== null ? ` (run ${f.run_id})` : ''}`);
      // One physical line each: nothing in a finding's text starts another command.
      assert.doesNotMatch(lines[index]!, /[\r\n]/);
    });
    assert.equal(parseWorkflowCommand(lines.at(-1)!), null);
    assert.equal(
      lines.at(-1),
      'loopscope: 3 runs in 2 files, 1 file skipped: 2 errors, 2 warnings, 2 info; 2 parse errors; fails: 2 findings at or above error',
    );
    assert.match(formatGithubAnnotations(sampleReport, options('never')), /never fails \(--fail-on never\)\n$/);
    assert.match(formatGithubAnnotations({ ...sampleReport, findings: [] }, options('error')), /; passes\n$/);
  });

  test("escaping is @actions/core's", () => {
    assert.equal(escapeCommandData('50% a:b,c\r\nd'), '50%25 a:b,c%0D%0Ad');
    assert.equal(escapeCommandProperty('50% a:b,c\r\nd'), '50%25 a%3Ab%2Cc%0D%0Ad');
  });

  test('file paths are relative to the current directory, with forward slashes', () => {
    const report: CiReport = { ...sampleReport, findings: [finding({ kind: 'refusal', severity: 'warning', file: '/work/repo/traces/b.jsonl' })] };
    assert.equal(parseWorkflowCommand(formatGithubAnnotations(report, options('error')).split('\n')[0]!)?.properties['file'], 'traces/b.jsonl');
  });

  test('the step summary: the verdict and a table of findings by kind and severity', () => {
    const markdown = formatGithubStepSummary(sampleReport, options('error'));
    const rows = markdown.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| severity'));
    assert.deepEqual(
      rows.map((row) => row.split(' | ').slice(0, 4)),
      [
        ['| error', '`dangling_call`', '1', '1'],
        ['| error', '`secret_in_trace`', '1', '0'],
        ['| warning', '`budget_exceeded`', '1', '1'],
        ['| warning', '`repeated_action`', '1', '1'],
        ['| info', '`tool_error`', '2', '2'],
      ],
    );
    assert.match(markdown, /^### Loopscope\n\n3 runs in 2 files/);
    assert.ok(markdown.endsWith('\n\n'));
  });
});

// ---------------------------------------------------------------- the built CLI on the examples

describe('analyze --report through the built CLI', () => {
  let cacheDir: string;
  let dir: string;
  let stepSummary: string | undefined;
  // The examples as a shell glob gives them: paths relative to the repository (the CLI's current directory).
  const examples = readdirSync(join(repoRoot, 'examples'))
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => `examples/${name}`);
  let json: ReturnType<typeof analyzeJson>;

  before(() => {
    cacheDir = mkdtempSync(join(tmpdir(), 'loopscope-reporters-cache-'));
    dir = mkdtempSync(join(tmpdir(), 'loopscope-reporters-'));
    // A job summary of the machine running the tests must not be written to by them.
    stepSummary = process.env['GITHUB_STEP_SUMMARY'];
    delete process.env['GITHUB_STEP_SUMMARY'];
    json = analyzeJson(examples, { cacheDir });
  });
  after(() => {
    if (stepSummary !== undefined) process.env['GITHUB_STEP_SUMMARY'] = stepSummary;
    rmSync(cacheDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  test('the examples have findings of every severity, and lines (the comparison below means something)', () => {
    const severities = new Set(json.report.findings.map((f) => f.severity));
    assert.deepEqual([...severities].sort(), ['error', 'info', 'warning']);
    assert.equal(json.result.status, 1);
  });

  test('sarif: valid; a result per finding with its kind, level, message, file and line, as --json says', () => {
    const result = runCli(['analyze', '--report', 'sarif', ...examples], { cacheDir });
    assert.equal(result.status, json.result.status, result.stderr);
    const log = assertValidSarif(result.stdout);
    const results = log.runs[0]!.results;
    assert.deepEqual(
      results.map((r) => ({
        kind: r.ruleId,
        level: r.level,
        message: r.message.text,
        file: r.locations[0]!.physicalLocation.artifactLocation.uri,
        line: r.locations[0]!.physicalLocation.region?.startLine ?? null,
        run: r.locations[0]!.logicalLocations?.[0]?.name ?? null,
      })),
      json.report.findings.map((f) => ({
        kind: f.kind,
        level: { error: 'error', warning: 'warning', info: 'note' }[f.severity],
        message: f.message,
        file: f.file,
        line: f.line,
        run: f.run_id,
      })),
    );
    const fingerprints = results.map((r) => r.partialFingerprints[fingerprintKey]);
    assert.equal(new Set(fingerprints).size, fingerprints.length);
  });

  for (const failOn of ['error', 'warning', 'never'] as const) {
    test(`junit --fail-on ${failOn}: valid; a failure per finding at or above it; the exit code of --json`, async () => {
      const expected = json.report.findings.filter((f) => atOrAbove(f.severity, failOn));
      const result = runCli(['analyze', '--report', 'junit', '--fail-on', failOn, ...examples], { cacheDir });
      assert.equal(result.status, expected.length > 0 ? 1 : 0, result.stderr);
      await assertValidJunit(result.stdout);
      assert.equal(Number(await xpath(result.stdout, 'count(//failure)')), expected.length);
      assert.equal(Number(await xpath(result.stdout, 'count(/testsuites/testsuite)')), examples.length);
      assert.equal(Number(await xpath(result.stdout, 'count(//testcase[not(starts-with(@name, "("))])')), json.report.runs.length);
      const unread = json.report.files.filter((file) => file.parse_errors.some((error) => !error.loaded)).length;
      assert.equal(await xpath(result.stdout, 'string(/testsuites/@errors)'), String(unread));
    });
  }

  test('github: a line per finding and the summary; exit codes by --fail-on; the job summary when the runner asks', () => {
    const result = runCli(['analyze', '--report', 'github', ...examples], { cacheDir });
    assert.equal(result.status, 1, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.equal(lines.length, json.report.findings.length + 1);
    const parsed = lines.slice(0, -1).map(parseWorkflowCommand);
    assert.deepEqual(
      parsed.map((p) => [p?.command, p?.properties['file'], p?.properties['line'] ?? null, p?.message]),
      json.report.findings.map((f) => [
        { error: 'error', warning: 'warning', info: 'notice' }[f.severity],
        f.file,
        f.line === null ? null : String(f.line),
        f.message,
      ]),
    );
    assert.match(lines.at(-1)!, new RegExp(`^loopscope: \\d+ runs in ${examples.length} files`));
    assert.match(lines.at(-1)!, /: .*; fails: \d+ findings at or above error$/);

    const summaryFile = join(dir, 'step-summary.md');
    writeFileSync(summaryFile, '# earlier step\n');
    process.env['GITHUB_STEP_SUMMARY'] = summaryFile;
    try {
      const never = runCli(['analyze', '--report', 'github', '--fail-on', 'never', ...examples], { cacheDir });
      assert.equal(never.status, 0, never.stderr);
    } finally {
      delete process.env['GITHUB_STEP_SUMMARY'];
    }
    const summary = readFileSync(summaryFile, 'utf8');
    assert.ok(summary.startsWith('# earlier step\n### Loopscope\n'), summary.slice(0, 200));
    assert.match(summary, /\| error \| `dangling_call` \| \d+ \| \d+ \|/);
  });

  test('a directory: a file that is no trace is a skipped test case', async () => {
    const traces = join(dir, 'traces');
    mkdirSync(traces);
    copyFileSync(join(repoRoot, 'examples', 'normal-query.jsonl'), join(traces, 'normal-query.jsonl'));
    writeFileSync(join(traces, 'settings.json'), '{"theme": "dark"}\n');
    const result = runCli(['analyze', '--report', 'junit', traces], { cacheDir });
    assert.equal(result.status, 0, result.stderr);
    await assertValidJunit(result.stdout);
    assert.equal(await xpath(result.stdout, 'count(//testcase/skipped)'), '1');
    assert.equal(await xpath(result.stdout, 'string(//testcase[skipped]/@classname)'), join(traces, 'settings.json'));
  });

  test('usage errors (exit 2): with --json, with --summary, an unknown format', () => {
    const file = examples[0]!;
    for (const [args, reason] of [
      [['--report', 'sarif', '--json'], /--report and --json/],
      [['--report', 'junit', '--summary'], /--summary is for the text and --json outputs/],
      [['--report', 'xml'], /--report must be junit, sarif, github, got "xml"/],
    ] as const) {
      const result = runCli(['analyze', ...args, file], { cacheDir });
      assert.equal(result.status, 2);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, reason);
    }
  });

  test('analyze --help names --report', () => {
    const result = runCli(['analyze', '--help'], { cacheDir });
    assert.equal(result.status, 0);
    assert.match(result.stdout, /--report FORMAT/);
  });
});
