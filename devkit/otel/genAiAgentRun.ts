/**
 * One GenAI agent run told twice: as OpenTelemetry spans that the OpenTelemetry JS SDK emits
 * through any span exporter (the OTLP/HTTP JSON and protobuf exporters a receiver is tested with,
 * or an in-memory one), and as the canonical JSONL the same run gives (shared/trace/canonicalEvents.ts).
 * Both are derived from one script below, so the two paths can be held to the same findings.
 *
 * The spans follow the OpenTelemetry GenAI semantic conventions as they stood when they moved out
 * of open-telemetry/semantic-conventions (commit 953276ff, after v1.41.0: docs/gen-ai/
 * gen-ai-agent-spans.md, gen-ai-spans.md, model/gen-ai/registry.yaml): `invoke_agent {agent}`,
 * `chat {model}` and `execute_tool {tool}` spans, content captured (`gen_ai.output.messages` with
 * `tool_call` parts, tool arguments and results) as JSON text, which the conventions allow on
 * spans where structured values are not supported — the JS SDK's attributes are flat.
 *
 * The run: a trip planner (OpenAI Agents SDK style, `max_turns` 4) calls two tools in parallel,
 * then a tool that is a sub-agent (its `invoke_agent` span nested under the `execute_tool` span
 * that started it, with its own model calls and tool), then issues two calls of which only one
 * is ever executed (the other dangles), then one more; its fifth turn would exceed `max_turns`,
 * so the agent span ends in error with `error.type` `MaxTurnsExceeded` — how opentelemetry-util-genai
 * records the exception the Agents SDK raises — which docs/formats/otel.md reads as a budget stop.
 *
 * Deterministic: every span's id is fixed by the script (the provider's id generator hands out
 * the id of the span being started) and every span has explicit start and end times.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type IdGenerator,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { writeFileSync } from 'node:fs';

const TRACE_ID = '5e1f0a3c9b7d42e68f0c1a2b3d4e5f60';
const ROOT_AGENT_SPAN = 'a100000000000001';
const SUB_AGENT_SPAN = 'a200000000000001';
const PROVIDER = 'openai';
const REQUEST_MODEL = 'gpt-4o-mini';
const RESPONSE_MODEL = 'gpt-4o-mini-2024-07-18';
const SERVICE_NAME = 'trip-planner';
/** 2026-03-02T09:30:00.000Z: span times are offsets in milliseconds from it. */
const EPOCH_MS = Date.UTC(2026, 2, 2, 9, 30, 0);

/** The ids a reader of either form of the run expects (docs/formats/otel.md "Runs"). */
export const genAiAgentRunIds = {
  traceId: TRACE_ID,
  /** The root agent's run is the trace. */
  rootRunId: TRACE_ID,
  /** A nested agent invocation is `<trace id>/<agent span id>`. */
  subAgentRunId: `${TRACE_ID}/${SUB_AGENT_SPAN}`,
  /** The call whose execute_tool span holds the sub-agent. */
  subAgentCallId: 'call_hotels_3',
  /** The call the model issued that never got an execute_tool span. */
  danglingCallId: 'call_book_5',
  service: SERVICE_NAME,
} as const;

interface ToolExecution {
  spanId: string;
  start: number;
  end: number;
  result: unknown;
  /** An agent invoked by this tool: its invoke_agent span is the execute_tool span's child. */
  subAgent?: AgentScript;
}

interface ToolCallScript {
  callId: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Absent for a call the loop never ran. */
  execution?: ToolExecution;
}

interface ModelCallScript {
  spanId: string;
  start: number;
  end: number;
  responseId: string;
  inputTokens: number;
  outputTokens: number;
  /** The answer of a response that calls no tool. */
  text?: string;
  calls: ToolCallScript[];
}

/** The agent stopped because a limit was hit: the exception its SDK raised, and the limit it names. */
interface BudgetStop {
  errorType: string;
  message: string;
  limit: string;
}

