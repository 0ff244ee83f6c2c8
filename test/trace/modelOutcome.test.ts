/** Every finish reason Loopscope knows, by what it means for the outcome (docs/semantics.md §1.1). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classifyResponse,
  isContentFilterFinishReason,
  isKnownFinishReason,
  isToolCallFinishReason,
  isTruncationFinishReason,
  outputRepeatsText,
} from '../../shared/trace/modelOutcome';

/** Providers' finish reasons, grouped by what docs/semantics.md §1.1 says they mean. */
const finals = ['stop', 'end_turn', 'stop_sequence', 'completed', 'COMPLETE', 'eos', 'eos_token'];
const toolCallFinishes = ['tool_calls', 'tool_use', 'function_call', 'tool_call', 'MALFORMED_FUNCTION_CALL', 'tool-calls'];
const truncations = ['length', 'max_tokens', 'MAX_OUTPUT_TOKENS', 'model_context_window_exceeded', 'model_length'];
const contentFilters = ['content_filter', 'content_filtered', 'SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'guardrail_intervened'];
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
