/**
 * Secrets through the built CLI, as a user or CI job meets them: `loopscope analyze` reports each
 * credential of a leaky trace as a `secret_in_trace` error where it is — line, byte, run and event
 * — without printing any of them, nor storing any in the cache database. Needs `npm run build` first.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ReportFinding } from '../../shared/report';
import { analyzeJson, runCli } from '../support/cli';
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
  assert.ok(files.some((file) => file.name.endsWith('.sqlite')), 'the analysis left a database in the cache');
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
    assert.deepEqual(report.files[0]?.parse_errors.map((error) => error.line), [trace.parseErrorLine]);
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
    for (const [name, output] of Object.entries({ 'text stdout': text.stdout, 'text stderr': text.stderr, 'json stdout': json.stdout, 'json stderr': json.stderr })) {
      assertHoldsNone(name, output, trace.written);
    }
    assertHoldsNone('the cache database', cacheBytes(), trace.written);
  });
});
