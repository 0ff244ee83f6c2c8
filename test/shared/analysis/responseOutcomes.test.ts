/** What each model response says about the loop (docs/semantics.md §1). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeResponseOutcomes } from '../../../shared/analysis/responseOutcomes';
import type { ResponseSpec } from './timelineBuilder';
import { lineOf, responseLine, run } from './timelineBuilder';

/** One tool-call turn, then the response under test at step 2. */
function analyzeSecond(spec: ResponseSpec) {
  const t = run({ status: 'failed' }).toolCalls({ id: 'c1' }).result('c1').response(spec).build();
  return { t, findings: analyzeResponseOutcomes(t) };
}

describe('response outcomes: dropped tool calls', () => {
  for (const reason of ['tool_calls', 'tool_use', 'TOOL_CALLS']) {
    it(`reports finish reason "${reason}" with no tool call as a dropped tool call`, () => {
      const { t, findings } = analyzeSecond({ outcome: 'incomplete', finishReason: reason, calls: [] });
      assert.equal(findings.length, 1);
      const [f] = findings;
      assert.equal(f?.kind, 'dropped_tool_call');
      assert.equal(f?.severity, 'error');
      assert.equal(f?.step, 2);
      assert.equal(f?.call_id, null);
      assert.equal(f?.line, responseLine(t, 1));
      assert.match(f?.message ?? '', /step 2/);
      assert.ok(f?.message.includes(`"${reason}"`));
      assert.match(f?.message ?? '', /carries no tool call/);
    });
  }

  it('reports an outcome tool_calls with no calls and no finish reason as a dropped tool call', () => {
    const { findings } = analyzeSecond({ outcome: 'tool_calls', finishReason: null, calls: [] });
    assert.deepEqual(
      findings.map((f) => f.kind),
      ['dropped_tool_call'],
    );
    assert.match(findings[0]?.message ?? '', /outcome tool_calls/);
  });
});

describe('response outcomes: truncation, refusal, unknown finish reasons', () => {
  for (const reason of ['length', 'max_tokens']) {
    it(`reports finish reason "${reason}" as a truncated response warning`, () => {
      const { t, findings } = analyzeSecond({ outcome: 'incomplete', finishReason: reason });
      assert.equal(findings.length, 1);
      const [f] = findings;
      assert.equal(f?.kind, 'truncated_response');
      assert.equal(f?.severity, 'warning');
      assert.equal(f?.step, 2);
      assert.equal(f?.line, responseLine(t, 1));
      assert.ok(f?.message.includes(`"${reason}"`));
      assert.match(f?.message ?? '', /cut off/);
    });
  }

  it('reports a refusal as a warning at its step', () => {
    const { t, findings } = analyzeSecond({ outcome: 'refusal', finishReason: 'refusal' });
    assert.deepEqual(
      findings.map((f) => [f.kind, f.severity, f.step, f.line]),
      [['refusal', 'warning', 2, responseLine(t, 1)]],
    );
    assert.match(findings[0]?.message ?? '', /declined/);
  });

  it('reports a refusal logged with a plain stop reason', () => {
    const { findings } = analyzeSecond({ outcome: 'refusal', finishReason: 'end_turn' });
    assert.deepEqual(
      findings.map((f) => f.kind),
      ['refusal'],
    );
  });

  it('reports an unknown finish reason as a warning that quotes it', () => {
    const { t, findings } = analyzeSecond({ outcome: 'incomplete', finishReason: 'weird_stop' });
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.kind, 'unknown_finish_reason');
    assert.equal(f?.severity, 'warning');
    assert.equal(f?.step, 2);
    assert.equal(f?.line, responseLine(t, 1));
    assert.match(f?.message ?? '', /"weird_stop"/);
  });
});

describe('response outcomes: healthy responses', () => {
  for (const reason of ['stop', 'end_turn', 'stop_sequence', 'STOP', null]) {
    it(`reports nothing for a final answer with finish reason ${JSON.stringify(reason)}`, () => {
      assert.deepEqual(analyzeSecond({ outcome: 'final', finishReason: reason }).findings, []);
    });
  }

  for (const reason of ['tool_calls', 'tool_use']) {
    it(`reports nothing for finish reason "${reason}" that carries its calls`, () => {
      const t = run()
        .response({ finishReason: reason, calls: [{ id: 'c1' }, { id: 'c2' }] })
        .result('c1')
        .result('c2')
        .final()
        .build();
      assert.deepEqual(analyzeResponseOutcomes(t), []);
    });
  }
});

