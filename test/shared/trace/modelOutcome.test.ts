/** A model response is one of four outcomes, derived in one order, and every finish reason Loopscope knows by what it means for the outcome (docs/semantics.md §1, §1.1). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classifyResponse,
  isContentFilterFinishReason,
  isKnownFinishReason,
  isToolCallFinishReason,
  isTruncationFinishReason,
  outputRepeatsText,
} from '../../../shared/trace/modelOutcome';

/** Providers' finish reasons, grouped by what docs/semantics.md §1.1 says they mean. */
const finals = ['stop', 'end_turn', 'stop_sequence', 'completed', 'COMPLETE', 'eos', 'eos_token'];
const toolCallFinishes = ['tool_calls', 'tool_use', 'function_call', 'tool_call', 'MALFORMED_FUNCTION_CALL', 'tool-calls'];
const truncations = ['length', 'max_tokens', 'MAX_OUTPUT_TOKENS', 'model_context_window_exceeded', 'model_length'];
const contentFilters = [
  'content_filter',
  'content_filtered',
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'guardrail_intervened',
];
const others = ['pause_turn'];
const unknowns = ['weird_stop', 'stopped', 'toolcalls', 'max tokens'];

describe('classifyResponse: each finish reason', () => {
  for (const reason of finals) {
    it(`"${reason}" is final without calls, tool_calls with one`, () => {
      assert.equal(classifyResponse({ finishReason: reason, toolCallCount: 0 }), 'final');
      assert.equal(classifyResponse({ finishReason: reason, toolCallCount: 1 }), 'tool_calls');
      assert.equal(classifyResponse({ finishReason: ` ${reason.toUpperCase()} `, toolCallCount: 0 }), 'final');
    });
  }

  for (const reason of toolCallFinishes) {
    it(`"${reason}" is tool_calls with a call, incomplete (a dropped call) without one`, () => {
      assert.equal(classifyResponse({ finishReason: reason, toolCallCount: 2 }), 'tool_calls');
      assert.equal(classifyResponse({ finishReason: reason, toolCallCount: 0 }), 'incomplete');
    });
  }

  for (const reason of [...truncations, ...contentFilters, ...others, ...unknowns]) {
    it(`"${reason}" is incomplete, with or without calls, whatever the loop logged`, () => {
      assert.equal(classifyResponse({ finishReason: reason, toolCallCount: 0 }), 'incomplete');
      assert.equal(classifyResponse({ finishReason: reason, toolCallCount: 1 }), 'incomplete');
      assert.equal(classifyResponse({ outcome: 'final', finishReason: reason, toolCallCount: 0 }), 'incomplete');
    });
  }

  it('"refusal", in any case, is a refusal, with or without calls', () => {
    assert.equal(classifyResponse({ finishReason: 'REFUSAL', toolCallCount: 0 }), 'refusal');
    assert.equal(classifyResponse({ finishReason: ' refusal', toolCallCount: 3 }), 'refusal');
  });
});

describe('classifyResponse: what the loop logged', () => {
  it('keeps a logged final or tool_calls when no finish reason contradicts it, whatever the calls', () => {
    assert.equal(classifyResponse({ outcome: 'final', finishReason: null, toolCallCount: 2 }), 'final');
    assert.equal(classifyResponse({ outcome: 'tool_calls', finishReason: null, toolCallCount: 0 }), 'tool_calls');
    assert.equal(classifyResponse({ outcome: 'final', finishReason: 'tool_calls', toolCallCount: 0 }), 'final');
  });

  it('takes a logged refusal or incomplete over everything but a refusal', () => {
    assert.equal(classifyResponse({ outcome: 'refusal', finishReason: null, toolCallCount: 1 }), 'refusal');
    assert.equal(classifyResponse({ outcome: 'incomplete', finishReason: null, toolCallCount: 0 }), 'incomplete');
    assert.equal(classifyResponse({ outcome: 'incomplete', finishReason: 'stop', toolCallCount: 0, refusal: 'No.' }), 'refusal');
  });

  it('keeps a logged refusal a refusal when it was cut short', () => {
    assert.equal(classifyResponse({ outcome: 'refusal', finishReason: 'length', toolCallCount: 0 }), 'refusal');
    assert.equal(classifyResponse({ outcome: 'refusal', finishReason: null, toolCallCount: 0, incompleteReason: 'stream_interrupted' }), 'refusal');
  });

  it('keeps a logged incomplete whatever the finish reason and the calls say', () => {
    for (const finishReason of [null, 'stop', 'tool_calls', 'length']) {
      assert.equal(classifyResponse({ outcome: 'incomplete', finishReason, toolCallCount: 1 }), 'incomplete', String(finishReason));
      assert.equal(classifyResponse({ outcome: 'incomplete', finishReason, toolCallCount: 0 }), 'incomplete', String(finishReason));
    }
  });

  it('does not read a null refusal or incomplete_reason as one', () => {
    assert.equal(classifyResponse({ finishReason: null, toolCallCount: 0, refusal: null, incompleteReason: null }), 'final');
    assert.equal(classifyResponse({ finishReason: 'stop', toolCallCount: 1, refusal: null, incompleteReason: null }), 'tool_calls');
  });

  it('reads a non-empty incomplete_reason as incomplete, even with a final finish', () => {
    assert.equal(classifyResponse({ finishReason: 'stop', toolCallCount: 0, incompleteReason: 'max_output_tokens' }), 'incomplete');
  });
});

