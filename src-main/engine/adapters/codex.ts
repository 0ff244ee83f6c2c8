/**
 * OpenAI Codex CLI, in its three shapes (docs/formats/codex.md):
 *
 * - session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`): every line is
 *   `{timestamp, type, payload}`;
 * - `codex exec --json` stdout: `thread.started` / `turn.*` / `item.*` events;
 * - the older `codex exec --json` stdout: `{id, msg: {type, …}}` events (before Codex 0.44).
 *
 * None of them writes a "model call" record. A step (one model call) is assembled from the model's
 * outputs between two inputs: reasoning, assistant text and tool calls, up to the next tool output
 * or user input; a rollout's `turn_context` (written once per sampling step), a new turn and the
 * end of a turn also close it. The step's `model_response` is emitted before the results of its
 * calls; results that arrive before its token usage is known wait with it (one step at a time).
 *
 * A session holds several turns (one per user message); they are one run. A turn's end
 * (`task_complete`, `turn_aborted`, `turn.completed`, …) ends the run only when no later turn
 * starts, which is known at the end of the file.
 */
import { basename } from 'node:path';
import type { EventOf, ToolCall, Usage } from '../../../shared/trace/canonicalEvents';
import { normalizeTerminalStatus } from '../../../shared/trace/runStatus';
import { isRecord, type Emit, type AdaptedEvent, type DetectionSample, type FormatAdapter, type FormatMapper, type LineRef, type MapFailure, type MappedEvent } from './formatAdapter';
import { defined, modelResponse, runEnd, runStart, toolCallNotExecuted, toolCallStart, toolResult, unknownEvent } from './kit/events';
import { contentText, field, finite, list, nonEmptyText, text, textMember, type JsonObject, type PartJoining } from './kit/jsonValues';
import { StepBuilder } from './kit/stepBuilder';


/** The line an event comes from, its raw type and time. */
interface Source {
  line: LineRef;
  typeRaw: string;
  /** Undefined when the line has no time or an empty one. */
  ts: string | undefined;
}

type RunStart = EventOf<'run_start'>;
type RunEnd = EventOf<'run_end'>;

function firstLine(text: string, max = 200): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

const usageKeys = ['input_tokens', 'cached_input_tokens', 'output_tokens', 'reasoning_output_tokens', 'total_tokens'] as const;

