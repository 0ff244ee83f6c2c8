/**
 * OpenTelemetry GenAI spans → canonical events, shared by the OTLP JSON adapter (otelOtlp.ts) and
 * the console-exporter adapter (otelConsole.ts), which only decode their own framing into
 * `OtelSpan`s. See docs/formats/otel.md.
 *
 * Spans are exported when they end, children before parents, and not in start order; exporters
 * repeat them (the same span twice, or first open with no end and again closed). So spans are
 * buffered per trace, deduplicated by span id (the most complete record wins: ended over open,
 * then the latest end), and a trace is turned into events once its root span has ended (after a
 * few more records, to merge trailing duplicates), when the buffer grows too large, or at the end
 * of the file. Events are then emitted in time order.
 *
 * Runs: an agent invocation span (`invoke_agent`) is a run, and so is the trace itself for the
 * spans that belong to no agent invocation. A span belongs to the agent span above it, or — as the
 * Microsoft Agent Framework writes them — to an agent span beside it (same parent) whose time
 * range holds its start.
 */
import { contentHash } from '../bytes/contentHash';
import type { CanonicalEvent, ToolCall } from '../../../shared/trace/canonicalEvents';
import { isRecord, type AdaptedEvent, type Emit, type LineRef, type MappedEvent, type ResultDigest } from './formatAdapter';
import { defined, definedIfAny, modelRequest, modelResponse, runEnd, runStart, toolCallStart, toolResult, unknownEvent } from './kit/events';
import { withGenAiAttributes } from './otelPreConventions';

export interface SpanTime {
  /** Microseconds since the Unix epoch: spans of one model call are microseconds apart. */
  micros: number;
  iso: string;
}

export interface OtelSpanEvent {
  name: string;
  time: SpanTime | null;
  attributes: Record<string, unknown>;
}

export type SpanStatusCode = 'UNSET' | 'OK' | 'ERROR';

/** One span, whatever exporter wrote it: ids without `0x`, lower-case. */
export interface OtelSpan {
  traceId: string;
  spanId: string;
  parentId: string | null;
  name: string;
  start: SpanTime | null;
  end: SpanTime | null;
  statusCode: SpanStatusCode;
  statusMessage: string | null;
  attributes: Record<string, unknown>;
  events: OtelSpanEvent[];
  /** The resource's `service.name`. */
  service: string | null;
}

/** A trace or span id as Loopscope shows it: without the console exporter's `0x`, lower-case; null when absent or all zeros. */
export function normalizeSpanId(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const id = value.trim().replace(/^0x/i, '').toLowerCase();
  return id === '' || /^0+$/.test(id) ? null : id;
}

function timeFromMicros(micros: number): SpanTime {
  return { micros, iso: new Date(Math.floor(micros / 1000)).toISOString() };
}

const ISO_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/;

/** `2026-03-01T20:47:18.711501Z` (the console exporter), to the microsecond. */
export function timeFromIso(value: unknown): SpanTime | null {
  if (typeof value !== 'string') return null;
  const match = ISO_TIME.exec(value.trim());
  if (match === null) return null;
  const seconds = Date.parse(`${match[1]!}${match[3] ?? 'Z'}`);
  if (!Number.isFinite(seconds)) return null;
  const fraction = Number((match[2] ?? '').padEnd(6, '0').slice(0, 6));
  return timeFromMicros(seconds * 1000 + fraction);
}

/** OTLP `…TimeUnixNano`, a decimal string (or number); `0` or absent means not set. */
export function timeFromUnixNanos(value: unknown): SpanTime | null {
  let micros: number;
  if (typeof value === 'string' && /^\d+$/.test(value)) micros = value.length > 3 ? Number(value.slice(0, -3)) : 0;
  else if (typeof value === 'number' && Number.isFinite(value)) micros = Math.floor(value / 1000);
  else return null;
  return micros > 0 ? timeFromMicros(micros) : null;
}

