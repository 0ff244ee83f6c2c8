/**
 * Issue 19: one GenAI agent run emitted by the OpenTelemetry JS SDK (devkit/otel/genAiAgentRun.ts:
 * tool calls answered, one dangling, a sub-agent, a budget stop) gives, read as OTLP JSON, the
 * findings the same run gives as canonical JSONL — and those findings are the ones expected, also
 * when the SDK's own OTLP/HTTP exporters (JSON and protobuf) send it to Loopscope's receiver. Then
 * the OTel adapter's reading of a budget stop and of a sub-agent, span by span, as real SDK spans
 * carry them.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT_CONTEXT, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { emitGenAiAgentRun, genAiAgentRunCanonical, genAiAgentRunIds, writeGenAiAgentRunOtlpJson } from '../../devkit/otel/genAiAgentRun';
import type { MappedEvent } from '../../src-main/engine/adapters/formatAdapter';
import { otelOtlpFormat } from '../../src-main/engine/adapters/otel/otlpFormat';
import { startOtlpReceiver } from '../../src-main/otlp/otlpReceiver';
import type { AnalyzeReport } from '../../shared/report';
import { analyzeFile, temporaryDir } from '../support/engineHarness';

const { rootRunId, subAgentRunId, subAgentCallId, danglingCallId } = genAiAgentRunIds;

/**
 * A finding without what must differ between the two files: `line` (one span per OTLP line, one
 * event per canonical line) and `file` (the two paths). Kind, severity, run, step, call id,
 * message and details must be equal.
 */
function comparableFindings(report: AnalyzeReport): Record<string, unknown>[] {
  return report.findings.map(({ kind, severity, run_id, step, call_id, message, details }) => ({ kind, severity, run_id, step, call_id, message, details }));
}

/**
 * A run without its lines and file, which differ as above; the parent's file too. Its status as
 * normalized: the raw one differs by design (the OTel adapter keeps the span's `OK`, the canonical
 * loop writes `succeeded`).
 */
function comparableRuns(report: AnalyzeReport): Record<string, unknown>[] {
  return report.runs.map((run) => ({
    run_id: run.run_id,
    status: run.status,
    steps: run.steps,
    tool_calls: run.tool_calls,
    tool_results: run.tool_results,
    input_tokens: run.input_tokens,
    output_tokens: run.output_tokens,
    started_at: run.started_at,
    ended_at: run.ended_at,
    findings: run.findings,
    parent: run.parent === undefined ? null : { run_id: run.parent.run_id, call_id: run.parent.call_id },
  }));
}

