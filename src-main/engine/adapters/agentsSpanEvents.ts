/**
 * Agents-SDK-style span events (RAAF / openai-agents-ruby and alike): one line per span start or
 * end, `{event: "start"|"end", timestamp, span: {span_id, trace_id, parent_id, name, kind,
 * start_time, end_time, attributes, events, status}}`. A trace is a run; agent spans start and end
 * it, model spans (`llm`, `generation`, `response`) are its model calls, tool spans (`tool`,
 * `function`) its tool calls and results. See docs/formats/agents-span-events.md.
 */
import type { EventOf, ToolCall, Usage } from '../../../shared/trace/canonicalEvents';
import { isRecord, type Emit, type DetectionSample, type FormatAdapter, type FormatMapper, type LineRef, type MappedEvent } from './formatAdapter';
import { defined, modelRequest, modelResponse, runEnd, runStart, toolCallStart, toolResult, unknownEvent } from './kit/events';
import { nonEmptyText } from './kit/jsonValues';
import { emitOrHold, HeldEvents } from './kit/stepBuilder';

type Attributes = Record<string, unknown>;
type Kind = 'agent' | 'model' | 'tool' | 'other';

/** Span keys seen recently, so a span exported twice is recognised. */
const SEEN_SPANS = 4096;
/** Step counters of traces already ended, in case more of their spans come later. */
const ENDED_TRACES = 10000;

interface Span {
  spanId: string;
  traceId: string;
  parentId: string | null;
  name: string;
  kind: Kind;
  kindRaw: string;
  attributes: Attributes;
  events: unknown[];
  status: string | null;
  /** The span's own `error` object ({message, data}), as the OpenAI Agents SDK writes it. */
  errorMessage: string | undefined;
  startTime: string | undefined;
  endTime: string | undefined;
  durationMs: number | undefined;
}

interface SpanLine {
  event: 'start' | 'end';
  timestamp: string | undefined;
  span: Span;
}

interface ToolCallRef {
  callId: string;
  step: number | undefined;
  /** The call waits in the pending response: its events are emitted after it. */
  pending: boolean;
}

/**
 * A model call that ended without naming its tool calls: its tool spans follow it, and name them.
 * The events of those tool spans are held behind it; the trace's other spans are not its calls
 * and are emitted as they come.
 */
interface PendingResponse {
  event: EventOf<'model_response'>;
  typeRaw: string;
  line: LineRef;
  calls: ToolCall[];
  held: HeldEvents;
}

interface OpenSpan {
  kind: Kind;
  step: number | undefined;
  requestEmitted: boolean;
  startLine: LineRef;
  startTs: string | undefined;
  name: string;
  model: string | undefined;
}

interface TraceState {
  runId: string;
  nextStep: number;
  started: boolean;
  openSpans: Map<string, OpenSpan>;
  openAgents: number;
  pending: PendingResponse | null;
  /** Calls a model span named (with ids) that no tool span has claimed yet. */
  unclaimed: { callId: string; name: string; step: number | undefined }[];
  callOfSpan: Map<string, ToolCallRef>;
  /** The run_end the trace ends with, unless more of it follows. */
  candidateEnd: MappedEvent | null;
  lastStep: number | undefined;
}

