import assert from 'node:assert/strict';
import { it } from 'node:test';
import { comparableAcrossRuns, withPlaceholderLine } from '../../../shared/requests/acrossRuns';
import { diffRequests } from '../../../shared/requests/diffRequests';
import type { NormalizedRequest, RequestMessage } from '../../../shared/requests/normalizedRequest';

function message(fields: Partial<RequestMessage>): RequestMessage {
  return { role: 'user', content: [], toolCalls: [], toolCallId: null, name: null, isError: false, sourceIndex: 0, ...fields };
}

/** A run that asks for an order and gets it, with its own call ids and its task on its own line. */
function run(callIds: [string, string], taskLine: number, reconstructed = true): NormalizedRequest {
  return {
    system: null,
    tools: [],
    params: {},
    reconstructed,
    messages: [
      message({ content: [{ type: 'text', text: withPlaceholderLine("The run's task (18 characters)", taskLine) }] }),
      message({ role: 'assistant', toolCalls: [{ callId: callIds[0], name: 'get_order', arguments: { id: 1 } }], sourceIndex: 1 }),
      message({ role: 'tool', toolCallId: callIds[0], content: [{ type: 'text', text: 'ok' }], sourceIndex: 2 }),
      message({ role: 'assistant', toolCalls: [{ callId: callIds[1], name: 'get_shipment', arguments: { id: 2 } }], sourceIndex: 3 }),
      message({ role: 'tool', toolCallId: callIds[1], content: [{ type: 'text', text: 'ok' }], sourceIndex: 4 }),
    ],
  };
}

it('compares two runs by what they saw, not by their own call ids and lines', () => {
  const a = run(['a-c1', 'a-c2'], 1);
  const b = run(['toolu_9', 'toolu_3'], 57);
  assert.equal(diffRequests(a, b, false).history.verdict, 'rewritten', 'as written, every message differs');
  const comparable = diffRequests(comparableAcrossRuns(a), comparableAcrossRuns(b), false);
  assert.equal(comparable.history.verdict, 'extends');
  assert.deepEqual(comparable.toolPairing.missingToolResults, []);
});

it('keeps a call and its result paired, and a logged request’s text as written', () => {
  const logged = comparableAcrossRuns(run(['x', 'y'], 3, false));
  assert.deepEqual(
    logged.messages.map((m) => [m.toolCalls.map((call) => call.callId), m.toolCallId]),
    [
      [[], null],
      [['call 1'], null],
      [[], 'call 1'],
      [['call 2'], null],
      [[], 'call 2'],
    ],
  );
  assert.deepEqual(logged.messages[0]!.content, [{ type: 'text', text: "The run's task (18 characters) · line 3" }]);
  assert.deepEqual(comparableAcrossRuns(run(['x', 'y'], 3)).messages[0]!.content, [{ type: 'text', text: "The run's task (18 characters)" }]);
});