interface AgentScript {
  name: string;
  spanId: string;
  start: number;
  end: number;
  task: string;
  modelCalls: ModelCallScript[];
  /** The answer the agent returned; absent when it stopped on its budget. */
  answer?: string;
  budgetStop?: BudgetStop;
}

const hotelResearcher: AgentScript = {
  name: 'hotel_researcher',
  spanId: SUB_AGENT_SPAN,
  start: 2900,
  end: 5100,
  task: 'Find a quiet hotel in Lisbon near Alfama for 12-15 May, under 180 EUR a night.',
  modelCalls: [
    {
      spanId: 'c200000000000001',
      start: 2950,
      end: 3600,
      responseId: 'chatcmpl-sub-1',
      inputTokens: 410,
      outputTokens: 36,
      calls: [
        {
          callId: 'call_search_hotels_1',
          name: 'search_hotels',
          arguments: { city: 'Lisbon', district: 'Alfama', max_price_eur: 180 },
          execution: { spanId: 'e200000000000001', start: 3650, end: 4100, result: { hotels: ['Casa Alfama', 'Memmo Alfama'] } },
        },
      ],
    },
    {
      spanId: 'c200000000000002',
      start: 4150,
      end: 5000,
      responseId: 'chatcmpl-sub-2',
      inputTokens: 520,
      outputTokens: 48,
      text: 'Casa Alfama: quiet, 165 EUR a night, free cancellation.',
      calls: [],
    },
  ],
  answer: 'Casa Alfama: quiet, 165 EUR a night, free cancellation.',
};

const tripPlanner: AgentScript = {
  name: 'trip_planner',
  spanId: ROOT_AGENT_SPAN,
  start: 0,
  end: 7800,
  task: 'Plan a four-day trip to Lisbon in mid May: weather, flights from Berlin, a hotel, a budget in EUR.',
  modelCalls: [
    {
      spanId: 'c100000000000001',
      start: 100,
      end: 1100,
      responseId: 'chatcmpl-1',
      inputTokens: 820,
      outputTokens: 64,
      calls: [
        {
          callId: 'call_weather_1',
          name: 'get_weather',
          arguments: { city: 'Lisbon', month: 'May' },
          execution: { spanId: 'e100000000000001', start: 1150, end: 1400, result: { high_c: 23, low_c: 14, rain_days: 4 } },
        },
        {
          callId: 'call_flights_2',
          name: 'search_flights',
          arguments: { from: 'BER', to: 'LIS', depart: '2026-05-12', return: '2026-05-15' },
          execution: { spanId: 'e100000000000002', start: 1150, end: 1900, result: { cheapest_eur: 142, carrier: 'TP' } },
        },
      ],
    },
    {
      spanId: 'c100000000000002',
      start: 2000,
      end: 2800,
      responseId: 'chatcmpl-2',
      inputTokens: 1010,
      outputTokens: 41,
      calls: [
        {
          callId: genAiAgentRunIds.subAgentCallId,
          name: 'research_hotels',
          arguments: { city: 'Lisbon', nights: 3, budget_eur: 180 },
          execution: { spanId: 'e100000000000003', start: 2850, end: 5200, result: hotelResearcher.answer, subAgent: hotelResearcher },
        },
      ],
    },
    {
      spanId: 'c100000000000003',
      start: 5300,
      end: 6200,
      responseId: 'chatcmpl-3',
      inputTokens: 1180,
      outputTokens: 77,
      calls: [
        // Issued, never executed: no execute_tool span, no result.
        { callId: genAiAgentRunIds.danglingCallId, name: 'book_hotel', arguments: { hotel: 'Casa Alfama', check_in: '2026-05-12', nights: 3 } },
        {
          callId: 'call_currency_6',
          name: 'convert_currency',
          arguments: { amount: 637, from: 'EUR', to: 'USD' },
          execution: { spanId: 'e100000000000004', start: 6250, end: 6400, result: { amount: 689.2, currency: 'USD' } },
        },
      ],
    },
    {
      spanId: 'c100000000000004',
      start: 6500,
      end: 7400,
      responseId: 'chatcmpl-4',
      inputTokens: 1290,
      outputTokens: 58,
      calls: [
        {
          callId: 'call_itinerary_7',
          name: 'write_itinerary',
          arguments: { days: 4, city: 'Lisbon' },
          execution: { spanId: 'e100000000000005', start: 7450, end: 7700, result: { saved: 'itinerary-lisbon.md' } },
        },
      ],
    },
  ],
  // The Agents SDK raises MaxTurnsExceeded(f"Max turns ({max_turns}) exceeded") before a fifth turn.
  budgetStop: { errorType: 'MaxTurnsExceeded', message: 'Max turns (4) exceeded', limit: 'max_turns' },
};

