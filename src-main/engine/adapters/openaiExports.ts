/**
 * OpenAI Responses API exports: response objects and request bodies written as JSON documents
 * (one per file, back to back, or in an array), and AgentOps exports of OpenAI Agents SDK runs
 * (`{trace_id, spans[]}`, responses embedded as JSON strings). See docs/formats/openai-export.md.
 *
 * One file is one run. A response is one model call; a response that used hosted tools
 * (`mcp_call`, `web_search_call`, …) is split at each group of hosted calls into the model calls
 * the server made, since each hosted call's output was read by a further sampling. Client-side
 * calls (`function_call`, …) are answered by `*_call_output` items in a later request's `input[]`;
 * MCP approval requests by `mcp_approval_response` items, then by the `mcp_call` that carries their
 * `approval_request_id`. Correlation is by `call_id` (by `id` for hosted calls and approvals).
 */
import { basename, extname } from 'node:path';
import type { ApiError, EventOf, ToolCall } from '../../../shared/trace/canonicalEvents';
import { isRecord, type Emit, type FormatAdapter, type FormatMapper, type LineRef } from './formatAdapter';
import { defined, definedIfAny, modelRequest, modelResponse, runEnd, runStart, toolCallNotExecuted, toolResult, unknownEvent } from './kit/events';
import { text } from './kit/jsonValues';

type Outcome = NonNullable<EventOf<'model_response'>['outcome']>;
type Json = Record<string, unknown>;

/** Output items the server executed itself; their result is in the item. */
const hostedCallNames: Readonly<Record<string, string>> = {
  web_search_call: 'web_search',
  file_search_call: 'file_search',
  code_interpreter_call: 'code_interpreter',
  image_generation_call: 'image_generation',
  mcp_call: 'mcp',
};

interface OpenCall {
  name: string;
  step: number;
  kind: 'client' | 'approval';
  /** An approval request the client approved: its mcp_call is still to come. */
  approved: boolean;
}

/** The last record of a run: what a run_end is derived from at the end of the file. */
type LastRecord =
  | { kind: 'none' }
  | { kind: 'request' }
  | {
      kind: 'response';
      line: LineRef;
      ts: string | undefined;
      step: number;
      id: string;
      status: string | undefined;
      outcome: Outcome;
      error: string | undefined;
    };

interface RunState {
  id: string;
  steps: number;
  /** Step opened by a request whose response has not come yet. */
  pendingRequestStep: number | null;
  /** Client calls and approval requests waiting for their answer. */
  open: Map<string, OpenCall>;
  /** Every call id a response of this file issued (to tell an orphan from history older than the file). */
  known: Set<string>;
  answered: Set<string>;
  responseIds: Set<string>;
  requests: number;
  last: LastRecord;
  /** The run's end came from the source itself (an Agents SDK run span): nothing to derive. */
  ended: boolean;
  started: boolean;
}

