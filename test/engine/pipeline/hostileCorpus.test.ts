/**
 * The hostile-input corpus (test/fixtures/hostile/, its expected.json and README.md): every file a
 * debugger gets opened on at its worst, through the real engine twice — the built CLI
 * (`loopscope analyze --json`, a child process, its peak memory measured) and the
 * API host the app uses. A file refused as a whole must say why in one line naming it; a file that
 * loads must load every valid record, report every bad line by number and reason, and keep every
 * line it read retrievable byte for byte.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse, CallRow, EventRow, TraceSummary } from '../../../shared/api';
import { analyzeReportSchema, type AnalyzeReport } from '../../../shared/report';
import { generateSyntheticTrace } from '../../../devkit/traceGenerators/syntheticTrace';
import { startTestHost, type TestHost } from '../../support/apiHarness';
import { splitLines } from '../../support/lines';
import { temporaryDir } from '../../support/engineHarness';
import { repoRoot } from '../../../devkit/repoPaths';

const corpusDir = join(repoRoot, 'test', 'fixtures', 'hostile');

interface ExpectedParseError {
  line: number;
  reason: string;
  loaded: boolean;
}

interface ExpectedCall {
  call_id: string;
  state: string;
  args_error?: string;
}

interface CorpusCase {
  name: string;
  file?: string;
  generated?: 'line-50mb' | 'nested-100000' | 'directory' | 'unreadable' | 'deleted-while-ingesting';
  what: string;
  refused?: string;
  loads?: { format: string; runs: number; events: number; parse_errors: ExpectedParseError[]; calls?: ExpectedCall[] };
  deleted?: { while_ingesting: string; reopened: string };
  max_rss_mb?: number;
}

const cases = (JSON.parse(readFileSync(join(corpusDir, 'expected.json'), 'utf8')) as { cases: CorpusCase[] }).cases;

const nobody = 65534;
const runningAsRoot = process.getuid?.() === 0;

/** The five-event trace the committed files are variants of. */
function smallTrace(): string[] {
  return readFileSync(join(corpusDir, 'crlf.jsonl'), 'utf8')
    .split('\r\n')
    .filter((line) => line !== '');
}

/** The files the manifest describes by recipe: too big to commit, or not files at all. */
function generate(recipe: NonNullable<CorpusCase['generated']>, dir: string): string {
  const [runStart, response, , final, runEnd] = smallTrace() as [string, string, string, string, string];
  switch (recipe) {
    case 'line-50mb': {
      const path = join(dir, 'line-50mb.jsonl');
      const huge = `{"type":"tool_result","run_id":"r1","step":1,"call_id":"c1","name":"get_order","status":"ok","output":"${'x'.repeat(50 * 1024 * 1024)}"}`;
      writeFileSync(path, [runStart, response, huge, final, runEnd].join('\n') + '\n');
      return path;
    }
    case 'nested-100000': {
      const path = join(dir, 'nested-100000.jsonl');
      const deep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
      const lines = [
        `{"type":"run_start","run_id":"r1","task":"t","config":{"x":${deep}}}`,
        `{"type":"model_request","run_id":"r1","step":1,"messages":[{"role":"user","content":${deep}}]}`,
        `{"type":"model_response","run_id":"r1","step":1,"finish_reason":"tool_calls","tool_calls":[{"call_id":"c1","name":"get","arguments":{"q":${deep}}}]}`,
        `{"type":"tool_result","run_id":"r1","step":1,"call_id":"c1","name":"get","status":"ok","output":${deep}}`,
        `{"type":"deep_thought","run_id":"r1","x":${deep}}`,
        JSON.stringify({
          type: 'model_response',
          run_id: 'r1',
          step: 2,
          finish_reason: 'tool_calls',
          tool_calls: [{ call_id: 'deep', name: 'get', arguments: `{"q":${deep}}` }],
        }),
        '{"type":"tool_result","run_id":"r1","step":2,"call_id":"deep","name":"get","status":"ok","output":"done"}',
        '{"type":"run_end","run_id":"r1","status":"completed"}',
      ];
      writeFileSync(path, lines.join('\n') + '\n');
      return path;
    }
    case 'directory': {
      const path = join(dir, 'trace.jsonl');
      mkdirSync(path);
      writeFileSync(join(path, 'notes.txt'), 'not a trace\n');
      return path;
    }
    case 'unreadable': {
      const path = join(dir, 'unreadable.jsonl');
      writeFileSync(path, smallTrace().join('\n') + '\n');
      chmodSync(path, 0o000);
      return path;
    }
    case 'deleted-while-ingesting': {
      const path = join(dir, 'deleted.jsonl');
      generateSyntheticTrace({ targetBytes: 20 * 1024 * 1024, seed: 7, outPath: path });
      return path;
    }
  }
}