describe('finish reason predicates: each group', () => {
  const groups: [string, readonly string[], { truncation: boolean; filter: boolean; toolCall: boolean }][] = [
    ['final', finals, { truncation: false, filter: false, toolCall: false }],
    ['tool-call', toolCallFinishes, { truncation: false, filter: false, toolCall: true }],
    ['truncation', truncations, { truncation: true, filter: false, toolCall: false }],
    ['content filter', contentFilters, { truncation: false, filter: true, toolCall: false }],
    ['other', [...others, 'refusal'], { truncation: false, filter: false, toolCall: false }],
  ];
  for (const [name, reasons, expected] of groups) {
    it(`knows every ${name} reason and tells which kind it is`, () => {
      for (const reason of reasons) {
        for (const spelling of [reason, ` ${reason.toUpperCase().replaceAll('_', '-')} `]) {
          assert.equal(isKnownFinishReason(spelling), true, spelling);
          assert.equal(isTruncationFinishReason(spelling), expected.truncation, spelling);
          assert.equal(isContentFilterFinishReason(spelling), expected.filter, spelling);
          assert.equal(isToolCallFinishReason(spelling), expected.toolCall, spelling);
        }
      }
    });
  }

  it('knows no made-up reason', () => {
    for (const reason of [...unknowns, '']) {
      assert.equal(isKnownFinishReason(reason), false, reason);
      assert.equal(isTruncationFinishReason(reason), false, reason);
      assert.equal(isContentFilterFinishReason(reason), false, reason);
      assert.equal(isToolCallFinishReason(reason), false, reason);
    }
  });
});

describe('outputRepeatsText: how far it looks', () => {
  const twenty = 'The answer is 42 ok.';
  const nineteen = 'The answer is 42 ok';

  it('finds a text of 20 characters inside a longer output, not one of 19', () => {
    assert.equal(twenty.length, 20);
    assert.equal(nineteen.length, 19);
    assert.equal(outputRepeatsText(`Result: ${twenty} Bye.`, twenty), true);
    assert.equal(outputRepeatsText(`Result: ${nineteen}. Bye.`, nineteen), false);
    assert.equal(outputRepeatsText(` ${nineteen} `, ` ${nineteen}\n`), true);
  });

  it('does not find an empty text, not even in an empty output', () => {
    assert.equal(outputRepeatsText('', ''), false);
    assert.equal(outputRepeatsText({ answer: '  ' }, ' '), false);
  });

  it('does not find the text when the output only shares part of it', () => {
    assert.equal(outputRepeatsText(twenty.slice(0, 15), twenty), false);
    assert.equal(outputRepeatsText({ answer: `${twenty.slice(0, 15)}…` }, twenty), false);
  });

  it('searches a structured output four levels deep, not five', () => {
    let four: unknown = twenty;
    for (let level = 0; level < 4; level += 1) four = { level: four };
    assert.equal(outputRepeatsText(four, twenty), true);
    assert.equal(outputRepeatsText({ level: four }, twenty), false);
    assert.equal(outputRepeatsText([[[[twenty]]]], twenty), true);
    assert.equal(outputRepeatsText([[[[[twenty]]]]], twenty), false);
  });

  it('searches the first 64 strings of a structured output', () => {
    const fillers = (count: number): string[] => Array.from({ length: count }, (_, index) => `filler ${index}`);
    assert.equal(outputRepeatsText([...fillers(63), twenty], twenty), true);
    assert.equal(outputRepeatsText([...fillers(64), twenty], twenty), false);
    assert.equal(outputRepeatsText({ turns: 3, done: true, nothing: null, answer: twenty }, twenty), true);
  });
});

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
    assert.equal(
      classifyResponse({ outcome: 'tool_calls', finishReason: 'tool_calls', toolCallCount: 1, incompleteReason: 'stream_interrupted' }),
      'incomplete',
    );
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
    for (const reason of ['stop', 'end_turn', 'tool_calls', 'tool_use', 'length', 'max_tokens', 'refusal', 'content_filter'])
      assert.equal(isKnownFinishReason(reason), true, reason);
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