function first(attributes: Attributes, keys: readonly string[]): unknown {
  for (const key of keys) {
    const value = attributes[key];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

function kindOf(raw: string): Kind {
  const kind = raw.toLowerCase();
  if (kind === 'agent') return 'agent';
  if (kind === 'llm' || kind === 'generation' || kind === 'response' || kind === 'model' || kind === 'chat') return 'model';
  if (kind === 'tool' || kind === 'function') return 'tool';
  return 'other';
}

function statusOf(status: unknown): string | null {
  if (typeof status === 'string') return status;
  if (isRecord(status)) {
    const code = status['status_code'] ?? status['code'];
    if (typeof code === 'string') return code;
  }
  return null;
}

function isoOf(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const millis = typeof value === 'number' ? (value < 1e11 ? value * 1000 : value) : Date.parse(value);
  if (!Number.isFinite(millis)) return undefined;
  return new Date(millis).toISOString();
}

function parseLine(value: unknown): SpanLine | { reason: string } | { other: string } {
  if (!isRecord(value)) return { reason: `not a span event: the line is ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}` };
  const span = value['span'];
  if (!isRecord(span)) return { reason: 'not a span event: the object has no "span" object' };
  const spanId = span['span_id'];
  const traceId = span['trace_id'];
  if (typeof spanId !== 'string' || spanId === '' || typeof traceId !== 'string' || traceId === '') {
    return { reason: 'span event without a span_id or trace_id: it cannot be placed in a trace' };
  }
  const event = value['event'];
  if (event !== 'start' && event !== 'end') return { other: typeof event === 'string' ? event : 'span event' };
  const kindRaw = typeof span['kind'] === 'string' ? span['kind'] : '';
  const attributes = isRecord(span['attributes']) ? span['attributes'] : {};
  const duration = span['duration_ms'] ?? attributes['duration_ms'];
  return {
    event,
    timestamp: isoOf(value['timestamp']),
    span: {
      spanId,
      traceId,
      parentId: typeof span['parent_id'] === 'string' ? span['parent_id'] : null,
      name: typeof span['name'] === 'string' ? span['name'] : '',
      kind: kindOf(kindRaw),
      kindRaw: kindRaw || 'span',
      attributes,
      events: Array.isArray(span['events']) ? span['events'] : [],
      status: statusOf(span['status']) ?? (isRecord(span['error']) ? 'error' : null),
      errorMessage: isRecord(span['error']) ? nonEmptyText(span['error']['message']) : undefined,
      startTime: isoOf(span['start_time']),
      endTime: isoOf(span['end_time']),
      durationMs: typeof duration === 'number' && duration >= 0 ? duration : undefined,
    },
  };
}

/** The first `exception` event of the span: its type and message. */
function exceptionOf(span: Span): { type?: string; message?: string } | null {
  for (const event of span.events) {
    if (!isRecord(event) || event['name'] !== 'exception') continue;
    const attributes = isRecord(event['attributes']) ? event['attributes'] : {};
    return {
      ...(nonEmptyText(attributes['exception.type']) ? { type: nonEmptyText(attributes['exception.type'])! } : {}),
      ...(nonEmptyText(attributes['exception.message']) ? { message: nonEmptyText(attributes['exception.message'])! } : {}),
    };
  }
  return null;
}

/** The HTTP status a failed call's span records (`http.response.status_code`, or the older `http.status_code`). */
function httpStatusOf(attributes: Attributes): { status?: number } {
  const status = Number(first(attributes, ['http.response.status_code', 'http.status_code']));
  return Number.isInteger(status) && status > 0 ? { status } : {};
}

function failureText(span: Span): string | undefined {
  return nonEmptyText(span.attributes['status.description']) ?? exceptionOf(span)?.message ?? span.errorMessage;
}

function isError(span: Span): boolean {
  return span.status !== null && span.status.toLowerCase() === 'error';
}

function count(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}

function usageOf(attributes: Attributes): Usage | undefined {
  const nested = isRecord(attributes['usage']) ? attributes['usage'] : {};
  const input = count(
    first(attributes, ['llm.usage.prompt_tokens', 'llm.usage.input_tokens', 'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens']) ??
      nested['input_tokens'] ??
      nested['prompt_tokens'],
  );
  const output = count(
    first(attributes, ['llm.usage.completion_tokens', 'llm.usage.output_tokens', 'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens']) ??
      nested['output_tokens'] ??
      nested['completion_tokens'],
  );
  const total = count(first(attributes, ['llm.usage.total_tokens', 'gen_ai.usage.total_tokens']) ?? nested['total_tokens']);
  const cached = count(first(attributes, ['llm.usage.cached_tokens', 'llm.usage.cache_read_input_tokens', 'gen_ai.usage.cached_tokens']));
  const cacheWrites = count(
    first(attributes, ['llm.usage.cache_creation_input_tokens', 'gen_ai.usage.cache_creation.input_tokens', 'gen_ai.usage.cache_creation_input_tokens']),
  );
  const reasoning = count(first(attributes, ['llm.usage.reasoning_tokens', 'gen_ai.usage.reasoning.output_tokens', 'gen_ai.usage.reasoning_tokens']));
  if (input === undefined && output === undefined && total === undefined) return undefined;
  return {
    ...(input !== undefined ? { input_tokens: input } : {}),
    ...(output !== undefined ? { output_tokens: output } : {}),
    ...(cached !== undefined ? { cached_input_tokens: cached } : {}),
    ...(cacheWrites !== undefined ? { cache_write_tokens: cacheWrites } : {}),
    ...(reasoning !== undefined ? { reasoning_tokens: reasoning } : {}),
    ...(total !== undefined ? { total_tokens: total } : {}),
  };
}

/** The provider a model span names, if it names one. */
function providerOf(attributes: Attributes): string | undefined {
  return nonEmptyText(first(attributes, ['gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.vendor', 'llm.system']));
}

/** Tool calls the model span names itself (with ids), when the exporter records them. */
function namedToolCalls(attributes: Attributes): ToolCall[] | null {
  const raw = first(attributes, ['llm.response.tool_calls', 'gen_ai.response.tool_calls', 'llm.tool_calls', 'tool_calls']);
  if (!Array.isArray(raw)) return null;
  const calls: ToolCall[] = [];
  for (const item of raw) {
    if (!isRecord(item)) continue;
    const fn = isRecord(item['function']) ? item['function'] : {};
    const id = item['id'] ?? item['call_id'];
    const name = nonEmptyText(item['name']) ?? nonEmptyText(fn['name']);
    if ((typeof id !== 'string' && typeof id !== 'number') || name === undefined) continue;
    calls.push({ call_id: String(id), name, arguments: fn['arguments'] ?? item['arguments'] ?? item['input'] });
  }
  return calls;
}

function toolName(span: Span): string {
  const named = nonEmptyText(first(span.attributes, ['tool.name', 'function.name', 'gen_ai.tool.name', 'name']));
  return named ?? (span.name.replace(/^(tool|function)[.:]/, '') || span.name || '(unnamed)');
}

function toolArguments(attributes: Attributes): unknown {
  return first(attributes, ['tool.arguments', 'function.input', 'function.arguments', 'gen_ai.tool.call.arguments', 'input', 'arguments']);
}

function toolCallId(attributes: Attributes): string | undefined {
  const id = first(attributes, ['tool.call_id', 'tool.call.id', 'function.call_id', 'gen_ai.tool.call.id', 'call_id', 'tool_call_id']);
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

function typeRawOf(line: SpanLine): string {
  return `${line.event} ${line.span.kindRaw}`;
}

class SpanLog {
  private readonly traces = new Map<string, TraceState>();
  private readonly ended = new Map<string, number>();
  private readonly seen = new Set<string>();
  private lastTrace: string | null = null;

  map(line: SpanLine, ref: LineRef, emit: Emit): void {
    const { span } = line;
    if (this.lastTrace !== span.traceId) this.endIdleTraces(emit, span.traceId);
    this.lastTrace = span.traceId;
    const trace = this.traceFor(span.traceId);
    const key = `${line.event}:${span.spanId}`;
    if (this.seen.has(key) || (line.event === 'start' && this.seen.has(`end:${span.spanId}`))) {
      this.unknown(emit, trace, ref, `${typeRawOf(line)} (exported again)`, line.timestamp);
      return;
    }
    this.seen.add(key);
    if (this.seen.size > SEEN_SPANS) this.seen.delete(this.seen.values().next().value!);
    if (line.event === 'start') this.start(trace, line, ref, emit);
    else this.end(trace, line, ref, emit);
  }

  /** A line that is a span event of a kind Loopscope does not model. */
  other(value: Record<string, unknown>, what: string, ref: LineRef, emit: Emit): void {
    const span = value['span'] as Record<string, unknown>;
    const trace = this.traceFor(span['trace_id'] as string);
    this.unknown(emit, trace, ref, what, isoOf(value['timestamp']));
  }

  finish(emit: Emit): void {
    for (const trace of this.traces.values()) this.closeTrace(emit, trace, true);
    this.traces.clear();
  }

  private traceFor(traceId: string): TraceState {
    let trace = this.traces.get(traceId);
    if (trace === undefined) {
      const resumed = this.ended.get(traceId);
      trace = {
        runId: traceId,
        nextStep: resumed ?? 1,
        started: resumed !== undefined,
        openSpans: new Map(),
        openAgents: 0,
        pending: null,
        unclaimed: [],
        callOfSpan: new Map(),
        candidateEnd: null,
        lastStep: resumed !== undefined && resumed > 1 ? resumed - 1 : undefined,
      };
      this.traces.set(traceId, trace);
    }
    return trace;
  }

  /** A trace whose agent spans have all ended is over once another trace speaks (or the file ends). */
  private endIdleTraces(emit: Emit, except: string): void {
    for (const trace of [...this.traces.values()]) {
      if (trace.runId === except || trace.candidateEnd === null || trace.openAgents > 0) continue;
      this.closeTrace(emit, trace, false);
      this.traces.delete(trace.runId);
    }
  }

  private closeTrace(emit: Emit, trace: TraceState, atEof: boolean): void {
    this.flushPending(emit, trace);
    if (atEof) {
      // A model span that never ended is a model call that never returned.
      for (const [, open] of trace.openSpans) {
        if (open.kind !== 'model' || open.step === undefined) continue;
        const event = modelResponse({
          run_id: trace.runId,
          step: open.step,
          ts: open.startTs,
          outcome: 'incomplete',
          incomplete_reason: 'the model span never ended',
          model: open.model,
        });
        emit({ event, typeRaw: 'start (never ended)', line: open.startLine });
      }
    }
    if (trace.candidateEnd !== null && trace.openAgents === 0) emit(trace.candidateEnd);
    else if (trace.candidateEnd !== null) this.demote(emit, trace.candidateEnd, 'the trace did not end');
    trace.candidateEnd = null;
    this.ended.set(trace.runId, trace.nextStep);
    if (this.ended.size > ENDED_TRACES) this.ended.delete(this.ended.keys().next().value!);
  }

  /** An agent end that turned out not to end the trace: kept as an unknown event on its line. */
  private demote(emit: Emit, end: MappedEvent, why: string): void {
    const event = end.event;
    emit({
      event: unknownEvent(`${end.typeRaw} (${why})`, {
        run_id: event.run_id !== undefined ? String(event.run_id) : undefined,
        ts: typeof event.ts === 'string' ? event.ts : undefined,
      }),
      typeRaw: `${end.typeRaw} (${why})`,
      line: end.line,
    });
  }

  private unknown(emit: Emit, trace: TraceState, ref: LineRef, typeRaw: string, ts: string | undefined, step?: number): void {
    emit({
      event: unknownEvent(typeRaw, { run_id: trace.runId, step, ts }),
      typeRaw,
      line: ref,
    });
  }

  private flushPending(emit: Emit, trace: TraceState): void {
    const pending = trace.pending;
    if (pending === null) return;
    trace.pending = null;
    const event: EventOf<'model_response'> = pending.calls.length > 0 ? { ...pending.event, tool_calls: pending.calls } : pending.event;
    pending.held.emitAfter({ event, typeRaw: pending.typeRaw, line: pending.line }, emit);
    for (const ref of trace.callOfSpan.values()) ref.pending = false;
  }

  private runStart(trace: TraceState, line: SpanLine, ref: LineRef, emit: Emit): void {
    trace.started = true;
    const a = line.span.attributes;
    const model = nonEmptyText(first(a, ['agent.model', 'llm.model', 'model']));
    const maxTurns = count(first(a, ['agent.max_turns', 'max_turns']));
    const event = runStart({
      run_id: trace.runId,
      ts: line.span.startTime ?? line.timestamp,
      config: defined({ model, budgets: maxTurns !== undefined && maxTurns > 0 ? { max_turns: maxTurns } : undefined }),
      agent: nonEmptyText(a['agent.name']),
    });
    emit({ event, typeRaw: typeRawOf(line), line: ref });
  }

  private openModel(trace: TraceState, line: SpanLine, ref: LineRef): OpenSpan {
    const a = line.span.attributes;
    const open: OpenSpan = {
      kind: 'model',
      step: trace.nextStep++,
      requestEmitted: false,
      startLine: ref,
      startTs: line.span.startTime ?? line.timestamp,
      name: line.span.name,
      model: nonEmptyText(first(a, ['llm.request.model', 'llm.model', 'gen_ai.request.model', 'model'])),
    };
    trace.lastStep = open.step;
    return open;
  }

  /** The request, when the span records what was sent. */
  private request(trace: TraceState, open: OpenSpan, line: SpanLine, ref: LineRef, emit: Emit): boolean {
    const a = line.span.attributes;
    const messages = first(a, ['llm.request.messages', 'gen_ai.prompt', 'input']);
    if (!Array.isArray(messages)) return false;
    const tools = first(a, ['llm.request.tools', 'gen_ai.request.tools', 'tools']);
    const model = nonEmptyText(first(a, ['llm.request.model', 'llm.model', 'gen_ai.request.model', 'model'])) ?? open.model;
    const event = modelRequest({
      run_id: trace.runId,
      step: open.step,
      ts: line.timestamp ?? open.startTs,
      model,
      messages,
      tools: Array.isArray(tools) ? tools : undefined,
    });
    emit({ event, typeRaw: typeRawOf(line), line: ref });
    open.requestEmitted = true;
    return true;
  }

  /** Which call a tool span answers, and which response issued it. */
  private toolCall(trace: TraceState, span: Span): ToolCallRef {
    const known = trace.callOfSpan.get(span.spanId);
    if (known !== undefined) return known;
    const name = toolName(span);
    const explicit = toolCallId(span.attributes);
    let index = explicit !== undefined ? trace.unclaimed.findIndex((call) => call.callId === explicit) : -1;
    if (index < 0 && explicit === undefined) index = trace.unclaimed.findIndex((call) => call.name === name);
    let ref: ToolCallRef;
    if (index >= 0) {
      const [claimed] = trace.unclaimed.splice(index, 1);
      ref = { callId: claimed!.callId, step: claimed!.step, pending: false };
    } else if (trace.pending !== null) {
      // No call id: the tool span belongs to the model call it follows (its parent, in RAAF).
      const callId = explicit ?? span.spanId;
      trace.pending.calls.push({ call_id: callId, name, arguments: toolArguments(span.attributes) });
      ref = { callId, step: trace.pending.event.step, pending: true };
    } else {
      // No model call of this trace issued it: its result is shown as it is (an orphan result).
      ref = { callId: explicit ?? span.spanId, step: trace.lastStep, pending: false };
    }
    trace.callOfSpan.set(span.spanId, ref);
    return ref;
  }

  private emitTool(emit: Emit, trace: TraceState, ref: ToolCallRef, mapped: MappedEvent): void {
    emitOrHold(ref.pending ? trace.pending?.held : undefined, mapped, emit);
  }

  private start(trace: TraceState, line: SpanLine, ref: LineRef, emit: Emit): void {
    const { span } = line;
    switch (span.kind) {
      case 'agent':
        trace.openSpans.set(span.spanId, {
          kind: 'agent',
          step: undefined,
          requestEmitted: false,
          startLine: ref,
          startTs: line.timestamp,
          name: span.name,
          model: undefined,
        });
        trace.openAgents += 1;
        if (!trace.started) this.runStart(trace, line, ref, emit);
        else this.unknown(emit, trace, ref, `${typeRawOf(line)} (nested)`, line.timestamp);
        return;
      case 'model': {
        this.flushPending(emit, trace);
        const open = this.openModel(trace, line, ref);
        trace.openSpans.set(span.spanId, open);
        if (!this.request(trace, open, line, ref, emit)) this.unknown(emit, trace, ref, typeRawOf(line), line.timestamp, open.step);
        return;
      }
      case 'tool': {
        trace.openSpans.set(span.spanId, {
          kind: 'tool',
          step: undefined,
          requestEmitted: false,
          startLine: ref,
          startTs: line.timestamp,
          name: span.name,
          model: undefined,
        });
        const call = this.toolCall(trace, span);
        const event = toolCallStart({
          run_id: trace.runId,
          step: call.step,
          ts: span.startTime ?? line.timestamp,
          call_id: call.callId,
          name: toolName(span),
          arguments: toolArguments(span.attributes),
        });
        this.emitTool(emit, trace, call, { event, typeRaw: typeRawOf(line), line: ref });
        return;
      }
      default:
        trace.openSpans.set(span.spanId, {
          kind: 'other',
          step: undefined,
          requestEmitted: false,
          startLine: ref,
          startTs: line.timestamp,
          name: span.name,
          model: undefined,
        });
        this.unknown(emit, trace, ref, typeRawOf(line), line.timestamp);
    }
  }

  private end(trace: TraceState, line: SpanLine, ref: LineRef, emit: Emit): void {
    const { span } = line;
    const open = trace.openSpans.get(span.spanId);
    trace.openSpans.delete(span.spanId);
    const ts = span.endTime ?? line.timestamp;
    switch (span.kind) {
      case 'agent': {
        if (open !== undefined) trace.openAgents -= 1;
        this.flushPending(emit, trace);
        if (!trace.started) this.runStart(trace, line, ref, emit);
        const exception = exceptionOf(span);
        const reason = failureText(span);
        const limit = exception?.type !== undefined && /max.?turns/i.test(exception.type) ? 'max_turns' : undefined;
        const event = runEnd({ run_id: trace.runId, ts, status: span.status ?? undefined, reason, limit });
        if (trace.candidateEnd !== null) this.demote(emit, trace.candidateEnd, 'the trace went on');
        trace.candidateEnd = { event, typeRaw: typeRawOf(line), line: ref };
        return;
      }
      case 'model':
        this.endModel(trace, line, ref, emit, open);
        return;
      case 'tool': {
        const call = this.toolCall(trace, span);
        const a = span.attributes;
        const failed = isError(span);
        const exception = exceptionOf(span);
        const message = failureText(span);
        const output = first(a, ['tool.result', 'function.output', 'gen_ai.tool.call.result', 'output', 'result']);
        const event = toolResult({
          run_id: trace.runId,
          step: call.step,
          ts,
          call_id: call.callId,
          name: toolName(span),
          status: failed ? 'error' : 'ok',
          output,
          error: failed ? defined({ code: exception?.type, message }) : undefined,
          latency_ms: span.durationMs,
        });
        // Arguments some exporters write only on the end record (RAAF's function.input).
        const pendingCall = call.pending ? trace.pending?.calls.find((c) => c.call_id === call.callId) : undefined;
        if (pendingCall !== undefined && pendingCall.arguments === undefined) pendingCall.arguments = toolArguments(a);
        this.emitTool(emit, trace, call, { event, typeRaw: typeRawOf(line), line: ref });
        trace.callOfSpan.delete(span.spanId);
        return;
      }
      default:
        this.unknown(emit, trace, ref, typeRawOf(line), ts);
    }
  }

  private endModel(trace: TraceState, line: SpanLine, ref: LineRef, emit: Emit, started: OpenSpan | undefined): void {
    const { span } = line;
    if (started === undefined) this.flushPending(emit, trace);
    const open = started ?? this.openModel(trace, line, ref);
    if (!open.requestEmitted) this.request(trace, open, line, ref, emit);
    const a = span.attributes;
    const failed = isError(span);
    const content = first(a, ['llm.response.content', 'gen_ai.completion', 'output']);
    const finishRaw = first(a, ['llm.response.finish_reason', 'gen_ai.response.finish_reasons', 'finish_reason']);
    const finish = Array.isArray(finishRaw) ? nonEmptyText(finishRaw[0]) : nonEmptyText(finishRaw);
    const usage = usageOf(a);
    const model = nonEmptyText(first(a, ['llm.response.model', 'gen_ai.response.model'])) ?? open.model;
    const failure = failureText(span);
    const event = modelResponse({
      run_id: trace.runId,
      step: open.step,
      ts: span.endTime ?? line.timestamp,
      // A failed model span is the provider call failing: its error is the call's api_error (docs/semantics.md §7).
      outcome: failed ? 'incomplete' : undefined,
      incomplete_reason: failed ? `error${failure !== undefined ? `: ${failure}` : ''}` : undefined,
      api_error: failed ? { ...httpStatusOf(a), ...defined({ type: exceptionOf(span)?.type, message: failure }) } : undefined,
      finish_reason: finish,
      text: typeof content === 'string' && content !== '' ? content : null,
      usage,
      latency_ms: span.durationMs,
      model,
      provider: providerOf(a),
    });
    const named = namedToolCalls(a);
    if (failed || named !== null) {
      // The call failed, or it names its tool calls itself: nothing that follows can add to it.
      const withCalls: EventOf<'model_response'> = named !== null && named.length > 0 ? { ...event, tool_calls: named } : event;
      emit({ event: withCalls, typeRaw: typeRawOf(line), line: ref });
      for (const call of named ?? []) trace.unclaimed.push({ callId: String(call.call_id), name: call.name, step: open.step });
      return;
    }
    trace.pending = { event, typeRaw: typeRawOf(line), line: ref, calls: [], held: new HeldEvents() };
  }
}

function detect(sample: DetectionSample): string | null {
  let spans = 0;
  const kinds = new Set<string>();
  for (const value of sample.values) {
    if (!isRecord(value) || (value['event'] !== 'start' && value['event'] !== 'end')) continue;
    const span = value['span'];
    if (!isRecord(span) || typeof span['span_id'] !== 'string' || typeof span['trace_id'] !== 'string') continue;
    spans += 1;
    if (typeof span['kind'] === 'string') kinds.add(span['kind']);
  }
  if (spans === 0 || spans * 2 < sample.values.length) return null;
  const seen = kinds.size > 0 ? ` (kinds ${[...kinds].slice(0, 4).join(', ')})` : '';
  return `agents span events: ${spans} of the first ${sample.values.length} records are {event: start|end, span: {span_id, trace_id, …}} lines${seen}`;
}

function createMapper(): FormatMapper {
  const log = new SpanLog();
  return {
    map(value, line, emit) {
      const parsed = parseLine(value);
      if ('reason' in parsed) return parsed;
      if ('other' in parsed) {
        log.other(value as Record<string, unknown>, `${parsed.other} (span event)`, line, emit);
        return undefined;
      }
      log.map(parsed, line, emit);
      return undefined;
    },
    finish(emit) {
      log.finish(emit);
    },
  };
}

export const agentsSpanEventsFormat: FormatAdapter = {
  name: 'agents-span-events',
  detect,
  createMapper,
};