/** Codex token usage (`last_token_usage`, `turn.completed.usage`, old flat `token_count`) as written. */
function codexUsage(raw: unknown): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  const usage: Usage = {};
  for (const key of usageKeys) {
    const value = finite(raw[key]);
    if (value !== undefined && value >= 0) usage[key] = value;
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** The file name without `.jsonl`; for a rollout, the session uuid at its end. */
function fallbackRunId(path: string): string {
  const name = basename(path);
  const uuid = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl?$/i.exec(name);
  if (uuid?.[1]) return uuid[1];
  return name.replace(/\.jsonl?$/i, '') || 'codex';
}

// ---------------------------------------------------------------------------------------------
// The loop assembler: steps, calls, turns and the run's end, shared by the three shapes.
// ---------------------------------------------------------------------------------------------

type StepOutput = { text: string } | { reasoning: string } | { call: ToolCall } | { hosted: unknown };

/** Why a step was closed: decides the outcome of a step with neither text nor calls. */
type CloseReason = 'next_step' | 'boundary' | 'turn_completed' | 'turn_aborted' | 'turn_failed' | 'end_of_file';

interface OpenStep {
  n: number;
  source: Source;
  model: string | undefined;
  texts: string[];
  reasoning: string[];
  calls: ToolCall[];
  hosted: unknown[];
  usage: Usage | undefined;
  /** `turn`: the usage covers the whole turn (`codex exec --json` reports no per-call usage). */
  usageScope: 'turn' | undefined;
  /** An input (tool output, user message) arrived: the next model output is a new model call. */
  sawInput: boolean;
  emitted: boolean;
  /** Events of later lines, emitted right after the step's response to keep the file's order. */
  after: MappedEvent[];
}

interface OpenCall {
  name: string;
  step: number;
  turn: number;
}

interface ClosedStep {
  n: number;
  source: Source;
  final: boolean;
}

/** How many events may wait for the run's first model to be known before the run starts anyway. */
const MAX_HELD_EVENTS = 1000;

class LoopAssembler {
  runId: string;
  /** Model of the current step (rollouts: from the last `turn_context`). */
  model: string | undefined;
  turn = 0;
  private runStart: RunStart | null = null;
  private held: MappedEvent[] | null = null;
  private step: OpenStep | null = null;
  private readonly steps = new StepBuilder();
  private lastClosed: ClosedStep | null = null;
  private inputAfterLastStep = false;
  private pendingUsage: { usage: Usage; source: Source } | null = null;
  private lastUsageKey: string | null = null;
  private readonly openCalls = new Map<string, OpenCall>();
  private endCandidate: { event: RunEnd; source: Source } | null = null;

  constructor(
    private readonly emit: Emit,
    runId: string,
  ) {
    this.runId = runId;
  }

  get started(): boolean {
    return this.runStart !== null;
  }

  /** Emits the run_start; with `hold`, it and the events after it wait for `release` (the model is not known yet). */
  beginRun(config: NonNullable<RunStart['config']>, source: Source, hold: boolean): void {
    this.runStart = runStart({ run_id: this.runId, ts: source.ts, config });
    const mapped: MappedEvent = { event: this.runStart, typeRaw: source.typeRaw, line: source.line };
    if (hold) this.held = [mapped];
    else this.emit(mapped);
  }

  /** Completes the held run_start (model, task, the session id found later) and emits what waited. */
  release(patch: { runId?: string; model?: string; task?: unknown } = {}): void {
    const held = this.held;
    if (held === null || this.runStart === null) return;
    this.held = null;
    if (patch.model !== undefined && this.runStart.config && this.runStart.config.model === undefined) this.runStart.config.model = patch.model;
    if (patch.task !== undefined && this.runStart.task === undefined) this.runStart.task = patch.task;
    if (patch.runId !== undefined && patch.runId !== this.runId) {
      this.runId = patch.runId;
      for (const mapped of held) mapped.event.run_id = patch.runId;
    }
    for (const mapped of held) this.emit(mapped);
  }

  setTaskIfHeld(task: unknown): void {
    if (this.held !== null && this.runStart !== null && this.runStart.task === undefined) this.runStart.task = task;
  }

  private out(mapped: MappedEvent): void {
    if (this.held !== null) {
      this.held.push(mapped);
      if (this.held.length > MAX_HELD_EVENTS) this.release();
    } else {
      this.emit(mapped);
    }
  }

  /** Emits an event now, or right after the open step's response when that is not out yet. */
  private queue(event: AdaptedEvent, source: Source): void {
    const mapped: MappedEvent = { event, typeRaw: source.typeRaw, line: source.line };
    const step = this.step;
    if (step !== null && !step.emitted) step.after.push(mapped);
    else this.out(mapped);
  }

  /** A record Loopscope does not model: kept as an `unknown` event. */
  /** `text`: what the record says to the model in words (the user's message), for its summary, search and the run's task. */
  unknown(source: Source, text?: string): void {
    this.queue(unknownEvent(source.typeRaw, { run_id: this.runId, ts: source.ts, text: nonEmptyText(text) }), source);
  }

  /** A model output (text, reasoning, tool call, hosted tool): joins the open step, or opens the next one. */
  output(source: Source, output: StepOutput): void {
    this.supersedeEnd();
    let step = this.step;
    if (step === null || step.sawInput || step.emitted) {
      this.closeStep('next_step');
      this.release();
      step = {
        n: this.steps.next(),
        source,
        model: this.model,
        texts: [],
        reasoning: [],
        calls: [],
        hosted: [],
        usage: undefined,
        usageScope: undefined,
        sawInput: false,
        emitted: false,
        after: [],
      };
      if (this.pendingUsage !== null) {
        step.usage = this.pendingUsage.usage;
        this.pendingUsage = null;
      }
      this.step = step;
      this.inputAfterLastStep = false;
    }
    if ('text' in output) step.texts.push(output.text);
    else if ('reasoning' in output) step.reasoning.push(output.reasoning);
    else if ('hosted' in output) step.hosted.push(output.hosted);
    else {
      step.calls.push(output.call);
      this.openCalls.set(String(output.call.call_id), { name: output.call.name, step: step.n, turn: this.turn });
    }
  }

  /** The loop starts running a call (`codex exec` streams say so before the call's output). */
  executionStart(source: Source, call: ToolCall): void {
    const open = this.openCalls.get(String(call.call_id));
    this.queue(toolCallStart({ run_id: this.runId, step: open?.step, ts: source.ts, call_id: call.call_id, name: call.name }), source);
  }

  /** An input for the next model call (a user or developer message, a prompt). */
  markInput(): void {
    this.inputAfterLastStep = true;
    const step = this.step;
    if (step === null || step.emitted) return;
    step.sawInput = true;
    if (step.usage !== undefined) this.emitStep(step, 'next_step');
  }

  /** A tool output: answers the call with that id, with the run time Codex recorded for it, if any. */
  result(source: Source, callId: string, fields: { output: unknown; error: ToolError | undefined; latencyMs?: number | undefined }): void {
    this.supersedeEnd();
    const call = this.openCalls.get(callId);
    this.openCalls.delete(callId);
    const event = toolResult({
      run_id: this.runId,
      step: call?.step ?? this.steps.stepSoFar,
      ts: source.ts,
      call_id: callId,
      name: call?.name,
      status: fields.error ? 'error' : 'ok',
      output: fields.output,
      error: fields.error,
      latency_ms: fields.latencyMs,
    });
    this.markInput();
    this.queue(event, source);
  }

  /**
   * Token usage of one model call. `key` identifies the running totals, so a repeated report of
   * the same totals is recognised and not counted twice. Returns false when the line was not used
   * (a repeat), for the caller to keep it as an unknown event.
   */
  usage(source: Source, usage: Usage, key: string | null, scope?: 'turn'): boolean {
    if (key !== null && key === this.lastUsageKey) return false;
    if (key !== null) this.lastUsageKey = key;
    const step = this.step;
    if (step !== null && !step.emitted && step.usage === undefined) {
      step.usage = usage;
      step.usageScope = scope;
      if (step.sawInput) this.emitStep(step, 'next_step');
      return true;
    }
    // A turn's total with no step left open to carry it is not counted.
    if (scope === 'turn') return false;
    // Reported before the step's outputs (Codex 0.40 rollouts): it belongs to the next model call.
    if (this.pendingUsage !== null) this.unknown(this.pendingUsage.source);
    this.pendingUsage = { usage, source };
    return true;
  }

  /** Something that ends the current model call (a `turn_context`, a compaction). */
  boundary(reason: CloseReason = 'boundary'): void {
    this.closeStep(reason);
  }

  /** A new turn starts: a previous turn's end was not the end of the run. */
  newTurn(): void {
    this.supersedeEnd();
    this.closeStep('boundary');
    this.turn += 1;
  }

  /** Any sign that the session goes on after a turn's end. */
  supersedeEnd(): void {
    if (this.endCandidate === null) return;
    const { source } = this.endCandidate;
    this.endCandidate = null;
    this.unknown(source);
  }

  /**
   * A turn ends. For an aborted turn, its calls still without output are marked not executed
   * (the loop said it stopped). The run ends here unless a later turn starts.
   */
  endTurn(
    source: Source,
    end: Omit<RunEnd, 'type' | 'run_id' | 'ts'>,
    reason: 'turn_completed' | 'turn_aborted' | 'turn_failed',
    abortReason = 'aborted',
  ): void {
    this.supersedeEnd();
    this.closeStep(reason);
    if (reason === 'turn_aborted') {
      for (const [callId, call] of this.openCalls) {
        if (call.turn !== this.turn) continue;
        this.openCalls.delete(callId);
        const event = toolCallNotExecuted({
          run_id: this.runId,
          step: call.step,
          ts: source.ts,
          call_id: callId,
          name: call.name,
          reason: `the turn was aborted (${abortReason}) before the call's output was recorded`,
        });
        this.queue(event, source);
      }
    }
    this.endCandidate = { event: runEnd({ run_id: this.runId, ts: source.ts, ...end }), source };
  }

  private closeStep(reason: CloseReason): void {
    const step = this.step;
    if (step === null) return;
    if (!step.emitted) this.emitStep(step, reason);
    this.step = null;
  }

  private emitStep(step: OpenStep, reason: CloseReason): void {
    step.emitted = true;
    const text = step.texts.length > 0 ? step.texts.join('\n\n') : null;
    let outcome: 'final' | 'tool_calls' | 'incomplete';
    let incompleteReason: string | undefined;
    if (step.calls.length > 0) outcome = 'tool_calls';
    else if (text !== null || reason === 'turn_completed') outcome = 'final';
    else {
      outcome = 'incomplete';
      incompleteReason =
        reason === 'turn_aborted' ? 'turn_aborted' : reason === 'turn_failed' ? 'turn_failed' : reason === 'end_of_file' ? 'log_ends_mid_step' : 'no_message_or_call';
    }
    const event = modelResponse({
      run_id: this.runId,
      step: step.n,
      ts: step.source.ts,
      outcome,
      text,
      tool_calls: step.calls.length > 0 ? step.calls : undefined,
      incomplete_reason: incompleteReason,
      usage: step.usage,
      usage_scope: step.usageScope,
      model: step.model,
      reasoning: step.reasoning.length > 0 ? step.reasoning.join('\n\n') : undefined,
      hosted_tools: step.hosted.length > 0 ? step.hosted : undefined,
    });
    this.out({ event, typeRaw: step.source.typeRaw, line: step.source.line });
    for (const mapped of step.after) this.out(mapped);
    step.after = [];
    this.lastClosed = { n: step.n, source: step.source, final: outcome === 'final' && text !== null };
  }

  /**
   * End of file: closes the open step, then ends the run with the last turn's end. Without one,
   * and only where the format writes no turn end at all (`deriveEnd`), a last step that is a final
   * answer with nothing after it ends the run as `model_finished`.
   */
  finish(deriveEnd: boolean): void {
    this.closeStep('end_of_file');
    this.release();
    if (this.pendingUsage !== null) {
      this.unknown(this.pendingUsage.source);
      this.pendingUsage = null;
    }
    if (this.endCandidate !== null) {
      const { event, source } = this.endCandidate;
      this.endCandidate = null;
      this.out({ event, typeRaw: source.typeRaw, line: source.line });
      return;
    }
    const last = this.lastClosed;
    if (!deriveEnd || last === null || !last.final || this.inputAfterLastStep) return;
    const event = runEnd({
      run_id: this.runId,
      ts: last.source.ts,
      status: 'model_finished',
      reason: `derived: this rollout records no turn end (task_complete); its last step (${last.n}) is a final answer with no input after it`,
    });
    this.out({ event, typeRaw: 'derived/final_answer', line: last.source.line });
  }
}

// ---------------------------------------------------------------------------------------------
// Tool output status
// ---------------------------------------------------------------------------------------------

type ToolError = { code?: string; message?: string };

const failurePrefixes: readonly [RegExp, string][] = [
  [/^failed in sandbox/i, 'sandbox_failure'],
  [/^execution error/i, 'execution_error'],
  [/^(exec command|command|patch) rejected by user/i, 'rejected_by_user'],
  [/^apply_patch verification failed/i, 'patch_failed'],
  [/^aborted( by user)?\.?$/i, 'aborted'],
];

/** What a rollout tool output says of its call: whether it failed, and how long it ran. */
interface RolloutOutputFacts {
  error: ToolError | undefined;
  latencyMs: number | undefined;
}

/** Seconds as written by Codex, in milliseconds (to the microsecond, so 1.1 s is 1100 ms, not 1100.0000000000002); nothing for a value that is no duration. */
function secondsToMillis(seconds: number | undefined): number | undefined {
  return seconds !== undefined && seconds >= 0 ? Math.round(seconds * 1e6) / 1e3 : undefined;
}

/**
 * A rollout tool output has no error flag: 0.40 `shell` writes a JSON string with
 * `metadata.exit_code`; `exec_command` writes a `Process exited with code N` header and
 * `shell_command` an `Exit code: N` one; Codex's own failures are plain text with a known prefix.
 * Anything else is ok, unless an `exec_command_end` event before it recorded a non-zero exit code.
 *
 * The call's run time is in the same places (docs/semantics.md §11): `metadata.duration_seconds`,
 * or the header's `Wall time: N seconds`. The rollout's timestamps cannot give it: Codex writes
 * a call and its output one after the other once the call is over.
 */
function readRolloutOutput(output: unknown): RolloutOutputFacts {
  if (typeof output !== 'string') {
    return { error: isRecord(output) && output['success'] === false ? { code: 'failed' } : undefined, latencyMs: undefined };
  }
  let metadataLatencyMs: number | undefined;
  if (output.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(output);
      if (isRecord(parsed) && isRecord(parsed['metadata'])) {
        const code = finite(parsed['metadata']['exit_code']);
        metadataLatencyMs = secondsToMillis(finite(parsed['metadata']['duration_seconds']));
        if (code !== undefined) return { error: code === 0 ? undefined : { code: `exit_code_${code}`, message: `exit code ${code}` }, latencyMs: metadataLatencyMs };
      }
    } catch {
      // Not JSON after all: read it as text.
    }
  }
  const header = output.slice(0, 2000).split('\nOutput:\n', 1)[0] ?? '';
  const wallTime = /^Wall time: (\d+(?:\.\d+)?) seconds?\s*$/m.exec(header);
  const latencyMs = metadataLatencyMs ?? secondsToMillis(wallTime?.[1] === undefined ? undefined : Number(wallTime[1]));
  // `exec_command` writes "Process exited with code N"; `shell_command` (0.116+) "Exit code: N".
  const exited = /^(?:Process exited with code|Exit code:) (-?\d+)\s*$/m.exec(header);
  if (exited?.[1] !== undefined) {
    const code = Number(exited[1]);
    return { error: code === 0 ? undefined : { code: `exit_code_${code}`, message: `exit code ${code}` }, latencyMs };
  }
  for (const [pattern, code] of failurePrefixes) {
    if (pattern.test(output)) return { error: { code, message: firstLine(output) }, latencyMs };
  }
  return { error: undefined, latencyMs };
}

