/**
 * `loopscope compare`: two runs of one task, written as canonical events, the second looking up a
 * different order at step 2 and checking a shipment the first never did. The built CLI runs as a
 * child process on real files with its own cache.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { compareReportSchema } from '../../shared/compare/compareRuns';
import { runCli } from '../support/cli';

interface Turn {
  calls: { name: string; args: Record<string, unknown> }[];
  /** Text of a final answer, for a turn without calls. */
  answer?: string;
}

/** A canonical run whose step k issues turns[k - 1]'s calls, each answered ok, each response costing $0.001. */
function runLines(runId: string, turns: readonly Turn[], startMs: number): string[] {
  const at = (offsetMs: number): string => new Date(startMs + offsetMs).toISOString();
  const lines: unknown[] = [{ type: 'run_start', run_id: runId, ts: at(0), task: 'Where is my order?' }];
  turns.forEach((turn, index) => {
    const step = index + 1;
    const calls = turn.calls.map((call, k) => ({ call_id: `${runId}-c${step}-${k}`, name: call.name, arguments: JSON.stringify(call.args) }));
    lines.push({
      type: 'model_response',
      run_id: runId,
      step,
      ts: at(step * 1000),
      outcome: calls.length > 0 ? 'tool_calls' : 'final',
      text: turn.answer ?? null,
      tool_calls: calls,
      usage: { input_tokens: 500 * step, output_tokens: 20, cost_usd: 0.001 },
    });
    for (const call of calls)
      lines.push({ type: 'tool_result', run_id: runId, step, ts: at(step * 1000 + 500), call_id: call.call_id, name: call.name, status: 'ok', output: 'ok' });
  });
  lines.push({ type: 'run_end', run_id: runId, ts: at(turns.length * 1000 + 900), status: 'MODEL_FINISHED' });
  return lines.map((line) => JSON.stringify(line));
}

const before_: Turn[] = [
  { calls: [{ name: 'search_orders', args: { query: 'boots' } }] },
  { calls: [{ name: 'get_order', args: { order_id: 'A-10482' } }] },
  { calls: [], answer: 'Your boots ship Wednesday.' },
];
const after_: Turn[] = [
  { calls: [{ name: 'search_orders', args: { query: 'boots' } }] },
  { calls: [{ name: 'get_order', args: { order_id: 'A-10483' } }] },
  { calls: [{ name: 'get_shipment', args: { shipment_id: 'SH-88213' } }] },
  { calls: [], answer: 'Your boots ship Wednesday.' },
];

let dir: string;
let cacheDir: string;
let twoRuns: string;
let oneRun: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopscope-compare-'));
  cacheDir = join(dir, 'cache');
  twoRuns = join(dir, 'two-runs.jsonl');
  oneRun = join(dir, 'after-only.jsonl');
  writeFileSync(twoRuns, [...runLines('before', before_, Date.UTC(2025, 5, 3, 10)), ...runLines('after', after_, Date.UTC(2025, 5, 3, 11))].join('\n') + '\n');
  writeFileSync(oneRun, runLines('after', after_, Date.UTC(2025, 5, 3, 11)).join('\n') + '\n');
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