const isoAt = (offsetMs: number): string => new Date(EPOCH_MS + offsetMs).toISOString();
const userMessages = (text: string): unknown[] => [{ role: 'user', parts: [{ type: 'text', content: text }] }];
const assistantMessages = (text: string): unknown[] => [{ role: 'assistant', parts: [{ type: 'text', content: text }], finish_reason: 'stop' }];

/** `gen_ai.output.messages` of a model call: its text and tool_call parts, in the conventions' shape. */
function outputMessagesOf(call: ModelCallScript): unknown[] {
  const parts = [
    ...(call.text !== undefined ? [{ type: 'text', content: call.text }] : []),
    ...call.calls.map((tool) => ({ type: 'tool_call', id: tool.callId, name: tool.name, arguments: tool.arguments })),
  ];
  return [{ role: 'assistant', parts, finish_reason: call.calls.length > 0 ? 'tool_call' : 'stop' }];
}

/** What the provider said it stopped for (OpenAI's words), as `gen_ai.response.finish_reasons` carries it. */
const finishReasonOf = (call: ModelCallScript): string => (call.calls.length > 0 ? 'tool_calls' : 'stop');

// ---------------------------------------------------------------------------------------------
// The spans

interface SpanPlan {
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: SpanKind;
  start: number;
  end: number;
  attributes: Attributes;
  /**
   * How an agent span ends: `ok` when the agent returned (as the Agents SDK's span processors set
   * it), or failed on its budget. Model and tool spans stay UNSET, as instrumentations leave a span
   * that did not fail.
   */
  outcome?: 'ok' | BudgetStop;
}

function agentSpans(agent: AgentScript, parentSpanId: string | null): SpanPlan[] {
  const plans: SpanPlan[] = [
    {
      spanId: agent.spanId,
      parentSpanId,
      name: `invoke_agent ${agent.name}`,
      kind: SpanKind.INTERNAL,
      start: agent.start,
      end: agent.end,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.provider.name': PROVIDER,
        'gen_ai.agent.name': agent.name,
        'gen_ai.request.model': REQUEST_MODEL,
        'gen_ai.input.messages': JSON.stringify(userMessages(agent.task)),
        ...(agent.answer !== undefined ? { 'gen_ai.output.messages': JSON.stringify(assistantMessages(agent.answer)) } : {}),
      },
      outcome: agent.budgetStop ?? 'ok',
    },
  ];
  for (const call of agent.modelCalls) {
    plans.push({
      spanId: call.spanId,
      parentSpanId: agent.spanId,
      name: `chat ${REQUEST_MODEL}`,
      kind: SpanKind.CLIENT,
      start: call.start,
      end: call.end,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': PROVIDER,
        'gen_ai.request.model': REQUEST_MODEL,
        'gen_ai.response.model': RESPONSE_MODEL,
        'gen_ai.response.id': call.responseId,
        'gen_ai.response.finish_reasons': [finishReasonOf(call)],
        'gen_ai.usage.input_tokens': call.inputTokens,
        'gen_ai.usage.output_tokens': call.outputTokens,
        'gen_ai.output.messages': JSON.stringify(outputMessagesOf(call)),
      },
    });
    for (const tool of call.calls) {
      if (tool.execution === undefined) continue;
      plans.push({
        spanId: tool.execution.spanId,
        parentSpanId: agent.spanId,
        name: `execute_tool ${tool.name}`,
        kind: SpanKind.INTERNAL,
        start: tool.execution.start,
        end: tool.execution.end,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': tool.name,
          'gen_ai.tool.call.id': tool.callId,
          'gen_ai.tool.type': 'function',
          'gen_ai.tool.call.arguments': JSON.stringify(tool.arguments),
          'gen_ai.tool.call.result': JSON.stringify(tool.execution.result),
        },
      });
      if (tool.execution.subAgent !== undefined) plans.push(...agentSpans(tool.execution.subAgent, tool.execution.spanId));
    }
  }
  return plans;
}

