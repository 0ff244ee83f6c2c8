/**
 * The buffered spans of one trace, and which run each belongs to. An agent invocation span
 * (`invoke_agent`) is a run, and so is the trace itself for the spans that belong to no agent
 * invocation. A span belongs to the agent span above it, or — as the Microsoft Agent Framework
 * writes them — to an agent span beside it (same parent) whose time range holds its start. An
 * agent span nested under a tool span is the run that tool call started (a sub-agent).
 */
import type { ToolCall } from '../../../../shared/trace/canonicalEvents';
import type { LineRef } from '../formatAdapter';
import type { Role } from './attributes';
import type { OtelSpan } from './spans';

export interface SpanNode {
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

export interface TraceState {
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

export function byStart(a: SpanNode, b: SpanNode): number {
  return (a.start ?? 0) - (b.start ?? 0);
}

/** The first root span that is not an agent invocation opens and closes the trace-level run. */
export function claimRootRunSpan(trace: TraceState, node: SpanNode): boolean {
  trace.rootRunSpanId ??= node.spanId;
  return trace.rootRunSpanId === node.spanId;
}

/** Which run each span belongs to, and which run a tool call started. */
export class RunResolver {
  private readonly agentsByParent = new Map<string, SpanNode[]>();
  /** By tool span id: the first agent invocation nested under it (a sub-agent the tool call started). */
  private readonly agentsByTool = new Map<string, SpanNode>();

  constructor(private readonly trace: TraceState) {
    for (const node of trace.nodes.values()) {
      if (node.role !== 'agent') continue;
      const key = node.parentId ?? '';
      const siblings = this.agentsByParent.get(key) ?? [];
      siblings.push(node);
      this.agentsByParent.set(key, siblings);
      const tool = this.toolAbove(node);
      const earlier = tool === undefined ? undefined : this.agentsByTool.get(tool.spanId);
      if (tool !== undefined && (earlier === undefined || byStart(node, earlier) < 0)) this.agentsByTool.set(tool.spanId, node);
    }
  }

  /** The run of the agent invocation a tool span started, if one is nested under it. */
  childRunOf(tool: SpanNode): string | undefined {
    const agent = this.agentsByTool.get(tool.spanId);
    return agent === undefined ? undefined : (agent.runId ?? this.agentRunId(agent));
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

  /** The tool span above an agent span, through spans that are neither agents nor model or tool calls. */
  private toolAbove(agent: SpanNode): SpanNode | undefined {
    let parent = agent.parentId === null ? undefined : this.trace.nodes.get(agent.parentId);
    for (let depth = 0; parent?.role === 'other' && depth < 1000; depth += 1) {
      parent = parent.parentId === null ? undefined : this.trace.nodes.get(parent.parentId);
    }
    return parent?.role === 'tool' ? parent : undefined;
  }

  /** The root agent's run is the trace; a nested agent invocation is `<trace id>/<span id>`. */
  private agentRunId(agent: SpanNode): string {
    return agent.parentId === null ? this.trace.traceId : `${this.trace.traceId}/${agent.spanId}`;
  }
}
