/**
 * The Codex session rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`): every line
 * is `{timestamp, type, payload}`; response items are the model's outputs and the tools' outputs,
 * event messages carry token counts, user messages and the turns' lifecycle.
 */
import { isRecord, type Emit, type LineRef, type MapFailure } from '../formatAdapter';
import { defined } from '../kit/events';
import { contentText, field, finite, list, nonEmptyText, text, textMember, type JsonObject, type PartJoining } from '../kit/jsonValues';
import { LoopAssembler } from './loopAssembler';
import { codexUsage, fallbackRunId, turnAbortedEnd, type Reader, type RunConfig, type Source } from './readerBasics';
import { readRolloutOutput } from './rolloutOutput';

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
export class RolloutReader implements Reader {
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
    const provider = nonEmptyText(payload['model_provider']);
    if (provider !== undefined) this.loop.provider = provider;
    // Rollouts name the model in each turn_context; a session_meta that names one gives the first steps theirs.
    this.loop.model ??= nonEmptyText(payload['model']);
    const config: RunConfig = {
      ...defined({ provider }),
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
        loop.endTurn(source, turnAbortedEnd(reason), 'turn_aborted', reason);
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