/** Hands out the trace id and, for each span started, the id the script gave it. */
class ScriptedIds implements IdGenerator {
  nextSpanId: string | null = null;

  generateTraceId(): string {
    return TRACE_ID;
  }

  generateSpanId(): string {
    if (this.nextSpanId === null) throw new Error('a span was started without a scripted id');
    const id = this.nextSpanId;
    this.nextSpanId = null;
    return id;
  }
}

export interface EmitOptions {
  /** `simple` exports each span as it ends (one export request per span); `batch` exports them together. Default `simple`. */
  processor?: 'simple' | 'batch';
}

/**
 * Emits the run's spans through the OpenTelemetry JS SDK into `exporter`, starting and ending them
 * in time order (children end before their parents, as instrumentations end them), and waits until
 * every span was exported. The exporter is left open: the caller shuts it down.
 */
export async function emitGenAiAgentRun(exporter: SpanExporter, options: EmitOptions = {}): Promise<void> {
  const ids = new ScriptedIds();
  const processor = options.processor === 'batch' ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': SERVICE_NAME }),
    idGenerator: ids,
    // Explicit, so OTEL_TRACES_SAMPLER in the environment cannot drop spans.
    sampler: new AlwaysOnSampler(),
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer('loopscope-devkit-genai-agent', '1.0.0');

  const plans = agentSpans(tripPlanner, null);
  // A parent starts before, and ends after, its children: at equal times starts go in script order, ends in reverse.
  const steps = [
    ...plans.map((plan, order) => ({ at: plan.start, rank: 1, order, plan, isStart: true })),
    ...plans.map((plan, order) => ({ at: plan.end, rank: 0, order: -order, plan, isStart: false })),
  ].sort((a, b) => a.at - b.at || a.rank - b.rank || a.order - b.order);

  const contexts = new Map<string, Context>();
  const started = new Map<string, Span>();
  for (const { plan, isStart } of steps) {
    if (isStart) {
      const parent = plan.parentSpanId === null ? ROOT_CONTEXT : contexts.get(plan.parentSpanId);
      if (parent === undefined) throw new Error(`span ${plan.spanId} starts before its parent ${plan.parentSpanId}`);
      ids.nextSpanId = plan.spanId;
      const span = tracer.startSpan(plan.name, { kind: plan.kind, startTime: EPOCH_MS + plan.start, attributes: plan.attributes }, parent);
      started.set(plan.spanId, span);
      contexts.set(plan.spanId, trace.setSpan(parent, span));
      continue;
    }
    const span = started.get(plan.spanId)!;
    if (plan.outcome === 'ok') {
      span.setStatus({ code: SpanStatusCode.OK });
    } else if (plan.outcome !== undefined) {
      // As opentelemetry-util-genai fails an agent invocation: error.type is the exception's class, the status its message.
      span.setAttribute('error.type', plan.outcome.errorType);
      span.recordException({ name: plan.outcome.errorType, message: plan.outcome.message }, EPOCH_MS + plan.end);
      span.setStatus({ code: SpanStatusCode.ERROR, message: plan.outcome.message });
    }
    span.end(EPOCH_MS + plan.end);
  }
  await provider.forceFlush();
}

