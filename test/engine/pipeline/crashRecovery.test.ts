/**
 * A crash in the middle of an ingest: `loopscope analyze` is killed (SIGKILL, nothing runs after
 * it) while it writes the trace database, and the file is opened again. The second run must see
 * that the first did not finish, redo it, and report exactly what a run on a fresh cache reports.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateSyntheticTrace } from '../../../devkit/traceGenerators/syntheticTrace';
import { analyzeJson } from '../../support/cli';
import { temporaryDir } from '../../support/engineHarness';
import { repoRoot } from '../../../devkit/repoPaths';

/** Waits until `ready` says yes, polling every 20 ms; fails after `timeoutMs`. */
async function until(ready: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('an ingest killed half way', { timeout: 180_000 }, () => {
  const dir = temporaryDir('crash');
  let trace: string;
  before(() => {
    trace = join(dir.path, 'trace.jsonl');
    // Large enough that the kill lands while rows are being written (a store worker, batches).
    generateSyntheticTrace({ targetBytes: 40 * 1024 * 1024, seed: 3, outPath: trace });
  });
  after(() => dir.remove());

  it('is detected when the file is opened again, and redone: the report equals a fresh ingest', async () => {
    const crashedCache = join(dir.path, 'crashed-cache');
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'loopscope.js'), 'analyze', '--json', trace, '--cache-dir', crashedCache], {
      stdio: 'ignore',
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    // Kill it once its database holds some rows but well before the ingest could be done.
    const database = (): string | undefined => (existsSync(crashedCache) ? readdirSync(crashedCache).find((name) => name.endsWith('.sqlite')) : undefined);
    await until(
      () => {
        const name = database();
        return name !== undefined && statSync(join(crashedCache, name)).size > 2 * 1024 * 1024;
      },
      60_000,
      'the database to fill',
    );
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL', 'the first run was killed, not finished');
    const killed = new Database(join(crashedCache, database()!), { readonly: true });
    try {
      const sources = killed.prepare<[], { ingest_completed_at: string | null }>('SELECT ingest_completed_at FROM sources').all();
      assert.deepEqual(sources, [{ ingest_completed_at: null }], 'the kill landed while the trace was being ingested');
    } finally {
      killed.close();
    }

    const reopened = analyzeJson([trace, '--fail-on', 'never'], { cacheDir: crashedCache });
    assert.equal(reopened.result.status, 0, reopened.result.stderr);
    const fresh = analyzeJson([trace, '--fail-on', 'never'], { cacheDir: join(dir.path, 'fresh-cache') });
    assert.equal(fresh.result.status, 0, fresh.result.stderr);
    assert.ok(fresh.report.runs.length > 100, `a real trace: ${fresh.report.runs.length} runs`);
    assert.deepEqual(reopened.report, fresh.report);
  });
});
