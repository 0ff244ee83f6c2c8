/**
 * What the inspector's Output, Arguments and Task show, through the real API host: an event's
 * content as its format's adapter reads the record, the run's task taken from the first prompt when
 * bookkeeping records come first, and search hits in trace order naming their tool.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse } from '../../shared/api';
import { startTestHost, type TestHost } from '../support/apiHarness';
import { testFixturesDir } from '../../devkit/repoPaths';

const fixtures = join(testFixturesDir, 'ui');

describe('event content, run task and search order through the API', () => {
  let test: TestHost;
  before(() => {
    test = startTestHost();
  });
  after(async () => {
    await test.close();
  });

  async function firstRun(file: string) {
    const { traceId } = await test.openSettled(join(fixtures, file));
    const runs = (await test.host.call('runs', { traceId })) as ApiResponse<'runs'>;
    const runPk = runs.rows[0]!.runPk;
    const events = (await test.host.call('runEvents', { traceId, runPk })) as ApiResponse<'runEvents'>;
    const event = async (eventId: number) => (await test.host.call('event', { traceId, eventId })) as ApiResponse<'event'>;
    return { traceId, runPk, events: events.rows, event };
  }

  it('Claude Code: the first prompt after bookkeeping is the task; a Task result keeps its content blocks; a call its arguments', async () => {
    const { traceId, runPk, events, event } = await firstRun('claude-code-task-output.jsonl');
    const run = (await test.host.call('run', { traceId, runPk })) as ApiResponse<'run'>;
    assert.equal(run.task, 'Audit the pricing module:\nlist each file that parses CSV and say whether it strips a BOM.');
    const taskResult = events.find((row) => row.type === 'tool_result' && row.callId === 'toolu_task1')!;
    const output = (await event(taskResult.eventId)).content?.output as { type: string; text: string }[];
    assert.match(output[0]!.text, /^## BOM handling/);
    assert.equal(taskResult.summary?.includes('\n'), false, 'a summary is one line');
    const call = events.find((row) => row.type === 'model_response' && row.step === 1)!;
    assert.deepEqual((await event(call.eventId)).content?.arguments, [
      { callId: 'toolu_bash1', name: 'Bash', value: { command: "grep -rln 'parse(' src/prices", description: 'Find CSV parsers' } },
    ]);
    const answered = await event(events.find((row) => row.callId === 'toolu_bash1' && row.type === 'tool_result')!.eventId);
    assert.equal(answered.answers?.eventId, call.eventId);
  });

  it('Codex: an output is the JSON string as written (decoded for reading by the view); hits come by step, naming the tool', async () => {
    const { traceId, events, event } = await firstRun('codex-kumquat-rollout.jsonl');
    const failed = events.find((row) => row.callId === 'call_A3' && row.type === 'tool_result')!;
    assert.equal(JSON.parse((await event(failed.eventId)).content?.output as string).metadata.exit_code, 1);
    const hits = (await test.host.call('search', { traceId, query: 'kumquat' })) as ApiResponse<'search'>;
    const results = hits.rows.filter((hit) => hit.type === 'tool_result');
    assert.deepEqual(
      results.map((hit) => [hit.step, hit.name]),
      [
        [1, 'shell'],
        [2, 'shell'],
        [4, 'shell'],
      ],
    );
    // The next match after the second output is the third; after the last there is none.
    const next = (await test.host.call('search', { traceId, query: 'kumquat', afterEventId: results[1]!.eventId, limit: 1 })) as ApiResponse<'search'>;
    assert.equal(next.rows[0]?.eventId, results[2]!.eventId);
    const none = (await test.host.call('search', { traceId, query: 'kumquat', afterEventId: results[2]!.eventId })) as ApiResponse<'search'>;
    assert.equal(none.total, 0);
    // Snippets read the output as text: no JSON wrapping, no escaped line breaks.
    assert.doesNotMatch(results[0]!.snippet, /\\n|"metadata"/);
  });
});
