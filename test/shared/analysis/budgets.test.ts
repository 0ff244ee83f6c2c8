/** Budget terminations and actions taken after a budget was used up (docs/semantics.md §5). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeBudgets } from '../../../shared/analysis/budgets';
import { compactTimestamp } from '../../../shared/trace/timestamps';
import { edited, lineOf, responseLine, run, type RunSpec, type TimelineBuilder } from './timelineBuilder';

/** `turns` tool-call turns, one answered call each (c1…cn). */
function toolTurns(spec: RunSpec, turns: number): TimelineBuilder {
  const builder = run(spec);
  for (let i = 1; i <= turns; i++) builder.toolCalls({ id: `c${i}`, name: 'run_tests' }).result(`c${i}`);
  return builder;
}

describe('budgets: terminations the loop reported', () => {
  it('names the limit, its maximum and the counter when the loop stopped on max_tool_calls', () => {
    const t = run({ status: 'budget_exceeded', statusRaw: 'BUDGET_EXCEEDED', endLimit: 'max_tool_calls', budgets: { max_turns: 10, max_tool_calls: 3 } })
      .toolCalls({ id: 'c1' }, { id: 'c2' })
      .result('c1')
      .result('c2')
      .toolCalls({ id: 'c3' })
      .result('c3')
      .toolCalls({ id: 'c4' })
      .notExecuted('c4', 'budget')
      .build();
    const findings = analyzeBudgets(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.kind, 'budget_exceeded');
    assert.equal(f?.severity, 'warning');
    assert.equal(f?.step, 3);
    assert.equal(f?.call_id, null);
    assert.equal(f?.line, lineOf(t, 'run_end'));
    assert.match(f?.message ?? '', /stopped by its max_tool_calls budget: 3 of 3 tool calls used \(max_tool_calls\)/);
    assert.match(f?.message ?? '', /at step 3 \(BUDGET_EXCEEDED\)/);
    assert.deepEqual(f?.details, { limit: 'max_tool_calls', limit_raw: 'max_tool_calls', max: 3, used: 3, below_limit: false, inferred: false });
  });

  it('understands the limit spelled "Max turns exceeded" and a budget declared as max_steps', () => {
    const t = toolTurns({ status: 'budget_exceeded', statusRaw: 'Max turns exceeded', endLimit: 'Max turns exceeded', budgets: { max_steps: 2 } }, 2).build();
    const [f, ...rest] = analyzeBudgets(t);
    assert.equal(rest.length, 0);
    assert.match(f?.message ?? '', /max_turns budget: 2 of 2 model calls used \(max_steps\)/);
    assert.deepEqual(f?.details, { limit: 'max_turns', limit_raw: 'Max turns exceeded', max: 2, used: 2, below_limit: false, inferred: false });
  });

  it('finds the tripped limit among the declared budgets when the loop did not name it (hitCap:true)', () => {
    const t = toolTurns({ status: 'budget_exceeded', statusRaw: 'hitCap:true', budgets: { max_steps: 3 } }, 3).build();
    const [f] = analyzeBudgets(t);
    assert.match(f?.message ?? '', /max_turns budget: 3 of 3 model calls used/);
    assert.match(f?.message ?? '', /hitCap:true/);
    assert.deepEqual(f?.details, { limit: 'max_turns', limit_raw: null, max: 3, used: 3, below_limit: false, inferred: false });
  });

  it('still reports the termination when no declared budget shows the counter', () => {
    const t = toolTurns({ status: 'budget_exceeded', endLimit: 'max_cost_usd' }, 1).build();
    const [f] = analyzeBudgets(t);
    assert.match(f?.message ?? '', /status budget_exceeded on max_cost_usd; no declared budget shows the counter/);
    assert.deepEqual(f?.details, { limit: 'max_cost_usd', limit_raw: 'max_cost_usd', max: null, used: null, below_limit: null, inferred: false });
  });

  it('does not attribute the termination to another limit when the one the loop named was not declared', () => {
    const t = toolTurns({ status: 'budget_exceeded', endLimit: 'max_tool_calls', budgets: { max_turns: 2 } }, 2).build();
    const [f] = analyzeBudgets(t);
    assert.equal(f?.details?.['limit'], 'max_tool_calls');
    assert.doesNotMatch(f?.message ?? '', /max_turns/);
    assert.match(f?.message ?? '', /max_tool_calls/);
    assert.equal(f?.details?.['max'], null);
  });

  it('names the deadline, in milliseconds, when the loop stopped on it', () => {
    const t = toolTurns(
      {
        status: 'budget_exceeded',
        endLimit: 'deadline',
        budgets: { deadline_ms: 60_000 },
        startedAt: '2025-01-01T00:00:00.000Z',
        endedAt: '2025-01-01T00:01:05.000Z',
      },
      2,
    ).build();
    const [f] = analyzeBudgets(t);
    assert.match(f?.message ?? '', /deadline budget: 65,000 of 60,000 ms used \(deadline_ms\)/);
    assert.deepEqual(f?.details, { limit: 'deadline', limit_raw: 'deadline', max: 60_000, used: 65_000, below_limit: false, inferred: false });
  });
});