describe('response outcomes: one verdict on an incomplete response', () => {
  it('reports a stream that broke (no finish reason) as an incomplete response', () => {
    const { t, findings } = analyzeSecond({ outcome: 'incomplete', finishReason: null, streamed: true, calls: [{ id: 'c2' }] });
    assert.deepEqual(
      findings.map((f) => [f.kind, f.severity, f.step, f.call_id, f.line]),
      [['incomplete_response', 'warning', 2, null, responseLine(t, 1)]],
    );
    assert.match(findings[0]?.message ?? '', /stream broke.*its calls are not calls to run/);
  });

  it('reports a response the loop logged as incomplete, without a telling finish reason', () => {
    const { findings } = analyzeSecond({ outcome: 'incomplete', finishReason: null });
    assert.deepEqual(
      findings.map((f) => f.kind),
      ['incomplete_response'],
    );
    assert.match(findings[0]?.message ?? '', /is logged as incomplete: it is not a finished answer$/);
  });

  it('quotes the incomplete_reason the loop logged', () => {
    const { findings } = analyzeSecond({ outcome: 'incomplete', finishReason: null, incompleteReason: 'turn_aborted' });
    assert.deepEqual(
      findings.map((f) => f.kind),
      ['incomplete_response'],
    );
    assert.match(findings[0]?.message ?? '', /"turn_aborted"/);
  });

  it('reports a paused turn as an incomplete response that names its finish reason', () => {
    const { findings } = analyzeSecond({ outcome: 'incomplete', finishReason: 'pause_turn' });
    assert.deepEqual(
      findings.map((f) => f.kind),
      ['incomplete_response'],
    );
    assert.match(findings[0]?.message ?? '', /"pause_turn"/);
  });

  it('gives a content-filtered response only truncated_response, and a refusal cut short only refusal', () => {
    assert.deepEqual(
      analyzeSecond({ outcome: 'incomplete', finishReason: 'content_filter' }).findings.map((f) => f.kind),
      ['truncated_response'],
    );
    assert.deepEqual(
      analyzeSecond({ outcome: 'refusal', finishReason: 'length' }).findings.map((f) => f.kind),
      ['refusal'],
    );
  });

  it('reports nothing about completeness for a complete response', () => {
    assert.deepEqual(analyzeSecond({ outcome: 'final', finishReason: null }).findings, []);
  });
});

describe('response outcomes: a call from an incomplete response that was acted on', () => {
  const cutCall = { id: 'c9', name: 'refund_order', argsError: 'arguments are not valid JSON' };

  it('reports executing a call of a truncated response as an error at the execution, naming the call', () => {
    const t = run({ status: 'failed' })
      .response({ outcome: 'incomplete', finishReason: 'length', calls: [cutCall] })
      .execution('c9')
      .error('c9', 'INVALID_ARGUMENT')
      .build();
    const executed = analyzeResponseOutcomes(t).filter((f) => f.kind === 'incomplete_call_executed');
    assert.deepEqual(
      executed.map((f) => [f.severity, f.step, f.call_id, f.line]),
      [['error', 1, 'c9', lineOf(t, 'execution', 'c9')]],
    );
    assert.match(executed[0]?.message ?? '', /refund_order \(c9, step 1\).*truncated_response.*was executed/);
  });

  it('reports a result logged for a call of a broken stream, even without a tool_call_start', () => {
    const t = run({ status: 'failed' })
      .response({ outcome: 'incomplete', finishReason: null, streamed: true, calls: [{ id: 'c9' }] })
      .result('c9')
      .build();
    assert.deepEqual(
      analyzeResponseOutcomes(t).map((f) => [f.kind, f.call_id]),
      [
        ['incomplete_response', null],
        ['incomplete_call_executed', 'c9'],
      ],
    );
  });

  it('reports nothing more when the loop did not run the call, or marked it not executed', () => {
    const skipped = run({ status: 'failed' })
      .response({ outcome: 'incomplete', finishReason: 'length', calls: [cutCall] })
      .build();
    assert.deepEqual(
      analyzeResponseOutcomes(skipped).map((f) => f.kind),
      ['truncated_response'],
    );
    const marked = run({ status: 'failed' })
      .response({ outcome: 'incomplete', finishReason: 'length', calls: [cutCall] })
      .notExecuted('c9', 'response truncated')
      .build();
    assert.deepEqual(
      analyzeResponseOutcomes(marked).map((f) => f.kind),
      ['truncated_response'],
    );
  });

  it('does not blame the incomplete response when a later complete response issued the same call_id', () => {
    const t = run()
      .response({ outcome: 'incomplete', finishReason: 'length', calls: [{ id: 'c9' }] })
      .toolCalls({ id: 'c9' })
      .result('c9')
      .final()
      .build();
    assert.deepEqual(
      analyzeResponseOutcomes(t).map((f) => f.kind),
      ['truncated_response'],
    );
  });
});

