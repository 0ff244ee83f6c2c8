/**
 * The `codex exec --json` stream (Codex 0.44+): `thread.started`, `turn.*` and
 * `item.started|updated|completed` events; a command, MCP call or file change is one item, started
 * and then completed with its output.
 */
import type { ToolCall } from '../../../../shared/trace/canonicalEvents';
import { isRecord, type Emit, type LineRef, type MapFailure } from '../formatAdapter';
import { defined } from '../kit/events';
import { field, finite, nonEmptyText, text } from '../kit/jsonValues';
import { LoopAssembler } from './loopAssembler';
import { codexUsage, fallbackRunId, type Reader, type Source, type ToolError } from './readerBasics';

const execCallItems = new Set(['command_execution', 'mcp_tool_call', 'file_change']);

/** `codex exec --json` (0.44+): `thread.started`, `turn.*`, `item.started|updated|completed`. */
export class ExecReader implements Reader {
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