// ---------------------------------------------------------------------------------------------
// The three shapes
// ---------------------------------------------------------------------------------------------

interface Reader {
  map(value: unknown, line: LineRef): MapFailure | undefined;
  finish(): void;
}

/** An assistant message's `output_text` (or `text`) parts, written back to back as the model streamed them. */
const ASSISTANT_TEXT_PARTS: PartJoining = {
  separator: '',
  partText: (part) => (isRecord(part) && (part['type'] === 'output_text' || part['type'] === 'text') ? textMember(part) : undefined),
};

/** A reasoning item's summary parts are paragraphs: empty ones are skipped, the others set apart by a blank line. */
const REASONING_SUMMARY_PARTS: PartJoining = { separator: '\n\n', partText: (part) => nonEmptyText(textMember(part)) };

function assistantText(content: unknown): string {
  return contentText(content, ASSISTANT_TEXT_PARTS) ?? '';
}

function reasoningText(payload: JsonObject): string {
  return contentText(list(payload, 'summary'), REASONING_SUMMARY_PARTS) ?? '';
}

/** Codex session rollout: `{timestamp, type, payload}` per line. */
class RolloutReader implements Reader {
  private readonly loop: LoopAssembler;
  /** Seen `task_started`: this version writes turn ends, so none is ever derived. */
  private sawTurnLifecycle = false;
  /** A `task_started` opened the turn and its `user_message` is still to come. */
  private awaitingUserMessage = false;
  /** Non-zero exit codes `exec_command_end` events recorded, by call id, for the output item that follows. */
  private readonly failedExits = new Map<string, number>();

