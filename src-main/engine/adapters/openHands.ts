/**
 * OpenHands event streams: a JSON array of events (a saved trajectory), streamed element by
 * element (json-values framing with the top-level array streamed: each event is a record anchored
 * to its own bytes, and a document of any size loads in bounded memory); events written back to
 * back, one object each, are read the same way. One file is one run. An evaluation output
 * (`output.jsonl`: one `{instance_id, instruction, metadata, history[], metrics, error, …}` per
 * line) is one run per instance, its `history` streamed the same way.
 *
 * An event is `{id, timestamp, source, message, action | observation, cause?, args | content+extras,
 * tool_call_metadata?, success?}`. An agent action carries `tool_call_metadata{tool_call_id,
 * function_name, model_response}`: the model response (a litellm ChatCompletion) that issued it —
 * repeated on each action when it issued several calls, so a response is emitted once per id. An
 * observation answers the action named by `cause` (and by the same `tool_call_id`). The `finish`
 * tool is OpenHands' completion signal, never executed: a response that only calls it is the final
 * answer. The end is the last `agent_state_changed` to a finished, failed or waiting state, or,
 * failing that, the agent's `finish` action. See docs/formats/openhands.md.
 */
import { CallStartTimes } from './kit/callLatency';
import { isRecord, type Emit, type AdaptedEvent, type DetectionSample, type FormatAdapter, type LineRef } from './formatAdapter';
import {
  callsIfAny,
  defined,
  definedIfAny,
  modelResponse,
  runEnd,
  runStart,
  toolCallStart,
  toolResult,
  unknownEvent,
  type AdaptedToolCall,
} from './kit/events';
import { text, finite, nonNegative, field, fileStem, type JsonObject } from './kit/jsonValues';
import { StepBuilder } from './kit/stepBuilder';

/** Agent actions that run something (legacy, text-parsed ones come without tool_call_metadata). */
const EXECUTABLE_ACTIONS = new Set(['run', 'run_ipython', 'read', 'write', 'edit', 'browse', 'browse_interactive', 'call_tool_mcp', 'think']);
/** Agent actions without a call that end the model's turn: its reply, its finish, its rejection. */
const REPLY_ACTIONS = new Set(['message', 'finish', 'reject']);
/** Agent states that end (or pause) the run when they are the last one written. */
const END_STATES = new Set(['finished', 'error', 'stopped', 'rejected', 'awaiting_user_input', 'awaiting_user_confirmation', 'paused']);
const COMPLETION_TOOL = 'finish';

export function runIdFromPath(path: string): string {
  return fileStem(path, /\.jsonl?$/i);
}

/** OpenHands writes local time without a zone (`datetime.isoformat()`); it is read as UTC so results do not depend on the reader's zone. */
function timestamp(value: unknown): string | undefined {
  const raw = text(value);
  if (raw === undefined) return undefined;
  return /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(raw) ? `${raw}Z` : raw;
}

function isEvent(value: unknown): value is JsonObject {
  return (
    isRecord(value) &&
    typeof value['id'] === 'number' &&
    typeof value['timestamp'] === 'string' &&
    typeof value['source'] === 'string' &&
    (typeof value['action'] === 'string' || typeof value['observation'] === 'string')
  );
}

/** An evaluation instance's head: the members before `history`, with `history` streamed (so empty here). */
function isEvalInstance(value: unknown): value is JsonObject & { instance_id: string; history: unknown[] } {
  return isRecord(value) && typeof value['instance_id'] === 'string' && Array.isArray(value['history']);
}

function describe(value: unknown): string | null {
  if (isEvalInstance(value) && (value.history.length === 0 || isEvent(value.history[0]))) {
    return 'OpenHands evaluation output: one instance {instance_id, history[] of events, metrics, error} per line';
  }
  if (Array.isArray(value) && value.length > 0 && value.slice(0, 5).every(isEvent)) {
    return `OpenHands event stream: a JSON array of ${value.length} events {id, timestamp, source, action | observation}`;
  }
  if (isEvent(value)) return 'OpenHands events: objects {id, timestamp, source, action | observation} written back to back';
  return null;
}

