/**
 * Cline task history: `ui_messages.json`, one JSON array of UI messages `{ts, type: say|ask,
 * say|ask, text, …}` per task. See docs/formats/cline.md.
 *
 * A model step starts at each `say:"api_req_started"` (its text holds the step's usage and the
 * user content sent with the request). The messages after it — reasoning, text, tools, commands,
 * completion_result — are the model's response, merged into one model_response when the step
 * closes. Cline writes no tool call ids: each tool or command message is a call whose id is
 * synthesized from its position in the array (`msg-<index>`). Its result is the
 * `[<tool> …] Result:` block that the next api_req_started's request carries for it, in order
 * (what the model was actually sent), else the UI's own evidence (command output, an error
 * message). The array is streamed element by element; each event is anchored to its own element.
 */
import { basename, dirname, extname } from 'node:path';
import type { ApiError, EventOf, ToolCall } from '../../../shared/trace/canonicalEvents';
import { millisFromStartToResult } from './callLatency';
import { isRecord, type Emit, type AdaptedEvent, type FormatAdapter, type FormatMapper, type LineRef, type MappedEvent } from './formatAdapter';
import { defined, modelResponse, runEnd, runStart, toolCallStart, toolResult, unknownEvent } from './kit/events';
import { text as textValue } from './kit/jsonValues';
import { emitOrHold, HeldEvents } from './kit/stepBuilder';

type Outcome = NonNullable<EventOf<'model_response'>['outcome']>;
type Json = Record<string, unknown>;

/** What a tool message's `tool` is answered as in the next request's `[<name> for …] Result:` header. */
const resultHeaderNames: Readonly<Record<string, readonly string[]>> = {
  readFile: ['read_file'],
  editedExistingFile: ['replace_in_file', 'write_to_file', 'apply_patch', 'edit_file'],
  newFileCreated: ['write_to_file', 'apply_patch'],
  fileDeleted: ['apply_patch', 'delete_file'],
  listFilesTopLevel: ['list_files'],
  listFilesRecursive: ['list_files'],
  listCodeDefinitionNames: ['list_code_definition_names'],
  searchFiles: ['search_files'],
  webFetch: ['web_fetch'],
  webSearch: ['web_search'],
  summarizeTask: ['summarize_task'],
  useSkill: ['use_skill'],
  command: ['execute_command'],
  mcp: ['use_mcp_tool', 'access_mcp_resource'],
  browser: ['browser_action'],
};

/** Tools that are not calls in Loopscope's sense (the model talking to the user): their results are the user's answers. */
const conversationalTools = new Set([
  'attempt_completion',
  'ask_followup_question',
  'plan_mode_respond',
  'act_mode_respond',
  'new_task',
  'condense',
  'summarize_task',
  'report_bug',
  'load_mcp_documentation',
  'focus_chain',
  'use_subagents',
]);

/** Tools whose UI `content` is their output (a listing, search hits) or a repeat of the path, not an argument. */
const contentIsOutput = new Set(['readFile', 'listFilesTopLevel', 'listFilesRecursive', 'listCodeDefinitionNames', 'searchFiles', 'webFetch', 'webSearch']);

/** Messages that are the UI's evidence of a failed tool. */
const errorSays = new Set(['error', 'diff_error', 'clineignore_error', 'command_permission_denied']);

const COMMAND_REQ_APP = 'REQ_APP';
const RESULT_HEADER = /^\[([a-z_]+)(?: [^\n]*)?\] Result:[^\S\n]*$/gm;

interface ClineCall {
  callId: string;
  name: string;
  /** Result header names that answer it; empty: any tool that is not conversational. */
  headers: readonly string[];
  arguments: unknown;
  /** An `ask` (waiting for approval) rather than a `say` (approved, running). */
  asked: boolean;
  step: number;
  line: LineRef;
  ts: string;
  outputs: string[];
  outputLine: LineRef | undefined;
  outputTs: string | undefined;
  error: { text: string; line: LineRef; ts: string } | undefined;
}

interface Step {
  step: number;
  line: LineRef;
  ts: string;
  typeRaw: string;
  /** Opened by content with no api_req_started before it (Cline deletes an unfinished one when a task resumes). */
  implicit: boolean;
  usage: Json | undefined;
  cost: number | undefined;
  cancelReason: string | undefined;
  streamingFailed: string | undefined;
  apiFailed: string | undefined;
  model: string | undefined;
  provider: string | undefined;
  texts: string[];
  reasoning: string[];
  completion: string | undefined;
  question: string | undefined;
  calls: ClineCall[];
  /** Events of the step's other messages, emitted after its model_response, in order. */
  held: HeldEvents;
  /** A checkpoint, user message or resume was seen: more model content belongs to a new model call. */
  closedForContent: boolean;
  deletedRange: unknown;
}

