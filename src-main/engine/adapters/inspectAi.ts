/**
 * Inspect AI eval logs: the `.eval` container (a ZIP of JSON entries: `_journal/start.json`,
 * `samples/<id>_epoch_<n>.json`, `summaries.json`, `reductions.json`, `header.json`, read one
 * entry per record with the `zip-json` framing, so an event's "line" is its entry's number) and
 * the older plain `.json` log (one document `{version, status, eval, plan, results, stats,
 * samples[]}`, streamed: the head, then each sample as a record of its own, then the members
 * after `samples`).
 *
 * Each sample (one epoch of one dataset item) is a run `<eval_id>/<sample id>/epoch<n>`: its
 * `model` events are the steps (input → model_request, output → model_response with the tool
 * calls, stop reason and usage), its `tool` events the results; a sample without model events is
 * read from its `messages` (assistant `tool_calls`, `tool` messages by `tool_call_id`). The
 * sample's `error` or `limit` ends the run; a sample written without either has finished (Inspect
 * writes a sample once it is done). The eval itself is one more run, `<eval_id>`: its start
 * (task, model, limits), the summaries and reductions (unknown events), and its end from the
 * header's `status` (`started` is not an end). See docs/formats/inspect-ai.md.
 */
import type { SpanMarker } from '../../../shared/trace/spanTree';
import { isRecord, type Emit, type AdaptedEvent, type DetectionSample, type FormatAdapter, type FormatMapper, type LineRef } from './formatAdapter';
import { callsIfAny, defined, definedIfAny, modelRequest, modelResponse, runEnd, runStart, toolResult, unknownEvent, type AdaptedToolCall } from './kit/events';
import { text, finite, nonNegative, field, list, contentText, ADJACENT_TEXT_PARTS, fileStem, type JsonObject } from './kit/jsonValues';
import { StepBuilder } from './kit/stepBuilder';

const ATTACHMENT_PREFIX = 'attachment://';

function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** `header.json`, `_journal/start.json`, or the head of a plain JSON log: `{version, eval{task, model, …}, …}`. */
function isEvalHeader(value: unknown): value is JsonObject {
  const evalSpec = field(value, 'eval');
  return (
    isRecord(value) &&
    finite(value['version']) !== undefined &&
    evalSpec !== undefined &&
    typeof evalSpec['task'] === 'string' &&
    typeof evalSpec['model'] === 'string'
  );
}

/** `samples/<id>_epoch_<n>.json`, or an item of a plain log's `samples[]`. */
function isSample(value: unknown): value is JsonObject {
  return (
    isRecord(value) &&
    idOf(value['id']) !== undefined &&
    finite(value['epoch']) !== undefined &&
    (Array.isArray(value['messages']) || Array.isArray(value['events']))
  );
}