// ---------------------------------------------------------------------------------------------
// Attribute reading

/** An attribute that holds JSON as text (the console exporter and most SDKs) or as a structured value (OTLP). */
export function parseJsonish(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (!text.startsWith('[') && !text.startsWith('{')) return value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return value;
  }
}

function stringAttr(attributes: Record<string, unknown>, key: string): string | undefined {
  const value = attributes[key];
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

function numberAttr(attributes: Record<string, unknown>, ...keys: string[]): number | undefined {
  for (const key of keys) {
    const value = attributes[key];
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number === 'number' && Number.isFinite(number) && number >= 0) return number;
  }
  return undefined;
}

/** Newer instrumentations put message content on a `gen_ai.client.inference.operation.details` span event instead. */
const DETAILS_EVENT = 'gen_ai.client.inference.operation.details';

function contentAttr(span: OtelSpan, key: string): unknown {
  if (span.attributes[key] !== undefined) return parseJsonish(span.attributes[key]);
  for (const event of span.events) {
    if (event.name === DETAILS_EVENT && event.attributes[key] !== undefined) return parseJsonish(event.attributes[key]);
  }
  return undefined;
}

function operationOf(span: OtelSpan): string {
  const operation = stringAttr(span.attributes, 'gen_ai.operation.name');
  if (operation !== undefined) return operation;
  return span.name.split(' ')[0] ?? '';
}

type Role = 'agent' | 'chat' | 'tool' | 'other';

const inferenceOperations = new Set(['chat', 'text_completion', 'generate_content']);

function roleOf(span: OtelSpan): Role {
  const operation = operationOf(span);
  if (operation === 'invoke_agent') return 'agent';
  if (inferenceOperations.has(operation)) return 'chat';
  if (operation === 'execute_tool') return 'tool';
  return 'other';
}

/** The first `exception` span event: the error signal of a failed span. */
function exceptionOf(span: OtelSpan): { type?: string; message?: string } | undefined {
  const event = span.events.find((candidate) => candidate.name === 'exception');
  if (event === undefined) return undefined;
  const type = stringAttr(event.attributes, 'exception.type');
  const message = stringAttr(event.attributes, 'exception.message');
  return { ...(type !== undefined ? { type } : {}), ...(message !== undefined ? { message } : {}) };
}

function errorOf(span: OtelSpan): { code?: string; message?: string } {
  const exception = exceptionOf(span);
  const code = stringAttr(span.attributes, 'error.type') ?? exception?.type;
  const message = span.statusMessage ?? exception?.message;
  return defined({ code, message });
}

/** The HTTP status a failed call's span records (`http.response.status_code`, or the older `http.status_code`). */
function httpStatusOf(attributes: Record<string, unknown>): { status?: number } {
  const status = numberAttr(attributes, 'http.response.status_code', 'http.status_code');
  return status !== undefined && Number.isInteger(status) ? { status } : {};
}

function finishReasonsOf(span: OtelSpan): string[] {
  const raw = parseJsonish(span.attributes['gen_ai.response.finish_reasons']);
  if (typeof raw === 'string') return [raw];
  return Array.isArray(raw) ? raw.filter((reason): reason is string => typeof reason === 'string') : [];
}

interface OutputContent {
  text: string | null;
  calls: ToolCall[];
  finishReason: string | undefined;
}

/**
 * `gen_ai.output.messages` (semantic conventions: `[{role, parts: [{type: text, content} |
 * {type: tool_call, id, name, arguments}], finish_reason}]`); OpenAI-shaped messages
 * (`tool_calls[].function`) are read too. Undefined when the span carries no output messages.
 */
