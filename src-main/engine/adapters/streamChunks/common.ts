/**
 * The part of the stream-chunks adapter every provider shares: one streamed response being
 * assembled (text, tool calls joined per call, finish reason, usage), and the log that turns
 * finished responses into canonical events in the right order — the model_response first, anchored
 * to the response's first chunk, then the results of server-side tools that the stream carried.
 */
import type { EventOf, ModelOutcome, Usage } from '../../../../shared/trace/canonicalEvents';
import { classifyResponse, isToolCallFinishReason } from '../../../../shared/trace/modelOutcome';
import type { Emit, LineRef } from '../formatAdapter';
import type { ApiErrorObject } from '../httpExchange/apis';
import { callsIfAny, modelResponse, runEnd, unknownEvent, type AdaptedToolCall } from '../kit/events';
import { nonEmptyText } from '../kit/jsonValues';
import { HeldEvents } from '../kit/stepBuilder';

/** Text kept per response: enough for the summary and a look at it, bounded for long answers. */
const TEXT_CHARS = 4000;
/** Ids of finished responses remembered, so a late chunk of one is not taken for a new response. */
const CLOSED_IDS = 256;
/** Server calls remembered while their result may still come in a later response. */
const WAITING_SERVER_CALLS = 1024;

export interface AssembledCall {
  callId: string | null;
  name: string | null;
  /** Streamed argument fragments, joined once the call is over. */
  argumentParts: string[];
  /** Arguments given whole (an Anthropic `input` object, a final `arguments` string). */
  wholeArguments: unknown;
  streamed: boolean;
  /** Executed by the provider (Anthropic server tools, Responses hosted tools), not by the loop. */
  server: boolean;
  /** An MCP approval request: the loop must answer it before the run can go on. */
  approval: boolean;
}

export interface OpenResponse {
  key: string;
  responseId: string;
  step: number;
  anchor: LineRef;
  anchorTypeRaw: string;
  ts: string | undefined;
  model: string | undefined;
  /** Whose API the stream is: a chunk log names no provider, its shape does (OpenAI's chunks, Anthropic's events). */
  provider: string;
  text: string;
  refusal: string;
  calls: Map<string, AssembledCall>;
  finishReason: string | null;
  /** The stream said the response is over (finish reason, message_stop, response.completed…). */
  ended: boolean;
  /** Set when the provider reported a failure in the stream: the response is incomplete. */
  failure: string | null;
  /** The provider's error that failure carried (docs/semantics.md §7). */
  apiError: ApiErrorObject | null;
  usage: Usage | undefined;
  /** Tool results the stream carried, emitted right after the response. */
  results: HeldEvents;
}

/** What a stream_fragment shows of its chunk. */
export type FragmentFields = Omit<EventOf<'stream_fragment'>, 'type' | 'run_id' | 'step' | 'response_id'>;

export function newCall(fields: Partial<AssembledCall> = {}): AssembledCall {
  return { callId: null, name: null, argumentParts: [], wholeArguments: undefined, streamed: false, server: false, approval: false, ...fields };
}

export function appendText(response: OpenResponse, text: unknown): void {
  if (typeof text !== 'string' || text === '' || response.text.length >= TEXT_CHARS) return;
  response.text += text.slice(0, TEXT_CHARS - response.text.length);
}

export function callFor(response: OpenResponse, key: string, create: () => AssembledCall = () => newCall()): AssembledCall {
  let call = response.calls.get(key);
  if (call === undefined) {
    call = create();
    response.calls.set(key, call);
  }
  return call;
}

/** Non-negative token counts only; anything else is left out rather than guessed. */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