  constructor(emit: Emit, path: string) {
    this.loop = new LoopAssembler(emit, fallbackRunId(path));
  }

  map(value: unknown, line: LineRef): MapFailure | undefined {
    if (!isRecord(value)) return { reason: 'not a Codex rollout record: the line is not a JSON object' };
    const type = text(value['type']);
    if (type === undefined) return { reason: 'not a Codex rollout record: no "type" field' };
    const payload = value['payload'];
    if (!isRecord(payload)) return { reason: `not a Codex rollout record: "${type}" has no "payload" object` };
    const payloadType = text(payload['type']);
    const typeRaw = payloadType !== undefined && (type === 'response_item' || type === 'event_msg') ? `${type}/${payloadType}` : type;
    const source: Source = { line, typeRaw, ts: nonEmptyText(value['timestamp']) };
    const loop = this.loop;
    if (!loop.started) {
      if (type === 'session_meta') {
        this.startRun(payload, source);
        return undefined;
      }
      loop.beginRun({ versions: {} }, { ...source, typeRaw: 'derived/run_start' }, true);
    }
    switch (type) {
      case 'session_meta':
        loop.unknown(source);
        return undefined;
      case 'turn_context':
        return this.turnContext(payload, source);
      case 'response_item':
        return this.responseItem(payload, payloadType, source);
      case 'event_msg':
        return this.eventMsg(payload, payloadType, source);
      case 'compacted':
        loop.boundary();
        loop.unknown(source);
        return undefined;
      default:
        loop.unknown(source);
        return undefined;
    }
  }

  private startRun(payload: Record<string, unknown>, source: Source): void {
    const id = text(payload['id']);
    if (id !== undefined && id !== '') this.loop.runId = id;
    const cliVersion = text(payload['cli_version']);
    const config: NonNullable<RunStart['config']> = {
      ...defined({ provider: nonEmptyText(payload['model_provider']) }),
      versions: cliVersion !== undefined ? { codex_cli: cliVersion } : {},
    };
    for (const key of ['originator', 'cwd', 'source'] as const) {
      const field = text(payload[key]);
      if (field !== undefined) config[key] = field;
    }
    if (isRecord(payload['git'])) config['git'] = payload['git'];
    this.loop.beginRun(config, source, true);
  }

  private turnContext(payload: Record<string, unknown>, source: Source): undefined {
    const loop = this.loop;
    loop.supersedeEnd();
    loop.boundary();
    const model = text(payload['model']);
    if (model !== undefined) loop.model = model;
    loop.release(model !== undefined ? { model } : {});
    loop.unknown(source);
    return undefined;
  }