type LastWord =
  | { kind: 'open' }
  | { kind: 'completion'; line: LineRef; ts: string; text: string | undefined; typeRaw: string }
  | { kind: 'paused'; status: 'waiting_for_input' | 'waiting_for_approval'; line: LineRef; ts: string; what: string }
  | { kind: 'interrupted'; line: LineRef; ts: string }
  | { kind: 'failed'; line: LineRef; ts: string; text: string }
  | { kind: 'budget'; line: LineRef; ts: string; limit: string; what: string };

interface ResultBlock {
  name: string;
  body: string;
}

/** Cline's failure text as a canonical API error: the `{message, code}` object it writes as JSON text is read as one. */
function apiErrorOf(text: string): ApiError {
  let parsed: unknown;
  try {
    parsed = text.trimStart().startsWith('{') ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!isRecord(parsed) || typeof parsed['message'] !== 'string') return text;
  return { ...(typeof parsed['code'] === 'string' ? { code: parsed['code'] } : {}), message: parsed['message'] };
}

function parseJsonText(text: unknown): Json | undefined {
  if (typeof text !== 'string' || !text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Cline's tokensIn leaves out cache reads and writes (it adds all four for the context size); the request's size is the sum. */
function usageOf(info: Json): Json | undefined {
  const tokensIn = count(info['tokensIn']);
  const tokensOut = count(info['tokensOut']);
  const cacheWrites = count(info['cacheWrites']);
  const cacheReads = count(info['cacheReads']);
  const cost = count(info['cost']);
  const anyInput = tokensIn !== undefined || cacheWrites !== undefined || cacheReads !== undefined;
  if (!anyInput && tokensOut === undefined && cost === undefined) return undefined;
  return {
    ...(anyInput ? { input_tokens: (tokensIn ?? 0) + (cacheWrites ?? 0) + (cacheReads ?? 0) } : {}),
    ...(tokensOut !== undefined ? { output_tokens: tokensOut } : {}),
    ...(cacheReads !== undefined ? { cached_input_tokens: cacheReads } : {}),
    ...(tokensIn !== undefined ? { uncached_input_tokens: tokensIn } : {}),
    ...(cacheWrites !== undefined ? { cache_creation_input_tokens: cacheWrites } : {}),
    ...(cost !== undefined ? { cost_usd: cost } : {}),
  };
}

/** The `[<tool> for '…'] Result:` blocks of a request's text, in order. */
export function resultBlocks(request: string): ResultBlock[] {
  const headers = [...request.matchAll(RESULT_HEADER)];
  return headers.map((match, index) => {
    const start = match.index + match[0].length;
    const end = headers[index + 1]?.index ?? request.length;
    let body = request.slice(start, end);
    // What Cline appends after the last result: the editor's state, a resumption notice.
    for (const marker of ['<environment_details>', '[TASK RESUMPTION]']) {
      const at = body.indexOf(marker);
      if (at !== -1) body = body.slice(0, at);
    }
    return { name: match[1]!, body: body.trim() };
  });
}

function blockOutcome(body: string): { ok: true } | { ok: false; code: string | undefined; message: string } {
  if (body.startsWith('The tool execution failed with the following error:')) {
    const inner = /<error>\s*([\s\S]*?)\s*<\/error>/.exec(body);
    return { ok: false, code: undefined, message: (inner?.[1] ?? body).slice(0, 1000) };
  }
  if (body.startsWith('The user denied this operation')) return { ok: false, code: 'denied', message: body.slice(0, 1000) };
  return { ok: true };
}

function isoOf(ts: unknown): string | undefined {
  if (typeof ts !== 'number' || !Number.isFinite(ts)) return undefined;
  const date = new Date(ts);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A UI message's fields as the adapter reads them. */
interface UiMessage {
  record: Json;
  type: 'say' | 'ask';
  /** The `say` or `ask` subtype. */
  sub: string;
  /** Its `ts` (epoch milliseconds) as ISO text. */
  ts: string;
  /** `<type>/<sub>`: the message's own type, shown beside the canonical one. */
  typeRaw: string;
  /** Its `text`, '' when it has none. */
  text: string;
  /** Its index in the array: a call it makes is named by it (`msg-<index>`). */
  position: number;
  line: LineRef;
}

/** The message's fields, or why the element is not a Cline UI message. */
function readUiMessage(value: unknown, position: number, line: LineRef): UiMessage | string {
  if (!isRecord(value)) return `not an object`;
  const type = value['type'] === 'say' ? 'say' : value['type'] === 'ask' ? 'ask' : undefined;
  const sub = type === undefined ? undefined : value[type];
  if (type === undefined || typeof sub !== 'string') return `no "type":"say"|"ask" with its "say"/"ask" subtype`;
  const ts = isoOf(value['ts']);
  if (ts === undefined) return `no "ts" (epoch milliseconds)`;
  const text = typeof value['text'] === 'string' ? value['text'] : '';
  return { record: value, type, sub, ts, typeRaw: `${type}/${sub}`, text, position, line };
}

/**
 * Cline runs a step's calls one after another and writes each call's message as it starts (or
 * asks for approval), so a call answered by the next request's result block ends where its error
 * message, else the next call's message, else that request is written (docs/semantics.md §11). A
 * task interrupted in between was idle for an unknown time: the call's latency is not recorded.
 */
function sequentialCallLatency(startTs: string, endTs: string, interruptedTs: string | undefined): number | undefined {
  const interruptedInBetween = interruptedTs !== undefined && millisFromStartToResult(startTs, interruptedTs) !== undefined && millisFromStartToResult(interruptedTs, endTs) !== undefined;
  return interruptedInBetween ? undefined : millisFromStartToResult(startTs, endTs);
}

class ClineMapper implements FormatMapper {
  private readonly runId: string;
  private started = false;
  private steps = 0;
  private step: Step | null = null;
  /** Calls of closed steps, waiting for the next request to carry their results. */
  private awaiting: ClineCall[] = [];
  /** The task was interrupted (resume_task) since the awaiting calls were made. */
  private interrupted: { line: LineRef; ts: string } | null = null;
  private last: LastWord = { kind: 'open' };
  private lastDeletedRange = 'null';
  private index = 0;

  constructor(runId: string) {
    this.runId = runId;
  }

  /** One UI message: the document's array is streamed element by element (`streamedArrays: ['']`). */
  map(value: unknown, line: LineRef, emit: Emit): { reason: string } | undefined {
    const why = this.mapMessage(value, line, emit);
    return why === undefined ? undefined : { reason: `element ${this.index - 1} is not a Cline UI message: ${why}` };
  }

  finish(emit: Emit): void {
    this.closeStep(emit);
    this.resolveAtEnd(emit);
    this.deriveEnd(emit);
  }

  private event<T extends AdaptedEvent>(event: T, typeRaw: string, line: LineRef): MappedEvent {
    return { event, typeRaw, line };
  }

  private unknown(typeRaw: string, ts: string, line: LineRef, step = this.step?.step ?? this.steps): MappedEvent {
    return this.event(unknownEvent(typeRaw, { run_id: this.runId, step, ts }), typeRaw, line);
  }

  private mapMessage(value: unknown, line: LineRef, emit: Emit): string | undefined {
    const message = readUiMessage(value, this.index++, line);
    if (typeof message === 'string') return message;
    if (!this.started) {
      const task = message.type === 'say' && message.sub === 'task';
      this.start(message.record, task ? message.text : undefined, message.ts, line, emit);
      if (task) return undefined;
    }
    if (message.type === 'say' && message.sub === 'api_req_started') this.startRequest(message, emit);
    else if (this.mapLoopMessage(message, emit)) return undefined;
    else if (message.type === 'say' && errorSays.has(message.sub)) this.mapError(message, emit);
    // task_progress, error_retry, info, hooks, …: kept as written.
    else this.keepAsWritten(message, emit);
    return undefined;
  }

  /** Kept as an unknown event on its own line, after the open step's model_response when a step is open. */
  private keepAsWritten(message: UiMessage, emit: Emit, typeRaw = message.typeRaw): void {
    emitOrHold(this.step?.held, this.unknown(typeRaw, message.ts, message.line), emit);
  }

  /** A new model request: it ends the open step, carries the results of the calls made since the last one, and opens its own step. */
  private startRequest(message: UiMessage, emit: Emit): void {
    this.closeStep(emit);
    const info = parseJsonText(message.text) ?? {};
    this.resolveAwaiting(typeof info['request'] === 'string' ? info['request'] : '', message.line, message.ts, emit);
    this.openStep(message.record, message.line, message.ts, message.typeRaw, false, info);
    this.last = { kind: 'open' };
  }

  /** A message of Cline's loop (model content, calls and their output, pauses and stops); false for any other kind. */
  private mapLoopMessage(message: UiMessage, emit: Emit): boolean {
    const { type, sub, text, line, ts } = message;
    switch (sub) {
      case 'reasoning':
      case 'text':
        this.mapModelText(message, emit);
        return true;
      case 'completion_result':
        this.mapCompletion(message, emit);
        return true;
      case 'followup':
      case 'plan_mode_respond':
      case 'act_mode_respond':
        if (type !== 'ask') return false;
        this.mapQuestion(message, emit);
        return true;
      case 'tool':
      case 'command':
      case 'use_mcp_server':
      case 'browser_action_launch':
      case 'browser_action':
        this.mapCallMessage(message, emit);
        return true;
      case 'command_output':
      case 'mcp_server_response':
      case 'browser_action_result':
        this.mapCallOutput(message, emit);
        return true;
      case 'api_req_failed':
        if (type !== 'ask') return false;
        if (this.step !== null) this.step.apiFailed = text || 'api_req_failed';
        this.keepAsWritten(message, emit);
        this.last = { kind: 'failed', line, ts, text: text || 'the API request failed' };
        return true;
      case 'resume_task':
      case 'resume_completed_task':
        if (type !== 'ask') return false;
        this.mapResume(message, emit);
        return true;
      case 'mistake_limit_reached':
      case 'auto_approval_max_req_reached':
        if (type !== 'ask') return false;
        this.keepAsWritten(message, emit);
        this.last =
          sub === 'mistake_limit_reached'
            ? { kind: 'budget', line, ts, limit: 'max_consecutive_mistakes', what: 'Cline stopped at its limit of consecutive mistakes and asks the user how to go on' }
            : { kind: 'budget', line, ts, limit: 'max_requests', what: 'Cline reached its limit of auto-approved requests and asks the user to go on' };
        return true;
      case 'user_feedback':
      case 'user_feedback_diff':
        this.keepAsWritten(message, emit);
        if (this.step !== null) this.step.closedForContent = true;
        this.last = { kind: 'open' };
        return true;
      case 'checkpoint_created':
        this.keepAsWritten(message, emit);
        if (this.step !== null && this.stepHasContent(this.step)) this.step.closedForContent = true;
        return true;
      default:
        return false;
    }
  }

  /** The model's reasoning or text: part of the open step's response. */
  private mapModelText(message: UiMessage, emit: Emit): void {
    const reasoning = message.sub === 'reasoning';
    const step = this.contentStep(message.record, message.line, message.ts, message.typeRaw, emit, reasoning);
    if (message.text !== '') {
      const target = reasoning ? step.reasoning : step.texts;
      // Cline sometimes writes one text twice in a row.
      if (target[target.length - 1] !== message.text) target.push(message.text);
    }
    if (message.type === 'say') this.last = { kind: 'open' };
  }

  /** attempt_completion's result: the step's answer (say), or Cline asking the user about it (ask). */
  private mapCompletion(message: UiMessage, emit: Emit): void {
    const { line, ts, text, typeRaw } = message;
    if (message.type === 'say') {
      const step = this.contentStep(message.record, line, ts, typeRaw, emit, false);
      step.completion = text;
      this.last = { kind: 'completion', line, ts, text, typeRaw };
      return;
    }
    const completion = this.step?.completion;
    this.keepAsWritten(message, emit);
    if (this.step !== null) this.step.closedForContent = true;
    if (this.last.kind !== 'completion') this.last = { kind: 'completion', line, ts, text: completion, typeRaw };
  }

  /** The model asking the user (a follow-up question, a plan or act mode answer): the step's last content; the task waits for input. */
  private mapQuestion(message: UiMessage, emit: Emit): void {
    const step = this.contentStep(message.record, message.line, message.ts, message.typeRaw, emit, false);
    const question = parseJsonText(message.text);
    step.question = (question && (textValue(question['question']) ?? textValue(question['response']))) ?? message.text;
    step.closedForContent = true;
    this.last = { kind: 'paused', status: 'waiting_for_input', line: message.line, ts: message.ts, what: message.typeRaw };
  }

  /** A tool, command, MCP or browser message: a call of the open step's response. */
  private mapCallMessage(message: UiMessage, emit: Emit): void {
    if (this.step?.completion !== undefined && !this.step.closedForContent) {
      // attempt_completion's own command (shown to demonstrate the result): part of the completion, not a call.
      this.keepAsWritten(message, emit, `${message.typeRaw} (attempt_completion)`);
      return;
    }
    this.addCall(message.record, message.sub, message.type === 'ask', message.text, message.position, message.line, message.ts, message.typeRaw, emit);
  }

  /** A command's output, an MCP server's response, a browser action's result: the UI's evidence of the latest call's result. */
  private mapCallOutput(message: UiMessage, emit: Emit): void {
    if (this.step?.completion !== undefined) {
      this.keepAsWritten(message, emit, `${message.typeRaw} (attempt_completion)`);
      return;
    }
    const call = this.latestCall();
    if (call === undefined) {
      this.keepAsWritten(message, emit);
      return;
    }
    if (call.outputLine === undefined) {
      call.outputLine = message.line;
      call.outputTs = message.ts;
    }
    if (message.text !== '') call.outputs.push(message.text);
    if (this.last.kind === 'paused' && this.last.status === 'waiting_for_approval') this.last = { kind: 'open' };
  }

  /** Cline asking to resume a task: the open step is over; a task that was not complete was interrupted. */
  private mapResume(message: UiMessage, emit: Emit): void {
    this.closeStep(emit);
    emit(this.unknown(message.typeRaw, message.ts, message.line));
    if (message.sub !== 'resume_task') return;
    this.interrupted ??= { line: message.line, ts: message.ts };
    if (this.last.kind !== 'completion') this.last = { kind: 'interrupted', line: message.line, ts: message.ts };
  }

  private start(message: Json, task: string | undefined, ts: string, line: LineRef, emit: Emit): void {
    this.started = true;
    const modelInfo = isRecord(message['modelInfo']) ? message['modelInfo'] : {};
    const event = runStart({
      run_id: this.runId,
      step: 0,
      ts,
      config: defined({ provider: textValue(modelInfo['providerId']), model: textValue(modelInfo['modelId']), mode: textValue(modelInfo['mode']) }),
      task,
    });
    emit(this.event(event, task !== undefined ? 'say/task' : 'run_start', line));
  }

  private stepHasContent(step: Step): boolean {
    return step.texts.length > 0 || step.reasoning.length > 0 || step.calls.length > 0 || step.completion !== undefined || step.question !== undefined;
  }

  private openStep(message: Json, line: LineRef, ts: string, typeRaw: string, implicit: boolean, info: Json): Step {
    const modelInfo = isRecord(message['modelInfo']) ? message['modelInfo'] : {};
    const deletedRange = message['conversationHistoryDeletedRange'];
    this.step = {
      step: ++this.steps,
      line,
      ts,
      typeRaw,
      implicit,
      usage: usageOf(info),
      cost: count(info['cost']),
      cancelReason: textValue(info['cancelReason']),
      streamingFailed: textValue(info['streamingFailedMessage']),
      apiFailed: undefined,
      model: textValue(modelInfo['modelId']),
      provider: textValue(modelInfo['providerId']),
      texts: [],
      reasoning: [],
      completion: undefined,
      question: undefined,
      calls: [],
      held: new HeldEvents(),
      closedForContent: false,
      deletedRange,
    };
    return this.step;
  }

  /**
   * The step model content belongs to: the open one, or a new one when there is none or the open
   * one is over (a checkpoint, a user message, or reasoning after the response's calls and text:
   * a model call whose api_req_started Cline removed when the task resumed).
   */
  private contentStep(message: Json, line: LineRef, ts: string, typeRaw: string, emit: Emit, reasoning: boolean): Step {
    const step = this.step;
    const over = step === null || step.closedForContent || (reasoning && (step.calls.length > 0 || step.texts.length > 0 || step.completion !== undefined));
    if (!over) return step;
    this.closeStep(emit);
    return this.openStep(message, line, ts, typeRaw, true, {});
  }

  private latestCall(): ClineCall | undefined {
    const calls = this.step?.calls;
    if (calls !== undefined && calls.length > 0) return calls[calls.length - 1];
    return this.step === null || !this.stepHasContent(this.step) ? this.awaiting[this.awaiting.length - 1] : undefined;
  }

  private addCall(message: Json, sub: string, asked: boolean, text: string, position: number, line: LineRef, ts: string, typeRaw: string, emit: Emit): ClineCall {
    const step = this.contentStep(message, line, ts, typeRaw, emit, false);
    let name: string;
    let headers: readonly string[];
    let args: unknown;
    if (sub === 'tool') {
      const tool = parseJsonText(text);
      const kind = tool === undefined ? undefined : textValue(tool['tool']);
      name = kind ?? 'tool';
      headers = (kind !== undefined ? resultHeaderNames[kind] : undefined) ?? [];
      if (tool === undefined) args = { text };
      else {
        const { content, ...rest } = tool;
        args = kind !== undefined && contentIsOutput.has(kind) ? rest : tool;
        void content;
      }
    } else if (sub === 'command') {
      const requiresApproval = text.endsWith(COMMAND_REQ_APP);
      name = 'execute_command';
      headers = resultHeaderNames['command']!;
      args = { command: requiresApproval ? text.slice(0, -COMMAND_REQ_APP.length) : text, ...(requiresApproval ? { requires_approval: true } : {}) };
    } else if (sub === 'use_mcp_server') {
      const request = parseJsonText(text) ?? { text };
      name = textValue(request['toolName']) ?? (textValue(request['type']) === 'access_mcp_resource' ? 'access_mcp_resource' : 'use_mcp_tool');
      headers = resultHeaderNames['mcp']!;
      args = request;
    } else {
      name = 'browser_action';
      headers = resultHeaderNames['browser']!;
      args = sub === 'browser_action_launch' ? { action: 'launch', url: text } : (parseJsonText(text) ?? { text });
    }
    const call: ClineCall = { callId: `msg-${position}`, name, headers, arguments: args, asked, step: step.step, line, ts, outputs: [], outputLine: undefined, outputTs: undefined, error: undefined };
    step.calls.push(call);
    if (asked) this.last = { kind: 'paused', status: 'waiting_for_approval', line, ts, what: `${typeRaw} ${name}` };
    else {
      this.last = { kind: 'open' };
      // A say is written once the call is approved (or auto-approved) and runs.
      const started = toolCallStart({ run_id: this.runId, step: step.step, ts, call_id: call.callId, name, arguments: args });
      step.held.hold(this.event(started, typeRaw, line));
    }
    return call;
  }

  /**
   * An error message: the failure of the call just made, or a call of its own when Cline says it
   * instead of showing the call (a failed replace_in_file, a path blocked by .clineignore, a
   * missing parameter).
   */
  private mapError(message: UiMessage, emit: Emit): void {
    const { record, sub, text, position, line, ts, typeRaw } = message;
    const missing = /^Cline tried to use ([a-z_]+) without value for required parameter/.exec(text);
    const ownCall = sub === 'diff_error' || sub === 'clineignore_error' || missing !== null;
    let call = ownCall ? undefined : this.latestCall();
    if (ownCall) {
      call = this.addCall(record, 'tool', false, JSON.stringify({ tool: sub === 'diff_error' ? 'editedExistingFile' : (missing?.[1] ?? 'tool'), path: text }), position, line, ts, typeRaw, emit);
      if (missing !== null) call.headers = [missing[1]!];
      else if (sub === 'clineignore_error') call.headers = [];
    }
    if (call !== undefined && call.error === undefined) call.error = { text: text || sub, line, ts };
    if (!ownCall) this.keepAsWritten(message, emit);
  }

  private closeStep(emit: Emit): void {
    const step = this.step;
    if (step === null) return;
    this.step = null;
    let outcome: Outcome;
    let incompleteReason: string | undefined;
    if (step.cancelReason !== undefined) {
      outcome = 'incomplete';
      incompleteReason = step.cancelReason;
    } else if (step.apiFailed !== undefined) {
      outcome = 'incomplete';
      incompleteReason = 'api_req_failed';
    } else if (step.implicit) {
      // Cline removes an api_req_started that never got its cost when the task resumes: the request did not finish.
      outcome = 'incomplete';
      incompleteReason = 'interrupted';
    } else if (step.calls.length > 0) outcome = 'tool_calls';
    else if (this.stepHasContent(step)) outcome = 'final';
    else {
      outcome = 'incomplete';
      incompleteReason = 'no_response';
    }
    const texts = [...step.texts, ...(step.question !== undefined ? [step.question] : []), ...(step.completion !== undefined ? [step.completion] : [])];
    const deletedRange = JSON.stringify(step.deletedRange ?? null);
    const truncated = deletedRange !== this.lastDeletedRange;
    this.lastDeletedRange = deletedRange;
    const toolCalls: ToolCall[] = step.calls.map((call) => ({ call_id: call.callId, name: call.name, arguments: call.arguments, ...(call.asked ? { approval: 'asked' } : {}) }));
    const apiFailure = step.streamingFailed ?? step.apiFailed;
    const event = modelResponse({
      run_id: this.runId,
      step: step.step,
      ts: step.ts,
      outcome,
      text: texts.length > 0 ? texts.join('\n') : null,
      tool_calls: toolCalls,
      incomplete_reason: incompleteReason,
      usage: step.usage,
      model: step.model,
      provider: step.provider,
      reasoning: step.reasoning.length > 0 ? step.reasoning.join('\n') : undefined,
      completion_result: step.completion !== undefined ? true : undefined,
      api_error: apiFailure !== undefined ? apiErrorOf(apiFailure) : undefined,
      conversation_history_deleted_range: truncated ? step.deletedRange : undefined,
      api_req_started: step.implicit ? 'missing' : undefined,
    });
    step.held.emitAfter(this.event(event, step.typeRaw, step.line), emit);
    this.awaiting.push(...step.calls);
  }

  /** The calls made since the last request are answered by this request's result blocks, in order. */
  private resolveAwaiting(request: string, line: LineRef, ts: string, emit: Emit): void {
    const calls = this.awaiting;
    this.awaiting = [];
    const interrupted = this.interrupted;
    this.interrupted = null;
    let next = 0;
    for (const block of request === '' ? [] : resultBlocks(request)) {
      const matches = (call: ClineCall): boolean => (call.headers.length === 0 ? !conversationalTools.has(block.name) : call.headers.includes(block.name));
      const at = calls.findIndex((call, index) => index >= next && matches(call));
      if (at === -1) {
        if (!conversationalTools.has(block.name)) emit(this.unknown(`request/${block.name} result (no UI message for its call)`, ts, line, this.steps));
        continue;
      }
      for (const skipped of calls.slice(next, at)) this.resolveFromUi(skipped, interrupted ?? undefined, emit);
      next = at + 1;
      const call = calls[at]!;
      const outcome = blockOutcome(block.body);
      const latency = sequentialCallLatency(call.ts, call.error?.ts ?? calls[at + 1]?.ts ?? ts, interrupted?.ts);
      const event = toolResult({
        run_id: this.runId,
        step: call.step,
        ts,
        call_id: call.callId,
        name: call.name,
        status: outcome.ok ? 'ok' : 'error',
        output: block.body,
        error: outcome.ok ? undefined : defined({ code: outcome.code, message: outcome.message }),
        latency_ms: latency,
        result_of: `request/${block.name}`,
      });
      emit(this.event(event, `say/api_req_started/${block.name} result`, line));
    }
    for (const call of calls.slice(next)) this.resolveFromUi(call, interrupted ?? undefined, emit);
  }

  /**
   * A call with no result block: what the UI shows of its outcome — an error message, an
   * interruption, a command's output. With none of these it stays unanswered.
   */
  private resolveFromUi(call: ClineCall, interrupted: { line: LineRef; ts: string } | undefined, emit: Emit): void {
    const base = { run_id: this.runId, step: call.step, call_id: call.callId, name: call.name, result_of: 'ui' };
    if (call.error !== undefined) {
      // The error message is written when the call fails. An interruption's time is when the
      // task was resumed and a command's output's is its first chunk: neither ends the call.
      const latency = millisFromStartToResult(call.ts, call.error.ts);
      const event = toolResult({
        ...base,
        ts: call.error.ts,
        status: 'error',
        output: call.error.text,
        error: { message: call.error.text.slice(0, 1000) },
        latency_ms: latency,
      });
      emit(this.event(event, 'say/error', call.error.line));
    } else if (interrupted !== undefined) {
      const event = toolResult({
        ...base,
        ts: interrupted.ts,
        status: 'error',
        error: { code: 'interrupted', message: 'the task was interrupted before this call’s result reached the model; Cline tells the model to assume it failed' },
      });
      emit(this.event(event, 'ask/resume_task', interrupted.line));
    } else if (call.outputs.length > 0 && call.outputLine !== undefined) {
      const event = toolResult({ ...base, ts: call.outputTs ?? call.ts, status: 'ok', output: call.outputs.join('\n') });
      emit(this.event(event, 'ask/command_output', call.outputLine));
    }
  }

  /** End of the file: calls with no later request get what the UI shows; a pending approval stays pending. */
  private resolveAtEnd(emit: Emit): void {
    const calls = this.awaiting;
    this.awaiting = [];
    const interrupted = this.interrupted ?? undefined;
    for (const call of calls) {
      if (this.last.kind === 'paused' && this.last.status === 'waiting_for_approval' && call.asked && call.error === undefined && call.outputs.length === 0) continue;
      this.resolveFromUi(call, interrupted, emit);
    }
  }

  /** Cline writes no end of task: it is derived from the task's last message that tells. */
  private deriveEnd(emit: Emit): void {
    const last = this.last;
    const end = (status: string, reason: string, line: LineRef, ts: string, typeRaw: string, extra: Partial<EventOf<'run_end'>> = {}): void => {
      const event = runEnd({ run_id: this.runId, step: this.steps, ts, status, reason: `derived: ${reason}`, ...extra });
      emit(this.event(event, typeRaw, line));
    };
    const at = (line: LineRef): string => `line ${line.lineNumber}`;
    switch (last.kind) {
      case 'completion':
        end('model_finished', `the task's last message is completion_result (${at(last.line)}): attempt_completion, the model presenting its result`, last.line, last.ts, last.typeRaw, {
          ...(last.text !== undefined ? { output: last.text } : {}),
        });
        break;
      case 'paused':
        end(last.status, `the task's last message is ${last.what} (${at(last.line)}), still waiting for the user`, last.line, last.ts, last.what.split(' ')[0]!);
        break;
      case 'interrupted':
        end('interrupted', `the task's last message is ask/resume_task (${at(last.line)}): the task was interrupted and not resumed`, last.line, last.ts, 'ask/resume_task');
        break;
      case 'failed':
        end('failed', `the task's last message is ask/api_req_failed (${at(last.line)}): ${last.text.slice(0, 200)}`, last.line, last.ts, 'ask/api_req_failed');
        break;
      case 'budget':
        end('budget_exceeded', `${last.what} (${at(last.line)})`, last.line, last.ts, `ask/${last.limit === 'max_requests' ? 'auto_approval_max_req_reached' : 'mistake_limit_reached'}`, { limit: last.limit });
        break;
      case 'open':
        break;
    }
  }
}

/** `tasks/<taskId>/ui_messages.json` → the task id; another name → the file's name. */
function runIdOf(path: string): string {
  const directory = basename(dirname(path));
  if (/^\d{10,}$/.test(directory)) return directory;
  const name = basename(path, extname(path));
  return name === '' ? 'cline' : name;
}

function isClineMessage(value: unknown): boolean {
  if (!isRecord(value) || typeof value['ts'] !== 'number') return false;
  return (value['type'] === 'say' && typeof value['say'] === 'string') || (value['type'] === 'ask' && typeof value['ask'] === 'string');
}

/** The first bytes of a document too large to be complete in the detection sample. */
const HEAD_SIGNATURE = /^\s*\[\s*\{\s*"ts"\s*:\s*\d{10,}\s*,\s*"type"\s*:\s*"(?:say|ask)"\s*,\s*"(?:say|ask)"\s*:\s*"[a-z_]+"/;

export const clineFormat: FormatAdapter = {
  name: 'cline',
  framing: 'json-values',
  streamedArrays: [''],
  detect(sample) {
    const document = sample.framedValues[0];
    if (Array.isArray(document)) {
      const head = document.slice(0, 50);
      const messages = head.filter(isClineMessage).length;
      if (head.length > 0 && messages === head.length) {
        const first = document[0] as Json;
        return `Cline task history (ui_messages.json): a JSON array of ${document.length} UI messages {ts, type: say|ask, …}${first['say'] === 'task' ? ', starting with say:"task"' : ''}`;
      }
      return null;
    }
    if (sample.framedValues.length === 0 && HEAD_SIGNATURE.test(sample.head)) {
      return 'Cline task history (ui_messages.json): a JSON array of UI messages {ts, type: say|ask, …} (from its first bytes)';
    }
    return null;
  },
  createMapper({ path }) {
    return new ClineMapper(runIdOf(path));
  },
};