function outputContentOf(span: OtelSpan): OutputContent | undefined {
  const messages = contentAttr(span, 'gen_ai.output.messages');
  if (!Array.isArray(messages)) return undefined;
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  let finishReason: string | undefined;
  for (const message of messages) {
    if (!isRecord(message)) continue;
    if (typeof message['finish_reason'] === 'string') finishReason ??= message['finish_reason'];
    if (typeof message['content'] === 'string') texts.push(message['content']);
    for (const part of Array.isArray(message['parts']) ? message['parts'] : []) {
      if (!isRecord(part)) continue;
      if (part['type'] === 'text' && typeof part['content'] === 'string') texts.push(part['content']);
      if (part['type'] === 'tool_call' && (typeof part['id'] === 'string' || typeof part['id'] === 'number')) {
        calls.push({ call_id: part['id'], name: typeof part['name'] === 'string' ? part['name'] : '', ...('arguments' in part ? { arguments: part['arguments'] } : {}) });
      }
    }
    for (const call of Array.isArray(message['tool_calls']) ? message['tool_calls'] : []) {
      if (!isRecord(call) || (typeof call['id'] !== 'string' && typeof call['id'] !== 'number')) continue;
      const fn = isRecord(call['function']) ? call['function'] : call;
      calls.push({ call_id: call['id'], name: typeof fn['name'] === 'string' ? fn['name'] : '', ...('arguments' in fn ? { arguments: fn['arguments'] } : {}) });
    }
  }
  return { text: texts.length > 0 ? texts.join('') : null, calls, finishReason };
}

function requestParamsOf(span: OtelSpan): Record<string, unknown> | undefined {
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(span.attributes)) {
    if (key.startsWith('gen_ai.request.') && key !== 'gen_ai.request.model') params[key.slice('gen_ai.request.'.length)] = value;
  }
  return Object.keys(params).length > 0 ? params : undefined;
}