describe('a GenAI agent run: its OTLP JSON and its canonical JSONL give the same findings', () => {
  const dir = temporaryDir('genai-run');
  const otlpPath = join(dir.path, 'run.otlp.jsonl');
  const canonicalPath = join(dir.path, 'run.canonical.jsonl');
  let otlp: AnalyzeReport;
  let canonical: AnalyzeReport;

  before(async () => {
    await writeGenAiAgentRunOtlpJson(otlpPath);
    writeFileSync(canonicalPath, `${genAiAgentRunCanonical().join('\n')}\n`);
    otlp = (await analyzeFile(otlpPath)).report;
    canonical = (await analyzeFile(canonicalPath)).report;
  });
  after(() => dir.remove());

  it('reads the OTLP file as otel-otlp and the twin as canonical events, every line', () => {
    assert.deepEqual(
      [otlp, canonical].map((report) => [report.files[0]?.format, report.files[0]?.parse_errors, report.files[0]?.unknown_events]),
      [
        ['otel-otlp', [], 0],
        ['loopscope', [], 0],
      ],
    );
    // One export request per span: 2 agents, 6 model calls, 6 tool executions.
    assert.equal(otlp.files[0]?.lines, 14);
  });

  it('gives the same findings, but for their line and file', () => {
    assert.deepEqual(comparableFindings(otlp), comparableFindings(canonical));
  });

  it('gives the same runs: status, steps, tool calls, results, tokens, times and the call that started the sub-agent', () => {
    assert.deepEqual(comparableRuns(otlp), comparableRuns(canonical));
  });

  it('finds what the run holds: the dangling call, the budget stop, and the sub-agent parented to the call that started it', () => {
    assert.deepEqual(
      otlp.findings.map((finding) => [finding.kind, finding.severity, finding.run_id, finding.step, finding.call_id]),
      [
        ['dangling_call', 'error', rootRunId, 3, danglingCallId],
        ['budget_exceeded', 'warning', rootRunId, 4, null],
      ],
    );
    const budget = otlp.findings[1];
    assert.deepEqual(budget?.details, { limit: 'max_turns', limit_raw: 'max_turns', max: null, used: null, below_limit: null, inferred: false });
    assert.deepEqual(
      otlp.runs.map((run) => [run.run_id, run.status, run.status_raw, run.steps, run.tool_calls, run.tool_results]),
      [
        [rootRunId, 'budget_exceeded', 'budget_exceeded', 4, 6, 5],
        [subAgentRunId, 'succeeded', 'OK', 2, 1, 1],
      ],
    );
    assert.equal(otlp.runs[0]?.parent, undefined);
    assert.deepEqual(otlp.runs[1]?.parent, { run_id: rootRunId, call_id: subAgentCallId, file: otlpPath });
  });

  for (const [protocol, Exporter] of [
    ['JSON', JsonExporter],
    ['protobuf', ProtobufExporter],
  ] as const) {
    it(`sent by the real OTLP/HTTP ${protocol} exporter to Loopscope's receiver, gives the same findings and runs`, async () => {
      const receivedPath = join(dir.path, `received-${protocol}.jsonl`);
      const receiver = await startOtlpReceiver({ file: receivedPath, port: 0 });
      try {
        const exporter = new Exporter({ url: `${receiver.endpoint}/v1/traces` });
        await emitGenAiAgentRun(exporter, { processor: 'batch' });
        await exporter.shutdown();
      } finally {
        await receiver.close();
      }
      const { report } = await analyzeFile(receivedPath);
      assert.equal(report.files[0]?.format, 'otel-otlp');
      assert.equal(report.files[0]?.lines, 1, 'one batch: one export request');
      assert.deepEqual(comparableFindings(report), comparableFindings(canonical));
      assert.deepEqual(comparableRuns(report), comparableRuns(canonical));
    });
  }
});

// ---------------------------------------------------------------------------------------------
// The adapter, span by span, on spans the SDK built and its OTLP JSON serializer wrote

/** The spans `build` makes, one OTLP JSON export request each, in the order they ended. */
async function otlpRecords(build: (tracer: Tracer) => void): Promise<unknown[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  build(provider.getTracer('unit'));
  await provider.forceFlush();
  const decoder = new TextDecoder();
  const records = memory.getFinishedSpans().map((span) => JSON.parse(decoder.decode(JsonTraceSerializer.serializeRequest([span]))) as unknown);
  await provider.shutdown();
  return records;
}

function mapOtlp(records: unknown[]): MappedEvent[] {
  const mapper = otelOtlpFormat.createMapper({ path: 'unit' });
  const events: MappedEvent[] = [];
  const emit = (mapped: MappedEvent): void => {
    events.push(mapped);
  };
  records.forEach((record, index) => {
    const failure = mapper.map(record, { lineNumber: index + 1, offset: index * 1000, length: 1000 }, emit, Buffer.from(JSON.stringify(record)));
    assert.equal(failure, undefined);
  });
  mapper.finish(emit);
  return events;
}

interface AgentFailure {
  status: SpanStatusCode;
  description?: string;
  errorType?: string;
  exception?: { name: string; message: string };
}

