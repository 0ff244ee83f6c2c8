/**
 * OpenAI Responses API exports, read by the real engine: request and response bodies (one
 * document, documents back to back, an array, one per line), hosted tools split into the model
 * calls the server made, MCP approvals, and AgentOps exports of Agents SDK runs. Fixtures:
 * test/fixtures/formats/openai-export/ (invented conversations; see docs/formats/openai-export.md).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { MappedEvent } from '../../../../src-main/engine/adapters/formatAdapter';
import { openaiExportFormat } from '../../../../src-main/engine/adapters/openaiExports';
import type { AnalyzeReport } from '../../../../shared/report';
import { temporaryDir } from '../../../support/engineHarness';
import {
  callLatencies,
  fixtures,
  findingsOf,
  detectFile,
  examplesAndOtherFixtures,
  filesUnder,
  runCountsOf as runsOf,
  type StoredEvent,
  TRACE_AND_LOG_NAMES,
  ingestEvents,
} from '../../../support/formatTests';

const FORMAT = 'openai-export';
const fixture = (name: string): string => join(fixtures, FORMAT, name);

interface EventRow extends StoredEvent {
  call_id: string | null;
  name: string | null;
  outcome: string | null;
  finish_reason: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  result_ok: number | null;
  error_code: string | null;
  summary: string | null;
}

/** The report and stored events of a file read as this format (registered or not, `format` names it). */
function ingest(path: string): Promise<{ report: AnalyzeReport; events: EventRow[] }> {
  return ingestEvents<EventRow>(
    path,
    FORMAT,
    'SELECT line, type, type_raw, step, call_id, name, outcome, finish_reason, input_tokens, output_tokens, result_ok, error_code, summary FROM events ORDER BY id',
  );
}

const canonical = (events: EventRow[]): string[] =>
  events
    .filter((event) => event.type !== 'unknown')
    .map((event) => `${event.type}@${event.step}${event.call_id ? ` ${event.call_id}` : ''}${event.outcome ? ` ${event.outcome}` : ''}`);

function detect(path: string): string | null {
  return detectFile(openaiExportFormat, path);
}

