/** A run without a terminal event crashed, was killed, or is still running. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeUnterminatedRun } from '../../../shared/analysis/unterminatedRun';
import { edited, run } from './timelineBuilder';

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
    const issuing = analyzeUnterminatedRun(
      run({ status: 'unterminated' }).toolCalls({ id: 'c1' }).result('c1').toolCalls({ id: 'c2', name: 'deploy' }, { id: 'c3', name: 'notify' }).build(),
    );
    assert.match(
      issuing[0]?.message ?? '',
      /its last model or tool event is a model response at step 2 issuing deploy \(c2\), notify \(c3\) \(line \d+\); 2 calls still without a result;/,
    );
    const answered = analyzeUnterminatedRun(run({ status: 'unterminated' }).toolCalls({ id: 'c1', name: 'search' }).result('c1').build());
    assert.match(
      answered[0]?.message ?? '',
      /its last model or tool event is the result of search \(c1\) at step 1, which no model response follows \(line \d+\); nothing after it says the loop ended/,
    );
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

describe('unterminated run: what the last event was', () => {
  const lastEvent = (t: ReturnType<ReturnType<typeof run>['build']>): string => {
    const message = analyzeUnterminatedRun(t)[0]?.message ?? '';
    return /its last model or tool event is (.*) \(line \d+\)[;]/.exec(message)?.[1] ?? message;
  };

  it('names the outcome and finish reason of a response without calls', () => {
    assert.equal(
      lastEvent(run({ status: 'unterminated' }).response({ outcome: 'incomplete', finishReason: 'length' }).build()),
      'a model response at step 1 with outcome incomplete (finish reason "length")',
    );
    assert.equal(
      lastEvent(run({ status: 'unterminated' }).response({ outcome: 'incomplete', finishReason: null, step: null }).build()),
      'a model response with outcome incomplete',
    );
  });

  it('names the start of a call, an error result and a not-executed mark', () => {
    assert.equal(lastEvent(run({ status: 'unterminated' }).toolCalls({ id: 'c1' }).execution('c1').build()), 'the start of call c1 at step 1');
    assert.equal(
      lastEvent(run({ status: 'unterminated' }).toolCalls({ id: 'c1', name: 'deploy' }).error('c1', 'timeout').build()),
      'the error result of deploy (c1) at step 1, which no model response follows',
    );
    assert.equal(
      lastEvent(run({ status: 'unterminated' }).error('c1', 'timeout', { name: null, step: null }).build()),
      'the error result of call (c1), which no model response follows',
    );
    assert.equal(lastEvent(run({ status: 'unterminated' }).toolCalls({ id: 'c1' }).notExecuted('c1').build()), 'a not-executed mark for call c1 at step 1');
  });

  it('names a run_end that did not end the run', () => {
    const t = run({ status: 'unterminated' }).toolCalls({ id: 'c1' }).result('c1').pause('waiting_for_input').build();
    assert.equal(lastEvent(t), 'a run_end with status "waiting_for_input", which does not end the run');
    const unnamed = edited(run({ status: 'unterminated' }).build(), (entries) =>
      entries.push({ kind: 'run_end', eventId: 9, line: 2, step: null, ts: null, statusRaw: null }),
    );
    assert.equal(lastEvent(unnamed), 'a run_end with status "", which does not end the run');
  });

  it('counts one call still without a result in the singular, and not the calls of an incomplete response', () => {
    const t = run({ status: 'unterminated' })
      .toolCalls({ id: 'c1' }, { id: 'c2' })
      .notExecuted('c2')
      .response({ outcome: 'incomplete', finishReason: 'length', calls: [{ id: 'c3' }] })
      .build();
    assert.match(analyzeUnterminatedRun(t)[0]?.message ?? '', /; 1 call still without a result; nothing after it/);
  });

  it('gives the highest step logged, and no step when none was', () => {
    const t = run({ status: 'unterminated' }).toolCalls({ id: 'c1' }, { id: 'c0' }).result('c0').toolCalls({ id: 'c2' }).result('c2').result('c1').build();
    assert.match(analyzeUnterminatedRun(t)[0]?.message ?? '', new RegExp(`\\(the last event is at line ${t.lastLine}, step 2\\)$`));
    const stepless = run({ status: 'unterminated' }).response({ step: null, outcome: 'incomplete' }).build();
    assert.match(analyzeUnterminatedRun(stepless)[0]?.message ?? '', new RegExp(`\\(the last event is at line ${stepless.lastLine}\\)$`));
  });

  it('is reported for a run without a start that logged model or tool activity', () => {
    const t = run({ status: 'unterminated', started: false }).toolCalls({ id: 'c1' }).build();
    assert.equal(analyzeUnterminatedRun(t).length, 1);
  });
});

describe('unterminated run: calls still without a result', () => {
  it('counts a call that was started but never answered', () => {
    const t = run({ status: 'unterminated' }).toolCalls({ id: 'c1', name: 'deploy' }).execution('c1').build();
    assert.match(analyzeUnterminatedRun(t)[0]?.message ?? '', /the start of call c1 at step 1 \(line \d+\); 1 call still without a result;/);
  });
});
