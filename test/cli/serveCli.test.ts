/**
 * `loopscope serve` as a user runs it: the built CLI in a child process (`npm run build` first),
 * printing a URL that serves the built UI and the API, until it is interrupted.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TraceSummary } from '../../shared/api';
import { analyzeJson, example, runCli } from '../support/cli';
import { generateSyntheticTrace } from '../../devkit/traceGenerators/syntheticTrace';
import { temporaryDir } from '../support/engineHarness';
import { repoRoot } from '../../devkit/repoPaths';

const SERVING_LINE = /^Loopscope is serving (\d+) files? at (http:\/\/127\.0\.0\.1:(\d+)\/[A-Za-z0-9_-]{43}\/)$/m;

/** Starts `loopscope serve …args` and resolves with the URL it prints. */
async function startServe(args: string[], cacheDir: string): Promise<{ child: ChildProcessWithoutNullStreams; url: string; line: RegExpExecArray }> {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'loopscope.js'), 'serve', ...args, '--cache-dir', cacheDir], { cwd: repoRoot });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = SERVING_LINE.exec(stdout);
      if (match) resolve(match);
    });
    child.on('exit', (code) => reject(new Error(`loopscope serve exited with ${code} before printing its URL:\n${stdout}${stderr}`)));
  });
  return { child, url: line[2]!, line };
}

describe('loopscope serve', () => {
  const cache = temporaryDir('serve-cli');
  let served: Awaited<ReturnType<typeof startServe>>;
  before(async () => {
    served = await startServe([example('dangling-call'), example('broken-lines')], cache.path);
  });
  after(() => {
    if (served.child.exitCode === null) served.child.kill('SIGKILL');
    cache.remove();
  });

  it('prints the URL of the UI, which serves the built index.html and its assets', async () => {
    assert.equal(served.line[1], '2');
    const page = await fetch(served.url);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<div id="root"><\/div>/);
    const asset = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(asset, 'the page references its script relatively');
    const script = await fetch(new URL(asset, served.url));
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal((await fetch(served.url.replace(/\/[^/]+\/$/, '/'))).status, 404, 'no page without the token');
  });

  it('answers the API for the files it was given', async () => {
    const response = await fetch(new URL('api/listTraces', served.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(response.status, 200);
    const traces = (await response.json()) as TraceSummary[];
    assert.deepEqual(
      traces.map((trace) => trace.path),
      [join(repoRoot, example('dangling-call')), join(repoRoot, example('broken-lines'))],
    );
  });

  it('stops cleanly on SIGINT', async () => {
    served.child.kill('SIGINT');
    const [code] = (await once(served.child, 'exit')) as [number | null];
    assert.equal(code, 0);
  });
});

describe('loopscope serve, interrupted early', () => {
  const cache = temporaryDir('serve-cli-interrupted');
  after(() => cache.remove());

  it('stops cleanly on a SIGINT sent as soon as the URL is printed', async () => {
    // The signal races the start-up: a few rounds, each a fresh process.
    for (let round = 0; round < 3; round++) {
      const { child } = await startServe([example('dangling-call')], join(cache.path, `round-${round}`));
      child.kill('SIGINT');
      const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
      assert.deepEqual({ code, signal }, { code: 0, signal: null }, `round ${round}`);
    }
  });

  it('stops an ingest under way on SIGINT, and the file is read whole the next time', async () => {
    const trace = join(cache.path, 'large.jsonl');
    generateSyntheticTrace({ targetBytes: 24 * 1024 * 1024, seed: 3, outPath: trace });
    const interruptedCache = join(cache.path, 'interrupted');
    const { child } = await startServe([trace], interruptedCache);
    child.kill('SIGINT');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
    const after = analyzeJson([trace], { cacheDir: interruptedCache }).report;
    const fresh = analyzeJson([trace], { cacheDir: join(cache.path, 'fresh') }).report;
    assert.ok(fresh.runs.length > 10);
    assert.deepEqual(after.runs, fresh.runs);
    assert.deepEqual(after.findings, fresh.findings);
  });
});

describe('loopscope serve refuses', () => {
  const cache = temporaryDir('serve-cli-errors');
  after(() => cache.remove());

  it('a missing file, before serving anything', () => {
    const result = runCli(['serve', 'examples/no-such-trace.jsonl'], { cacheDir: cache.path });
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, 'loopscope: examples/no-such-trace.jsonl: no such file\n');
  });

  it('no file, or a port that is not one, with the usage', () => {
    for (const args of [['serve'], ['serve', example('dangling-call'), '--port', 'http']]) {
      const result = runCli(args, { cacheDir: cache.path });
      assert.equal(result.status, 2, args.join(' '));
      assert.match(result.stderr, /usage: loopscope analyze[\s\S]*loopscope serve FILE/);
    }
  });

  it('a port already in use, saying so', async () => {
    const occupant = createServer();
    occupant.listen(0, '127.0.0.1');
    await once(occupant, 'listening');
    const port = (occupant.address() as { port: number }).port;
    try {
      const child = spawn(
        process.execPath,
        [join(repoRoot, 'bin', 'loopscope.js'), 'serve', example('dangling-call'), '--port', String(port), '--cache-dir', cache.path],
        { cwd: repoRoot },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 2);
      assert.equal(stderr, `loopscope: port ${port} is already in use; choose another with --port, or leave it out for a free one\n`);
    } finally {
      occupant.close();
    }
  });
});
