import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ReportFinding } from '../../../shared/report';
import { distribution, findingSubject, summarizeRuns, ToolTally, type SummarizedRun } from '../../../shared/summary/runsSummary';

function finding(fields: Partial<ReportFinding> & Pick<ReportFinding, 'kind' | 'message'>): ReportFinding {
  return { severity: 'warning', run_id: 'run-1', step: 2, call_id: null, line: 7, file: 'a.jsonl', ...fields };
}

function run(file: string, runId: string, fields: Partial<SummarizedRun> = {}): SummarizedRun {
  return {
    file,
    run_id: runId,
    status: 'model_finished',
    started_at: null,
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
    duration_ms: null,
    ...fields,
  };
}

describe('findingSubject', () => {
  test('a tool error is its code and error line, under its tool', () => {
    const subject = findingSubject({
      finding: finding({
        kind: 'tool_error',
        message: 'get_order (call_1, step 2) returned an error',
        details: { code: 'NOT_FOUND', error_line: 'order A-1 not found' },
      }),
      tool: 'get_order',
    });
    assert.deepEqual(subject, { kind: 'tool_error', tool: 'get_order', text: 'NOT_FOUND: order A-1 not found' });
  });

  test('a repeated action is its call', () => {
    const subject = findingSubject({
      finding: finding({ kind: 'repeated_action', message: 'read_file(...) was repeated', details: { name: 'read_file', arguments: '{"path":"/a/b.py"}' } }),
      tool: null,
    });
    assert.deepEqual(subject, { kind: 'repeated_action', tool: 'read_file', text: 'read_file({"path":"/a/b.py"})' });
  });

  test('another finding is its message, its own call id and run id taken out where they stand alone', () => {
    const subject = findingSubject({
      finding: finding({
        kind: 'dangling_call',
        run_id: 'run-7',
        call_id: 'bad-fields:step2:call0',
        message: 'call get (bad-fields:step2:call0, step 2) never received a result in run run-7; run-77 too',
      }),
      tool: 'get',
    });
    assert.equal(subject.text, 'call get (<id>, step 2) never received a result in run <run>; run-77 too');
  });

  test('a run id that is a plain word is left in the message', () => {
    const subject = findingSubject({ finding: finding({ kind: 'unterminated_run', run_id: 'a', message: 'run a has a call left' }), tool: null });
    assert.equal(subject.text, 'run a has a call left');
  });
});

describe('distribution', () => {
  test('nearest-rank percentiles over the runs that have the measure; runs without it are counted out', () => {
    assert.deepEqual(distribution([3, null, 1, 2, 10]), { runs: 4, total: 16, p50: 2, p95: 10, max: 10 });
    assert.deepEqual(distribution([null]), { runs: 0, total: 0, p50: null, p95: null, max: null });
  });
});

describe('summarizeRuns', () => {
  const runs = [
    run('a.jsonl', 'r1', { status: 'failed', started_at: '2025-06-01T10:00:00Z', cost_usd: 0.5, input_tokens: 100 }),
    run('b.jsonl', 'r1', { status: 'failed', started_at: '2025-06-03T10:00:00Z', input_tokens: 300 }),
    run('c.jsonl', 'r9', { started_at: '2025-06-02T10:00:00Z' }),
  ];
  const notFound = (file: string, order: string, line: number): ReportFinding =>
    finding({ kind: 'tool_error', file, run_id: 'r1', line, message: 'x', details: { code: 'ORDER_NOT_FOUND', error_line: `order ${order} not found` } });
  const findings = [
    { finding: notFound('a.jsonl', 'A-10482', 4), tool: 'get_order' },
    { finding: notFound('a.jsonl', 'A-10483', 9), tool: 'get_order' },
    { finding: notFound('b.jsonl', 'A-55555', 5), tool: 'get_order' },
    { finding: finding({ kind: 'refusal', file: 'c.jsonl', run_id: 'r9', message: 'the model response at step 3 is a refusal' }), tool: null },
  ];

  test('one signature for the same failure across runs, with its runs, findings, share, first and last seen and an example', () => {
    const tools = new ToolTally();
    const summary = summarizeRuns(runs, findings, tools);
    assert.equal(summary.signatures.length, 2);
    const [top] = summary.signatures;
    assert.deepEqual(top, {
      kind: 'tool_error',
      tool: 'get_order',
      text: 'ORDER_NOT_FOUND: order A-<n> not found',
      findings: 3,
      runs: 2,
      share: 2 / 3,
      first_seen: '2025-06-01T10:00:00Z',
      last_seen: '2025-06-03T10:00:00Z',
      example: { file: 'a.jsonl', run_id: 'r1', line: 4 },
    });
    assert.deepEqual(summary.findings, [
      { kind: 'tool_error', findings: 3, runs: 2 },
      { kind: 'refusal', findings: 1, runs: 1 },
    ]);
    assert.deepEqual(summary.by_status, [
      { status: 'failed', runs: 2 },
      { status: 'model_finished', runs: 1 },
    ]);
    assert.deepEqual(summary.cost_usd, { runs: 1, total: 0.5, p50: 0.5, p95: 0.5, max: 0.5 });
    assert.equal(summary.input_tokens.runs, 2);
  });

  test('tools by calls, with errors and latency percentiles of the timed calls', () => {
    const tools = new ToolTally();
    for (const latency of [100, 200, 300, null]) tools.add({ name: 'get_order', state: latency === 300 ? 'error' : 'ok', latency_ms: latency });
    tools.add({ name: 'bash', state: 'dangling', latency_ms: null });
    assert.deepEqual(summarizeRuns(runs, [], tools).tools, [
      { name: 'get_order', calls: 4, errors: 1, error_rate: 0.25, timed: 3, p50_ms: 200, p95_ms: 300 },
      { name: 'bash', calls: 1, errors: 0, error_rate: 0, timed: 0, p50_ms: null, p95_ms: null },
    ]);
  });
});
