/** Budget terminations and actions taken after a budget was used up (docs/semantics.md §5). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeBudgets } from '../../shared/analysis/budgets';
import { lineOf, responseLine, run, type RunSpec, type TimelineBuilder } from './timelineBuilder';

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
    assert.deepEqual(f?.details, { limit: 'max_tool_calls', limit_raw: 'max_tool_calls', max: 3, used: 3, inferred: false });
  });

  it('understands the limit spelled "Max turns exceeded" and a budget declared as max_steps', () => {
    const t = toolTurns({ status: 'budget_exceeded', statusRaw: 'Max turns exceeded', endLimit: 'Max turns exceeded', budgets: { max_steps: 2 } }, 2).build();
    const [f, ...rest] = analyzeBudgets(t);
    assert.equal(rest.length, 0);
    assert.match(f?.message ?? '', /max_turns budget: 2 of 2 model calls used \(max_steps\)/);
    assert.deepEqual(f?.details, { limit: 'max_turns', limit_raw: 'Max turns exceeded', max: 2, used: 2, inferred: false });
  });

  it('finds the tripped limit among the declared budgets when the loop did not name it (hitCap:true)', () => {
    const t = toolTurns({ status: 'budget_exceeded', statusRaw: 'hitCap:true', budgets: { max_steps: 3 } }, 3).build();
    const [f] = analyzeBudgets(t);
    assert.match(f?.message ?? '', /max_turns budget: 3 of 3 model calls used/);
    assert.match(f?.message ?? '', /hitCap:true/);
    assert.deepEqual(f?.details, { limit: 'max_turns', limit_raw: null, max: 3, used: 3, inferred: false });
  });

  it('still reports the termination when no declared budget shows the counter', () => {
    const t = toolTurns({ status: 'budget_exceeded', endLimit: 'max_cost_usd' }, 1).build();
    const [f] = analyzeBudgets(t);
    assert.match(f?.message ?? '', /status budget_exceeded on max_cost_usd; no declared budget shows the counter/);
    assert.deepEqual(f?.details, { limit: 'max_cost_usd', limit_raw: 'max_cost_usd', max: null, used: null, inferred: false });
  });

  it(
    'does not attribute the termination to another limit when the one the loop named was not declared',
    () => {
      const t = toolTurns({ status: 'budget_exceeded', endLimit: 'max_tool_calls', budgets: { max_turns: 2 } }, 2).build();
      const [f] = analyzeBudgets(t);
      assert.equal(f?.details?.['limit'], 'max_tool_calls');
      assert.doesNotMatch(f?.message ?? '', /max_turns/);
      assert.match(f?.message ?? '', /max_tool_calls/);
      assert.equal(f?.details?.['max'], null);
    },
  );

  it('names the deadline, in milliseconds, when the loop stopped on it', () => {
    const t = toolTurns(
      { status: 'budget_exceeded', endLimit: 'deadline', budgets: { deadline_ms: 60_000 }, startedAt: '2025-01-01T00:00:00.000Z', endedAt: '2025-01-01T00:01:05.000Z' },
      2,
    ).build();
    const [f] = analyzeBudgets(t);
    assert.match(f?.message ?? '', /deadline budget: 65,000 of 60,000 ms used \(deadline_ms\)/);
    assert.deepEqual(f?.details, { limit: 'deadline', limit_raw: 'deadline', max: 60_000, used: 65_000, inferred: false });
  });
});

describe('budgets: cost', () => {
  it('names the cost budget and the money spent when the loop stopped on it', () => {
    const t = run({ status: 'budget_exceeded', statusRaw: 'budget_exhausted', endLimit: 'cost', budgets: { max_cost_usd: 0.05 } })
      .response({ calls: [{ id: 'c1' }], costUsd: 0.03 })
      .result('c1')
      .response({ calls: [{ id: 'c2' }], costUsd: 0.025 })
      .result('c2')
      .build();
    const [f] = analyzeBudgets(t);
    assert.match(f?.message ?? '', /stopped by its max_cost_usd budget: 0\.055 of 0\.05 USD used \(max_cost_usd\)/);
    assert.deepEqual(f?.details, { limit: 'max_cost_usd', limit_raw: 'cost', max: 0.05, used: 0.055, inferred: false });
  });

  it('infers a cost cap reached without a final answer', () => {
    const t = run({ status: 'failed', budgets: { max_cost_usd: 0.02 } }).response({ calls: [{ id: 'c1' }], costUsd: 0.02 }).result('c1').build();
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
    const t = toolTurns({ status: 'cancelled', budgets: { deadline_ms: 30_000 }, startedAt: '2025-01-01T00:00:00Z', endedAt: '2025-01-01T00:00:31Z' }, 2).build();
    const [f, ...rest] = analyzeBudgets(t);
    assert.equal(rest.length, 0);
    assert.match(f?.message ?? '', /deadline budget without a final answer: 31,000 of 30,000 ms used/);
    assert.deepEqual(f?.details, { limit: 'deadline', max: 30_000, used: 31_000, inferred: true });
  });

  it('does not infer a budget termination when the run ended with a final answer', () => {
    const t = toolTurns({ status: 'succeeded', budgets: { max_steps: 4 } }, 3).final().build();
    assert.deepEqual(analyzeBudgets(t), []);
  });

  it('does not infer a budget termination when the final answer came at the cap but business checks failed the run', () => {
    const t = toolTurns({ status: 'failed', budgets: { max_steps: 4 } }, 3).final().build();
    assert.deepEqual(analyzeBudgets(t), []);
  });

  it('does not infer a budget termination when no declared limit was reached', () => {
    const t = toolTurns({ status: 'failed', budgets: { max_steps: 8, max_tool_calls: 10 } }, 4).build();
    assert.deepEqual(analyzeBudgets(t), []);
  });

  it('does not infer a budget termination for a run without declared budgets', () => {
    assert.deepEqual(analyzeBudgets(toolTurns({ status: 'failed' }, 20).build()), []);
  });

  it(
    'does not infer a budget termination when the last allowed step was a refusal',
    () => {
      const t = toolTurns({ status: 'refused', budgets: { max_steps: 2 } }, 1).response({ outcome: 'refusal' }).build();
      assert.deepEqual(analyzeBudgets(t), []);
    },
  );

  it(
    'does not infer a budget termination for a run paused for approval',
    () => {
      const t = toolTurns({ status: 'waiting_for_approval', budgets: { max_steps: 2 } }, 1).toolCalls({ id: 'c9', name: 'deploy' }).build();
      assert.deepEqual(analyzeBudgets(t), []);
    },
  );
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
    assert.match(f?.message ?? '', /tool call c3 was executed after the tool-call budget was used up \(max_tool_calls 2; this was tool call 3\)/);
    assert.deepEqual(f?.details, { limit: 'max_tool_calls', max: 2, used: 3, after_exhaustion: true });
  });

  it('anchors the finding at the result when the loop logged no execution start', () => {
    const t = toolTurns({ status: 'succeeded', budgets: { max_tool_calls: 1 } }, 2).final().build();
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
    const t = toolTurns({ status: 'succeeded', budgets: { max_turns: 2 } }, 2).final().build();
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
      { status: 'succeeded', budgets: { max_turns: 5, max_tool_calls: 5, max_output_tokens: 10_000, deadline_ms: 60_000 }, startedAt: '2025-01-01T00:00:00Z', endedAt: '2025-01-01T00:00:10Z' },
      2,
    )
      .final()
      .build();
    assert.deepEqual(analyzeBudgets(t), []);
  });
});
