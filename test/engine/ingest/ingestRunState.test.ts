/**
 * The per-run bookkeeping the ingest keeps between lines (src-main/engine/ingest/runState.ts) and
 * how call arguments are read (fieldValues.ts), checked on their own: the whole-file tests see
 * them only through the reports.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newRunState, rememberAnswer, RECENT_ANSWERS, stepOf } from '../../../src-main/engine/ingest/runState';
import { parseArguments } from '../../../src-main/engine/ingest/fieldValues';
import type { AdaptedEvent } from '../../../src-main/engine/adapters/formatAdapter';

const event = (fields: Record<string, unknown>): AdaptedEvent => fields as unknown as AdaptedEvent;

describe('step numbering', () => {
  it('opens a step per request, puts its response and tool events in it', () => {
    const run = newRunState(1, 'r', 1);
    const steps = ['model_request', 'model_response', 'tool_call_start', 'tool_result', 'model_request', 'model_response'].map((type) =>
      stepOf(run, event({ type })),
    );
    assert.deepEqual(steps, [1, 1, 1, 1, 2, 2]);
  });

  it('numbers step ids in order of first appearance', () => {
    const run = newRunState(1, 'r', 1);
    const steps = ['b', 'a', 'b'].map((id) => stepOf(run, event({ type: 'tool_result', step_id: id })));
    assert.deepEqual(steps, [1, 2, 1]);
  });
});

describe('recent answers', () => {
  it('keeps the latest few non-blank texts, oldest first', () => {
    const run = newRunState(1, 'r', 1);
    for (let id = 1; id <= RECENT_ANSWERS + 2; id += 1) rememberAnswer(run, id, `answer ${id}`);
    rememberAnswer(run, 99, '   ');
    assert.deepEqual(
      run.recentAnswers.map((answer) => answer.eventId),
      Array.from({ length: RECENT_ANSWERS }, (_, index) => index + 3),
    );
  });
});

describe('call arguments', () => {
  it('reads JSON text, objects and nothing as a loop would', () => {
    assert.deepEqual(parseArguments('{"a":1}'), { value: { a: 1 } });
    assert.deepEqual(parseArguments({ a: 1 }), { value: { a: 1 } });
    assert.deepEqual(parseArguments(undefined), { value: {} });
    assert.deepEqual(parseArguments('  '), { value: {} });
    assert.match((parseArguments('{"a":') as { error: string }).error, /^arguments are not valid JSON/);
  });
});
