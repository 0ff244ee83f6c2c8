/**
 * Request analysis through the real engine (worker, SQLite file): every request of a run against
 * the one before it, as `analyze --json` reports it (`runs[].requests[]`, `history_rewrite`,
 * `missing_tool_result_in_history`) and as the app's `requests` method serves it (context growth).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse } from '../../shared/api';
import { startTestHost, type TestHost } from '../support/apiHarness';
import { analyzeFile, temporaryDir } from '../support/engineHarness';

const system = { role: 'system', content: 'You find where parcels are.' };
const user = { role: 'user', content: 'Where are parcels A, B and C?' };
const call = (id: string, q: string) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ q }) } }],
});
const result = (id: string, content: string) => ({ role: 'tool', tool_call_id: id, content });
const ts = (second: number): string => `2025-06-03T10:00:${String(second).padStart(2, '0')}.000Z`;
const request = (step: number, messages: object[], usage?: number) => [
  { type: 'model_request', run_id: 'r', step, ts: ts(step * 3), model: 'gpt-4.1', messages },
  {
    type: 'model_response',
    run_id: 'r',
    step,
    ts: ts(step * 3 + 1),
    outcome: 'tool_calls',
    finish_reason: 'tool_calls',
    tool_calls: [{ call_id: `call_${step}`, name: 'lookup', arguments: '{}' }],
    ...(usage !== undefined ? { usage: { input_tokens: usage, output_tokens: 20, cached_input_tokens: usage - 100 } } : {}),
  },
  { type: 'tool_result', run_id: 'r', step, ts: ts(step * 3 + 2), call_id: `call_${step}`, output: 'ok' },
];

/**
 * Four requests: 2 extends 1; 3 edits call_1's result ("Leipzig" → "Berlin"); 4 carries call_3
 * without its result followed by a user message. Usage is recorded for all but request 4.
 */
const rewriteEvents = [
  { type: 'run_start', run_id: 'r', ts: ts(0) },
  ...request(1, [system, user], 500),
  ...request(2, [system, user, call('call_1', 'A'), result('call_1', 'A is in Leipzig')], 560),
  ...request(3, [system, user, call('call_1', 'A'), result('call_1', 'A is in Berlin'), call('call_2', 'B'), result('call_2', 'B is in Bonn')], 620),
  ...request(4, [
    system,
    user,
    call('call_1', 'A'),
    result('call_1', 'A is in Berlin'),
    call('call_2', 'B'),
    result('call_2', 'B is in Bonn'),
    call('call_3', 'C'),
    { role: 'user', content: 'Go on.' },
  ]),
  { type: 'run_end', run_id: 'r', ts: ts(30), status: 'completed' },
];

/** No model_request lines: the requests are reconstructed from the task, responses and results; step 3's result is 40 KB. */
const bigResult = 'x'.repeat(40_000);
const reconstructedEvents = [
  { type: 'run_start', run_id: 'r', ts: ts(0), task: 'Read the three files and report.' },
  ...[1, 2, 3, 4].flatMap((step) => [
    {
      type: 'model_response',
      run_id: 'r',
      step,
      ts: ts(step * 3),
      outcome: 'tool_calls',
      finish_reason: 'tool_calls',
      tool_calls: [{ call_id: `c${step}`, name: step === 3 ? 'read_file' : 'list_dir', arguments: `{"path":"/src/${step}"}` }],
      usage: { input_tokens: [1000, 1200, 1400, 11500][step - 1], output_tokens: 30 },
    },
    { type: 'tool_result', run_id: 'r', step, ts: ts(step * 3 + 1), call_id: `c${step}`, output: step === 3 ? bigResult : 'a.ts b.ts c.ts '.repeat(50) },
  ]),
  {
    type: 'model_response',
    run_id: 'r',
    step: 5,
    ts: ts(20),
    outcome: 'final',
    finish_reason: 'stop',
    text: 'Done.',
    usage: { input_tokens: 11700, output_tokens: 5 },
  },
  { type: 'run_end', run_id: 'r', ts: ts(21), status: 'completed' },
];

