/**
 * Reopening a trace from its cache (engine.ts `openTrace`): a cache that holds everything asked
 * for opens on the caller's thread, one that lacks something (the analysis for other options, the
 * search index) goes through the ingest worker; either way the report is the one a fresh ingest
 * gives, and a reopened trace that is followed stops being watched when it is stopped.
 */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateSyntheticTrace } from '../../../devkit/traceGenerators/syntheticTrace';
import { openTrace, readReport, type FollowOptions } from '../../../src-main/engine/engine';
import { defaultAnalysis, temporaryDir } from '../../support/engineHarness';

const otherAnalysis = { window: 4, threshold: 2 };

describe('reopening a trace from its cache', () => {
  const dir = temporaryDir('loopscope-reopen-');
  after(() => dir.remove());
  const path = join(dir.path, 'trace.jsonl');
  generateSyntheticTrace({ outPath: path, targetBytes: 200_000, seed: 7 });

  /** The report of a fresh ingest into a cache of its own. */
  const freshReport = async (analysis: typeof defaultAnalysis, name: string) => {
    const trace = await openTrace(path, { cacheDir: join(dir.path, name), analysis, searchIndex: true });
    await trace.stop();
    return readReport(trace, analysis);
  };

  it('gives the same trace and report as the first open, for the options stored and for others', async () => {
    const cacheDir = join(dir.path, 'shared-cache');
    const first = await openTrace(path, { cacheDir, analysis: defaultAnalysis, searchIndex: true });
    await first.stop();
    assert.equal(first.reused, false);

    const again = await openTrace(path, { cacheDir, analysis: defaultAnalysis, searchIndex: true });
    await again.stop();
    assert.equal(again.reused, true);
    assert.deepEqual({ ...again, stop: null }, { ...first, reused: true, stop: null });
    assert.deepEqual(readReport(again, defaultAnalysis), await freshReport(defaultAnalysis, 'fresh-default'));

    // Another analysis is computed into the same cache: still a reuse of the ingest.
    const other = await openTrace(path, { cacheDir, analysis: otherAnalysis, searchIndex: true });
    await other.stop();
    assert.equal(other.reused, true);
    assert.deepEqual(readReport(other, otherAnalysis), await freshReport(otherAnalysis, 'fresh-other'));
  });

  it('stops watching a reopened, followed trace when it is stopped', async () => {
    const cacheDir = join(dir.path, 'followed-cache');
    await (await openTrace(path, { cacheDir, analysis: defaultAnalysis, searchIndex: true })).stop();
    const reports: string[] = [];
    const follow: FollowOptions = {
      idleMs: 60_000,
      onFollowed: () => reports.push('followed'),
      onReplaced: (reason) => reports.push(`replaced: ${reason}`),
      onStopped: (reason) => reports.push(`stopped: ${reason}`),
    };
    const trace = await openTrace(path, { cacheDir, analysis: defaultAnalysis, searchIndex: true, follow });
    assert.equal(trace.reused, true);
    await trace.stop();
    appendFileSync(path, `${JSON.stringify({ run_id: 'late', type: 'run_start' })}\n`);
    // Several of the watch's looks (every 200 ms at most) after the file grew.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.deepEqual(reports, []);
  });
});
