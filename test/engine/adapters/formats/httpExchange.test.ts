/**
 * HTTP exchange logs (the claude-trace shape), read by the real engine: one model call per
 * exchange for the three APIs, streamed responses reassembled from their server-sent events,
 * threads rebuilt from histories that extend each other, tool results taken from the next request,
 * API errors kept as incomplete responses carrying the provider's error. Fixtures: test/fixtures/formats/http-exchange/
 * (invented exchanges; see docs/formats/http-exchange.md).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { httpExchangeFormat } from '../../../../src-main/engine/adapters/httpExchange/format';
import type { Emit } from '../../../../src-main/engine/adapters/formatAdapter';
import type { AnalyzeReport } from '../../../../shared/report';
import { analyzeFile, temporaryDir } from '../../../support/engineHarness';
import { callLatencies, modelLatencies, fixtures, detectFile, examplesAndOtherFixtures, jsonlFiles, runCountsOf as runsOf } from '../../../support/formatTests';

const fixture = (name: string): string => join(fixtures, 'http-exchange', name);

function findingsOf(report: AnalyzeReport): [string, string | null, number | null, string | null][] {
  return report.findings.map((finding) => [finding.kind, finding.run_id, finding.step, finding.call_id]);
}

function detect(path: string): string | null {
  return detectFile(httpExchangeFormat, path);
}

describe('http-exchange: Anthropic Messages (claude-trace)', () => {
  it('rebuilds the main loop as one thread across moved cache_control marks, and keeps side calls and other endpoints apart', async () => {
    const { report } = await analyzeFile(fixture('anthropic-messages.jsonl'));
    assert.equal(report.files[0]?.format, 'http-exchange');
    assert.match(
      report.files[0]?.format_reason ?? '',
      /^HTTP exchange log: 6 of the first 6 records are \{request\{url, body\}, response\{status_code, body \| body_raw\}\} pairs \(5 Anthropic Messages, 1 other endpoints\)$/,
    );
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      // The quota probe (max_tokens 1): cut off by its own limit, so it never gave a final answer.
      { run_id: 'thread-1', status: 'unterminated', status_raw: '', steps: 1, tool_calls: 0, tool_results: 0 },
      // Streamed parallel calls, a JSON step, a streamed final answer; results from the next requests.
      { run_id: 'thread-2', status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 3, tool_results: 3 },
      // The title side call, on the same first message but another model and no tools.
      { run_id: 'thread-3', status: 'model_finished', status_raw: 'model_finished', steps: 1, tool_calls: 0, tool_results: 0 },
      // count_tokens is not a model call: kept as an unknown event.
      { run_id: 'other-requests', status: 'unterminated', status_raw: '', steps: 0, tool_calls: 0, tool_results: 0 },
    ]);
    const main = report.runs.find((run) => run.run_id === 'thread-2');
    // Input counts uncached + cache writes + cache reads of each call, once.
    assert.equal(main?.input_tokens, 4 + 1800 + (5 + 150 + 1800) + (6 + 120 + 1950));
    assert.equal(main?.output_tokens, 96 + 40 + 24);
    assert.equal(main?.started_at, '2025-06-15T15:06:41.000Z');
    assert.deepEqual(findingsOf(report), [
      ['truncated_response', 'thread-1', 1, null],
      ['unterminated_run', 'thread-1', null, null],
      // The is_error tool_result of the second request.
      ['tool_error', 'thread-2', 1, 'toolu_02ReadCk'],
    ]);
    // A result is anchored to the request that carried it (line 4), with the step of its call.
    assert.equal(report.findings.find((finding) => finding.kind === 'tool_error')?.line, 4);
  });
});

describe('http-exchange: OpenAI Chat Completions', () => {
  it('pairs role tool messages with their calls, joins interleaved streamed calls by index, and reports a stream cut mid-arguments', async () => {
    const { report } = await analyzeFile(fixture('openai-chat.jsonl'));
    assert.equal(report.files[0]?.format, 'http-exchange');
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      { run_id: 'thread-1', status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 2, tool_results: 2 },
      // The system message changed between the two requests (its clock): still one thread. The
      // second stream ends without finish_reason: its call is not issued, its arguments are cut.
      { run_id: 'thread-2', status: 'unterminated', status_raw: '', steps: 2, tool_calls: 2, tool_results: 2 },
    ]);
    const weather = report.runs.find((run) => run.run_id === 'thread-1');
    assert.equal(weather?.input_tokens, 82 + 171);
    assert.equal(weather?.output_tokens, 46 + 17);
    assert.deepEqual(findingsOf(report), [
      // The cut stream, once: its call's cut arguments are part of it (docs/semantics.md §1).
      ['incomplete_response', 'thread-2', 2, null],
      ['unterminated_run', 'thread-2', null, null],
      // Its system prompt carries the time of day, so request 2's differs from request 1's: no cached prefix.
      ['system_or_tools_changed', 'thread-2', 2, null],
    ]);
  });
});

describe('http-exchange: OpenAI Responses', () => {
  it('follows previous_response_id and full input histories, reassembles argument deltas, and reports a cut stream', async () => {
    const { report } = await analyzeFile(fixture('openai-responses.jsonl'));
    assert.equal(report.files[0]?.format, 'http-exchange');
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      { run_id: 'thread-1', status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 1, tool_results: 1 },
      // The function_call item resent with its id and status still matches the history.
      { run_id: 'thread-2', status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 1, tool_results: 1 },
      { run_id: 'thread-3', status: 'unterminated', status_raw: '', steps: 1, tool_calls: 0, tool_results: 0 },
    ]);
    assert.equal(report.runs[0]?.input_tokens, 120 + 180);
    assert.deepEqual(findingsOf(report), [
      ['incomplete_response', 'thread-3', 1, null],
      ['unterminated_run', 'thread-3', null, null],
    ]);
  });
});

describe('http-exchange: concurrent conversations', () => {
  it('gives each agent its own thread when two send the same first request: the call ids of the later requests say whose response they continue', async () => {
    const { report } = await analyzeFile(fixture('concurrent-threads.jsonl'));
    assert.deepEqual(runsOf(report), [
      // Agent A: the same first request as B, then requests carrying its own calls.
      { run_id: 'thread-1', status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 2, tool_results: 2 },
      { run_id: 'thread-2', status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 1, tool_results: 1 },
      // A 429, then the same first request from another agent sent before the 429 came back (not
      // a retry), then the first agent's retry sent after it.
      { run_id: 'thread-3', status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 1, tool_results: 1 },
      { run_id: 'thread-4', status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 1, tool_results: 1 },
    ]);
    const lines = (runId: string): number[] => report.runs.filter((run) => run.run_id === runId).flatMap((run) => run.requests.map((request) => request.line));
    assert.deepEqual(lines('thread-1'), [1, 3, 5]);
    assert.deepEqual(lines('thread-2'), [2, 4]);
    assert.deepEqual(lines('thread-3'), [6, 8, 10]);
    assert.deepEqual(lines('thread-4'), [7, 9]);
    // No rewrite, no unterminated thread: only the 429, retried by its own agent.
    assert.deepEqual(findingsOf(report), [['api_error', 'thread-3', 1, null]]);
    assert.equal(report.findings[0]?.severity, 'info');
  });
});

describe('http-exchange: API errors', () => {
  it('keeps a call the API says has no result dangling, a result it calls unexpected orphaned, and a retry in its thread', async () => {
    const { report } = await analyzeFile(fixture('api-errors.jsonl'));
    assert.equal(report.files[0]?.format, 'http-exchange');
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      // Two calls, one result sent, a 400 naming the other; nothing after it.
      { run_id: 'thread-1', status: 'failed', status_raw: 'failed', steps: 2, tool_calls: 2, tool_results: 1 },
      // 529, the same history again (a retry), a 400 naming a result for a call nobody made, the fixed request.
      { run_id: 'thread-2', status: 'model_finished', status_raw: 'model_finished', steps: 4, tool_calls: 1, tool_results: 2 },
      // A stream broken by an error event mid-arguments, then a retry that never got its response.
      { run_id: 'thread-3', status: 'unterminated', status_raw: '', steps: 1, tool_calls: 0, tool_results: 0 },
    ]);
    // The requests show the same faults the API answered with a 400: request 2 of thread-1 carries
    // a call without its result; request 3 of thread-2 a result for a call nobody made, which the
    // fixed request 4 drops again (a rewrite). A run's request findings follow its others.
    assert.deepEqual(findingsOf(report), [
      ['dangling_call', 'thread-1', 1, 'toolu_E2Lint'],
      ['api_error', 'thread-1', 2, null],
      ['missing_tool_result_in_history', 'thread-1', 2, 'toolu_E2Lint'],
      ['api_error', 'thread-2', 1, null],
      ['orphan_result', 'thread-2', 2, 'toolu_E9Ghost'],
      ['api_error', 'thread-2', 3, null],
      ['missing_tool_result_in_history', 'thread-2', 3, 'toolu_E9Ghost'],
      ['history_rewrite', 'thread-2', 4, null],
      // The stream broken by an error event issued no call: its cut arguments are covered by the
      // response's verdict, reported once (docs/semantics.md §1, §7).
      ['api_error', 'thread-3', 1, null],
      ['unterminated_run', 'thread-3', null, null],
    ]);
    // A provider error is not a finish reason: each says its status, the provider's type and message,
    // and what followed. The 400 that ended thread-1 is an error; the 529 retried and the 400 whose
    // next request went through are info; the stream broken by an error event (under a 200) whose
    // retry never got a response ended its thread.
    const apiErrors = report.findings.filter((finding) => finding.kind === 'api_error');
    assert.deepEqual(
      apiErrors.map((finding) => [finding.severity, finding.line, finding.details?.['status'], finding.details?.['type'], finding.details?.['retried']]),
      [
        ['error', 2, 400, 'invalid_request_error', false],
        ['info', 3, 529, 'overloaded_error', true],
        ['info', 5, 400, 'invalid_request_error', true],
        ['error', 7, null, 'overloaded_error', false],
      ],
    );
    assert.match(
      apiErrors[0]?.message ?? '',
      /step 2 \(line 2\) failed at the provider with HTTP 400 invalid_request_error: messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_E2Lint\..*the error ended the run$/,
    );
    assert.match(apiErrors[1]?.message ?? '', /HTTP 529 overloaded_error: Overloaded; the loop retried, and the call at step 2 \(line 4\) went through$/);
    assert.equal(report.findings.filter((finding) => finding.kind === 'unknown_finish_reason').length, 0);
  });
});

describe('http-exchange: detection', () => {
  it('accepts every fixture of its own', () => {
    for (const path of jsonlFiles(join(fixtures, 'http-exchange'))) {
      assert.match(detect(path) ?? '', /^HTTP exchange log: \d+ of the first \d+ records are/, path);
    }
  });

  it('rejects the Loopscope examples and the other formats’ fixtures', () => {
    const others = examplesAndOtherFixtures('http-exchange');
    assert.ok(others.length >= 20);
    for (const path of others) assert.equal(detect(path), null, path);
  });

  it('recognises a first exchange too large for the sample by how it starts, and nothing else that way', () => {
    const head =
      '{"request":{"timestamp":1750000000.5,"method":"POST","url":"https://api.anthropic.com/v1/messages?beta=true","headers":{},"body":{"messages":[';
    assert.match(httpExchangeFormat.detect({ path: 'log.jsonl', values: [], framedValues: [], head }) ?? '', /to \/v1\/messages, too large to sample whole$/);
    assert.equal(httpExchangeFormat.detect({ path: 'log.jsonl', values: [], framedValues: [], head: '{"type":"model_request","messages":[' }), null);
  });

  it('does not claim a file whose records are mostly something else', () => {
    const exchange = { request: { url: 'https://api.openai.com/v1/chat/completions', body: { messages: [] } }, response: null };
    const values = [exchange, { type: 'run_start' }, { type: 'run_end' }, { type: 'model_request' }];
    assert.equal(httpExchangeFormat.detect({ path: 'mixed.jsonl', values, framedValues: [], head: '' }), null);
  });
});

describe('http-exchange: latency', () => {
  it("a response's latency is from its request's time to its own; the client's calls are not timed", async () => {
    const path = join(fixtures, 'http-exchange', 'openai-chat.jsonl');
    assert.deepEqual(await modelLatencies(path, 'http-exchange'), [900, 800, 1500, 700]);
    // The log holds the model's exchanges only: a call ran somewhere between two of them.
    assert.deepEqual(await callLatencies(path, 'http-exchange'), [
      ['call_Oslo01', null],
      ['call_Brgn02', null],
      ['call_Find01', null],
      ['call_Cal02', null],
      ['call_Book03', null],
    ]);
  });
});

describe('http-exchange: many conversations at once', () => {
  it('keeps 200 interleaved conversations apart, pairs of them starting with the same request, each told apart by the call ids its history carries', async () => {
    const conversations = 200;
    const turns = 4;
    const lines: string[] = [];
    const histories: unknown[][] = Array.from({ length: conversations }, (_, c) => [
      { role: 'system', content: 'You are a careful agent.' },
      // Conversations 2k and 2k+1 send the same first request: only the calls issued to each tell them apart later.
      { role: 'user', content: `Task ${Math.floor(c / 2)}: fix the failing test.` },
    ]);
    let second = 0;
    for (let turn = 0; turn < turns; turn += 1) {
      for (let c = 0; c < conversations; c += 1) {
        second += 1;
        const callId = `call_${c}_${turn}`;
        const last = turn === turns - 1;
        const message = last
          ? { role: 'assistant', content: `Done with task ${c}.` }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: callId, type: 'function', function: { name: 'read_file', arguments: `{"path":"src/${c}/${turn}.ts"}` } }],
            };
        lines.push(
          JSON.stringify({
            request: {
              timestamp: 1_750_000_000 + second,
              method: 'POST',
              url: 'https://api.openai.com/v1/chat/completions',
              body: {
                model: 'gpt-4o-mini',
                messages: histories[c],
                tools: [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }],
              },
            },
            response: {
              timestamp: 1_750_000_000 + second + 0.5,
              status_code: 200,
              body: { id: `chatcmpl-${c}-${turn}`, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: last ? 'stop' : 'tool_calls' }] },
            },
          }),
        );
        histories[c] = [...histories[c]!, message, ...(last ? [] : [{ role: 'tool', tool_call_id: callId, content: `contents of src/${c}/${turn}.ts` }])];
      }
    }
    const dir = temporaryDir('many-conversations');
    try {
      const file = join(dir.path, 'proxy.jsonl');
      writeFileSync(file, `${lines.join('\n')}\n`);
      const { report } = await analyzeFile(file);
      assert.deepEqual(report.files[0]?.parse_errors, []);
      assert.equal(report.runs.length, conversations);
      for (const run of report.runs) {
        assert.deepEqual([run.status, run.steps, run.tool_calls, run.tool_results], ['model_finished', turns, turns - 1, turns - 1], run.run_id);
      }
      // Every call is answered in its own thread: no dangling call, no result without its call.
      assert.deepEqual(report.findings, []);
    } finally {
      dir.remove();
    }
  });
});

describe('http-exchange: provider', () => {
  it("names each request's provider by its own URL's host, however the hosts alternate", () => {
    const mapper = httpExchangeFormat.createMapper({ path: 'providers.jsonl' });
    const providers: unknown[] = [];
    const hosts = ['https://api.anthropic.com', 'https://llm-proxy.example.com', 'https://llm-proxy.example.com', 'https://api.openai.com', 'not a url'];
    hosts.forEach((host, index) => {
      const request = { url: `${host}/v1/chat/completions`, method: 'POST', body: { model: 'm', messages: [{ role: 'user', content: `question ${index}` }] } };
      const emit: Emit = ({ event }) => {
        if (event.type === 'model_request') providers.push(event.provider);
      };
      mapper.map({ request, response: null }, { lineNumber: index + 1, offset: 0, length: 0 }, emit, Buffer.alloc(0));
    });
    assert.deepEqual(providers, ['anthropic', 'llm-proxy.example.com', 'llm-proxy.example.com', 'openai', 'openai']);
  });
});
