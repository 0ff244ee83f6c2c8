/**
 * A trace's runs as OpenTelemetry GenAI spans (semantic conventions pinned in
 * shared/otel/genAiRegistry.ts; docs/otlp.md, "Exporting to OpenTelemetry"): one OTLP trace per run
 * tree, an `invoke_agent` span per run, a `chat` span per model response, an `execute_tool` span per
 * tool call, a sub-agent's run under the `execute_tool` span of the call that started it, and each
 * finding as a `loopscope.finding` span event. What the conventions have no words for is said in
 * `loopscope.*` attributes (engine/adapters/otel/loopscopeAttributes.ts), which the `otel-otlp`
 * adapter reads back, so an exported trace read again has the same runs, calls, results and findings.
 *
 * Times come from the events: each event's time, kept strictly increasing in the run's order (a
 * time equal to or before the previous event's is moved 1 µs after it; an event without a time is
 * 1 ms after the previous one, and a run that starts without times starts 1 ms per event before its
 * first time, under its parent call, or at 2000-01-01T00:00:00Z). Ids are hashes of what names a
 * span in its trace file, never of a path or a clock, so an export is the same bytes every time.
 */
import { createHash } from 'node:crypto';
import { wellKnownProviderNames } from '../../shared/otel/genAiRegistry';
import type { ReportFinding } from '../../shared/report';
import { apiErrorFacts, type ApiError } from '../../shared/trace/canonicalEvents';
import { isPausedStatus, normalizeTerminalStatus } from '../../shared/trace/runStatus';
import { isResponseEvent, type AdaptedEvent, type EventListSqlRow, type WaterfallCallSqlRow } from '../engine';
import { loopscopeAttributes } from '../../shared/otel/loopscopeAttributes';

/** An OTLP/JSON `AnyValue`: `{}` is null. */
export type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: AnyValue[] } }
  | { kvlistValue: { values: KeyValue[] } }
  | Record<string, never>;

export interface KeyValue {
  key: string;
  value: AnyValue;
}

export interface OtlpSpanEvent {
  timeUnixNano: string;
  name: string;
  attributes: KeyValue[];
}

/** OTLP span kinds (opentelemetry-proto trace.proto `SpanKind`). */
const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_CLIENT = 3;
/** OTLP status codes (`Status.StatusCode`). */
const STATUS_UNSET = 0;
const STATUS_OK = 1;
const STATUS_ERROR = 2;

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  events: OtlpSpanEvent[];
  status: { code: number; message?: string };
}

/** One run of a trace, with what its spans are made of. */
export interface ExportRun {
  /** Names the run in its trace file: the source's position among the trace's files and the run id. */
  key: string;
  runId: string;
  status: string;
  statusRaw: string;
  endLimit: string | null;
  config: Record<string, unknown>;
  budgets: unknown;
  /** The run's events in its order. */
  events: EventListSqlRow[];
  /** The calls its responses issued, with how each was answered. */
  calls: WaterfallCallSqlRow[];
  /** The events' content, by event id (otlpExportContent.ts). */
  contents: Map<number, AdaptedEvent>;
  findings: ReportFinding[];
  /** Runs this one started, with the call that started each (null: none names it). */
  children: { run: ExportRun; callId: string | null }[];
}

export interface SpanOptions {
  /** Export message and tool content (already redacted), and the loop's own descriptions of errors. */
  content: boolean;
}

/** Runs without any time start here: 2000-01-01T00:00:00Z, in microseconds. */
export const SYNTHETIC_EPOCH_MICROS = Date.UTC(2000, 0, 1) * 1000;
/** The gap given to an event without a time after the previous one. */
const SYNTHETIC_STEP_MICROS = 1000;

function hexHash(text: string, hexChars: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, hexChars);
}

/** A trace id (16 bytes) from what names the trace in its file. */
export function traceIdOf(identity: string): string {
  return hexHash(`trace\u0000${identity}`, 32);
}

function spanIdOf(traceId: string, name: string): string {
  return hexHash(`span\u0000${traceId}\u0000${name}`, 16);
}

