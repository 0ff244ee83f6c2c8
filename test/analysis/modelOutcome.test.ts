/** A model response is one of four outcomes, derived in one order (docs/semantics.md §1). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyResponse, isKnownFinishReason, isToolCallFinishReason, isTruncationFinishReason, outputRepeatsText } from '../../shared/trace/modelOutcome';

describe('classifyResponse', () => {
  it('keeps the outcome the loop logged itself', () => {
    assert.equal(classifyResponse({ outcome: 'refusal', finishReason: 'stop', toolCallCount: 0 }), 'refusal');
    assert.equal(classifyResponse({ outcome: 'incomplete', finishReason: 'tool_calls', toolCallCount: 2 }), 'incomplete');
  });

  it('classifies a response carrying calls as tool_calls when it finished with a tool-call or plain stop', () => {
    assert.equal(classifyResponse({ finishReason: 'tool_calls', toolCallCount: 1 }), 'tool_calls');
    assert.equal(classifyResponse({ finishReason: 'stop', toolCallCount: 2 }), 'tool_calls');
    assert.equal(classifyResponse({ finishReason: null, toolCallCount: 1 }), 'tool_calls');
  });

  for (const reason of ['length', 'max_tokens', 'MAX_TOKENS', 'content_filter', 'pause_turn', 'something_new']) {
    it(`classifies finish reason "${reason}" as incomplete even when the response carries a call`, () => {
      assert.equal(classifyResponse({ finishReason: reason, toolCallCount: 1 }), 'incomplete');
    });
  }

  it('keeps a refusal that came with a call a refusal, even when it was cut off', () => {
    assert.equal(classifyResponse({ finishReason: 'tool_calls', toolCallCount: 1, refusal: 'I will not do that.' }), 'refusal');
    assert.equal(classifyResponse({ finishReason: 'refusal', toolCallCount: 1 }), 'refusal');
    assert.equal(classifyResponse({ finishReason: 'length', toolCallCount: 0, refusal: 'I cannot' }), 'refusal');
  });

  it("lets the provider's finish reason overrule a logged final or tool_calls that it contradicts", () => {
    assert.equal(classifyResponse({ outcome: 'final', finishReason: 'length', toolCallCount: 0 }), 'incomplete');
    assert.equal(classifyResponse({ outcome: 'tool_calls', finishReason: 'max_tokens', toolCallCount: 1 }), 'incomplete');
    assert.equal(classifyResponse({ outcome: 'final', finishReason: 'weird_provider_reason', toolCallCount: 0 }), 'incomplete');
    assert.equal(classifyResponse({ outcome: 'final', finishReason: 'stop', toolCallCount: 0 }), 'final');
    assert.equal(classifyResponse({ outcome: 'tool_calls', finishReason: 'stop', toolCallCount: 1 }), 'tool_calls');
  });

  it('classifies a response with an incomplete_reason as incomplete, whatever else it says', () => {
    assert.equal(classifyResponse({ outcome: 'tool_calls', finishReason: 'tool_calls', toolCallCount: 1, incompleteReason: 'stream_interrupted' }), 'incomplete');
    assert.equal(classifyResponse({ finishReason: null, toolCallCount: 0, incompleteReason: '' }), 'final');
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

  it("reads other providers' and SDKs' spellings by what they mean", () => {
    assert.equal(classifyResponse({ finishReason: 'tool-calls', toolCallCount: 1 }), 'tool_calls');
    assert.equal(classifyResponse({ finishReason: 'COMPLETE', toolCallCount: 0 }), 'final');
    assert.equal(classifyResponse({ finishReason: 'eos_token', toolCallCount: 0 }), 'final');
    for (const reason of ['SAFETY', 'content-filter', 'guardrail_intervened', 'model_length']) {
      assert.equal(classifyResponse({ finishReason: reason, toolCallCount: 1 }), 'incomplete', reason);
      assert.equal(isKnownFinishReason(reason), true, reason);
    }
    assert.equal(isToolCallFinishReason('MALFORMED_FUNCTION_CALL'), true);
    assert.equal(classifyResponse({ finishReason: 'MALFORMED_FUNCTION_CALL', toolCallCount: 0 }), 'incomplete');
  });

  it('knows the common reasons and not made-up ones', () => {
    for (const reason of ['stop', 'end_turn', 'tool_calls', 'tool_use', 'length', 'max_tokens', 'refusal', 'content_filter']) assert.equal(isKnownFinishReason(reason), true, reason);
    for (const reason of ['weird_stop', '', 'done!']) assert.equal(isKnownFinishReason(reason), false, reason);
  });
});

describe('outputRepeatsText', () => {
  const text = 'Order A-10402 contains one item: the Ridge 2-person tent';

  it('matches an output that is the text, give or take surrounding space', () => {
    assert.equal(outputRepeatsText(`  ${text}\n`, text), true);
    assert.equal(outputRepeatsText('OK', 'OK'), true);
  });

  it('matches an output that contains a long enough text, also inside a structured output', () => {
    assert.equal(outputRepeatsText(`Answer: ${text}. Anything else?`, text), true);
    assert.equal(outputRepeatsText({ answer: { text: `${text}.` }, turns: 3 }, text), true);
    assert.equal(outputRepeatsText([1, `${text}!`], text), true);
  });

  it('does not match a short common text inside a longer output, a different output, or an empty text', () => {
    assert.equal(outputRepeatsText('OK, the refund is done.', 'OK'), false);
    assert.equal(outputRepeatsText('Order A-10402 has shipped.', text), false);
    assert.equal(outputRepeatsText(text, '   '), false);
    assert.equal(outputRepeatsText(undefined, text), false);
    assert.equal(outputRepeatsText(42, text), false);
  });
});