  private responseItem(payload: Record<string, unknown>, payloadType: string | undefined, source: Source): MapFailure | undefined {
    const loop = this.loop;
    switch (payloadType) {
      case 'message': {
        const role = text(payload['role']);
        if (role === 'assistant') {
          loop.output(source, { text: assistantText(payload['content']) });
        } else {
          loop.markInput();
          loop.unknown({ ...source, typeRaw: `${source.typeRaw}/${role ?? 'unknown'}` });
        }
        return undefined;
      }
      case 'reasoning':
        loop.output(source, { reasoning: reasoningText(payload) });
        return undefined;
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call': {
        const callId = text(payload['call_id']) ?? (payloadType === 'local_shell_call' ? text(payload['id']) : undefined);
        const name = payloadType === 'local_shell_call' ? 'local_shell' : text(payload['name']);
        if (callId === undefined || callId === '') return { reason: `Codex ${payloadType} without a "call_id"` };
        if (name === undefined) return { reason: `Codex ${payloadType} without a "name"` };
        const args =
          payloadType === 'function_call'
            ? payload['arguments']
            : payloadType === 'custom_tool_call'
              ? { input: payload['input'] ?? null }
              : (payload['action'] ?? null);
        loop.output(source, { call: { call_id: callId, name, ...(args !== undefined ? { arguments: args } : {}) } });
        return undefined;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const callId = text(payload['call_id']);
        if (callId === undefined || callId === '') return { reason: `Codex ${payloadType} without a "call_id"` };
        const output = payload['output'];
        const facts = readRolloutOutput(output);
        const exitCode = this.failedExits.get(callId);
        this.failedExits.delete(callId);
        const error = facts.error ?? (exitCode !== undefined ? { code: `exit_code_${exitCode}`, message: `exit code ${exitCode}` } : undefined);
        loop.result(source, callId, { output, error, latencyMs: facts.latencyMs });
        return undefined;
      }
      case 'web_search_call':
        // Run by the provider inside the model call: no call id, no output item, nothing owed.
        loop.output(source, { hosted: { type: 'web_search_call', status: payload['status'], action: payload['action'] } });
        return undefined;
      default:
        loop.unknown(source);
        return undefined;
    }
  }

  private eventMsg(payload: Record<string, unknown>, payloadType: string | undefined, source: Source): undefined {
    const loop = this.loop;
    switch (payloadType) {
      case 'token_count': {
        const info = field(payload, 'info');
        const usage = codexUsage(info?.['last_token_usage']);
        const key = info?.['total_token_usage'] !== undefined ? JSON.stringify(info['total_token_usage']) : null;
        if (usage === undefined || !loop.usage(source, usage, key)) loop.unknown(source);
        return undefined;
      }
      case 'task_started':
        this.sawTurnLifecycle = true;
        this.awaitingUserMessage = true;
        loop.newTurn();
        loop.unknown(source);
        return undefined;
      case 'user_message':
        if (this.awaitingUserMessage) {
          this.awaitingUserMessage = false;
          loop.supersedeEnd();
          loop.boundary();
        } else {
          loop.newTurn();
        }
        loop.markInput();
        loop.setTaskIfHeld(payload['message']);
        loop.unknown(source, text(payload['message']));
        return undefined;
      case 'task_complete': {
        this.sawTurnLifecycle = true;
        this.awaitingUserMessage = false;
        const turnId = text(payload['turn_id']);
        const last = payload['last_agent_message'];
        loop.endTurn(
          source,
          { status: 'model_finished', reason: `task_complete${turnId ? ` (turn ${turnId})` : ''}`, output: last ?? undefined },
          'turn_completed',
        );
        return undefined;
      }
      case 'exec_command_end': {
        // Its output item follows with the same call id; the exit code is kept for it.
        const callId = text(payload['call_id']);
        const exitCode = finite(payload['exit_code']);
        if (callId !== undefined && exitCode !== undefined && exitCode !== 0) this.failedExits.set(callId, exitCode);
        loop.unknown(source);
        return undefined;
      }
      case 'turn_aborted': {
        this.awaitingUserMessage = false;
        const reason = text(payload['reason']) ?? 'aborted';
        const status = normalizeTerminalStatus({ status: reason }).status === 'cancelled' ? reason : 'aborted';
        loop.endTurn(source, { status, reason: `turn_aborted: ${reason}` }, 'turn_aborted', reason);
        return undefined;
      }
      default:
        // agent_message / agent_reasoning mirror response items; they are kept, not counted.
        loop.unknown(source);
        return undefined;
    }
  }

  finish(): void {
    this.loop.finish(!this.sawTurnLifecycle);
  }
}

const execCallItems = new Set(['command_execution', 'mcp_tool_call', 'file_change']);

/** `codex exec --json` (0.44+): `thread.started`, `turn.*`, `item.started|updated|completed`. */
class ExecReader implements Reader {
  private readonly loop: LoopAssembler;
  /** Call items started and not completed yet, by item id. */
  private readonly openItems = new Set<string>();
  /** Hosted web searches started and not completed yet, by item id. */
  private readonly openSearches = new Set<string>();

  constructor(emit: Emit, path: string) {
    this.loop = new LoopAssembler(emit, fallbackRunId(path));
  }

