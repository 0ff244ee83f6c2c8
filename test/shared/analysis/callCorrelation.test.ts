/** Exactly one result per call (docs/semantics.md §4): every way the call/result pairing can fail. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { correlateCalls } from '../../../shared/analysis/callCorrelation';
import { callOf, lineOf, run, sameCall } from './timelineBuilder';

const kinds = (t: Parameters<typeof correlateCalls>[0]): string[] => correlateCalls(t).findings.map((f) => f.kind);

describe('call correlation: healthy runs', () => {
  it('reports nothing when every call gets exactly one result', () => {
    const t = run()
      .toolCalls({ id: 'c1', name: 'read_file' }, { id: 'c2', name: 'list_dir' })
      .result('c2')
      .result('c1')
      .toolCalls({ id: 'c3', name: 'write_file' })
      .error('c3', 'permission_denied')
      .final()
      .build();
    const outcome = correlateCalls(t);
    assert.deepEqual(outcome.findings, []);
    assert.deepEqual(
      [...outcome.resolutions].map((r) => [r.call.callId, r.state]),
      [
        ['c1', 'ok'],
        ['c2', 'ok'],
        ['c3', 'error'],
      ],
    );
  });

  it('links each resolution to the event that answered the call, and maps calls to their results', () => {
    const t = run().toolCalls({ id: 'c1' }).result('c1').final().build();
    const outcome = correlateCalls(t);
    const resultIndex = [...t.entries].findIndex((e) => e.kind === 'result');
    assert.equal([...outcome.resolutions][0]?.answerEventId, t.entries.eventId(resultIndex));
    assert.equal([...outcome.resolutions].find((r) => sameCall(r.call, callOf(t, 'c1')))?.resultIndex, resultIndex);
  });

  it('reports nothing for a run with no tool calls', () => {
    assert.deepEqual(correlateCalls(run().final().build()).findings, []);
  });
});

describe('call correlation: dangling calls', () => {
  it('reports a call that never got a result in a finished run as a dangling error at the call', () => {
    const t = run({ status: 'budget_exceeded', statusRaw: 'BUDGET_EXCEEDED' })
      .toolCalls({ id: 'c1', name: 'read_file' })
      .result('c1')
      .toolCalls({ id: 'c2', name: 'run_tests' })
      .build();
    const outcome = correlateCalls(t);
    assert.equal(outcome.findings.length, 1);
    const [f] = outcome.findings;
    assert.equal(f?.kind, 'dangling_call');
    assert.equal(f?.severity, 'error');
    assert.equal(f?.step, 2);
    assert.equal(f?.call_id, 'c2');
    assert.equal(f?.line, callOf(t, 'c2').line);
    assert.equal(f?.run_id, 'run-1');
    assert.match(f?.message ?? '', /run_tests \(c2, step 2\)/);
    assert.match(f?.message ?? '', /never received a result/);
    assert.match(f?.message ?? '', /status budget_exceeded \(BUDGET_EXCEEDED\)/);
    assert.equal([...outcome.resolutions][1]?.state, 'dangling');
    assert.equal([...outcome.resolutions][1]?.answerEventId, null);
  });

  it('reports dangling calls of a crashed run (unterminated, not live) and says it had no terminal event', () => {
    const t = run({ status: 'unterminated' }).toolCalls({ id: 'c1', name: 'deploy' }).build();
    const [f, ...rest] = correlateCalls(t).findings;
    assert.equal(rest.length, 0);
    assert.equal(f?.kind, 'dangling_call');
    assert.match(f?.message ?? '', /deploy \(c1, step 1\)/);
    assert.match(f?.message ?? '', /without a terminal event/);
  });

  it('shows unanswered calls of a live run still being written as pending, not dangling', () => {
    const t = run({ status: 'running' }).toolCalls({ id: 'c1' }).build();
    const outcome = correlateCalls(t);
    assert.deepEqual(outcome.findings, []);
    assert.equal([...outcome.resolutions][0]?.state, 'pending');
  });

  it('shows unanswered calls of a run waiting for approval as pending, not dangling', () => {
    const t = run({ status: 'waiting_for_approval' }).toolCalls({ id: 'c1', name: 'delete_branch' }).build();
    const outcome = correlateCalls(t);
    assert.deepEqual(outcome.findings, []);
    assert.equal([...outcome.resolutions][0]?.state, 'pending');
  });

  it('shows unanswered calls of a run waiting for input as pending', () => {
    const t = run({ status: 'waiting_for_input' }).toolCalls({ id: 'c1' }).build();
    assert.deepEqual(kinds(t), []);
    assert.equal([...correlateCalls(t).resolutions][0]?.state, 'pending');
  });

  it('still reports a dangling call in a live file whose run has already ended', () => {
    const t = run({ status: 'failed' }).toolCalls({ id: 'c1' }).build();
    assert.deepEqual(kinds(t), ['dangling_call']);
  });
});

describe('call correlation: calls that were never legitimately issued', () => {
  for (const outcome of ['incomplete', 'final', 'refusal'] as const) {
    it(`treats the calls of a response with outcome ${outcome} as not_issued, never dangling`, () => {
      const t = run({ status: 'failed' })
        .response({ outcome, finishReason: outcome === 'incomplete' ? 'length' : null, calls: [{ id: 'c1', argsError: 'truncated JSON' }] })
        .build();
      const result = correlateCalls(t);
      assert.deepEqual(result.findings, []);
      assert.equal([...result.resolutions][0]?.state, 'not_issued');
      assert.equal([...result.resolutions][0]?.answerEventId, null);
    });
  }
});

describe('call correlation: a call from an incomplete response that was answered anyway', () => {
  it('pairs the result with the call instead of calling it an orphan', () => {
    const t = run({ status: 'failed' })
      .response({ outcome: 'incomplete', finishReason: 'length', calls: [{ id: 'c1' }] })
      .result('c1')
      .build();
    const result = correlateCalls(t);
    assert.deepEqual(result.findings, []);
    assert.equal([...result.resolutions][0]?.state, 'ok');
  });
});

describe('call correlation: unexecuted calls', () => {
  it('reports a call the loop marked not executed as a warning naming the call and the reason', () => {
    const t = run({ status: 'budget_exceeded' })
      .toolCalls({ id: 'c1', name: 'read_file' }, { id: 'c2', name: 'write_file' })
      .result('c1')
      .notExecuted('c2', 'tool-call budget exhausted')
      .build();
    const outcome = correlateCalls(t);
    assert.equal(outcome.findings.length, 1);
    const [f] = outcome.findings;
    assert.equal(f?.kind, 'unexecuted_call');
    assert.equal(f?.severity, 'warning');
    assert.equal(f?.step, 1);
    assert.equal(f?.call_id, 'c2');
    assert.equal(f?.line, lineOf(t, 'not_executed', 'c2'));
    assert.match(f?.message ?? '', /write_file \(c2, step 1\) was not executed: tool-call budget exhausted/);
    assert.equal([...outcome.resolutions][1]?.state, 'unexecuted');
    const mark = [...t.entries].find((e) => e.kind === 'not_executed');
    assert.equal([...outcome.resolutions][1]?.answerEventId, mark?.eventId);
    assert.equal([...outcome.resolutions].find((r) => sameCall(r.call, callOf(t, 'c2')))?.resultIndex, null);
  });
});

describe('call correlation: orphan results', () => {
  it('reports a result whose call_id no response issued as an orphan error at the result', () => {
    const t = run().toolCalls({ id: 'c1' }).result('c1').result('ghost', { name: 'read_file', step: 1 }).final().build();
    const outcome = correlateCalls(t);
    assert.equal(outcome.findings.length, 1);
    const [f] = outcome.findings;
    assert.equal(f?.kind, 'orphan_result');
    assert.equal(f?.severity, 'error');
    assert.equal(f?.call_id, 'ghost');
    assert.equal(f?.step, 1);
    assert.equal(f?.line, lineOf(t, 'result', 'ghost'));
    assert.match(f?.message ?? '', /tool result from read_file/);
    assert.match(f?.message ?? '', /call_id ghost/);
  });

  it('reports a not-executed mark for an unknown call as an orphan', () => {
    const t = run().notExecuted('ghost', 'stopped').final().build();
    const [f, ...rest] = correlateCalls(t).findings;
    assert.equal(rest.length, 0);
    assert.equal(f?.kind, 'orphan_result');
    assert.match(f?.message ?? '', /not-executed mark/);
  });
});

describe('call correlation: duplicate results', () => {
  it('reports a second result for one call as a duplicate error at the second result', () => {
    const t = run().toolCalls({ id: 'c1', name: 'read_file' }).result('c1').result('c1').final().build();
    const outcome = correlateCalls(t);
    assert.equal(outcome.findings.length, 1);
    const [f] = outcome.findings;
    assert.equal(f?.kind, 'duplicate_result');
    assert.equal(f?.severity, 'error');
    assert.equal(f?.step, 1);
    assert.equal(f?.call_id, 'c1');
    assert.equal(f?.line, lineOf(t, 'result', 'c1', 1));
    assert.match(f?.message ?? '', /read_file \(c1, step 1\) received a second result/);
    assert.deepEqual(f?.details, { call_line: callOf(t, 'c1').line });
    // The first result is the one that counts.
    assert.equal([...outcome.resolutions][0]?.state, 'ok');
    assert.equal([...outcome.resolutions][0]?.answerEventId, [...t.entries].find((e) => e.kind === 'result')?.eventId);
  });

  it('reports a not-executed mark after the call already got its result as a duplicate', () => {
    const t = run().toolCalls({ id: 'c1' }).result('c1').notExecuted('c1').final().build();
    const [f, ...rest] = correlateCalls(t).findings;
    assert.equal(rest.length, 0);
    assert.equal(f?.kind, 'duplicate_result');
    assert.match(f?.message ?? '', /a not-executed mark/);
  });
});

describe('call correlation: duplicate call ids', () => {
  it('reports two calls reusing one call_id, each answered, only as a duplicate call id', () => {
    const t = run().toolCalls({ id: 'c1', name: 'read_file' }).result('c1').toolCalls({ id: 'c1', name: 'write_file' }).result('c1').final().build();
    const outcome = correlateCalls(t);
    assert.deepEqual(
      outcome.findings.map((f) => f.kind),
      ['duplicate_call_id'],
    );
    const [f] = outcome.findings;
    assert.equal(f?.severity, 'error');
    assert.equal(f?.step, 2);
    assert.equal(f?.call_id, 'c1');
    assert.equal(f?.line, callOf(t, 'c1', 1).line);
    assert.match(f?.message ?? '', /read_file at step 1/);
    assert.match(f?.message ?? '', /write_file at step 2/);
    assert.deepEqual(f?.details, { first_line: callOf(t, 'c1', 0).line, second_line: callOf(t, 'c1', 1).line });
    assert.deepEqual(
      [...outcome.resolutions].map((r) => r.state),
      ['ok', 'ok'],
    );
  });

  it('pairs a reused call_id within one response with its two results in order', () => {
    const t = run().toolCalls({ id: 'c1', name: 'a' }, { id: 'c1', name: 'b' }).result('c1').error('c1', 'timeout').final().build();
    const outcome = correlateCalls(t);
    assert.deepEqual(
      outcome.findings.map((f) => f.kind),
      ['duplicate_call_id'],
    );
    assert.deepEqual(
      [...outcome.resolutions].map((r) => [r.call.name, r.state]),
      [
        ['a', 'ok'],
        ['b', 'error'],
      ],
    );
  });

  it('reports the reused id and the dangling second call when only one result came back', () => {
    const t = run({ status: 'failed' }).toolCalls({ id: 'c1' }).result('c1').toolCalls({ id: 'c1' }).build();
    assert.deepEqual(kinds(t).sort(), ['dangling_call', 'duplicate_call_id']);
  });
});

describe('call correlation: out-of-order results', () => {
  it('reports a result logged before its call as an out-of-order warning, and still pairs them', () => {
    const t = run().result('c1', { name: 'read_file', step: 1 }).toolCalls({ id: 'c1', name: 'read_file' }).final().build();
    const outcome = correlateCalls(t);
    assert.equal(outcome.findings.length, 1);
    const [f] = outcome.findings;
    assert.equal(f?.kind, 'out_of_order_result');
    assert.equal(f?.severity, 'warning');
    assert.equal(f?.step, 1);
    assert.equal(f?.call_id, 'c1');
    assert.equal(f?.line, lineOf(t, 'result', 'c1'));
    assert.match(f?.message ?? '', /read_file \(c1, step 1\)/);
    assert.match(f?.message ?? '', /before the call itself/);
    assert.deepEqual(f?.details, { call_line: callOf(t, 'c1').line });
    assert.equal([...outcome.resolutions][0]?.state, 'ok');
    assert.notEqual([...outcome.resolutions].find((r) => sameCall(r.call, callOf(t, 'c1')))?.resultIndex ?? null, null);
  });
});

describe('call correlation: what the messages say when something is unknown', () => {
  it('says a call was not executed without a colon when the loop gave no reason', () => {
    const t = run({ status: 'cancelled' }).toolCalls({ id: 'c1', name: 'deploy' }).notExecuted('c1').build();
    const [f] = correlateCalls(t).findings;
    assert.equal(f?.kind, 'unexecuted_call');
    assert.match(f?.message ?? '', /^call deploy \(c1, step 1\) was not executed; the loop marked it instead of leaving it dangling$/);
  });

  it('writes "?" for the step of a reused call_id when the responses carry no step', () => {
    const t = run()
      .response({ step: null, calls: [{ id: 'c1', name: 'a' }] })
      .result('c1')
      .response({ step: null, calls: [{ id: 'c1', name: 'b' }] })
      .result('c1')
      .final()
      .build();
    const [f] = correlateCalls(t).findings;
    assert.equal(f?.kind, 'duplicate_call_id');
    assert.match(f?.message ?? '', /issued twice: a at step \? \(line \d+\) and b at step \? \(line \d+\)/);
  });

  it('does not name the tool of an orphan result that carries no name', () => {
    const t = run().result('ghost', { name: null }).final().build();
    const [f] = correlateCalls(t).findings;
    assert.equal(f?.kind, 'orphan_result');
    assert.match(f?.message ?? '', /^tool result at line \d+ answers call_id ghost/);
  });
});

describe('call correlation: the step a dangling call reports the run ended at', () => {
  it('is the highest step logged, even when an event with a lower step comes last', () => {
    // c1's result arrives after step 2 was logged; it carries step 1.
    const t = run({ status: 'failed' })
      .toolCalls({ id: 'c1', name: 'slow_build' }, { id: 'c0', name: 'lint' })
      .result('c0')
      .toolCalls({ id: 'c2', name: 'deploy' })
      .result('c1')
      .build();
    const findings = correlateCalls(t).findings;
    assert.deepEqual(
      findings.map((f) => f.call_id),
      ['c2'],
    );
    assert.match(findings[0]?.message ?? '', /the run ended at step 2 with status failed$/);
  });

  it('is left out when no event of the run has a step', () => {
    const t = run({ status: 'failed' })
      .response({ step: null, calls: [{ id: 'c1', name: 'deploy' }] })
      .build();
    const [f] = correlateCalls(t).findings;
    assert.equal(f?.kind, 'dangling_call');
    assert.match(f?.message ?? '', /never received a result; the run ended with status failed$/);
  });
});

describe('call correlation: a result logged before any call with its id', () => {
  it('goes to the issued call rather than to an earlier incomplete response that carried the id', () => {
    const t = run({ status: 'failed' })
      .result('c1', { name: 'read_file', step: 1 })
      .response({ outcome: 'incomplete', finishReason: 'length', calls: [{ id: 'c1', name: 'read_file' }] })
      .toolCalls({ id: 'c1', name: 'read_file' })
      .final()
      .build();
    const outcome = correlateCalls(t);
    assert.deepEqual(
      outcome.findings.map((f) => f.kind),
      ['out_of_order_result'],
    );
    assert.deepEqual(
      [...outcome.resolutions].map((r) => r.state),
      ['not_issued', 'ok'],
    );
    assert.equal([...outcome.resolutions].find((r) => sameCall(r.call, callOf(t, 'c1', 1)))?.resultIndex, 0);
  });
});

describe('call correlation: resolutions', () => {
  it('lists one resolution per call of every response, in log order, and nothing else', () => {
    const t = run({ status: 'failed' })
      .toolCalls({ id: 'c1' }, { id: 'c2' })
      .result('c2')
      .notExecuted('c1')
      .response({ outcome: 'incomplete', finishReason: 'length', calls: [{ id: 'c3' }] })
      .toolCalls({ id: 'c4' })
      .final()
      .build();
    assert.deepEqual(
      [...correlateCalls(t).resolutions].map((r) => [r.call.callId, r.state]),
      [
        ['c1', 'unexecuted'],
        ['c2', 'ok'],
        ['c3', 'not_issued'],
        ['c4', 'dangling'],
      ],
    );
  });
});

describe('call correlation: runs whose status was written differently', () => {
  it('leaves the raw status out of a dangling call when the loop wrote none', () => {
    const t = run({ status: 'failed', statusRaw: '' }).toolCalls({ id: 'c1', name: 'deploy' }).build();
    assert.equal(correlateCalls(t).findings[0]?.message, 'call deploy (c1, step 1) never received a result; the run ended at step 1 with status failed');
  });

  it('names a dangling call without a step by name and id only', () => {
    const t = run({ status: 'failed', statusRaw: 'ERROR' })
      .response({ step: null, calls: [{ id: 'c1', name: 'deploy' }] })
      .build();
    assert.equal(correlateCalls(t).findings[0]?.message, 'call deploy (c1) never received a result; the run ended with status failed (ERROR)');
  });
});
