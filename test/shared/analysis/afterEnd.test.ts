/** Events logged after a run's terminal event, and a second terminal event (docs/semantics.md §2, §3). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeAfterEnd } from '../../../shared/analysis/afterEnd';
import { analyzeRun } from '../../../shared/analysis/analyzeRun';
import { lineOf, responseLine, run } from './timelineBuilder';

describe('events after the end', () => {
  it('reports a tool result completing after the run was cancelled as an error naming the call and the terminal line', () => {
    const t = run({ status: 'cancelled' }).toolCalls({ id: 'c1', name: 'refund_order' }).execution('c1').end().result('c1').build();
    const findings = analyzeAfterEnd(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.kind, 'event_after_end');
    assert.equal(f?.severity, 'error');
    assert.equal(f?.call_id, 'c1');
    assert.equal(f?.line, lineOf(t, 'result', 'c1'));
    assert.match(
      f?.message ?? '',
      new RegExp(
        `tool call c1 \\(refund_order\\) completed at line ${lineOf(t, 'result', 'c1')}, after the run had ended at line ${lineOf(t, 'run_end')} with status cancelled: the loop acted after its terminal event`,
      ),
    );
    assert.deepEqual(f?.details, { end_line: lineOf(t, 'run_end'), event: 'result' });
  });

  it('reports a model call and a second side-effecting call after succeeded: one error per call, one warning for the rest', () => {
    const t = run({ status: 'succeeded' })
      .toolCalls({ id: 'c1', name: 'send_email' })
      .result('c1')
      .final()
      .end()
      .toolCalls({ id: 'c2', name: 'send_email' })
      .execution('c2')
      .result('c2')
      .final()
      .build();
    const findings = analyzeAfterEnd(t);
    assert.deepEqual(
      findings.map((f) => [f.severity, f.call_id, f.line]),
      [
        ['error', 'c2', lineOf(t, 'execution', 'c2')],
        ['warning', null, responseLine(t, 2)],
      ],
    );
    assert.match(
      findings[1]?.message ?? '',
      /2 events were logged after the run had ended at line \d+ with status succeeded: a model call at step 3 \(line \d+\), a model call at step 4 \(line \d+\)/,
    );
    assert.match(findings[0]?.message ?? '', /tool call c2 \(send_email\) started at line/);
  });

  it('reports an error result or a not-executed mark after the end as a warning, not as a side effect', () => {
    const t = run({ status: 'cancelled' }).toolCalls({ id: 'c1' }, { id: 'c2' }).end().error('c1', 'CANCELLED').notExecuted('c2', 'cancelled').build();
    const findings = analyzeAfterEnd(t);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]?.severity, 'warning');
    assert.match(findings[0]?.message ?? '', /an error result of tool call c1 .*a not-executed mark for tool call c2/);
  });

  it('lists the first events and counts the rest', () => {
    const builder = run({ status: 'succeeded' }).final().end();
    for (let i = 0; i < 8; i++) builder.final();
    const [f] = analyzeAfterEnd(builder.build());
    assert.match(f?.message ?? '', /^8 events were logged .* and 3 more$/);
  });

  it('reports nothing for a run whose terminal event is its last', () => {
    const t = run({ status: 'succeeded' }).toolCalls({ id: 'c1' }).result('c1').final().build();
    assert.deepEqual(analyzeAfterEnd(t), []);
  });

  it('treats events after a pause as the run resuming, not as events after the end', () => {
    const t = run({ status: 'succeeded' }).toolCalls({ id: 'c1', name: 'deploy' }).pause('waiting_for_approval').execution('c1').result('c1').final().build();
    assert.deepEqual(analyzeAfterEnd(t), []);
  });

  it('reports nothing for a run without a terminal event (unterminated or still running)', () => {
    for (const status of ['unterminated', 'running'] as const) {
      const t = run({ status }).toolCalls({ id: 'c1' }).result('c1').build();
      assert.deepEqual(analyzeAfterEnd({ ...t, endEventId: null }), [], status);
    }
  });

  it('still counts events after the end in the other analyses: their call is answered, not dangling', () => {
    const t = run({ status: 'cancelled' }).toolCalls({ id: 'c1', name: 'refund_order' }).end().result('c1').build();
    const kinds = analyzeRun(t, { window: 6, threshold: 3 }).findings.map((f) => f.kind);
    assert.deepEqual(kinds, ['event_after_end']);
  });
});

describe('a second run_end', () => {
  it('is a duplicate: the first counts, and the message says when the two disagree', () => {
    const t = run({ status: 'succeeded', statusRaw: 'succeeded' }).final().end().end({ statusRaw: 'failed' }).build();
    const findings = analyzeAfterEnd(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.kind, 'duplicate_run_end');
    assert.equal(f?.severity, 'warning');
    assert.equal(f?.line, lineOf(t, 'run_end', undefined, 1));
    assert.match(
      f?.message ?? '',
      new RegExp(
        `a second run_end at line ${lineOf(t, 'run_end', undefined, 1)} \\(status failed\\) for a run that had already ended at line ${lineOf(t, 'run_end')} with status succeeded: the first run_end counts, so the run's status is succeeded; the two disagree`,
      ),
    );
  });

  it('says nothing of disagreement when both say the same', () => {
    const t = run({ status: 'succeeded' }).final().end().end().build();
    const [f] = analyzeAfterEnd(t);
    assert.doesNotMatch(f?.message ?? '', /disagree/);
  });

  it('is not a duplicate when the first run_end was a pause the run resumed from', () => {
    const t = run({ status: 'succeeded' }).toolCalls({ id: 'c1' }).pause().result('c1').final().end().build();
    assert.deepEqual(analyzeAfterEnd(t), []);
  });
});

describe('events after the end: the details a message gives', () => {
  it('says only where the run ended when its run_end wrote no status', () => {
    const t = run({ status: 'failed' }).toolCalls({ id: 'c1', name: 'deploy' }).end({ statusRaw: null }).result('c1').build();
    const [f] = analyzeAfterEnd(t);
    assert.equal(
      f?.message,
      `tool call c1 (deploy) completed at line ${lineOf(t, 'result', 'c1')}, after the run had ended at line ${lineOf(t, 'run_end')}: the loop acted after its terminal event`,
    );
  });

  it('takes the name from the result of a call no response issued, and names none for a start of an unknown call', () => {
    const t = run({ status: 'cancelled' }).final().end().result('ghost', { name: 'refund_order' }).execution('phantom').build();
    const findings = analyzeAfterEnd(t);
    assert.match(findings[0]?.message ?? '', /^tool call ghost \(refund_order\) completed at line/);
    assert.match(findings[1]?.message ?? '', /^tool call phantom started at line \d+, after/);
    assert.deepEqual(findings[1]?.details, { end_line: lineOf(t, 'run_end'), event: 'execution' });
  });

  it('reports one side effect per call: its start, not also its result', () => {
    const t = run({ status: 'cancelled' }).toolCalls({ id: 'c1' }).end().execution('c1').result('c1').build();
    const findings = analyzeAfterEnd(t);
    assert.deepEqual(
      findings.map((f) => [f.severity, f.line]),
      [['error', lineOf(t, 'execution', 'c1')]],
    );
  });

  it('writes one event in the singular, and a model call without a step without one', () => {
    const t = run({ status: 'succeeded' }).final().end().final({ step: null }).build();
    const [f] = analyzeAfterEnd(t);
    assert.equal(
      f?.message,
      `1 event was logged after the run had ended at line ${lineOf(t, 'run_end')} with status succeeded: a model call (line ${responseLine(t, 1)})`,
    );
    assert.deepEqual(f?.details, { end_line: lineOf(t, 'run_end'), events: 1, model_calls: 1 });
    assert.equal(f?.step, null);
  });

  it('lists up to five events without counting any more, and counts only the model calls among them', () => {
    const builder = run({ status: 'cancelled' }).toolCalls({ id: 'c1' }, { id: 'c2' }).end().error('c1', 'CANCELLED').notExecuted('c2');
    for (let i = 0; i < 3; i++) builder.final();
    const [f] = analyzeAfterEnd(builder.build());
    assert.match(f?.message ?? '', /^5 events were logged .*, a model call at step 4 \(line \d+\)$/);
    assert.deepEqual(f?.details?.['model_calls'], 3);
    assert.equal(f?.step, 1);
  });

  it('says nothing of disagreement when the second run_end wrote no status, and leaves its status out', () => {
    const t = run({ status: 'succeeded' }).final().end().end({ statusRaw: null }).build();
    const [f] = analyzeAfterEnd(t);
    assert.equal(
      f?.message,
      `a second run_end at line ${lineOf(t, 'run_end', undefined, 1)} for a run that had already ended at line ${lineOf(t, 'run_end')} with status succeeded: the first run_end counts, so the run's status is succeeded`,
    );
    assert.deepEqual(f?.details, { end_line: lineOf(t, 'run_end'), end_status_raw: 'succeeded', status_raw: null });
  });
});

describe('events after the end: the warning', () => {
  it('is an event_after_end that lists exactly the first five events', () => {
    const builder = run({ status: 'succeeded' }).final().end();
    for (let i = 0; i < 6; i++) builder.final();
    const t = builder.build();
    const [f] = analyzeAfterEnd(t);
    assert.equal(f?.kind, 'event_after_end');
    const listed = [1, 2, 3, 4, 5].map((n) => `a model call at step ${n + 1} (line ${responseLine(t, n)})`).join(', ');
    assert.equal(f?.message, `6 events were logged after the run had ended at line ${lineOf(t, 'run_end')} with status succeeded: ${listed} and 1 more`);
  });
});