function arrayOrUndefined(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

// ---------------------------------------------------------------------------------------------
// Buffering and emission

interface SpanNode {
  spanId: string;
  parentId: string | null;
  role: Role;
  start: number | null;
  end: number | null;
  /** The kept record, until the span's events are emitted; then dropped to bound memory. */
  span: OtelSpan | null;
  firstLine: LineRef;
  line: LineRef;
  startEmitted: boolean;
  endEmitted: boolean;
  dirty: boolean;
  runId: string | null;
  /** A chat span's step; a tool span's issuing step. */
  step: number | null;
  /** A chat span's tool calls from its output messages; null when not captured. */
  capturedCalls: ToolCall[] | null;
  /** A chat span's calls evidenced only by the execute_tool spans that followed it (content capture off). */
  derivedCalls: ToolCall[];
  /** A tool span's call id. */
  callId: string | null;
}

interface TraceState {
  traceId: string;
  order: number;
  nodes: Map<string, SpanNode>;
  /** The non-agent root span that opens and closes the trace-level run. */
  rootRunSpanId: string | null;
  lastStep: Map<string, number>;
  /** Record count when a root span was seen ended: the trace is flushed a few records later. */
  rootEndedAt: number | null;
  buffered: number;
}

/** Records read after a trace's root ended before the trace is flushed, to merge duplicates exported right after. */
const GRACE_RECORDS = 8;
/** Spans held with their attributes, over all open traces; beyond it the least recently touched trace is flushed. */
const MAX_BUFFERED_SPANS = 20_000;
/** Span ids remembered (without attributes) to deduplicate spans exported again after their trace was flushed. */
const MAX_REMEMBERED_SPANS = 200_000;

interface Pending {
  key: number;
  rank: number;
  seq: number;
  mapped: MappedEvent;
}

export class SpanAssembler {
  private readonly traces = new Map<string, TraceState>();
  private records = 0;
  private tracesSeen = 0;
  private buffered = 0;
  private remembered = 0;
  private readonly rootEnded = new Set<TraceState>();

  /** Counts one record of the file: flushes traces whose root ended a few records ago. */
  recordRead(emit: Emit): void {
    this.records += 1;
    for (const trace of this.rootEnded) {
      if (trace.rootEndedAt !== null && this.records - trace.rootEndedAt >= GRACE_RECORDS) this.flush(trace, emit);
    }
  }

  add(exported: OtelSpan, line: LineRef, emit: Emit): void {
    // Pre-convention attribute families (OpenInference, OpenLLMetry, promptflow) read as gen_ai.*.
    const span = withGenAiAttributes(exported);
    const trace = this.traceFor(span.traceId);
    const node = trace.nodes.get(span.spanId);
    if (node === undefined) {
      trace.nodes.set(span.spanId, {
        spanId: span.spanId,
        parentId: span.parentId,
        role: roleOf(span),
        start: span.start?.micros ?? span.end?.micros ?? null,
        end: span.end?.micros ?? null,
        span,
        firstLine: line,
        line,
        startEmitted: false,
        endEmitted: false,
        dirty: true,
        runId: null,
        step: null,
        capturedCalls: null,
        derivedCalls: [],
        callId: null,
      });
      this.remembered += 1;
      this.hold(trace, 1);
    } else {
      // A duplicate export: keep the most complete record (ended over open, then the latest end);
      // an identical or less complete one adds nothing.
      const better = span.end !== null && (node.end === null || span.end.micros > node.end);
      if (node.endEmitted || !better) return;
      if (node.span === null) this.hold(trace, 1);
      node.span = span;
      node.end = span.end?.micros ?? null;
      node.line = line;
      node.dirty = true;
    }
    if (span.parentId === null && span.end !== null) {
      trace.rootEndedAt = this.records;
      this.rootEnded.add(trace);
    }
    this.bound(emit);
  }

  finish(emit: Emit): void {
    const open = [...this.traces.values()].filter((trace) => trace.buffered > 0).sort((a, b) => a.order - b.order);
    for (const trace of open) this.flush(trace, emit);
  }

  private traceFor(traceId: string): TraceState {
    let trace = this.traces.get(traceId);
    if (trace === undefined) {
      trace = { traceId, order: this.tracesSeen++, nodes: new Map(), rootRunSpanId: null, lastStep: new Map(), rootEndedAt: null, buffered: 0 };
    } else {
      this.traces.delete(traceId);
    }
    // Re-inserted: the map's order is least recently touched first.
    this.traces.set(traceId, trace);
    return trace;
  }

  private hold(trace: TraceState, count: number): void {
    trace.buffered += count;
    this.buffered += count;
  }

  /** Keeps memory bounded by the open traces: flushes and forgets the least recently touched ones over the limits. */
  private bound(emit: Emit): void {
    for (const trace of this.traces.values()) {
      if (this.buffered <= MAX_BUFFERED_SPANS) break;
      if (trace.buffered > 0) this.flush(trace, emit);
    }
    for (const trace of this.traces.values()) {
      if (this.remembered <= MAX_REMEMBERED_SPANS) break;
      if (trace.buffered > 0) continue;
      this.traces.delete(trace.traceId);
      this.remembered -= trace.nodes.size;
    }
  }

  private flush(trace: TraceState, emit: Emit): void {
    this.rootEnded.delete(trace);
    trace.rootEndedAt = null;
    const dirty = [...trace.nodes.values()].filter((node) => node.dirty).sort(byStart);
    if (dirty.length === 0) return;
    const resolver = new RunResolver(trace);
    for (const node of dirty) node.runId ??= resolver.runOf(node);
    this.assignSteps(trace, dirty);
    this.attributeToolSpans(trace, dirty);

    // Not a hold behind one response (kit/stepBuilder.ts HeldEvents): spans come out of start order,
    // so a whole trace is buffered and its events sorted by time, a response before its calls' events.
    const pending: Pending[] = [];
    let seq = 0;
    const push = (key: number | null, rank: number, mapped: MappedEvent): void => {
      pending.push({ key: key ?? 0, rank, seq: seq++, mapped });
    };
    for (const node of dirty) this.eventsOf(trace, node, push);
    clampRunBoundaries(pending);
    pending.sort((a, b) => a.key - b.key || a.rank - b.rank || a.seq - b.seq);
    for (const item of pending) emit(item.mapped);

    for (const node of dirty) {
      node.dirty = false;
      if (node.span !== null) {
        node.span = null;
        this.hold(trace, -1);
      }
    }
  }

  /** New model calls get the next steps of their run, in start order. */
  private assignSteps(trace: TraceState, dirty: SpanNode[]): void {
    for (const node of dirty) {
      if (node.role !== 'chat' || node.span === null) continue;
      if (node.end !== null) node.capturedCalls = outputContentOf(node.span)?.calls ?? null;
      if (node.step !== null) continue;
      node.step = (trace.lastStep.get(node.runId!) ?? 0) + 1;
      trace.lastStep.set(node.runId!, node.step);
    }
  }

  /**
   * A tool span answers the model call whose output messages list its `gen_ai.tool.call.id`; when
   * output messages are not captured, the last model call of the run that started before it (and
   * preferably ended before it) — which is then credited with the call.
   */
  private attributeToolSpans(trace: TraceState, dirty: SpanNode[]): void {
    const tools = dirty.filter((node) => node.role === 'tool' && node.span !== null && !node.startEmitted);
    if (tools.length === 0) return;
    const chatsByRun = new Map<string | null, SpanNode[]>();
    for (const node of trace.nodes.values()) {
      if (node.role !== 'chat') continue;
      const list = chatsByRun.get(node.runId) ?? [];
      list.push(node);
      chatsByRun.set(node.runId, list);
    }
    for (const list of chatsByRun.values()) list.sort(byStart);
    const claimed = new Set<string>();
    for (const tool of tools) {
      const span = tool.span!;
      const runChats = chatsByRun.get(tool.runId) ?? [];
      let callId = stringAttr(span.attributes, 'gen_ai.tool.call.id');
      const name = stringAttr(span.attributes, 'gen_ai.tool.name') ?? span.name.replace(/^execute_tool\s*/, '');
      let issuer = callId === undefined ? undefined : runChats.find((chat) => chat.capturedCalls?.some((call) => String(call.call_id) === callId));
      if (issuer === undefined && tool.start !== null) {
        const before = runChats.filter((chat) => chat.start !== null && chat.start <= tool.start!);
        issuer = before.filter((chat) => chat.end !== null && chat.end <= tool.start!).at(-1) ?? before.at(-1);
      }
      if (callId === undefined && issuer?.capturedCalls) {
        // No call id on the tool span: it answers the first unclaimed call of its name.
        const match = issuer.capturedCalls.find((call) => call.name === name && !claimed.has(String(call.call_id)));
        if (match !== undefined) callId = String(match.call_id);
      }
      callId ??= `span:${tool.spanId}`;
      claimed.add(callId);
      tool.step = issuer?.step ?? null;
      if (issuer !== undefined && issuer.capturedCalls === null && !issuer.endEmitted) {
        const args = span.attributes['gen_ai.tool.call.arguments'];
        issuer.derivedCalls.push({ call_id: callId, name, ...(args !== undefined ? { arguments: args } : {}) });
      }
      tool.callId = callId;
    }
  }

  private eventsOf(trace: TraceState, node: SpanNode, push: (key: number | null, rank: number, mapped: MappedEvent) => void): void {
    const span = node.span;
    if (span === null) return;
    const runId = node.runId!;
    const typeRaw = span.name || '(unnamed span)';
    const mapped = (line: LineRef, event: AdaptedEvent, resultDigest?: ResultDigest): MappedEvent => ({ event, typeRaw, line, ...(resultDigest ? { resultDigest } : {}) });
    const isRunSpan = node.role === 'agent' || (node.parentId === null && claimRootRunSpan(trace, node));
    const startEvent = !node.startEmitted && span.start !== null;
    const endEvent = !node.endEmitted && span.end !== null;
    const step = node.step ?? undefined;

    if (isRunSpan) {
      if (startEvent) push(node.start, RANK_RUN_START, mapped(node.firstLine, runStartOf(span, runId, node.role === 'agent')));
      if (endEvent) push(node.end, RANK_RUN_END, mapped(node.line, runEndOf(span, runId)));
    }
    // A root model call or tool call (no agent above it) both bounds the trace's run and is itself an event.
    if (node.role === 'chat') {
      if (startEvent) push(node.start, RANK_EVENT, mapped(node.firstLine, modelRequestOf(span, runId, step)));
      if (endEvent) push(node.end, RANK_EVENT, mapped(node.line, modelResponseOf(span, runId, step, node)));
    } else if (node.role === 'tool') {
      const callId = node.callId ?? `span:${node.spanId}`;
      if (startEvent) push(node.start, RANK_EVENT, mapped(node.firstLine, toolCallStartOf(span, runId, node.step, callId)));
      if (endEvent) {
        const result = toolResultOf(span, runId, node.step, callId);
        push(node.end, RANK_EVENT, mapped(node.line, result.event, result.digest));
      }
    } else if (node.role === 'other' && !isRunSpan && startEvent) {
      push(node.start, RANK_EVENT, mapped(node.firstLine, unknownEvent(typeRaw, { run_id: runId, ts: span.start!.iso })));
    }
    // A span with no start time has no start event to wait for.
    if (startEvent || span.start === null) node.startEmitted = true;
    if (endEvent) node.endEmitted = true;
    // Other spans are one event: once it is out, a later (closed) copy of the span adds nothing.
    if (!isRunSpan && node.role === 'other') node.endEmitted = node.startEmitted;
  }
}

const RANK_RUN_START = 0;
const RANK_EVENT = 1;
const RANK_RUN_END = 2;

function byStart(a: SpanNode, b: SpanNode): number {
  return (a.start ?? 0) - (b.start ?? 0);
}

function claimRootRunSpan(trace: TraceState, node: SpanNode): boolean {
  trace.rootRunSpanId ??= node.spanId;
  return trace.rootRunSpanId === node.spanId;
}

/**
 * A run's start sorts before, and its end after, every event of the run emitted with it (clock
 * skew, or a span attributed by time), and a tool's events after the response that issued them.
 */
function clampRunBoundaries(pending: Pending[]): void {
  const bounds = new Map<string, { min: number; max: number }>();
  const responseKey = new Map<string, number>();
  for (const item of pending) {
    const { event } = item.mapped;
    if (event.type === 'model_response' && event.step !== undefined) responseKey.set(`${String(event.run_id)}#${event.step}`, item.key);
  }
  for (const item of pending) {
    const { event } = item.mapped;
    if ((event.type === 'tool_call_start' || event.type === 'tool_result') && event.step !== undefined) {
      const issued = responseKey.get(`${String(event.run_id)}#${event.step}`);
      if (issued !== undefined && item.key < issued) item.key = issued;
    }
    if (item.rank !== RANK_EVENT) continue;
    const runId = String(event.run_id);
    const bound = bounds.get(runId) ?? { min: item.key, max: item.key };
    bound.min = Math.min(bound.min, item.key);
    bound.max = Math.max(bound.max, item.key);
    bounds.set(runId, bound);
  }
  for (const item of pending) {
    const bound = bounds.get(String(item.mapped.event.run_id));
    if (bound === undefined) continue;
    if (item.rank === RANK_RUN_START) item.key = Math.min(item.key, bound.min);
    if (item.rank === RANK_RUN_END) item.key = Math.max(item.key, bound.max);
  }
}

/** Which run each span belongs to. */
class RunResolver {
  private readonly agentsByParent = new Map<string, SpanNode[]>();

  constructor(private readonly trace: TraceState) {
    for (const node of trace.nodes.values()) {
      if (node.role !== 'agent') continue;
      const key = node.parentId ?? '';
      const siblings = this.agentsByParent.get(key) ?? [];
      siblings.push(node);
      this.agentsByParent.set(key, siblings);
    }
  }

  runOf(node: SpanNode): string {
    if (node.role === 'agent') return this.agentRunId(node);
    let current = node;
    for (let depth = 0; depth < 1000; depth += 1) {
      const parent = current.parentId === null ? undefined : this.trace.nodes.get(current.parentId);
      if (parent?.role === 'agent') return parent.runId ?? this.agentRunId(parent);
      const beside = this.agentBeside(current);
      if (beside !== undefined) return beside.runId ?? this.agentRunId(beside);
      if (parent === undefined) return this.trace.traceId;
      current = parent;
    }
    return this.trace.traceId;
  }

  /** An agent span with the same parent whose time range holds the span's start (the latest such). */
  private agentBeside(node: SpanNode): SpanNode | undefined {
    if (node.start === null) return undefined;
    const start = node.start;
    const siblings = this.agentsByParent.get(node.parentId ?? '') ?? [];
    let best: SpanNode | undefined;
    for (const agent of siblings) {
      if (agent === node || agent.start === null || agent.start > start || (agent.end !== null && agent.end < start)) continue;
      if (best === undefined || agent.start > best.start!) best = agent;
    }
    return best;
  }

  /** The root agent's run is the trace; a nested agent invocation is `<trace id>/<span id>`. */
  private agentRunId(agent: SpanNode): string {
    return agent.parentId === null ? this.trace.traceId : `${this.trace.traceId}/${agent.spanId}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Span → canonical event

function runStartOf(span: OtelSpan, runId: string, isAgent: boolean): CanonicalEvent {
  const attributes = span.attributes;
  const tools = arrayOrUndefined(parseJsonish(attributes['gen_ai.tool.definitions']));
  const agent = {
    id: stringAttr(attributes, 'gen_ai.agent.id'),
    name: stringAttr(attributes, 'gen_ai.agent.name'),
    description: stringAttr(attributes, 'gen_ai.agent.description'),
  };
  const provider = stringAttr(attributes, 'gen_ai.provider.name') ?? stringAttr(attributes, 'gen_ai.system');
  const model = stringAttr(attributes, 'gen_ai.request.model');
  const conversationId = stringAttr(attributes, 'gen_ai.conversation.id');
  const task = contentAttr(span, 'gen_ai.input.messages');
  return runStart({
    run_id: runId,
    ts: span.start!.iso,
    config: defined({
      provider,
      model,
      span: span.name,
      agent: isAgent ? defined(agent) : undefined,
      conversation_id: conversationId,
      service: span.service ?? undefined,
      tools,
    }),
    task,
  });
}

/** The span's status code as written (`OK`, `ERROR`, `UNSET`); see docs/formats/otel.md for how it normalizes. */
function runEndOf(span: OtelSpan, runId: string): CanonicalEvent {
  const error = span.statusCode === 'ERROR' ? errorOf(span) : undefined;
  const output = contentAttr(span, 'gen_ai.output.messages');
  const reason =
    span.statusCode === 'ERROR'
      ? [error?.code, error?.message].filter(Boolean).join(': ') || 'span status ERROR'
      : span.statusCode === 'UNSET'
        ? 'the span ended with status UNSET: no error was recorded'
        : undefined;
  return runEnd({ run_id: runId, ts: span.end!.iso, status: span.statusCode, reason, output });
}

function modelRequestOf(span: OtelSpan, runId: string, step: number | undefined): CanonicalEvent {
  const attributes = span.attributes;
  const model = stringAttr(attributes, 'gen_ai.request.model');
  const provider = stringAttr(attributes, 'gen_ai.provider.name') ?? stringAttr(attributes, 'gen_ai.system');
  const messages = arrayOrUndefined(contentAttr(span, 'gen_ai.input.messages'));
  const system = contentAttr(span, 'gen_ai.system_instructions');
  const tools = arrayOrUndefined(parseJsonish(attributes['gen_ai.tool.definitions']));
  const params = requestParamsOf(span);
  return modelRequest({ run_id: runId, step, ts: span.start!.iso, model, provider, system, messages, tools, params });
}

function modelResponseOf(span: OtelSpan, runId: string, step: number | undefined, node: SpanNode): CanonicalEvent {
  const attributes = span.attributes;
  const content = outputContentOf(span);
  const reasons = finishReasonsOf(span);
  const finishReason = reasons[0] ?? content?.finishReason;
  const calls = content !== undefined ? content.calls : node.derivedCalls;
  const inputTokens = numberAttr(attributes, 'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens');
  const outputTokens = numberAttr(attributes, 'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens');
  const cachedTokens = numberAttr(attributes, 'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_read_input_tokens', 'gen_ai.usage.input_tokens.cached');
  const usage = definedIfAny({ input_tokens: inputTokens, output_tokens: outputTokens, cached_input_tokens: cachedTokens });
  const responseId = stringAttr(attributes, 'gen_ai.response.id');
  const model = stringAttr(attributes, 'gen_ai.response.model');
  const failed = span.statusCode === 'ERROR';
  const error = failed ? errorOf(span) : undefined;
  return modelResponse({
    run_id: runId,
    step,
    ts: span.end!.iso,
    // A failed model call has no response to classify: it is incomplete, for the reason the span gives.
    // A failed model span is the provider call failing: its error is the call's api_error (docs/semantics.md §7).
    outcome: failed ? 'incomplete' : undefined,
    incomplete_reason: failed ? `error${error?.code ? `: ${error.code}` : ''}${error?.message ? ` (${error.message})` : ''}` : undefined,
    api_error: failed ? { ...httpStatusOf(attributes), ...defined({ type: error?.code, message: error?.message }) } : undefined,
    finish_reason: finishReason,
    finish_reasons: reasons.length > 1 ? reasons : undefined,
    text: content?.text,
    tool_calls: calls.length > 0 ? calls : undefined,
    tool_calls_from: content === undefined && calls.length > 0 ? 'execute_tool spans' : undefined,
    usage,
    latency_ms: span.start !== null ? Math.max(0, (span.end!.micros - span.start.micros) / 1000) : undefined,
    response_id: responseId,
    model,
  });
}

function toolCallStartOf(span: OtelSpan, runId: string, step: number | null, callId: string): CanonicalEvent {
  const name = stringAttr(span.attributes, 'gen_ai.tool.name');
  const args = span.attributes['gen_ai.tool.call.arguments'];
  return toolCallStart({ run_id: runId, step: step ?? undefined, ts: span.start!.iso, call_id: callId, name, arguments: args });
}

function toolResultOf(span: OtelSpan, runId: string, step: number | null, callId: string): { event: CanonicalEvent; digest?: ResultDigest } {
  const name = stringAttr(span.attributes, 'gen_ai.tool.name');
  const output = span.attributes['gen_ai.tool.call.result'];
  const failed = span.statusCode === 'ERROR';
  const event = toolResult({
    run_id: runId,
    step: step ?? undefined,
    ts: span.end!.iso,
    call_id: callId,
    name,
    status: failed ? 'error' : 'ok',
    output,
    error: failed ? errorOf(span) : undefined,
    latency_ms: span.start !== null ? Math.max(0, (span.end!.micros - span.start.micros) / 1000) : undefined,
  });
  // Without content capture two results cannot be compared: each gets its own identity, so the
  // repeated-action analysis never takes "no output recorded" for "the same output".
  const digest = output === undefined && !failed ? { hash: contentHash(`otel-span\u0000${span.traceId}\u0000${span.spanId}`), preview: '', chars: 0 } : undefined;
  return digest === undefined ? { event } : { event, digest };
}
