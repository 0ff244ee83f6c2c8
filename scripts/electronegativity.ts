/**
 * Electronegativity (Doyensec's static checker of Electron security settings) over the built app,
 * failing on a high-severity finding. The tool always exits 0, whatever it finds, so this wrapper
 * reads its CSV report and sets the exit code: 1 on a HIGH finding not in the reviewed allow-list
 * below, 2 when the tool could not run.
 *
 *   npm run electronegativity [-- DIR]     (default out/, after `npm run build`; `npm test` runs it)
 *
 * It runs through npx, pinned, and apart from the project's dependencies: it brings eslint 7 and
 * typescript 3 of its own, which must not meet the project's. Install scripts are off
 * (es5-ext's postinstall only prints a message). The Electron version is the installed one, since
 * the tool cannot read it from a bundle and otherwise assumes 0.1.0, whose defaults are all unsafe.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoRoot } from '../devkit/repoPaths';

const TOOL = '@doyensec/electronegativity@1.10.3';

interface Finding {
  check: string;
  severity: string;
  confidence: string;
  file: string;
  location: string;
  sample: string;
  description: string;
}

/**
 * Findings reviewed and accepted, by check and the code they point at (both must match, so the same
 * check anywhere else still fails the build), each with why it is not a problem.
 */
const reviewed: readonly { check: string; sample: string; why: string }[] = [
  {
    check: 'CONTEXT_ISOLATION_JS_CHECK',
    sample: 'const window = new BrowserWindow(secureWindowOptions(options));',
    why:
      'the options come from securityPolicy.ts secureWindowOptions(), which the tool cannot follow into; ' +
      'test/electron/electronSecurity.test.ts asserts they set contextIsolation, sandbox and no nodeIntegration',
  },
];

/** RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at]!;
    if (quoted) {
      if (char === '"' && text[at + 1] === '"') {
        field += '"';
        at += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\n') {
      rows.push([...row, field]);
      row = [];
      field = '';
    } else if (char !== '\r') field += char;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

/** The report's findings, or null when it is malformed: a row without the header's columns, or a check that is not a check's name. */
function findingsOf(csv: string): Finding[] | null {
  const [header, ...rows] = parseCsv(csv);
  const columns = (header ?? []).map((name) => name.trim());
  const column = (row: string[], name: string): string => row[columns.indexOf(name)]?.trim() ?? '';
  const written = rows.filter((row) => row.length > 1);
  if (!columns.includes('issue') || written.some((row) => row.length !== columns.length || !/^[A-Z_]+_CHECK$/.test(column(row, 'issue')))) return null;
  return written.map((row) => ({
    check: column(row, 'issue'),
    severity: column(row, 'severity'),
    confidence: column(row, 'confidence'),
    file: column(row, 'filename'),
    location: column(row, 'location'),
    sample: column(row, 'sample'),
    description: column(row, 'description'),
  }));
}

const MAX_ATTEMPTS = 3;

function run(input: string): number {
  const electronVersion = (JSON.parse(readFileSync(join(repoRoot, 'node_modules', 'electron', 'package.json'), 'utf8')) as { version: string }).version;
  const work = mkdtempSync(join(tmpdir(), 'loopscope-electronegativity-'));
  try {
    // The tool writes its CSV rows with writes that can interleave: now and then a report has rows
    // spliced into each other. Read as one finding, such a report would hide the high ones; it is
    // produced again instead, and a tool that never writes a whole report fails the check.
    let findings: Finding[] | null = null;
    for (let attempt = 1; findings === null; attempt += 1) {
      if (attempt > MAX_ATTEMPTS) {
        process.stderr.write(`electronegativity wrote a malformed report ${MAX_ATTEMPTS} times in a row\n`);
        return 2;
      }
      const report = join(work, `findings-${attempt}.csv`);
      const tool = spawnSync('npx', ['--yes', TOOL, '--input', input, '--output', report, '--relative', '--electron-version', electronVersion], {
        cwd: work,
        encoding: 'utf8',
        env: { ...process.env, npm_config_ignore_scripts: 'true', npm_config_update_notifier: 'false' },
      });
      let csv: string;
      try {
        csv = readFileSync(report, 'utf8');
      } catch {
        process.stderr.write(`electronegativity did not run (exit ${tool.status ?? tool.signal}):\n${tool.stdout}${tool.stderr}${tool.error?.message ?? ''}\n`);
        return 2;
      }
      findings = findingsOf(csv);
      if (findings === null) process.stderr.write(`electronegativity wrote a malformed report (attempt ${attempt}); running it again\n`);
    }
    let failing = 0;
    for (const finding of findings) {
      const accepted = reviewed.find((entry) => entry.check === finding.check && entry.sample === finding.sample);
      const high = finding.severity === 'HIGH';
      if (high && accepted === undefined) failing += 1;
      const verdict = accepted !== undefined ? `reviewed: ${accepted.why}` : high ? 'FAILS THE BUILD' : 'not high severity';
      process.stdout.write(
        `${finding.severity} ${finding.check} (${finding.confidence}) ${finding.file}:${finding.location}: ${finding.description}\n  ${finding.sample}\n  → ${verdict}\n`,
      );
    }
    process.stdout.write(
      `electronegativity ${TOOL.split('@').at(-1)} over ${input} (Electron ${electronVersion}): ${findings.length} findings, ${failing} high-severity not reviewed\n`,
    );
    return failing > 0 ? 1 : 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = run(resolve(process.argv[2] ?? join(repoRoot, 'out')));
