/**
 * How `loopscope` starts, as a user meets it: on a Node.js too old for it (a message saying what
 * to do, never a crash), `--version`, and each command's `--help`. Through the real CLI
 * (bin/loopscope.js), so `npm run build` first.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { minimumNodeMajor, nodeVersionProblem } from '../../bin/nodeVersion.js';
import packageJson from '../../package.json';
import { runCli } from '../support/cli';
import { temporaryDir } from '../support/engineHarness';
import { repoRoot } from '../../devkit/repoPaths';

describe('nodeVersionProblem', () => {
  it('accepts the minimum major version and later ones', () => {
    for (const version of ['22.0.0', '22.23.3', '24.1.0', '100.0.0']) assert.equal(nodeVersionProblem(version), undefined, version);
  });

  it('refuses older ones, naming the running version and both remedies', () => {
    for (const version of ['20.20.2', '21.7.3', '18.0.0', '8.17.0']) {
      const problem = nodeVersionProblem(version);
      assert.ok(problem !== undefined, version);
      assert.match(problem, new RegExp(`this is Node\\.js ${version.replaceAll('.', '\\.')}\\.`));
      assert.match(problem, /npm run loopscope -- /);
      assert.match(problem, new RegExp(`install Node\\.js ${minimumNodeMajor} or later`));
    }
  });

  it('matches package.json engines', () => {
    assert.equal(packageJson.engines.node, `>=${minimumNodeMajor}`);
  });
});

/** A `node` on PATH older than the CLI needs, with its version; undefined when there is none. */
function olderNodeOnPath(): { path: string; version: string } | undefined {
  for (const directory of (process.env['PATH'] ?? '').split(delimiter)) {
    if (directory === '') continue;
    const path = join(directory, 'node');
    try {
      accessSync(path, constants.X_OK);
    } catch {
      continue;
    }
    const result = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 });
    const version = result.stdout?.trim() ?? '';
    if (result.status === 0 && Number.parseInt(version, 10) < minimumNodeMajor) return { path, version };
  }
  return undefined;
}

describe('bin/loopscope.js on an older Node.js', () => {
  const older = olderNodeOnPath();
  it(
    'says what to do and exits 2 instead of crashing',
    { skip: older === undefined ? `no node older than ${minimumNodeMajor} on PATH to run it with` : false },
    () => {
      if (older === undefined) return;
      const result = spawnSync(older.path, [join(repoRoot, 'bin', 'loopscope.js'), 'analyze', 'examples/budget-exhausted.jsonl'], {
        cwd: repoRoot,
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(result.signal, null);
      assert.equal(result.status, 2, result.stderr);
      assert.equal(result.stdout, '');
      assert.equal(result.stderr, nodeVersionProblem(older.version));
    },
  );
});

describe('loopscope --version and COMMAND --help', () => {
  let cache: { path: string; remove: () => void };
  beforeEach(() => {
    cache = temporaryDir('cli-startup-cache');
  });
  afterEach(() => {
    cache.remove();
  });
  const cli = (args: string[]) => runCli(args, { cacheDir: cache.path });

  it('--version and -V print the version of package.json', () => {
    for (const flag of ['--version', '-V']) {
      const result = cli([flag]);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout, `${packageJson.version}\n`);
      assert.equal(result.stderr, '');
    }
  });

  it("each command's --help (or -h) prints that command's usage and options, and nothing else runs", () => {
    const expected: Record<string, { has: RegExp[]; hasNot: RegExp[] }> = {
      analyze: {
        has: [/^usage: loopscope analyze FILE\|DIR\.\.\./, /--fail-on LEVEL/, /--format NAME .*claude-code/],
        hasNot: [/loopscope serve/, /--no-sandbox/],
      },
      serve: {
        has: [/^usage: loopscope serve FILE\|DIR\.\.\./, /--prices FILE/, /--idle-after S/, /--no-follow/],
        hasNot: [/loopscope analyze/, /--no-sandbox/, /--fail-on/],
      },
      open: { has: [/^usage: loopscope open \[FILE\|DIR\.\.\.\]/, /--idle-after S/, /--no-sandbox/], hasNot: [/loopscope serve/, /--fail-on/] },
      redact: { has: [/^usage: loopscope redact IN OUT/, /\[REDACTED:<kind>\]/], hasNot: [/loopscope analyze/, /--port/] },
    };
    for (const [command, { has, hasNot }] of Object.entries(expected)) {
      for (const args of [
        [command, '--help'],
        [command, '-h'],
        [command, 'no-such-file.jsonl', '--help'],
      ]) {
        const result = cli(args);
        assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
        assert.equal(result.stderr, '', args.join(' '));
        for (const pattern of has) assert.match(result.stdout, pattern, args.join(' '));
        for (const pattern of hasNot) assert.doesNotMatch(result.stdout, pattern, args.join(' '));
      }
    }
  });

  it('--help after `--` is a file name, not a request for help', () => {
    const result = cli(['analyze', '--', '--help']);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--help/);
  });
});
