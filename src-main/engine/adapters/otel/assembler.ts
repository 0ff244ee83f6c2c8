/**
 * OpenTelemetry GenAI spans → canonical events, for the OTLP JSON adapter (otlp.ts) and the
 * console-exporter adapter (console.ts). See docs/formats/otel.md.
 *
 * Spans are exported when they end, children before parents, and not in start order; exporters
 * repeat them (the same span twice, or first open with no end and again closed). So spans are
 * buffered per trace, deduplicated by span id (the most complete record wins: ended over open,
 * then the latest end), and a trace is turned into events once its root span has ended (after a
 * few more records, to merge trailing duplicates), when the buffer grows too large, or at the end
 * of the file. Events are then emitted in time order. Runs are resolved in spanTree.ts, events
 * built in spanEvents.ts.
 */
import type { AdaptedEvent, Emit, LineRef, MappedEvent, ResultDigest } from '../formatAdapter';
import { unknownEvent } from '../kit/events';
import { outputContentOf, roleOf, stringAttr } from './attributes';
import { withGenAiAttributes } from './preConventions';
import { flagAttr, loopscopeAttributes } from '../../../../shared/otel/loopscopeAttributes';
import { modelRequestOf, modelResponseOf, runEndOf, runStartOf, toolCallNotExecutedOf, toolCallStartOf, toolResultOf } from './spanEvents';
import { byStart, claimRootRunSpan, RunResolver, type SpanNode, type TraceState } from './spanTree';
import type { OtelSpan } from './spans';

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
  /** A run end whose time is exact (a run exported by Loopscope): events logged after it stay after it. */
  exact?: boolean;
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

  /**
   * The file is still being written: a trace whose root span has ended is emitted now, and one whose
   * root has not (a root span ends, and is exported, last) shows its spans so far, in its run, which
   * stays `running` until the root comes. Only when every span received hangs under one span not
   * received yet: that is the loop's root agent, whose own model calls end before any sub-agent it
   * starts. Spans under two missing spans (one of them a sub-agent still running) are held until
   * they can be told apart.
   */
  checkpoint(emit: Emit): void {
    // A trace whose root has ended is not held for trailing duplicates: the lines so far are all there is.
    for (const trace of this.rootEnded) this.flush(trace, emit);
    for (const trace of this.traces.values()) {
      if (trace.buffered > 0 && hangsUnderOneMissingSpan(trace)) this.flush(trace, emit);
    }
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
    const push = (key: number | null, rank: number, mapped: MappedEvent, exact = false): void => {
      pending.push({ key: key ?? 0, rank, seq: seq++, mapped, ...(exact ? { exact } : {}) });
    };
    for (const node of dirty) this.eventsOf(trace, node, resolver, push);
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
      // A call no response issued (exported by Loopscope as such) stays an orphan: no response is credited with it.
      const issued = flagAttr(span.attributes, loopscopeAttributes.callIssued) !== false;
      if (issued && issuer !== undefined && issuer.capturedCalls === null && !issuer.endEmitted) {
        const args = span.attributes['gen_ai.tool.call.arguments'];
        issuer.derivedCalls.push({ call_id: callId, name, ...(args !== undefined ? { arguments: args } : {}) });
      }
      tool.callId = callId;
    }
  }

  private eventsOf(
    trace: TraceState,
    node: SpanNode,
    resolver: RunResolver,
    push: (key: number | null, rank: number, mapped: MappedEvent, exact?: boolean) => void,
  ): void {
    const span = node.span;
    if (span === null) return;
    const runId = node.runId!;
    const typeRaw = span.name || '(unnamed span)';
    const mapped = (line: LineRef, event: AdaptedEvent, resultDigest?: ResultDigest): MappedEvent => ({
      event,
      typeRaw,
      line,
      ...(resultDigest ? { resultDigest } : {}),
    });
    const isRunSpan = node.role === 'agent' || (node.parentId === null && claimRootRunSpan(trace, node));
    const startEvent = !node.startEmitted && span.start !== null;
    const endEvent = !node.endEmitted && span.end !== null;
    const step = node.step ?? undefined;

    if (isRunSpan) {
      // A run exported by Loopscope says its status; an unterminated one had no end, whatever its span's.
      const exportedStatus = stringAttr(span.attributes, loopscopeAttributes.runStatus);
      if (startEvent) push(node.start, RANK_RUN_START, mapped(node.firstLine, runStartOf(span, runId, node.role === 'agent')));
      if (endEvent && exportedStatus !== 'unterminated') push(node.end, RANK_RUN_END, mapped(node.line, runEndOf(span, runId)), exportedStatus !== undefined);
    }
    // A root model call or tool call (no agent above it) both bounds the trace's run and is itself an event.
    if (node.role === 'chat') {
      if (startEvent) push(node.start, RANK_EVENT, mapped(node.firstLine, modelRequestOf(span, runId, step)));
      if (endEvent) push(node.end, RANK_EVENT, mapped(node.line, modelResponseOf(span, runId, step, node.derivedCalls)));
    } else if (node.role === 'tool') {
      const callId = node.callId ?? `span:${node.spanId}`;
      // A tool span exported by Loopscope says what its call had: no logged start, no result, or a not-executed mark.
      const started = flagAttr(span.attributes, loopscopeAttributes.callStarted) !== false;
      const unanswered = flagAttr(span.attributes, loopscopeAttributes.callUnanswered) === true;
      const notExecuted = flagAttr(span.attributes, loopscopeAttributes.callNotExecuted) === true;
      if (startEvent && started) push(node.start, RANK_EVENT, mapped(node.firstLine, toolCallStartOf(span, runId, node.step, callId)));
      if (endEvent && notExecuted) push(node.end, RANK_EVENT, mapped(node.line, toolCallNotExecutedOf(span, runId, node.step, callId)));
      else if (endEvent && !unanswered) {
        const result = toolResultOf(span, runId, node.step, callId, resolver.childRunOf(node));
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

/** Whether the spans not yet emitted all lead up, through the spans at hand, to the same missing (or still open) top span. */
function hangsUnderOneMissingSpan(trace: TraceState): boolean {
  const tops = new Set<string>();
  for (const node of trace.nodes.values()) {
    if (!node.dirty) continue;
    let current = node;
    for (let depth = 0; depth < 1000; depth += 1) {
      const parent = current.parentId === null ? undefined : trace.nodes.get(current.parentId);
      if (parent === undefined) break;
      current = parent;
    }
    // A top span at hand (open: its end not received) is that span; otherwise the missing parent.
    tops.add(current.parentId === null ? current.spanId : current.parentId);
    if (tops.size > 1) return false;
  }
  return tops.size === 1;
}

const RANK_RUN_START = 0;
const RANK_EVENT = 1;
const RANK_RUN_END = 2;

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
    if (item.rank === RANK_RUN_END && item.exact !== true) item.key = Math.max(item.key, bound.max);
  }
}
