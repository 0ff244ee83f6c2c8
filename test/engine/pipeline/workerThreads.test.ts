/**
 * The threads of a large ingest, through the real engine: the ingest worker parses, a store worker
 * writes and analyzes. The ingest worker ends once it has shipped the last batch, so its heap is
 * given back while the store still finishes the trace (what a user sees as the peak memory of a
 * long run's `analyze`); a store that fails still fails the open with its own error, and leaves no
 * thread behind. Threads are counted as the operating system sees them (/proc/self/task), so this
 * runs on Linux only.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { OpenStopped, openTrace, type IngestProgress } from '../../../src-main/engine/engine';
import { generateLongRunTrace } from '../../../devkit/traceGenerators/longRunTrace';
import { generateSyntheticTrace } from '../../../devkit/traceGenerators/syntheticTrace';
import { examplesDir } from '../../../devkit/repoPaths';
import { defaultAnalysis, temporaryDir } from '../../support/engineHarness';

const threads = (): number => readdirSync('/proc/self/task').length;

/** Waits until the process has `count` threads (a terminated worker's thread ends a moment later); fails after `timeoutMs`. */
async function threadsDropTo(count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (threads() > count) {
    if (Date.now() > deadline) throw new Error(`still ${threads()} threads, expected ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the ingest and store worker threads', { skip: !existsSync('/proc/self/task') && 'threads are counted in /proc', timeout: 180_000 }, () => {
  const dir = temporaryDir('threads');
  /** The process's threads with no trace being opened (Node's own, and libuv's pool started by a first open). */
  let idleThreads: number;
  before(async () => {
    await openTrace(join(examplesDir, 'budget-exhausted.jsonl'), { cacheDir: join(dir.path, 'warm-up'), analysis: defaultAnalysis });
    idleThreads = threads();
  });
  after(() => dir.remove());

  it("ends the ingest worker before the store worker has finished a long run's analysis, and holds no thread once the trace is open", async () => {
    const path = join(dir.path, 'long-run.jsonl');
    generateLongRunTrace({ events: 60_000, seed: 1, outPath: path });
    const duringRead: number[] = [];
    const afterRead: number[] = [];
    let lastProgress: IngestProgress | null = null;
    const sampler = setInterval(() => {
      const read = lastProgress !== null && lastProgress.bytesRead === lastProgress.totalBytes;
      (read ? afterRead : duringRead).push(threads());
    }, 2);
    try {
      const trace = await openTrace(path, {
        cacheDir: join(dir.path, 'cache'),
        analysis: defaultAnalysis,
        storeWorkerMinBytes: 0,
        onProgress: (progress) => (lastProgress = progress),
      });
      // A worker's thread ends a moment after the worker reports its exit: given that moment, none is left.
      await threadsDropTo(idleThreads, 2000);
      assert.equal(threads(), idleThreads, 'no worker thread is left once the trace is open');
      assert.equal(trace.idle, true);
    } finally {
      clearInterval(sampler);
    }
    assert.ok(duringRead.includes(idleThreads + 2), `both workers were seen while the file was read: ${JSON.stringify(duringRead)}`);
    // From the last progress report on, the file is read and its last batches are on their way.
    assert.ok(afterRead.includes(idleThreads + 1), `the store worker alone finished the trace: ${JSON.stringify(afterRead)}`);
  });

  it("fails the open with the store worker's error when writing fails, and ends both workers", async () => {
    const path = join(dir.path, 'synthetic.jsonl');
    generateSyntheticTrace({ targetBytes: 8 * 1024 * 1024, seed: 5, outPath: path });
    const cacheDir = join(dir.path, 'failing-cache');
    let sabotaged = false;
    // At the first progress report the database exists and the store is writing it: from then on
    // every event it inserts is refused, as a full disk or a failing device would.
    const sabotage = (): void => {
      if (sabotaged) return;
      sabotaged = true;
      const name = readdirSync(cacheDir).find((file) => file.endsWith('.sqlite'))!;
      const db = new Database(join(cacheDir, name));
      try {
        db.exec("CREATE TRIGGER refuse_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'the disk is on fire'); END");
      } finally {
        db.close();
      }
    };
    await assert.rejects(openTrace(path, { cacheDir, analysis: defaultAnalysis, storeWorkerMinBytes: 0, onProgress: sabotage }), (error: Error) => {
      assert.match(error.message, /^ingest of .*synthetic\.jsonl failed: (Error: )?writing the trace database failed: .*the disk is on fire/);
      return true;
    });
    assert.ok(sabotaged);
    await threadsDropTo(idleThreads, 5_000);
  });

  it('stops an open under way when asked: its threads end before it rejects, and the next open reads the file again', async () => {
    const path = join(dir.path, 'stopped.jsonl');
    generateSyntheticTrace({ targetBytes: 8 * 1024 * 1024, seed: 7, outPath: path });
    const whole = await openTrace(path, { cacheDir: join(dir.path, 'whole'), analysis: defaultAnalysis });
    const counts = (dbPath: string): unknown => {
      const db = new Database(dbPath, { readonly: true });
      try {
        return db.prepare('SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM runs) AS runs').get();
      } finally {
        db.close();
      }
    };
    // A store worker beside the parse, and the small file's way: the ingest worker writing itself.
    for (const storeWorkerMinBytes of [0, Number.MAX_SAFE_INTEGER]) {
      const cacheDir = join(dir.path, `stopped-${storeWorkerMinBytes}`);
      const stopping = new AbortController();
      let reported = 0;
      const opening = openTrace(path, {
        cacheDir,
        analysis: defaultAnalysis,
        storeWorkerMinBytes,
        stopped: stopping.signal,
        // Stopped once the first megabyte is read: the rest of the file is not.
        onProgress: (progress) => {
          reported = progress.bytesRead;
          stopping.abort();
        },
      });
      await assert.rejects(opening, OpenStopped);
      assert.ok(reported > 0 && reported < statSync(path).size, `stopped part-way: ${reported} bytes read`);
      await threadsDropTo(idleThreads, 2_000);
      const reopened = await openTrace(path, { cacheDir, analysis: defaultAnalysis, storeWorkerMinBytes });
      assert.equal(reopened.reused, false, 'a stopped ingest is not reused');
      assert.deepEqual(counts(reopened.dbPath), counts(whole.dbPath), `storeWorkerMinBytes ${storeWorkerMinBytes}`);
    }
  });
});
