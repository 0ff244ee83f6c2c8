/**
 * Streaming chunk logs, read by the real engine: one run per file, one step per streamed response,
 * tool calls joined per response and per call (chat `index`, Anthropic content block, Responses
 * output item), server-side tool results paired, cut streams surfacing as invalid arguments, and
 * no dangling call for a log that records no tool execution. Fixtures:
 * test/fixtures/formats/stream-chunks/ (invented streams; see docs/formats/stream-chunks.md).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { streamChunksFormat } from '../../../../src-main/engine/adapters/streamChunks/format';
import type { AnalyzeReport } from '../../../../shared/report';
import { analyzeFile } from '../../../support/engineHarness';
import { callLatencies, fixtures, detectFile, examplesAndOtherFixtures, jsonlFiles, runCountsOf as runsOf } from '../../../support/formatTests';

const fixture = (name: string): string => join(fixtures, 'stream-chunks', name);

function findingsOf(report: AnalyzeReport): [string, number | null, string | null][] {
  return report.findings.map((finding) => [finding.kind, finding.step, finding.call_id]);
}

function detect(path: string): string | null {
  return detectFile(streamChunksFormat, path);
}

describe('stream-chunks: OpenAI chat.completion.chunk', () => {
  it('joins interleaved parallel calls by index and takes usage from the chunk after finish_reason', async () => {
    const { report } = await analyzeFile(fixture('chat-parallel-calls.jsonl'));
    assert.equal(report.files[0]?.format, 'stream-chunks');
    assert.equal(report.files[0]?.format_reason, 'streaming chunk log: of the first 13 records, 13 chat.completion.chunk objects');
    assert.deepEqual(report.files[0]?.parse_errors, []);
    // Every line is an event: 13 fragments, 2 responses, the derived end.
    assert.equal(report.files[0]?.events, 16);
    assert.deepEqual(runsOf(report), [
      // Tool execution is not in a stream log: the run is paused with its calls pending, not dangling.
      { run_id: 'chat-parallel-calls', status: 'waiting_for_input', status_raw: 'waiting_for_input', steps: 2, tool_calls: 2, tool_results: 0 },
    ]);
    // Usage counted once, from the usage-only chunk of the first response; the second sent none.
    assert.equal(report.runs[0]?.input_tokens, 612);
    assert.equal(report.runs[0]?.output_tokens, 48);
    assert.deepEqual(findingsOf(report), []);
  });

  it('reports the cut stream as one incomplete response, its call cut mid-arguments never as dangling, and the half-written last line as a parse error', async () => {
    const { report } = await analyzeFile(fixture('chat-cut-stream.jsonl'));
    assert.equal(report.files[0]?.format, 'stream-chunks');
    assert.deepEqual(
      report.files[0]?.parse_errors.map((error) => error.line),
      [9],
    );
    // The cut response is a step, but its calls were never issued: only the first response's call counts.
    assert.deepEqual(runsOf(report), [
      { run_id: 'chat-cut-stream', status: 'waiting_for_input', status_raw: 'waiting_for_input', steps: 2, tool_calls: 1, tool_results: 0 },
    ]);
    // The call's cut arguments are the response's incompleteness, reported once (docs/semantics.md §1).
    assert.deepEqual(findingsOf(report), [['incomplete_response', 2, null]]);
  });
});

describe('stream-chunks: Anthropic message stream events', () => {
  it('assembles input_json_delta per content block and pairs server tool results, in the same message or the next', async () => {
    const { report } = await analyzeFile(fixture('anthropic-messages.jsonl'));
    assert.equal(report.files[0]?.format, 'stream-chunks');
    assert.match(report.files[0]?.format_reason ?? '', /^streaming chunk log: of the first 20 records, 18 Anthropic message stream events$/);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    // Step 1: web_search (server) + get_shipment (client), stop_reason tool_use. Step 2: a web_fetch
    // that failed at Anthropic, then the final answer (end_turn): its server call is not a loop tool call.
    assert.deepEqual(runsOf(report), [
      { run_id: 'anthropic-messages', status: 'waiting_for_input', status_raw: 'waiting_for_input', steps: 2, tool_calls: 2, tool_results: 2 },
    ]);
    // Input = uncached + cache reads of each message; output = the last message_delta count.
    assert.equal(report.runs[0]?.input_tokens, 1830 + 1024 + 2210 + 1024);
    assert.equal(report.runs[0]?.output_tokens, 96 + 41);
    assert.deepEqual(findingsOf(report), [['tool_error', 2, 'srvtoolu_01Gr4Xe7']]);
    assert.match(report.findings[0]?.message ?? '', /web_fetch \(srvtoolu_01Gr4Xe7, step 2\) returned an error url_not_accessible/);
  });

  it('ends a message at a stream error: one incomplete response, neither its cut call nor its complete call issued', async () => {
    const { report } = await analyzeFile(fixture('anthropic-stream-error.jsonl'));
    assert.equal(report.files[0]?.format, 'stream-chunks');
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      { run_id: 'anthropic-stream-error', status: 'waiting_for_input', status_raw: 'waiting_for_input', steps: 2, tool_calls: 1, tool_results: 0 },
    ]);
    // The error event is the provider's: an api_error, and nothing went through after it. Its cut
    // call was never issued, so the response's one verdict covers it (docs/semantics.md §1).
    assert.deepEqual(findingsOf(report), [['api_error', 2, null]]);
    const apiError = report.findings.find((finding) => finding.kind === 'api_error');
    assert.equal(apiError?.severity, 'error');
    assert.match(apiError?.message ?? '', /failed at the provider with overloaded_error: Overloaded; no model call went through after it/);
  });
});

describe('stream-chunks: Responses API stream events', () => {
  it('takes function calls from their items, pairs a hosted mcp_call with its output, and keeps a truncated response', async () => {
    const { report } = await analyzeFile(fixture('responses-stream.jsonl'));
    assert.equal(report.files[0]?.format, 'stream-chunks');
    assert.equal(report.files[0]?.format_reason, 'streaming chunk log: of the first 20 records, 20 Responses API stream events');
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      { run_id: 'responses-stream', status: 'waiting_for_input', status_raw: 'waiting_for_input', steps: 2, tool_calls: 2, tool_results: 1 },
    ]);
    assert.equal(report.runs[0]?.input_tokens, 880 + 1010);
    // status incomplete + incomplete_details.reason max_output_tokens stands for the finish reason.
    assert.deepEqual(findingsOf(report), [['truncated_response', 2, null]]);
  });

  it('ends a log whose last response asks for an MCP approval as waiting_for_approval', async () => {
    const { report } = await analyzeFile(fixture('responses-approval.jsonl'));
    assert.equal(report.files[0]?.format, 'stream-chunks');
    assert.deepEqual(runsOf(report), [
      { run_id: 'responses-approval', status: 'waiting_for_approval', status_raw: 'waiting_for_approval', steps: 1, tool_calls: 1, tool_results: 0 },
    ]);
    assert.deepEqual(findingsOf(report), []);
  });
});

describe('stream-chunks: detection', () => {
  it('recognises every stream-chunks fixture', () => {
    const files = jsonlFiles(join(fixtures, 'stream-chunks'));
    assert.equal(files.length, 6);
    for (const file of files) assert.match(detect(file) ?? '', /^streaming chunk log: /, file);
  });

  it('leaves the canonical examples and the other formats’ fixtures alone', () => {
    const others = examplesAndOtherFixtures('stream-chunks');
    assert.ok(others.length > 20);
    for (const file of others) assert.equal(detect(file), null, file);
  });

  it('needs most of the first records to be stream chunks, and one that names its provider', () => {
    const detectValues = (values: unknown[]): string | null => streamChunksFormat.detect({ path: 'x.jsonl', values, framedValues: values, head: '' });
    assert.equal(detectValues([{ type: 'ping' }, { type: 'ping' }]), null);
    assert.equal(detectValues([{ type: 'message_stop' }, { kind: 'metric' }, { kind: 'metric' }, { kind: 'metric' }]), null);
    assert.match(detectValues([{ type: 'message_start', message: { id: 'msg_1' } }, { type: 'ping' }]) ?? '', /1 Anthropic message stream events/);
  });
});

describe('stream-chunks: latency', () => {
  it('records no latency: chunks carry at most the response creation second, and no call runs in the log', async () => {
    assert.deepEqual(await callLatencies(join(fixtures, 'stream-chunks', 'chat-parallel-calls.jsonl'), 'stream-chunks'), [
      ['call_Hn4sWq1ZtB', null],
      ['call_Pk8dRx3MvC', null],
    ]);
  });
});
