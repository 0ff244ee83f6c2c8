/** Terminal states are normalized and the loop's own spelling is kept (docs/semantics.md §2). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPausedStatus, normalizeTerminalStatus, type RunStatus } from '../../shared/trace/runStatus';

describe('run status normalization', () => {
  const spellings: [string, RunStatus][] = [
    ['MODEL_FINISHED', 'model_finished'],
    ['model-finished', 'model_finished'],
    ['Model Finished', 'model_finished'],
    ['modelFinished', 'model_finished'],
    ['succeeded', 'succeeded'],
    ['PROTOCOL_ERROR', 'protocol_error'],
    ['BUDGET_EXCEEDED', 'budget_exceeded'],
    ['budget_exhausted', 'budget_exceeded'],
    ['Max turns exceeded', 'budget_exceeded'],
    ['failed', 'failed'],
    ['cancelled', 'cancelled'],
    ['canceled', 'cancelled'],
    ['refused', 'refused'],
    ['waiting_for_input', 'waiting_for_input'],
    ['waiting_for_approval', 'waiting_for_approval'],
    ['  succeeded  ', 'succeeded'],
    // An exception's class name as the exit status (mini-swe-agent): the run stopped on it.
    ['InternalServerError', 'failed'],
    ['TimeoutException', 'failed'],
  ];
  for (const [raw, status] of spellings) {
    it(`normalizes ${JSON.stringify(raw)} to ${status} and keeps the raw string`, () => {
      assert.deepEqual(normalizeTerminalStatus({ status: raw }), { status, raw });
    });
  }

  it('normalizes hitCap:true to budget_exceeded', () => {
    assert.deepEqual(normalizeTerminalStatus({ hitCap: true, output: '' }), { status: 'budget_exceeded', raw: 'hitCap:true' });
  });

  it('normalizes hitCap:false with output to succeeded', () => {
    assert.deepEqual(normalizeTerminalStatus({ hitCap: false, output: 'The answer is 42.' }), { status: 'succeeded', raw: 'hitCap:false' });
  });

  it('normalizes hitCap:false without output to failed', () => {
    assert.deepEqual(normalizeTerminalStatus({ hitCap: false, output: '' }), { status: 'failed', raw: 'hitCap:false' });
    assert.deepEqual(normalizeTerminalStatus({ hitCap: false }), { status: 'failed', raw: 'hitCap:false' });
  });

  it('prefers an explicit status string over hitCap', () => {
    assert.deepEqual(normalizeTerminalStatus({ status: 'PROTOCOL_ERROR', hitCap: true }), { status: 'protocol_error', raw: 'PROTOCOL_ERROR' });
  });

  for (const raw of ['EXPLODED', 'partially_done', '???', 'error budget', 'Errors']) {
    it(`maps the unknown spelling ${JSON.stringify(raw)} to unknown and keeps it`, () => {
      assert.deepEqual(normalizeTerminalStatus({ status: raw }), { status: 'unknown', raw });
    });
  }

  it('maps a run_end with neither status nor hitCap to unknown with an empty raw string', () => {
    assert.deepEqual(normalizeTerminalStatus({}), { status: 'unknown', raw: '' });
    assert.deepEqual(normalizeTerminalStatus({ status: '  ' }), { status: 'unknown', raw: '' });
  });

  it('treats only the waiting states as paused', () => {
    assert.equal(isPausedStatus('waiting_for_input'), true);
    assert.equal(isPausedStatus('waiting_for_approval'), true);
    for (const status of ['succeeded', 'failed', 'cancelled', 'unterminated', 'budget_exceeded'] as const) assert.equal(isPausedStatus(status), false);
  });
});

describe('runStatus: spellings of agent frameworks', () => {
  const cases: [string, string][] = [
    ['submitted', 'model_finished'],
    ['Submitted', 'model_finished'],
    ['submitted (exit_cost)', 'budget_exceeded'],
    ['submitted (exit_format)', 'failed'],
    ['exit_context', 'budget_exceeded'],
    ['LimitsExceeded', 'budget_exceeded'],
    ['TimeExceeded', 'budget_exceeded'],
    ['UserInterruption', 'cancelled'],
    ['awaiting_user_input', 'waiting_for_input'],
    ['awaiting_user_confirmation', 'waiting_for_approval'],
    ['UNSET', 'succeeded'],
    ['task_complete', 'model_finished'],
  ];
  for (const [raw, status] of cases) {
    it(`normalizes "${raw}" to ${status} and keeps the raw string`, () => {
      assert.deepEqual(normalizeTerminalStatus({ status: raw }), { status, raw });
    });
  }
});