function epochIso(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  const date = new Date(value < 1e11 ? value * 1000 : value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A JSON string holding a document (AgentOps writes Responses objects and prompts that way); undefined when it is not one. */
function parseEmbedded(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === 'null') return undefined;
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[') && !trimmed.startsWith('"')) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

export function isResponsesObject(value: unknown): value is Json {
  if (!isRecord(value) || !Array.isArray(value['output'])) return false;
  const id = value['id'];
  return value['object'] === 'response' || (typeof id === 'string' && id.startsWith('resp_'));
}

export function isResponsesRequest(value: unknown): value is Json {
  if (!isRecord(value) || value['object'] !== undefined || value['output'] !== undefined || value['messages'] !== undefined) return false;
  const input = value['input'];
  if (typeof input !== 'string' && !Array.isArray(input)) return false;
  return (
    typeof value['model'] === 'string' ||
    typeof value['previous_response_id'] === 'string' ||
    typeof value['instructions'] === 'string' ||
    Array.isArray(value['tools'])
  );
}

function isAgentOpsExport(value: unknown): value is Json {
  return (
    isRecord(value) &&
    typeof value['trace_id'] === 'string' &&
    Array.isArray(value['spans']) &&
    value['spans'].some((span) => isRecord(span) && typeof span['span_name'] === 'string')
  );
}

function usageOf(raw: unknown): Json | undefined {
  if (!isRecord(raw)) return undefined;
  const count = (value: unknown): number | undefined =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
  const input = count(raw['input_tokens']);
  const output = count(raw['output_tokens']);
  const total = count(raw['total_tokens']);
  const cached = isRecord(raw['input_tokens_details']) ? count(raw['input_tokens_details']['cached_tokens']) : undefined;
  const reasoning = isRecord(raw['output_tokens_details']) ? count(raw['output_tokens_details']['reasoning_tokens']) : undefined;
  return definedIfAny({ input_tokens: input, output_tokens: output, cached_input_tokens: cached, total_tokens: total, reasoning_tokens: reasoning });
}

function errorText(error: unknown): string | undefined {
  if (error === null || error === undefined) return undefined;
  if (typeof error === 'string') return error;
  if (isRecord(error) && typeof error['message'] === 'string') return error['message'];
  return JSON.stringify(error);
}

/** The Responses `error` object (`{code, message}`) as a canonical API error. */
function apiErrorOf(error: unknown, message: string): ApiError {
  if (!isRecord(error)) return message;
  const code = typeof error['code'] === 'string' ? error['code'] : undefined;
  const type = typeof error['type'] === 'string' ? error['type'] : undefined;
  return { ...(type !== undefined ? { type } : {}), ...(code !== undefined ? { code } : {}), message };
}

/** A client-side call: the client runs it and answers with `<type>_output` carrying the same call_id. */
function clientCall(item: Json, type: string): ToolCall | undefined {
  const callId = text(item['call_id']);
  if (!type.endsWith('_call') || callId === undefined || type in hostedCallNames) return undefined;
  const name = text(item['name']) ?? type.replace(/_call$/, '');
  let args: unknown = item['arguments'];
  // custom_tool_call input is free text (a patch, a query), not JSON: wrapped so that it is not mistaken for broken JSON arguments.
  if (args === undefined && typeof item['input'] === 'string') args = { input: item['input'] };
  args ??= item['action'] ?? item['operation'];
  return { call_id: callId, name, ...(args !== undefined ? { arguments: args } : {}) };
}

function hostedCall(item: Json, type: string): ToolCall | undefined {
  const id = text(item['id']);
  if (id === undefined || !(type in hostedCallNames)) return undefined;
  let args: unknown;
  if (type === 'mcp_call') args = item['arguments'];
  else if (type === 'web_search_call') args = item['action'];
  else if (type === 'file_search_call') args = item['queries'] === undefined ? undefined : { queries: item['queries'] };
  else if (type === 'code_interpreter_call')
    args = { code: item['code'], ...(item['container_id'] !== undefined ? { container_id: item['container_id'] } : {}) };
  const name = type === 'mcp_call' ? (text(item['name']) ?? 'mcp') : hostedCallNames[type]!;
  return {
    call_id: id,
    name,
    ...(args !== undefined ? { arguments: args } : {}),
    hosted: true,
    ...(item['server_label'] !== undefined ? { server_label: item['server_label'] } : {}),
  };
}

/** The result a hosted call carries in its own item. */
function hostedResult(item: Json): { ok: boolean; output: unknown; error: { code?: string; message: string } | undefined } {
  const raw = item['error'];
  const message = errorText(raw);
  const status = text(item['status']);
  const output = item['output'] ?? item['outputs'] ?? item['results'] ?? item['result'];
  if (message !== undefined) {
    const code = isRecord(raw) ? (raw['code'] ?? raw['type']) : undefined;
    return { ok: false, output, error: { ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}), message } };
  }
  if (status === 'failed' || status === 'incomplete') return { ok: false, output, error: { message: `${String(item['type'])} ${status}` } };
  return { ok: true, output, error: undefined };
}

interface SubStep {
  step: number;
  texts: string[];
  refusals: string[];
  reasoning: string[];
  calls: ToolCall[];
  hosted: Json[];
  clientCalls: ToolCall[];
  approvals: ToolCall[];
}

function newSubStep(step: number): SubStep {
  return { step, texts: [], refusals: [], reasoning: [], calls: [], hosted: [], clientCalls: [], approvals: [] };
}

/** What every event of one response carries: its run, its id and time, and where it was read. */
interface ResponseContext {
  run: RunState;
  id: string;
  ts: string | undefined;
  model: string | undefined;
  typeRaw: string;
  line: LineRef;
  emit: Emit;
}

function emitModelResponse(context: ResponseContext, part: SubStep, outcome: Outcome, extra: Partial<EventOf<'model_response'>>): void {
  const { run, id, ts, model, typeRaw, line, emit } = context;
  const event = modelResponse({
    run_id: run.id,
    ts,
    step: part.step,
    outcome,
    text: part.texts.length > 0 ? part.texts.join('\n') : null,
    tool_calls: part.calls,
    refusal: part.refusals.length > 0 ? part.refusals.join('\n') : undefined,
    reasoning: part.reasoning.length > 0 ? part.reasoning.join('\n') : undefined,
    response_id: id,
    model,
    provider: 'openai',
    ...extra,
  });
  emit({ event, typeRaw, line });
}

/** The results of a model call's hosted calls, which the server ran before it sampled again. */
function emitHostedResults(context: ResponseContext, part: SubStep): void {
  const { run, ts, typeRaw, line, emit } = context;
  for (const item of part.hosted) {
    const result = hostedResult(item);
    const callId = text(item['id'])!;
    run.known.add(callId);
    run.answered.add(callId);
    const call = part.calls.find((candidate) => candidate.call_id === callId);
    const event = toolResult({
      run_id: run.id,
      ts,
      step: part.step,
      call_id: callId,
      name: call?.name,
      status: result.ok ? 'ok' : 'error',
      output: result.output,
      error: result.error,
    });
    emit({ event, typeRaw: `${typeRaw}/output/${String(item['type'])}`, line });
  }
}

/**
 * Reads one response's output items in order into model calls. Hosted calls followed by more
 * output close a model call: the server sampled the model again after running them.
 */
class ResponseOutputReader {
  private sub: SubStep;

  constructor(
    private readonly context: ResponseContext,
    firstStep: number,
  ) {
    this.sub = newSubStep(firstStep);
  }

  /** The model call the last output items went to: the one the response's own outcome is for. */
  get current(): SubStep {
    return this.sub;
  }

  read(item: Json): void {
    const { run, ts, typeRaw, line, emit } = this.context;
    const type = text(item['type']) ?? '(no type)';
    if (type === 'message') {
      this.closeHostedStep();
      this.readMessage(item['content']);
      return;
    }
    if (type === 'reasoning') {
      this.closeHostedStep();
      for (const part of Array.isArray(item['summary']) ? item['summary'] : []) {
        if (isRecord(part) && typeof part['text'] === 'string') this.sub.reasoning.push(part['text']);
      }
      return;
    }
    const approvalOf = type === 'mcp_call' ? text(item['approval_request_id']) : undefined;
    const approved = approvalOf === undefined ? undefined : run.open.get(approvalOf);
    if (approvalOf !== undefined && approved?.kind === 'approval') {
      this.emitApprovedCallResult(item, approvalOf, approved);
      return;
    }
    const hosted = hostedCall(item, type);
    if (hosted !== undefined) {
      this.sub.hosted.push(item);
      this.sub.calls.push(hosted);
      return;
    }
    const client = clientCall(item, type);
    if (client !== undefined) {
      this.closeHostedStep();
      this.sub.calls.push(client);
      this.sub.clientCalls.push(client);
      return;
    }
    if (type === 'mcp_approval_request' && typeof item['id'] === 'string') {
      this.closeHostedStep();
      const call: ToolCall = {
        call_id: item['id'],
        name: text(item['name']) ?? 'mcp',
        ...(item['arguments'] !== undefined ? { arguments: item['arguments'] } : {}),
        approval_request: true,
        ...(item['server_label'] !== undefined ? { server_label: item['server_label'] } : {}),
      };
      this.sub.calls.push(call);
      this.sub.approvals.push(call);
      return;
    }
    // mcp_list_tools and item types Loopscope does not model: kept, shown as written.
    emit({ event: unknownEvent(`${typeRaw}/output/${type}`, { run_id: run.id, step: this.sub.step, ts }), typeRaw: `${typeRaw}/output/${type}`, line });
  }

  private readMessage(content: unknown): void {
    if (typeof content === 'string') this.sub.texts.push(content);
    for (const part of Array.isArray(content) ? content : []) {
      if (!isRecord(part)) continue;
      if (part['type'] === 'output_text' && typeof part['text'] === 'string') this.sub.texts.push(part['text']);
      if (part['type'] === 'refusal' && typeof part['refusal'] === 'string') this.sub.refusals.push(part['refusal']);
    }
  }

  /** The execution of a call approved in an earlier step: its result, not a new call. */
  private emitApprovedCallResult(item: Json, approvalId: string, approved: OpenCall): void {
    const { run, ts, typeRaw, line, emit } = this.context;
    run.open.delete(approvalId);
    run.answered.add(approvalId);
    const result = hostedResult(item);
    const event = toolResult({
      run_id: run.id,
      ts,
      step: approved.step,
      call_id: approvalId,
      name: approved.name,
      status: result.ok ? 'ok' : 'error',
      output: result.output,
      error: result.error,
      mcp_call_id: item['id'],
    });
    emit({ event, typeRaw: `${typeRaw}/output/mcp_call`, line });
  }

  private closeHostedStep(): void {
    if (this.sub.hosted.length === 0) return;
    emitModelResponse(this.context, this.sub, 'tool_calls', { hosted_step: true });
    emitHostedResults(this.context, this.sub);
    this.sub = newSubStep(++this.context.run.steps);
  }
}

/** How a response ended, from its status and its last model call, and what its model_response records about it. */
function responseOutcome(response: Json, status: string | undefined, last: SubStep): { outcome: Outcome; extra: Partial<EventOf<'model_response'>> } {
  let outcome: Outcome;
  const extra: Partial<EventOf<'model_response'>> = {};
  const incompleteReason = isRecord(response['incomplete_details']) ? text(response['incomplete_details']['reason']) : undefined;
  const error = errorText(response['error']);
  if (status === 'failed') {
    outcome = 'incomplete';
    extra.incomplete_reason = (isRecord(response['error']) ? text(response['error']['code']) : undefined) ?? 'failed';
    if (error !== undefined) extra.api_error = apiErrorOf(response['error'], error);
  } else if (status === 'incomplete') {
    outcome = 'incomplete';
    extra.incomplete_reason = incompleteReason ?? 'incomplete';
    // The provider's own word for why the response stopped (max_output_tokens, content_filter).
    if (incompleteReason !== undefined) extra.finish_reason = incompleteReason;
  } else if (status !== undefined && status !== 'completed') {
    outcome = 'incomplete';
    extra.incomplete_reason = status;
  } else if (last.refusals.length > 0) {
    // A refusal that came with a call stays a refusal (docs/semantics.md §1).
    outcome = 'refusal';
  } else if (last.calls.length > 0) outcome = 'tool_calls';
  else outcome = 'final';
  const usage = usageOf(response['usage']);
  if (usage !== undefined) extra.usage = usage;
  if (status !== undefined) extra['status'] = status;
  return { outcome, extra };
}

/**
 * Records the client calls and approval requests of a response's last model call: issued by this
 * file, and, when the response asked for them to be run, waiting for their answer.
 */
function openIssuedCalls(run: RunState, last: SubStep, outcome: Outcome): void {
  for (const call of [...last.clientCalls, ...last.approvals]) {
    run.known.add(String(call.call_id));
    if (outcome !== 'tool_calls') continue;
    run.open.set(String(call.call_id), { name: call.name, step: last.step, kind: last.approvals.includes(call) ? 'approval' : 'client', approved: false });
  }
}

class OpenAiExportMapper implements FormatMapper {
  private run: RunState | null = null;

  constructor(private readonly fallbackRunId: string) {}

  map(value: unknown, line: LineRef, emit: Emit): { reason: string } | undefined {
    const records = Array.isArray(value) ? value : [value];
    const rejected: string[] = [];
    records.forEach((record, index) => {
      const why = this.mapRecord(record, line, emit);
      if (why !== undefined) rejected.push(Array.isArray(value) ? `element ${index}: ${why}` : why);
    });
    if (rejected.length === 0) return undefined;
    const loaded = records.length - rejected.length;
    return {
      reason: `${rejected[0]}${rejected.length > 1 ? ` (and ${rejected.length - 1} more)` : ''}${loaded > 0 ? `; the other ${loaded} records were loaded` : ''}`,
    };
  }

  finish(emit: Emit): void {
    const run = this.run;
    if (run === null || run.ended) return;
    const last = run.last;
    if (last.kind !== 'response') return;
    const end = (status: string, reason: string): void => {
      const event = runEnd({ run_id: run.id, step: last.step, ts: last.ts, status, reason: `derived: ${reason}` });
      emit({ event, typeRaw: 'response', line: last.line });
    };
    const approvals = [...run.open.values()].filter((call) => call.kind === 'approval' && !call.approved);
    const clientCalls = [...run.open.values()].filter((call) => call.kind === 'client');
    const where = `the file's last record is response ${last.id}`;
    if (approvals.length > 0) {
      end(
        'waiting_for_approval',
        `${where}, whose ${approvals.map((call) => call.name).join(', ')} MCP call(s) await an mcp_approval_response that the file does not hold`,
      );
    } else if (clientCalls.length > 0) {
      // A file of responses alone cannot hold a tool result: the Responses API takes them in the next request.
      if (run.requests === 0) {
        end(
          'waiting_for_input',
          `${where}, whose ${clientCalls.map((call) => call.name).join(', ')} call(s) await their *_call_output; the Responses API takes those in the next request, and this file records no request`,
        );
      }
    } else if (last.status === 'failed') {
      end('failed', `${where}, with status "failed"${last.error ? `: ${last.error}` : ''}`);
    } else if (last.outcome === 'final') {
      end('model_finished', `${where}, a final message with no tool call, and every call has its result`);
    } else if (last.outcome === 'refusal') {
      end('refused', `${where}, a refusal`);
    }
  }

  private runFor(id: string, line: LineRef, emit: Emit, config: Json, task?: unknown, budgets?: Json): RunState {
    if (this.run === null) {
      this.run = {
        id,
        steps: 0,
        pendingRequestStep: null,
        open: new Map(),
        known: new Set(),
        answered: new Set(),
        responseIds: new Set(),
        requests: 0,
        last: { kind: 'none' },
        ended: false,
        started: false,
      };
    }
    const run = this.run;
    if (!run.started) {
      run.started = true;
      const event = runStart({ run_id: run.id, step: 0, config: { provider: 'openai', ...config, ...defined({ budgets }) }, task });
      emit({ event, typeRaw: 'run_start', line });
    }
    return run;
  }

  private mapRecord(record: unknown, line: LineRef, emit: Emit): string | undefined {
    if (isAgentOpsExport(record)) {
      this.mapAgentOps(record, line, emit);
      return undefined;
    }
    if (isResponsesObject(record)) {
      const model = text(record['model']);
      const run = this.runFor(this.fallbackRunId, line, emit, model !== undefined ? { model } : {});
      this.mapResponse(run, record, line, emit, 'response');
      return undefined;
    }
    if (isResponsesRequest(record)) {
      const model = text(record['model']);
      const run = this.runFor(
        this.fallbackRunId,
        line,
        emit,
        model !== undefined ? { model } : {},
        typeof record['input'] === 'string' ? record['input'] : undefined,
      );
      this.mapRequest(run, record, line, emit);
      return undefined;
    }
    if (!isRecord(record)) return `not an OpenAI Responses record: ${Array.isArray(record) ? 'an array' : record === null ? 'null' : `a ${typeof record}`}`;
    const keys = Object.keys(record).slice(0, 6).join(', ');
    return `not an OpenAI Responses object (no "output" array), request body (no "input") or Agents SDK span export (no "trace_id" and "spans"): keys ${keys}`;
  }

  /**
   * A request body: its input's *_call_output items answer the calls of earlier responses, its
   * mcp_approval_response items answer approval requests; then the request itself is logged.
   */
  private mapRequest(run: RunState, request: Json, line: LineRef, emit: Emit, typeRaw = 'request', ts?: string): void {
    run.requests += 1;
    const step = (run.pendingRequestStep ??= ++run.steps);
    const input = request['input'];
    const items = Array.isArray(input) ? input : [];
    const previous = text(request['previous_response_id']);
    const replayed = new Set<string>();
    for (const item of items) {
      if (isRecord(item) && typeof item['type'] === 'string' && item['type'].endsWith('_call') && typeof item['call_id'] === 'string')
        replayed.add(item['call_id']);
    }
    const answeredApprovals = new Set<string>();
    for (const item of items) {
      if (!isRecord(item)) continue;
      const type = text(item['type']) ?? '';
      if (type.endsWith('_call_output') && typeof item['call_id'] === 'string') {
        this.mapCallOutput(run, item, type, item['call_id'], { replayed: replayed.has(item['call_id']), previous }, line, emit, ts);
      } else if (type === 'mcp_approval_response' && typeof item['approval_request_id'] === 'string') {
        answeredApprovals.add(item['approval_request_id']);
        this.mapApprovalResponse(run, item, item['approval_request_id'], line, emit, ts);
      }
    }
    // An approval request the next request does not answer is dropped by the API: it was not run.
    if (run.last.kind === 'response') {
      for (const [callId, call] of run.open) {
        if (call.kind !== 'approval' || call.approved || answeredApprovals.has(callId)) continue;
        run.open.delete(callId);
        run.answered.add(callId);
        const event = toolCallNotExecuted({
          run_id: run.id,
          step: call.step,
          ts,
          call_id: callId,
          name: call.name,
          reason: 'approval request dropped: the next request carried no mcp_approval_response for it',
        });
        emit({ event, typeRaw: `${typeRaw}/input`, line });
      }
    }
    const params: Json = { ...request };
    for (const key of ['model', 'instructions', 'tools', 'input']) delete params[key];
    const { model, instructions, tools } = request;
    const event = modelRequest({
      run_id: run.id,
      step,
      ts,
      model: text(model),
      provider: 'openai',
      system: instructions ?? undefined,
      messages: typeof input === 'string' ? [{ role: 'user', content: input }] : items,
      tools: Array.isArray(tools) ? tools : undefined,
      params,
    });
    emit({ event, typeRaw, line });
    run.last = { kind: 'request' };
  }

  private mapCallOutput(
    run: RunState,
    item: Json,
    type: string,
    callId: string,
    context: { replayed: boolean; previous: string | undefined },
    line: LineRef,
    emit: Emit,
    ts: string | undefined,
  ): void {
    const call = run.open.get(callId);
    if (call === undefined) {
      // Resent history (a client that replays the whole conversation) answers a call again: not a new result.
      if (run.answered.has(callId)) return;
      // The call was issued by a response this file does not hold (older history): nothing to pair it with.
      const olderThanFile = !run.known.has(callId) && (context.replayed || (context.previous !== undefined && !run.responseIds.has(context.previous)));
      if (olderThanFile) {
        const typeRaw = `input/${type} (call issued before this file)`;
        emit({ event: unknownEvent(typeRaw, { run_id: run.id, step: run.steps, ts }), typeRaw, line });
        run.answered.add(callId);
        return;
      }
    }
    run.open.delete(callId);
    run.answered.add(callId);
    const failed = item['status'] === 'failed';
    const event = toolResult({
      run_id: run.id,
      step: call?.step ?? run.steps,
      ts,
      call_id: callId,
      name: call?.name,
      status: failed ? 'error' : 'ok',
      output: item['output'],
      error: failed ? { message: `${type} status failed` } : undefined,
    });
    emit({ event, typeRaw: `input/${type}`, line });
  }

  private mapApprovalResponse(run: RunState, item: Json, approvalId: string, line: LineRef, emit: Emit, ts: string | undefined): void {
    const call = run.open.get(approvalId);
    if (call === undefined || call.kind !== 'approval') {
      if (run.answered.has(approvalId) || call?.approved) return;
      const typeRaw = 'input/mcp_approval_response (request not in this file)';
      emit({ event: unknownEvent(typeRaw, { run_id: run.id, step: run.steps, ts }), typeRaw, line });
      return;
    }
    if (call.approved) return;
    if (item['approve'] === true) {
      // Approved: the answer is the mcp_call of the next response.
      call.approved = true;
      return;
    }
    run.open.delete(approvalId);
    run.answered.add(approvalId);
    const reason = text(item['reason']);
    const event = toolCallNotExecuted({
      run_id: run.id,
      step: call.step,
      ts,
      call_id: approvalId,
      name: call.name,
      reason: `approval denied${reason ? `: ${reason}` : ''}`,
    });
    emit({ event, typeRaw: 'input/mcp_approval_response', line });
  }

  /** One response: one model call, or several when hosted tools ran between samplings. */
  private mapResponse(run: RunState, response: Json, line: LineRef, emit: Emit, typeRaw: string): void {
    const id = text(response['id']) ?? `response@${line.lineNumber}`;
    const context: ResponseContext = { run, id, ts: epochIso(response['created_at']), model: text(response['model']), typeRaw, line, emit };
    const status = text(response['status']);
    run.responseIds.add(id);
    const reader = new ResponseOutputReader(context, run.pendingRequestStep ?? ++run.steps);
    run.pendingRequestStep = null;
    const output = Array.isArray(response['output']) ? response['output'] : [];
    for (const item of output) if (isRecord(item)) reader.read(item);
    const last = reader.current;
    const { outcome, extra } = responseOutcome(response, status, last);
    emitModelResponse(context, last, outcome, extra);
    emitHostedResults(context, last);
    openIssuedCalls(run, last, outcome);
    run.last = { kind: 'response', line, ts: context.ts, step: last.step, id, status, outcome, error: errorText(response['error']) };
  }

  /** AgentOps' export of an Agents SDK run: the run span, and one response span per model call. */
  private mapAgentOps(record: Json, line: LineRef, emit: Emit): void {
    const spans = (record['spans'] as unknown[]).filter(isRecord);
    const attributesOf = (span: Json): Json => (isRecord(span['span_attributes']) ? span['span_attributes'] : {});
    const sdkSpanId = (span: Json): string => {
      const own = attributesOf(span)['span'];
      return (isRecord(own) ? text(own['id']) : undefined) ?? text(span['span_id']) ?? '';
    };
    const completionOf = (span: Json): unknown => {
      const genAi = attributesOf(span)['gen_ai'];
      const completion = isRecord(genAi) && Array.isArray(genAi['completion']) ? genAi['completion'][0] : undefined;
      const first = isRecord(completion) ? completion['0'] : undefined;
      return isRecord(first) ? parseEmbedded(first['content']) : undefined;
    };
    // AgentOps exports an SDK span once when it starts and once when it ends: keep one per SDK span id, the one with data.
    const bySpan = new Map<string, Json>();
    for (const span of spans) {
      const key = sdkSpanId(span);
      const kept = bySpan.get(key);
      if (kept === undefined || (completionOf(kept) === undefined && completionOf(span) !== undefined)) bySpan.set(key, span);
    }
    const runSpan = [...bySpan.values()].find((span) => text(span['span_name'])?.startsWith('agents.run') === true);
    const workflow = runSpan === undefined ? {} : attributesOf(runSpan)['workflow'];
    const genAi = runSpan === undefined ? {} : attributesOf(runSpan)['gen_ai'];
    const agent = runSpan === undefined ? {} : attributesOf(runSpan)['agent'];
    const request = isRecord(genAi) ? genAi['request'] : undefined;
    const model = isRecord(request) ? text(request['model']) : undefined;
    const maxTurns = isRecord(workflow) ? Number(workflow['max_turns']) : NaN;
    const task = isRecord(workflow) ? parseEmbedded(workflow['input']) : undefined;
    const run = this.runFor(
      text(record['trace_id'])!,
      line,
      emit,
      {
        ...(model !== undefined ? { model } : {}),
        ...(isRecord(agent) && typeof agent['name'] === 'string' ? { agent: agent['name'] } : {}),
        exporter: 'agentops',
      },
      task,
      Number.isInteger(maxTurns) && maxTurns > 0 ? { max_turns: maxTurns } : undefined,
    );
    for (const span of bySpan.values()) {
      if (span === runSpan) continue;
      const name = text(span['span_name']) ?? '(unnamed span)';
      const response = completionOf(span);
      if (name === 'agents.response' && isResponsesObject(response)) {
        const attributes = attributesOf(span);
        const promptHolder = attributes['gen_ai'];
        const prompt = isRecord(promptHolder) ? parseEmbedded(promptHolder['prompt']) : undefined;
        const ts = epochIso(response['created_at']);
        if (Array.isArray(prompt) || typeof prompt === 'string') {
          this.mapRequest(
            run,
            {
              input: prompt,
              ...(typeof response['model'] === 'string' ? { model: response['model'] } : {}),
              ...(response['instructions'] !== undefined ? { instructions: response['instructions'] } : {}),
            },
            line,
            emit,
            'span/agents.response/prompt',
            ts,
          );
        }
        this.mapResponse(run, response, line, emit, 'span/agents.response');
        continue;
      }
      const typeRaw = `span/${name}${name === 'agents.response' ? ' (no response recorded)' : ''}`;
      const event = unknownEvent(typeRaw, { run_id: run.id, step: run.steps });
      emit({ event, typeRaw, line });
    }
    if (runSpan === undefined) return;
    // The run span closes the run: its status, or the final output it recorded.
    const statusCode = text(runSpan['status_code']) ?? '';
    const finalOutput = isRecord(workflow) ? workflow['final_output'] : undefined;
    let status: string | undefined;
    let reason: string | undefined;
    if (statusCode.toLowerCase() === 'error') {
      status = 'failed';
      reason = `the agents.run span has status_code "${statusCode}"${text(runSpan['status_message']) ? `: ${text(runSpan['status_message'])}` : ''}`;
    } else if (typeof finalOutput === 'string' && finalOutput !== '' && finalOutput !== 'null') {
      status = 'model_finished';
      reason = `the agents.run span records workflow.final_output (status_code "${statusCode || 'none'}")`;
    }
    if (status === undefined) return;
    run.ended = true;
    const event = runEnd({ run_id: run.id, step: run.steps, status, reason: `derived: ${reason}`, output: text(finalOutput) });
    emit({ event, typeRaw: `span/${text(runSpan['span_name']) ?? 'agents.run'}`, line });
  }
}

function describeRecord(value: unknown): string | null {
  if (isAgentOpsExport(value)) return 'an AgentOps export of an OpenAI Agents SDK run ({trace_id, spans[]})';
  if (isResponsesObject(value)) return `an OpenAI Responses API response object (${String(value['id'])})`;
  if (isResponsesRequest(value)) return 'an OpenAI Responses API request body (model, input)';
  if (Array.isArray(value)) {
    const inner = value
      .slice(0, 20)
      .map(describeRecord)
      .filter((reason) => reason !== null);
    if (inner.length > 0 && inner.length === Math.min(value.length, 20)) return `an array of ${value.length} Responses API records (first: ${inner[0]})`;
  }
  return null;
}

/** For a document too large to be complete in the detection sample: its first bytes. */
const headSignatures: readonly [RegExp, string][] = [
  [/^\s*\{\s*"trace_id"\s*:\s*"[^"]*"\s*,\s*"spans"\s*:\s*\[\s*\{\s*"span_id"/, 'an AgentOps export of an OpenAI Agents SDK run (from its first bytes)'],
  [/^\s*\{\s*"id"\s*:\s*"resp_[^"]*"\s*,\s*"object"\s*:\s*"response"/, 'an OpenAI Responses API response object (from its first bytes)'],
];

export const openaiExportFormat: FormatAdapter = {
  name: 'openai-export',
  framing: 'json-values',
  detect(sample) {
    // JSON values back to back: a single document, pretty-printed documents, or one per line.
    const values = sample.framedValues;
    if (values.length > 0) {
      const reasons = values.map(describeRecord);
      // Every complete record is one of ours (a stream of Responses events or a Codex rollout is not).
      if (reasons.every((reason) => reason !== null)) {
        return values.length === 1 ? `${reasons[0]}` : `${values.length} JSON documents, each a Responses API record (first: ${reasons[0]})`;
      }
      return null;
    }
    for (const [pattern, reason] of headSignatures) if (pattern.test(sample.head)) return reason;
    return null;
  },
  createMapper({ path }) {
    const name = basename(path, extname(path));
    return new OpenAiExportMapper(name === '' ? 'openai-export' : name);
  },
};