  map(value: unknown, line: LineRef): MapFailure | undefined {
    if (!isRecord(value)) return { reason: 'not a codex exec event: the line is not a JSON object' };
    const type = text(value['type']);
    if (type === undefined) return { reason: 'not a codex exec event: no "type" field' };
    const item = value['item'];
    const itemType = isRecord(item) ? (text(item['type']) ?? text(item['item_type'])) : undefined;
    const source: Source = { line, typeRaw: itemType !== undefined ? `${type}/${itemType}` : type, ts: undefined };
    const loop = this.loop;
    if (type === 'thread.started' && !loop.started) {
      const threadId = text(value['thread_id']);
      if (threadId !== undefined && threadId !== '') loop.runId = threadId;
      loop.beginRun({ versions: {} }, source, false);
      return undefined;
    }
    if (!loop.started) loop.beginRun({ versions: {} }, { ...source, typeRaw: 'derived/run_start' }, false);
    switch (type) {
      case 'turn.started':
        loop.newTurn();
        loop.unknown(source);
        return undefined;
      case 'turn.completed': {
        const usage = codexUsage(value['usage']);
        if (usage !== undefined) loop.usage(source, usage, null, 'turn');
        loop.endTurn(source, { status: 'model_finished', reason: 'turn.completed' }, 'turn_completed');
        return undefined;
      }
      case 'turn.failed': {
        const message = text(field(value, 'error')?.['message']);
        loop.endTurn(source, { status: 'failed', reason: `turn.failed${message ? `: ${message}` : ''}` }, 'turn_failed');
        return undefined;
      }
      case 'item.started':
      case 'item.updated':
      case 'item.completed':
        if (!isRecord(item)) return { reason: `codex exec ${type} without an "item" object` };
        return this.itemEvent(type, item, itemType, source);
      default:
        loop.unknown(source);
        return undefined;
    }
  }

  private itemEvent(type: string, item: Record<string, unknown>, itemType: string | undefined, source: Source): MapFailure | undefined {
    const loop = this.loop;
    const id = text(item['id']);
    if (itemType !== undefined && execCallItems.has(itemType)) {
      if (id === undefined || id === '') return { reason: `codex exec ${itemType} item without an "id"` };
      if (type === 'item.updated') {
        loop.unknown(source);
        return undefined;
      }
      if (!this.openItems.has(id)) {
        const call = execCall(id, itemType, item);
        loop.output(source, { call });
        this.openItems.add(id);
        if (type === 'item.started') loop.executionStart(source, call);
      }
      if (type === 'item.completed') {
        this.openItems.delete(id);
        const { output, error } = execResult(itemType, item);
        loop.result(source, id, { output, error });
      }
      return undefined;
    }
    switch (itemType) {
      case 'reasoning':
      case 'agent_message':
        if (type !== 'item.completed') loop.unknown(source);
        else if (itemType === 'reasoning') loop.output(source, { reasoning: text(item['text']) ?? '' });
        else loop.output(source, { text: text(item['text']) ?? '' });
        return undefined;
      case 'web_search': {
        const key = id ?? '';
        if (type === 'item.started' || (type === 'item.completed' && !this.openSearches.has(key))) {
          loop.output(source, { hosted: { type: 'web_search', query: item['query'] } });
          if (type === 'item.started') this.openSearches.add(key);
        } else {
          if (type === 'item.completed') this.openSearches.delete(key);
          loop.unknown(source);
        }
        return undefined;
      }
      default:
        // todo_list (the plan, updated through the turn), error items, newer item kinds.
        loop.unknown(source);
        return undefined;
    }
  }

  finish(): void {
    this.loop.finish(false);
  }
}

function execCall(id: string, itemType: string, item: Record<string, unknown>): ToolCall {
  if (itemType === 'mcp_tool_call') {
    const server = text(item['server']) ?? 'mcp';
    const tool = text(item['tool']) ?? 'tool';
    return { call_id: id, name: `mcp__${server}__${tool}`, arguments: item['arguments'] ?? {} };
  }
  if (itemType === 'file_change') return { call_id: id, name: 'file_change', arguments: { changes: item['changes'] ?? [] } };
  return { call_id: id, name: 'command_execution', arguments: { command: item['command'] ?? null } };
}

function execResult(itemType: string, item: Record<string, unknown>): { output: unknown; error: ToolError | undefined } {
  const status = text(item['status']);
  if (itemType === 'mcp_tool_call') {
    const error = field(item, 'error');
    const failed = status === 'failed' || error !== undefined;
    return { output: item['result'] ?? null, error: failed ? defined({ code: 'failed', message: nonEmptyText(error?.['message']) }) : undefined };
  }
  if (itemType === 'file_change') {
    return { output: { changes: item['changes'] ?? [], status: status ?? null }, error: status === 'failed' ? { code: 'patch_failed' } : undefined };
  }
  const exitCode = finite(item['exit_code']);
  const output = item['aggregated_output'] ?? null;
  if (status === 'declined') return { output, error: { code: 'declined', message: 'command declined' } };
  if (exitCode !== undefined && exitCode !== 0) return { output, error: { code: `exit_code_${exitCode}`, message: `exit code ${exitCode}` } };
  if (status === 'failed') return { output, error: { code: 'failed' } };
  return { output, error: undefined };
}

const legacyConfigKeys = ['model', 'provider', 'sandbox', 'approval', 'workdir', 'reasoning effort', 'reasoning summaries'];

function isLegacyConfigLine(value: Record<string, unknown>): boolean {
  return legacyConfigKeys.filter((key) => key in value).length >= 2 && !('type' in value) && !('msg' in value);
}

/** `codex exec --json` before 0.44: an optional config line, a `{prompt}` line, then `{id, msg: {type, …}}`. */
class LegacyExecReader implements Reader {
  private readonly loop: LoopAssembler;
  private readonly openSearches = new Set<string>();

  constructor(emit: Emit, path: string) {
    this.loop = new LoopAssembler(emit, fallbackRunId(path));
  }

