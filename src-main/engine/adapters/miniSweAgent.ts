/**
 * mini-swe-agent trajectories (`<instance>.traj.json`): one JSON document per run, read whole
 * (json-values framing: the document arrives as one record, so every event is anchored to it).
 *
 * The document is `{info, messages[], trajectory_format: "mini-swe-agent-1" | "mini-swe-agent-1.1"}`;
 * early versions wrote the bare `messages[]` list. Each `assistant` message is one model call. Its
 * action is a fenced ```` ```mswea_bash_command ```` (or ```` ```bash ````) block in the text —
 * `extra.actions` once parsed by the agent — or, in tool-call mode, `tool_calls[{id}]`. Text
 * actions have no call id: each gets a derived id `<run>:step<n>` and is paired with the next
 * `user` observation. Tool-call results are `tool` messages with `tool_call_id`. The end is the
 * `exit` message or `info.exit_status`. See docs/formats/mini-swe-agent.md.
 */
import { millisFromStartToResult } from './kit/callLatency';
import { isRecord, type Emit, type AdaptedEvent, type DetectionSample, type FormatAdapter, type LineRef } from './formatAdapter';
import {
  callsIfAny,
  defined,
  definedIfAny,
  modelResponse,
  runEnd,
  runStart,
  toolCallNotExecuted,
  toolResult,
  unknownEvent,
  type AdaptedToolCall,
} from './kit/events';
import { text, finite, nonNegative, positive, field, contentText, ADJACENT_TEXT_PARTS, fileStem, type JsonObject } from './kit/jsonValues';
import { StepBuilder } from './kit/stepBuilder';

/**
 * Exception classes a model call raises when the provider refuses it — litellm's and the OpenAI
 * SDK's (`InternalServerError`, `RateLimitError`, `APIConnectionError`, …) — as mini-swe-agent
 * writes them for its exit status.
 */
const PROVIDER_EXCEPTIONS =
  /^(?:InternalServerError|RateLimitError|APIError|APIConnectionError|APITimeoutError|Timeout|ServiceUnavailableError|BadRequestError|AuthenticationError|PermissionDeniedError|NotFoundError|UnprocessableEntityError|ContextWindowExceededError|ContentPolicyViolationError|OverloadedError)$/;

const ACTION_BLOCKS = [/```mswea_bash_command\s*\n(.*?)\n```/gs, /```bash\s*\n(.*?)\n```/gs];
/** The first line of a command's output that makes mini-swe-agent submit (the rest is the submission). */
const SUBMIT_MARKERS = ['COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT', 'MINI_SWE_AGENT_FINAL_OUTPUT'];

export function runIdFromPath(path: string): string {
  return fileStem(path, /(\.traj)?(\.json)?$/i);
}

function isMessage(value: unknown): value is JsonObject {
  return isRecord(value) && typeof value['role'] === 'string' && 'content' in value;
}

