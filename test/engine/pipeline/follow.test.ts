/**
 * Following a trace file while a loop writes it, through the real engine (ingest worker, SQLite
 * file, the file appended to on disk): appended lines are ingested alone, runs without a terminal
 * event are running with their calls pending until the file goes idle, and a truncated, rotated
 * or deleted file is told apart from one that grew.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openTrace, readReport, type FollowOptions, type IngestProgress, type TraceHandle } from '../../../src-main/engine/engine';
import { openDatabase } from '../../../src-main/engine/store/traceDatabase';
import { readRawLine } from '../../../src-main/engine/store/rawLines';
import { generateSyntheticTrace } from '../../../devkit/traceGenerators/syntheticTrace';
import { defaultAnalysis, temporaryDir } from '../../support/engineHarness';

const line = (fields: Record<string, unknown>): string => `${JSON.stringify({ run_id: 'r1', ...fields })}\n`;
const callResponse = (step: number, callId: string, runId = 'r1'): string =>
  line({
    run_id: runId,
    type: 'model_response',
    step,
    outcome: 'tool_calls',
    finish_reason: 'tool_calls',
    tool_calls: [{ call_id: callId, name: 'run_tests', arguments: `{"n":${step}}` }],
  });
const result = (step: number, callId: string, runId = 'r1'): string =>
  line({ run_id: runId, type: 'tool_result', step, call_id: callId, status: 'ok', output: `pass ${step}` });

type FollowEvent = { kind: 'followed'; progress: IngestProgress; idle: boolean } | { kind: 'replaced' | 'stopped'; reason: string };

/** Opens `path` followed, and collects what the follow reports, to wait for the next of a kind. */
async function follow(
  path: string,
  cacheDir: string,
  idleMs: number,
  storeWorkerMinBytes?: number,
): Promise<{ trace: TraceHandle; next: (kind: FollowEvent['kind'], match?: (event: FollowEvent) => boolean) => Promise<FollowEvent> }> {
  const seen: FollowEvent[] = [];
  const waiters: (() => void)[] = [];
  const record = (event: FollowEvent): void => {
    seen.push(event);
    for (const wake of waiters.splice(0)) wake();
  };
  const options: FollowOptions = {
    idleMs,
    onFollowed: (progress, idle) => record({ kind: 'followed', progress, idle }),
    onReplaced: (reason) => record({ kind: 'replaced', reason }),
    onStopped: (reason) => record({ kind: 'stopped', reason }),
  };
  const trace = await openTrace(path, {
    cacheDir,
    analysis: defaultAnalysis,
    follow: options,
    searchIndex: true,
    ...(storeWorkerMinBytes !== undefined ? { storeWorkerMinBytes } : {}),
  });
  let consumed = 0;
  const next = async (kind: FollowEvent['kind'], match: (event: FollowEvent) => boolean = () => true): Promise<FollowEvent> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      while (consumed < seen.length) {
        const event = seen[consumed++]!;
        if (event.kind === kind && match(event)) return event;
      }
      if (Date.now() > deadline) throw new Error(`no ${kind} report within 10 s; saw ${JSON.stringify(seen)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 250);
      });
    }
  };
  return { trace, next };
}

function callStates(trace: TraceHandle): Map<string, string> {
  const db = openDatabase(trace.dbPath, { readonly: true });
  try {
    const rows = db
      .prepare<[], { call_id: string; state: string }>(
        'SELECT c.call_id, s.state FROM tool_calls c JOIN call_states s ON s.event_id = c.event_id AND s.call_index = c.call_index',
      )
      .all();
    return new Map(rows.map((row) => [row.call_id, row.state]));
  } finally {
    db.close();
  }
}

function sourceRow(trace: TraceHandle): { sources: number; ingest_started_at: string; first_event_line: number; first_event_id: number } {
  const db = openDatabase(trace.dbPath, { readonly: true });
  try {
    return db
      .prepare<[], { sources: number; ingest_started_at: string; first_event_line: number; first_event_id: number }>(
        `SELECT (SELECT count(*) FROM sources) AS sources, (SELECT ingest_started_at FROM sources) AS ingest_started_at,
                (SELECT line FROM events ORDER BY id LIMIT 1) AS first_event_line, (SELECT id FROM events ORDER BY id LIMIT 1) AS first_event_id`,
      )
      .get()!;
  } finally {
    db.close();
  }
}

describe('following a trace file as it is written', { timeout: 60_000 }, () => {
  const dir = temporaryDir('follow');
  after(() => dir.remove());
  let count = 0;
  const newTrace = (content: string): { path: string; cacheDir: string } => {
    count += 1;
    const path = join(dir.path, `live-${count}.jsonl`);
    writeFileSync(path, content);
    return { path, cacheDir: join(dir.path, `cache-${count}`) };
  };

  for (const writer of ['this thread', 'a store worker'] as const) {
    it(`ingests appended lines alone (bulk load by ${writer}), keeps a run without a terminal event running with its calls pending, and ends it with its run_end`, async () => {
      const { path, cacheDir } = newTrace(line({ type: 'run_start' }) + callResponse(1, 'c1'));
      const { trace, next } = await follow(path, cacheDir, 60_000, writer === 'a store worker' ? 1 : undefined);
      try {
        let report = readReport(trace, defaultAnalysis);
        assert.equal(report.runs[0]?.status, 'running');
        assert.deepEqual(report.findings, [], 'a call still waiting for its result is not dangling');
        assert.equal(callStates(trace).get('c1'), 'pending');
        const before = sourceRow(trace);

        // A result, a new call, and a line the loop has only half written so far.
        const half = line({ type: 'run_end', status: 'MODEL_FINISHED' });
        appendFileSync(path, result(1, 'c1') + callResponse(2, 'c2') + half.slice(0, 10));
        const appended = await next('followed');
        assert.equal(appended.kind === 'followed' && appended.progress.events, 4);
        report = readReport(trace, defaultAnalysis);
        assert.equal(report.runs[0]?.status, 'running');
        assert.equal(report.runs[0]?.tool_results, 1);
        assert.deepEqual(report.files[0]?.parse_errors, [], 'a line cut where the writer is waits for its end');
        assert.deepEqual(Object.fromEntries(callStates(trace)), { c1: 'ok', c2: 'pending' });
        assert.deepEqual(sourceRow(trace), before, 'nothing was ingested again: the same source, the same first event');

        // Appended lines are retrievable byte for byte, while the file keeps growing.
        const db = openDatabase(trace.dbPath, { readonly: true });
        assert.equal(readRawLine(db, trace.sourceId, 3)?.bytes.toString(), result(1, 'c1').trimEnd());
        db.close();

        appendFileSync(path, half.slice(10));
        await next('followed');
        report = readReport(trace, defaultAnalysis);
        assert.equal(report.runs[0]?.status, 'model_finished');
        assert.deepEqual(
          report.findings.map((finding) => [finding.kind, finding.call_id]),
          [['dangling_call', 'c2']],
          'once the run ended, the call it never answered dangles',
        );
      } finally {
        await trace.stop();
      }
    });
  }

  it('ends the ingest once the file has been idle for the idle time: the run unterminated, its pending call dangling, the database reusable', async () => {
    const { path, cacheDir } = newTrace(line({ type: 'run_start' }) + callResponse(1, 'c1'));
    // 4 s: opening must finish well within the idle time even on a loaded machine, or the file is idle at once.
    const { trace, next } = await follow(path, cacheDir, 4000);
    try {
      assert.equal(trace.idle, false);
      await next('followed', (event) => event.kind === 'followed' && event.idle);
      const report = readReport(trace, defaultAnalysis);
      assert.equal(report.runs[0]?.status, 'unterminated');
      assert.deepEqual(report.findings.map((finding) => finding.kind).sort(), ['dangling_call', 'unterminated_run']);
      const reopened = await openTrace(path, { cacheDir, analysis: defaultAnalysis, searchIndex: true });
      assert.equal(reopened.reused, true, 'an idle file was read as a whole read reads it');

      // The loop wakes up: what was finished is read again, and followed from there.
      appendFileSync(path, result(1, 'c1'));
      const replaced = await next('replaced');
      assert.match(replaced.kind === 'replaced' ? replaced.reason : '', /grew again after 4 s without growing/);
    } finally {
      await trace.stop();
    }
  });

  it('reads a file that had not grown for the idle time when it was opened to its end at once, and watches it', async () => {
    const { path, cacheDir } = newTrace(line({ type: 'run_start' }) + callResponse(1, 'c1'));
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(path, hourAgo, hourAgo);
    const { trace, next } = await follow(path, cacheDir, 60_000);
    try {
      assert.equal(trace.idle, true);
      assert.equal(readReport(trace, defaultAnalysis).runs[0]?.status, 'unterminated', 'an old log without a terminal event is not running');
      appendFileSync(path, result(1, 'c1'));
      assert.equal((await next('replaced')).kind, 'replaced');
    } finally {
      await trace.stop();
    }
  });

  it('gives, once the appends are done and the file idle, the report a whole read of the file gives', async () => {
    // A generated trace of interleaved runs (streams, parallel calls, garbage lines), written as
    // its first fifth and then appended to in pieces cut anywhere, mid-line included.
    const whole = join(dir.path, 'synthetic-whole.jsonl');
    generateSyntheticTrace({ targetBytes: 2 * 1024 * 1024, seed: 3, outPath: whole });
    const bytes = readFileSync(whole);
    const cuts = [0.2, 0.33, 0.41, 0.5, 0.62, 0.7, 0.85, 0.93, 1].map((share) => Math.floor(share * bytes.length));
    const { path, cacheDir } = newTrace('');
    writeFileSync(path, bytes.subarray(0, cuts[0]));
    // 5 s: each append must be read before the file counts as idle, even on a loaded machine.
    const { trace, next } = await follow(path, cacheDir, 5000);
    try {
      for (let index = 1; index < cuts.length; index += 1) {
        appendFileSync(path, bytes.subarray(cuts[index - 1], cuts[index]));
        await next('followed', (event) => event.kind === 'followed' && !event.idle);
      }
      await next('followed', (event) => event.kind === 'followed' && event.idle);
      const followed = readReport(trace, defaultAnalysis);
      const wholeRead = readReport(
        await openTrace(path, { cacheDir: join(dir.path, 'whole-read-cache'), analysis: defaultAnalysis, searchIndex: true }),
        defaultAnalysis,
      );
      assert.ok(
        followed.runs.length > 3 && followed.findings.length > 3,
        `a trace with something to find: ${followed.runs.length} runs, ${followed.findings.length} findings`,
      );
      assert.deepEqual(followed.runs, wholeRead.runs);
      assert.deepEqual(followed.findings, wholeRead.findings);
      assert.deepEqual(followed.files[0]?.parse_errors, wholeRead.files[0]?.parse_errors);
    } finally {
      await trace.stop();
    }
  });

  it('reports a truncated file as replaced, to be read again from the start', async () => {
    const { path, cacheDir } = newTrace(line({ type: 'run_start' }) + callResponse(1, 'c1') + result(1, 'c1'));
    const { trace, next } = await follow(path, cacheDir, 60_000);
    try {
      writeFileSync(path, line({ type: 'run_start' }));
      const replaced = await next('replaced');
      assert.match(replaced.kind === 'replaced' ? replaced.reason : '', /truncated from \d+ to \d+ bytes/);
    } finally {
      await trace.stop();
    }
  });

  it('reports a rotated log (a new file at the path) as replaced, and a deleted one as stopped', async () => {
    const rotated = newTrace(line({ type: 'run_start' }));
    const first = await follow(rotated.path, rotated.cacheDir, 60_000);
    try {
      renameSync(rotated.path, `${rotated.path}.1`);
      writeFileSync(rotated.path, line({ type: 'run_start' }) + line({ type: 'run_end', status: 'ok' }));
      const replaced = await first.next('replaced');
      assert.match(replaced.kind === 'replaced' ? replaced.reason : '', /new file replaced it/);
    } finally {
      await first.trace.stop();
    }

    const deleted = newTrace(line({ type: 'run_start' }));
    const second = await follow(deleted.path, deleted.cacheDir, 60_000);
    try {
      rmSync(deleted.path);
      const stopped = await second.next('stopped');
      assert.match(stopped.kind === 'stopped' ? stopped.reason : '', /deleted/);
    } finally {
      await second.trace.stop();
    }
  });

  it('reads a reused, completely read file again once it grows', async () => {
    const { path, cacheDir } = newTrace(line({ type: 'run_start' }) + line({ type: 'run_end', status: 'ok' }));
    // Read once to its end, as `loopscope analyze` does: the next open reuses that database.
    await (await openTrace(path, { cacheDir, analysis: defaultAnalysis, searchIndex: true })).stop();
    const { trace, next } = await follow(path, cacheDir, 60_000);
    try {
      assert.equal(trace.reused, true);
      appendFileSync(path, line({ run_id: 'r2', type: 'run_start' }));
      const replaced = await next('replaced');
      assert.match(replaced.kind === 'replaced' ? replaced.reason : '', /grew since it was last read/);
    } finally {
      await trace.stop();
    }
  });
});
