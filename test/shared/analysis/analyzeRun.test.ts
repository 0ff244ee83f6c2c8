/** The single entry point: every analysis, findings in file order. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeRun } from '../../../shared/analysis/analyzeRun';
import { findingSchema } from '../../../shared/report';
import { run } from './timelineBuilder';

const options = { window: 6, threshold: 3 };

describe('analyzeRun', () => {
  it('returns the findings of every analysis sorted by line', () => {
    const read = { name: 'read_file', args: { path: 'a' } };
    const t = run({ status: 'unterminated', budgets: { max_tool_calls: 3 } })
      .toolCalls({ id: 'c1', ...read })
      .result('c1', { hash: 'same' })
      .toolCalls({ id: 'c2', ...read })
      .error('c2', 'timeout', { hash: 'same' })
      .result('ghost', { step: 2 })
      .toolCalls({ id: 'c3', ...read })
      .result('c3', { hash: 'same' })
      .toolCalls({ id: 'c4', name: 'write_file', argsError: 'bad JSON' })
      .execution('c4')
      .response({ outcome: 'incomplete', finishReason: 'length' })
      .build();
    const { findings, calls } = analyzeRun(t, options);
    const lines = findings.map((f) => f.line ?? Infinity);
    assert.deepEqual(
      lines,
      [...lines].sort((a, b) => a - b),
    );
    assert.deepEqual(
      new Set(findings.map((f) => f.kind)),
      new Set([
        'tool_error',
        'orphan_result',
        'repeated_action',
        'invalid_arguments',
        'dangling_call',
        'budget_exceeded',
        'truncated_response',
        'unterminated_run',
      ]),
    );
    for (const f of findings) assert.doesNotThrow(() => findingSchema.parse(f));
    assert.deepEqual(
      [...calls].map((c) => [c.call.callId, c.state]),
      [
        ['c1', 'ok'],
        ['c2', 'error'],
        ['c3', 'ok'],
        ['c4', 'dangling'],
      ],
    );
  });

  it('reports nothing for a healthy run', () => {
    const t = run({ status: 'succeeded', budgets: { max_turns: 5 } })
      .toolCalls({ id: 'c1', name: 'read_file' })
      .result('c1')
      .toolCalls({ id: 'c2', name: 'write_file' })
      .result('c2')
      .final()
      .build();
    const { findings, calls } = analyzeRun(t, options);
    assert.deepEqual(findings, []);
    assert.deepEqual(
      [...calls].map((c) => c.state),
      ['ok', 'ok'],
    );
  });
});
