/**
 * Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`, and a
 * sub-agent's `<session>/subagents/agent-<id>.jsonl`): see docs/formats/claude-code.md.
 *
 * Claude Code writes one line per content block of a model response, so the lines sharing a
 * `message.id` are merged into one model_response (one step), emitted once the message is over:
 * when a record that cannot continue it arrives, or at the end of the file. A tool result for a
 * call of the message still open — or any other record of its run logged between its lines
 * (progress, snapshots) — is held until the message is emitted, so a run's events stay in line
 * order: Claude Code starts running a tool while the rest of its message is still being written. The format has no
 * terminal record: a run_end is derived at the end of the file only from what its last record says.
 */
import { basename, dirname, join } from 'node:path';
import type { ApiError, EventOf, ToolCall } from '../../../../shared/trace/canonicalEvents';
import { classifyResponse } from '../../../../shared/trace/modelOutcome';
import { millisFromStartToResult } from '../kit/callLatency';
import {
  companionTypeRaw,
  conversationTypes,
  isInlineSidechain,
  isInterruptText,
  messageText,
  runIdOf,
  timestampOf,
  toolResultBlocks,
  transcriptSignals,
  userRecordKind,
  userTypeRaw,
  type UserRecordKind,
} from './records';
import { defined, modelResponse, runEnd, runStart, toolCallNotExecuted, toolResult, unknownEvent } from '../kit/events';
import { nonEmptyText } from '../kit/jsonValues';
import { emitOrHold, HeldEvents } from '../kit/stepBuilder';
import { isRecord, type Emit, type FormatAdapter, type FormatMapper, type LineRef, type MappedEvent } from '../formatAdapter';

type Outcome = NonNullable<EventOf<'model_response'>['outcome']>;

/** How many closed message ids a run remembers, to recognise a message continued after it was emitted. */
const RECENT_MESSAGES = 16;
/** How Claude Code's result for a tool use the user declined begins. */
const REJECTED_PREFIX = "The user doesn't want to proceed with this tool use";
/** Longest error text copied into a failed tool result's `error.message` (the full output is kept). */
const ERROR_MESSAGE_CHARS = 1000;
/** How much of a prompt a not-executed mark quotes to name the prompt that ended the call's turn. */
const PROMPT_QUOTE_CHARS = 60;

/** An assistant message (one `message.id`) still being written, merged from its lines. */
interface OpenMessage {
  id: string;
  step: number;
  line: LineRef;
  ts: string | undefined;
  lastTs: string | undefined;
  model: string | undefined;
  requestId: string | undefined;
  texts: string[];
  calls: ToolCall[];
  callIds: Set<string>;
  usage: Record<string, unknown> | undefined;
  /** False for the rest of a message that was already emitted: its usage was counted then. */
  countsUsage: boolean;
  stopReason: string | undefined;
  /** Claude Code's synthetic message standing in for a model call that failed (`isApiErrorMessage`). */
  apiError: { code: string | undefined; status: number | undefined } | undefined;
  /**
   * The run's other events logged between this message's lines (results of its calls, progress,
   * snapshots, injected context), in line order: emitted right after the merged message, which is
   * anchored to its first line, so the run's events stay in line order.
   */
  held: HeldEvents;
  outcome: Outcome | undefined;
}

/** The last record of a run that tells whether its loop was done: what a run_end is derived from. */
type LastWord = { kind: 'message'; message: OpenMessage } | { kind: 'interrupt'; line: LineRef; ts: string | undefined; text: string } | { kind: 'open' };

interface RunState {
  id: string;
  sessionId: string | undefined;
  steps: number;
  open: OpenMessage | null;
  recent: Map<string, number>;
  /** Calls issued and not yet answered: their name, step, the time of the line that issued them and, for a Task call, its prompt, for the results that answer them. */
  openCalls: Map<string, { name: string; step: number; issuedAt: string | undefined; prompt: string | undefined }>;
  last: LastWord;
  /** What `last` was before a slash command, restored when the command turns out to be local. */
  beforeCommand: LastWord | undefined;
}

/** A record read before any record named its session (`summary` lines at the top of old files). */
interface WaitingRecord {
  line: LineRef;
  typeRaw: string;
  ts: string | undefined;
}

