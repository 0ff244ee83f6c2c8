/** Arguments must parse before execution (docs/semantics.md §4). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeInvalidArguments } from '../../../shared/analysis/invalidArguments';
import { callOf, run } from './timelineBuilder';

describe('invalid arguments', () => {
  it('reports a call whose arguments did not parse as an error naming the call and the parse error', () => {
    const t = run()
      .toolCalls({ id: 'c1', name: 'read_file', args: { path: 'a' } }, { id: 'c2', name: 'write_file', argsError: 'Unexpected end of JSON input' })
      .result('c1')
      .error('c2', 'invalid_arguments')
      .final()
      .build();
    const findings = analyzeInvalidArguments(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.kind, 'invalid_arguments');
    assert.equal(f?.severity, 'error');
    assert.equal(f?.step, 1);
    assert.equal(f?.call_id, 'c2');
    assert.equal(f?.line, callOf(t, 'c2').line);
    assert.match(f?.message ?? '', /write_file \(c2, step 1\) has invalid arguments: Unexpected end of JSON input/);
    assert.doesNotMatch(f?.message ?? '', /executed anyway/);
    assert.deepEqual(f?.details, { executed: false });
  });

  it('says the call was executed anyway when the loop started executing it', () => {
    const t = run().toolCalls({ id: 'c1', name: 'shell', argsError: 'bad JSON' }).execution('c1').error('c1', 'crash').final().build();
    const [f] = analyzeInvalidArguments(t);
    assert.match(f?.message ?? '', /shell \(c1, step 1\) has invalid arguments: bad JSON; it was executed anyway/);
    assert.deepEqual(f?.details, { executed: true });
  });

  it('says the call was executed anyway when it got a successful result', () => {
    const t = run().toolCalls({ id: 'c1', argsError: 'bad JSON' }).result('c1').final().build();
    const [f] = analyzeInvalidArguments(t);
    assert.match(f?.message ?? '', /executed anyway/);
    assert.deepEqual(f?.details, { executed: true });
  });

  it('leaves the cut arguments of a call the truncated response never issued to the response verdict', () => {
    // docs/semantics.md §1: the call's arguments are unfinished because its response is; the
    // response gets truncated_response, and executing the call would be incomplete_call_executed.
    const t = run({ status: 'failed' })
      .response({
        outcome: 'incomplete',
        finishReason: 'length',
        calls: [{ id: 'c1', name: 'edit', argsError: 'stream ended before the call completed' }],
      })
      .build();
    assert.deepEqual(analyzeInvalidArguments(t), []);
  });

  it('reports nothing when every call has valid arguments', () => {
    const t = run()
      .toolCalls({ id: 'c1', args: { a: 1 } }, { id: 'c2', args: {} })
      .result('c1')
      .result('c2')
      .final()
      .build();
    assert.deepEqual(analyzeInvalidArguments(t), []);
  });
});

describe('invalid arguments: the message', () => {
  it('ends with the parse error when the call was not executed', () => {
    const t = run({ status: 'failed' }).toolCalls({ id: 'c1', name: 'edit', argsError: 'Unexpected token }' }).build();
    assert.equal(analyzeInvalidArguments(t)[0]?.message, 'call edit (c1, step 1) has invalid arguments: Unexpected token }');
  });
});
