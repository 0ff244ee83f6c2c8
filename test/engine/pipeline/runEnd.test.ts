/**
 * Where a run ends, through the real engine (worker thread, SQLite file): the first run_end that is
 * not a pause gives the status; a pause the loop went on after is a resumption; what comes after
 * the end is still stored and counted, and reported (docs/semantics.md §2, §3).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeFile, temporaryDir } from '../../support/engineHarness';

const event = (fields: Record<string, unknown>): string => JSON.stringify({ run_id: 'r1', ...fields });
const start = event({ type: 'run_start', config: { model: 'm' } });
const callRefund = event({
  type: 'model_response',
  step: 1,
  outcome: 'tool_calls',
  finish_reason: 'tool_calls',
  tool_calls: [{ call_id: 'c1', name: 'refund_order', arguments: '{"id":"A-1"}' }],
});
const refundDone = event({ type: 'tool_result', step: 1, call_id: 'c1', status: 'ok', output: { refunded: true } });
const answer = event({ type: 'model_response', step: 2, outcome: 'final', finish_reason: 'stop', text: 'done' });

describe('the end of a run', () => {
  const dir = temporaryDir('run-end');
  let fileCount = 0;
  const analyzeLines = async (lines: string[]) => {
    const path = join(dir.path, `trace-${++fileCount}.jsonl`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    const { report } = await analyzeFile(path);
    return { run: report.runs[0], findings: report.findings.map((f) => [f.kind, f.severity, f.line, f.call_id] as const) };
  };
  after(() => dir.remove());

  it('takes the status from the first run_end and reports the second as a duplicate', async () => {
    const { run, findings } = await analyzeLines([
      start,
      callRefund,
      refundDone,
      answer,
      event({ type: 'run_end', status: 'succeeded' }),
      event({ type: 'run_end', status: 'failed' }),
    ]);
    assert.equal(run?.status, 'succeeded');
    assert.equal(run?.status_raw, 'succeeded');
    assert.deepEqual(findings, [['duplicate_run_end', 'warning', 6, null]]);
  });

  it('keeps a result logged after the end in the counts, answers its call with it, and reports it as an error', async () => {
    const { run, findings } = await analyzeLines([start, callRefund, event({ type: 'run_end', status: 'cancelled' }), refundDone]);
    assert.equal(run?.status, 'cancelled');
    assert.equal(run?.tool_results, 1);
    assert.deepEqual(findings, [['event_after_end', 'error', 4, 'c1']]);
  });

  it('counts a model call made after the end among the steps', async () => {
    const { run, findings } = await analyzeLines([
      start,
      callRefund,
      refundDone,
      answer,
      event({ type: 'run_end', status: 'succeeded' }),
      event({ type: 'model_response', step: 3, outcome: 'final', finish_reason: 'stop', text: 'also…' }),
    ]);
    assert.equal(run?.steps, 3);
    assert.deepEqual(findings, [['event_after_end', 'warning', 6, null]]);
  });

  it('resumes a run paused for approval when the loop goes on, and ends it at the later run_end', async () => {
    const { run, findings } = await analyzeLines([
      start,
      callRefund,
      event({ type: 'run_end', status: 'waiting_for_approval' }),
      refundDone,
      answer,
      event({ type: 'run_end', status: 'succeeded' }),
    ]);
    assert.equal(run?.status, 'succeeded');
    assert.deepEqual(findings, []);
  });

  it('leaves a resumed run that never logged its end unterminated, its unanswered call dangling', async () => {
    const secondCall = event({
      type: 'model_response',
      step: 2,
      outcome: 'tool_calls',
      finish_reason: 'tool_calls',
      tool_calls: [{ call_id: 'c2', name: 'refund_order', arguments: '{"id":"A-2"}' }],
    });
    const { run, findings } = await analyzeLines([start, callRefund, event({ type: 'run_end', status: 'waiting_for_approval' }), refundDone, secondCall]);
    assert.equal(run?.status, 'unterminated');
    assert.deepEqual(findings.map(([kind]) => kind).sort(), ['dangling_call', 'unterminated_run']);
  });

  it('stays paused when only a record the loop did not act on (an unknown event) follows the pause', async () => {
    const { run, findings } = await analyzeLines([start, callRefund, event({ type: 'run_end', status: 'waiting_for_approval' }), event({ type: 'heartbeat' })]);
    assert.equal(run?.status, 'waiting_for_approval');
    assert.deepEqual(findings, []);
  });
});
