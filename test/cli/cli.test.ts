/**
 * `loopscope analyze` as a user or CI job sees it: the built CLI in a child process — its stdout,
 * stderr, exit codes and cache directory. Needs `npm run build` first.
 */
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { analyzeJson, copyExample, example, runCli } from '../support/cli';
import { temporaryDir } from '../support/engineHarness';

let cache: { path: string; remove: () => void };
let work: { path: string; remove: () => void };

beforeEach(() => {
  cache = temporaryDir('cli-cache');
  work = temporaryDir('cli-work');
});

afterEach(() => {
  cache.remove();
  work.remove();
});

const cli = (args: string[]) => runCli(args, { cacheDir: cache.path });
const json = (args: string[]) => analyzeJson(args, { cacheDir: cache.path });

function kinds(findings: readonly { kind: string }[]): string[] {
  return findings.map((f) => f.kind).sort();
}

describe('loopscope analyze --json', () => {
  it('prints exactly one report document with the contract fields and nothing else', () => {
    const files = [example('broken-lines'), example('dangling-call')];
    const result = cli(['analyze', '--json', '--fail-on', 'never', ...files]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stderr, '');
    // JSON.parse of the whole stdout fails on any text before or after the document.
    const raw = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.equal(result.stdout.trim().startsWith('{'), true);
    assert.deepEqual(Object.keys(raw).sort(), ['files', 'findings', 'runs', 'skipped']);

    type Raw = Record<string, unknown>;
    const rawFiles = raw['files'] as Raw[];
    const rawRuns = raw['runs'] as Raw[];
    const rawFindings = raw['findings'] as Raw[];
    assert.deepEqual(
      rawFiles.map((f) => f['path']),
      files,
    );
    for (const file of rawFiles) {
      for (const key of ['path', 'format', 'lines', 'events', 'parse_errors']) assert.ok(key in file, `files[].${key}`);
      assert.equal(typeof file['format'], 'string');
      assert.equal(typeof file['lines'], 'number');
      assert.equal(typeof file['events'], 'number');
      for (const error of file['parse_errors'] as Raw[]) {
        assert.equal(typeof error['line'], 'number');
        assert.equal(typeof error['offset'], 'number');
        assert.equal(typeof error['message'], 'string');
      }
    }
    assert.deepEqual(
      (rawFiles[0]?.['parse_errors'] as Raw[]).map((e) => e['line']),
      [8, 10, 12],
    );
    const runKeys = [
      'run_id',
      'file',
      'status',
      'status_raw',
      'steps',
      'tool_calls',
      'tool_results',
      'input_tokens',
      'output_tokens',
      'started_at',
      'ended_at',
    ];
    assert.equal(rawRuns.length, 2);
    for (const run of rawRuns) for (const key of runKeys) assert.ok(key in run, `runs[].${key}`);
    const dangling = rawRuns.find((run) => run['run_id'] === 'dangling-call');
    assert.deepEqual(dangling && Object.fromEntries(runKeys.map((key) => [key, dangling[key]])), {
      run_id: 'dangling-call',
      file: example('dangling-call'),
      status: 'protocol_error',
      status_raw: 'PROTOCOL_ERROR',
      steps: 1,
      tool_calls: 2,
      tool_results: 1,
      input_tokens: 556,
      output_tokens: 58,
      started_at: '2025-06-03T10:12:03.550Z',
      ended_at: '2025-06-03T10:12:05.407Z',
    });
    assert.equal(rawFindings.length, 1);
    const finding = rawFindings[0]!;
    for (const key of ['kind', 'severity', 'run_id', 'step', 'call_id', 'line', 'message']) assert.ok(key in finding, `findings[].${key}`);
    assert.deepEqual(
      {
        kind: finding['kind'],
        severity: finding['severity'],
        run_id: finding['run_id'],
        step: finding['step'],
        call_id: finding['call_id'],
        line: finding['line'],
      },
      { kind: 'dangling_call', severity: 'error', run_id: 'dangling-call', step: 1, call_id: 'call_rzqwo72n3wZuot7UGAoKD1AF', line: 3 },
    );
    assert.ok(typeof finding['message'] === 'string' && finding['message'].length > 0);

    // And it is a valid report by the shared schema.
    const { report } = json(['--fail-on', 'never', ...files]);
    assert.equal(report.files.length, 2);
  });
});