export function isoFromEpochSeconds(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  const date = new Date(value < 1e11 ? value * 1000 : value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function callArguments(call: AssembledCall): unknown {
  if (call.streamed) return call.argumentParts.join('');
  return call.wholeArguments ?? '';
}

/**
 * The response's outcome. A response the stream never finished is incomplete. Otherwise the finish
 * reason decides, with two stream-log specifics: a tool-call finish counts provider-run calls too
 * (Anthropic `tool_use` with only a server tool), and a final answer that used server tools on the
 * way (`end_turn` after a web search) stays final — only calls the loop must run make it `tool_calls`.
 */
function outcomeOf(response: OpenResponse, calls: AssembledCall[]): ModelOutcome {
  const reason = response.finishReason;
  const counted = reason !== null && isToolCallFinishReason(reason) ? calls : calls.filter((call) => !call.server);
  return classifyResponse({
    outcome: !response.ended || response.failure !== null ? 'incomplete' : undefined,
    finishReason: reason,
    toolCallCount: counted.length,
    refusal: response.refusal,
  });
}

/**
 * One stream log = one run: the responses of the file in order, each one step. Keeps what is
 * still open (responses being streamed, server calls waiting for their result, recent ids).
 */
export class StreamLog {
  private nextStep = 1;
  private readonly open = new Map<string, OpenResponse>();
  private readonly closedIds: string[] = [];
  /** Server-side calls issued by an earlier response whose result has not been streamed yet. */
  private readonly serverCallSteps = new Map<string, number>();
  private lastLine: LineRef | null = null;
  private lastTs: string | undefined;
  private lastEnded: { step: number; outcome: ModelOutcome; approvals: number; cut: boolean } | null = null;

  constructor(readonly runId: string) {}

  seen(line: LineRef, ts: string | undefined): void {
    this.lastLine = line;
    if (ts !== undefined) this.lastTs = ts;
  }

  get(key: string): OpenResponse | undefined {
    return this.open.get(key);
  }

  openResponses(): IterableIterator<OpenResponse> {
    return this.open.values();
  }

  wasClosed(responseId: string): boolean {
    return this.closedIds.includes(responseId);
  }

  start(
    key: string,
    responseId: string,
    anchor: LineRef,
    anchorTypeRaw: string,
    ts: string | undefined,
    model: string | undefined,
    provider: string,
  ): OpenResponse {
    const response: OpenResponse = {
      key,
      responseId,
      step: this.nextStep++,
      anchor,
      anchorTypeRaw,
      ts,
      model,
      provider,
      text: '',
      refusal: '',
      calls: new Map(),
      finishReason: null,
      ended: false,
      failure: null,
      apiError: null,
      usage: undefined,
      results: new HeldEvents(),
    };
    this.open.set(key, response);
    return response;
  }

  /** The step a streamed tool result belongs to: that of the response that issued its call. */
  stepOfCall(callId: string, current: OpenResponse | undefined): number | undefined {
    const earlier = this.serverCallSteps.get(callId);
    if (earlier !== undefined) {
      this.serverCallSteps.delete(callId);
      return earlier;
    }
    return current?.step;
  }

  /**
   * A chunk of an open response, kept as a stream_fragment on its own line. The response's first
   * chunk gets one too (besides the model_response anchored there), so the run starts at its line.
   */
  fragment(emit: Emit, response: OpenResponse, line: LineRef, typeRaw: string, fields: FragmentFields = {}): void {
    const event: EventOf<'stream_fragment'> = { type: 'stream_fragment', run_id: this.runId, step: response.step, response_id: response.responseId, ...fields };
    emit({ event, typeRaw, line });
  }

  /** A line that belongs to no open response, or that Loopscope does not model: kept and shown. */
  unknown(emit: Emit, line: LineRef, typeRaw: string, step?: number, ts?: string): void {
    emit({
      event: unknownEvent(typeRaw, { run_id: this.runId, step, ts }),
      typeRaw,
      line,
    });
  }

  /** Emits the response's model_response, then the tool results its stream carried. */
  close(emit: Emit, response: OpenResponse): void {
    this.open.delete(response.key);
    this.closedIds.push(response.responseId);
    if (this.closedIds.length > CLOSED_IDS) this.closedIds.shift();
    const assembled = [...response.calls.values()];
    const outcome = outcomeOf(response, assembled);
    const toolCalls: AdaptedToolCall[] = assembled.map((call, index) => ({
      call_id: call.callId ?? `${response.responseId}:call${index}`,
      name: call.name ?? '(unnamed)',
      arguments: callArguments(call),
    }));
    const cutShort = outcome === 'incomplete' && !response.ended ? 'the stream ended before the response finished' : undefined;
    const event = modelResponse({
      run_id: this.runId,
      step: response.step,
      ts: response.ts,
      outcome,
      finish_reason: response.finishReason ?? undefined,
      text: response.text === '' ? null : response.text,
      refusal: nonEmptyText(response.refusal),
      tool_calls: callsIfAny(toolCalls),
      // A failure the stream reported says more than the cut it caused.
      incomplete_reason: response.failure ?? cutShort,
      api_error: response.apiError ?? undefined,
      usage: response.usage,
      response_id: response.responseId,
      model: response.model,
      provider: response.provider,
    });
    const results = response.results.emitAfter({ event, typeRaw: response.anchorTypeRaw, line: response.anchor }, emit);
    const answered = new Set<string>();
    for (const result of results) if (result.event.type === 'tool_result') answered.add(String(result.event.call_id));
    toolCalls.forEach((call, index) => {
      if (assembled[index]!.server && !answered.has(call.call_id)) this.serverCallSteps.set(call.call_id, response.step);
    });
    for (const callId of this.serverCallSteps.keys()) {
      if (this.serverCallSteps.size <= WAITING_SERVER_CALLS) break;
      this.serverCallSteps.delete(callId);
    }
    this.lastEnded = {
      step: response.step,
      outcome,
      approvals: assembled.filter((call) => call.approval).length,
      cut: !response.ended,
    };
  }

  /** Every response still open is over with the file: finished ones as they are, the rest cut. */
  closeAll(emit: Emit): void {
    for (const response of [...this.open.values()].sort((a, b) => a.step - b.step)) this.close(emit, response);
  }

  /**
   * A stream log records what the model streamed and nothing of the loop around it: tool execution
   * and tool results happen between the responses, outside the log. Its calls are therefore left
   * pending — the run is derived as paused, waiting for the input it would get next (tool results,
   * an approval, the user's next message) — rather than reported dangling for a result the log
   * could never contain.
   */
  finish(emit: Emit): void {
    this.closeAll(emit);
    if (this.lastEnded === null || this.lastLine === null) return;
    const last = this.lastEnded;
    const approval = last.outcome === 'tool_calls' && last.approvals > 0;
    const evidence = last.cut
      ? `the log ends inside the response at step ${last.step}`
      : `the last response (step ${last.step}) ended with outcome ${last.outcome}`;
    const event = runEnd({
      run_id: this.runId,
      ts: this.lastTs,
      status: approval ? 'waiting_for_approval' : 'waiting_for_input',
      reason: `stream log: model output only, no tool execution recorded; ${evidence}`,
    });
    emit({ event, typeRaw: 'end of stream log', line: this.lastLine });
  }
}
