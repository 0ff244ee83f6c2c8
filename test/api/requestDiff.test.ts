/**
 * The request diff of the API over a real trace: request n against request n-1 of its run, read
 * back from the records the trace logged (canonical model_request lines, HTTP exchange bodies).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse } from '../../shared/api';
import { callFailure, startTestHost, type TestHost } from '../support/apiHarness';
import { temporaryDir } from '../support/engineHarness';
import { fixtures } from '../support/formatTests';

const system = { role: 'system', content: 'You find where parcels are.' };
const user = { role: 'user', content: 'Where are parcels A and B?' };
const call = (id: string, q: string) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ q }) } }],
});
const result = (id: string, content: string) => ({ role: 'tool', tool_call_id: id, content });
const lookupTool = (properties: object) => ({
  type: 'function',
  function: { name: 'lookup', description: 'Where a parcel is.', parameters: { type: 'object', properties } },
});
const ts = (second: number): string => `2025-06-03T10:00:${String(second).padStart(2, '0')}.000Z`;

/** Three requests; the third edits the result of the first call ("Leipzig" became "Berlin"). */
const events = [
  { type: 'run_start', run_id: 'r', ts: ts(0) },
  { type: 'model_request', run_id: 'r', step: 1, ts: ts(1), model: 'gpt-4.1', messages: [system, user] },
  {
    type: 'model_response',
    run_id: 'r',
    step: 1,
    ts: ts(2),
    outcome: 'tool_calls',
    finish_reason: 'tool_calls',
    tool_calls: [{ call_id: 'call_1', name: 'lookup', arguments: '{"q":"A"}' }],
  },
  { type: 'tool_result', run_id: 'r', step: 1, ts: ts(3), call_id: 'call_1', output: 'A is in Leipzig' },
  {
    type: 'model_request',
    run_id: 'r',
    step: 2,
    ts: ts(4),
    model: 'gpt-4.1',
    messages: [system, user, call('call_1', 'A'), result('call_1', 'A is in Leipzig')],
    tools: [lookupTool({ q: { type: 'string' } })],
  },
  {
    type: 'model_response',
    run_id: 'r',
    step: 2,
    ts: ts(5),
    outcome: 'tool_calls',
    finish_reason: 'tool_calls',
    tool_calls: [{ call_id: 'call_2', name: 'lookup', arguments: '{"q":"B"}' }],
  },
  { type: 'tool_result', run_id: 'r', step: 2, ts: ts(6), call_id: 'call_2', output: 'B is in Bonn' },
  {
    type: 'model_request',
    run_id: 'r',
    step: 3,
    ts: ts(7),
    model: 'gpt-4.1-mini',
    messages: [system, user, call('call_1', 'A'), result('call_1', 'A is in Berlin'), call('call_2', 'B'), result('call_2', 'B is in Bonn')],
    tools: [lookupTool({ q: { type: 'string' }, exact: { type: 'boolean' } })],
  },
  { type: 'model_response', run_id: 'r', step: 3, ts: ts(8), outcome: 'final', finish_reason: 'stop', text: 'A is in Berlin, B in Bonn.' },
  { type: 'run_end', run_id: 'r', ts: ts(9), status: 'completed' },
];

