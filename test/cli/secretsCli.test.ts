/**
 * Secrets through the built CLI, as a user or CI job meets them: `loopscope analyze` reports each
 * credential of a leaky trace as a `secret_in_trace` error where it is — line, byte, run and event
 * — without printing any of them, nor storing any in the cache database; `loopscope redact` writes
 * a copy with every one replaced and every other byte as it was. Needs `npm run build` first.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ReportFinding } from '../../shared/report';
import { analyzeJson, example, runCli } from '../support/cli';
import { temporaryDir } from '../support/engineHarness';
import { assertHoldsNone, secretTrace } from '../support/fakeSecrets';

let cache: { path: string; remove: () => void };
let work: { path: string; remove: () => void };

beforeEach(() => {
  cache = temporaryDir('secrets-cache');
  work = temporaryDir('secrets-work');
});

afterEach(() => {
  cache.remove();
  work.remove();
});

const cli = (args: string[]) => runCli(args, { cacheDir: cache.path });

function writeTrace(name: string, text: string): string {
  const path = join(work.path, name);
  writeFileSync(path, text);
  return path;
}

function cacheBytes(): Buffer {
  const files = readdirSync(cache.path, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  assert.ok(
    files.some((file) => file.name.endsWith('.sqlite')),
    'the analysis left a database in the cache',
  );
  return Buffer.concat(files.map((file) => readFileSync(join(file.parentPath, file.name))));
}

describe('loopscope analyze on a trace with credentials', () => {
  it('reports each as a secret_in_trace error at its line and byte, with its run and event', () => {
    const trace = secretTrace();
    const path = writeTrace('leaky.jsonl', trace.text);
    const { result, report } = analyzeJson(['--fail-on', 'never', path], { cacheDir: cache.path });
    assert.equal(result.status, 0, result.stderr);
    const secrets = report.findings
      .filter((f): f is ReportFinding & { details: Record<string, unknown> } => f.kind === 'secret_in_trace' && f.details !== undefined)
      .sort((a, b) => (a.details['offset'] as number) - (b.details['offset'] as number));
    assert.equal(secrets.length, trace.written.length);
    const file = readFileSync(path);
    // Each finding points at the credential's bytes in the file: byte offset and length.
    assert.deepEqual(
      secrets.map((f) => file.toString('utf8', f.details['offset'] as number, (f.details['offset'] as number) + (f.details['length'] as number))),
      trace.written,
    );
    for (const f of secrets) {
      assert.equal(f.severity, 'error');
      const lineStart = file.lastIndexOf('\n', (f.details['offset'] as number) - 1) + 1;
      assert.equal(file.subarray(0, lineStart).toString('utf8').split('\n').length, f.line, 'the line it is in');
      assert.equal(f.details['line_offset'], (f.details['offset'] as number) - lineStart);
      assert.match(f.message, /•••• \[[a-z ]+ masked\]/);
    }
    const onParseError = secrets.filter((f) => f.line === trace.parseErrorLine);
    assert.deepEqual(
      onParseError.map((f) => [f.run_id, f.details['event_id']]),
      [[null, null]],
      'a line that is not JSON belongs to no run',
    );
    assert.deepEqual(
      report.files[0]?.parse_errors.map((error) => error.line),
      [trace.parseErrorLine],
    );
    assert.ok(secrets.filter((f) => f.line !== trace.parseErrorLine).every((f) => f.run_id === 'leaky-run' && typeof f.details['event_id'] === 'number'));
    // The run's errors: the credentials on its lines, and the result of call_2, which no response issued.
    assert.equal(report.runs[0]?.findings.error, trace.written.length - 1 + 1);
  });

  it('prints none of them (text or --json, stdout or stderr) and stores none in the cache database', () => {
    const trace = secretTrace();
    const path = writeTrace('leaky.jsonl', trace.text);
    const text = cli(['analyze', path]);
    assert.equal(text.status, 1, 'secret_in_trace is an error: the default --fail-on error fails');
    assert.match(text.stdout, /secret_in_trace/);
    assert.match(text.stdout, /findings outside any run\n {2}error {3}secret_in_trace line 6 /);
    const json = cli(['analyze', '--json', path]);
    for (const [name, output] of Object.entries({
      'text stdout': text.stdout,
      'text stderr': text.stderr,
      'json stdout': json.stdout,
      'json stderr': json.stderr,
    })) {
      assertHoldsNone(name, output, trace.written);
    }
    assertHoldsNone('the cache database', cacheBytes(), trace.written);
  });
});

describe('loopscope redact IN OUT', () => {
  it('replaces every credential and leaves every other byte as it was; the copy analyzes clean, with the same runs and events', () => {
    const trace = secretTrace();
    const input = writeTrace('leaky.jsonl', trace.text);
    const output = join(work.path, 'shared.jsonl');
    const result = cli(['redact', input, output]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      /^loopscope: 15 secrets redacted \(anthropic_api_key, openai_api_key, private_key, .*stripe_secret_key ×2.*\) in .*shared\.jsonl\n$/,
    );
    assertHoldsNone('stderr', result.stderr, trace.written);

    const before = readFileSync(input, 'latin1');
    const after = readFileSync(output, 'latin1');
    assertHoldsNone('the copy', after, trace.written);
    // Walk both files: each credential, in order, became its placeholder; everything between is identical.
    let at = 0;
    let copied = 0;
    for (const secret of trace.written) {
      const start = before.indexOf(secret, at);
      const placeholder = after.indexOf('[REDACTED:', copied + (start - at));
      assert.equal(after.slice(copied, placeholder), before.slice(at, start), 'the bytes before a credential are unchanged');
      at = start + secret.length;
      copied = after.indexOf(']', placeholder) + 1;
    }
    assert.equal(after.slice(copied), before.slice(at), 'the bytes after the last credential are unchanged');

    const original = analyzeJson(['--fail-on', 'never', input], { cacheDir: cache.path }).report;
    const redacted = analyzeJson(['--fail-on', 'never', output], { cacheDir: cache.path }).report;
    assert.deepEqual(
      redacted.findings.filter((f) => f.kind === 'secret_in_trace'),
      [],
    );
    assert.deepEqual(
      redacted.runs.map((run) => [run.run_id, run.steps, run.tool_calls, run.tool_results]),
      original.runs.map((run) => [run.run_id, run.steps, run.tool_calls, run.tool_results]),
    );
    assert.equal(redacted.files[0]?.events, original.files[0]?.events);
    assert.deepEqual(
      redacted.files[0]?.parse_errors.map((e) => e.line),
      [trace.parseErrorLine],
      'the placeholder keeps each JSON line valid',
    );
  });

  it('copies a trace without credentials byte for byte, and says so', () => {
    const output = join(work.path, 'copy.jsonl');
    const result = cli(['redact', example('broken-lines'), output]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /no secrets found; .*copy\.jsonl is a byte-identical copy/);
    assert.ok(readFileSync(output).equals(readFileSync(example('broken-lines'))));
  });

  it('finds a credential that a read window cuts (a trace of several MiB)', () => {
    const trace = secretTrace();
    const filler = `${JSON.stringify({ type: 'heartbeat', note: 'x'.repeat(900) })}\n`.repeat(3000);
    const input = writeTrace('long.jsonl', filler + trace.text + filler + trace.text);
    const output = join(work.path, 'long-shared.jsonl');
    assert.equal(cli(['redact', input, output]).status, 0);
    const after = readFileSync(output, 'latin1');
    assertHoldsNone('the copy', after, trace.written);
    assert.equal(after.split('[REDACTED:').length - 1, 2 * trace.written.length);
  });

  it('refuses OUT = IN, a compressed IN, a missing IN and an unwritable OUT: exit 2, one line naming the file and the reason', () => {
    const input = writeTrace('leaky.jsonl', secretTrace().text);
    const compressed = writeTrace('leaky.jsonl.gz', '');
    writeFileSync(compressed, gzipSync(readFileSync(input)));
    const cases: [string[], RegExp][] = [
      [['redact', input, input], /leaky\.jsonl: OUT must be another file than IN/],
      [['redact', input, join(work.path, '.', 'leaky.jsonl')], /OUT must be another file than IN/],
      [['redact', compressed, join(work.path, 'out.jsonl')], /leaky\.jsonl\.gz: cannot redact a compressed file; it is gzip-compressed/],
      [['redact', join(work.path, 'missing.jsonl'), join(work.path, 'out.jsonl')], /missing\.jsonl: no such file/],
      [['redact', input, join(work.path, 'no-such-dir', 'out.jsonl')], /out\.jsonl: cannot be written: its directory does not exist/],
      [['redact', input], /redact needs two files/],
    ];
    for (const [args, message] of cases) {
      const result = cli(args);
      assert.equal(result.status, 2, args.join(' '));
      assert.match(result.stderr.split('\n')[0] ?? '', message);
    }
    assert.ok(readFileSync(input, 'utf8').includes('sk-ant-'), 'IN is untouched');
    assert.deepEqual(readdirSync(work.path).sort(), ['leaky.jsonl', 'leaky.jsonl.gz'], 'no partial copy is left behind');
  });

  it('is in --help', () => {
    const help = cli(['--help']);
    assert.match(help.stdout, /loopscope redact IN OUT/);
    assert.match(help.stdout, /\[REDACTED:<kind>\]/);
  });
});