describe('budgets: cost', () => {
  it('names the cost budget and the money spent when the loop stopped on it', () => {
    const t = run({ status: 'budget_exceeded', statusRaw: 'budget_exhausted', endLimit: 'cost', budgets: { max_cost_usd: 0.05 } })
      .response({ calls: [{ id: 'c1' }], costUsd: 0.03 })
      .result('c1')
      .response({ calls: [{ id: 'c2' }], costUsd: 0.025 })
      .notExecuted('c2', 'cost budget used up')
      .build();
    const findings = analyzeBudgets(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.match(f?.message ?? '', /stopped by its max_cost_usd budget: 0\.055 of 0\.05 USD used \(max_cost_usd\)/);
    assert.deepEqual(f?.details, { limit: 'max_cost_usd', limit_raw: 'cost', max: 0.05, used: 0.055, below_limit: false, inferred: false });
  });

  it('infers a cost cap reached without a final answer', () => {
    const t = run({ status: 'failed', budgets: { max_cost_usd: 0.02 } })
      .response({ calls: [{ id: 'c1' }], costUsd: 0.02 })
      .notExecuted('c1')
      .build();
    const [f] = analyzeBudgets(t);
    assert.equal(f?.details?.['limit'], 'max_cost_usd');
    assert.equal(f?.details?.['inferred'], true);
  });
});

describe('budgets: terminations inferred from the declared budgets', () => {
  for (const status of ['failed', 'unterminated'] as const) {
    it(`infers a max_steps cap hit when the last allowed step is a tool call and the run ${status === 'failed' ? 'failed' : 'has no terminal event'}`, () => {
      const t = toolTurns({ status, budgets: { max_steps: 4 } }, 4).build();
      const findings = analyzeBudgets(t);
      assert.equal(findings.length, 1);
      const [f] = findings;
      assert.equal(f?.kind, 'budget_exceeded');
      assert.equal(f?.severity, 'warning');
      assert.equal(f?.step, 4);
      assert.equal(f?.line, t.lastLine);
      assert.match(f?.message ?? '', /hit its max_turns budget without a final answer: 4 of 4 model calls used \(max_steps\)/);
      assert.match(f?.message ?? '', /the last step \(4\) being a tool call/);
      assert.match(f?.message ?? '', status === 'unterminated' ? /stopped at step 4 without a terminal event/ : /ended at step 4 with status failed/);
      assert.deepEqual(f?.details, { limit: 'max_turns', max: 4, used: 4, inferred: true });
    });
  }

  it('infers a deadline hit when the run outlived its deadline without a final answer', () => {
    const t = toolTurns(
      { status: 'cancelled', budgets: { deadline_ms: 30_000 }, startedAt: '2025-01-01T00:00:00Z', endedAt: '2025-01-01T00:00:31Z' },
      2,
    ).build();
    const [f, ...rest] = analyzeBudgets(t);
    assert.equal(rest.length, 0);
    assert.match(f?.message ?? '', /deadline budget without a final answer: 31,000 of 30,000 ms used/);
    assert.deepEqual(f?.details, { limit: 'deadline', max: 30_000, used: 31_000, inferred: true });
  });

  it('does not infer a budget termination when the run ended with a final answer', () => {
    const t = toolTurns({ status: 'succeeded', budgets: { max_steps: 4 } }, 3)
      .final()
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
  });

  it('does not infer a budget termination when the final answer came at the cap but business checks failed the run', () => {
    const t = toolTurns({ status: 'failed', budgets: { max_steps: 4 } }, 3)
      .final()
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
  });

  it('does not infer a budget termination when no declared limit was reached', () => {
    const t = toolTurns({ status: 'failed', budgets: { max_steps: 8, max_tool_calls: 10 } }, 4).build();
    assert.deepEqual(analyzeBudgets(t), []);
  });

  it('does not infer a budget termination for a run without declared budgets', () => {
    assert.deepEqual(analyzeBudgets(toolTurns({ status: 'failed' }, 20).build()), []);
  });

  it('does not infer a budget termination when the last allowed step was a refusal', () => {
    const t = toolTurns({ status: 'refused', budgets: { max_steps: 2 } }, 1)
      .response({ outcome: 'refusal' })
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
  });

  it('does not infer a budget termination for a run paused for approval', () => {
    const t = toolTurns({ status: 'waiting_for_approval', budgets: { max_steps: 2 } }, 1)
      .toolCalls({ id: 'c9', name: 'deploy' })
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
  });
});

describe('budgets: actions after a budget was used up', () => {
  it('reports a tool call executed after max_tool_calls was used up as an error at its execution', () => {
    const t = run({ status: 'succeeded', budgets: { max_tool_calls: 2 } })
      .toolCalls({ id: 'c1' }, { id: 'c2' })
      .result('c1')
      .result('c2')
      .toolCalls({ id: 'c3', name: 'delete_file' })
      .execution('c3')
      .result('c3')
      .final()
      .build();
    const findings = analyzeBudgets(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.kind, 'budget_exceeded');
    assert.equal(f?.severity, 'error');
    assert.equal(f?.step, 2);
    assert.equal(f?.call_id, 'c3');
    assert.equal(f?.line, lineOf(t, 'execution', 'c3'));
    assert.match(
      f?.message ?? '',
      /tool call c3 \(delete_file\) was executed after the tool-call budget was used up \(max_tool_calls 2; this was tool call 3\)/,
    );
    assert.deepEqual(f?.details, { limit: 'max_tool_calls', max: 2, used: 3, after_exhaustion: true });
  });

  it('anchors the finding at the result when the loop logged no execution start', () => {
    const t = toolTurns({ status: 'succeeded', budgets: { max_tool_calls: 1 } }, 2)
      .final()
      .build();
    const [f] = analyzeBudgets(t);
    assert.equal(f?.call_id, 'c2');
    assert.equal(f?.line, lineOf(t, 'result', 'c2'));
  });

  it('does not report a call the loop declined to execute once the budget was used up', () => {
    const t = run({ status: 'succeeded', budgets: { max_tool_calls: 2 } })
      .toolCalls({ id: 'c1' }, { id: 'c2' }, { id: 'c3' })
      .result('c1')
      .result('c2')
      .notExecuted('c3', 'tool-call budget exhausted')
      .final()
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
  });

  it('counts a call once even when both its execution start and its result are logged', () => {
    const t = run({ status: 'succeeded', budgets: { max_tool_calls: 2 } })
      .toolCalls({ id: 'c1' })
      .execution('c1')
      .result('c1')
      .toolCalls({ id: 'c2' })
      .execution('c2')
      .result('c2')
      .final()
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
  });

  it('reports a model call made after max_turns was used up as an error at that response', () => {
    const t = toolTurns({ status: 'succeeded', budgets: { max_turns: 2 } }, 2)
      .final()
      .build();
    const findings = analyzeBudgets(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.kind, 'budget_exceeded');
    assert.equal(f?.severity, 'error');
    assert.equal(f?.step, 3);
    assert.equal(f?.line, responseLine(t, 2));
    assert.match(f?.message ?? '', /a model call was made at step 3 after the turn budget was used up \(max_turns 2\)/);
    assert.deepEqual(f?.details, { limit: 'max_turns', max: 2, used: 3, after_exhaustion: true });
  });

  it('reports nothing for a run that stayed within all its budgets', () => {
    const t = toolTurns(
      {
        status: 'succeeded',
        budgets: { max_turns: 5, max_tool_calls: 5, max_output_tokens: 10_000, deadline_ms: 60_000 },
        startedAt: '2025-01-01T00:00:00Z',
        endedAt: '2025-01-01T00:00:10Z',
      },
      2,
    )
      .final()
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
  });
});

describe('budgets: every declared limit is checked before each action', () => {
  const start = '2025-01-01T00:00:00.000Z';
  const at = (seconds: number): string => new Date(Date.parse(start) + seconds * 1000).toISOString();

  it('reports a tool started after the deadline had passed, at its start, naming the time elapsed', () => {
    const untimed = run({ status: 'succeeded', budgets: { deadline_ms: 60_000 }, startedAt: start })
      .response({ calls: [{ id: 'c1', name: 'refund_order' }], ts: at(50) })
      .execution('c1')
      .build();
    // The builder gives the start no timestamp: set it after the fact, as the loop logged it.
    const t = edited(untimed, (entries) => {
      const execution = entries.find((entry) => entry.kind === 'execution');
      assert.ok(execution);
      execution.ts = at(61);
    });
    const findings = analyzeBudgets(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.severity, 'error');
    assert.equal(f?.call_id, 'c1');
    assert.equal(f?.line, lineOf(t, 'execution', 'c1'));
    assert.match(
      f?.message ?? '',
      /tool call c1 \(refund_order\) was executed after the deadline had passed \(deadline_ms 60,000 ms; 61,000 ms had passed since the run started\)/,
    );
    assert.deepEqual(f?.details, { limit: 'deadline', max: 60_000, used: 61_000, after_exhaustion: true });
  });

  it('reports a model call made once an event past the deadline had been logged, and counts the actions after it', () => {
    const t = run({ status: 'succeeded', budgets: { timeout: 30 }, startedAt: start })
      .response({ calls: [{ id: 'c1' }], ts: at(10) })
      .result('c1')
      .response({ calls: [{ id: 'c2' }], ts: at(31) })
      .result('c2')
      .final({ ts: at(40) })
      .build();
    const findings = analyzeBudgets(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    // Step 2 returned after the deadline but may have been sent before it; c2 ran after step 2 returned.
    assert.equal(f?.call_id, 'c2');
    assert.equal(f?.line, lineOf(t, 'result', 'c2'));
    assert.match(f?.message ?? '', /deadline had passed \(timeout 30,000 ms; 31,000 ms had passed/);
    assert.match(f?.message ?? '', /1 more action followed/);
  });

  it('does not report a call whose result arrived after the deadline when it was issued before it and no start was logged', () => {
    const untimed = run({ status: 'failed', budgets: { deadline_ms: 30_000 }, startedAt: start })
      .response({ calls: [{ id: 'c1' }], ts: at(20) })
      .result('c1')
      .build();
    const t = edited(untimed, (entries) => (entries[1]!.ts = at(45)));
    assert.deepEqual(
      analyzeBudgets(t).filter((f) => f.details?.['after_exhaustion'] === true),
      [],
    );
  });

  it('orders timestamps kept as numbers and as text by their text', () => {
    // The engine keeps a toISOString text as its number and any other as written (shared/trace/timestamps.ts).
    const t = run({ status: 'succeeded', budgets: { deadline_ms: 60_000 }, startedAt: start })
      .response({ calls: [{ id: 'c1' }, { id: 'c2' }] })
      .execution('c1')
      .execution('c2')
      .build();
    const timed = edited(t, ([response, first, second]) => {
      response!.ts = compactTimestamp(at(50));
      // A text kept as written (no milliseconds) between two numbers: the latest so far is the one whose text orders last.
      first!.ts = '2025-01-01T00:01:01Z';
      second!.ts = compactTimestamp(at(59));
    });
    assert.equal(typeof timed.entries.at(0)!.ts, 'number');
    const findings = analyzeBudgets(timed);
    assert.deepEqual(
      findings.map((f) => [f.call_id, f.details?.['used']]),
      [['c1', 61_000]],
    );
  });

  it('reads an absolute deadline', () => {
    const t = run({ status: 'succeeded', budgets: { deadline: at(30) }, startedAt: start })
      .response({ calls: [{ id: 'c1' }], ts: at(31) })
      .result('c1')
      .final()
      .build();
    const [f] = analyzeBudgets(t);
    assert.equal(f?.call_id, 'c1');
    assert.deepEqual(f?.details, { limit: 'deadline', max: 30_000, used: 31_000, after_exhaustion: true });
  });

  it('reports a tool executed after the output-token budget was used up by the response that issued it', () => {
    const t = run({ status: 'succeeded', budgets: { max_output_tokens: 1_000 } })
      .response({ calls: [{ id: 'c1' }], outputTokens: 600 })
      .result('c1')
      .response({ calls: [{ id: 'c2', name: 'delete_branch' }], outputTokens: 500 })
      .result('c2')
      .final({ outputTokens: 50 })
      .build();
    const [f, ...rest] = analyzeBudgets(t);
    assert.equal(rest.length, 0);
    assert.equal(f?.severity, 'error');
    assert.equal(f?.call_id, 'c2');
    assert.match(
      f?.message ?? '',
      /tool call c2 \(delete_branch\) was executed after the output-token budget was used up \(max_output_tokens 1,000; 1,100 output tokens used\); 1 more action followed/,
    );
  });

  it('reports a model call made after the input-token budget (all calls together) was used up', () => {
    const t = run({ status: 'succeeded', budgets: { max_input_tokens: 2_000 } })
      .response({ calls: [{ id: 'c1' }], inputTokens: 900 })
      .execution('c1')
      .result('c1')
      .response({ calls: [], outcome: 'final', inputTokens: 1_100 })
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
    const over = run({ status: 'succeeded', budgets: { max_input_tokens: 2_000 } })
      .response({ calls: [{ id: 'c1' }], inputTokens: 900 })
      .result('c1')
      .response({ calls: [{ id: 'c2' }], inputTokens: 1_100 })
      .notExecuted('c2')
      .final({ inputTokens: 1_300 })
      .build();
    const [f] = analyzeBudgets(over);
    assert.equal(f?.call_id, null);
    assert.equal(f?.step, 3);
    assert.match(
      f?.message ?? '',
      /a model call was made at step 3 after the input-token budget was used up \(max_input_tokens 2,000; 2,000 input tokens used\)/,
    );
  });

  it('reports a model call sent with more input than the context budget, and not one that fits it exactly', () => {
    const fits = run({ status: 'succeeded', budgets: { max_context_tokens: 8_000 } })
      .final({ inputTokens: 8_000 })
      .build();
    assert.deepEqual(analyzeBudgets(fits), []);
    const over = run({ status: 'succeeded', budgets: { context_limit: 8_000 } })
      .final({ inputTokens: 8_001 })
      .build();
    const [f] = analyzeBudgets(over);
    assert.equal(f?.severity, 'error');
    assert.match(f?.message ?? '', /a model call at step 1 was sent with 8,001 input tokens, over the context budget \(context_limit 8,000\)/);
  });

  it('reads the budget names loops use: max_cost, cost_limit, maxTurns, max_iterations', () => {
    for (const budgets of [{ max_cost: 0.01 }, { cost_limit: 0.01 }]) {
      const t = run({ status: 'succeeded', budgets })
        .response({ calls: [{ id: 'c1' }], costUsd: 0.012 })
        .result('c1')
        .final()
        .build();
      const [f] = analyzeBudgets(t);
      assert.equal(f?.details?.['limit'], 'max_cost_usd', JSON.stringify(budgets));
      assert.equal(f?.call_id, 'c1');
    }
    for (const budgets of [{ maxTurns: 1 }, { max_iterations: 1 }]) {
      const t = toolTurns({ status: 'succeeded', budgets }, 1).final().build();
      const [f] = analyzeBudgets(t);
      assert.equal(f?.details?.['limit'], 'max_turns', JSON.stringify(budgets));
      assert.equal(f?.step, 2);
    }
  });

  it('does not read max_tokens as a run budget: it caps one response', () => {
    const t = run({ status: 'succeeded', budgets: { max_tokens: 100 } })
      .response({ calls: [{ id: 'c1' }], outputTokens: 90 })
      .result('c1')
      .final({ outputTokens: 90 })
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
  });
});

describe('budgets: a budget stop the recorded counters do not reach', () => {
  it('still reports the stop, and says plainly that the counter is below the limit', () => {
    const t = toolTurns({ status: 'budget_exceeded', endLimit: 'max_turns', budgets: { max_turns: 10 } }, 4).build();
    const findings = analyzeBudgets(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.severity, 'warning');
    assert.match(f?.message ?? '', /stopped by its max_turns budget: 4 of 10 model calls used \(max_turns\)/);
    assert.match(f?.message ?? '', /the recorded counter is below the limit, so the trace does not show the limit being reached/);
    assert.equal(f?.details?.['below_limit'], true);
  });

  it('takes the only declared limit as the one an unnamed stop is about, and says when its counter falls short', () => {
    const t = toolTurns({ status: 'budget_exceeded', statusRaw: 'hitCap:true', budgets: { max_steps: 8 } }, 7).build();
    const [f] = analyzeBudgets(t);
    assert.match(f?.message ?? '', /7 of 8 model calls used \(max_steps\).*counter is below the limit/);
  });

  it('does not pick one of several declared limits for an unnamed stop that reached none', () => {
    const t = toolTurns({ status: 'budget_exceeded', budgets: { max_turns: 8, max_tool_calls: 8 } }, 3).build();
    const [f] = analyzeBudgets(t);
    assert.match(f?.message ?? '', /no declared budget shows the counter/);
    assert.equal(f?.details?.['below_limit'], null);
  });
});

describe('budgets: the verdict on the end counts up to the terminal event', () => {
  it('does not count a tool call logged after the run ended toward the stop it reported', () => {
    const t = run({ status: 'budget_exceeded', endLimit: 'max_tool_calls', budgets: { max_tool_calls: 2 } })
      .toolCalls({ id: 'c1' }, { id: 'c2' }, { id: 'c3' })
      .result('c1')
      .result('c2')
      .end()
      .result('c3')
      .build();
    const stop = analyzeBudgets(t).find((f) => f.details?.['after_exhaustion'] !== true);
    assert.match(stop?.message ?? '', /2 of 2 tool calls used/);
    assert.equal(stop?.line, lineOf(t, 'run_end'));
    assert.equal(stop?.step, 1);
  });
});

describe('budgets: the limit a budget stop names', () => {
  for (const [endLimit, budgets, expected] of [
    ['time_limit', { time_limit: 60 }, /deadline budget: 65,000 of 60,000 ms used \(time_limit\)/],
    [
      'context_window_exceeded',
      { max_context_length: 8_000 },
      /max_context_tokens budget: 8,200 of 8,000 input tokens in one model call used \(max_context_length\)/,
    ],
    ['iteration_limit', { max_iterations: 2 }, /max_turns budget: 2 of 2 model calls used \(max_iterations\)/],
  ] as const) {
    it(`reads ${endLimit} against the budget declared as ${Object.keys(budgets)[0]}`, () => {
      const t = run({ status: 'budget_exceeded', endLimit, budgets, startedAt: '2025-01-01T00:00:00.000Z', endedAt: '2025-01-01T00:01:05.000Z' })
        .response({ calls: [{ id: 'c1' }], inputTokens: 7_000 })
        .result('c1')
        .response({ calls: [{ id: 'c2' }], inputTokens: 8_200 })
        .notExecuted('c2')
        .build();
      const stop = analyzeBudgets(t).find((f) => f.details?.['inferred'] === false);
      assert.match(stop?.message ?? '', expected);
    });
  }
});

describe('budgets: what counts against the tool-call budget', () => {
  it('does not count a result no model response issued (an orphan) as a tool call', () => {
    const t = run({ status: 'succeeded', budgets: { max_tool_calls: 1 } })
      .toolCalls({ id: 'c1' })
      .result('c1')
      .result('ghost', { name: 'read_file' })
      .final()
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
  });

  it('counts each call of a turn: the second of two parallel calls breaks a budget of one', () => {
    const t = run({ status: 'succeeded', budgets: { tool_call_limit: 1 } })
      .toolCalls({ id: 'c1', name: 'read_file' }, { id: 'c2', name: 'write_file' })
      .result('c1')
      .result('c2')
      .final()
      .build();
    const findings = analyzeBudgets(t);
    assert.deepEqual(
      findings.map((f) => f.call_id),
      ['c2'],
    );
    assert.match(
      findings[0]?.message ?? '',
      /tool call c2 \(write_file\) was executed after the tool-call budget was used up \(tool_call_limit 1; this was tool call 2\): budget checks must happen before each action$/,
    );
    assert.deepEqual(findings[0]?.details, { limit: 'max_tool_calls', max: 1, used: 2, after_exhaustion: true });
  });

  it('holds model calls to the turn budget only, not to the tool-call budget, and tool calls the other way round', () => {
    // Two model calls and two tool calls: each budget of 2 is met exactly, never broken.
    const t = toolTurns({ status: 'failed', budgets: { max_turns: 2, max_tool_calls: 2 } }, 2).build();
    assert.deepEqual(
      analyzeBudgets(t).filter((f) => f.details?.['after_exhaustion'] === true),
      [],
    );
    // A third tool call in the second turn breaks the tool-call budget only; no third model call was made.
    const more = run({ status: 'failed', budgets: { max_turns: 2, max_tool_calls: 2 } })
      .toolCalls({ id: 'c1' })
      .result('c1')
      .toolCalls({ id: 'c2' }, { id: 'c3' })
      .result('c2')
      .result('c3')
      .build();
    assert.deepEqual(
      analyzeBudgets(more)
        .filter((f) => f.details?.['after_exhaustion'] === true)
        .map((f) => [f.details?.['limit'], f.call_id]),
      [['max_tool_calls', 'c3']],
    );
  });
});

describe('budgets: how a declared budget is read', () => {
  it('takes the first name in the list when one limit is declared under two names', () => {
    // max_turns is listed before max_steps: 5 counts, not 2.
    const t = toolTurns({ status: 'failed', budgets: { max_steps: 2, max_turns: 5 } }, 3).build();
    assert.deepEqual(analyzeBudgets(t), []);
    const [f] = analyzeBudgets(toolTurns({ status: 'failed', budgets: { max_steps: 2, max_turns: 5 } }, 5).build());
    assert.match(f?.message ?? '', /5 of 5 model calls used \(max_turns\)/);
  });

  it('ignores a limit that is zero, negative or not a number', () => {
    for (const value of [0, -3, '2', null]) {
      const t = toolTurns({ status: 'failed', budgets: { max_turns: value } as never }, 3).build();
      assert.deepEqual(analyzeBudgets(t), [], JSON.stringify(value));
    }
  });

  it('reads timeout_ms in milliseconds and timeout_seconds in seconds', () => {
    const start = '2025-01-01T00:00:00.000Z';
    for (const [budgets, max] of [
      [{ timeout_ms: 5_000 }, 5_000],
      [{ timeout_seconds: 5 }, 5_000],
    ] as const) {
      const t = toolTurns({ status: 'failed', budgets, startedAt: start, endedAt: '2025-01-01T00:00:07.000Z' }, 1).build();
      const [f] = analyzeBudgets(t);
      assert.deepEqual(f?.details, { limit: 'deadline', max, used: 7_000, inferred: true }, JSON.stringify(budgets));
    }
  });

  it('reads an absolute deadline written as epoch seconds', () => {
    const start = '2025-01-01T00:00:00.000Z';
    const t = toolTurns(
      { status: 'failed', budgets: { deadline: Date.parse(start) / 1000 + 10 }, startedAt: start, endedAt: '2025-01-01T00:00:12.000Z' },
      1,
    ).build();
    const [f] = analyzeBudgets(t);
    assert.deepEqual(f?.details, { limit: 'deadline', max: 10_000, used: 12_000, inferred: true });
  });

  it('ignores an absolute deadline that is neither a time nor a number', () => {
    const t = toolTurns(
      { status: 'failed', budgets: { deadline: { at: 'noon' } } as never, startedAt: '2025-01-01T00:00:00.000Z', endedAt: '2025-01-02T00:00:00.000Z' },
      1,
    ).build();
    assert.deepEqual(analyzeBudgets(t), []);
  });
});

describe('budgets: the clock', () => {
  const start = '2025-01-01T00:00:00.000Z';
  const at = (seconds: number): string => new Date(Date.parse(start) + seconds * 1000).toISOString();

  it('keeps the latest timestamp seen: an event logged with an earlier time does not turn the clock back', () => {
    const t = run({ status: 'succeeded', budgets: { deadline_ms: 30_000 }, startedAt: start })
      .response({ calls: [{ id: 'c1' }], ts: at(35) })
      .response({ calls: [{ id: 'c2' }], ts: at(5) })
      .final()
      .build();
    const findings = analyzeBudgets(t);
    // The model call at step 2 was sent after 35 s had been logged; so was the final answer.
    assert.deepEqual(
      findings.map((f) => [f.step, f.details?.['used']]),
      [[2, 35_000]],
    );
    assert.match(
      findings[0]?.message ?? '',
      /a model call was made at step 2 after the deadline had passed \(deadline_ms 30,000 ms; 35,000 ms had passed since the run started\); 1 more action followed/,
    );
  });

  it('reads the run end time when no event up to the end has a timestamp', () => {
    const t = toolTurns({ status: 'failed', budgets: { deadline_ms: 1_000 }, startedAt: start, endedAt: at(2) }, 1).build();
    assert.equal(analyzeBudgets(t)[0]?.details?.['used'], 2_000);
    const untimed = toolTurns({ status: 'failed', budgets: { deadline_ms: 1_000 }, startedAt: start, endedAt: at(2) }, 1).build();
    const timed = edited(untimed, (entries) => (entries[0]!.ts = at(0.5)));
    assert.deepEqual(analyzeBudgets(timed), []);
  });

  it('checks no deadline without a start time', () => {
    const t = run({ status: 'succeeded', budgets: { deadline_ms: 1_000 }, endedAt: at(60) })
      .response({ calls: [{ id: 'c1' }], ts: at(30) })
      .result('c1')
      .final({ ts: at(60) })
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
  });
});

describe('budgets: token, cost and context counters', () => {
  it('counts output tokens of all model calls together, with a model call after they were used up reported', () => {
    const t = run({ status: 'succeeded', budgets: { max_completion_tokens: 1_000 } })
      .response({ calls: [{ id: 'c1' }], outputTokens: 400 })
      .execution('c1')
      .result('c1')
      .response({ calls: [{ id: 'c2' }], outputTokens: 600 })
      .execution('c2')
      .result('c2')
      .final({ outputTokens: 10 })
      .build();
    const findings = analyzeBudgets(t);
    // c2 started after 1,000 output tokens (400 + 600) had been used; the final call is a second action.
    assert.deepEqual(
      findings.map((f) => f.call_id),
      ['c2'],
    );
    assert.match(findings[0]?.message ?? '', /\(max_completion_tokens 1,000; 1,000 output tokens used\); 1 more action followed/);
    assert.deepEqual(findings[0]?.details, { limit: 'max_output_tokens', max: 1_000, used: 1_000, after_exhaustion: true });
  });

  it('names an output-token stop with all output tokens counted, and a missing usage as none', () => {
    const t = run({ status: 'budget_exceeded', endLimit: 'output_tokens_exhausted', budgets: { output_token_limit: 1_000 } })
      .response({ calls: [{ id: 'c1' }], outputTokens: 700 })
      .result('c1')
      .response({ calls: [{ id: 'c2' }] })
      .result('c2')
      .response({ calls: [{ id: 'c3' }], outputTokens: 350 })
      .notExecuted('c3')
      .build();
    const stop = analyzeBudgets(t).find((f) => f.details?.['inferred'] === false);
    assert.match(stop?.message ?? '', /stopped by its max_output_tokens budget: 1,050 of 1,000 output tokens used \(output_token_limit\)/);
  });

  it('names an input-token stop, a cost stop and a context stop with their counters', () => {
    const build = (endLimit: string, budgets: Record<string, number>) =>
      run({ status: 'budget_exceeded', endLimit, budgets })
        .response({ calls: [{ id: 'c1' }], inputTokens: 3_000, costUsd: 0.01 })
        .result('c1')
        .response({ calls: [{ id: 'c2' }], inputTokens: 5_000, costUsd: 0.02 })
        .notExecuted('c2')
        .build();
    const stop = (t: ReturnType<typeof build>) => analyzeBudgets(t).find((f) => f.details?.['inferred'] === false);
    assert.match(
      stop(build('input_tokens_reached', { max_prompt_tokens: 8_000 }))?.message ?? '',
      /max_input_tokens budget: 8,000 of 8,000 input tokens used \(max_prompt_tokens\)/,
    );
    assert.match(stop(build('max_budget_usd', { max_budget_usd: 0.03 }))?.message ?? '', /max_cost_usd budget: 0\.03 of 0\.03 USD used \(max_budget_usd\)/);
    assert.match(
      stop(build('context_length', { max_context_window: 4_000 }))?.message ?? '',
      /max_context_tokens budget: 5,000 of 4,000 input tokens in one model call used \(max_context_window\)/,
    );
  });

  it('reports a tool executed after the cost budget was used up with the money spent', () => {
    const t = run({ status: 'succeeded', budgets: { max_budget_per_task: 0.02 } })
      .response({ calls: [{ id: 'c1', name: 'send_email' }], costUsd: 0.025 })
      .result('c1')
      .final()
      .build();
    const findings = analyzeBudgets(t);
    assert.equal(findings.length, 1);
    assert.match(
      findings[0]?.message ?? '',
      /tool call c1 \(send_email\) was executed after the cost budget was used up \(max_budget_per_task 0\.02; 0\.025 USD used\); 1 more action followed: budget checks must happen before each action$/,
    );
  });

  it('reports the first model call sent over the context budget, counting the later ones, with "?" for an unknown step', () => {
    const t = run({ status: 'succeeded', budgets: { max_context_tokens: 1_000 } })
      .response({ calls: [{ id: 'c1' }], inputTokens: 900, step: null })
      .result('c1')
      .response({ calls: [{ id: 'c2' }], inputTokens: 1_200, step: null })
      .result('c2')
      .response({ calls: [{ id: 'c3' }], inputTokens: 1_100, step: null })
      .result('c3')
      .final({ inputTokens: 1_300, step: null })
      .build();
    const findings = analyzeBudgets(t);
    assert.equal(findings.length, 1);
    assert.equal(findings[0]?.line, responseLine(t, 1));
    assert.equal(
      findings[0]?.message,
      'a model call at step ? was sent with 1,200 input tokens, over the context budget (max_context_tokens 1,000); 2 more actions followed: budget checks must happen before each call',
    );
    assert.deepEqual(findings[0]?.details, { limit: 'max_context_tokens', max: 1_000, used: 1_200, after_exhaustion: true });
  });

  it('does not hold a model call without input usage to the context budget', () => {
    const t = run({ status: 'succeeded', budgets: { max_context_tokens: 1_000 } })
      .toolCalls({ id: 'c1' })
      .result('c1')
      .final()
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
  });
});

describe('budgets: stops the loop reported, told apart', () => {
  it('reads the limit a stop names with a suffix, and a limit word', () => {
    for (const [endLimit, expected] of [
      ['tool_calls_exhausted', 'max_tool_calls'],
      ['max_tool_calls_reached', 'max_tool_calls'],
      ['steps', 'max_turns'],
      ['Time', 'deadline'],
    ] as const) {
      const t = toolTurns(
        {
          status: 'budget_exceeded',
          endLimit,
          budgets: { max_turns: 2, max_tool_calls: 2, timeout_ms: 1 },
          startedAt: '2025-01-01T00:00:00.000Z',
          endedAt: '2025-01-01T00:00:01.000Z',
        },
        2,
      ).build();
      const [f] = analyzeBudgets(t);
      assert.equal(f?.details?.['limit'], expected, endLimit);
      assert.match(f?.message ?? '', new RegExp(`stopped by its ${expected} budget`), endLimit);
    }
  });

  it('does not read a suffix in the middle of a name, nor an unknown limit', () => {
    for (const endLimit of ['tool_calls_exhausted_twice', 'patience']) {
      const t = toolTurns({ status: 'budget_exceeded', endLimit, budgets: { max_tool_calls: 2 } }, 2).build();
      const [f] = analyzeBudgets(t);
      assert.equal(f?.details?.['limit'], null, endLimit);
      assert.equal(f?.message, `the run ended with status budget_exceeded on ${endLimit}; no declared budget shows the counter, at step 2 (budget_exceeded)`);
    }
  });

  it('takes the limit that was reached among several declared when the stop names none', () => {
    const t = toolTurns({ status: 'budget_exceeded', budgets: { max_turns: 10, max_tool_calls: 3 } }, 3).build();
    const [f] = analyzeBudgets(t);
    assert.deepEqual(f?.details, { limit: 'max_tool_calls', limit_raw: null, max: 3, used: 3, below_limit: false, inferred: false });
  });

  it('leaves the raw status out when the loop wrote none, and counts up to the last step of an unterminated run', () => {
    const t = toolTurns({ status: 'budget_exceeded', statusRaw: '', endLimit: 'max_turns', budgets: { max_turns: 2 } }, 2).build();
    assert.equal(analyzeBudgets(t)[0]?.message, 'the run was stopped by its max_turns budget: 2 of 2 model calls used (max_turns), at step 2');
  });

  it('writes "?" for the step of a stop when no event has a step', () => {
    const t = run({ status: 'budget_exceeded', endLimit: 'max_turns', budgets: { max_turns: 1 } })
      .response({ step: null, calls: [{ id: 'c1' }] })
      .notExecuted('c1')
      .build();
    assert.match(analyzeBudgets(t)[0]?.message ?? '', /1 of 1 model calls used \(max_turns\), at step \? \(budget_exceeded\)$/);
    assert.equal(analyzeBudgets(t)[0]?.step, null);
  });
});

describe('budgets: inferred stops, clause by clause', () => {
  // Two tool-call turns against max_steps 2: the cap is reached in every case below.
  const capped = (status: RunSpec['status']): TimelineBuilder => toolTurns({ status, budgets: { max_steps: 2 } }, 1);

  it('is not inferred when the last response is a refusal, whatever the status', () => {
    assert.deepEqual(analyzeBudgets(capped('failed').response({ outcome: 'refusal' }).build()), []);
  });

  it('is not inferred when the run was refused, even if the last response is a tool call', () => {
    assert.deepEqual(analyzeBudgets(capped('refused').toolCalls({ id: 'c9' }).result('c9').build()), []);
  });

  it('is not inferred when the run succeeded or the model finished, even without a final answer', () => {
    for (const status of ['succeeded', 'model_finished'] as const) {
      assert.deepEqual(analyzeBudgets(capped(status).toolCalls({ id: 'c9' }).result('c9').build()), [], status);
    }
  });

  it('is not inferred for a run still being written', () => {
    assert.deepEqual(analyzeBudgets(capped('running').toolCalls({ id: 'c9' }).build()), []);
  });

  it('is inferred when the last response is incomplete, and says so', () => {
    const t = capped('failed').response({ outcome: 'incomplete', finishReason: 'length' }).build();
    const [f] = analyzeBudgets(t);
    assert.match(f?.message ?? '', /the last step \(2\) being a incomplete response; the run ended at step 2 with status failed$/);
  });

  it('is inferred for a deadline passed before any model call, and says the response is missing', () => {
    const t = run({ status: 'cancelled', budgets: { deadline_ms: 1_000 }, startedAt: '2025-01-01T00:00:00.000Z', endedAt: '2025-01-01T00:00:05.000Z' }).build();
    const [f] = analyzeBudgets(t);
    assert.match(
      f?.message ?? '',
      /5,000 of 1,000 ms used \(deadline_ms\), the last step \(\?\) being a missing response; the run ended with status cancelled$/,
    );
    assert.equal(f?.line, lineOf(t, 'run_end'));
  });

  it('judges the last response up to the terminal event, not one logged after it', () => {
    const t = toolTurns({ status: 'failed', budgets: { max_steps: 2 } }, 2)
      .end()
      .final()
      .build();
    const inferred = analyzeBudgets(t).filter((f) => f.details?.['inferred'] === true);
    assert.equal(inferred.length, 1);
    assert.equal(inferred[0]?.line, lineOf(t, 'run_end'));
    assert.equal(inferred[0]?.step, 2);
  });

  it('reports at the last line of a run without a terminal event', () => {
    const t = toolTurns({ status: 'unterminated', budgets: { max_steps: 2 } }, 2).build();
    assert.equal(analyzeBudgets(t)[0]?.line, t.lastLine);
  });
});

describe('budgets: every name of docs/semantics.md §5', () => {
  // The table of §5: each name a run may declare a limit under, and the limit it is.
  const declaredAs: Record<string, string> = {
    max_turns: 'max_turns',
    max_steps: 'max_turns',
    max_iterations: 'max_turns',
    step_limit: 'max_turns',
    turn_limit: 'max_turns',
    iteration_limit: 'max_turns',
    max_model_calls: 'max_turns',
    max_tool_calls: 'max_tool_calls',
    tool_call_limit: 'max_tool_calls',
    deadline_ms: 'deadline',
    timeout_ms: 'deadline',
    timeout: 'deadline',
    timeout_s: 'deadline',
    timeout_seconds: 'deadline',
    time_limit: 'deadline',
    max_output_tokens: 'max_output_tokens',
    max_completion_tokens: 'max_output_tokens',
    output_token_limit: 'max_output_tokens',
    max_input_tokens: 'max_input_tokens',
    max_prompt_tokens: 'max_input_tokens',
    input_token_limit: 'max_input_tokens',
    max_cost_usd: 'max_cost_usd',
    max_cost: 'max_cost_usd',
    cost_limit: 'max_cost_usd',
    max_budget_usd: 'max_cost_usd',
    max_budget_per_task: 'max_cost_usd',
    max_context_tokens: 'max_context_tokens',
    context_limit: 'max_context_tokens',
    max_context_window: 'max_context_tokens',
    max_context_length: 'max_context_tokens',
  };
  const seconds = new Set(['timeout', 'timeout_s', 'timeout_seconds', 'time_limit']);

  for (const [name, limit] of Object.entries(declaredAs)) {
    it(`reads ${name} as ${limit}${limit === 'deadline' ? (seconds.has(name) ? ', in seconds' : ', in milliseconds') : ''}`, () => {
      // Every counter ends at 3 (3 model calls, 3 tool calls, 3 tokens each way, 3 USD, 3 s): a limit of 2 is reached.
      const start = '2025-01-01T00:00:00.000Z';
      const builder = run({
        status: 'budget_exceeded',
        budgets: { [name]: limit === 'deadline' && !seconds.has(name) ? 2_000 : 2 },
        startedAt: start,
        endedAt: '2025-01-01T00:00:03.000Z',
      });
      // The context counter is the input of the largest model call: 3 tokens in one call for that limit.
      const inputTokens = limit === 'max_context_tokens' ? 3 : 1;
      for (const id of ['c1', 'c2', 'c3']) builder.response({ calls: [{ id }], inputTokens, outputTokens: 1, costUsd: 1 }).result(id);
      const t = builder.build();
      const stop = analyzeBudgets(t).find((f) => f.details?.['inferred'] === false);
      assert.equal(stop?.details?.['limit'], limit);
      assert.equal(stop?.details?.['max'], limit === 'deadline' ? 2_000 : 2);
      assert.equal(stop?.details?.['used'], limit === 'deadline' ? 3_000 : 3);
      assert.match(stop?.message ?? '', new RegExp(`\\(${name}\\)`));
    });
  }

  // The words a stop may name its limit with (§5), each with a declared budget of that limit.
  for (const [word, limit, budgets] of [
    ['turns', 'max_turns', { max_turns: 3 }],
    ['iterations', 'max_turns', { max_turns: 3 }],
    ['tool_calls', 'max_tool_calls', { max_tool_calls: 3 }],
    ['output_tokens', 'max_output_tokens', { max_output_tokens: 3 }],
    ['input_tokens', 'max_input_tokens', { max_input_tokens: 3 }],
    ['context', 'max_context_tokens', { max_context_tokens: 3 }],
    ['context_tokens', 'max_context_tokens', { max_context_tokens: 3 }],
    ['context_window', 'max_context_tokens', { max_context_tokens: 3 }],
  ] as const) {
    it(`reads a stop on "${word}" as ${limit}`, () => {
      const t = toolTurns({ status: 'budget_exceeded', endLimit: word, budgets }, 1).build();
      const [f] = analyzeBudgets(t);
      assert.equal(f?.details?.['limit'], limit);
      assert.match(f?.message ?? '', new RegExp(`stopped by its ${limit} budget`));
    });
  }

  it('strips a suffix only at the end of the name', () => {
    // "cost_exceeded_limit" is not "cost_limit" with a suffix in the middle.
    const t = toolTurns({ status: 'budget_exceeded', endLimit: 'cost_exceeded_limit', budgets: { max_cost_usd: 1 } }, 1).build();
    assert.equal(analyzeBudgets(t)[0]?.details?.['limit'], null);
  });
});

describe('budgets: limits that cannot be read', () => {
  it('ignores an infinite limit (a JSON 1e999 parses to Infinity)', () => {
    const t = toolTurns({ status: 'budget_exceeded', budgets: { max_turns: Number.POSITIVE_INFINITY } }, 2).build();
    assert.equal(analyzeBudgets(t)[0]?.message, 'the run ended with status budget_exceeded; no declared budget shows the counter, at step 2 (budget_exceeded)');
  });

  it('ignores an absolute deadline written as a list', () => {
    const start = '2025-01-01T00:00:00.000Z';
    const t = toolTurns(
      { status: 'failed', budgets: { deadline: ['2025-01-01T00:00:01.000Z'] } as never, startedAt: start, endedAt: '2025-01-01T00:00:05.000Z' },
      1,
    ).build();
    assert.deepEqual(analyzeBudgets(t), []);
  });

  it('shows no counter for a deadline when the run has no start time, even as the only limit declared', () => {
    const t = toolTurns({ status: 'budget_exceeded', budgets: { deadline_ms: 1_000 }, endedAt: '2025-01-01T00:00:05.000Z' }, 1).build();
    const [f] = analyzeBudgets(t);
    assert.equal(f?.message, 'the run ended with status budget_exceeded; no declared budget shows the counter, at step 1 (budget_exceeded)');
    assert.deepEqual(f?.details, { limit: null, limit_raw: null, max: null, used: null, below_limit: null, inferred: false });
  });
});

describe('budgets: the step and the end', () => {
  it('reports the highest step logged up to the end, even when an event with a lower step comes last', () => {
    const t = run({ status: 'budget_exceeded', endLimit: 'max_turns', budgets: { max_turns: 2 } })
      .toolCalls({ id: 'c1' }, { id: 'c0' })
      .result('c0')
      .toolCalls({ id: 'c2' })
      .result('c2')
      .result('c1')
      .build();
    const [f] = analyzeBudgets(t);
    assert.equal(f?.step, 2);
    assert.match(f?.message ?? '', /, at step 2 \(budget_exceeded\)$/);
  });

  it('counts nothing after a terminal event that is the first event of the run', () => {
    const t = run({ status: 'budget_exceeded', endLimit: 'max_turns', budgets: { max_turns: 1 } })
      .end()
      .final()
      .build();
    const stop = analyzeBudgets(t).find((f) => f.severity === 'warning');
    assert.equal(stop?.step, null);
    assert.match(stop?.message ?? '', /0 of 1 model calls used \(max_turns\), at step \? \(budget_exceeded\)/);
    assert.equal(stop?.line, lineOf(t, 'run_end'));
    // Inferred: the final answer after the end does not count as the run's last response.
    const inferred = run({ status: 'failed', budgets: { deadline_ms: 1_000 }, startedAt: '2025-01-01T00:00:00.000Z', endedAt: '2025-01-01T00:00:05.000Z' })
      .end()
      .final()
      .build();
    assert.match(analyzeBudgets(inferred)[0]?.message ?? '', /the last step \(\?\) being a missing response/);
  });
});

describe('budgets: a deadline with no clock to read', () => {
  it('reports no action after an absolute deadline that fell before the start when no event carries a time', () => {
    // The deadline is 10 s before the run's start, so any logged time would be past it; none is logged.
    const t = run({ status: 'succeeded', budgets: { deadline: '2024-12-31T23:59:50.000Z' }, startedAt: '2025-01-01T00:00:00.000Z' })
      .toolCalls({ id: 'c1' })
      .result('c1')
      .final()
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
    const timed = edited(t, (entries) => (entries[0]!.ts = '2025-01-01T00:00:01.000Z'));
    assert.deepEqual(
      analyzeBudgets(timed).map((f) => [f.call_id, f.details?.['max'], f.details?.['used']]),
      [['c1', -10_000, 1_000]],
    );
  });
});