describe('exit codes', () => {
  it('is 0 for a clean trace', () => {
    const result = cli(['analyze', example('normal-query')]);
    assert.equal(result.status, 0, result.stderr);
  });

  it('is 1 when a finding reaches --fail-on (default error), 0 with --fail-on never', () => {
    assert.equal(cli(['analyze', example('dangling-call')]).status, 1);
    assert.equal(cli(['analyze', '--json', example('dangling-call')]).status, 1);
    assert.equal(cli(['analyze', '--fail-on', 'error', example('dangling-call')]).status, 1);
    assert.equal(cli(['analyze', '--fail-on', 'never', example('dangling-call')]).status, 0);
  });

  it('--fail-on warning fails on warnings that the default lets through', () => {
    assert.equal(cli(['analyze', example('budget-exhausted')]).status, 0);
    assert.equal(cli(['analyze', '--fail-on', 'warning', example('budget-exhausted')]).status, 1);
    // Info findings never reach warning.
    assert.equal(cli(['analyze', '--fail-on', 'warning', example('tool-error')]).status, 0);
  });

  describe('is 2 with a one-line reason on stderr', () => {
    function assertFileError(args: string[], path: string): void {
      const result = cli(['analyze', ...args]);
      assert.equal(result.status, 2, result.stderr);
      assert.equal(result.stdout, '', 'no report when a file cannot be read');
      const lines = result.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, `one line: ${JSON.stringify(result.stderr)}`);
      assert.ok(lines[0]!.includes(path), `names ${path}: ${lines[0]}`);
      assert.doesNotMatch(result.stderr, /internal error|\n\s+at /);
    }

    function assertUsageError(args: string[], mentions: RegExp): void {
      const result = cli(args);
      assert.equal(result.status, 2, result.stderr);
      assert.equal(result.stdout, '');
      const first = result.stderr.split('\n')[0]!;
      assert.match(first, /^loopscope: /);
      assert.match(first, mentions);
      assert.doesNotMatch(result.stderr, /internal error|\n\s+at /);
    }

    it('for a missing file', () => {
      assertFileError([join(work.path, 'missing.jsonl')], join(work.path, 'missing.jsonl'));
      assertFileError(['--json', 'no/such/trace.jsonl'], 'no/such/trace.jsonl');
    });

    it('for a missing file among readable ones (before printing anything)', () => {
      assertFileError([example('normal-query'), 'nope.jsonl'], 'nope.jsonl');
    });

    it('for a directory without trace files', () => {
      const dir = join(work.path, 'traces.jsonl');
      mkdirSync(dir);
      assertFileError([dir], dir);
    });

    it(
      'for an unreadable file',
      { skip: process.getuid?.() === 0 ? 'running as root: permission checks are bypassed, chmod 000 is still readable' : false },
      () => {
        const file = copyExample('normal-query', work.path);
        chmodSync(file, 0o000);
        try {
          assertFileError([file], file);
        } finally {
          chmodSync(file, 0o644);
        }
      },
    );

    it('for an unknown command', () => {
      assertUsageError(['analyse', example('normal-query')], /analyse/);
    });

    it('for no file', () => {
      assertUsageError(['analyze'], /file/);
      assertUsageError(['analyze', '--json'], /file/);
    });

    it('for a bad --fail-on', () => {
      assertUsageError(['analyze', '--fail-on', 'bogus', example('normal-query')], /--fail-on.*bogus/);
    });

    it('for --window 0', () => {
      assertUsageError(['analyze', '--window', '0', example('normal-query')], /--window/);
    });

    it('for a threshold above the window', () => {
      assertUsageError(['analyze', '--threshold', '7', '--window', '6', example('normal-query')], /threshold/);
    });
  });
});

