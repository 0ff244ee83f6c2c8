/** A run without a terminal event crashed, was killed, or is still running. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeUnterminatedRun } from '../../shared/analysis/unterminatedRun';
import { run } from './timelineBuilder';

describe('unterminated run', () => {
  it('reports a finished file whose run has no terminal event, at its last line and naming the last step', () => {
    const t = run({ runId: 'r-42', status: 'unterminated' }).toolCalls({ id: 'c1' }).result('c1').toolCalls({ id: 'c2' }).build();
    const findings = analyzeUnterminatedRun(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.kind, 'unterminated_run');
    assert.equal(f?.severity, 'warning');
    assert.equal(f?.run_id, 'r-42');
    assert.equal(f?.step, null);
    assert.equal(f?.call_id, null);
    assert.equal(f?.line, t.lastLine);
    assert.match(f?.message ?? '', /run r-42 has no terminal event/);
    assert.match(f?.message ?? '', new RegExp(`the last event is at line ${t.lastLine}, step 2\\)`));
  });

  it('says what the run was doing when its log stops: the last event and the calls still without a result', () => {
    const issuing = analyzeUnterminatedRun(run({ status: 'unterminated' }).toolCalls({ id: 'c1' }).result('c1').toolCalls({ id: 'c2', name: 'deploy' }, { id: 'c3', name: 'notify' }).build());
    assert.match(issuing[0]?.message ?? '', /its last model or tool event is a model response at step 2 issuing deploy \(c2\), notify \(c3\) \(line \d+\); 2 calls still without a result;/);
    const answered = analyzeUnterminatedRun(run({ status: 'unterminated' }).toolCalls({ id: 'c1', name: 'search' }).result('c1').build());
    assert.match(answered[0]?.message ?? '', /its last model or tool event is the result of search \(c1\) at step 1, which no model response follows \(line \d+\); nothing after it says the loop ended/);
    assert.doesNotMatch(answered[0]?.message ?? '', /still without a result/);
    const startedOnly = analyzeUnterminatedRun(run({ status: 'unterminated', started: true }).build());
    assert.match(startedOnly[0]?.message ?? '', /the run started and logged no model or tool event/);
  });

  it('does not report a run still being written (live follow)', () => {
    const t = run({ status: 'running' }).toolCalls({ id: 'c1' }).build();
    assert.deepEqual(analyzeUnterminatedRun(t), []);
  });

  for (const status of ['succeeded', 'failed', 'budget_exceeded', 'waiting_for_approval'] as const) {
    it(`does not report a run that ended with status ${status}`, () => {
      assert.deepEqual(analyzeUnterminatedRun(run({ status }).final().build()), []);
    });
  }
});

describe('unterminated run: a group of records that is not a loop', () => {
  it('is not reported when the run has neither a start nor any model or tool activity', () => {
    assert.deepEqual(analyzeUnterminatedRun(run({ status: 'unterminated', started: false }).build()), []);
  });

  it('is reported when the run started, even with nothing after its start', () => {
    assert.equal(analyzeUnterminatedRun(run({ status: 'unterminated', started: true }).build()).length, 1);
  });
});
