/**
 * `loopscope compare`: two runs of one task (devkit/uiTraces/comparedRuns.ts), the second looking
 * up a different order at step 2 and checking a shipment the first never did. The built CLI runs as
 * a child process on real files with its own cache.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { compareReportSchema } from '../../shared/compare/compareRuns';
import { runCli } from '../support/cli';
import { afterTurns, comparedRunLines, comparedRunsTrace } from '../../devkit/uiTraces/comparedRuns';

let dir: string;
let cacheDir: string;
let twoRuns: string;
let oneRun: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopscope-compare-'));
  cacheDir = join(dir, 'cache');
  twoRuns = join(dir, 'two-runs.jsonl');
  oneRun = join(dir, 'after-only.jsonl');
  writeFileSync(twoRuns, comparedRunsTrace());
  writeFileSync(oneRun, comparedRunLines('after', afterTurns, Date.UTC(2025, 5, 3, 11)).join('\n') + '\n');
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe('loopscope compare', () => {
  test('aligns the turns, marks the changed lookup and the inserted step, and names step 2 as the first divergence', () => {
    const result = runCli(['compare', `${twoRuns}#before`, oneRun, '--json'], { cacheDir });
    assert.equal(result.status, 0, result.stderr);
    const report = compareReportSchema.parse(JSON.parse(result.stdout));
    assert.deepEqual(
      report.alignment.rows.map((row) => [row.op, row.a === null ? null : report.a.turns[row.a]!.step, row.b === null ? null : report.b.turns[row.b]!.step]),
      [
        ['same', 1, 1],
        ['changed', 2, 2],
        ['inserted', null, 3],
        ['same', 3, 4],
      ],
    );
    assert.equal(report.alignment.first_divergence, 1);
    assert.deepEqual(
      report.alignment.rows[1]!.calls.map((call) => call.op),
      ['changed'],
    );
    assert.equal(report.delta.steps, 1);
    assert.equal(report.delta.tool_calls, 1);
    assert.ok(Math.abs(report.delta.cost_usd! - 0.001) < 1e-9, `cost delta ${report.delta.cost_usd}`);
    assert.equal(report.delta.duration_ms, 1000);
  });

  test('prints the measures with their differences and the aligned turns', () => {
    const result = runCli(['compare', `${twoRuns}#before`, `${twoRuns}#after`], { cacheDir });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^steps\s+3\s+4\s+\(\+1\)$/m);
    assert.match(result.stdout, /First divergence: A step 2, B step 2: does something different\./);
    assert.match(result.stdout, /get_order\(\{"order_id":"A-10482"\}\)\s+~\s+2 {2}get_order\(\{"order_id":"A-10483"\}\)/);
    assert.match(result.stdout, /^\s+\+\s+3 {2}get_shipment/m);
  });

  test('a file of several runs needs the run named, and an unknown run is named in the error', () => {
    const several = runCli(['compare', twoRuns, oneRun], { cacheDir });
    assert.equal(several.status, 2);
    assert.match(several.stderr, /holds 2 runs: name one as .*#RUN_ID \(before, after\)/);
    const unknown = runCli(['compare', `${twoRuns}#nope`, oneRun], { cacheDir });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /has no run "nope"; its runs: before, after/);
  });

  test('a run compared with itself takes the same turns', () => {
    const result = runCli(['compare', oneRun, oneRun], { cacheDir });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /The runs take the same 4 turns\./);
  });
});
