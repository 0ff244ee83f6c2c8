/**
 * `loopscope analyze DIR --summary`: a directory of three sessions, two failing on the same missing
 * order with different order ids. The built CLI runs as a child process on real files.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { summarizedReportSchema } from '../../shared/summary/runsSummary';
import { runCli } from '../support/cli';

/** One run: step 1 looks the order up (failing when `missing`), step 2 answers. */
function session(runId: string, order: string, missing: boolean, startMs: number): string {
  const at = (offsetMs: number): string => new Date(startMs + offsetMs).toISOString();
  const callId = `call_${runId}x1`;
  const lines = [
    { type: 'run_start', run_id: runId, ts: at(0) },
    {
      type: 'model_response',
      run_id: runId,
      step: 1,
      ts: at(1000),
      outcome: 'tool_calls',
      tool_calls: [{ call_id: callId, name: 'get_order', arguments: JSON.stringify({ order_id: order }) }],
      usage: { input_tokens: 400, output_tokens: 20 },
    },
    missing
      ? {
          type: 'tool_result',
          run_id: runId,
          step: 1,
          ts: at(1200),
          call_id: callId,
          name: 'get_order',
          status: 'error',
          error: { code: 'ORDER_NOT_FOUND', message: `order ${order} not found` },
          latency_ms: 200,
        }
      : {
          type: 'tool_result',
          run_id: runId,
          step: 1,
          ts: at(1100),
          call_id: callId,
          name: 'get_order',
          status: 'ok',
          output: { order_id: order },
          latency_ms: 100,
        },
    { type: 'model_response', run_id: runId, step: 2, ts: at(2000), outcome: 'final', text: 'Done.', usage: { input_tokens: 500, output_tokens: 30 } },
    { type: 'run_end', run_id: runId, ts: at(2100), status: missing ? 'failed' : 'MODEL_FINISHED' },
  ];
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}

let dir: string;
let traces: string;
let cacheDir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopscope-summary-'));
  cacheDir = join(dir, 'cache');
  traces = join(dir, 'sweep');
  mkdirSync(join(traces, 'day2'), { recursive: true });
  writeFileSync(join(traces, 'sample-1.jsonl'), session('sample-1', 'A-10482', true, Date.UTC(2025, 5, 1)));
  writeFileSync(join(traces, 'sample-2.jsonl'), session('sample-2', 'A-10483', false, Date.UTC(2025, 5, 2)));
  writeFileSync(join(traces, 'day2', 'sample-3.jsonl'), session('sample-3', 'A-77', true, Date.UTC(2025, 5, 3)));
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe('analyze --summary', () => {
  test('prints one failure signature for the same missing order in two runs, and the tool with its error rate', () => {
    const result = runCli(['analyze', traces, '--summary', '--fail-on', 'never'], { cacheDir });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^3 runs in 3 files/m);
    assert.match(result.stdout, /^ {2}failed +2 +67 %$/m);
    assert.match(result.stdout, /2 runs \(67 %\) · 2 findings {2}tool_error · get_order\n {6}ORDER_NOT_FOUND: order A-<n> not found/);
    assert.match(result.stdout, /^ {2}get_order +3 +2 +67 %/m);
    // The summary replaces the per-run listing.
    assert.doesNotMatch(result.stdout, /sample-2\.jsonl +canonical/);
  });

  test('--json --summary carries the same summary as data', () => {
    const result = runCli(['analyze', traces, '--json', '--summary', '--fail-on', 'never'], { cacheDir });
    assert.equal(result.status, 0, result.stderr);
    const report = summarizedReportSchema.parse(JSON.parse(result.stdout));
    assert.equal(report.summary.runs, 3);
    const [top] = report.summary.signatures;
    assert.equal(top?.kind, 'tool_error');
    assert.equal(top?.runs, 2);
    assert.equal(top?.first_seen, '2025-06-01T00:00:00.000Z');
    assert.equal(top?.last_seen, '2025-06-03T00:00:00.000Z');
    assert.deepEqual(report.summary.tools, [{ name: 'get_order', calls: 3, errors: 2, error_rate: 2 / 3, timed: 3, p50_ms: 200, p95_ms: 200 }]);
    assert.deepEqual(report.summary.input_tokens, { runs: 3, total: 2700, p50: 900, p95: 900, max: 900 });
  });

  test('--json without --summary is the report as before, without a summary', () => {
    const result = runCli(['analyze', traces, '--json', '--fail-on', 'never'], { cacheDir });
    assert.equal(result.status, 0, result.stderr);
    assert.equal('summary' in JSON.parse(result.stdout), false);
  });
});

describe('analyze --summary --prices', () => {
  test("prices a private model's responses from the user price file; without it they have no price", () => {
    const privateDir = join(dir, 'private');
    mkdirSync(privateDir, { recursive: true });
    const response = (step: number) => ({
      type: 'model_response',
      run_id: 'private',
      step,
      ts: `2025-06-0${step}T00:00:00.000Z`,
      outcome: step === 1 ? 'tool_calls' : 'final',
      model: 'acme-coder-1',
      tool_calls: step === 1 ? [{ call_id: 'c1', name: 'look', arguments: '{}' }] : [],
      text: step === 1 ? null : 'Done.',
      usage: { input_tokens: 1000 * step, output_tokens: 100 },
    });
    const lines = [
      { type: 'run_start', run_id: 'private', ts: '2025-06-01T00:00:00.000Z' },
      response(1),
      { type: 'tool_result', run_id: 'private', step: 1, call_id: 'c1', name: 'look', status: 'ok', output: 'ok' },
      response(2),
      { type: 'run_end', run_id: 'private', status: 'MODEL_FINISHED' },
    ];
    writeFileSync(join(privateDir, 'private.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const prices = join(dir, 'prices.json');
    writeFileSync(prices, JSON.stringify({ models: [{ model: 'acme-coder-*', input_mtok: 2, output_mtok: 10 }] }));

    const unpriced = summarizedReportSchema.parse(JSON.parse(runCli(['analyze', privateDir, '--json', '--summary'], { cacheDir }).stdout));
    assert.equal(unpriced.summary.cost_usd.runs, 0);
    const priced = runCli(['analyze', privateDir, '--json', '--summary', '--prices', prices], { cacheDir });
    assert.equal(priced.status, 0, priced.stderr);
    const report = summarizedReportSchema.parse(JSON.parse(priced.stdout));
    // 3,000 input tokens at $2 and 200 output tokens at $10 per million.
    assert.ok(Math.abs(report.summary.cost_usd.total - (3000 * 2 + 200 * 10) / 1e6) < 1e-12, String(report.summary.cost_usd.total));
  });

  test('a price file that does not match its shape is refused, naming the file and the field', () => {
    const prices = join(dir, 'bad-prices.json');
    writeFileSync(prices, JSON.stringify({ models: [{ model: 'x', input_mtok: 'cheap', output_mtok: 1 }] }));
    const result = runCli(['analyze', traces, '--summary', '--prices', prices], { cacheDir });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /bad-prices\.json: models\.0\.input_mtok: .*expected number/);
  });
});