describe('response outcomes: a run that claims success on an incomplete answer', () => {
  it('reports a run that ends succeeded right after a truncated answer, at the run_end line', () => {
    const t = run({ status: 'succeeded' }).toolCalls({ id: 'c1' }).result('c1').response({ outcome: 'incomplete', finishReason: 'length' }).build();
    const accepted = analyzeResponseOutcomes(t).filter((f) => f.kind === 'incomplete_answer_accepted');
    assert.deepEqual(
      accepted.map((f) => [f.severity, f.step, f.call_id, f.line]),
      [['error', 2, null, lineOf(t, 'run_end')]],
    );
    assert.match(accepted[0]?.message ?? '', /status succeeded.*ended right after the model response at step 2 .*truncated_response/);
  });

  it('reports it for model_finished and for any incomplete verdict, a dropped call included', () => {
    const dropped = run({ status: 'model_finished' }).response({ outcome: 'incomplete', finishReason: 'tool_calls', calls: [] }).build();
    assert.deepEqual(
      analyzeResponseOutcomes(dropped).map((f) => f.kind),
      ['dropped_tool_call', 'incomplete_answer_accepted'],
    );
    const broken = run({ status: 'model_finished' }).response({ outcome: 'incomplete', finishReason: null, streamed: true }).build();
    assert.deepEqual(
      analyzeResponseOutcomes(broken).map((f) => f.kind),
      ['incomplete_response', 'incomplete_answer_accepted'],
    );
  });

  it('reports a run whose output repeats an earlier incomplete answer, though a complete response came after it', () => {
    const t = run({ status: 'succeeded' }).response({ outcome: 'incomplete', finishReason: 'length', repeatedByOutput: true }).final().build();
    const accepted = analyzeResponseOutcomes(t).filter((f) => f.kind === 'incomplete_answer_accepted');
    assert.deepEqual(
      accepted.map((f) => f.step),
      [1],
    );
    assert.match(accepted[0]?.message ?? '', /output repeats the text of the model response at step 1/);
  });

  it('keeps only the warning when the loop recovered: retried to a complete answer, or its output repeats a complete one', () => {
    const retried = run({ status: 'succeeded' }).response({ outcome: 'incomplete', finishReason: 'length' }).final().build();
    assert.deepEqual(
      analyzeResponseOutcomes(retried).map((f) => f.kind),
      ['truncated_response'],
    );
    const fromComplete = run({ status: 'succeeded' }).final({ repeatedByOutput: true }).response({ outcome: 'incomplete', finishReason: 'length' }).build();
    assert.deepEqual(
      analyzeResponseOutcomes(fromComplete).map((f) => f.kind),
      ['truncated_response'],
    );
  });

  for (const status of ['failed', 'budget_exceeded', 'cancelled', 'unterminated'] as const) {
    it(`keeps only the warning when the run ends ${status} on the incomplete answer`, () => {
      const t = run({ status }).response({ outcome: 'incomplete', finishReason: 'length' }).build();
      assert.deepEqual(
        analyzeResponseOutcomes(t).map((f) => f.kind),
        ['truncated_response'],
      );
    });
  }
});

describe('response outcomes: the wording of each verdict', () => {
  it('says a content filter cut the response', () => {
    const { findings } = analyzeSecond({ outcome: 'incomplete', finishReason: 'content_filter' });
    assert.equal(
      findings[0]?.message,
      'the model response at step 2 was cut off by the provider\'s content filter (finish reason "content_filter"): its text and any tool call in it are incomplete',
    );
  });

  it('says a truncation cut the response, without naming a filter', () => {
    const { findings } = analyzeSecond({ outcome: 'incomplete', finishReason: 'length' });
    assert.equal(findings[0]?.message, 'the model response at step 2 was cut off (finish reason "length"): its text and any tool call in it are incomplete');
  });

  it('writes "?" for the step of a response without one', () => {
    const t = run({ status: 'failed' }).response({ outcome: 'incomplete', finishReason: 'weird_stop', step: null }).build();
    assert.equal(
      analyzeResponseOutcomes(t)[0]?.message,
      'the model response at step ? has an unknown finish reason "weird_stop": the response cannot be trusted as complete',
    );
  });

  it('does not call a response with a tool-call finish reason and its calls dropped', () => {
    const t = run({ status: 'failed' })
      .response({ outcome: 'incomplete', finishReason: 'tool_calls', calls: [{ id: 'c1' }] })
      .build();
    assert.deepEqual(
      analyzeResponseOutcomes(t).map((f) => f.kind),
      ['incomplete_response'],
    );
    assert.match(
      analyzeResponseOutcomes(t)[0]?.message ?? '',
      /is incomplete \(finish reason "tool_calls"\): it is not a finished answer, and its calls are not calls to run$/,
    );
  });

  it("quotes the loop's own reason over a finish reason, and a streamed response with a finish reason is not a broken stream", () => {
    const { findings } = analyzeSecond({ outcome: 'incomplete', finishReason: 'stop', incompleteReason: 'interrupted', streamed: true });
    assert.equal(findings[0]?.message, 'the model response at step 2 is incomplete ("interrupted"): it is not a finished answer');
  });

  it('names the finish reason of a response the loop logged as incomplete without a reason of its own', () => {
    const { findings } = analyzeSecond({ outcome: 'incomplete', finishReason: 'stop' });
    assert.equal(findings[0]?.message, 'the model response at step 2 is incomplete (finish reason "stop"): it is not a finished answer');
  });
});

