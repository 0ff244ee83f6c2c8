import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callArgumentsIn, subAgentLabel } from '../../../shared/trace/subAgentCall';

describe('callArgumentsIn', () => {
  it("finds an Anthropic tool_use block's input by its id, among other blocks", () => {
    const record = {
      type: 'assistant',
      message: {
        content: [
          { type: 'text', text: 'x' },
          { type: 'tool_use', id: 'toolu_2', name: 'Task', input: { description: 'Find helpers', subagent_type: 'Explore' } },
        ],
      },
    };
    assert.deepEqual(callArgumentsIn(record, 'toolu_2'), { description: 'Find helpers', subagent_type: 'Explore' });
  });

  it('parses OpenAI arguments written as a JSON string, under function', () => {
    const record = { tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'spawn', arguments: '{"description":"d"}' } }] };
    assert.deepEqual(callArgumentsIn(record, 'call_9'), { description: 'd' });
  });

  it('finds nothing for another id, for arguments that are not an object, or in a non-object', () => {
    const record = {
      content: [
        { id: 'toolu_1', input: { description: 'a' } },
        { id: 'toolu_3', arguments: 'not json' },
      ],
    };
    assert.equal(callArgumentsIn(record, 'toolu_2'), undefined);
    assert.equal(callArgumentsIn(record, 'toolu_3'), undefined);
    assert.equal(callArgumentsIn('toolu_1', 'toolu_1'), undefined);
    assert.equal(callArgumentsIn(null, 'toolu_1'), undefined);
  });

  it('stops at a depth a hostile record cannot exhaust', () => {
    let deep: unknown = { id: 'x', input: { description: 'deep' } };
    for (let i = 0; i < 50; i += 1) deep = { nested: deep };
    assert.equal(callArgumentsIn(deep, 'x'), undefined);
  });
});

describe('subAgentLabel', () => {
  it('names the description and the agent type', () => {
    assert.equal(subAgentLabel({ description: 'Find currency helpers', subagent_type: 'Explore', prompt: 'long' }), 'Find currency helpers (Explore)');
  });

  it('uses either alone, with whitespace folded', () => {
    assert.equal(subAgentLabel({ description: '  Review\n the diff ' }), 'Review the diff');
    assert.equal(subAgentLabel({ subagent_type: 'general-purpose' }), 'general-purpose');
  });

  it('is null without either (or with blank or non-text values) and cuts long labels', () => {
    assert.equal(subAgentLabel(undefined), null);
    assert.equal(subAgentLabel({ prompt: 'p' }), null);
    assert.equal(subAgentLabel({ description: '   ', subagent_type: 3 }), null);
    const label = subAgentLabel({ description: 'x'.repeat(500) });
    assert.equal(label?.length, 120);
    assert.ok(label?.endsWith('…'));
  });
});
