/**
 * HTTP exchange logs (the claude-trace shape), read by the real engine: one model call per
 * exchange for the three APIs, streamed responses reassembled from their server-sent events,
 * threads rebuilt from histories that extend each other, tool results taken from the next request,
 * API errors kept as incomplete responses. Fixtures: test/fixtures/formats/http-exchange/
 * (invented exchanges; see docs/formats/http-exchange.md).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { httpExchangeFormat } from '../../src-main/engine/adapters/httpExchange';
import type { AnalyzeReport } from '../../shared/report';
import { analyzeFile } from '../support/engineHarness';
import { fixtures, detectFile, examplesAndOtherFixtures, jsonlFiles, runCountsOf as runsOf } from '../support/formatTests';

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
    assert.match(report.files[0]?.format_reason ?? '', /^HTTP exchange log: 6 of the first 6 records are \{request\{url, body\}, response\{status_code, body \| body_raw\}\} pairs \(5 Anthropic Messages, 1 other endpoints\)$/);
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
      ['unknown_finish_reason', 'thread-1', 2, null],
      ['missing_tool_result_in_history', 'thread-1', 2, null],
      ['unknown_finish_reason', 'thread-2', 1, null],
      ['orphan_result', 'thread-2', 2, 'toolu_E9Ghost'],
      ['unknown_finish_reason', 'thread-2', 3, null],
      ['missing_tool_result_in_history', 'thread-2', 3, null],
      ['history_rewrite', 'thread-2', 4, null],
      ['incomplete_response', 'thread-3', 1, null],
      ['unterminated_run', 'thread-3', null, null],
    ]);
    const http = report.findings.filter((finding) => finding.kind === 'unknown_finish_reason').map((finding) => /"(http_\d+)"/.exec(finding.message)?.[1]);
    assert.deepEqual(http, ['http_400', 'http_529', 'http_400']);
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
    const head = '{"request":{"timestamp":1750000000.5,"method":"POST","url":"https://api.anthropic.com/v1/messages?beta=true","headers":{},"body":{"messages":[';
    assert.match(httpExchangeFormat.detect({ path: 'log.jsonl', values: [], framedValues: [], head }) ?? '', /to \/v1\/messages, too large to sample whole$/);
    assert.equal(httpExchangeFormat.detect({ path: 'log.jsonl', values: [], framedValues: [], head: '{"type":"model_request","messages":[' }), null);
  });

  it('does not claim a file whose records are mostly something else', () => {
    const exchange = { request: { url: 'https://api.openai.com/v1/chat/completions', body: { messages: [] } }, response: null };
    const values = [exchange, { type: 'run_start' }, { type: 'run_end' }, { type: 'model_request' }];
    assert.equal(httpExchangeFormat.detect({ path: 'mixed.jsonl', values, framedValues: [], head: '' }), null);
  });
});