describe('response outcomes: a call the provider refused', () => {
  it('gets no incomplete verdict of its own (api_error speaks for it)', () => {
    const t = run({ status: 'failed' }).toolCalls({ id: 'c1' }).result('c1').apiError(529, 'overloaded_error').build();
    assert.deepEqual(analyzeResponseOutcomes(t), []);
  });

  it('is still an incomplete answer when a run claims success right after it', () => {
    const t = run({ status: 'succeeded' }).apiError(500, 'api_error').build();
    assert.deepEqual(
      analyzeResponseOutcomes(t).map((f) => [f.kind, f.details]),
      [['incomplete_answer_accepted', { response_line: responseLine(t, 0) }]],
    );
    assert.match(
      analyzeResponseOutcomes(t)[0]?.message ?? '',
      /the run ended with status succeeded, but it ended right after the model response at step 1 \(line \d+\), which is incomplete \(incomplete_response\): an incomplete response is never a finished task$/,
    );
  });
});

describe('response outcomes: acting on a call of an incomplete response, in words', () => {
  it('says a call was executed, that its result is logged, or that it was answered with an error', () => {
    const cut = (finish: (b: ReturnType<typeof run>) => ReturnType<typeof run>) =>
      analyzeResponseOutcomes(
        finish(run({ status: 'failed' }).response({ outcome: 'incomplete', finishReason: 'length', calls: [{ id: 'c9', name: 'edit' }] })).build(),
      ).find((f) => f.kind === 'incomplete_call_executed');
    assert.match(
      cut((b) => b.result('c9'))?.message ?? '',
      / and was executed \(its result is logged\) at line \d+: a call from a response that is not whole must not be run$/,
    );
    assert.match(cut((b) => b.error('c9', 'bad_args'))?.message ?? '', / and was answered with an error result at line \d+:/);
    const t = run({ status: 'failed' })
      .response({ outcome: 'incomplete', finishReason: 'length', calls: [{ id: 'c9', name: 'edit' }] })
      .execution('c9')
      .result('c9')
      .build();
    const executed = analyzeResponseOutcomes(t).filter((f) => f.kind === 'incomplete_call_executed');
    // Reported once, at the start: the result that follows is the same act.
    assert.deepEqual(
      executed.map((f) => [f.line, f.details]),
      [[lineOf(t, 'execution', 'c9'), { response_line: responseLine(t, 0) }]],
    );
    assert.match(
      executed[0]?.message ?? '',
      /^call edit \(c9, step 1\) came from an incomplete response \(truncated_response, line \d+\) and was executed at line/,
    );
  });
});

describe('response outcomes: a success claimed with nothing to judge', () => {
  it('reports nothing when a successful run has no response before its end', () => {
    const t = run({ status: 'succeeded' }).end().response({ outcome: 'incomplete', finishReason: 'length' }).build();
    assert.deepEqual(
      analyzeResponseOutcomes(t).map((f) => f.kind),
      ['truncated_response'],
    );
  });

  it('reports nothing when the run has no terminal event to judge', () => {
    const t = run({ status: 'succeeded' }).response({ outcome: 'incomplete', finishReason: 'length' }).build();
    assert.deepEqual(
      analyzeResponseOutcomes({ ...t, endEventId: null }).map((f) => f.kind),
      ['truncated_response'],
    );
  });

  it('falls back to the last response when the response the output repeats came after the end', () => {
    const t = run({ status: 'succeeded' }).response({ outcome: 'incomplete', finishReason: 'length' }).end().final({ repeatedByOutput: true }).build();
    const accepted = analyzeResponseOutcomes(t).filter((f) => f.kind === 'incomplete_answer_accepted');
    assert.match(accepted[0]?.message ?? '', /it ended right after the model response at step 1/);
  });
});

describe('response outcomes: the last response before a claimed success', () => {
  it('is the last response, not the last event: a tool result after a truncated answer does not hide it', () => {
    const t = run({ status: 'succeeded' })
      .response({ outcome: 'incomplete', finishReason: 'length', calls: [{ id: 'c1', name: 'edit' }] })
      .result('c1')
      .build();
    const accepted = analyzeResponseOutcomes(t).filter((f) => f.kind === 'incomplete_answer_accepted');
    assert.deepEqual(
      accepted.map((f) => [f.step, f.line]),
      [[1, lineOf(t, 'run_end')]],
    );
  });
});