/** Past the detection sample: what the first 64 KiB show, or null. */
function headDescription(head: string): string | null {
  if (/^\s*\{\s*"instance_id"\s*:\s*"/.test(head) && /"history"\s*:\s*\[\s*\{\s*"id"\s*:\s*\d+\s*,\s*"timestamp"\s*:\s*"/.test(head)) {
    return 'OpenHands evaluation output: a line opens with instance_id and its history[] with an event {id, timestamp, …}';
  }
  const trajectory =
    /^\s*\[\s*\{\s*"id"\s*:\s*\d+\s*,\s*"timestamp"\s*:\s*"/.test(head) &&
    /"source"\s*:\s*"(agent|user|environment)"/.test(head) &&
    /"(action|observation)"\s*:\s*"/.test(head);
  return trajectory ? 'OpenHands event stream: a JSON array of events {id, timestamp, source, action | observation}' : null;
}

function callsOf(modelResponse: JsonObject | undefined): AdaptedToolCall[] | undefined {
  const choices = modelResponse?.['choices'];
  const message = Array.isArray(choices) ? field(choices.find(isRecord), 'message') : undefined;
  if (message === undefined || !Array.isArray(message['tool_calls'])) return undefined;
  return message['tool_calls'].filter(isRecord).flatMap((call) => {
    const id = text(call['id']);
    const fn = field(call, 'function');
    return id === undefined ? [] : [{ call_id: id, name: text(fn?.['name']) ?? '(unnamed)', arguments: fn?.['arguments'] }];
  });
}

/**
 * litellm's usage: `prompt_tokens` holds the cached tokens and, for Anthropic, the cache writes
 * (`cache_creation_input_tokens`); `completion_tokens` holds the reasoning tokens.
 */
function usageOf(modelResponse: JsonObject | undefined): JsonObject | undefined {
  const usage = field(modelResponse, 'usage');
  if (usage === undefined) return undefined;
  return definedIfAny({
    input_tokens: finite(usage['prompt_tokens']),
    output_tokens: finite(usage['completion_tokens']),
    cached_input_tokens: finite(field(usage, 'prompt_tokens_details')?.['cached_tokens']),
    cache_write_tokens: nonNegative(usage['cache_creation_input_tokens']),
    reasoning_tokens: nonNegative(field(usage, 'completion_tokens_details')?.['reasoning_tokens']),
    total_tokens: finite(usage['total_tokens']),
  });
}

/** One run: events fed in order, the end decided once all are seen. */
class RunMapper {
  private readonly steps = new StepBuilder();
  private readonly responseSteps = new Map<string, number>();
  /** Action event id → the call it issued, for observations that name their action by `cause`. */
  private readonly actionCalls = new Map<number, { callId: string; name: string; step: number }>();
  /**
   * OpenHands stamps an action when the agent issues it and its observation when the runtime
   * returns, so the time between them is the call's latency (docs/semantics.md §11).
   */
  private readonly callStarts = new CallStartTimes();
  private lastState: { state: string; ts: string | undefined; line: LineRef; afterStep: number } | null = null;
  private finished: { line: LineRef; step: number } | null = null;
  /** An evaluation instance's `error` (`state.last_error`): the run ended in error, or at a limit. */
  private evalError: { message: string; line: LineRef } | null = null;

  constructor(
    readonly runId: string,
    private readonly emit: Emit,
  ) {}

  /** An evaluation instance's head: its task, model and iteration limit. */
  start(instance: JsonObject, line: LineRef): void {
    const metadata = field(instance, 'metadata');
    const model = text(field(metadata, 'llm_config')?.['model']);
    // OpenHands counts an iteration per agent step, one model call each.
    const maxIterations = finite(metadata?.['max_iterations']);
    const budgets = maxIterations !== undefined && Number.isInteger(maxIterations) && maxIterations > 0 ? { max_turns: maxIterations } : undefined;
    this.out(
      runStart({
        run_id: this.runId,
        ts: timestamp(text(metadata?.['start_time'])?.replace(' ', 'T')),
        config: defined({ model, budgets, agent_class: metadata?.['agent_class'] }),
        task: instance['instruction'],
      }),
      'instance',
      line,
    );
    this.noteError(instance, line);
  }

  /** The members written after `history` (metrics, error, instance): kept as an event, the error read. */
  tail(members: JsonObject, line: LineRef): void {
    this.out(unknownEvent('instance (members after history)', { run_id: this.runId }), 'instance', line);
    this.noteError(members, line);
  }

  private noteError(members: JsonObject, line: LineRef): void {
    const message = text(members['error']);
    if (message !== undefined && message !== '') this.evalError = { message, line };
  }

  private out(event: AdaptedEvent, typeRaw: string, line: LineRef): void {
    this.emit({ event, typeRaw, line });
  }

  feed(value: unknown, line: LineRef): void {
    if (!isRecord(value)) {
      this.out(unknownEvent('event (not an object)', { run_id: this.runId }), 'event', line);
      return;
    }
    const action = text(value['action']);
    const observation = text(value['observation']);
    if (action !== undefined) this.action(value, action, line);
    else if (observation !== undefined) this.observation(value, observation, line);
    else this.unknown(value, 'event (no action or observation)', line);
  }

  private unknown(event: JsonObject, typeRaw: string, line: LineRef): void {
    this.out(unknownEvent(typeRaw, { run_id: this.runId, step: this.steps.stepSoFar, ts: timestamp(event['timestamp']) }), typeRaw, line);
  }

  private response(
    fields: { ts: string | undefined; calls: AdaptedToolCall[]; text: string | undefined; rawResponse?: JsonObject | undefined },
    typeRaw: string,
    line: LineRef,
  ): void {
    const step = this.steps.next();
    const { rawResponse } = fields;
    const choices = rawResponse?.['choices'];
    const finishReason = Array.isArray(choices) ? text(choices.find(isRecord)?.['finish_reason']) : undefined;
    const executable = fields.calls.filter((call) => call.name !== COMPLETION_TOOL);
    const completion = fields.calls.filter((call) => call.name === COMPLETION_TOOL);
    // A response that only calls finish is the final answer: its call is listed, never issued.
    const onlyCompletion = executable.length === 0 && completion.length > 0;
    const calls = onlyCompletion ? completion : executable;
    this.out(
      modelResponse({
        run_id: this.runId,
        step,
        ts: fields.ts,
        outcome: onlyCompletion ? 'final' : undefined,
        text: fields.text ?? null,
        tool_calls: callsIfAny(calls),
        completion_calls: onlyCompletion ? undefined : callsIfAny(completion),
        finish_reason: finishReason,
        usage: usageOf(rawResponse),
        model: text(rawResponse?.['model']),
        response_id: text(rawResponse?.['id']),
      }),
      typeRaw,
      line,
    );
  }

  private action(event: JsonObject, action: string, line: LineRef): void {
    const ts = timestamp(event['timestamp']);
    const id = finite(event['id']);
    const metadata = field(event, 'tool_call_metadata');
    const callId = text(metadata?.['tool_call_id']);
    const typeRaw = `action:${action}`;
    if (event['source'] === 'agent' && callId !== undefined) {
      const modelResponse = field(metadata, 'model_response');
      const name = text(metadata?.['function_name']) ?? action;
      const responseId = text(modelResponse?.['id']) ?? `event ${id ?? '?'}`;
      if (!this.responseSteps.has(responseId)) {
        const calls = callsOf(modelResponse) ?? [{ call_id: callId, name, arguments: event['args'] }];
        const choices = modelResponse?.['choices'];
        const message = Array.isArray(choices) ? field(choices.find(isRecord), 'message') : undefined;
        this.response({ ts, calls, text: text(message?.['content']) ?? text(event['message']), rawResponse: modelResponse }, typeRaw, line);
        this.responseSteps.set(responseId, this.steps.step);
      }
      const step = this.responseSteps.get(responseId) ?? this.steps.step;
      if (name === COMPLETION_TOOL || action === 'finish') {
        this.finished = { line, step };
        return;
      }
      if (id !== undefined) this.actionCalls.set(id, { callId, name, step });
      this.callStarts.started(this.runId, callId, ts);
      this.out(toolCallStart({ run_id: this.runId, step, ts, call_id: callId, name, arguments: event['args'] }), typeRaw, line);
      return;
    }
    if (event['source'] === 'agent' && REPLY_ACTIONS.has(action)) {
      const args = field(event, 'args');
      const reply = text(event['message']) ?? text(args?.['content']) ?? text(args?.['final_thought']);
      this.response({ ts, calls: [], text: reply }, typeRaw, line);
      if (action === 'finish') this.finished = { line, step: this.steps.step };
      return;
    }
    if (event['source'] === 'agent' && EXECUTABLE_ACTIONS.has(action) && id !== undefined) {
      // A legacy action parsed from the model's text: no call id, so one is derived from the event id.
      const derived = `${this.runId}:event${id}`;
      this.response(
        { ts, calls: [{ call_id: derived, name: action, arguments: event['args'] }], text: text(field(event, 'args')?.['thought']) ?? text(event['message']) },
        typeRaw,
        line,
      );
      const step = this.steps.step;
      this.actionCalls.set(id, { callId: derived, name: action, step });
      this.callStarts.started(this.runId, derived, ts);
      this.out(toolCallStart({ run_id: this.runId, step, ts, call_id: derived, name: action, arguments: event['args'] }), typeRaw, line);
      return;
    }
    this.unknown(event, event['source'] === 'agent' ? typeRaw : `${typeRaw} (${text(event['source']) ?? '?'})`, line);
  }

  private observation(event: JsonObject, observation: string, line: LineRef): void {
    const ts = timestamp(event['timestamp']);
    const typeRaw = `observation:${observation}`;
    const metadata = field(event, 'tool_call_metadata');
    const cause = finite(event['cause']);
    const issued = cause !== undefined ? this.actionCalls.get(cause) : undefined;
    const callId = text(metadata?.['tool_call_id']) ?? issued?.callId;
    if (observation === 'agent_state_changed') {
      const state = text(field(event, 'extras')?.['agent_state']);
      if (state !== undefined) this.lastState = { state, ts, line, afterStep: this.steps.step };
      this.unknown(event, state !== undefined ? `${typeRaw} (${state})` : typeRaw, line);
      return;
    }
    if (callId === undefined) {
      this.unknown(event, typeRaw, line);
      return;
    }
    // The exit code sits in extras.metadata (since late 2024) or in extras (before).
    const extras = field(event, 'extras');
    const exitCode = finite(field(extras, 'metadata')?.['exit_code']) ?? finite(extras?.['exit_code']);
    const failed = observation === 'error' || observation === 'user_rejected' || (exitCode !== undefined && exitCode !== 0) || event['success'] === false;
    const errorId = text(extras?.['error_id']);
    const code =
      observation === 'error'
        ? errorId || undefined
        : observation === 'user_rejected'
          ? 'user_rejected'
          : exitCode !== undefined && exitCode !== 0
            ? `exit_${exitCode}`
            : undefined;
    const content = event['content'];
    this.out(
      toolResult({
        run_id: this.runId,
        step: issued?.step ?? this.steps.step,
        ts,
        call_id: callId,
        name: text(metadata?.['function_name']) ?? issued?.name ?? observation,
        output: content,
        latency_ms: this.callStarts.latencyOf(this.runId, callId, ts),
        status: failed ? 'error' : undefined,
        error: failed
          ? defined({ code, message: observation === 'error' && typeof content === 'string' ? content.slice(0, 500) : text(event['message']) })
          : undefined,
      }),
      typeRaw,
      line,
    );
  }

  /**
   * The run's end: the last agent state written, if it ends or pauses the run and no model call
   * came after it; else an evaluation instance's error; else the finish action.
   */
  close(): void {
    const state = this.lastState;
    const step = this.steps.step;
    if (state !== null && END_STATES.has(state.state) && state.afterStep === step) {
      this.out(runEnd({ run_id: this.runId, step, ts: state.ts, status: state.state }), 'observation:agent_state_changed', state.line);
      return;
    }
    if (this.evalError !== null) {
      const { message, line } = this.evalError;
      const reason = `derived: the evaluation output's error: ${message}`;
      const end = (status: string, limit?: string) => runEnd({ run_id: this.runId, step, reason, status, limit });
      // OpenHands' controller words for its iteration and budget limits (AgentController._check_…).
      if (/maximum iteration/i.test(message)) this.out(end('budget_exceeded', 'max_turns'), 'instance', line);
      else if (/maximum budget/i.test(message)) this.out(end('budget_exceeded', 'max_cost_usd'), 'instance', line);
      else this.out(end('error'), 'instance', line);
      return;
    }
    if (this.finished !== null && this.finished.step === step) {
      this.out(
        runEnd({
          run_id: this.runId,
          step,
          status: 'finished',
          reason:
            'derived: the last model call is the agent\'s finish action (OpenHands then sets the agent state "finished"); no later agent_state_changed is recorded',
        }),
        'action:finish',
        this.finished.line,
      );
    }
  }
}

export const openHandsFormat: FormatAdapter = {
  name: 'openhands',
  framing: 'json-values',
  streamedArrays: ['', 'history'],
  detect(sample: DetectionSample) {
    const first = sample.framedValues[0];
    if (first !== undefined) return describe(first);
    return headDescription(sample.head);
  },
  createMapper({ path }) {
    const fileRunId = runIdFromPath(path);
    let run: RunMapper | null = null;
    /** Whether `run` is an evaluation instance, whose members after `history` come as an object of their own. */
    let instanceOpen = false;
    return {
      map(value, line, emit) {
        // An object that is not an event (a newer record type) is kept as an unknown event.
        if (!isRecord(value)) return { reason: 'not an OpenHands event: expected an object {id, timestamp, source, action | observation}' };
        if (isEvalInstance(value)) {
          run?.close();
          run = new RunMapper(value.instance_id, emit);
          run.start(value, line);
          instanceOpen = true;
          return undefined;
        }
        if (instanceOpen && run !== null && !isEvent(value) && ('metrics' in value || 'error' in value || 'instance' in value)) {
          run.tail(value, line);
          return undefined;
        }
        run ??= new RunMapper(fileRunId, emit);
        run.feed(value, line);
        return undefined;
      },
      finish() {
        run?.close();
      },
    };
  },
};