/** The run_end an invoke_agent span that ended so gives: its status, limit and reason. */
async function runEndOfAgent(failure: AgentFailure): Promise<Record<string, unknown>> {
  const records = await otlpRecords((tracer) => {
    const span = tracer.startSpan('invoke_agent planner', { attributes: { 'gen_ai.operation.name': 'invoke_agent' }, startTime: 1_000 });
    if (failure.errorType !== undefined) span.setAttribute('error.type', failure.errorType);
    if (failure.exception !== undefined) span.recordException(failure.exception, 2_000);
    span.setStatus({ code: failure.status, ...(failure.description !== undefined ? { message: failure.description } : {}) });
    span.end(2_000);
  });
  const runEnd = mapOtlp(records).find((mapped) => mapped.event.type === 'run_end');
  assert.ok(runEnd, 'no run_end');
  const { status, limit, reason } = runEnd.event as Record<string, unknown>;
  return { status, limit, reason };
}

describe('otel: an agent span that failed on a limit is a budget stop', () => {
  const ERROR = SpanStatusCode.ERROR;

  it('reads the limit from the error type the agent SDKs raise, on error.type or the exception event', async () => {
    const cases: [AgentFailure, string | undefined][] = [
      // OpenAI Agents SDK (Python), failed as opentelemetry-util-genai records it.
      [{ status: ERROR, errorType: 'MaxTurnsExceeded', description: 'Max turns (4) exceeded' }, 'max_turns'],
      // The same, known only from the exception event, with the class's module.
      [{ status: ERROR, exception: { name: 'agents.exceptions.MaxTurnsExceeded', message: 'Max turns (4) exceeded' } }, 'max_turns'],
      // OpenAI Agents SDK (JS).
      [{ status: ERROR, errorType: 'MaxTurnsExceededError', description: 'Max turns (10) exceeded' }, 'max_turns'],
      // Claude Agent SDK result subtypes.
      [{ status: ERROR, errorType: 'error_max_turns' }, 'max_turns'],
      [{ status: ERROR, errorType: 'error_max_budget_usd' }, 'max_cost_usd'],
      // Google ADK's max_llm_calls.
      [{ status: ERROR, errorType: 'LlmCallsLimitExceededError', description: 'Max number of llm calls limit of `5` exceeded' }, 'max_turns'],
      // LangGraph's recursion limit counts graph steps, none of Loopscope's limits: named as written.
      [{ status: ERROR, errorType: 'GraphRecursionError', description: 'Recursion limit of 25 reached without hitting a stop condition.' }, 'recursion_limit'],
      // Pydantic AI names the limit in the message.
      [{ status: ERROR, errorType: 'UsageLimitExceeded', description: 'The next request would exceed the request_limit of 3' }, 'max_turns'],
      [
        {
          status: ERROR,
          exception: {
            name: 'pydantic_ai.exceptions.UsageLimitExceeded',
            message: 'The next tool call(s) would exceed the tool_calls_limit of 2 (tool_calls=3).',
          },
        },
        'max_tool_calls',
      ],
      [{ status: ERROR, errorType: 'UsageLimitExceeded', description: 'Exceeded the output_tokens_limit of 100 (output_tokens=150)' }, 'max_output_tokens'],
      [{ status: ERROR, errorType: 'UsageLimitExceeded', description: 'Exceeded the total_tokens_limit of 500 (total_tokens=512)' }, 'total_tokens_limit'],
      // A limit the message does not name: a budget stop all the same.
      [{ status: ERROR, errorType: 'UsageLimitExceeded', description: 'usage limit exceeded' }, undefined],
      // The Agents SDK's span error, as its OpenTelemetry span processors write the description, with no error type.
      [{ status: ERROR, description: "Max turns exceeded: {'max_turns': 3}" }, 'max_turns'],
    ];
    for (const [failure, limit] of cases) {
      const runEnd = await runEndOfAgent(failure);
      assert.equal(runEnd['status'], 'budget_exceeded', JSON.stringify(failure));
      assert.equal(runEnd['limit'], limit, JSON.stringify(failure));
    }
  });

  it('keeps the error type and message as the reason', async () => {
    assert.deepEqual(await runEndOfAgent({ status: ERROR, errorType: 'MaxTurnsExceeded', description: 'Max turns (4) exceeded' }), {
      status: 'budget_exceeded',
      limit: 'max_turns',
      reason: 'MaxTurnsExceeded: Max turns (4) exceeded',
    });
  });

  it('leaves other failures, and spans that did not fail, as their status says', async () => {
    assert.deepEqual(await runEndOfAgent({ status: ERROR, errorType: 'RateLimitError', description: '429 Too Many Requests' }), {
      status: 'ERROR',
      limit: undefined,
      reason: 'RateLimitError: 429 Too Many Requests',
    });
    // A "max turns" message under an error type that is no budget stop is that error.
    assert.equal((await runEndOfAgent({ status: ERROR, errorType: 'ValueError', description: 'max turns exceeded the schema' }))['status'], 'ERROR');
    // Only a failed span stopped: an error type on a span that ended UNSET or OK is no stop.
    assert.equal((await runEndOfAgent({ status: SpanStatusCode.UNSET, errorType: 'MaxTurnsExceeded' }))['status'], 'UNSET');
    assert.equal((await runEndOfAgent({ status: SpanStatusCode.OK, errorType: 'error_max_turns' }))['status'], 'OK');
  });
});