describe('request analysis', () => {
  const work = temporaryDir('request-analysis');
  const write = (name: string, events: object[]): string => {
    const path = join(work.path, name);
    writeFileSync(path, events.map((event) => JSON.stringify(event)).join('\n') + '\n');
    return path;
  };
  after(() => work.remove());

  it('reports each logged request against the previous one: appended messages, the rewrite, and recorded or estimated input tokens', async () => {
    const { report } = await analyzeFile(write('rewrite.jsonl', rewriteEvents));
    const requests = report.runs[0]!.requests;
    assert.deepEqual(
      requests.map(({ index, messages, appended_messages, rewrite, reconstructed }) => ({ index, messages, appended_messages, rewrite, reconstructed })),
      [
        // The system prompt is not a message of the history (it is diffed on its own).
        { index: 0, messages: 1, appended_messages: 1, rewrite: null, reconstructed: false },
        { index: 1, messages: 3, appended_messages: 2, rewrite: null, reconstructed: false },
        // Index 2 of the history was edited: message 4 as logged (the system message is message 1).
        // The two new messages count as appended, the edit too.
        { index: 2, messages: 5, appended_messages: 3, rewrite: { message_index: 2, message_number: 4, kind: 'edited' }, reconstructed: false },
        { index: 3, messages: 7, appended_messages: 2, rewrite: null, reconstructed: false },
      ],
    );
    assert.deepEqual(
      requests.map((r) => [r.input_tokens_source, r.cached_input_tokens, r.output_tokens]),
      [
        ['recorded', 400, 20],
        ['recorded', 460, 20],
        ['recorded', 520, 20],
        ['estimated', null, null],
      ],
    );
    assert.deepEqual(
      requests.slice(0, 3).map((r) => r.input_tokens),
      [500, 560, 620],
    );
    assert.ok(
      requests[3]!.input_tokens! > 20 && requests[3]!.input_tokens! < 200,
      `an o200k estimate of eight short messages, got ${requests[3]!.input_tokens}`,
    );
    assert.equal(requests[2]!.line, 8, 'the third model_request is on line 8');
  });

  it('raises history_rewrite on the rewriting request and missing_tool_result_in_history once, on the request that first carries the unanswered call', async () => {
    const { report } = await analyzeFile(write('findings.jsonl', rewriteEvents));
    const rewrite = report.findings.filter((f) => f.kind === 'history_rewrite');
    assert.equal(rewrite.length, 1);
    assert.equal(rewrite[0]!.severity, 'warning');
    assert.equal(rewrite[0]!.line, 8);
    assert.equal(rewrite[0]!.step, 3);
    // Numbered as logged: the system message is message 1, the edited result message 4.
    assert.match(rewrite[0]!.message, /Request 3 rewrites the history of request 2 at message 4: an earlier message was edited/);
    assert.match(rewrite[0]!.message, /prompt caching is invalidated from message 4 on/);
    const missing = report.findings.filter((f) => f.kind === 'missing_tool_result_in_history');
    assert.equal(missing.length, 1);
    assert.equal(missing[0]!.severity, 'error');
    assert.equal(missing[0]!.line, 11);
    assert.equal(missing[0]!.call_id, 'call_3');
    assert.match(missing[0]!.message, /tool call call_3 \(lookup, message 7\) without its result/);
    assert.equal(report.runs[0]!.findings.warning >= 1, true);
  });

  it('keeps the request findings when the same trace is analyzed again with other options', async () => {
    const cache = temporaryDir('request-analysis-cache');
    try {
      const path = write('options.jsonl', rewriteEvents);
      await analyzeFile(path, { cacheDir: cache.path });
      const again = await analyzeFile(path, { cacheDir: cache.path, analysis: { window: 4, threshold: 2 } });
      assert.equal(again.trace.reused, true);
      assert.deepEqual(
        again.report.findings
          .filter((f) => f.kind === 'history_rewrite' || f.kind === 'missing_tool_result_in_history')
          .map((f) => f.kind)
          .sort(),
        ['history_rewrite', 'missing_tool_result_in_history'],
      );
    } finally {
      cache.remove();
    }
  });

  it('reconstructs the requests of a trace that logs none: one per response, each extending the last by what happened since', async () => {
    const { report } = await analyzeFile(write('reconstructed.jsonl', reconstructedEvents));
    const requests = report.runs[0]!.requests;
    assert.equal(requests.length, 5);
    assert.ok(requests.every((r) => r.reconstructed && r.rewrite === null && r.input_tokens_source === 'recorded'));
    // Before response 1: the task. Before each next one: the assistant's call and its result.
    assert.deepEqual(
      requests.map((r) => [r.messages, r.appended_messages]),
      [
        [1, 1],
        [3, 2],
        [5, 2],
        [7, 2],
        [9, 2],
      ],
    );
    assert.deepEqual(
      requests.map((r) => r.input_tokens),
      [1000, 1200, 1400, 11500, 11700],
    );
    assert.equal(report.findings.filter((f) => f.kind === 'history_rewrite').length, 0);
  });

  it('gives no token count, rather than an estimate of 0, for a reconstructed request the trace recorded nothing before', async () => {
    const events = [
      {
        type: 'model_response',
        run_id: 'r',
        step: 1,
        ts: ts(1),
        outcome: 'tool_calls',
        finish_reason: 'tool_calls',
        tool_calls: [{ call_id: 'c1', name: 'ls', arguments: '{}' }],
      },
      { type: 'tool_result', run_id: 'r', step: 1, ts: ts(2), call_id: 'c1', output: 'a.ts b.ts' },
      { type: 'model_response', run_id: 'r', step: 2, ts: ts(3), outcome: 'final', finish_reason: 'stop', text: 'Two files.' },
    ];
    const { report } = await analyzeFile(write('nothing-before.jsonl', events));
    assert.deepEqual(
      report.runs[0]!.requests.map((r) => [r.messages, r.input_tokens_source]),
      [
        [0, null],
        [2, 'estimated'],
      ],
    );
    assert.equal(report.runs[0]!.requests[0]!.input_tokens, null);
  });
});

