/**
 * The older `codex exec --json` stream (before Codex 0.44): an optional config line, a `{prompt}`
 * line, then `{id, msg: {type, …}}` events; a call is a `*_begin` / `*_end` pair.
 */
import type { ToolCall } from '../../../../shared/trace/canonicalEvents';
import { isRecord, type Emit, type LineRef, type MapFailure } from '../formatAdapter';
import { defined } from '../kit/events';
import { field, finite, nonEmptyText, text } from '../kit/jsonValues';
import { isLegacyConfigLine } from './detect';
import { LoopAssembler } from './loopAssembler';
import { codexUsage, fallbackRunId, firstLine, turnAbortedEnd, type Reader, type RunConfig, type Source, type ToolError } from './readerBasics';

/** `codex exec --json` before 0.44: an optional config line, a `{prompt}` line, then `{id, msg: {type, …}}`. */
export class LegacyExecReader implements Reader {
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
        const config: RunConfig = { versions: {} };
        const model = nonEmptyText(value['model']);
        const provider = nonEmptyText(value['provider']);
        if (model !== undefined) config.model = loop.model = model;
        if (provider !== undefined) config.provider = loop.provider = provider;
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
      const model = nonEmptyText(msg['model']);
      if (model !== undefined) loop.model = model;
      loop.release({ runId: nonEmptyText(msg['session_id']), model });
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
        loop.endTurn(source, turnAbortedEnd(reason), 'turn_aborted', reason);
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
  const output =
    text(msg['aggregated_output']) ??
    text(msg['formatted_output']) ??
    (stderr !== '' ? `${stdout}${stdout && !stdout.endsWith('\n') ? '\n' : ''}${stderr}` : stdout);
  if (type === 'patch_apply_end') {
    return { output, error: msg['success'] === false ? defined({ code: 'patch_failed', message: stderr ? firstLine(stderr) : undefined }) : undefined };
  }
  const exitCode = finite(msg['exit_code']);
  if (exitCode !== undefined && exitCode !== 0)
    return { output, error: { code: `exit_code_${exitCode}`, message: stderr ? firstLine(stderr) : `exit code ${exitCode}` } };
  return { output, error: undefined };
}