function headLooksLikeJsonLog(head: string): boolean {
  return /^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"[a-z]+"\s*,\s*"eval"\s*:\s*\{\s*"(?:eval_id|run_id)"\s*:/.test(head);
}

function runIdFromPath(path: string): string {
  return fileStem(path, /\.(eval|json)$/i);
}

/**
 * Inspect's `ModelUsage` as canonical usage, whose `input_tokens` is the whole input. Inspect
 * copies the provider's split: Anthropic's `input_tokens` leaves out the cache reads and writes
 * (its `total_tokens` = input + cache read + cache write + output), OpenAI's includes the cached
 * tokens (`total_tokens` = input + output). So the cache reads and writes are added to the input
 * unless the logged total shows the input already holds them. `cached_input_tokens` = cache reads,
 * `cache_write_tokens` = cache writes, `reasoning_tokens` as logged.
 */
function usageOf(usage: JsonObject | undefined): JsonObject | undefined {
  if (usage === undefined) return undefined;
  const loggedInput = finite(usage['input_tokens']);
  const output = finite(usage['output_tokens']);
  const cacheRead = finite(usage['input_tokens_cache_read']);
  const cacheWrite = finite(usage['input_tokens_cache_write']);
  const reasoning = nonNegative(usage['reasoning_tokens']);
  const total = finite(usage['total_tokens']);
  const cost = finite(usage['total_cost']);
  const cacheTokens = (cacheRead ?? 0) + (cacheWrite ?? 0);
  const inputLeavesOutCache = loggedInput !== undefined && (total === undefined || total >= loggedInput + (output ?? 0) + cacheTokens);
  const input = loggedInput !== undefined && inputLeavesOutCache ? loggedInput + cacheTokens : loggedInput;
  return definedIfAny({
    input_tokens: input,
    output_tokens: output,
    cached_input_tokens: cacheRead,
    cache_write_tokens: cacheWrite !== undefined && cacheWrite >= 0 ? cacheWrite : undefined,
    reasoning_tokens: reasoning,
    total_tokens: total,
    cost_usd: cost !== undefined && cost >= 0 ? cost : undefined,
  });
}

/** Inspect names a model `provider/model` (`openai/gpt-4o`, `anthropic/claude-…`): the provider it called, and the model. */
function splitModelName(name: string | undefined): { provider: string | undefined; model: string | undefined } {
  const slash = name?.indexOf('/') ?? -1;
  if (name === undefined || slash <= 0) return { provider: undefined, model: name };
  return { provider: name.slice(0, slash), model: name.slice(slash + 1) };
}

/** The eval's limits that are canonical budgets: the per-sample time limit and the cost limit. */
function budgetsOf(config: JsonObject | undefined): JsonObject | undefined {
  if (config === undefined) return undefined;
  const time = finite(config['time_limit']);
  const cost = finite(config['cost_limit']);
  return definedIfAny({
    deadline_ms: time !== undefined && time > 0 ? time * 1000 : undefined,
    max_cost_usd: cost !== undefined && cost > 0 ? cost : undefined,
  });
}

const LIMIT_KEYS = ['message_limit', 'token_limit', 'time_limit', 'working_limit', 'cost_limit'];

interface EvalContext {
  runId: string;
  task: string;
  model: string;
  /** The limits the eval declared (`message_limit`, `token_limit`, …), kept in each run's config. */
  limits: JsonObject;
  budgets: JsonObject | undefined;
}

class InspectAiMapper implements FormatMapper {
  private context: EvalContext | null = null;
  private evalStarted = false;
  private evalEnded = false;
  /** The last header with a final status: the eval's end, emitted once every sample is in. */
  private finalHeader: { header: JsonObject; line: LineRef } | null = null;

  constructor(private readonly path: string) {}

  map(value: unknown, line: LineRef, emit: Emit): undefined {
    if (isEvalHeader(value)) {
      this.mapHeader(value, line, emit);
      // The eval ends after its samples: in a plain JSON log they are streamed after this head.
      if (text(value['status']) !== 'started') this.finalHeader = { header: value, line };
      return undefined;
    }
    if (isSample(value)) {
      this.mapSample(value, line, emit);
      return undefined;
    }
    // summaries.json, _journal/summaries/<n>.json, reductions.json and anything else: kept on the eval's run.
    const typeRaw = Array.isArray(value) ? 'summaries/reductions' : isRecord(value) ? 'entry' : typeof value;
    emit({ event: unknownEvent(typeRaw, { run_id: this.evalRunId() }), typeRaw, line });
    return undefined;
  }

  finish(emit: Emit): void {
    if (this.finalHeader !== null) this.mapHeaderEnd(this.finalHeader.header, this.finalHeader.line, emit);
  }

  private evalRunId(): string {
    return this.context?.runId ?? runIdFromPath(this.path);
  }

  private mapHeader(header: JsonObject, line: LineRef, emit: Emit): void {
    const evalSpec = field(header, 'eval') ?? {};
    const config = field(evalSpec, 'config');
    const limits: JsonObject = {};
    for (const key of LIMIT_KEYS) if (config?.[key] !== undefined && config[key] !== null) limits[key] = config[key];
    this.context ??= {
      runId: text(evalSpec['eval_id']) ?? text(evalSpec['run_id']) ?? runIdFromPath(this.path),
      task: text(evalSpec['task']) ?? '',
      model: text(evalSpec['model']) ?? '',
      limits,
      budgets: budgetsOf(config),
    };
    if (this.evalStarted) return;
    this.evalStarted = true;
    const ts = text(field(header, 'stats')?.['started_at']) ?? text(evalSpec['created']);
    emit({ event: runStart({ run_id: this.context.runId, ts, ...this.startFields() }), typeRaw: 'eval', line });
  }

  private startFields(extra: JsonObject = {}): Pick<Extract<AdaptedEvent, { type: 'run_start' }>, 'config' | 'task'> {
    const context = this.context;
    if (context === null) return {};
    const provider = context.model.includes('/') ? context.model.slice(0, context.model.indexOf('/')) : undefined;
    return {
      config: {
        ...defined({ model: context.model, provider, budgets: context.budgets, limits: Object.keys(context.limits).length > 0 ? context.limits : undefined }),
        ...extra,
      },
      task: context.task,
    };
  }

  /** The eval's end, from the header's status; `started` (still running) is not an end. */
  private mapHeaderEnd(header: JsonObject, line: LineRef, emit: Emit): void {
    const status = text(header['status']);
    if (status === undefined || status === 'started' || this.evalEnded) return;
    this.evalEnded = true;
    const ts = text(field(header, 'stats')?.['completed_at']);
    const message = text(field(header, 'error')?.['message']);
    emit({
      event: runEnd({ run_id: this.evalRunId(), status, ts, reason: message }),
      typeRaw: 'eval/status',
      line,
    });
  }

  private mapSample(sample: JsonObject, line: LineRef, emit: Emit): void {
    const sampleId = idOf(sample['id']) ?? '?';
    const epoch = finite(sample['epoch']) ?? 1;
    const runId = `${this.evalRunId()}/${sampleId}/epoch${epoch}`;
    const resolve = attachmentResolver(sample);
    const out = (event: AdaptedEvent, typeRaw: string): void => emit({ event, typeRaw, line });
    const events = list(sample, 'events').filter(isRecord);
    const firstTs = sampleStart(sample, events);
    out(runStart({ run_id: runId, ts: firstTs, ...this.startFields({ sample_id: sample['id'], epoch }) }), 'sample');

    const state: SampleState = { runId, steps: new StepBuilder(), answered: new Set(), startedMs: Date.parse(firstTs ?? '') };
    const toolMessages = new Map<string, JsonObject>();
    for (const message of list(sample, 'messages')) {
      const callId = isRecord(message) && message['role'] === 'tool' ? idOf(message['tool_call_id']) : undefined;
      if (callId !== undefined) toolMessages.set(callId, message as JsonObject);
    }
    if (events.some(isModelCall)) {
      for (const event of events) this.mapEvent(event, state, out, resolve);
      // A call whose result the events do not hold, but a tool message does (older logs nest tool events).
      for (const [callId, step] of state.steps.issuedCalls()) {
        const message = toolMessages.get(callId);
        if (!state.answered.has(callId) && message !== undefined) out(toolResultFromMessage(message, callId, runId, step, resolve), 'message/tool');
      }
    } else {
      this.mapMessages(sample, state, out, resolve);
      for (const event of events) {
        const typeRaw = `event/${text(event['event']) ?? '?'}`;
        out(unknownEvent(typeRaw, { run_id: runId, step: state.steps.stepSoFar, ts: startedTs(event, state), span: spanOf(event) }), typeRaw);
      }
    }
    out(sampleEnd(sample, events, state), 'sample/end');
  }

  private mapEvent(event: JsonObject, state: SampleState, out: (event: AdaptedEvent, typeRaw: string) => void, resolve: (value: unknown) => unknown): void {
    const kind = text(event['event']) ?? '?';
    const ts = startedTs(event, state);
    const runId = state.runId;
    if (isModelCall(event)) {
      const step = state.steps.next();
      out(modelRequest({ run_id: runId, step, ts, ...modelEventRequest(event, resolve) }), 'model/input');
      const output = field(event, 'output');
      const choice = list(output, 'choices').find(isRecord);
      const error = text(event['error']);
      const message = field(choice, 'message');
      const calls = toolCallsOf(message, runId, step);
      state.steps.issued(calls);
      const latency = finite(output?.['time']);
      const called = splitModelName(text(event['model']));
      out(
        modelResponse({
          run_id: runId,
          step,
          ts,
          text: (contentText(resolve(message?.['content']), ADJACENT_TEXT_PARTS) ?? null) as string | null,
          tool_calls: callsIfAny(calls),
          finish_reason: text(choice?.['stop_reason']),
          outcome: choice === undefined ? 'incomplete' : undefined,
          incomplete_reason: choice === undefined ? (error ?? 'the model event has no output choice') : undefined,
          usage: usageOf(field(output, 'usage')),
          model: text(output?.['model']) ?? called.model,
          provider: called.provider,
          latency_ms: latency !== undefined && latency >= 0 ? Math.round(latency * 1000) : undefined,
        }),
        'model',
      );
      return;
    }
    if (kind === 'tool') {
      const callId = idOf(event['id']);
      if (callId !== undefined) {
        state.answered.add(callId);
        const error = field(event, 'error');
        const errorMessage = text(error?.['message']);
        const errorCode = text(error?.['type']);
        const latency = finite(event['working_time']);
        out(
          toolResult({
            run_id: runId,
            step: state.steps.stepOf(callId),
            ts,
            call_id: callId,
            name: text(event['function']),
            status: error !== undefined ? 'error' : 'ok',
            output: resolve(event['result']),
            error:
              error !== undefined ? defined({ code: errorCode, message: errorMessage !== undefined ? String(resolve(errorMessage)) : undefined }) : undefined,
            latency_ms: latency !== undefined && latency >= 0 ? Math.round(latency * 1000) : undefined,
          }),
          'tool',
        );
        return;
      }
    }
    out(unknownEvent(`event/${kind}`, { run_id: runId, step: state.steps.stepSoFar, ts, span: spanOf(event) }), `event/${kind}`);
  }

  /** A sample without model events: the assistant messages are the steps, `tool` messages the results. */
  private mapMessages(sample: JsonObject, state: SampleState, out: (event: AdaptedEvent, typeRaw: string) => void, resolve: (value: unknown) => unknown): void {
    const messages = list(sample, 'messages');
    const lastAssistant = messages.reduce<number>((last, message, index) => (isRecord(message) && message['role'] === 'assistant' ? index : last), -1);
    const output = field(sample, 'output');
    const lastChoice = list(output, 'choices').find(isRecord);
    const evalModel = splitModelName(this.context?.model);
    messages.forEach((message, index) => {
      if (!isRecord(message)) return;
      const role = text(message['role']) ?? '?';
      if (role === 'assistant') {
        const step = state.steps.next();
        const calls = toolCallsOf(message, state.runId, step);
        state.steps.issued(calls);
        // The sample's output is the last model call's: its stop reason and usage belong to the last assistant message.
        const last = index === lastAssistant;
        const model = text(message['model']) ?? (last ? text(output?.['model']) : undefined);
        out(
          modelResponse({
            run_id: state.runId,
            step,
            text: (contentText(resolve(message['content']), ADJACENT_TEXT_PARTS) ?? null) as string | null,
            tool_calls: callsIfAny(calls),
            finish_reason: last ? text(lastChoice?.['stop_reason']) : undefined,
            usage: last ? usageOf(field(output, 'usage')) : undefined,
            model,
            // The eval's model answered, unless the message names another.
            provider: model === undefined || model === evalModel.model ? evalModel.provider : undefined,
          }),
          'message/assistant',
        );
        return;
      }
      const callId = role === 'tool' ? idOf(message['tool_call_id']) : undefined;
      if (callId !== undefined) {
        state.answered.add(callId);
        out(toolResultFromMessage(message, callId, state.runId, state.steps.stepOf(callId), resolve), 'message/tool');
        return;
      }
      out(unknownEvent(`message/${role}`, { run_id: state.runId, step: state.steps.stepSoFar }), `message/${role}`);
    });
  }
}

/** A model event that called the model: one step. A `pending` event is a call still in flight. */
function isModelCall(event: JsonObject): boolean {
  return event['event'] === 'model' && event['pending'] !== true;
}

/** A `span_begin`/`span_end` event's span (shared/trace/spanTree.ts): the timeline's span tree. */
function spanOf(event: JsonObject): SpanMarker | undefined {
  const kind = event['event'] === 'span_begin' ? 'begin' : event['event'] === 'span_end' ? 'end' : undefined;
  const id = idOf(event['id']);
  if (kind === undefined || id === undefined) return undefined;
  if (kind === 'end') return { kind, id };
  return { kind, id, ...defined({ parentId: idOf(event['parent_id']), name: text(event['name']), type: text(event['type']) }) };
}

type Resolve = (value: unknown) => unknown;

/** The sample's `attachment://` references resolved against its `attachments`. */
function attachmentResolver(sample: JsonObject): Resolve {
  const attachments = field(sample, 'attachments') ?? {};
  return (value) => {
    if (typeof value !== 'string' || !value.startsWith(ATTACHMENT_PREFIX)) return value;
    const resolved = attachments[value.slice(ATTACHMENT_PREFIX.length)];
    return typeof resolved === 'string' ? resolved : value;
  };
}

/**
 * An Inspect `ChatMessage` in the Chat Completions shape requests are compared in: its content with
 * attachments resolved, its `tool_calls[{id, function (name), arguments}]` as `{id, function: {name,
 * arguments}}`.
 */
function chatMessage(message: unknown, resolve: Resolve): unknown {
  if (!isRecord(message)) return message;
  const content = resolve(message['content']);
  const parts = Array.isArray(content)
    ? content.map((part) => (isRecord(part) && typeof part['text'] === 'string' ? { ...part, text: resolve(part['text']) } : part))
    : content;
  const calls = list(message, 'tool_calls').filter(isRecord);
  return {
    ...message,
    content: parts,
    ...(calls.length > 0
      ? { tool_calls: calls.map((call) => ({ id: call['id'], type: 'function', function: { name: call['function'], arguments: call['arguments'] } })) }
      : {}),
  };
}

/** A model event's request: its own `input` (the messages the model was sent), `tools`, `config` and `model`. */
function modelEventRequest(
  event: JsonObject,
  resolve: Resolve,
): Pick<Extract<AdaptedEvent, { type: 'model_request' }>, 'messages' | 'tools' | 'params' | 'model'> {
  const input = Array.isArray(event['input']) ? event['input'] : undefined;
  const tools = Array.isArray(event['tools']) ? event['tools'] : undefined;
  const model = text(event['model']);
  const config = field(event, 'config');
  return defined({ model, messages: input?.map((message) => chatMessage(message, resolve)), tools, params: config });
}

/**
 * The logged request of step `step` of a sample record, read back for the request diff and request
 * analysis: a sample's entry holds all its model calls, so the request is the step-th model event's
 * own input, not the sample's final `messages`. Null when the record has no such model event.
 */
export function inspectSampleRequest(sample: unknown, step: number | null): JsonObject | null {
  if (!isSample(sample) || step === null) return null;
  const event = list(sample, 'events').filter(isRecord).filter(isModelCall)[step - 1];
  return event === undefined ? null : { type: 'model_request', ...modelEventRequest(event, attachmentResolver(sample)) };
}

interface SampleState {
  runId: string;
  /** Model calls so far, and the step of the response that issued each call. */
  steps: StepBuilder;
  answered: Set<string>;
  /** The sample's own start (NaN when unknown). */
  startedMs: number;
}

/**
 * An event's timestamp, unless it is before the sample's own start: Inspect stamps a sample's
 * first events (`span_begin`, `sample_init`) with the eval's start, which would stretch the run
 * back to it (the raw entry keeps the timestamp).
 */
function startedTs(event: JsonObject, state: SampleState): string | undefined {
  const ts = text(event['timestamp']);
  return ts !== undefined && !(Date.parse(ts) < state.startedMs) ? ts : undefined;
}

/** `ChatMessageAssistant.tool_calls[{id, function, arguments (object)}]`. */
function toolCallsOf(message: JsonObject | undefined, runId: string, step: number): AdaptedToolCall[] {
  return list(message, 'tool_calls')
    .filter(isRecord)
    .map((call, index) => ({
      call_id: idOf(call['id']) ?? `${runId}:step${step}:call${index}`,
      name: text(call['function']) ?? '(unnamed)',
      arguments: call['arguments'],
    }));
}

function toolResultFromMessage(message: JsonObject, callId: string, runId: string, step: number, resolve: (value: unknown) => unknown): AdaptedEvent {
  const error = field(message, 'error');
  const errorMessage = text(error?.['message']);
  const errorCode = text(error?.['type']);
  const content = resolve(message['content']);
  return toolResult({
    run_id: runId,
    step,
    call_id: callId,
    name: text(message['function']),
    status: error !== undefined ? 'error' : 'ok',
    output: contentText(content, ADJACENT_TEXT_PARTS) ?? content,
    error: error !== undefined ? defined({ code: errorCode, message: errorMessage }) : undefined,
  });
}

/** The sample's last moment: its `completed_at`, else its last event's timestamp. */
function sampleCompletedAt(sample: JsonObject, events: readonly JsonObject[]): string | undefined {
  const completed = text(sample['completed_at']);
  if (completed !== undefined) return completed;
  for (let i = events.length - 1; i >= 0; i--) {
    const ts = text(events[i]!['timestamp']);
    if (ts !== undefined) return ts;
  }
  return undefined;
}

/**
 * The sample's own start. Samples of a `.eval` often carry no `started_at`, and their first
 * events (`span_begin`, `sample_init`) are stamped with the eval's start even when the sample ran
 * much later, so the first event is not the start: the sample's wall-clock `total_time` before its
 * end is, else its first model event.
 */
function sampleStart(sample: JsonObject, events: readonly JsonObject[]): string | undefined {
  const started = text(sample['started_at']);
  if (started !== undefined) return started;
  const totalSeconds = finite(sample['total_time']);
  const end = Date.parse(sampleCompletedAt(sample, events) ?? '');
  if (totalSeconds !== undefined && totalSeconds >= 0 && Number.isFinite(end)) return new Date(end - totalSeconds * 1000).toISOString();
  return text(events.find((event) => event['event'] === 'model')?.['timestamp']) ?? text(events[0]?.['timestamp']);
}

/**
 * The sample's end: its `error` (status `error`), its `limit` (status `<type>_limit`, Inspect's
 * own names for the limits: `message_limit`, `token_limit`, `time_limit`, `working_limit`,
 * `cost_limit`, …), else `completed`, derived: Inspect writes a sample to the log once it is done.
 */
function sampleEnd(sample: JsonObject, events: readonly JsonObject[], state: SampleState): AdaptedEvent {
  const ts = sampleCompletedAt(sample, events);
  const end = (fields: { status: string; limit?: string; reason: string | undefined }) =>
    runEnd({ run_id: state.runId, step: state.steps.stepSoFar, ts, ...fields });
  const error = sample['error'];
  if (error !== undefined && error !== null) return end({ status: 'error', reason: isRecord(error) ? text(error['message']) : text(error) });
  const limit = field(sample, 'limit');
  if (limit !== undefined) {
    const type = text(limit['type']) ?? 'unknown';
    const value = finite(limit['limit']);
    return end({ status: `${type}_limit`, limit: `${type}_limit`, reason: `the sample hit its ${type} limit${value !== undefined ? ` of ${value}` : ''}` });
  }
  return end({
    status: 'completed',
    reason: 'derived: the sample was written to the log with no error and no limit (Inspect writes a sample once it has finished)',
  });
}

export const inspectAiFormat: FormatAdapter = {
  name: 'inspect-ai',
  framing: 'zip-json',
  streamedArrays: ['samples'],
  detect(sample: DetectionSample): string | null {
    if (sample.head.startsWith('zip:')) {
      const names = sample.head.slice('zip:'.length).split('\n');
      const hasSamples = names.some((name) => name.startsWith('samples/'));
      const hasHeader = names.includes('header.json') || names.includes('_journal/start.json');
      if (isEvalHeader(sample.framedValues[0]))
        return `Inspect AI .eval log: a ZIP with ${names.includes('header.json') ? 'header.json' : '_journal/start.json'} (eval.task, eval.model)${hasSamples ? ' and samples/ entries' : ''}`;
      if (hasHeader && hasSamples) return 'Inspect AI .eval log: a ZIP with header.json or _journal/start.json and samples/ entries';
      return null;
    }
    const first = sample.framedValues[0];
    if (isEvalHeader(first) && (Array.isArray(first['samples']) || typeof first['status'] === 'string')) {
      return 'Inspect AI JSON eval log: one document with version, status, eval{task, model} and samples[]';
    }
    if (sample.framedValues.length === 0 && headLooksLikeJsonLog(sample.head))
      return 'Inspect AI JSON eval log: a document starting {"version", "status", "eval": {"eval_id"/"run_id", …}';
    return null;
  },
  createMapper({ path }) {
    return new InspectAiMapper(path);
  },
};