/** The early format: a bare list of `{role, content}` messages with mini-swe-agent's action blocks or observations. */
function looksLikeBareMessages(value: unknown): boolean {
  if (!Array.isArray(value) || value.length < 2 || !value.every(isMessage)) return false;
  return value.some(
    (message) =>
      (message['role'] === 'assistant' && /```mswea_bash_command\b/.test(contentText(message['content'], ADJACENT_TEXT_PARTS) ?? '')) ||
      (message['role'] === 'user' && /^<returncode>-?\d+<\/returncode>/.test(contentText(message['content'], ADJACENT_TEXT_PARTS) ?? '')),
  );
}

function describe(value: unknown): string | null {
  if (isRecord(value) && Array.isArray(value['messages'])) {
    const format = text(value['trajectory_format']);
    if (format?.startsWith('mini-swe-agent')) return `mini-swe-agent trajectory (trajectory_format ${format}): info and messages[]`;
    if (typeof field(value, 'info')?.['mini_version'] === 'string') return 'mini-swe-agent trajectory: info.mini_version and messages[]';
    return null;
  }
  if (looksLikeBareMessages(value))
    return 'mini-swe-agent trajectory (early format): a list of {role, content} messages with ```mswea_bash_command actions and <returncode> observations';
  return null;
}

function headLooksLikeMini(head: string): boolean {
  if (/^\s*\{/.test(head)) {
    return (
      /"trajectory_format"\s*:\s*"mini-swe-agent/.test(head) ||
      /"mini_version"\s*:\s*"/.test(head) ||
      /"(agent|model|environment)_type"\s*:\s*"minisweagent\./.test(head)
    );
  }
  return /^\s*\[\s*\{\s*"role"\s*:/.test(head) && /```mswea_bash_command/.test(head);
}

/** Commands in an assistant text: exactly one means an action; none or several is a format error. */
function textActions(content: string): string[] {
  for (const pattern of ACTION_BLOCKS) {
    const found = [...content.matchAll(pattern)].map((match) => (match[1] ?? '').trim());
    if (found.length > 0) return found;
  }
  return [];
}

/** The exit code a mini-swe-agent observation records: `extra.returncode`, or the `<returncode>` its template writes. */
function returnCode(message: JsonObject): number | undefined {
  const recorded = finite(field(message, 'extra')?.['returncode']);
  if (recorded !== undefined) return recorded;
  const match = /^\s*<returncode>(-?\d+)<\/returncode>/.exec(contentText(message['content'], ADJACENT_TEXT_PARTS) ?? '');
  return match === null ? undefined : Number(match[1]);
}

/**
 * litellm's usage: `prompt_tokens` holds the cached tokens and, for Anthropic, the cache writes
 * (`cache_creation_input_tokens`); `completion_tokens` holds the reasoning tokens.
 */
function usageOf(extra: JsonObject | undefined): JsonObject | undefined {
  const usage = field(field(extra, 'response'), 'usage');
  const cost = finite(extra?.['cost']);
  return definedIfAny({
    input_tokens: finite(usage?.['prompt_tokens']),
    output_tokens: finite(usage?.['completion_tokens']),
    cached_input_tokens: finite(field(usage, 'prompt_tokens_details')?.['cached_tokens']),
    cache_write_tokens: nonNegative(usage?.['cache_creation_input_tokens']),
    reasoning_tokens: nonNegative(field(usage, 'completion_tokens_details')?.['reasoning_tokens']),
    cost_usd: cost !== undefined && cost >= 0 ? cost : undefined,
  });
}

class RunMapper {
  private readonly steps = new StepBuilder();
  /** Text actions waiting for their observation, in order. */
  private pending: AdaptedToolCall[] = [];
  /** The pending calls are text actions (ids derived), answered by the next `user` messages in order. */
  private derivedIds = false;
  /**
   * When the response that issued a step's only action arrived (`extra.timestamp`, epoch seconds).
   * mini-swe-agent stamps an observation once all of its step's actions have run, so the gap from
   * the response is an action's run time only when it is the step's one action (docs/semantics.md §11).
   */
  private readonly soleActionIssuedAt = new Map<string, number>();
  private ended = false;
  /** The last call answered by a message without a return code: the submission of an early-format run. */
  private lastAnswer: { call: AdaptedToolCall; returnCode: number | undefined; last: boolean } | null = null;

  constructor(
    private readonly runId: string,
    private readonly line: LineRef,
    private readonly emit: Emit,
  ) {}

  out(event: AdaptedEvent, typeRaw: string): void {
    this.emit({ event, typeRaw, line: this.line });
  }

  private unknown(typeRaw: string, ts?: number): void {
    this.out(unknownEvent(typeRaw, { run_id: this.runId, step: this.steps.stepSoFar, ts }), typeRaw);
  }

  private assistant(message: JsonObject, hasNext: boolean, actionPattern: RegExp | undefined): void {
    const step = this.steps.next();
    const extra = field(message, 'extra');
    const response = field(extra, 'response');
    const content = contentText(message['content'], ADJACENT_TEXT_PARTS);
    let calls: AdaptedToolCall[] = [];
    const toolCalls = Array.isArray(message['tool_calls']) ? message['tool_calls'].filter(isRecord) : [];
    if (toolCalls.length > 0) {
      calls = toolCalls.map((call, index) => {
        const fn = field(call, 'function');
        return { call_id: text(call['id']) ?? `${this.runId}:step${step}:${index}`, name: text(fn?.['name']) ?? '(unnamed)', arguments: fn?.['arguments'] };
      });
    } else {
      const recorded = Array.isArray(extra?.['actions']) ? extra['actions'].filter(isRecord).map((action) => text(action['command']) ?? '') : undefined;
      const commands =
        recorded ?? (actionPattern ? [...(content ?? '').matchAll(actionPattern)].map((match) => (match[1] ?? '').trim()) : textActions(content ?? ''));
      // mini-swe-agent runs an action only when there is exactly one (else: a format error).
      if (commands.length === 1 || (recorded !== undefined && commands.length > 1)) {
        calls = commands.map((command, index) => ({
          call_id: commands.length === 1 ? `${this.runId}:step${step}` : `${this.runId}:step${step}:${index}`,
          name: 'bash',
          arguments: { command },
        }));
      }
    }
    this.pending = [...calls];
    this.derivedIds = calls.length > 0 && toolCalls.length === 0;
    this.steps.issued(calls);
    const choice = Array.isArray(response?.['choices']) ? response['choices'].find(isRecord) : undefined;
    const ts = finite(extra?.['timestamp']);
    if (calls.length === 1 && ts !== undefined) this.soleActionIssuedAt.set(calls[0]!.call_id, ts);
    const formatError = calls.length === 0 && hasNext;
    this.out(
      modelResponse({
        run_id: this.runId,
        step,
        ts,
        outcome: formatError ? 'incomplete' : undefined,
        incomplete_reason: formatError ? 'no single action in the response: mini-swe-agent answered with a format error' : undefined,
        text: content ?? null,
        tool_calls: callsIfAny(calls),
        finish_reason: text(choice?.['finish_reason']),
        usage: usageOf(extra),
        model: text(response?.['model']),
        response_id: text(response?.['id']),
      }),
      'assistant',
    );
  }

  private result(message: JsonObject, call: AdaptedToolCall | string, typeRaw: string, last: boolean): void {
    const callId = typeof call === 'string' ? call : call.call_id;
    const extra = field(message, 'extra');
    const code = returnCode(message);
    // mini-swe-agent 2.x writes `exception_info: ""` on every observation: only a non-empty one is an exception.
    const exception = text(extra?.['exception_info'])?.trim() || undefined;
    const failed = exception !== undefined || (code !== undefined && code !== 0);
    const ts = finite(extra?.['timestamp']);
    const latency = millisFromStartToResult(this.soleActionIssuedAt.get(callId), ts);
    this.soleActionIssuedAt.delete(callId);
    this.out(
      toolResult({
        run_id: this.runId,
        step: this.steps.stepOf(callId),
        ts,
        call_id: callId,
        name: this.steps.nameOf(callId),
        output: extra !== undefined && 'raw_output' in extra ? extra['raw_output'] : message['content'],
        latency_ms: latency,
        status: failed ? 'error' : undefined,
        error: failed ? defined({ code: code !== undefined && code !== 0 ? `exit_${code}` : undefined, message: exception }) : undefined,
      }),
      typeRaw,
    );
    if (typeof call !== 'string') this.lastAnswer = { call, returnCode: code, last };
  }

  mapMessages(messages: unknown[], actionPattern: RegExp | undefined): void {
    messages.forEach((message, index) => {
      const last = index === messages.length - 1;
      if (!isRecord(message)) {
        this.unknown('message (not an object)');
        return;
      }
      const role = text(message['role']) ?? '(no role)';
      const extra = field(message, 'extra');
      if (role === 'assistant') {
        this.assistant(message, !last, actionPattern);
        return;
      }
      if (role === 'tool' && typeof message['tool_call_id'] === 'string') {
        this.pending = this.pending.filter((call) => call.call_id !== message['tool_call_id']);
        this.result(message, message['tool_call_id'], 'tool', last);
        return;
      }
      if (role === 'exit') {
        const status = text(extra?.['exit_status']);
        if (status === 'Submitted') this.submitted(message, last);
        this.end(status, 'exit', finite(extra?.['timestamp']), text(extra?.['submission']) ?? contentText(message['content'], ADJACENT_TEXT_PARTS));
        return;
      }
      const interrupt = text(extra?.['interrupt_type']);
      if (role === 'user' && interrupt === undefined && this.derivedIds && this.pending.length > 0) {
        this.result(message, this.pending.shift()!, 'user', last);
        return;
      }
      this.unknown(interrupt !== undefined ? `${role}/${interrupt}` : role, finite(extra?.['timestamp']));
    });
  }

  /**
   * Since 1.1 the command that submits gets no observation: its output after the marker line is the
   * `exit` message. That message answers the pending command that printed the marker (else the
   * first pending one); the commands after it in the same response were never run.
   */
  private submitted(message: JsonObject, last: boolean): void {
    if (this.pending.length === 0) return;
    const printsMarker = (call: AdaptedToolCall): boolean => {
      const args = call.arguments;
      const command = isRecord(args) ? text(args['command']) : typeof args === 'string' ? args : undefined;
      return command !== undefined && SUBMIT_MARKERS.some((marker) => command.includes(marker));
    };
    const index = Math.max(0, this.pending.findIndex(printsMarker));
    const submitting = this.pending[index]!;
    const extra = field(message, 'extra');
    this.out(
      toolResult({
        run_id: this.runId,
        step: this.steps.stepOf(submitting.call_id),
        call_id: submitting.call_id,
        name: submitting.name,
        output: extra !== undefined && 'submission' in extra ? extra['submission'] : message['content'],
      }),
      'exit',
    );
    this.lastAnswer = { call: submitting, returnCode: undefined, last };
    for (const call of this.pending.slice(index + 1)) {
      this.out(
        toolCallNotExecuted({
          run_id: this.runId,
          step: this.steps.stepOf(call.call_id),
          call_id: call.call_id,
          name: call.name,
          reason: 'not run: an earlier command of the same response submitted, which ends the run',
        }),
        'exit',
      );
    }
    this.pending = [];
  }

  /**
   * The run's end. An exit status that is the class name of a provider's API exception (the
   * model call raised it, and mini-swe-agent stopped on it, writing `str(e)` as the submission) is
   * also the failed model call itself: a response carrying the provider's error (docs/semantics.md §7).
   */
  end(status: string | undefined, typeRaw: string, ts?: number, detail?: string): void {
    if (this.ended || status === undefined || status.trim() === '') return;
    this.ended = true;
    if (PROVIDER_EXCEPTIONS.test(status)) {
      this.out(
        modelResponse({
          run_id: this.runId,
          step: this.steps.next(),
          ts,
          outcome: 'incomplete',
          incomplete_reason: status,
          text: null,
          api_error: defined({ type: status, message: detail?.trim() || undefined }),
        }),
        typeRaw,
      );
    }
    this.out(runEnd({ run_id: this.runId, step: this.steps.step, ts, status }), typeRaw);
  }

  /**
   * Early-format documents record no status. mini-swe-agent submits when a command's output starts
   * with its marker line, and then records the rest of the output as the last message, with no
   * `<returncode>`: that message answering a command that printed the marker is the evidence.
   */
  deriveEnd(): void {
    if (this.ended || this.lastAnswer === null) return;
    const { call, returnCode: code, last } = this.lastAnswer;
    const command = isRecord(call.arguments) ? text(call.arguments['command']) : undefined;
    if (!last || code !== undefined || command === undefined || !SUBMIT_MARKERS.some((marker) => command.includes(marker))) return;
    this.ended = true;
    this.out(
      runEnd({
        run_id: this.runId,
        step: this.steps.step,
        status: 'Submitted',
        reason:
          'derived: the last command prints the submission marker and its output is recorded as the submission (no <returncode>); the document records no exit status',
      }),
      'messages',
    );
  }
}

/** The agent's own action regex (`info.config.model.action_regex`, Python syntax) when JavaScript reads it the same way. */
function configuredActionPattern(info: JsonObject | undefined): RegExp | undefined {
  const config = field(info, 'config');
  const source = text(field(config, 'model')?.['action_regex']) ?? text(field(config, 'agent')?.['action_regex']);
  if (source === undefined) return undefined;
  try {
    return new RegExp(source, 'gs');
  } catch {
    return undefined;
  }
}

export const miniSweAgentFormat: FormatAdapter = {
  name: 'mini-swe-agent',
  framing: 'json-values',
  detect(sample: DetectionSample) {
    const first = sample.framedValues[0];
    if (first !== undefined) return describe(first);
    if (headLooksLikeMini(sample.head)) return 'mini-swe-agent trajectory: the document names its mini-swe-agent format, version or classes';
    return null;
  },
  createMapper({ path }) {
    const fileRunId = runIdFromPath(path);
    let documents = 0;
    return {
      map(value, line, emit) {
        if (describe(value) === null)
          return { reason: 'not a mini-swe-agent trajectory: expected {info, messages[], trajectory_format} or a list of {role, content} messages' };
        documents += 1;
        const runId = fileRunId + (documents > 1 ? `#${documents}` : '');
        const mapper = new RunMapper(runId, line, emit);
        const info = isRecord(value) ? field(value, 'info') : undefined;
        const messages = Array.isArray(value) ? value : isRecord(value) && Array.isArray(value['messages']) ? value['messages'] : [];
        const config = field(info, 'config');
        const agent = field(config, 'agent');
        const model = text(field(config, 'model')?.['model_name']);
        // A cost limit is a budget only when the messages record a cost per call (`extra.cost`, since 1.1).
        const costed = messages.some((message) => finite(field(message, 'extra')?.['cost']) !== undefined);
        const budgets = definedIfAny({ max_turns: positive(agent?.['step_limit']), max_cost_usd: costed ? positive(agent?.['cost_limit']) : undefined });
        const version = text(info?.['mini_version']);
        if (model !== undefined || budgets !== undefined || version !== undefined) {
          mapper.out(
            runStart({
              run_id: runId,
              config: defined({ model, budgets, versions: version !== undefined ? { 'mini-swe-agent': version } : undefined }),
            }),
            'info/config',
          );
        }
        mapper.mapMessages(messages, configuredActionPattern(info));
        mapper.end(text(info?.['exit_status']), 'info/exit_status', undefined, text(info?.['submission']));
        mapper.deriveEnd();
        return undefined;
      },
      finish() {},
    };
  },
};
