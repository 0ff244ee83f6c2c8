/**
 * The adapter kit (src-main/engine/adapters/kit): event builders leave out what the source did not
 * write and keep the adapter's key order (stored events and reports are compared byte for byte),
 * content parts are joined by the rule each format passes, steps own their calls, and the events
 * written while a response is assembled follow that response in line order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callsIfAny, defined, definedIfAny, modelResponse, runEnd, toolResult, unknownEvent } from '../../../src-main/engine/adapters/kit/events';
import {
  ADJACENT_TEXT_PARTS,
  contentText,
  nonEmptyText,
  records,
  strings,
  textMember,
  type PartJoining,
} from '../../../src-main/engine/adapters/kit/jsonValues';
import type { MappedEvent } from '../../../src-main/engine/adapters/formatAdapter';
import { emitOrHold, HeldEvents, StepBuilder } from '../../../src-main/engine/adapters/kit/stepBuilder';

describe('event builders', () => {
  it('leave out undefined fields and keep null ones', () => {
    const event = modelResponse({ run_id: 'r', step: 1, ts: undefined, text: null, tool_calls: callsIfAny([]), model: 'm' });
    assert.deepEqual(event, { type: 'model_response', run_id: 'r', step: 1, text: null, model: 'm' });
    assert.equal('ts' in event, false);
  });

  it('write type first, then the fields in the order the adapter passed them', () => {
    const result = toolResult({ run_id: 'r', step: 2, call_id: 'c', ts: '2026-01-01T00:00:00Z', output: 'ok', name: 'bash' });
    assert.equal(JSON.stringify(result), '{"type":"tool_result","run_id":"r","step":2,"call_id":"c","ts":"2026-01-01T00:00:00Z","output":"ok","name":"bash"}');
    assert.deepEqual(Object.keys(runEnd({ status: 'done', run_id: 'r' })), ['type', 'status', 'run_id']);
  });

  it('build unknown events under their own type name', () => {
    assert.equal(JSON.stringify(unknownEvent('user', { run_id: 'r', step: undefined, ts: 5 })), '{"type":"unknown","type_raw":"user","run_id":"r","ts":5}');
  });

  it('leave a nested member out when none of its fields is defined, or keep it empty when asked', () => {
    assert.equal(definedIfAny({ input_tokens: undefined, output_tokens: undefined }), undefined);
    assert.deepEqual(definedIfAny({ input_tokens: undefined, output_tokens: 3 }), { output_tokens: 3 });
    assert.deepEqual(defined({ code: undefined, message: undefined }), {});
  });

  it('leave tool_calls out of a response without calls', () => {
    const calls = [{ call_id: 'c', name: 'bash', arguments: {} }];
    assert.equal(callsIfAny([]), undefined);
    assert.equal(callsIfAny(calls), calls);
  });
});

describe('content text', () => {
  it('returns a string as it is and undefined for what is neither a string nor a list', () => {
    assert.equal(contentText('as written', ADJACENT_TEXT_PARTS), 'as written');
    assert.equal(contentText({ text: 'a part' }, ADJACENT_TEXT_PARTS), undefined);
    assert.equal(contentText(null, ADJACENT_TEXT_PARTS), undefined);
  });

  it('joins the parts that have a text by the rule passed, skipping the others with their separator', () => {
    const parts = [{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: '' }, { type: 'thinking', text: 'b' }];
    assert.equal(contentText(parts, ADJACENT_TEXT_PARTS), 'ab');
    const textBlocksByLine: PartJoining = {
      separator: '\n',
      partText: (part) => (textMember(part) !== undefined && (part as { type?: unknown }).type === 'text' ? textMember(part) : undefined),
    };
    assert.equal(contentText(parts, textBlocksByLine), 'a\n');
    const nonEmptyByLine: PartJoining = { separator: '\n', partText: (part) => textMember(part) || undefined };
    assert.equal(contentText(parts, nonEmptyByLine), 'a\nb');
    assert.equal(contentText([], nonEmptyByLine), '');
  });
});

describe('JSON value readers', () => {
  it('keep the objects or the strings of an array, and give an empty list for anything else', () => {
    assert.deepEqual(records([{ a: 1 }, 'x', null, [1], { b: 2 }]), [{ a: 1 }, { b: 2 }]);
    assert.deepEqual(records({ a: 1 }), []);
    assert.deepEqual(strings(['a', 1, 'b']), ['a', 'b']);
    assert.deepEqual(strings('a'), []);
  });

  it('read an empty string as no text where a format writes "" for none', () => {
    assert.equal(nonEmptyText(''), undefined);
    assert.equal(nonEmptyText('a'), 'a');
    assert.equal(nonEmptyText(1), undefined);
  });
});

describe('StepBuilder', () => {
  it('numbers model calls from 1 and names no step before the first', () => {
    const steps = new StepBuilder();
    assert.equal(steps.step, 0);
    assert.equal(steps.stepSoFar, undefined);
    assert.equal(steps.next(), 1);
    assert.equal(steps.next(), 2);
    assert.equal(steps.stepSoFar, 2);
  });

  it('gives a call the step that issued it, and the current step to a call no response issued', () => {
    const steps = new StepBuilder();
    steps.next();
    steps.issued([{ call_id: 'a', name: 'read', arguments: undefined }]);
    steps.next();
    assert.equal(steps.stepOf('a'), 1);
    assert.equal(steps.nameOf('a'), 'read');
    assert.equal(steps.stepOf('unknown'), 2);
    assert.equal(steps.nameOf('unknown'), undefined);
  });

  it('lists the calls issued, in the order issued, with their steps', () => {
    const steps = new StepBuilder();
    steps.next();
    steps.issued([
      { call_id: 'a', name: 'read', arguments: undefined },
      { call_id: 'b', name: 'edit', arguments: undefined },
    ]);
    steps.next();
    steps.issued([{ call_id: 'c', name: 'bash', arguments: undefined }]);
    assert.deepEqual(
      [...steps.issuedCalls()],
      [
        ['a', 1],
        ['b', 1],
        ['c', 2],
      ],
    );
  });
});

describe('HeldEvents', () => {
  const at = (lineNumber: number, typeRaw: string): MappedEvent => ({
    event: unknownEvent(typeRaw, { run_id: 'r', step: 1, ts: undefined }),
    typeRaw,
    line: { lineNumber, offset: lineNumber * 10, length: 10 },
  });

  it('emits the response first, then the events held behind it in the order held', () => {
    const emitted: string[] = [];
    const emit = (mapped: MappedEvent): void => void emitted.push(mapped.typeRaw);
    const held = new HeldEvents();
    emitOrHold(held, at(2, 'result of the first call'), emit);
    held.hold(at(3, 'progress'));
    assert.deepEqual(emitted, []);
    const released = held.emitAfter(at(1, 'response'), emit);
    assert.deepEqual(emitted, ['response', 'result of the first call', 'progress']);
    assert.deepEqual(
      released.map((mapped) => mapped.line.lineNumber),
      [2, 3],
    );
  });

  it('holds nothing after its release, and emits at once when no response is open', () => {
    const emitted: string[] = [];
    const emit = (mapped: MappedEvent): void => void emitted.push(mapped.typeRaw);
    const held = new HeldEvents();
    held.hold(at(2, 'early'));
    held.emitAfter(at(1, 'first response'), emit);
    emitOrHold(undefined, at(3, 'between responses'), emit);
    assert.deepEqual(held.emitAfter(at(4, 'second response'), emit), []);
    assert.deepEqual(emitted, ['first response', 'early', 'between responses', 'second response']);
  });
});