describe('openai-export: Responses API bodies', () => {
  it('a request/response chain: parallel calls answered by function_call_output in the next request, the end derived from the final message', async () => {
    const { report, events } = await ingest(fixture('chain-parallel-calls.json'));
    assert.equal(report.files[0]?.format, FORMAT);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      { run_id: 'chain-parallel-calls', status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 2, tool_results: 2 },
    ]);
    assert.deepEqual(findingsOf(report), []);
    assert.deepEqual(canonical(events), [
      'run_start@0',
      'model_request@1',
      'model_response@1 tool_calls',
      'tool_result@1 call_LsB9qW2m',
      'tool_result@1 call_Pt4xZr8n',
      'model_request@2',
      'model_response@2 final',
      'run_end@2',
    ]);
    // Usage counted once per response: 212 + 301 in, 46 + 19 out.
    assert.equal(report.runs[0]?.input_tokens, 513);
    assert.equal(report.runs[0]?.output_tokens, 65);
    // Each pretty-printed document keeps its own line.
    assert.deepEqual([...new Set(events.map((event) => event.line))].length, 4);
  });

  it('a single response asking for a client call is waiting for its output, not dangling', async () => {
    const { report } = await ingest(fixture('single-response-call.json'));
    assert.deepEqual(runsOf(report), [
      { run_id: 'single-response-call', status: 'waiting_for_input', status_raw: 'waiting_for_input', steps: 1, tool_calls: 1, tool_results: 0 },
    ]);
    assert.deepEqual(findingsOf(report), []);
  });

  it('hosted tools: the response is split where the server sampled again; results come from the items, a failed MCP call is a tool error', async () => {
    const { report, events } = await ingest(fixture('hosted-tools.json'));
    assert.deepEqual(runsOf(report), [
      { run_id: 'hosted-tools', status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 2, tool_results: 2 },
    ]);
    assert.deepEqual(findingsOf(report), [['tool_error', 'mcp_5c3e77b0d414']]);
    assert.deepEqual(canonical(events), [
      'run_start@0',
      'model_response@1 tool_calls',
      'tool_result@1 ws_5c3e77b0d413',
      'tool_result@1 mcp_5c3e77b0d414',
      'model_response@2 final',
      'run_end@2',
    ]);
    const responses = events.filter((event) => event.type === 'model_response');
    // The response's usage is counted once, on its last model call.
    assert.deepEqual(
      responses.map((event) => event.input_tokens),
      [null, 5120],
    );
    assert.equal(events.find((event) => event.call_id === 'mcp_5c3e77b0d414' && event.type === 'tool_result')?.error_code, '503');
    assert.deepEqual(
      events.filter((event) => event.type === 'unknown').map((event) => event.type_raw),
      ['response/output/mcp_list_tools'],
    );
  });

  it('MCP approvals: an approved call is answered by the next response’s mcp_call, a denied one is not executed', async () => {
    const { report, events } = await ingest(fixture('mcp-approvals.json'));
    assert.deepEqual(runsOf(report), [
      { run_id: 'mcp-approvals', status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 2, tool_results: 1 },
    ]);
    assert.deepEqual(findingsOf(report), [['unexecuted_call', 'mcpr_91aa04c3e702']]);
    assert.deepEqual(canonical(events), [
      'run_start@0',
      'model_response@1 tool_calls',
      'tool_call_not_executed@1 mcpr_91aa04c3e702',
      'model_request@2',
      'tool_result@1 mcpr_91aa04c3e701',
      'model_response@2 final',
      'run_end@2',
    ]);
  });

  it('an approval request with no answer yet leaves the run waiting for approval: the call is pending, not dangling', async () => {
    const { report } = await ingest(fixture('approval-pending.json'));
    assert.deepEqual(runsOf(report), [
      { run_id: 'approval-pending', status: 'waiting_for_approval', status_raw: 'waiting_for_approval', steps: 1, tool_calls: 1, tool_results: 0 },
    ]);
    assert.deepEqual(findingsOf(report), []);
  });

  it('one document per line: a result for a call no response made is an orphan, a max_output_tokens response is truncated and ends nothing', async () => {
    const { report, events } = await ingest(fixture('orphan-and-truncated.jsonl'));
    assert.deepEqual(runsOf(report), [{ run_id: 'orphan-and-truncated', status: 'unterminated', status_raw: '', steps: 2, tool_calls: 1, tool_results: 2 }]);
    assert.deepEqual(findingsOf(report), [
      ['orphan_result', 'call_Zz0nE9xx'],
      // The second request, sent with previous_response_id, restates no tools: the Responses API
      // does not carry tools over, so the model was offered none (docs/semantics.md §9).
      ['system_or_tools_changed', null],
      ['truncated_response', null],
      ['unterminated_run', null],
    ]);
    const truncated = events.find((event) => event.type === 'model_response' && event.step === 2);
    assert.equal(truncated?.outcome, 'incomplete');
    assert.equal(truncated?.finish_reason, 'max_output_tokens');
    assert.equal(report.findings.find((finding) => finding.kind === 'orphan_result')?.line, 3);
  });

  it('resent history: outputs already seen are not results again, and a call older than the file is not an orphan', async () => {
    const { report, events } = await ingest(fixture('resent-history.json'));
    assert.deepEqual(runsOf(report), [
      { run_id: 'resent-history', status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 1, tool_results: 1 },
    ]);
    assert.deepEqual(findingsOf(report), []);
    assert.deepEqual(
      events.filter((event) => event.type === 'unknown').map((event) => event.type_raw),
      ['input/function_call_output (call issued before this file)'],
    );
  });

  it('a record that is not a Responses body is a parse error; the records around it load', async () => {
    const dir = temporaryDir('openai-export-broken');
    try {
      const path = join(dir.path, 'broken.json');
      const [request, response] = readFileSync(fixture('chain-parallel-calls.json'), 'utf8').split(/\n(?=\{\n)/);
      writeFileSync(path, `${request}\n{"kind": "metric", "value": 3}\n${response}\n{"id": "resp_cut", "object": "response", "output": [\n`);
      const { report } = await ingest(path);
      assert.deepEqual(
        report.files[0]?.parse_errors.map((error) => [error.line, error.message.slice(0, 40)]),
        [
          [27, 'not an OpenAI Responses object (no "outp'],
          [100, 'not valid JSON: Unexpected end of JSON i'],
        ],
      );
      assert.equal(report.runs[0]?.steps, 1);
    } finally {
      dir.remove();
    }
  });
});