/**
 * The canonical API error of Claude Code's error message: its status, its own category (`error`:
 * `server_error`, `unknown`, …) as the code, and the provider's error object when the text quotes
 * one (`API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`).
 */
function apiErrorOf(apiError: { code: string | undefined; status: number | undefined }, text: string): ApiError {
  const quoted = /^API Error: \d{3} (\{.*\})\s*$/s.exec(text)?.[1];
  let provider: Record<string, unknown> = {};
  if (quoted !== undefined) {
    try {
      const body = JSON.parse(quoted) as unknown;
      if (isRecord(body) && isRecord(body['error'])) provider = body['error'];
    } catch {
      provider = {};
    }
  }
  const type = typeof provider['type'] === 'string' ? provider['type'] : undefined;
  const message = typeof provider['message'] === 'string' ? provider['message'] : text;
  return {
    ...(apiError.status !== undefined ? { status: apiError.status } : {}),
    ...(type !== undefined ? { type } : {}),
    ...(apiError.code !== undefined ? { code: apiError.code } : {}),
    ...(message !== '' ? { message } : {}),
  };
}

/** Claude Code's `apiErrorStatus`: an HTTP status when it is one. */
function httpStatus(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

function usageOf(raw: Record<string, unknown>): Record<string, unknown> {
  const count = (key: string): number | undefined => {
    const value = raw[key];
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const uncached = count('input_tokens');
  const cacheWrite = count('cache_creation_input_tokens');
  const cacheRead = count('cache_read_input_tokens');
  const output = count('output_tokens');
  const anyInput = uncached !== undefined || cacheWrite !== undefined || cacheRead !== undefined;
  return {
    // Anthropic's input_tokens leaves out cached tokens; the request's size is all three together.
    ...(anyInput ? { input_tokens: (uncached ?? 0) + (cacheWrite ?? 0) + (cacheRead ?? 0) } : {}),
    ...(output !== undefined ? { output_tokens: output } : {}),
    ...(cacheRead !== undefined ? { cached_input_tokens: cacheRead } : {}),
    ...(uncached !== undefined ? { uncached_input_tokens: uncached } : {}),
    ...(cacheWrite !== undefined ? { cache_write_tokens: cacheWrite } : {}),
  };
}

function outputTokens(usage: Record<string, unknown> | undefined): number {
  const value = usage?.['output_tokens'];
  return typeof value === 'number' ? value : -1;
}

/** Derived as for every format (docs/semantics.md §1); Claude Code's synthetic API-error message is incomplete. */
function outcomeOf(message: OpenMessage): Outcome {
  return classifyResponse({
    outcome: message.apiError !== undefined ? 'incomplete' : undefined,
    finishReason: message.stopReason ?? null,
    toolCallCount: message.calls.length,
  });
}

/**
 * The error code of a result the user's stop produced: a call the user declined
 * (`rejected_by_user`, Codex's code for the same) or cut short while it ran (`interrupted`, Cline's).
 * Both are results the loop wrote, so the call is answered; only a call left without any result
 * at the interrupt is not executed (markInterrupted).
 */
function userStopCode(record: Record<string, unknown>, errorText: string): string | undefined {
  if (nonEmptyText(record['toolUseResult']) === 'User rejected tool use' || errorText.startsWith(REJECTED_PREFIX)) return 'rejected_by_user';
  if (isInterruptText(errorText)) return 'interrupted';
  return undefined;
}

function unknownLine(run: RunState, typeRaw: string, ts: string | undefined, line: LineRef, text?: string): MappedEvent {
  return { event: unknownEvent(typeRaw, { run_id: run.id, step: run.steps, ts, text: nonEmptyText(text) }), typeRaw, line };
}

/**
 * What the user asked, in words: a prompt as typed; a slash command as `/name args` (its record
 * wraps both in `<command-name>`/`<command-args>` tags). Other user records (injected context,
 * local command output, interrupts) asked nothing.
 */
function promptText(kind: UserRecordKind, text: string): string | undefined {
  if (kind === 'prompt') return text.trim();
  if (kind !== 'command') return undefined;
  const tag = (name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(text)?.[1]?.trim() ?? '';
  const command = [tag('command-name'), tag('command-args')].filter((part) => part !== '').join(' ');
  return command === '' ? undefined : command;
}

/**
 * The run time some tools write in the record's `toolUseResult` (docs/semantics.md §11): Grep,
 * Glob and WebFetch `durationMs`, a sub-agent (Task) `totalDurationMs`, WebSearch `durationSeconds`.
 */
function recordedDurationMs(toolUseResult: unknown): number | undefined {
  if (!isRecord(toolUseResult)) return undefined;
  const millis = finiteNonNegative(toolUseResult['durationMs']) ?? finiteNonNegative(toolUseResult['totalDurationMs']);
  if (millis !== undefined) return millis;
  const seconds = finiteNonNegative(toolUseResult['durationSeconds']);
  return seconds === undefined ? undefined : seconds * 1000;
}

function finiteNonNegative(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** A sub-agent transcript in a session's `subagents/` folder. */
const subAgentFileName = /^agent-.+\.jsonl$/;

class ClaudeCodeMapper implements FormatMapper {
  private readonly runs = new Map<string, RunState>();
  private lastRun: RunState | null = null;
  private lastMainRun: RunState | null = null;
  private waiting: WaitingRecord[] = [];
  /** The run of each inline sidechain record seen (by `uuid`): a record joins the run of its `parentUuid`. */
  private readonly sidechainRunOfUuid = new Map<string, string>();
  /** How many inline sidechain runs each session has started: the `<n>` of `<sessionId>/sidechain-<n>`. */
  private readonly sidechainCount = new Map<string, number>();
  /** Unanswered calls that hand a sub-agent a `prompt` (Task), in issue order, by that prompt: what an inline sidechain's root is matched to. */
  private readonly callsByPrompt = new Map<string, string[]>();
  /** The inline sidechain run each such call started, put on the call's result as its `child_run_id`. */
  private readonly childRunOfCall = new Map<string, string>();

  constructor(private readonly fallbackRunId: string) {}

  map(value: unknown, line: LineRef, emit: Emit): { reason: string } | undefined {
    if (!isRecord(value)) return { reason: 'not a Claude Code record: the line is not a JSON object' };
    const type = nonEmptyText(value['type']);
    if (type === undefined) return { reason: 'not a Claude Code record: the object has no "type" field' };
    const ts = timestampOf(value);
    if (conversationTypes.has(type) && !isRecord(value['message'])) {
      return { reason: `Claude Code ${type} record without a "message" object` };
    }
    const runId = isInlineSidechain(value) ? this.inlineSidechainRunId(value, type) : runIdOf(value);
    if (runId === null && !conversationTypes.has(type)) {
      const typeRaw = companionTypeRaw(value, type);
      const current = this.lastMainRun ?? this.lastRun;
      if (current === null) this.waiting.push({ line, typeRaw, ts });
      else emitOrHold(current.open?.held, unknownLine(current, typeRaw, ts, line), emit);
      return undefined;
    }
    const run = this.runFor(runId ?? this.lastMainRun?.id ?? this.fallbackRunId, value, type, ts, line, emit);
    if (type === 'assistant') this.mapAssistant(run, value, value['message'] as Record<string, unknown>, ts, line, emit);
    else if (type === 'user') this.mapUser(run, value, value['message'] as Record<string, unknown>, ts, line, emit);
    else {
      if (type === 'system' && value['subtype'] === 'compact_boundary') {
        // The history is replaced here: no message continues across it.
        this.close(run, emit);
        run.last = { kind: 'open' };
      }
      emitOrHold(run.open?.held, unknownLine(run, companionTypeRaw(value, type), ts, line), emit);
    }
    return undefined;
  }

  finish(emit: Emit): void {
    if (this.waiting.length > 0) this.runFor(this.fallbackRunId, {}, '', undefined, this.waiting[0]!.line, emit, false);
    for (const run of this.runs.values()) {
      this.close(run, emit);
      this.deriveEnd(run, emit);
    }
  }

  /**
   * The run of a sub-agent record written inline (Claude Code 1.0.x): the run of the record its
   * `parentUuid` names, else a new run `<sessionId>/sidechain-<n>` — a sidechain's root has
   * `parentUuid: null` (a parent not in the file starts a run too: its chain cannot be followed).
   * Sub-agents running in parallel interleave their records, so the chain, not the file order, says
   * which run a record is in. A root that is the user's prompt is linked to the first unanswered
   * call whose `input.prompt` is that text (the Task call that started the sub-agent).
   */
  private inlineSidechainRunId(record: Record<string, unknown>, type: string): string {
    const parentUuid = nonEmptyText(record['parentUuid']);
    let runId = parentUuid === undefined ? undefined : this.sidechainRunOfUuid.get(parentUuid);
    if (runId === undefined) {
      const sessionId = nonEmptyText(record['sessionId'])!;
      const count = (this.sidechainCount.get(sessionId) ?? 0) + 1;
      this.sidechainCount.set(sessionId, count);
      runId = `${sessionId}/sidechain-${count}`;
      const message = record['message'];
      const prompt = type === 'user' && isRecord(message) && toolResultBlocks(message['content']).length === 0 ? messageText(message['content']).trim() : '';
      const callId = prompt === '' ? undefined : this.callsByPrompt.get(prompt)?.shift();
      if (callId !== undefined) this.childRunOfCall.set(callId, runId);
    }
    const uuid = nonEmptyText(record['uuid']);
    if (uuid !== undefined) this.sidechainRunOfUuid.set(uuid, runId);
    return runId;
  }

  /** The run's state, created on its first record with a run_start (after any record that waited for a session). */
  private runFor(id: string, record: Record<string, unknown>, type: string, ts: string | undefined, line: LineRef, emit: Emit, start = true): RunState {
    let run = this.runs.get(id);
    if (run === undefined) {
      const sessionId = nonEmptyText(record['sessionId']);
      run = { id, sessionId, steps: 0, open: null, recent: new Map(), openCalls: new Map(), last: { kind: 'open' }, beforeCommand: undefined };
      this.runs.set(id, run);
      for (const waiting of this.waiting) emit(unknownLine(run, waiting.typeRaw, waiting.ts, waiting.line));
      this.waiting = [];
      if (start) emit(this.runStart(run, record, type, ts, line));
    }
    this.lastRun = run;
    if (!id.includes('/')) this.lastMainRun = run;
    return run;
  }

  private runStart(run: RunState, record: Record<string, unknown>, type: string, ts: string | undefined, line: LineRef): MappedEvent {
    const message = isRecord(record['message']) ? record['message'] : {};
    const model = nonEmptyText(message['model']);
    const version = nonEmptyText(record['version']);
    const cwd = nonEmptyText(record['cwd']);
    const gitBranch = nonEmptyText(record['gitBranch']);
    const agentId = record['isSidechain'] === true ? nonEmptyText(record['agentId']) : undefined;
    const prompt =
      type === 'user' && toolResultBlocks(message['content']).length === 0 && userRecordKind(record, messageText(message['content'])) === 'prompt'
        ? messageText(message['content'])
        : '';
    const event = runStart({
      run_id: run.id,
      step: 0,
      ts,
      config: defined({
        model: model !== '<synthetic>' ? model : undefined,
        versions: version !== undefined ? { claude_code: version } : undefined,
        cwd,
        git_branch: gitBranch,
        session_id: run.sessionId,
        agent_id: agentId,
      }),
      task: nonEmptyText(prompt),
    });
    // A run that starts on a progress line or a snapshot is not that record: it is named as what it is.
    return { event, typeRaw: conversationTypes.has(type) ? type : 'run_start', line };
  }

  private mapAssistant(
    run: RunState,
    record: Record<string, unknown>,
    message: Record<string, unknown>,
    ts: string | undefined,
    line: LineRef,
    emit: Emit,
  ): void {
    const id = nonEmptyText(message['id']) ?? nonEmptyText(record['uuid']) ?? `line-${line.lineNumber}`;
    let open = run.open;
    if (open === null || open.id !== id) {
      this.close(run, emit);
      const earlierStep = run.recent.get(id);
      open = {
        id,
        step: earlierStep ?? ++run.steps,
        line,
        ts,
        lastTs: ts,
        model: undefined,
        requestId: nonEmptyText(record['requestId']),
        texts: [],
        calls: [],
        callIds: new Set(),
        usage: undefined,
        countsUsage: earlierStep === undefined,
        stopReason: undefined,
        apiError: record['isApiErrorMessage'] === true ? { code: nonEmptyText(record['error']), status: httpStatus(record['apiErrorStatus']) } : undefined,
        held: new HeldEvents(),
        outcome: undefined,
      };
      run.open = open;
    }
    open.lastTs = ts ?? open.lastTs;
    const model = nonEmptyText(message['model']);
    if (model !== undefined && model !== '<synthetic>') open.model = model;
    const stopReason = nonEmptyText(message['stop_reason']);
    if (stopReason !== undefined) open.stopReason = stopReason;
    const usage = message['usage'];
    // Every line of a message repeats its usage, with output_tokens growing as it streams.
    if (open.countsUsage && open.apiError === undefined && isRecord(usage) && outputTokens(usage) >= outputTokens(open.usage)) open.usage = usage;
    const content = message['content'];
    if (typeof content === 'string' && content !== '') open.texts.push(content);
    if (Array.isArray(content)) {
      for (const block of content) {
        if (!isRecord(block)) continue;
        if (block['type'] === 'text' && typeof block['text'] === 'string') open.texts.push(block['text']);
        if (block['type'] !== 'tool_use') continue;
        const callId = nonEmptyText(block['id']) ?? `${id}#${open.calls.length}`;
        const name = nonEmptyText(block['name']) ?? '(unnamed)';
        const input = block['input'];
        const prompt = isRecord(input) && typeof input['prompt'] === 'string' && input['prompt'].trim() !== '' ? input['prompt'].trim() : undefined;
        open.calls.push({ call_id: callId, name, arguments: input });
        open.callIds.add(callId);
        run.openCalls.set(callId, { name, step: open.step, issuedAt: ts, prompt });
        if (prompt !== undefined) this.callsByPrompt.set(prompt, [...(this.callsByPrompt.get(prompt) ?? []), callId]);
      }
    }
    run.last = { kind: 'message', message: open };
  }

  private mapUser(run: RunState, record: Record<string, unknown>, message: Record<string, unknown>, ts: string | undefined, line: LineRef, emit: Emit): void {
    const content = message['content'];
    const results = toolResultBlocks(content);
    const text = messageText(content);
    if (results.length === 0) {
      const kind = userRecordKind(record, text);
      // Context Claude Code injects (isMeta) can land between the lines of a message; anything
      // else the user side writes means the message is over.
      if (kind !== 'meta') this.close(run, emit);
      if (kind === 'interrupt') run.last = { kind: 'interrupt', line, ts, text: text.trim() };
      else if (kind === 'command') {
        run.beforeCommand = run.last;
        run.last = { kind: 'open' };
      } else if (kind === 'local_command_output') {
        // The command ran locally and never reached the model: the run is where it was before it.
        if (run.beforeCommand !== undefined) run.last = run.beforeCommand;
      } else if (kind !== 'meta') run.last = { kind: 'open' };
      if (kind !== 'command' && kind !== 'meta') run.beforeCommand = undefined;
      emitOrHold(run.open?.held, unknownLine(run, userTypeRaw[kind], ts, line, promptText(kind, text)), emit);
      // A prompt starts a new turn: the loop moved on, and a call still open never gets its result.
      if (kind === 'interrupt' || kind === 'prompt') this.markNotExecuted(run, kind, text.trim(), line, ts, emit);
      return;
    }
    const childAgent = isRecord(record['toolUseResult']) ? nonEmptyText(record['toolUseResult']['agentId']) : undefined;
    for (const block of results) {
      const callId = nonEmptyText(block['tool_use_id']) ?? '(no tool_use_id)';
      const call = run.openCalls.get(callId);
      run.openCalls.delete(callId);
      if (call?.prompt !== undefined) this.forgetPromptedCall(call.prompt, callId);
      const childRunId =
        this.childRunOfCall.get(callId) ??
        (childAgent !== undefined && run.sessionId !== undefined && results.length === 1 ? `${run.sessionId}/agent-${childAgent}` : undefined);
      this.childRunOfCall.delete(callId);
      const isError = block['is_error'] === true;
      const output = block['content'];
      const errorText = isError ? messageText(output) || nonEmptyText(record['toolUseResult']) : undefined;
      const errorCode = isError ? userStopCode(record, errorText ?? '') : undefined;
      // Claude Code writes each content block's line as it is produced and starts a tool as soon as
      // its tool_use block is complete: from that line to the result's line is the call's latency
      // (with any permission prompt in it).
      const sinceIssued = millisFromStartToResult(call?.issuedAt, ts);
      const latencyMs = (results.length === 1 ? recordedDurationMs(record['toolUseResult']) : undefined) ?? sinceIssued;
      const event = toolResult({
        run_id: run.id,
        step: call?.step ?? run.steps,
        ts,
        call_id: callId,
        name: call?.name,
        status: isError ? 'error' : 'ok',
        output,
        error: isError ? defined({ code: errorCode, message: errorText ? errorText.slice(0, ERROR_MESSAGE_CHARS) : undefined }) : undefined,
        latency_ms: latencyMs,
        child_run_id: childRunId,
      });
      emitOrHold(run.open?.held, { event, typeRaw: 'user/tool_result', line }, emit);
    }
    run.beforeCommand = undefined;
    // An interrupt written in the same record as the results it cut short.
    if (userRecordKind(record, text) !== 'interrupt') {
      run.last = { kind: 'open' };
      return;
    }
    run.last = { kind: 'interrupt', line, ts, text: text.trim() };
    this.close(run, emit);
    this.markNotExecuted(run, 'interrupt', text.trim(), line, ts, emit);
  }

  /** An answered call can no longer be the one that started a sidechain. */
  private forgetPromptedCall(prompt: string, callId: string): void {
    const waiting = this.callsByPrompt.get(prompt)?.filter((id) => id !== callId) ?? [];
    if (waiting.length === 0) this.callsByPrompt.delete(prompt);
    else this.callsByPrompt.set(prompt, waiting);
  }

  /**
   * The turn is over without the results of its open calls (docs/semantics.md §4): the user stopped
   * it (`[Request interrupted by user…]`, as Codex's `turn_aborted`) or prompted again, on resuming
   * the session or not. Each call still without a result becomes a not-executed mark on that line.
   * Every earlier turn ended at a prompt that marked its own open calls, so the open calls are all
   * of the turn now ending.
   */
  private markNotExecuted(run: RunState, ending: 'interrupt' | 'prompt', text: string, line: LineRef, ts: string | undefined, emit: Emit): void {
    const oneLine = text.replace(/\s+/g, ' ');
    const quoted = oneLine.length > PROMPT_QUOTE_CHARS ? `${oneLine.slice(0, PROMPT_QUOTE_CHARS)}…` : oneLine;
    const reason =
      ending === 'interrupt'
        ? `the user interrupted the turn (${text}) before the call's result was recorded`
        : `the user prompted again ("${quoted}") before the call's result was recorded: the session went on without it`;
    for (const [callId, call] of run.openCalls) {
      run.openCalls.delete(callId);
      if (call.prompt !== undefined) this.forgetPromptedCall(call.prompt, callId);
      const event = toolCallNotExecuted({ run_id: run.id, step: call.step, ts, call_id: callId, name: call.name, reason });
      emit({ event, typeRaw: userTypeRaw[ending], line });
    }
  }

  /** Emits the run's open message, then the events of its run held behind it. */
  private close(run: RunState, emit: Emit): void {
    const message = run.open;
    if (message === null) return;
    run.open = null;
    message.outcome = outcomeOf(message);
    const event = modelResponse({
      run_id: run.id,
      step: message.step,
      ts: message.ts,
      outcome: message.outcome,
      text: message.texts.length > 0 ? message.texts.join('\n') : null,
      tool_calls: message.calls,
      // Claude Code's own stop_reason on its synthetic error message is not the provider's.
      finish_reason: message.apiError === undefined ? message.stopReason : undefined,
      incomplete_reason: message.outcome === 'incomplete' ? (message.apiError !== undefined ? 'api_error' : message.stopReason) : undefined,
      api_error: message.apiError !== undefined ? apiErrorOf(message.apiError, message.texts.join('\n')) : undefined,
      usage: message.usage !== undefined ? usageOf(message.usage) : undefined,
      response_id: message.id,
      request_id: message.requestId,
      model: message.model,
      // Claude Code's model calls go to Anthropic's Messages API (the session names no other provider).
      provider: 'anthropic',
    });
    message.held.emitAfter({ event, typeRaw: message.apiError !== undefined ? 'assistant/api_error' : 'assistant', line: message.line }, emit);
    // The message stays referenced as the run's last word until the next one: keep only what that needs.
    message.calls = [];
    message.callIds.clear();
    if (message.apiError === undefined) message.texts = [];
    run.recent.delete(message.id);
    run.recent.set(message.id, message.step);
    if (run.recent.size > RECENT_MESSAGES) run.recent.delete(run.recent.keys().next().value!);
  }

  /**
   * Claude Code never writes that a run ended. What its last record says is kept as the run's end:
   * the user's interrupt (cancelled), a final answer with every call answered (model_finished), a
   * model call that failed (failed). Anything else — a prompt or tool results the model never
   * answered, calls without results — leaves the run unterminated.
   */
  private deriveEnd(run: RunState, emit: Emit): void {
    const last = run.last;
    const end = (status: string, reason: string, line: LineRef, ts: string | undefined, typeRaw: string): void => {
      const event = runEnd({ run_id: run.id, step: run.steps, ts, status, reason });
      emit({ event, typeRaw, line });
    };
    if (last.kind === 'interrupt') {
      end(
        'cancelled',
        `derived: the run's last record is the user's interrupt "${last.text}" (line ${last.line.lineNumber})`,
        last.line,
        last.ts,
        'user/interrupt',
      );
      return;
    }
    if (last.kind !== 'message' || run.openCalls.size > 0) return;
    const message = last.message;
    const where = `the assistant message at line ${message.line.lineNumber} (step ${message.step})`;
    if (message.apiError !== undefined) {
      const text = message.texts.join('\n').slice(0, 200);
      end(
        'failed',
        `derived: the run's last record is Claude Code's API error message, ${where}${text ? `: ${text}` : ''}`,
        message.line,
        message.lastTs,
        'assistant/api_error',
      );
    } else if (message.outcome === 'final') {
      end(
        'model_finished',
        `derived: the run's last record is ${where}, which has text and no tool_use, and every call has its result`,
        message.line,
        message.lastTs,
        'assistant',
      );
    } else if (message.outcome === 'refusal') {
      end('refused', `derived: the run's last record is ${where}, a refusal (stop_reason "refusal")`, message.line, message.lastTs, 'assistant');
    }
  }
}

function fallbackRunId(path: string): string {
  const name = basename(path).replace(/\.jsonl$/i, '');
  return name === '' ? 'claude-code' : name;
}

export const claudeCodeFormat: FormatAdapter = {
  name: 'claude-code',
  detect(sample) {
    const signals = transcriptSignals(sample.values);
    const known = signals.conversation + signals.companion + signals.sessionless;
    const version = signals.version === undefined ? '' : ` (Claude Code ${signals.version})`;
    // Mostly Claude Code records, at least one of them a message with its session and uuid.
    if (signals.conversation > 0 && known >= signals.other * 2) {
      return `Claude Code session transcript${version}: ${signals.conversation} of the first ${sample.values.length} records are user/assistant records with sessionId, uuid and message`;
    }
    // Old transcripts can open with many `summary` lines before the first message.
    if (signals.conversation === 0 && signals.other === 0 && signals.sessionless + signals.companion >= 3 && signals.sessionless > 0) {
      return `Claude Code session transcript: the first ${sample.values.length} records are summary/file-history-snapshot records`;
    }
    return null;
  },
  createMapper({ path }) {
    return new ClaudeCodeMapper(fallbackRunId(path));
  },
  companions(path) {
    // `<session>.jsonl` keeps its sub-agents in `<session>/subagents/agent-<agentId>.jsonl`; a
    // sub-agent transcript has none of its own.
    if (!path.endsWith('.jsonl') || basename(dirname(path)) === 'subagents') return undefined;
    return { directory: join(dirname(path), basename(path, '.jsonl'), 'subagents'), name: subAgentFileName };
  },
  companionOwner(path) {
    const folder = dirname(path);
    if (basename(folder) !== 'subagents' || !subAgentFileName.test(basename(path))) return undefined;
    const sessionFolder = dirname(folder);
    return join(dirname(sessionFolder), `${basename(sessionFolder)}.jsonl`);
  },
  companionFileOfRun(childRunId) {
    // `<sessionId>/agent-<agentId>` is read from `agent-<agentId>.jsonl`; an inline sidechain has no file.
    const agent = /\/(agent-[^/]+)$/.exec(childRunId)?.[1];
    return agent === undefined ? undefined : `${agent}.jsonl`;
  },
};
