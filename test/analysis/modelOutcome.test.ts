/** A model response is one of four outcomes (docs/semantics.md §1). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyResponse, isKnownFinishReason, isToolCallFinishReason, isTruncationFinishReason } from '../../shared/trace/modelOutcome';

describe('classifyResponse', () => {
  it('keeps the outcome the loop logged itself', () => {
    assert.equal(classifyResponse({ outcome: 'refusal', finishReason: 'stop', toolCallCount: 0 }), 'refusal');
    assert.equal(classifyResponse({ outcome: 'incomplete', finishReason: 'tool_calls', toolCallCount: 2 }), 'incomplete');
  });

  it('classifies a response carrying calls as tool_calls, whatever its text or finish reason', () => {
    assert.equal(classifyResponse({ finishReason: 'tool_calls', toolCallCount: 1 }), 'tool_calls');
    assert.equal(classifyResponse({ finishReason: 'stop', toolCallCount: 2 }), 'tool_calls');
  });

  for (const reason of ['stop', 'end_turn', 'stop_sequence', 'completed', 'STOP', null]) {
    it(`classifies finish reason ${JSON.stringify(reason)} without calls as final`, () => {
      assert.equal(classifyResponse({ finishReason: reason, toolCallCount: 0 }), 'final');
    });
  }

  it('classifies a refusal by its finish reason or its refusal text', () => {
    assert.equal(classifyResponse({ finishReason: 'refusal', toolCallCount: 0 }), 'refusal');
    assert.equal(classifyResponse({ finishReason: 'stop', toolCallCount: 0, refusal: 'I cannot help with that.' }), 'refusal');
  });

  it('does not treat an empty refusal field as a refusal', () => {
    assert.equal(classifyResponse({ finishReason: 'stop', toolCallCount: 0, refusal: '' }), 'final');
  });

  for (const reason of ['length', 'max_tokens', 'tool_calls', 'tool_use', 'content_filter', 'something_new']) {
    it(`classifies finish reason "${reason}" without calls as incomplete, never done`, () => {
      assert.equal(classifyResponse({ finishReason: reason, toolCallCount: 0 }), 'incomplete');
    });
  }
});

describe('finish reason predicates', () => {
  it('recognizes truncation reasons, case-insensitively', () => {
    for (const reason of ['length', 'max_tokens', 'MAX_TOKENS', ' length ']) assert.equal(isTruncationFinishReason(reason), true, reason);
    for (const reason of ['stop', 'tool_calls']) assert.equal(isTruncationFinishReason(reason), false, reason);
  });

  it('recognizes tool-call reasons of OpenAI and Anthropic', () => {
    for (const reason of ['tool_calls', 'tool_use', 'function_call', 'Tool_Use']) assert.equal(isToolCallFinishReason(reason), true, reason);
    for (const reason of ['stop', 'end_turn', 'length']) assert.equal(isToolCallFinishReason(reason), false, reason);
  });

  it('knows the common reasons and not made-up ones', () => {
    for (const reason of ['stop', 'end_turn', 'tool_calls', 'tool_use', 'length', 'max_tokens', 'refusal', 'content_filter']) assert.equal(isKnownFinishReason(reason), true, reason);
    for (const reason of ['weird_stop', '', 'done!']) assert.equal(isKnownFinishReason(reason), false, reason);
  });
});