describe('text output', () => {
  it('shows the run, its normalized and raw status and the finding kinds', () => {
    const result = cli(['analyze', example('budget-exhausted')]);
    assert.equal(result.status, 0, result.stderr);
    assert.throws(() => JSON.parse(result.stdout) as unknown, 'text, not JSON');
    assert.ok(result.stdout.includes('budget-exhausted'));
    assert.ok(result.stdout.includes('budget_exceeded (BUDGET_EXCEEDED)'), result.stdout);
    assert.ok(result.stdout.includes('unexecuted_call'));
    assert.match(result.stdout, /warning\s+budget_exceeded/);
    assert.ok(!result.stdout.includes('\u001b['), 'no colour when stdout is not a terminal');
  });

  it('shows a dangling call with its call id', () => {
    const result = cli(['analyze', example('dangling-call')]);
    assert.equal(result.status, 1);
    assert.ok(result.stdout.includes('protocol_error (PROTOCOL_ERROR)'), result.stdout);
    assert.match(result.stdout, /dangling_call/);
    assert.ok(result.stdout.includes('call_rzqwo72n3wZuot7UGAoKD1AF'));
  });

  it("sums up each run's requests: how many, where the history was rewritten, how the input grew", () => {
    const result = cli(['analyze', example('history-rewrite')]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /3 requests \(logged\) · history rewritten in request 3 · input 559 → 771 tokens/);
    // Message 4 as logged: the system message is message 1.
    assert.match(result.stdout, /warning\s+history_rewrite\s+step 3, line 10\s+Request 3 rewrites the history of request 2 at message 4/);
    const appendOnly = cli(['analyze', example('normal-query')]);
    assert.match(appendOnly.stdout, /3 requests \(logged\) · append-only · input 559 → 809 tokens/);
  });

  it("shows a run's duration as the app does (119.6 s is 2 min), and none when it was not recorded", () => {
    const trace = join(work.path, 'durations.jsonl');
    const run = (runId: string, start: string | null, end: string | null) =>
      [
        { type: 'run_start', run_id: runId, ...(start !== null ? { ts: start } : {}) },
        { type: 'model_response', run_id: runId, step: 1, outcome: 'final', finish_reason: 'stop', text: 'done' },
        { type: 'run_end', run_id: runId, status: 'MODEL_FINISHED', ...(end !== null ? { ts: end } : {}) },
      ].map((event) => JSON.stringify(event));
    writeFileSync(trace, [...run('timed', '2025-06-03T10:00:00.000Z', '2025-06-03T10:01:59.600Z'), ...run('untimed', null, null)].join('\n') + '\n');
    const result = cli(['analyze', trace]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /run timed .*\n {2}1 step · 0 tool calls · 0 results · 2 min · lines 1–3\n/);
    assert.match(result.stdout, /run untimed .*\n {2}1 step · 0 tool calls · 0 results · lines 4–6\n/);
  });

  it('does not call a run append-only when a compaction or a new system prompt broke the prompt cache', () => {
    const compacted = cli(['analyze', example('history-compacted')]);
    assert.match(compacted.stdout, /4 requests \(logged\) · history compacted before request 4 \(−3,248 tokens\) · input 1,210 → 402 tokens/);
    assert.match(compacted.stdout, /info\s+history_compacted\s+step 4, line 14\s+Request 4 follows a compaction of the history: 5 earlier messages replaced/);
    const prefix = cli(['analyze', example('system-prompt-changed')]);
    assert.match(prefix.stdout, /2 requests \(logged\) · system prompt or tools changed in request 2 · input 180 → 262 tokens/);
  });

  it('lists parse errors with their line numbers', () => {
    const result = cli(['analyze', example('broken-lines')]);
    assert.equal(result.status, 0, result.stderr);
    assert.ok(result.stdout.includes('broken-lines'));
    for (const line of [8, 10, 12]) assert.match(result.stdout, new RegExp(`\\bline ${line}\\b`), `parse error at line ${line}`);
    assert.match(result.stdout, /line 8\b.*not valid JSON/);
    assert.match(result.stdout, /3 parse errors/);
  });
});

describe('several files at once', () => {
  it('reports runs, files and findings from all of them', () => {
    const files = [example('normal-query'), example('dangling-call'), example('budget-exhausted')];
    const { result, report } = json(files);
    assert.equal(result.status, 1, 'the dangling call is an error');
    assert.deepEqual(
      report.files.map((f) => f.path),
      files,
    );
    assert.deepEqual(
      report.runs.map((run) => [run.file, run.run_id]),
      [
        [files[0], 'normal-query'],
        [files[1], 'dangling-call'],
        [files[2], 'budget-exhausted'],
      ],
    );
    assert.deepEqual(
      report.findings.map((f) => `${f.file} ${f.run_id} ${f.kind}`).sort(),
      [`${files[1]} dangling-call dangling_call`, `${files[2]} budget-exhausted budget_exceeded`, `${files[2]} budget-exhausted unexecuted_call`].sort(),
    );

    const text = cli(['analyze', ...files]);
    assert.equal(text.status, 1);
    for (const name of ['normal-query', 'dangling-call', 'budget-exhausted', 'dangling_call', 'unexecuted_call']) assert.ok(text.stdout.includes(name), name);
  });

  it('keeps runs with the same id in different files apart', () => {
    mkdirSync(join(work.path, 'a'));
    mkdirSync(join(work.path, 'b'));
    const a = copyExample('dangling-call', join(work.path, 'a'));
    const b = copyExample('dangling-call', join(work.path, 'b'));
    const { report } = json(['--fail-on', 'never', a, b]);
    assert.deepEqual(
      report.runs.map((run) => [run.file, run.run_id]),
      [
        [a, 'dangling-call'],
        [b, 'dangling-call'],
      ],
    );
    assert.deepEqual(
      report.findings.map((f) => [f.file, f.kind]),
      [
        [a, 'dangling_call'],
        [b, 'dangling_call'],
      ],
    );
  });
});

