/** Every spelling of a terminal state Loopscope knows, normalized with the loop's own spelling kept, and the predicates over states (docs/semantics.md §2). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  claimsSuccess,
  foldSpelling,
  isOngoingStatus,
  isPausedStatus,
  normalizeTerminalStatus,
  runStatusSchema,
  type RunStatus,
} from '../../../shared/trace/runStatus';

/** The states of the table in docs/semantics.md §2. */
const documentedStates = [
  'succeeded',
  'model_finished',
  'budget_exceeded',
  'protocol_error',
  'refused',
  'failed',
  'cancelled',
  'waiting_for_input',
  'waiting_for_approval',
  'unknown',
  'unterminated',
  'running',
] as const satisfies readonly RunStatus[];

/** Spellings loops and frameworks write, by the state they mean. */
const spellingsByState: Record<string, readonly string[]> = {
  // The loop finished; OpenTelemetry's UNSET is a span that ended without an error.
  succeeded: ['succeeded', 'success', 'successful', 'completed', 'complete', 'ok', 'OK', 'unset', 'done'],
  model_finished: ['model_finished', 'submitted', 'task_complete', 'finished', 'final'],
  // SWE-agent exit statuses, Inspect AI sample limits, and the usual limit names.
  budget_exceeded: [
    'budget_exceeded',
    'exit_cost',
    'exit_context',
    'exit_total_execution_time',
    'limits_exceeded',
    'message_limit',
    'token_limit',
    'time_limit',
    'working_limit',
    'cost_limit',
    'context_limit',
    'custom_limit',
    'time_exceeded',
    'budget_exhausted',
    'max_turns_exceeded',
    'max_steps_exceeded',
    'max_tool_calls_exceeded',
    'deadline_exceeded',
    'hit_cap',
  ],
  protocol_error: ['protocol_error'],
  refused: ['refused', 'refusal', 'rejected'],
  failed: [
    'failed',
    'exit_format',
    'exit_error',
    'exit_api',
    'exit_environment_error',
    'exit_command_timeout',
    'exit_command',
    'exit_forfeit',
    'failure',
    'error',
    'errored',
  ],
  // Inspect AI's operator_limit is an operator stopping the sample, not a budget.
  cancelled: ['cancelled', 'canceled', 'aborted', 'interrupted', 'user_interruption', 'stopped', 'operator_limit'],
  waiting_for_input: ['waiting_for_input', 'awaiting_user_input', 'paused'],
  waiting_for_approval: ['waiting_for_approval', 'awaiting_user_confirmation'],
};

describe('runStatusSchema', () => {
  it('accepts every documented state and nothing else', () => {
    for (const state of documentedStates) assert.equal(runStatusSchema.safeParse(state).success, true, state);
    for (const other of ['', 'done', 'SUCCEEDED', 'error']) assert.equal(runStatusSchema.safeParse(other).success, false, other);
    assert.equal(runStatusSchema.options.length, documentedStates.length);
  });
});

describe('normalizeTerminalStatus: every known spelling', () => {
  for (const [state, spellings] of Object.entries(spellingsByState)) {
    it(`reads ${spellings.length} spelling(s) as ${state}, in any case or separator`, () => {
      for (const spelling of spellings) {
        assert.deepEqual(normalizeTerminalStatus({ status: spelling }), { status: state, raw: spelling }, spelling);
        const shouted = spelling.toUpperCase().replaceAll('_', '-');
        assert.deepEqual(normalizeTerminalStatus({ status: shouted }), { status: state, raw: shouted }, shouted);
      }
    });
  }
});

