/**
 * Cline's UI messages mapped to canonical events, message by message: each kind of message goes to
 * the open model step (its response's text, reasoning, calls and their output), to the call
 * results (results.ts) or to the task's last word (steps.ts), and stays an unknown event on its
 * own line otherwise. The array is streamed element by element; each event is anchored to its own
 * element.
 */
import { isRecord, type Emit, type AdaptedEvent, type FormatMapper, type LineRef, type MappedEvent } from '../formatAdapter';
import { defined, runStart, toolCallStart, unknownEvent } from '../kit/events';
import { text as textValue, type JsonObject as Json } from '../kit/jsonValues';
import { emitOrHold } from '../kit/stepBuilder';
import { callRequestOf, parseJsonText, readUiMessage, type UiMessage } from './records';
import { CallResults, type ClineCall } from './results';
import { derivedEnd, newStep, responseOf, stepHasContent, type LastWord, type Step } from './steps';

/** Messages that are the UI's evidence of a failed tool. */
const errorSays = new Set(['error', 'diff_error', 'clineignore_error', 'command_permission_denied']);

export class ClineMapper implements FormatMapper {
  private readonly runId: string;
  private started = false;
  private steps = 0;
  private step: Step | null = null;
  private readonly results: CallResults;
  private last: LastWord = { kind: 'open' };
  private lastDeletedRange = 'null';
  private index = 0;

  constructor(runId: string) {
    this.runId = runId;
    this.results = new CallResults(runId);
  }

  /** One UI message: the document's array is streamed element by element (`streamedArrays: ['']`). */
  map(value: unknown, line: LineRef, emit: Emit): { reason: string } | undefined {
    const why = this.mapMessage(value, line, emit);
    return why === undefined ? undefined : { reason: `element ${this.index - 1} is not a Cline UI message: ${why}` };
  }

  finish(emit: Emit): void {
    this.closeStep(emit);
    this.results.resolveAtEnd(this.last.kind === 'paused' && this.last.status === 'waiting_for_approval', emit);
    const end = derivedEnd(this.last, this.runId, this.steps);
    if (end !== undefined) emit(end);
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
    this.results.resolveWithRequest(typeof info['request'] === 'string' ? info['request'] : '', message.line, message.ts, this.steps, emit);
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
            ? {
                kind: 'budget',
                line,
                ts,
                limit: 'max_consecutive_mistakes',
                what: 'Cline stopped at its limit of consecutive mistakes and asks the user how to go on',
              }
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
        if (this.step !== null && stepHasContent(this.step)) this.step.closedForContent = true;
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
    this.results.interrupt(message.line, message.ts);
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

  private openStep(message: Json, line: LineRef, ts: string, typeRaw: string, implicit: boolean, info: Json): Step {
    this.step = newStep(++this.steps, message, line, ts, typeRaw, implicit, info);
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
    return this.step === null || !stepHasContent(this.step) ? this.results.latest() : undefined;
  }

  private addCall(
    message: Json,
    sub: string,
    asked: boolean,
    text: string,
    position: number,
    line: LineRef,
    ts: string,
    typeRaw: string,
    emit: Emit,
  ): ClineCall {
    const step = this.contentStep(message, line, ts, typeRaw, emit, false);
    const { name, headers, arguments: args } = callRequestOf(sub, text);
    const call: ClineCall = {
      callId: `msg-${position}`,
      name,
      headers,
      arguments: args,
      asked,
      step: step.step,
      line,
      ts,
      outputs: [],
      outputLine: undefined,
      outputTs: undefined,
      error: undefined,
    };
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
      call = this.addCall(
        record,
        'tool',
        false,
        JSON.stringify({ tool: sub === 'diff_error' ? 'editedExistingFile' : (missing?.[1] ?? 'tool'), path: text }),
        position,
        line,
        ts,
        typeRaw,
        emit,
      );
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
    const deletedRange = JSON.stringify(step.deletedRange ?? null);
    const truncated = deletedRange !== this.lastDeletedRange;
    this.lastDeletedRange = deletedRange;
    const event = responseOf(step, this.runId, truncated);
    step.held.emitAfter(this.event(event, step.typeRaw, step.line), emit);
    this.results.await(step.calls);
  }
}