interface MeasuredRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Peak resident memory of the CLI process (all its threads), in MB. */
  maxRssMb: number;
}

/**
 * Preloaded into the CLI process: at exit, it writes the process's peak resident memory (all its
 * threads, in KiB) to the file named by LOOPSCOPE_TEST_RSS_FILE. VmHWM, not getrusage's maxRSS:
 * that one survives exec, so a child of the test process would report the test's own peak.
 */
const reportPeakRss =
  'data:text/javascript,import { readFileSync, writeFileSync } from "node:fs"; ' +
  'process.on("exit", () => writeFileSync(process.env.LOOPSCOPE_TEST_RSS_FILE, /VmHWM:\\s*(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]));';

/**
 * `loopscope analyze --json FILE`, the way a user runs it, with its peak memory measured. As root,
 * a file's permissions do not stop reads, so an unreadable file is read as the unprivileged user
 * nobody (setpriv), as a user without rights to it would.
 */
function analyzeMeasured(path: string, cacheDir: string, options: { asNobody: boolean }): MeasuredRun {
  const rssFile = join(cacheDir, 'max-rss-kib');
  const command = [process.execPath, '--import', reportPeakRss, join(repoRoot, 'bin', 'loopscope.js'), 'analyze', '--json', path];
  const asUser = options.asNobody ? ['setpriv', `--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups', '--'] : [];
  const [program, ...args] = [...asUser, ...command] as [string, ...string[]];
  const result = spawnSync(program, args, {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, LOOPSCOPE_CACHE_DIR: cacheDir, LOOPSCOPE_TEST_RSS_FILE: rssFile, NO_COLOR: '1' },
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, maxRssMb: Number(readFileSync(rssFile, 'utf8')) / 1024 };
}

async function allPages<Row>(fetch: (offset: number) => Promise<{ total: number; rows: Row[] }>): Promise<Row[]> {
  const rows: Row[] = [];
  for (;;) {
    const page = await fetch(rows.length);
    rows.push(...page.rows);
    if (rows.length >= page.total || page.rows.length === 0) return rows;
  }
}

async function eventsOf(host: TestHost, traceId: string): Promise<EventRow[]> {
  const runs = await allPages((offset) => host.host.call('runs', { traceId, offset, limit: 2000 }) as Promise<ApiResponse<'runs'>>);
  const events: EventRow[] = [];
  for (const run of runs) {
    events.push(
      ...(await allPages((offset) => host.host.call('runEvents', { traceId, runPk: run.runPk, offset, limit: 2000 }) as Promise<ApiResponse<'runEvents'>>)),
    );
  }
  return events;
}

function callsOf(host: TestHost, traceId: string): Promise<CallRow[]> {
  return allPages((offset) => host.host.call('calls', { traceId, offset, limit: 2000 }) as Promise<ApiResponse<'calls'>>);
}

const MAX_RAW_BYTES = 1024 * 1024;

/** A record's bytes as the API shows them: the first MiB, as text, without the file's BOM or a CRLF line's CR. */
function shownText(written: Buffer, startsFile: boolean): string {
  let bytes = written.subarray(startsFile && written.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])) ? 3 : 0);
  if (bytes.length <= MAX_RAW_BYTES && bytes.at(-1) === 0x0d) bytes = bytes.subarray(0, -1);
  return bytes.subarray(0, MAX_RAW_BYTES).toString('utf8');
}

describe('the hostile-input corpus', { timeout: 600_000 }, () => {
  const work = temporaryDir('hostile');
  let host: TestHost;
  before(() => {
    host = startTestHost();
  });
  after(async () => {
    await host.close();
    work.remove();
  });

  it('lists every file of test/fixtures/hostile, and README.md lists every case', () => {
    const committed = readdirSync(corpusDir)
      .filter((name) => name !== 'expected.json' && name !== 'README.md')
      .sort();
    assert.deepEqual(cases.flatMap((c) => (c.file === undefined ? [] : [c.file])).sort(), committed);
    const readme = readFileSync(join(corpusDir, 'README.md'), 'utf8');
    for (const c of cases)
      assert.ok(readme.includes(`| ${c.file === undefined ? `(generated: ${c.generated})` : `\`${c.file}\``} |`), `README.md lists ${c.name}`);
  });

  for (const c of cases.filter((each) => each.deleted === undefined)) {
    const outcome = c.refused !== undefined ? `refused: ${c.refused}` : `loads ${c.loads!.events} events, ${c.loads!.parse_errors.length} parse errors`;
    it(`${c.name} (${c.what}): ${outcome}`, async (t) => {
      const caseDir = join(work.path, c.name.replace(/[^a-z0-9]+/gi, '-'));
      mkdirSync(caseDir);
      const path = c.file !== undefined ? join(corpusDir, c.file) : generate(c.generated!, caseDir);
      const cacheDir = join(caseDir, 'cache');
      mkdirSync(cacheDir);
      const asNobody = c.generated === 'unreadable' && runningAsRoot;
      if (asNobody) {
        // nobody may reach the file and write the cache: only the file's own mode stops it.
        chmodSync(work.path, 0o755);
        chmodSync(caseDir, 0o755);
        chmodSync(cacheDir, 0o777);
      }
      const run = analyzeMeasured(path, cacheDir, { asNobody });
      t.diagnostic(`${c.name}: exit ${run.status}, peak RSS ${run.maxRssMb.toFixed(0)} MB`);
      assert.doesNotMatch(run.stderr, /internal error|\n\s+at /, 'no crash, no stack trace');
      if (c.max_rss_mb !== undefined) assert.ok(run.maxRssMb <= c.max_rss_mb, `peak RSS ${run.maxRssMb.toFixed(0)} MB, bound ${c.max_rss_mb} MB`);

      if (c.refused !== undefined) {
        assert.equal(run.status, 2, run.stderr);
        assert.equal(run.stdout, '', 'no report for a file that cannot be read');
        const lines = run.stderr.trimEnd().split('\n');
        assert.equal(lines.length, 1, `one line: ${JSON.stringify(run.stderr)}`);
        assert.ok(lines[0]!.startsWith(`loopscope: ${path}: `), `names the file: ${lines[0]}`);
        assert.ok(lines[0]!.includes(c.refused), `says why: ${lines[0]}`);
        if (asNobody) {
          // The refusal is the file's mode: readable, the same file loads for the same user. (The API
          // host runs as root here, to which the file is readable.)
          chmodSync(path, 0o644);
          const readable = analyzeMeasured(path, cacheDir, { asNobody });
          assert.equal(readable.status, 0, readable.stderr);
          return;
        }
        const summary = await host.openSettled(path);
        assert.equal(summary.state, 'failed');
        assert.ok(summary.error?.startsWith(path) && summary.error.includes(c.refused), `the app says the same: ${summary.error}`);
        return;
      }

      const expected = c.loads!;
      assert.ok(run.status === 0 || run.status === 1, `exit ${run.status}: ${run.stderr}`);
      const report: AnalyzeReport = analyzeReportSchema.parse(JSON.parse(run.stdout));
      const file = report.files[0]!;
      assert.equal(file.format, expected.format);
      assert.equal(file.events, expected.events, 'every valid record is loaded');
      assert.equal(report.runs.length, expected.runs);
      assert.deepEqual(
        file.parse_errors.map((error) => ({ line: error.line, loaded: error.loaded })),
        expected.parse_errors.map((error) => ({ line: error.line, loaded: error.loaded })),
        JSON.stringify(file.parse_errors.map((error) => [error.line, error.message])),
      );
      file.parse_errors.forEach((error, index) => {
        assert.ok(
          error.message.includes(expected.parse_errors[index]!.reason),
          `line ${error.line}: "${error.message}" says "${expected.parse_errors[index]!.reason}"`,
        );
        // eslint-disable-next-line no-control-regex -- finding raw control characters is the point
        assert.doesNotMatch(error.message + error.excerpt, /[\u0000-\u001f\u007f]/, 'control characters are shown as escapes');
      });

      // The app's view of the same file: the same events, and every line it read, as written.
      const summary: TraceSummary = await host.openSettled(path);
      assert.equal(summary.state, 'ready', summary.error ?? '');
      const traceId = summary.traceId;
      const events = await eventsOf(host, traceId);
      assert.equal(events.length, expected.events);
      const bytes = readFileSync(path);
      const lines = splitLines(readFileSync(path));
      for (const event of events) {
        const { record } = (await host.host.call('event', { traceId, eventId: event.eventId })) as ApiResponse<'event'>;
        assert.ok(record !== null && !record.stale, `event ${event.eventId} has its record`);
        const written = bytes.subarray(record.offset, record.offset + record.length);
        assert.equal(record.text, shownText(written, record.offset === 0), `event on line ${event.line}: its record as written`);
        if (expected.format === 'loopscope') assert.ok(written.equals(lines[event.line - 1]!), `event on line ${event.line} is that line`);
      }
      const parseErrors = (await host.host.call('parseErrors', { traceId, limit: 2000 })) as ApiResponse<'parseErrors'>;
      assert.equal(parseErrors.total, expected.parse_errors.length);
      for (const error of parseErrors.rows) {
        const raw = (await host.host.call('rawLine', { traceId, sourceId: error.sourceId, line: error.line })) as ApiResponse<'rawLine'>;
        const line = lines[error.line - 1]!;
        assert.equal(raw.length, line.length, `line ${error.line}: its whole length`);
        assert.equal(raw.text, shownText(line, error.offset === 0), `line ${error.line}: the parse error's line as written`);
        assert.equal(raw.truncated, line.length > MAX_RAW_BYTES);
      }
      if (expected.format === 'loopscope') {
        // Nothing is lost: each line is an event, a parse error or blank.
        const accounted = new Set([...events.map((event) => event.line), ...parseErrors.rows.map((error) => error.line)]);
        lines.forEach((line, index) => {
          if (!accounted.has(index + 1))
            assert.equal(
              line
                .toString('latin1')
                .trim()
                .replace(/^\u00ef\u00bb\u00bf/, ''),
              '',
              `line ${index + 1} is blank`,
            );
        });
      }
      if (expected.calls !== undefined) {
        const calls = await callsOf(host, traceId);
        assert.deepEqual(
          calls.map((call) => ({ call_id: call.callId, state: call.state })),
          expected.calls.map((call) => ({ call_id: call.call_id, state: call.state })),
        );
        expected.calls.forEach((call, index) => {
          if (call.args_error !== undefined) assert.ok(calls[index]!.argsError?.includes(call.args_error), `${call.call_id}: ${calls[index]!.argsError}`);
        });
      }
    });
  }

  it('__proto__, constructor and prototype keys stay keys of the record and pollute no prototype', async () => {
    const summary = await host.openSettled(join(corpusDir, 'proto-keys.jsonl'));
    assert.equal(summary.state, 'ready', summary.error ?? '');
    const traceId = summary.traceId;
    const [call] = await callsOf(host, traceId);
    assert.match(call!.argsSummary ?? '', /"__proto__":\{"polluted":"args"\},"constructor":\{"prototype":\{"polluted":"ctor"\}\}/);
    for (const event of await eventsOf(host, traceId)) {
      const served = (await host.host.call('event', { traceId, eventId: event.eventId })) as ApiResponse<'event'>;
      const record = JSON.parse(served.record!.text) as Record<string, unknown>;
      if (event.line === 4) assert.deepEqual(Object.keys(record)[0], '__proto__', 'a top-level __proto__ key is a key');
    }
    const runs = (await host.host.call('runs', { traceId })) as ApiResponse<'runs'>;
    await host.host.call('requests', { traceId, runPk: runs.rows[0]!.runPk });
    await host.host.call('search', { traceId, query: 'polluted' });
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined, 'Object.prototype is untouched');
    assert.equal(Object.hasOwn(Object.prototype, 'polluted'), false);
  });

  const deleted = cases.find((c) => c.deleted !== undefined)!;
  it(`${deleted.name} (${deleted.what}): ${deleted.deleted!.while_ingesting}, and reopening says ${deleted.deleted!.reopened}`, async () => {
    const dir = join(work.path, 'deleted');
    mkdirSync(dir);
    const path = generate('deleted-while-ingesting', dir);
    const copy = join(dir, 'kept.jsonl');
    copyFileSync(path, copy);
    let unlinkedAt: number | null = null;
    const watching = startTestHost({
      onTraceUpdate: (update) => {
        if (unlinkedAt === null && update.state === 'ingesting' && update.progress.bytesRead > 0) {
          unlinkSync(path);
          unlinkedAt = update.progress.bytesRead;
        }
      },
    });
    try {
      const summary = await watching.openSettled(path);
      assert.ok(unlinkedAt !== null, 'the file was deleted while it was being ingested');
      assert.ok(unlinkedAt < summary.progress.totalBytes, `deleted after ${unlinkedAt} of ${summary.progress.totalBytes} bytes`);
      assert.equal(summary.state, 'ready', summary.error ?? '');
      const whole = await host.openSettled(copy);
      assert.equal(summary.progress.events, whole.progress.events, 'every event of the file was loaded');
      assert.equal(summary.progress.parseErrors, whole.progress.parseErrors);
      const reopened = (await watching.host.call('reload', { traceId: summary.traceId })) as TraceSummary;
      const settled = reopened.state === 'ingesting' ? await watching.settled(summary.traceId) : reopened;
      assert.equal(settled.state, 'failed');
      assert.ok(settled.error?.includes(path) && settled.error.includes(deleted.deleted!.reopened), settled.error ?? '');
    } finally {
      await watching.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
