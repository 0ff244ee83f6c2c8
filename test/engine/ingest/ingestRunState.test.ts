/**
 * The per-run bookkeeping the ingest keeps between lines (src-main/engine/ingest/runState.ts) and
 * how call arguments are read (fieldValues.ts), checked on their own: the whole-file tests see
 * them only through the reports.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countInStep, newRunState, rememberAnswer, RECENT_ANSWERS, stepOf, stepRow } from '../../../src-main/engine/ingest/runState';
import type { EventSqlRow } from '../../../src-main/engine/store/traceWriter';
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

describe('step rows', () => {
  const row = (fields: Partial<EventSqlRow>): EventSqlRow => ({ type: 'tool_result', step: 1, ts: null, ...fields }) as EventSqlRow;

  it("keeps each step's lines, earliest and latest times (as logged or as text) and its response, in any order", () => {
    const run = newRunState(7, 'r', 1);
    countInStep(run, row({ id: 10, line: 5, ts: '2026-01-01T00:00:02.000Z' }));
    countInStep(run, row({ id: 11, line: 3, ts: '2026-01-01T00:00:01.000Z', type: 'model_response' }));
    countInStep(run, row({ id: 12, line: 9, ts: 'yesterday, late' }));
    countInStep(run, row({ id: 13, line: 4, ts: null, step: 2 }));
    assert.deepEqual(stepRow(run, 1), {
      run_pk: 7,
      step: 1,
      first_line: 3,
      last_line: 9,
      started_at: '2026-01-01T00:00:01.000Z',
      ended_at: 'yesterday, late',
      events: 3,
      response_event_id: 11,
    });
    assert.deepEqual(stepRow(run, 2), {
      run_pk: 7,
      step: 2,
      first_line: 4,
      last_line: 4,
      started_at: null,
      ended_at: null,
      events: 1,
      response_event_id: null,
    });
    assert.equal(run.steps.setResponse(2, 20), true);
    assert.equal(run.steps.setResponse(3, 21), false);
    assert.equal(stepRow(run, 2).response_event_id, 20);
    assert.deepEqual([...run.changedSteps], [1, 2]);
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