function nanos(micros: number): string {
  return `${Math.round(micros)}000`;
}

/** A JSON value as an OTLP AnyValue: structure stays structure (the conventions' `any` attributes). */
export function anyValue(value: unknown): AnyValue {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isSafeInteger(value) ? { intValue: String(value) } : Number.isFinite(value) ? { doubleValue: value } : {};
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  if (typeof value === 'object' && value !== null) {
    return { kvlistValue: { values: Object.entries(value).map(([key, item]) => ({ key, value: anyValue(item) })) } };
  }
  return {};
}

/** Attributes in the order given, those without a value left out. */
function attributes(entries: readonly (readonly [string, unknown])[]): KeyValue[] {
  return entries.filter(([, value]) => value !== undefined && value !== null).map(([key, value]) => ({ key, value: anyValue(value) }));
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Provider spellings of traces, as the conventions' well-known `gen_ai.provider.name` values. */
const providerSpellings: Readonly<Record<string, string>> = {
  google: 'gcp.gemini',
  gemini: 'gcp.gemini',
  google_genai: 'gcp.gemini',
  vertex: 'gcp.vertex_ai',
  vertex_ai: 'gcp.vertex_ai',
  vertexai: 'gcp.vertex_ai',
  bedrock: 'aws.bedrock',
  aws_bedrock: 'aws.bedrock',
  azure: 'azure.ai.openai',
  azure_openai: 'azure.ai.openai',
  mistral: 'mistral_ai',
  mistralai: 'mistral_ai',
  xai: 'x_ai',
  watsonx: 'ibm.watsonx.ai',
};

/** `gen_ai.provider.name`: a well-known value where the trace's provider is one, else as the trace names it. */
export function providerName(provider: string | undefined): string | undefined {
  if (provider === undefined) return undefined;
  const folded = provider
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if (wellKnownProviderNames.includes(folded)) return folded;
  return providerSpellings[folded] ?? provider;
}

/** Each event's time in microseconds: its own, kept strictly increasing in the run's order (see the header). */
function eventTimes(events: readonly EventListSqlRow[], base: number): number[] {
  const parsed = events.map((event) => {
    const ms = event.ts === null ? Number.NaN : Date.parse(event.ts);
    return Number.isFinite(ms) ? ms * 1000 : null;
  });
  const firstKnown = parsed.findIndex((time) => time !== null);
  const times: number[] = [];
  parsed.forEach((time, index) => {
    const previous = times.at(-1);
    if (previous === undefined) {
      times.push(time ?? (firstKnown >= 0 ? parsed[firstKnown]! - (firstKnown - index) * SYNTHETIC_STEP_MICROS : base));
      return;
    }
    times.push(time === null ? previous + SYNTHETIC_STEP_MICROS : Math.max(time, previous + 1));
  });
  return times;
}

/** A GenAI input message (`{role, parts}`) from a request message as the trace logged it (OpenAI or Anthropic shaped, or text). */
function genAiMessage(message: unknown): Record<string, unknown> {
  if (typeof message === 'string') return { role: 'user', parts: [{ type: 'text', content: message }] };
  const fields = record(message);
  const role = text(fields['role']) ?? 'user';
  const parts: unknown[] = [];
  const content = fields['content'];
  if (role === 'tool' && fields['tool_call_id'] !== undefined) {
    parts.push({ type: 'tool_call_response', id: fields['tool_call_id'], response: content ?? null });
  } else if (typeof content === 'string') {
    parts.push({ type: 'text', content });
  } else if (Array.isArray(content)) {
    for (const block of content) parts.push(genAiPart(block));
  } else if (content !== undefined && content !== null) {
    parts.push({ type: 'text', content: JSON.stringify(content) });
  }
  for (const call of Array.isArray(fields['tool_calls']) ? fields['tool_calls'] : []) {
    const callFields = record(call);
    const fn = record(callFields['function']);
    parts.push({
      type: 'tool_call',
      id: callFields['id'] ?? null,
      name: fn['name'] ?? callFields['name'] ?? '',
      arguments: fn['arguments'] ?? callFields['arguments'] ?? null,
    });
  }
  return { role, parts };
}

function genAiPart(block: unknown): unknown {
  if (typeof block === 'string') return { type: 'text', content: block };
  const fields = record(block);
  if ((fields['type'] === 'text' || fields['type'] === 'input_text' || fields['type'] === 'output_text') && typeof fields['text'] === 'string') {
    return { type: 'text', content: fields['text'] };
  }
  if (fields['type'] === 'tool_use') return { type: 'tool_call', id: fields['id'] ?? null, name: fields['name'] ?? '', arguments: fields['input'] ?? null };
  if (fields['type'] === 'tool_result') return { type: 'tool_call_response', id: fields['tool_use_id'] ?? null, response: fields['content'] ?? null };
  return { type: text(fields['type']) ?? 'unknown', content: block };
}

function systemInstructions(system: unknown): unknown[] | undefined {
  if (system === undefined || system === null) return undefined;
  if (typeof system === 'string') return [{ type: 'text', content: system }];
  return Array.isArray(system) ? system.map(genAiPart) : [genAiPart(system)];
}

/** A tool result's error as the loop wrote it: its code and message. */
function resultError(event: AdaptedEvent | undefined): { code?: string; message?: string } {
  if (event?.type !== 'tool_result' || event.error === undefined) return {};
  if (typeof event.error === 'string') return { message: event.error };
  const error = record(event.error);
  return { ...(text(error['code']) ? { code: text(error['code'])! } : {}), ...(text(error['message']) ? { message: text(error['message'])! } : {}) };
}

interface ToolDraft {
  callId: string;
  name: string | null;
  startIndex: number | null;
  /** The result's or not-executed mark's event index. */
  endIndex: number | null;
  notExecuted: boolean;
  issued: WaterfallCallSqlRow | null;
  spanId: string;
  start: number;
  end: number;
}

/** The run's spans, its children's after them; `parentSpanId` null for a trace's root run. */
export function runSpans(run: ExportRun, traceId: string, parentSpanId: string | null, base: number, options: SpanOptions): OtlpSpan[] {
  const { events, contents } = run;
  const times = eventTimes(events, base);
  const runSpanId = spanIdOf(traceId, `${run.key}#run`);
  const indexOfEvent = new Map(events.map((event, index) => [event.id, index]));
  const lastTime = times.at(-1) ?? base;
  const status = run.status;
  const ended = status !== 'unterminated' && status !== 'running';
  const endIndex = ended ? terminalEventIndex(run) : -1;
  const runEnd = endIndex >= 0 ? times[endIndex]! : lastTime;
  const spans: OtlpSpan[] = [];

  // Model calls: a span per response, from its request (or its latency) to its response.
  const chatSpanOfStep = new Map<number, OtlpSpan>();
  const chatSpanOfEvent = new Map<number, OtlpSpan>();
  let requestIndex: number | null = null;
  events.forEach((event, index) => {
    if (event.type === 'model_request') requestIndex = index;
    if (!isResponseEvent(event)) return;
    const latency = (event.latency_ms ?? 0) * 1000;
    const previous = index > 0 ? times[index - 1]! + 1 : times[index]! - latency;
    const start = requestIndex !== null ? times[requestIndex]! : Math.min(times[index]!, Math.max(previous, times[index]! - latency));
    const request = requestIndex !== null ? contents.get(events[requestIndex]!.id) : undefined;
    requestIndex = null;
    const span = chatSpan(run, event, request, traceId, runSpanId, start, times[index]!, index, options);
    spans.push(span);
    chatSpanOfEvent.set(event.id, span);
    if (event.step !== null && !chatSpanOfStep.has(event.step)) chatSpanOfStep.set(event.step, span);
  });

  // Tool calls: a span per call, from its start (or its issuing response) to its result.
  const drafts: ToolDraft[] = [];
  const open = new Map<string, ToolDraft[]>();
  const newDraft = (callId: string, name: string | null, startIndex: number | null): ToolDraft => {
    const draft: ToolDraft = { callId, name, startIndex, endIndex: null, notExecuted: false, issued: null, spanId: '', start: 0, end: 0 };
    drafts.push(draft);
    return draft;
  };
  events.forEach((event, index) => {
    if (event.call_id === null) return;
    if (event.type === 'tool_call_start') {
      const draft = newDraft(event.call_id, event.name, index);
      open.set(event.call_id, [...(open.get(event.call_id) ?? []), draft]);
    } else if (event.type === 'tool_result' || event.type === 'tool_call_not_executed') {
      const draft = open.get(event.call_id)?.shift() ?? newDraft(event.call_id, event.name, null);
      draft.endIndex = index;
      draft.notExecuted = event.type === 'tool_call_not_executed';
      draft.name ??= event.name;
    }
  });
  for (const call of run.calls) {
    const draft = drafts.find((candidate) => candidate.issued === null && candidate.callId === call.call_id);
    if (draft !== undefined) draft.issued = call;
    else if (call.state === 'dangling' || call.state === 'pending') newDraft(call.call_id, call.name, null).issued = call;
  }
  drafts.sort((a, b) => firstIndex(a, indexOfEvent) - firstIndex(b, indexOfEvent));
  for (const draft of drafts) {
    const issuerIndex = draft.issued === null ? undefined : indexOfEvent.get(draft.issued.event_id);
    const issuerTime = issuerIndex === undefined ? null : times[issuerIndex]!;
    if (draft.startIndex !== null) draft.start = times[draft.startIndex]!;
    else if (draft.endIndex !== null) {
      // A call logged by its result alone ran for its latency before it, but never before it was issued
      // nor, unless it has no latency, later than issued when another response came between: a
      // reader without content credits a call to the last response started before the call.
      const endTime = times[draft.endIndex]!;
      const latency = events[draft.endIndex]!.latency_ms;
      const responseBetween = issuerIndex !== undefined && events.slice(issuerIndex + 1, draft.endIndex).some(isResponseEvent);
      const lower = issuerTime ?? (draft.endIndex > 0 ? times[draft.endIndex - 1]! : endTime);
      draft.start =
        issuerTime !== null && (latency === null || responseBetween) ? issuerTime : Math.min(endTime, Math.max(lower, endTime - (latency ?? 0) * 1000));
    } else draft.start = issuerTime ?? runEnd;
  }
  // A call whose start was not logged starts after the calls its response issued before it: a reader
  // without content lists a response's calls in their spans' start order.
  const lastStartOfIssuer = new Map<number, number>();
  for (const call of run.calls) {
    const draft = drafts.find((candidate) => candidate.issued === call);
    if (draft === undefined) continue;
    const before = lastStartOfIssuer.get(call.event_id);
    if (draft.startIndex === null && before !== undefined) draft.start = Math.max(draft.start, before + 1);
    lastStartOfIssuer.set(call.event_id, draft.start);
  }
  drafts.forEach((draft, position) => {
    draft.end = draft.endIndex !== null ? Math.max(draft.start, times[draft.endIndex]!) : Math.max(draft.start, runEnd);
    draft.spanId = spanIdOf(traceId, `${run.key}#call#${position}#${draft.callId}`);
    spans.push(toolSpan(run, draft, traceId, runSpanId, options));
  });

  // Findings, on the span they concern: their call's, else their step's model call, else the run's.
  const runSpan = agentSpan(run, traceId, runSpanId, parentSpanId, times[0] ?? base, runEnd, ended, options);
  const spanById = new Map(spans.map((span) => [span.spanId, span]));
  const timeOfLine = new Map<number, number>();
  events.forEach((event, index) => {
    if (!timeOfLine.has(event.line)) timeOfLine.set(event.line, times[index]!);
  });
  for (const finding of run.findings) {
    const callSpan = finding.call_id === null ? undefined : drafts.find((draft) => draft.callId === finding.call_id);
    const target =
      (callSpan !== undefined ? spanById.get(callSpan.spanId) : undefined) ?? (finding.step !== null ? chatSpanOfStep.get(finding.step) : undefined) ?? runSpan;
    const time = (finding.line !== null ? timeOfLine.get(finding.line) : undefined) ?? Number(target.startTimeUnixNano.slice(0, -3));
    target.events.push({
      timeUnixNano: nanos(time),
      name: loopscopeAttributes.findingEvent,
      attributes: attributes([
        [loopscopeAttributes.findingKind, finding.kind],
        [loopscopeAttributes.findingSeverity, finding.severity],
        [loopscopeAttributes.findingMessage, finding.message],
        [loopscopeAttributes.findingStep, finding.step],
        [loopscopeAttributes.findingCallId, finding.call_id],
        [loopscopeAttributes.findingLine, finding.line],
        [loopscopeAttributes.findingDetails, options.content && finding.details !== undefined ? JSON.stringify(finding.details) : undefined],
      ]),
    });
  }

  const childSpans = run.children.flatMap(({ run: child, callId }) => {
    const call = callId === null ? undefined : drafts.find((draft) => draft.callId === callId);
    return runSpans(child, traceId, call?.spanId ?? runSpanId, call?.start ?? times[0] ?? base, options);
  });
  return [runSpan, ...spans, ...childSpans];
}

function firstIndex(draft: ToolDraft, indexOfEvent: Map<number, number>): number {
  return draft.startIndex ?? (draft.issued !== null ? (indexOfEvent.get(draft.issued.event_id) ?? 0) + 0.5 : (draft.endIndex ?? 0));
}

/** The event the run's status came from: its first terminal `run_end`, or the pause it is still in (docs/semantics.md §2). */
function terminalEventIndex(run: ExportRun): number {
  const ends = run.events.map((event, index) => ({ event, index })).filter(({ event }) => event.type === 'run_end');
  if (isPausedStatus(run.status as Parameters<typeof isPausedStatus>[0])) return ends.at(-1)?.index ?? -1;
  const terminal = ends.find(({ event }) => {
    const content = run.contents.get(event.id);
    const written = content?.type === 'run_end' ? normalizeTerminalStatus(content).status : null;
    return written === null || !isPausedStatus(written);
  });
  return terminal?.index ?? ends.at(-1)?.index ?? -1;
}

/** Statuses that say the invocation did not do its work: the span's status is ERROR, `error.type` the status. */
const failedStatuses = new Set(['failed', 'protocol_error', 'budget_exceeded', 'cancelled', 'refused']);

function agentSpan(
  run: ExportRun,
  traceId: string,
  spanId: string,
  parentSpanId: string | null,
  start: number,
  end: number,
  ended: boolean,
  options: SpanOptions,
): OtlpSpan {
  const config = run.config;
  const agent = record(config['agent']);
  const agentName = text(agent['name']) ?? text(config['agent']);
  const firstRequest = run.events.find((event) => event.type === 'model_request');
  const task = run.events.find((event) => event.type === 'run_start');
  const taskContent = task === undefined ? undefined : run.contents.get(task.id);
  const taskMessages = taskContent?.type === 'run_start' && taskContent.task !== undefined ? taskContent.task : undefined;
  const failed = failedStatuses.has(run.status);
  const statusCode = !ended ? STATUS_UNSET : failed ? STATUS_ERROR : run.status === 'succeeded' || run.status === 'model_finished' ? STATUS_OK : STATUS_UNSET;
  return {
    traceId,
    spanId,
    ...(parentSpanId !== null ? { parentSpanId } : {}),
    name: agentName !== undefined ? `invoke_agent ${agentName}` : 'invoke_agent',
    kind: SPAN_KIND_INTERNAL,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(Math.max(start, end)),
    attributes: attributes([
      ['gen_ai.operation.name', 'invoke_agent'],
      ['gen_ai.provider.name', providerName(text(config['provider']))],
      ['gen_ai.request.model', text(config['model']) ?? firstRequest?.model ?? undefined],
      ['gen_ai.agent.id', text(agent['id'])],
      ['gen_ai.agent.name', agentName],
      ['gen_ai.agent.description', text(agent['description'])],
      ['gen_ai.conversation.id', text(config['conversation_id']) ?? text(config['session_id'])],
      [
        'gen_ai.input.messages',
        options.content && taskMessages !== undefined ? (Array.isArray(taskMessages) ? taskMessages : [taskMessages]).map(genAiMessage) : undefined,
      ],
      ['error.type', ended && failed ? run.status : undefined],
      [loopscopeAttributes.runId, run.runId],
      [loopscopeAttributes.runStatus, ended ? run.status : 'unterminated'],
      [loopscopeAttributes.runStatusRaw, run.statusRaw !== '' ? run.statusRaw : undefined],
      [loopscopeAttributes.runLimit, run.status === 'budget_exceeded' ? (run.endLimit ?? undefined) : undefined],
      [loopscopeAttributes.runBudgets, run.budgets !== null && run.budgets !== undefined ? JSON.stringify(run.budgets) : undefined],
    ]),
    events: [],
    status: { code: statusCode },
  };
}

function chatSpan(
  run: ExportRun,
  event: EventListSqlRow,
  request: AdaptedEvent | undefined,
  traceId: string,
  parentSpanId: string,
  start: number,
  end: number,
  index: number,
  options: SpanOptions,
): OtlpSpan {
  const content = run.contents.get(event.id);
  const response = content?.type === 'model_response' ? content : undefined;
  const modelRequest = request?.type === 'model_request' ? request : undefined;
  const requestModel = modelRequest?.model ?? text(run.config['model']) ?? event.model ?? undefined;
  const apiError = response?.api_error !== undefined ? apiErrorFacts(response.api_error as ApiError) : null;
  const issued = run.calls.filter((call) => call.event_id === event.id);
  const outputMessages = options.content
    ? [
        {
          role: 'assistant',
          parts: [
            ...(response?.text ? [{ type: 'text', content: response.text }] : []),
            ...(response?.refusal ? [{ type: 'text', content: response.refusal }] : []),
            ...issued.map((call) => ({ type: 'tool_call', id: call.call_id, name: call.name, arguments: callArguments(run, call) ?? null })),
          ],
          ...(event.finish_reason !== null ? { finish_reason: event.finish_reason } : {}),
        },
      ]
    : undefined;
  return {
    traceId,
    spanId: spanIdOf(traceId, `${run.key}#response#${index}`),
    parentSpanId,
    name: requestModel !== undefined ? `chat ${requestModel}` : 'chat',
    kind: SPAN_KIND_CLIENT,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(end),
    attributes: attributes([
      ['gen_ai.operation.name', 'chat'],
      ['gen_ai.provider.name', providerName(event.provider ?? modelRequest?.provider ?? text(run.config['provider']))],
      ['gen_ai.request.model', requestModel],
      ['gen_ai.response.model', event.model ?? undefined],
      ['gen_ai.response.id', response?.response_id],
      ['gen_ai.response.finish_reasons', event.finish_reason !== null ? [event.finish_reason] : undefined],
      ['gen_ai.usage.input_tokens', event.input_tokens],
      ['gen_ai.usage.output_tokens', event.output_tokens],
      ['gen_ai.usage.cache_read.input_tokens', event.cached_input_tokens],
      ['gen_ai.usage.cache_creation.input_tokens', event.cache_write_tokens],
      ['gen_ai.usage.reasoning.output_tokens', event.reasoning_tokens],
      [loopscopeAttributes.usageCostUsd, event.cost_usd],
      ['gen_ai.system_instructions', options.content ? systemInstructions(modelRequest?.system) : undefined],
      ['gen_ai.input.messages', options.content && modelRequest?.messages !== undefined ? modelRequest.messages.map(genAiMessage) : undefined],
      ['gen_ai.tool.definitions', options.content ? modelRequest?.tools : undefined],
      ['gen_ai.output.messages', outputMessages],
      ['error.type', apiError !== null ? (apiError.type ?? (apiError.status !== null ? String(apiError.status) : '_OTHER')) : undefined],
      ['http.response.status_code', apiError?.status ?? undefined],
      [loopscopeAttributes.responseOutcome, event.outcome ?? undefined],
      [loopscopeAttributes.responseIncompleteReason, options.content ? response?.incomplete_reason : undefined],
    ]),
    events: [],
    status:
      apiError !== null
        ? { code: STATUS_ERROR, ...(options.content && apiError.message !== null ? { message: apiError.message } : {}) }
        : { code: STATUS_UNSET },
  };
}

/** A call's arguments: as its start logged them, else as the response that issued it did. */
function callArguments(run: ExportRun, call: WaterfallCallSqlRow): unknown {
  const start = run.events.find((event) => event.type === 'tool_call_start' && event.call_id === call.call_id);
  const started = start === undefined ? undefined : run.contents.get(start.id);
  if (started?.type === 'tool_call_start' && started.arguments !== undefined) return started.arguments;
  const issuer = run.contents.get(call.event_id);
  if (issuer?.type !== 'model_response') return undefined;
  return issuer.tool_calls?.find((issued) => String(issued.call_id) === call.call_id)?.arguments;
}

function toolSpan(run: ExportRun, draft: ToolDraft, traceId: string, parentSpanId: string, options: SpanOptions): OtlpSpan {
  const endEvent = draft.endIndex === null ? undefined : run.events[draft.endIndex]!;
  const startContent = draft.startIndex === null ? undefined : run.contents.get(run.events[draft.startIndex]!.id);
  const endContent = endEvent === undefined ? undefined : run.contents.get(endEvent.id);
  const failed = endEvent?.type === 'tool_result' && endEvent.result_ok === 0;
  const error = failed ? resultError(endContent) : {};
  const name = draft.name ?? draft.issued?.name ?? undefined;
  const startArguments = startContent?.type === 'tool_call_start' ? startContent.arguments : undefined;
  const args = startArguments ?? (draft.issued !== null ? callArguments(run, draft.issued) : undefined);
  const output = endContent?.type === 'tool_result' ? endContent.output : undefined;
  const skipReason = endContent?.type === 'tool_call_not_executed' ? endContent.reason : undefined;
  return {
    traceId,
    spanId: draft.spanId,
    parentSpanId,
    name: name !== undefined && name !== '' ? `execute_tool ${name}` : 'execute_tool',
    kind: SPAN_KIND_INTERNAL,
    startTimeUnixNano: nanos(draft.start),
    endTimeUnixNano: nanos(draft.end),
    attributes: attributes([
      ['gen_ai.operation.name', 'execute_tool'],
      ['gen_ai.tool.name', name],
      ['gen_ai.tool.call.id', draft.callId],
      // A call a model response issued is a function the loop ran for it (the conventions' `function` tool).
      ['gen_ai.tool.type', draft.issued !== null ? 'function' : undefined],
      ['gen_ai.tool.call.arguments', options.content ? args : undefined],
      ['gen_ai.tool.call.result', options.content ? output : undefined],
      ['error.type', failed ? (error.code ?? endEvent.error_code ?? '_OTHER') : undefined],
      [loopscopeAttributes.callStarted, draft.startIndex === null ? false : undefined],
      [loopscopeAttributes.callUnanswered, draft.endIndex === null ? true : undefined],
      [loopscopeAttributes.callIssued, draft.issued === null ? false : undefined],
      [loopscopeAttributes.callNotExecuted, draft.notExecuted ? true : undefined],
      [loopscopeAttributes.callSkipReason, options.content ? skipReason : undefined],
    ]),
    events: [],
    status: failed ? { code: STATUS_ERROR, ...(options.content && error.message !== undefined ? { message: error.message } : {}) } : { code: STATUS_UNSET },
  };
}