  map(value: unknown, line: LineRef): MapFailure | undefined {
    if (!isRecord(value)) return { reason: 'not a codex exec event: the line is not a JSON object' };
    const loop = this.loop;
    const msg = value['msg'];
    if (!isRecord(msg)) {
      if (typeof value['prompt'] === 'string') {
        const source: Source = { line, typeRaw: 'prompt', ts: undefined };
        if (!loop.started) loop.beginRun({ versions: {} }, { ...source, typeRaw: 'derived/run_start' }, true);
        loop.setTaskIfHeld(value['prompt']);
        loop.markInput();
        loop.unknown(source);
        return undefined;
      }
      if (isLegacyConfigLine(value)) {
        const source: Source = { line, typeRaw: 'config', ts: undefined };
        if (loop.started) {
          loop.unknown(source);
          return undefined;
        }
        const config: NonNullable<RunStart['config']> = { versions: {} };
        if (text(value['model'])) config.model = text(value['model']);
        if (text(value['provider'])) config.provider = text(value['provider']);
        for (const key of ['sandbox', 'approval', 'workdir', 'reasoning effort']) if (value[key] !== undefined) config[key] = value[key];
        loop.beginRun(config, source, true);
        return undefined;
      }
      return { reason: 'not a codex exec event: no "msg" object' };
    }
    const type = text(msg['type']);
    if (type === undefined) return { reason: 'not a codex exec event: "msg" has no "type"' };
    const source: Source = { line, typeRaw: `msg/${type}`, ts: undefined };
    if (!loop.started) loop.beginRun({ versions: {} }, { ...source, typeRaw: 'derived/run_start' }, true);
    if (type === 'session_configured') {
      loop.release({ runId: nonEmptyText(msg['session_id']), model: nonEmptyText(msg['model']) });
      loop.unknown(source);
      return undefined;
    }
    loop.release();
    return this.event(type, msg, source);
  }

  private event(type: string, msg: Record<string, unknown>, source: Source): MapFailure | undefined {
    const loop = this.loop;
    const callId = text(msg['call_id']);
    switch (type) {
      case 'task_started':
        loop.newTurn();
        loop.unknown(source);
        return undefined;
      case 'agent_reasoning':
        loop.output(source, { reasoning: text(msg['text']) ?? '' });
        return undefined;
      case 'agent_message':
        loop.output(source, { text: text(msg['message']) ?? '' });
        return undefined;
      case 'exec_command_begin':
      case 'patch_apply_begin':
      case 'mcp_tool_call_begin': {
        if (callId === undefined || callId === '') return { reason: `codex exec ${type} without a "call_id"` };
        const call = legacyCall(type, callId, msg);
        loop.output(source, { call });
        loop.executionStart(source, call);
        return undefined;
      }
      case 'exec_command_end':
      case 'patch_apply_end':
      case 'mcp_tool_call_end': {
        if (callId === undefined || callId === '') return { reason: `codex exec ${type} without a "call_id"` };
        const { output, error } = legacyResult(type, msg);
        loop.result(source, callId, { output, error, latencyMs: legacyDurationMillis(msg['duration']) });
        return undefined;
      }
      case 'web_search_begin':
      case 'web_search_end': {
        const key = callId ?? '';
        if (type === 'web_search_begin' || !this.openSearches.has(key)) {
          loop.output(source, { hosted: { type: 'web_search', query: msg['query'] } });
          if (type === 'web_search_begin') this.openSearches.add(key);
        } else {
          this.openSearches.delete(key);
          loop.unknown(source);
        }
        return undefined;
      }
      case 'token_count': {
        const info = field(msg, 'info');
        const usage = codexUsage(info !== undefined ? info['last_token_usage'] : msg);
        // Running totals repeat exactly when re-reported; the old flat counts are per call, never deduplicated.
        const key = info?.['total_token_usage'] !== undefined ? JSON.stringify(info['total_token_usage']) : null;
        if (usage === undefined || !loop.usage(source, usage, key)) loop.unknown(source);
        return undefined;
      }
      case 'task_complete': {
        const last = msg['last_agent_message'];
        loop.endTurn(source, { status: 'model_finished', reason: 'task_complete', output: last ?? undefined }, 'turn_completed');
        return undefined;
      }
      case 'turn_aborted': {
        const reason = text(msg['reason']) ?? 'aborted';
        const status = normalizeTerminalStatus({ status: reason }).status === 'cancelled' ? reason : 'aborted';
        loop.endTurn(source, { status, reason: `turn_aborted: ${reason}` }, 'turn_aborted', reason);
        return undefined;
      }
      default:
        // Deltas, approvals, plan updates, background events, errors: kept, not modelled.
        loop.unknown(source);
        return undefined;
    }
  }

  finish(): void {
    this.loop.finish(false);
  }
}

function legacyCall(type: string, callId: string, msg: Record<string, unknown>): ToolCall {
  if (type === 'mcp_tool_call_begin') {
    const invocation = field(msg, 'invocation') ?? {};
    return {
      call_id: callId,
      name: `mcp__${text(invocation['server']) ?? 'mcp'}__${text(invocation['tool']) ?? 'tool'}`,
      arguments: invocation['arguments'] ?? {},
    };
  }
  if (type === 'patch_apply_begin') return { call_id: callId, name: 'apply_patch', arguments: { changes: msg['changes'] ?? {} } };
  return { call_id: callId, name: 'exec_command', arguments: defined({ command: msg['command'] ?? null, cwd: msg['cwd'] }) };
}

/** An `*_end` event's `duration` (a Rust `Duration`: `{secs, nanos}`), in milliseconds. */
function legacyDurationMillis(duration: unknown): number | undefined {
  if (!isRecord(duration)) return undefined;
  const secs = finite(duration['secs']);
  const nanos = finite(duration['nanos']) ?? 0;
  return secs !== undefined && secs >= 0 && nanos >= 0 ? secs * 1000 + Math.round(nanos / 1e3) / 1e3 : undefined;
}

