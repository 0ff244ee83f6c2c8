/** What each model response says about the loop (docs/semantics.md §1). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeResponseOutcomes } from '../../shared/analysis/responseOutcomes';
import type { ResponseSpec } from './timelineBuilder';
import { responseLine, run } from './timelineBuilder';

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
    assert.deepEqual(findings.map((f) => f.kind), ['dropped_tool_call']);
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
    assert.deepEqual(findings.map((f) => [f.kind, f.severity, f.step, f.line]), [['refusal', 'warning', 2, responseLine(t, 1)]]);
    assert.match(findings[0]?.message ?? '', /declined/);
  });

  it('reports a refusal logged with a plain stop reason', () => {
    const { findings } = analyzeSecond({ outcome: 'refusal', finishReason: 'end_turn' });
    assert.deepEqual(findings.map((f) => f.kind), ['refusal']);
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
      const t = run().response({ finishReason: reason, calls: [{ id: 'c1' }, { id: 'c2' }] }).result('c1').result('c2').final().build();
      assert.deepEqual(analyzeResponseOutcomes(t), []);
    });
  }
});
