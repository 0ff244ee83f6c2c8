/**
 * The Codex loop assembler, shared by the three shapes: steps, calls, turns and the run's end.
 *
 * None of the shapes writes a "model call" record. A step (one model call) is assembled from the
 * model's outputs between two inputs: reasoning, assistant text and tool calls, up to the next tool
 * output or user input; a rollout's `turn_context` (written once per sampling step), a new turn and
 * the end of a turn also close it. The step's `model_response` is emitted before the results of
 * its calls; results that arrive before its token usage is known wait with it (one step at a time).
 *
 * A session holds several turns (one per user message); they are one run. A turn's end
 * (`task_complete`, `turn_aborted`, `turn.completed`, …) ends the run only when no later turn
 * starts, which is known at the end of the file.
 */
import type { ToolCall, Usage } from '../../../../shared/trace/canonicalEvents';
import type { AdaptedEvent, Emit, MappedEvent } from '../formatAdapter';
import { modelResponse, runEnd, runStart, toolCallNotExecuted, toolCallStart, toolResult, unknownEvent } from '../kit/events';
import { nonEmptyText } from '../kit/jsonValues';
import { emitOrHold, HeldEvents, StepBuilder } from '../kit/stepBuilder';
import { DEFAULT_CODEX_PROVIDER, type RunConfig, type RunEnd, type Source, type ToolError } from './readerBasics';
import { RunStartHold, type RunStartPatch } from './runStartHold';

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
  after: HeldEvents;
}

/**
 * A call still waiting for its output. Kept apart from StepBuilder's record of issued calls: an
 * output answers its call once (a second output with the same id names no call and gets the
 * current step), and an aborted turn marks only its own waiting calls as not executed.
 */
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

export class LoopAssembler {
  runId: string;
  /** Model of the current step (rollouts: from the last `turn_context`). */
  model: string | undefined;
  /** Who serves the session's model calls: the session's `model_provider` (a legacy config's `provider`), else Codex's default. */
  provider: string = DEFAULT_CODEX_PROVIDER;
  turn = 0;
  private readonly startHold: RunStartHold;
  private step: OpenStep | null = null;
  private readonly steps = new StepBuilder();
  private lastClosed: ClosedStep | null = null;
  private inputAfterLastStep = false;
  private pendingUsage: { usage: Usage; source: Source } | null = null;
  private lastUsageKey: string | null = null;
  private readonly openCalls = new Map<string, OpenCall>();
  private endCandidate: { event: RunEnd; source: Source } | null = null;

  constructor(emit: Emit, runId: string) {
    this.startHold = new RunStartHold(emit);
    this.runId = runId;
  }

  get started(): boolean {
    return this.startHold.started;
  }

  /** Emits the run_start; with `hold`, it and the events after it wait for `release` (see RunStartHold). */
  beginRun(config: RunConfig, source: Source, hold: boolean): void {
    this.startHold.begin({ event: runStart({ run_id: this.runId, ts: source.ts, config }), typeRaw: source.typeRaw, line: source.line }, hold);
  }

  /** Completes the held run_start (model, task, the session id found later) and emits what waited. */
  release(patch: RunStartPatch = {}): void {
    if (this.startHold.release(patch) && patch.runId !== undefined) this.runId = patch.runId;
  }

  setTaskIfHeld(task: unknown): void {
    this.startHold.setTaskIfHeld(task);
  }

  private out(mapped: MappedEvent): void {
    this.startHold.emitOrHold(mapped);
  }

  private readonly emitOut: Emit = (mapped) => this.out(mapped);

  /** Emits an event now, or right after the open step's response when that is not out yet. */
  private queue(event: AdaptedEvent, source: Source): void {
    const mapped: MappedEvent = { event, typeRaw: source.typeRaw, line: source.line };
    const step = this.step;
    emitOrHold(step !== null && !step.emitted ? step.after : undefined, mapped, this.emitOut);
  }

  /**
   * A record Loopscope does not model: kept as an `unknown` event. `text`: what the record says to the model in words (the user's message), for its summary, search and the run's task.
   */
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
        after: new HeldEvents(),
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
        reason === 'turn_aborted'
          ? 'turn_aborted'
          : reason === 'turn_failed'
            ? 'turn_failed'
            : reason === 'end_of_file'
              ? 'log_ends_mid_step'
              : 'no_message_or_call';
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
      provider: this.provider,
      reasoning: step.reasoning.length > 0 ? step.reasoning.join('\n\n') : undefined,
      hosted_tools: step.hosted.length > 0 ? step.hosted : undefined,
    });
    step.after.emitAfter({ event, typeRaw: step.source.typeRaw, line: step.source.line }, this.emitOut);
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
