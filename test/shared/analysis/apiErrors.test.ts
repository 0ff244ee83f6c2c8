/** Provider errors (docs/semantics.md §7): what a refused model call cost the run decides its severity. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeApiErrors } from '../../../shared/analysis/apiErrors';
import { lineOf, responseLine, run } from './timelineBuilder';

describe('api errors', () => {
  it('is info when the loop retried and a retry went through, naming status, type, message and the retry', () => {
    const t = run({ status: 'model_finished' })
      .toolCalls({ id: 'c1', name: 'read_file' })
      .result('c1')
      .apiError(529, 'overloaded_error', 'Overloaded')
      .final()
      .build();
    const findings = analyzeApiErrors(t);
    assert.deepEqual(
      findings.map((f) => [f.kind, f.severity, f.step, f.line]),
      [['api_error', 'info', 2, responseLine(t, 1)]],
    );
    assert.equal(
      findings[0]?.message,
      `the model call at step 2 (line ${responseLine(t, 1)}) failed at the provider with HTTP 529 overloaded_error: Overloaded; the loop retried, and the call at step 3 (line ${responseLine(t, 2)}) went through`,
    );
    assert.deepEqual(findings[0]?.details, {
      status: 529,
      type: 'overloaded_error',
      message: 'Overloaded',
      retried: true,
      recovered_step: 3,
      recovered_line: responseLine(t, 2),
      later_failures: 0,
    });
  });

  it('counts the failed attempts of a retry storm, each error its own finding', () => {
    const t = run({ status: 'model_finished' })
      .apiError(429, 'rate_limit_error')
      .apiError(429, 'rate_limit_error')
      .apiError(529, 'overloaded_error')
      .final()
      .build();
    const findings = analyzeApiErrors(t);
    assert.deepEqual(
      findings.map((f) => [f.severity, f.details?.['later_failures'], f.details?.['recovered_step']]),
      [
        ['info', 2, 4],
        ['info', 1, 4],
        ['info', 0, 4],
      ],
    );
    assert.match(findings[0]?.message ?? '', /HTTP 429 rate_limit_error; the loop retried; 2 more attempts failed, and the call at step 4/);
  });

  it('is an error when no model call went through after it: the error ended the run', () => {
    const t = run({ status: 'failed' })
      .toolCalls({ id: 'c1', name: 'lint' })
      .result('c1')
      .apiError(400, 'invalid_request_error', 'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: c2')
      .build();
    const [f] = analyzeApiErrors(t);
    assert.equal(f?.severity, 'error');
    assert.match(
      f?.message ?? '',
      /HTTP 400 invalid_request_error: messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: c2; no model call went through after it: the error ended the run$/,
    );
    assert.deepEqual(f?.details?.['retried'], false);
  });

  it('is an error when every retry failed too, saying how many', () => {
    const t = run({ status: 'unterminated' }).final().apiError(500, 'api_error').apiError(500, 'api_error').build();
    const findings = analyzeApiErrors(t);
    assert.deepEqual(
      findings.map((f) => f.severity),
      ['error', 'error'],
    );
    assert.match(findings[0]?.message ?? '', /; 1 more attempt failed: the error ended the run$/);
  });

  it('is a warning when the next call went through only after the loop changed its request (new tool activity)', () => {
    const t = run({ status: 'model_finished' })
      .toolCalls({ id: 'c1', name: 'lint' }, { id: 'c2', name: 'test' })
      .result('c1')
      .apiError(400, 'invalid_request_error', 'tool_use ids were found without tool_result blocks: c2')
      .result('c2', { step: 1 })
      .final()
      .build();
    const [f] = analyzeApiErrors(t);
    assert.equal(f?.severity, 'warning');
    assert.match(
      f?.message ?? '',
      new RegExp(
        `the loop changed its request \\(tool activity at line ${lineOf(t, 'result', 'c2')}\\), then the call at step 3 \\(line ${responseLine(t, 2)}\\) went through$`,
      ),
    );
    assert.equal(f?.details?.['retried'], false);
  });

  it('is only a warning while the run is still being written', () => {
    const t = run({ status: 'running' }).apiError(529, 'overloaded_error').build();
    const [f] = analyzeApiErrors(t);
    assert.equal(f?.severity, 'warning');
    assert.match(f?.message ?? '', /no model call has gone through since \(the run is still being written\)$/);
  });

  it('describes an error that names no status (a stream error event) or only a message', () => {
    const t = run({ status: 'model_finished' }).apiError(null, 'overloaded_error', 'Overloaded').apiError(null, null, 'socket hang up').final().build();
    const findings = analyzeApiErrors(t);
    assert.match(findings[0]?.message ?? '', /failed at the provider with overloaded_error: Overloaded;/);
    assert.match(findings[1]?.message ?? '', /failed at the provider with socket hang up;/);
  });

  it('reports nothing for responses the provider gave, however incomplete', () => {
    const t = run({ status: 'unterminated' })
      .toolCalls({ id: 'c1' })
      .result('c1')
      .response({ outcome: 'incomplete', finishReason: 'length' })
      .response({ outcome: 'incomplete', finishReason: null })
      .build();
    assert.deepEqual(analyzeApiErrors(t), []);
  });
});

describe('api errors: what changed between the error and the call that went through', () => {
  it('counts a not-executed mark or a tool start as the loop changing its request', () => {
    for (const change of ['notExecuted', 'execution'] as const) {
      const builder = run({ status: 'model_finished' }).toolCalls({ id: 'c1' }).apiError(400, 'invalid_request_error');
      if (change === 'notExecuted') builder.notExecuted('c1');
      else builder.execution('c1');
      const t = builder.final().build();
      const [f] = analyzeApiErrors(t);
      assert.equal(f?.severity, 'warning', change);
      assert.match(f?.message ?? '', new RegExp(`tool activity at line ${responseLine(t, 1) + 1}\\)`), change);
    }
  });

  it('takes the first tool activity after the error, and only activity before the call that went through', () => {
    const t = run({ status: 'model_finished' })
      .toolCalls({ id: 'c1' }, { id: 'c2' })
      .apiError(400, 'invalid_request_error')
      .result('c1')
      .result('c2')
      .apiError(529, 'overloaded_error')
      .final()
      .build();
    const findings = analyzeApiErrors(t);
    assert.deepEqual(
      findings.map((f) => f.severity),
      ['warning', 'info'],
    );
    assert.match(
      findings[0]?.message ?? '',
      new RegExp(`tool activity at line ${lineOf(t, 'result', 'c1')}\\); 1 more attempt failed, then the call at step 4`),
    );
  });

  it('counts only the failures after each error, up to the next call that went through', () => {
    const t = run({ status: 'failed' }).apiError(529, 'overloaded_error').final().apiError(529, 'overloaded_error').apiError(529, 'overloaded_error').build();
    assert.deepEqual(
      analyzeApiErrors(t).map((f) => [f.severity, f.details?.['later_failures'], f.details?.['recovered_step'], f.details?.['recovered_line']]),
      [
        ['info', 0, 2, responseLine(t, 1)],
        ['error', 1, null, null],
        ['error', 0, null, null],
      ],
    );
  });

  it('names a call without a step by its line', () => {
    const t = run({ status: 'model_finished' }).apiError(529, 'overloaded_error', null, { step: null }).final({ step: null }).build();
    assert.equal(
      analyzeApiErrors(t)[0]?.message,
      `the model call at the call (line ${responseLine(t, 0)}) failed at the provider with HTTP 529 overloaded_error; the loop retried, and the call at the call (line ${responseLine(t, 1)}) went through`,
    );
  });

  it('is an error in a paused run: only a run still being written may yet recover', () => {
    const t = run({ status: 'waiting_for_input' }).apiError(529, 'overloaded_error').build();
    assert.equal(analyzeApiErrors(t)[0]?.severity, 'error');
  });
});