describe('openai-export: AgentOps exports of Agents SDK runs', () => {
  it('one run per trace: duplicate spans merged, prompts as requests, tool results from the next prompt, the end from the run span', async () => {
    const { report, events } = await ingest(fixture('agentops-span-export.json'));
    assert.equal(report.files[0]?.format, FORMAT);
    assert.deepEqual(runsOf(report), [
      { run_id: '5d0e6f7a8b9c0d1e2f3a4b5c6d7e8f90', status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 1, tool_results: 1 },
    ]);
    assert.deepEqual(findingsOf(report), []);
    assert.deepEqual(canonical(events), [
      'run_start@0',
      'model_request@1',
      'model_response@1 tool_calls',
      'tool_result@1 call_Tm5rKe3j',
      'model_request@2',
      'model_response@2 final',
      'run_end@2',
    ]);
    // The run span's aggregate usage is not counted again.
    assert.equal(report.runs[0]?.input_tokens, 330);
    assert.deepEqual(
      events.filter((event) => event.type === 'unknown').map((event) => event.type_raw),
      ['span/agents.agent', 'span/agents.function'],
    );
  });
});

describe('openai-export: mapping and detection', () => {
  const dir = temporaryDir('openai-export-detect');
  after(() => dir.remove());

  it('maps a parsed document directly, without the engine', () => {
    const mapper = openaiExportFormat.createMapper({ path: '/tmp/one-response.json' });
    const events: MappedEvent[] = [];
    const value: unknown = JSON.parse(readFileSync(fixture('single-response-call.json'), 'utf8'));
    const bytes = Buffer.from(JSON.stringify(value));
    assert.equal(
      mapper.map(value, { lineNumber: 1, offset: 0, length: bytes.length }, (event) => events.push(event), bytes),
      undefined,
    );
    mapper.finish((event) => events.push(event));
    assert.deepEqual(
      events.map(({ event }) => [event.type, event.run_id]),
      [
        ['run_start', 'one-response'],
        ['model_response', 'one-response'],
        ['run_end', 'one-response'],
      ],
    );
  });

  it('recognises every fixture of its own, and says what it saw', () => {
    for (const path of filesUnder(join(fixtures, FORMAT), TRACE_AND_LOG_NAMES)) assert.notEqual(detect(path), null, path);
    assert.match(detect(fixture('chain-parallel-calls.json')) ?? '', /^4 JSON documents, each a Responses API record/);
    assert.match(detect(fixture('agentops-span-export.json')) ?? '', /AgentOps export of an OpenAI Agents SDK run/);
    assert.match(detect(fixture('mcp-approvals.json')) ?? '', /^an array of 3 Responses API records/);
  });

  it('recognises a document too large for the sample from its first bytes', () => {
    const head = readFileSync(fixture('approval-pending.json'), 'utf8').replace(/^\{\n {2}"id"/, '{"id"');
    assert.notEqual(openaiExportFormat.detect({ path: 'big.json', values: [], framedValues: [], head: head.replace(/"created_at"[\s\S]*/, '') }), null);
  });

  it('rejects the canonical examples and the other formats’ fixtures', () => {
    const others = examplesAndOtherFixtures(FORMAT, TRACE_AND_LOG_NAMES);
    assert.ok(others.length > 5);
    for (const path of others) assert.equal(detect(path), null, path);
  });

  it('rejects a Responses API event stream and a Chat Completions response', () => {
    const stream = join(dir.path, 'stream.jsonl');
    writeFileSync(stream, '{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","output":[]}}\n');
    const chat = join(dir.path, 'chat.json');
    writeFileSync(chat, '{"id":"chatcmpl-1","object":"chat.completion","choices":[]}\n');
    assert.equal(detect(stream), null);
    assert.equal(detect(chat), null);
  });
});

describe('openai-export: latency', () => {
  it('records no latency: the client ran the calls, and created_at has one-second resolution', async () => {
    assert.deepEqual(await callLatencies(join(fixtures, 'openai-export', 'chain-parallel-calls.json'), 'openai-export'), [
      ['call_LsB9qW2m', null],
      ['call_Pt4xZr8n', null],
    ]);
  });
});
