/**
 * One bad field does not cost a whole canonical event (docs/semantics.md §10): the repair pass
 * coerces what is unambiguous, ignores what is not, says each, and refuses only an event that a
 * missing id leaves meaningless.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readEvent, type EventReading } from '../../../src-main/engine/adapters/canonical/eventRepair';
import type { CanonicalEvent } from '../../../shared/trace/canonicalEvents';

function read(value: Record<string, unknown>): EventReading {
  return readEvent(value['type'] as CanonicalEvent['type'], value);
}

function repaired(value: Record<string, unknown>): { event: Record<string, unknown>; diagnostics: string[]; callsWithoutId: [number, string][] } {
  const result = read(value);
  assert.ok(result.ok, result.ok ? '' : result.reason);
  return {
    event: result.event as Record<string, unknown>,
    diagnostics: result.repairs?.diagnostics ?? [],
    callsWithoutId: [...(result.repairs?.callsWithoutId ?? [])],
  };
}

describe('reading a canonical event with bad fields', () => {
  it('returns a valid event untouched, with nothing to say', () => {
    const value = { type: 'model_response', step: 1, usage: { input_tokens: 100 }, tool_calls: [{ call_id: 'c1', name: 'get_order' }] };
    const result = read(value);
    assert.ok(result.ok);
    assert.equal(result.event, value);
    assert.equal(result.repairs, undefined);
  });

  it('reads numbers written as strings as numbers, and says so for each', () => {
    const { event, diagnostics } = repaired({ type: 'model_response', step: '01', usage: { input_tokens: '100', output_tokens: ' 12 ' }, latency_ms: '1.5e3' });
    assert.equal(event['step'], 1);
    assert.deepEqual(event['usage'], { input_tokens: 100, output_tokens: 12 });
    assert.equal(event['latency_ms'], 1500);
    assert.deepEqual(diagnostics, [
      '"step" is the string "01": read as the number 1',
      '"usage.input_tokens" is the string "100": read as the number 100',
      '"usage.output_tokens" is the string " 12 ": read as the number 12',
      '"latency_ms" is the string "1.5e3": read as the number 1500',
    ]);
  });

  it("ignores a number that is not written as one, or that breaks the field's rule once read", () => {
    const { event, diagnostics } = repaired({
      type: 'model_response',
      step: '1.5',
      usage: { input_tokens: '1,000', output_tokens: '-3', cached_input_tokens: -1, total_tokens: '0x10' },
      latency_ms: '142ms',
    });
    assert.deepEqual(event, { type: 'model_response', usage: {} });
    assert.deepEqual(diagnostics, [
      '"step" is the string "1.5", not an integer: ignored',
      '"usage.input_tokens" is the string "1,000", not a number: ignored',
      '"usage.output_tokens" is the string "-3", which must be >= 0: ignored',
      '"usage.cached_input_tokens" is -1, which must be >= 0: ignored',
      '"usage.total_tokens" is the string "0x10", not a number: ignored',
      '"latency_ms" is the string "142ms", not a number: ignored',
    ]);
  });

  it('reads the words true and false as booleans, and nothing looser', () => {
    const { event, diagnostics } = repaired({ type: 'tool_result', call_id: 'c1', progress: 'false', error: { code: 'TIMEOUT', retryable: 'yes' } });
    assert.equal(event['progress'], false);
    assert.deepEqual(event['error'], { code: 'TIMEOUT' });
    // In the order of the schema's fields.
    assert.deepEqual(diagnostics, [
      '"error.retryable" is the string "yes", not a boolean: ignored',
      '"progress" is the string "false": read as the boolean false',
    ]);
    assert.equal(repaired({ type: 'run_end', hitCap: 'True' }).event['hitCap'], true);
    assert.equal(repaired({ type: 'tool_result', call_id: 'c1', progress: '1' }).event['progress'], undefined);
  });

  it('reads an empty run_id as none, and says so', () => {
    const { event, diagnostics } = repaired({ type: 'model_response', run_id: '', text: 'hi' });
    assert.deepEqual(event, { type: 'model_response', text: 'hi' });
    assert.deepEqual(diagnostics, ['"run_id" is the empty string, not a non-empty string or a number: ignored']);
  });

  it('treats null as a field left out, silently', () => {
    const { event, diagnostics } = repaired({ type: 'model_response', run_id: null, step: null, usage: null, latency_ms: null, text: 'hi' });
    assert.deepEqual(event, { type: 'model_response', text: 'hi' });
    assert.deepEqual(diagnostics, []);
  });

  it("ignores a value outside the field's choices, naming them", () => {
    const { event, diagnostics } = repaired({ type: 'model_response', outcome: 'done', finish_reason: 'stop', model: 4 });
    assert.deepEqual(event, { type: 'model_response', finish_reason: 'stop' });
    assert.deepEqual(diagnostics, [
      '"outcome" is the string "done", not one of final, tool_calls, refusal, incomplete: ignored',
      '"model" is 4, not a string: ignored',
    ]);
  });

  it('keeps a tool call without a usable call_id for the ingester to name, and one without a name as (unnamed)', () => {
    const { event, diagnostics, callsWithoutId } = repaired({
      type: 'model_response',
      tool_calls: [
        { name: 'get_order' },
        'get_shipment',
        { call_id: 'c2', name: 'search_orders' },
        { call_id: '', name: 'refund_order' },
        { call_id: null, name: 7 },
      ],
    });
    const calls = event['tool_calls'] as { call_id: unknown; name: string }[];
    assert.deepEqual(
      calls.map((call) => call.name),
      ['get_order', 'search_orders', 'refund_order', '(unnamed)'],
    );
    assert.equal(calls[1]?.call_id, 'c2');
    assert.deepEqual(callsWithoutId, [
      [0, '"tool_calls[0].call_id" is missing'],
      [2, '"tool_calls[3].call_id" is the empty string'],
      [3, '"tool_calls[4].call_id" is null'],
    ]);
    assert.deepEqual(diagnostics, [
      '"tool_calls[1]" is the string "get_shipment", not a tool call: ignored',
      '"tool_calls[4].name" is 7: the call is kept as "(unnamed)"',
    ]);
  });

  it("reads a call written in a provider's shape from its own members: id, function.name, function.arguments or input", () => {
    const { event, diagnostics, callsWithoutId } = repaired({
      type: 'model_response',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_order', arguments: '{"order_id":"A-1"}' } },
        { type: 'tool_use', id: 'toolu_2', name: 'get_shipment', input: { order_id: 'A-1' } },
      ],
    });
    const calls = event['tool_calls'] as { call_id: unknown; name: string; arguments: unknown }[];
    assert.deepEqual(
      calls.map(({ call_id, name, arguments: args }) => ({ call_id, name, args })),
      [
        { call_id: 'call_1', name: 'get_order', args: '{"order_id":"A-1"}' },
        { call_id: 'toolu_2', name: 'get_shipment', args: { order_id: 'A-1' } },
      ],
    );
    assert.deepEqual(callsWithoutId, []);
    assert.deepEqual(diagnostics, [
      '"tool_calls[0].call_id" is missing: its "id" (call_1) is read as the call_id',
      '"tool_calls[0].name" is missing: its "function.name" (get_order) is read as the name',
      '"tool_calls[0].arguments" is missing: its "function.arguments" is read as the arguments',
      '"tool_calls[1].call_id" is missing: its "id" (toolu_2) is read as the call_id',
      '"tool_calls[1].arguments" is missing: its "input" is read as the arguments',
    ]);
  });

  it("reads a result's call_id from tool_call_id or tool_use_id, never from a bare id", () => {
    const { event, diagnostics } = repaired({ type: 'tool_result', tool_call_id: 'call_1', status: 'ok' });
    assert.equal(event['call_id'], 'call_1');
    assert.deepEqual(diagnostics, ['"call_id" is missing: its "tool_call_id" (call_1) is read as the call_id']);
    assert.equal(repaired({ type: 'tool_result', call_id: null, tool_use_id: 'toolu_2' }).event['call_id'], 'toolu_2');
    assert.deepEqual(read({ type: 'tool_result', id: 'evt_9', status: 'ok' }), {
      ok: false,
      reason: 'invalid tool_result event: it has no "call_id", so it cannot be paired with a call',
    });
  });

  it('ignores a list of tool calls that is not a list', () => {
    const { event, diagnostics } = repaired({ type: 'model_response', finish_reason: 'tool_calls', tool_calls: { call_id: 'c1', name: 'get_order' } });
    assert.equal(event['tool_calls'], undefined);
    assert.deepEqual(diagnostics, ['"tool_calls" is an object, not an array: ignored']);
  });

  it('keeps a result that says it failed an error, even when its error is neither text nor an object', () => {
    const { event, diagnostics } = repaired({ type: 'tool_result', call_id: 'c1', error: 500 });
    assert.equal(event['error'], '500');
    assert.deepEqual(diagnostics, ['"error" is 500, not an object or a string: kept as the text "500", so the result is still an error']);
    assert.equal(repaired({ type: 'tool_result', call_id: 'c1', error: false }).event['error'], undefined);
  });

  it('repairs nested budgets of a run start', () => {
    const { event, diagnostics } = repaired({ type: 'run_start', config: { budgets: { max_turns: '8', max_tool_calls: 0 } } });
    assert.deepEqual(event['config'], { budgets: { max_turns: 8 } });
    assert.deepEqual(diagnostics, [
      '"config.budgets.max_turns" is the string "8": read as the number 8',
      '"config.budgets.max_tool_calls" is 0, which must be > 0: ignored',
    ]);
  });

  it('refuses an event a bad or missing id leaves meaningless, saying why', () => {
    assert.deepEqual(read({ type: 'tool_result', status: 'ok' }), {
      ok: false,
      reason: 'invalid tool_result event: it has no "call_id", so it cannot be paired with a call',
    });
    assert.deepEqual(read({ type: 'tool_result', call_id: null, step: '1' }), {
      ok: false,
      reason: 'invalid tool_result event: its "call_id" is null, so it cannot be paired with a call',
    });
    assert.deepEqual(read({ type: 'tool_call_not_executed', call_id: '' }), {
      ok: false,
      reason: 'invalid tool_call_not_executed event: its "call_id" is the empty string, so it cannot be paired with a call',
    });
    assert.deepEqual(read({ type: 'stream_fragment', call_id: ['c1'], index: 0 }), {
      ok: false,
      reason: 'invalid stream_fragment event: "call_id" is an array, not a string or a number, so it cannot be paired with a call',
    });
    assert.deepEqual(read({ type: 'model_response', run_id: { id: 'r1' }, text: 'hi' }), {
      ok: false,
      reason: 'invalid model_response event: "run_id" is an object, not a string or a number, so the run it belongs to is unknown',
    });
  });
});