describe('request diff', () => {
  let t: TestHost;
  let traceId: string;
  let requests: number[];
  const work = temporaryDir('request-diff');

  before(async () => {
    t = startTestHost();
    const path = join(work.path, 'rewrite.jsonl');
    writeFileSync(path, events.map((event) => JSON.stringify(event)).join('\n') + '\n');
    const summary = await t.openSettled(path);
    assert.equal(summary.state, 'ready', summary.error ?? '');
    traceId = summary.traceId;
    const runs = (await t.host.call('runs', { traceId })) as ApiResponse<'runs'>;
    const rows = (await t.host.call('runEvents', { traceId, runPk: runs.rows[0]!.runPk })) as ApiResponse<'runEvents'>;
    requests = rows.rows.filter((row) => row.type === 'model_request').map((row) => row.eventId);
  });
  after(async () => {
    await t.close();
    work.remove();
  });

  const diff = async (eventId: number): Promise<ApiResponse<'requestDiff'>> =>
    (await t.host.call('requestDiff', { traceId, eventId })) as ApiResponse<'requestDiff'>;

  it('finds the request each event belongs to: the one at or before it, else the first', async () => {
    const runs = (await t.host.call('runs', { traceId })) as ApiResponse<'runs'>;
    const rows = ((await t.host.call('runEvents', { traceId, runPk: runs.rows[0]!.runPk })) as ApiResponse<'runEvents'>).rows;
    const belongsTo = async (eventId: number) => ((await t.host.call('requestAt', { traceId, eventId })) as ApiResponse<'requestAt'>)?.eventId ?? null;
    const expected = rows.map((row) => {
      const before = rows.filter((other) => other.type === 'model_request' && other.line <= row.line).at(-1);
      return before?.eventId ?? requests[0];
    });
    assert.deepEqual(await Promise.all(rows.map((row) => belongsTo(row.eventId))), expected);
    assert.equal(((await t.host.call('requestAt', { traceId, eventId: requests[1]! })) as ApiResponse<'requestAt'>)?.reconstructed, false);
  });

  it('the first request has nothing before it: all its messages are new', async () => {
    const first = await diff(requests[0]!);
    assert.equal(first.previousEventId, null);
    // The system message is the request's system prompt, not one of its messages.
    assert.deepEqual(first.history, { verdict: 'extends', appended: [0] });
    assert.deepEqual(first.findings, []);
  });

  it('a request that appends the call and its result extends the one before it', async () => {
    const second = await diff(requests[1]!);
    assert.equal(second.previousEventId, requests[0]);
    assert.deepEqual(second.history, { verdict: 'extends', appended: [1, 2] });
    assert.deepEqual(
      second.changes.map((change) => [change.status, change.role]),
      [
        ['appended', 'assistant'],
        ['appended', 'tool'],
      ],
    );
    // The history only grew, but request 2 sends a tool definition request 1 did not: the cached
    // prefix ends before the first token, which the diff says even though the history extends.
    assert.deepEqual(second.tools.added, ['lookup']);
    assert.deepEqual(
      second.findings.map((finding) => [finding.kind, finding.severity]),
      [['system_or_tools_changed', 'warning']],
    );
    assert.match(second.findings[0]!.message, /^Request 2 changes the tool definitions \(added: lookup\) of request 1\. .*invalidated from the first token/);
  });

  it('a request that edits an earlier tool result rewrites history there: the verdict, both texts, the finding, the model change', async () => {
    const third = await diff(requests[2]!);
    assert.equal(third.history.verdict, 'rewritten');
    assert.ok(third.history.verdict === 'rewritten');
    assert.equal(third.history.firstDifference, 2);
    assert.equal(third.history.kind, 'edited');
    const edited = third.changes.find((change) => change.status === 'modified');
    assert.deepEqual([edited?.previousIndex, edited?.nextIndex, edited?.previousText, edited?.nextText], [2, 2, 'A is in Leipzig', 'A is in Berlin']);
    assert.deepEqual(
      third.runs.map((run) => [run.status, run.next]),
      [
        ['unchanged', { first: 0, last: 1 }],
        ['modified', { first: 2, last: 2 }],
        ['appended', { first: 3, last: 4 }],
      ],
    );
    assert.deepEqual(third.params, [{ key: 'model', previous: 'gpt-4.1', next: 'gpt-4.1-mini' }]);
    // The tool's schema gained a property: both definitions come as sorted, indented JSON for a JSON diff.
    assert.deepEqual(
      third.tools.changed.map(({ name, description, parameters }) => ({ name, description, parameters })),
      [{ name: 'lookup', description: false, parameters: true }],
    );
    assert.doesNotMatch(third.tools.changed[0]!.previousJson, /exact/);
    assert.match(third.tools.changed[0]!.nextJson, /\n {6}"exact": \{\n {8}"type": "boolean"/);
    assert.deepEqual(
      third.findings.map((finding) => [finding.kind, finding.severity]),
      [
        ['history_rewrite', 'warning'],
        ['system_or_tools_changed', 'warning'],
      ],
    );
    // Message 4 as logged: the system message is message 1 (index 2 of the history).
    assert.equal(third.history.messageNumber, 4);
    assert.match(third.findings[0]!.message, /at message 4: .*caching is invalidated from message 4/);
    assert.match(third.findings[1]!.message, /changes the tool definitions \(changed: lookup\)/);
  });

  it('diffs any two requests the user picks, and refuses an event that is not a request', async () => {
    const picked = (await t.host.call('requestDiff', { traceId, eventId: requests[2]!, previousEventId: requests[0]! })) as ApiResponse<'requestDiff'>;
    assert.equal(picked.previousEventId, requests[0]);
    assert.deepEqual(picked.history, { verdict: 'extends', appended: [1, 2, 3, 4] });
    // Its findings name the request picked, not the run's previous one.
    const toolsChanged = picked.findings.find((finding) => finding.kind === 'system_or_tools_changed');
    assert.match(toolsChanged?.message ?? '', /^Request 3 changes the tool definitions \(added: lookup\) of request 1\./);
    const notRequest = await callFailure(t.host, 'requestDiff', { traceId, eventId: requests[0]! + 1 });
    assert.equal(notRequest.code, 'invalid_request');
    assert.match(notRequest.message, /is a model_response, not a model request/);
  });
});

describe('request diff over HTTP exchange logs', () => {
  let t: TestHost;
  before(() => {
    t = startTestHost();
  });
  after(async () => {
    await t.close();
  });

  /** Each request of each thread: its line and verdict (`+` the appended message indices). */
  async function verdicts(name: string): Promise<string[]> {
    const summary = await t.openSettled(join(fixtures, 'http-exchange', `${name}.jsonl`));
    const runs = (await t.host.call('runs', { traceId: summary.traceId })) as ApiResponse<'runs'>;
    const out: string[] = [];
    for (const run of runs.rows) {
      const rows = (await t.host.call('runEvents', { traceId: summary.traceId, runPk: run.runPk })) as ApiResponse<'runEvents'>;
      for (const row of rows.rows.filter((event) => event.type === 'model_request')) {
        const diff = (await t.host.call('requestDiff', { traceId: summary.traceId, eventId: row.eventId })) as ApiResponse<'requestDiff'>;
        const verdict = diff.history.verdict === 'extends' ? `+${diff.history.appended.join(',')}` : `${diff.history.kind}@${diff.history.firstDifference}`;
        out.push(`${run.runId} line ${row.line} ${verdict}`);
      }
    }
    return out;
  }

  it('reads each API from its request body: every request of a thread extends the one before', async () => {
    assert.deepEqual(await verdicts('openai-chat'), ['thread-1 line 1 +0', 'thread-1 line 2 +1,2,3', 'thread-2 line 3 +0', 'thread-2 line 4 +1,2,3']);
    assert.deepEqual(await verdicts('anthropic-messages'), [
      'thread-1 line 1 +0',
      'thread-2 line 2 +0',
      'thread-2 line 4 +1,2,3',
      'thread-2 line 6 +4,5',
      'thread-3 line 3 +0',
    ]);
  });

  it('continues a Responses conversation kept by the server (previous_response_id) with the output of the streamed response it names', async () => {
    assert.deepEqual(await verdicts('openai-responses'), [
      'thread-1 line 1 +0',
      'thread-1 line 2 +1,2',
      'thread-2 line 3 +0',
      'thread-2 line 4 +1,2',
      'thread-3 line 5 +0',
    ]);
  });
});

describe('the request an event belongs to, in a run written on one line', () => {
  let t: TestHost;
  before(() => {
    t = startTestHost();
  });
  after(async () => {
    await t.close();
  });

  it('is the request of its own step, not the run’s last (a mini-SWE-agent trajectory is one JSON document)', async () => {
    const summary = await t.openSettled(join(fixtures, 'mini-swe-agent', 'toolcall-submitted.traj.json'));
    const traceId = summary.traceId;
    const [run] = ((await t.host.call('runs', { traceId })) as ApiResponse<'runs'>).rows;
    const rows = ((await t.host.call('runEvents', { traceId, runPk: run!.runPk })) as ApiResponse<'runEvents'>).rows;
    const responses = rows.filter((row) => row.type === 'model_response');
    assert.ok(responses.length >= 2, 'the trajectory has several steps');
    assert.equal(new Set(rows.map((row) => row.line)).size <= 2, true, 'its events share their line');
    const requestOf = async (eventId: number) => ((await t.host.call('requestAt', { traceId, eventId })) as ApiResponse<'requestAt'>)?.eventId ?? null;
    const found = await Promise.all(responses.map((response) => requestOf(response.eventId)));
    // Each response's request is at or before it, and each step's is another.
    found.forEach((requestId, index) => assert.ok(requestId !== null && requestId <= responses[index]!.eventId));
    assert.equal(new Set(found).size, responses.length);
  });
});
