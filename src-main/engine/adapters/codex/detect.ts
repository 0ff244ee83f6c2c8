/**
 * Which of the three Codex shapes a file is: from a sample of its first records for detection,
 * and from its first record for the reader that maps it.
 */
import { isRecord, type DetectionSample } from '../formatAdapter';
import { text } from '../kit/jsonValues';

const legacyConfigKeys = ['model', 'provider', 'sandbox', 'approval', 'workdir', 'reasoning effort', 'reasoning summaries'];

/** The settings line an old `codex exec --json` stream may open with: setting names as keys, no `type` or `msg`. */
export function isLegacyConfigLine(value: Record<string, unknown>): boolean {
  return legacyConfigKeys.filter((key) => key in value).length >= 2 && !('type' in value) && !('msg' in value);
}

const rolloutTypes = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);

export function isRolloutRecord(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && typeof value['timestamp'] === 'string' && rolloutTypes.has(text(value['type']) ?? '') && isRecord(value['payload']);
}

const execEventType = /^(thread\.started|turn\.(started|completed|failed)|item\.(started|updated|completed))$/;

export function isExecEvent(value: unknown): value is Record<string, unknown> {
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

export function isLegacyEvent(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value) || !isRecord(value['msg'])) return false;
  const id = value['id'];
  return (id === undefined || typeof id === 'string' || typeof id === 'number') && typeof value['msg']['type'] === 'string';
}

type Shape = 'rollout' | 'exec' | 'exec-legacy';

export function detectShape(sample: DetectionSample): { shape: Shape; reason: string } | null {
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
    return {
      shape: 'exec',
      reason: `codex exec --json stream: ${exec.length} of the first ${values.length} records are thread/turn/item events${threadStarted ? ' (thread.started with thread_id)' : ''}`,
    };
  }
  const preamble = values.filter((value) => isRecord(value) && (typeof value['prompt'] === 'string' || isLegacyConfigLine(value)));
  const legacy = values.filter(isLegacyEvent);
  const known = legacy.filter((value) => legacyMsgTypes.has(String((value['msg'] as Record<string, unknown>)['type'])));
  if (known.length > 0 && (legacy.length + preamble.length) * 2 >= values.length) {
    return {
      shape: 'exec-legacy',
      reason: `codex exec --json stream (before 0.44): ${legacy.length} of the first ${values.length} records are {id, msg: {type}} events`,
    };
  }
  return null;
}
