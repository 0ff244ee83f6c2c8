/**
 * Agents-SDK-style span events, read by the real engine: a trace is a run, agent spans start and
 * end it, model spans are its steps, tool spans its calls and results — paired by call id when the
 * spans carry one, else by parentage. Spans exported twice count once. Fixtures:
 * test/fixtures/formats/agents-span-events/ (invented traces; see docs/formats/agents-span-events.md).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { agentsSpanEventsFormat } from '../../../../src-main/engine/adapters/agentsSpanEvents';
import type { AnalyzeReport } from '../../../../shared/report';
import { analyzeFile } from '../../../support/engineHarness';
import { callLatencies, modelLatencies, fixtures, detectFile, examplesAndOtherFixtures, jsonlFiles, runCountsOf as runsOf } from '../../../support/formatTests';

const fixture = (name: string): string => join(fixtures, 'agents-span-events', name);

function findingsOf(report: AnalyzeReport): [string, string | null, number | null, string | null][] {
  return report.findings.map((finding) => [finding.kind, finding.run_id, finding.step, finding.call_id]);
}

function detect(path: string): string | null {
  return detectFile(agentsSpanEventsFormat, path);
}

describe('agents-span-events', () => {
  it('reads a trace: parallel tool spans under their model span, a failed tool, a span exported twice, a guardrail span kept', async () => {
    const { report } = await analyzeFile(fixture('agent-run.jsonl'));
    assert.equal(report.files[0]?.format, 'agents-span-events');
    assert.equal(
      report.files[0]?.format_reason,
      'agents span events: 12 of the first 12 records are {event: start|end, span: {span_id, trace_id, …}} lines (kinds agent, llm, tool, guardrail)',
    );
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      // The second end record of get_shipment is the same span: one result, no duplicate.
      { run_id: 'trace_4be1f09a77c2d3e5a1b0c9d8e7f60a1b', status: 'succeeded', status_raw: 'ok', steps: 2, tool_calls: 2, tool_results: 2 },
    ]);
    assert.equal(report.runs[0]?.input_tokens, 402 + 515);
    assert.deepEqual(findingsOf(report), [['tool_error', 'trace_4be1f09a77c2d3e5a1b0c9d8e7f60a1b', 1, 'span_d34a6f8b0c2e']]);
    assert.match(report.findings[0]?.message ?? '', /get_invoice \(span_d34a6f8b0c2e, step 1\) returned an error OrdersApi::NotFound/);
  });

  it('pairs by call id when the spans carry one; a tool span that never ended is dangling once its trace ended', async () => {
    const { report } = await analyzeFile(fixture('explicit-call-ids.jsonl'));
    assert.equal(report.files[0]?.format, 'agents-span-events');
    // The last line has no trace_id: it cannot belong to a run.
    assert.deepEqual(
      report.files[0]?.parse_errors.map((error) => error.line),
      [12],
    );
    assert.deepEqual(runsOf(report), [
      { run_id: 'trace_7c2d9e0f1a3b4c5d6e7f8091a2b3c4d5', status: 'failed', status_raw: 'error', steps: 1, tool_calls: 2, tool_results: 1 },
      // Its agent span never ended: the trace itself is unterminated.
      { run_id: 'trace_8d3e0f1a2b4c5d6e7f8091a2b3c4d5e6', status: 'unterminated', status_raw: '', steps: 1, tool_calls: 1, tool_results: 0 },
    ]);
    assert.deepEqual(
      findingsOf(report).sort(),
      [
        // refund_order started, the agent then ended with a timeout: the call never got its result.
        ['dangling_call', 'trace_7c2d9e0f1a3b4c5d6e7f8091a2b3c4d5', 1, 'call_Q8mTk5'],
        // In a trace that never ended the engine's rule for unterminated runs applies: the open call is dangling too.
        ['dangling_call', 'trace_8d3e0f1a2b4c5d6e7f8091a2b3c4d5e6', 1, 'call_Z1kPw7'],
        ['unterminated_run', 'trace_8d3e0f1a2b4c5d6e7f8091a2b3c4d5e6', null, null],
      ].sort(),
    );
  });

  it('follows a trace past its root agent (RAAF nests the next turn under the tool span) and ends it with the last agent span', async () => {
    const { report } = await analyzeFile(fixture('continued-trace.jsonl'));
    assert.equal(report.files[0]?.format, 'agents-span-events');
    assert.deepEqual(report.files[0]?.parse_errors, []);
    // One run_end: the root's "ok" is superseded by the nested agent's error (the 400 on the second model call).
    assert.deepEqual(runsOf(report), [
      { run_id: 'trace_9e4f1a2b3c5d6e7f8091a2b3c4d5e6f7', status: 'failed', status_raw: 'error', steps: 2, tool_calls: 1, tool_results: 1 },
    ]);
    // The second model call, answered with the 400, failed at the provider: an api_error, once (docs/semantics.md §7).
    assert.deepEqual(findingsOf(report), [['api_error', 'trace_9e4f1a2b3c5d6e7f8091a2b3c4d5e6f7', 2, null]]);
    assert.equal(report.findings[0]?.severity, 'error');
    assert.match(
      report.findings[0]?.message ?? '',
      /failed at the provider with Agents::Models::APIError: Bad request: messages with role 'tool' must be a response/,
    );
  });
});

describe('agents-span-events: detection', () => {
  it('recognises every agents-span-events fixture', () => {
    const files = jsonlFiles(join(fixtures, 'agents-span-events'));
    assert.equal(files.length, 3);
    for (const file of files) assert.match(detect(file) ?? '', /^agents span events: /, file);
  });

  it('leaves the canonical examples and the other formats’ fixtures alone', () => {
    const others = examplesAndOtherFixtures('agents-span-events');
    assert.ok(others.length > 20);
    for (const file of others) assert.equal(detect(file), null, file);
  });
});

describe('agents-span-events: latency', () => {
  it("a call's and a response's latency are their spans' recorded durations", async () => {
    const path = join(fixtures, 'agents-span-events', 'agent-run.jsonl');
    assert.deepEqual(await callLatencies(path, 'agents-span-events'), [
      ['span_c23f5e7a9b1d', 310.2],
      ['span_d34a6f8b0c2e', 95.7],
    ]);
    assert.deepEqual(await modelLatencies(path, 'agents-span-events'), [912.4, 1720.9]);
  });
});