describe('normalizeTerminalStatus: qualified and exception statuses', () => {
  it('reads the known limit or error in parentheses, whatever came before it', () => {
    assert.deepEqual(normalizeTerminalStatus({ status: 'submitted (exit_cost)' }), { status: 'budget_exceeded', raw: 'submitted (exit_cost)' });
    assert.deepEqual(normalizeTerminalStatus({ status: '  exited (exit_forfeit)  ' }), { status: 'failed', raw: '  exited (exit_forfeit)  ' });
    assert.deepEqual(normalizeTerminalStatus({ status: 'Submitted (Exit Context)' }), { status: 'budget_exceeded', raw: 'Submitted (Exit Context)' });
  });

  it("reads an exception's class name in parentheses as the error the run stopped on", () => {
    assert.deepEqual(normalizeTerminalStatus({ status: 'submitted (RuntimeError)' }), { status: 'failed', raw: 'submitted (RuntimeError)' });
    assert.deepEqual(normalizeTerminalStatus({ status: 'exited ( TimeoutException )' }), { status: 'failed', raw: 'exited ( TimeoutException )' });
  });

  it('reads the whole status when the parentheses hold nothing known or are not one trailing qualifier', () => {
    for (const raw of ['submitted (retry 2)', '(exit_cost)', 'submitted (exit_cost) then more', 'a (b) submitted (exit_cost)', 'submitted ((exit_cost))']) {
      assert.deepEqual(normalizeTerminalStatus({ status: raw }), { status: 'unknown', raw }, raw);
    }
  });

  it("reads an exception's class name as failed, and only a class name", () => {
    for (const raw of ['KeyError', 'Http2Error', 'APIConnectionError', ' RuntimeException '])
      assert.equal(normalizeTerminalStatus({ status: raw }).status, 'failed', raw);
    for (const raw of ['keyError', 'KeyErrors', 'Key_Error', 'Exception', 'xValueError', 'KeyError: boom', 'Not an Error'])
      assert.equal(normalizeTerminalStatus({ status: raw }).status, 'unknown', raw);
  });
});

describe('normalizeTerminalStatus: hitCap without a status', () => {
  it('reads hitCap when the status is blank', () => {
    assert.deepEqual(normalizeTerminalStatus({ status: '  ', hitCap: true }), { status: 'budget_exceeded', raw: 'hitCap:true' });
    assert.deepEqual(normalizeTerminalStatus({ status: '', hitCap: false, output: 'done' }), { status: 'succeeded', raw: 'hitCap:false' });
  });

  it('counts any output but null, undefined and the empty string as an answer', () => {
    for (const output of ['x', 0, false, {}, []]) assert.equal(normalizeTerminalStatus({ hitCap: false, output }).status, 'succeeded', JSON.stringify(output));
    for (const output of [null, undefined, '']) assert.equal(normalizeTerminalStatus({ hitCap: false, output }).status, 'failed', String(output));
  });
});

describe('foldSpelling', () => {
  it('folds case, camelCase, spaces, dots and dashes to snake_case', () => {
    assert.equal(foldSpelling('maxTurnsExceeded'), 'max_turns_exceeded');
    assert.equal(foldSpelling('  Max turns exceeded '), 'max_turns_exceeded');
    assert.equal(foldSpelling('model.finished'), 'model_finished');
    assert.equal(foldSpelling('model - . finished'), 'model_finished');
    assert.equal(foldSpelling('HTTPError'), 'httperror');
    assert.equal(foldSpelling('exit_cost'), 'exit_cost');
  });
});

describe('state predicates', () => {
  const paused = new Set<RunStatus>(['waiting_for_input', 'waiting_for_approval']);
  const ongoing = new Set<RunStatus>([...paused, 'running']);
  const success = new Set<RunStatus>(['succeeded', 'model_finished']);

  for (const state of documentedStates) {
    it(`${state}: paused ${paused.has(state)}, ongoing ${ongoing.has(state)}, claims success ${success.has(state)}`, () => {
      assert.equal(isPausedStatus(state), paused.has(state));
      assert.equal(isOngoingStatus(state), ongoing.has(state));
      assert.equal(claimsSuccess(state), success.has(state));
    });
  }
});

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