describe('requests method (the growth chart)', () => {
  let t: TestHost;
  const work = temporaryDir('requests-method');
  before(() => {
    t = startTestHost();
  });
  after(async () => {
    await t.close();
    work.remove();
  });

  const open = async (name: string, events: object[]): Promise<{ traceId: string; runPk: number }> => {
    const path = join(work.path, name);
    writeFileSync(path, events.map((event) => JSON.stringify(event)).join('\n') + '\n');
    const summary = await t.openSettled(path);
    assert.equal(summary.state, 'ready', summary.error ?? '');
    const runs = (await t.host.call('runs', { traceId: summary.traceId })) as ApiResponse<'runs'>;
    return { traceId: summary.traceId, runPk: runs.rows[0]!.runPk };
  };

  it('ranks first the turn that added the most tokens, and attributes it to the tool whose result it added', async () => {
    const { traceId, runPk } = await open('growth.jsonl', reconstructedEvents);
    const answer = (await t.host.call('requests', { traceId, runPk })) as ApiResponse<'requests'>;
    assert.deepEqual(answer.growth.requestIndices, [0, 1, 2, 3, 4]);
    assert.deepEqual(answer.growth.cumulative, [1000, 2200, 3600, 15100, 26800]);
    assert.equal(answer.growth.typicalGrowth, 200);
    assert.deepEqual(answer.growth.largestGrowth[0], { requestIndex: 3, growth: 10100 });
    assert.ok(answer.growth.fit !== null && answer.growth.fit.tokensPerTurn > 0);
    const spike = answer.requests[3]!;
    assert.equal(spike.added[0]!.role, 'tool');
    assert.equal(spike.added[0]!.tool, 'read_file', 'the 40 KB read_file result is most of what request 4 added');
    assert.equal(
      spike.added.reduce((sum, group) => sum + group.tokens, 0),
      10_100,
      'what the turn added is its recorded growth, split by role and tool',
    );
    assert.ok(spike.added[0]!.tokens > 9900, `nearly all of it is the 40 KB result: ${spike.added[0]!.tokens}`);
  });

  it('diffs a reconstructed request against the previous one when named by its response', async () => {
    const { traceId, runPk } = await open('reconstructed-diff.jsonl', reconstructedEvents);
    const answer = (await t.host.call('requests', { traceId, runPk })) as ApiResponse<'requests'>;
    const diff = (await t.host.call('requestDiff', { traceId, eventId: answer.requests[3]!.eventId })) as ApiResponse<'requestDiff'>;
    assert.equal(diff.reconstructed, true);
    assert.equal(diff.previousEventId, answer.requests[2]!.eventId);
    assert.deepEqual(diff.history, { verdict: 'extends', appended: [5, 6] });
    assert.deepEqual(
      diff.changes.map((change) => [change.status, change.role]),
      [
        ['appended', 'assistant'],
        ['appended', 'tool'],
      ],
    );
    assert.ok(diff.runs.find((run) => run.status === 'appended')!.tokens >= 10_000, 'the 40 KB result is sized from its characters');
  });
});