function legacyResult(type: string, msg: Record<string, unknown>): { output: unknown; error: ToolError | undefined } {
  if (type === 'mcp_tool_call_end') {
    const result = msg['result'];
    if (isRecord(result) && 'Err' in result) {
      const message = text(result['Err']);
      return { output: result['Err'], error: defined({ code: 'failed', message: message === undefined ? undefined : firstLine(message) }) };
    }
    const ok = isRecord(result) && 'Ok' in result ? result['Ok'] : result;
    const isError = isRecord(ok) && (ok['isError'] === true || ok['is_error'] === true);
    return { output: ok ?? null, error: isError ? { code: 'failed' } : undefined };
  }
  const stdout = text(msg['stdout']) ?? '';
  const stderr = text(msg['stderr']) ?? '';
  const output = text(msg['aggregated_output']) ?? text(msg['formatted_output']) ?? (stderr !== '' ? `${stdout}${stdout && !stdout.endsWith('\n') ? '\n' : ''}${stderr}` : stdout);
  if (type === 'patch_apply_end') {
    return { output, error: msg['success'] === false ? defined({ code: 'patch_failed', message: stderr ? firstLine(stderr) : undefined }) : undefined };
  }
  const exitCode = finite(msg['exit_code']);
  if (exitCode !== undefined && exitCode !== 0) return { output, error: { code: `exit_code_${exitCode}`, message: stderr ? firstLine(stderr) : `exit code ${exitCode}` } };
  return { output, error: undefined };
}

// ---------------------------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------------------------

const rolloutTypes = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);

function isRolloutRecord(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && typeof value['timestamp'] === 'string' && rolloutTypes.has(text(value['type']) ?? '') && isRecord(value['payload']);
}

const execEventType = /^(thread\.started|turn\.(started|completed|failed)|item\.(started|updated|completed))$/;

function isExecEvent(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && execEventType.test(text(value['type']) ?? '');
}

const legacyMsgTypes = new Set([
  'session_configured',
  'task_started',
  'task_complete',
  'agent_message',
  'agent_message_delta',
  'agent_reasoning',
  'agent_reasoning_delta',
  'exec_command_begin',
  'exec_command_end',
  'exec_command_output_delta',
  'patch_apply_begin',
  'patch_apply_end',
  'mcp_tool_call_begin',
  'mcp_tool_call_end',
  'token_count',
  'turn_aborted',
]);

function isLegacyEvent(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value) || !isRecord(value['msg'])) return false;
  const id = value['id'];
  return (id === undefined || typeof id === 'string' || typeof id === 'number') && typeof value['msg']['type'] === 'string';
}

type Shape = 'rollout' | 'exec' | 'exec-legacy';

function detectShape(sample: DetectionSample): { shape: Shape; reason: string } | null {
  const values = sample.values;
  if (values.length === 0) return null;
  const rollout = values.filter(isRolloutRecord);
  if (rollout.length * 2 >= values.length && rollout.some((value) => value['type'] !== 'event_msg')) {
    const types = [...new Set(rollout.map((value) => String(value['type'])))].slice(0, 4).join(', ');
    return { shape: 'rollout', reason: `Codex CLI rollout: ${rollout.length} of the first ${values.length} records are {timestamp, type, payload} (${types})` };
  }
  const exec = values.filter(isExecEvent);
  const threadStarted = exec.some((value) => value['type'] === 'thread.started' && typeof value['thread_id'] === 'string');
  const itemEvents = exec.filter((value) => isRecord(value['item']) && typeof value['item']['id'] === 'string');
  if (exec.length * 2 >= values.length && (threadStarted || itemEvents.length >= 2)) {
    return { shape: 'exec', reason: `codex exec --json stream: ${exec.length} of the first ${values.length} records are thread/turn/item events${threadStarted ? ' (thread.started with thread_id)' : ''}` };
  }
  const preamble = values.filter((value) => isRecord(value) && (typeof value['prompt'] === 'string' || isLegacyConfigLine(value)));
  const legacy = values.filter(isLegacyEvent);
  const known = legacy.filter((value) => legacyMsgTypes.has(String((value['msg'] as Record<string, unknown>)['type'])));
  if (known.length > 0 && (legacy.length + preamble.length) * 2 >= values.length) {
    return { shape: 'exec-legacy', reason: `codex exec --json stream (before 0.44): ${legacy.length} of the first ${values.length} records are {id, msg: {type}} events` };
  }
  return null;
}

function readerFor(value: unknown, emit: Emit, path: string): Reader | null {
  if (isRolloutRecord(value)) return new RolloutReader(emit, path);
  if (isRecord(value) && (isExecEvent(value) || value['type'] === 'error')) return new ExecReader(emit, path);
  if (isRecord(value) && (isLegacyEvent(value) || typeof value['prompt'] === 'string' || isLegacyConfigLine(value))) return new LegacyExecReader(emit, path);
  return null;
}

/** Codex CLI rollouts and `codex exec --json` streams. */
export const codexFormat: FormatAdapter = {
  name: 'codex',
  detect(sample) {
    return detectShape(sample)?.reason ?? null;
  },
  createMapper(context): FormatMapper {
    let reader: Reader | null = null;
    let emitter: Emit = () => {};
    const emit: Emit = (mapped) => emitter(mapped);
    return {
      map(value, line, out) {
        emitter = out;
        if (reader === null) {
          reader = readerFor(value, emit, context.path);
          if (reader === null) return { reason: 'not a Codex record: neither a rollout {timestamp, type, payload} nor a codex exec --json event' };
        }
        return reader.map(value, line);
      },
      finish(out) {
        emitter = out;
        reader?.finish();
      },
    };
  },
};