/**
 * The run as an OTLP JSON file: one ExportTraceServiceRequest per line, one span each — what a
 * SimpleSpanProcessor sends, in the order it sends them — as the OpenTelemetry JS exporters
 * serialize it (`JsonTraceSerializer`). For tests that read the file without a receiver.
 */
export async function writeGenAiAgentRunOtlpJson(path: string): Promise<void> {
  const memory = new InMemorySpanExporter();
  await emitGenAiAgentRun(memory);
  const decoder = new TextDecoder();
  const lines = memory.getFinishedSpans().map((span) => {
    const request = JsonTraceSerializer.serializeRequest([span]);
    if (request === undefined) throw new Error(`span ${span.spanContext().spanId} did not serialize`);
    return decoder.decode(request);
  });
  await memory.shutdown();
  writeFileSync(path, `${lines.join('\n')}\n`);
}

// ---------------------------------------------------------------------------------------------
// The canonical twin

function agentEvents(agent: AgentScript, runId: string, events: Record<string, unknown>[]): void {
  events.push({
    type: 'run_start',
    run_id: runId,
    ts: isoAt(agent.start),
    config: { provider: PROVIDER, model: REQUEST_MODEL, agent: { name: agent.name }, service: SERVICE_NAME },
    task: userMessages(agent.task),
  });
  agent.modelCalls.forEach((call, index) => {
    const step = index + 1;
    events.push({ type: 'model_request', run_id: runId, step, ts: isoAt(call.start), model: REQUEST_MODEL, provider: PROVIDER });
    events.push({
      type: 'model_response',
      run_id: runId,
      step,
      ts: isoAt(call.end),
      finish_reason: finishReasonOf(call),
      ...(call.text !== undefined ? { text: call.text } : {}),
      ...(call.calls.length > 0 ? { tool_calls: call.calls.map((tool) => ({ call_id: tool.callId, name: tool.name, arguments: tool.arguments })) } : {}),
      usage: { input_tokens: call.inputTokens, output_tokens: call.outputTokens },
      latency_ms: call.end - call.start,
      response_id: call.responseId,
      model: RESPONSE_MODEL,
      provider: PROVIDER,
    });
    for (const tool of call.calls) {
      const execution = tool.execution;
      if (execution === undefined) continue;
      const common = { run_id: runId, step, call_id: tool.callId, name: tool.name };
      events.push({ type: 'tool_call_start', ...common, ts: isoAt(execution.start), arguments: JSON.stringify(tool.arguments) });
      const childRunId = execution.subAgent !== undefined ? `${TRACE_ID}/${execution.subAgent.spanId}` : undefined;
      if (execution.subAgent !== undefined) agentEvents(execution.subAgent, childRunId!, events);
      events.push({
        type: 'tool_result',
        ...common,
        ts: isoAt(execution.end),
        status: 'ok',
        output: JSON.stringify(execution.result),
        latency_ms: execution.end - execution.start,
        ...(childRunId !== undefined ? { child_run_id: childRunId } : {}),
      });
    }
  });
  const stop = agent.budgetStop;
  events.push({
    type: 'run_end',
    run_id: runId,
    ts: isoAt(agent.end),
    ...(stop !== undefined
      ? { status: 'budget_exceeded', limit: stop.limit, reason: `${stop.errorType}: ${stop.message}` }
      : { status: 'succeeded', output: agent.answer }),
  });
}

/**
 * The same run as canonical JSONL lines, in the order a loop would log it: the runs the OTel
 * adapter finds (the root agent's run is the trace id, the sub-agent's `<trace id>/<span id>`),
 * the same call ids, tool names, steps and token usage; the sub-agent's run named by the result
 * of the call that started it (`child_run_id`).
 */
export function genAiAgentRunCanonical(): string[] {
  const events: Record<string, unknown>[] = [];
  agentEvents(tripPlanner, genAiAgentRunIds.rootRunId, events);
  return events.map((event) => JSON.stringify(event));
}