describe('--window / --threshold', () => {
  it('finds the repeated action by default but not with --threshold 5', () => {
    const byDefault = json(['--fail-on', 'never', example('repeated-action')]).report;
    assert.deepEqual(
      byDefault.findings.map((f) => [f.kind, f.call_id]),
      [['repeated_action', 'toolu_01oZV8dI8CVfwbYyFmceqDJm']],
    );
    const explicitDefault = json(['--fail-on', 'never', '--window', '6', '--threshold', '3', example('repeated-action')]).report;
    assert.deepEqual(kinds(explicitDefault.findings), ['repeated_action']);
    const stricter = json(['--fail-on', 'never', '--threshold', '5', example('repeated-action')]).report;
    assert.deepEqual(kinds(stricter.findings), []);
  });
});

describe('the cache', () => {
  interface SourceRow {
    id: number;
    path: string;
    ingest_started_at: string;
    ingest_completed_at: string | null;
  }

  function sqliteFiles(): string[] {
    return readdirSync(cache.path).filter((name) => name.endsWith('.sqlite'));
  }

  function sources(): SourceRow[] {
    const files = sqliteFiles();
    assert.equal(files.length, 1, `one database: ${files.join(', ')}`);
    const db = new Database(join(cache.path, files[0]!), { readonly: true, fileMustExist: true });
    try {
      return db.prepare<[], SourceRow>('SELECT id, path, ingest_started_at, ingest_completed_at FROM sources ORDER BY id').all();
    } finally {
      db.close();
    }
  }

  it('reuses the database of an unchanged file', () => {
    const file = copyExample('normal-query', work.path);
    const first = json([file]);
    assert.equal(first.result.status, 0, first.result.stderr);
    const before = sources();
    assert.equal(before.length, 1);

    const second = json([file]);
    assert.equal(second.result.status, 0, second.result.stderr);
    assert.deepEqual(second.report, first.report);
    assert.deepEqual(sqliteFiles().length, 1);
    const after = sources();
    assert.equal(after.length, 1);
    // The very same ingest (same row, same timestamps), not a rebuild.
    assert.deepEqual(after, before);
  });

  it('picks up a line appended to the file', () => {
    const file = copyExample('normal-query', work.path);
    const first = json([file]).report;
    assert.deepEqual(
      first.runs.map((run) => run.run_id),
      ['normal-query'],
    );
    assert.equal(first.files[0]?.lines, 12);

    appendFileSync(file, `${JSON.stringify({ type: 'run_start', run_id: 'appended-run', ts: '2025-06-03T15:00:00.000Z', task: 'one more' })}\n`);
    const second = json(['--fail-on', 'never', file]).report;
    assert.equal(second.files[0]?.lines, 13);
    assert.equal(second.files[0]?.events, 13);
    assert.deepEqual(
      second.runs.map((run) => run.run_id),
      ['normal-query', 'appended-run'],
    );
    const appended = second.runs.find((run) => run.run_id === 'appended-run');
    assert.equal(appended?.first_line, 13);
    assert.equal(sources().length, 1);
  });
});

describe('loopscope analyze DIR', () => {
  it('analyzes every trace file under a directory and skips files that are not traces', () => {
    const dir = join(work.path, 'sessions');
    mkdirSync(join(dir, 'nested'), { recursive: true });
    copyExample('normal-query', dir);
    copyExample('dangling-call', join(dir, 'nested'));
    writeFileSync(join(dir, 'settings.json'), '{"theme": "dark"}\n');
    writeFileSync(join(dir, 'notes.txt'), 'not a trace\n');
    const { report } = json([dir, '--fail-on', 'never']);
    assert.deepEqual(
      report.files.map((file) => file.path.slice(dir.length + 1)),
      ['nested/dangling-call.jsonl', 'normal-query.jsonl'],
    );
    assert.deepEqual(
      report.skipped.map((file) => file.path.slice(dir.length + 1)),
      ['settings.json'],
    );
    assert.deepEqual(kinds(report.findings), ['dangling_call']);
  });

  it("reads a Claude Code project's sub-agent transcripts once, with their session, not again on their own", () => {
    const project = join('test', 'fixtures', 'formats', 'claude-code');
    const { report } = json([project, '--fail-on', 'never']);
    const session = '3b8e0f4d-6a2c-4e91-b7d5-0c9f1e2a4d68';
    const agentFiles = report.files.filter((file) => file.path.includes('/subagents/'));
    assert.deepEqual(
      agentFiles.map((file) => file.path),
      [join(project, session, 'subagents', 'agent-a3f9c21.jsonl')],
    );
    const agentRuns = report.runs.filter((run) => run.run_id === `${session}/agent-a3f9c21`);
    assert.deepEqual(
      agentRuns.map((run) => run.parent?.run_id),
      [session],
    );
  });
});
