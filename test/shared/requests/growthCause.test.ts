/** What made a turn grow, in words: appended messages by size, then prefix changes and rewrites. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addedGroupLabel, growthCauses } from '../../../shared/requests/growthCause';

describe('growth causes', () => {
  it('names a tool result by its tool, and counts several', () => {
    assert.equal(addedGroupLabel({ role: 'tool', tool: 'Read', messages: 1 }), 'tool result of Read');
    assert.equal(addedGroupLabel({ role: 'tool', tool: 'Bash', messages: 3 }), '3 tool results of Bash');
    assert.equal(addedGroupLabel({ role: 'tool', tool: '', messages: 1 }), 'tool result of an unnamed tool');
    assert.equal(addedGroupLabel({ role: 'tool', tool: null, messages: 2 }), '2 tool results');
  });

  it('names other messages by their role', () => {
    assert.equal(addedGroupLabel({ role: 'user', tool: null, messages: 1 }), 'user message');
    assert.equal(addedGroupLabel({ role: 'assistant', tool: null, messages: 2 }), '2 assistant messages');
  });

  it('lists the appended parts largest first, dropping empty ones, then a changed system prompt, tools and a rewrite', () => {
    const causes = growthCauses({
      added: [
        { role: 'assistant', tool: null, messages: 1, tokens: 120 },
        { role: 'tool', tool: 'Read', messages: 1, tokens: 12_400 },
        { role: 'user', tool: null, messages: 1, tokens: 0 },
      ],
      prefixChange: { system: true, toolsAdded: [], toolsRemoved: [], toolsChanged: ['Read'], toolsReordered: false },
      rewrite: { messageNumber: 4 },
    });
    assert.deepEqual(causes, [
      { label: 'tool result of Read', tokens: 12_400 },
      { label: 'assistant message', tokens: 120 },
      { label: 'system prompt changed', tokens: null },
      { label: 'tool definitions changed', tokens: null },
      { label: 'history rewritten at message 4', tokens: null },
    ]);
  });

  it('a turn that only appended names no prefix change; reordered tools alone are a change', () => {
    assert.deepEqual(growthCauses({ added: [{ role: 'user', tool: null, messages: 1, tokens: 30 }], prefixChange: null, rewrite: null }), [
      { label: 'user message', tokens: 30 },
    ]);
    assert.deepEqual(
      growthCauses({ added: [], prefixChange: { system: false, toolsAdded: [], toolsRemoved: [], toolsChanged: [], toolsReordered: true }, rewrite: null }),
      [{ label: 'tool definitions changed', tokens: null }],
    );
    assert.deepEqual(
      growthCauses({ added: [], prefixChange: { system: false, toolsAdded: [], toolsRemoved: [], toolsChanged: [], toolsReordered: false }, rewrite: null }),
      [],
    );
  });
});