describe('otel: an agent span under a tool span is the run that tool call started', () => {
  /** The child_run_id of each tool result, by call id, and the run of each run_start. */
  async function childRuns(build: (tracer: Tracer) => void): Promise<{ results: Record<string, unknown>; runs: unknown[] }> {
    const events = mapOtlp(await otlpRecords(build)).map((mapped) => mapped.event as Record<string, unknown>);
    const results = Object.fromEntries(events.filter((event) => event['type'] === 'tool_result').map((event) => [event['call_id'], event['child_run_id']]));
    return { results, runs: events.filter((event) => event['type'] === 'run_start').map((event) => event['run_id']) };
  }

  it('names the sub-agent on the result of the call whose span holds it, through spans of no GenAI role; an agent beside a tool is no call’s', async () => {
    let traceId = '';
    let nested = '';
    const { results, runs } = await childRuns((tracer) => {
      const root = tracer.startSpan('invoke_agent planner', { attributes: { 'gen_ai.operation.name': 'invoke_agent' }, startTime: 1_000 }, ROOT_CONTEXT);
      traceId = root.spanContext().traceId;
      const inRoot = trace.setSpan(ROOT_CONTEXT, root);
      const tool = (callId: string, start: number): ReturnType<Tracer['startSpan']> =>
        tracer.startSpan(
          `execute_tool ${callId}`,
          { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'delegate', 'gen_ai.tool.call.id': callId }, startTime: start },
          inRoot,
        );
      const delegating = tool('call_delegate', 1_100);
      const workflow = tracer.startSpan('workflow.run', { startTime: 1_150 }, trace.setSpan(inRoot, delegating));
      const subAgent = tracer.startSpan(
        'invoke_agent helper',
        { attributes: { 'gen_ai.operation.name': 'invoke_agent' }, startTime: 1_200 },
        trace.setSpan(inRoot, workflow),
      );
      nested = subAgent.spanContext().spanId;
      subAgent.end(1_300);
      workflow.end(1_350);
      delegating.end(1_400);
      const plain = tool('call_plain', 1_500);
      plain.end(1_600);
      // Beside the tool span (the same parent), not under it.
      const beside = tracer.startSpan('invoke_agent other', { attributes: { 'gen_ai.operation.name': 'invoke_agent' }, startTime: 1_700 }, inRoot);
      beside.end(1_800);
      root.end(2_000);
    });
    assert.deepEqual(results, { call_delegate: `${traceId}/${nested}`, call_plain: undefined });
    assert.ok(runs.includes(`${traceId}/${nested}`));
  });
});
