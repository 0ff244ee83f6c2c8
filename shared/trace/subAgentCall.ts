/**
 * What a tool call that starts a sub-agent asked of it, read from the call's record as written:
 * the arguments of the call with that id, found wherever the format puts them (an Anthropic
 * `tool_use` block's `input`, an OpenAI/canonical call's `arguments`, possibly a JSON string),
 * and the label a reader tells sub-agents apart by: the task's short description and the agent's
 * type (Claude Code's Task: `description`, `subagent_type`).
 */

const MAX_DEPTH = 12;
const LABEL_CHARS = 120;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function argumentsOf(holder: Record<string, unknown>): Record<string, unknown> | undefined {
  for (const key of ['input', 'arguments', 'args']) {
    const value = holder[key];
    if (isObject(value)) return value;
    if (typeof value === 'string') {
      try {
        const parsed: unknown = JSON.parse(value);
        if (isObject(parsed)) return parsed;
      } catch {
        // Arguments that are not JSON: no fields to read.
      }
    }
  }
  return undefined;
}

/** The arguments of the call `callId` anywhere in `record` (its `id`/`call_id` is `callId`), or undefined. */
export function callArgumentsIn(record: unknown, callId: string, depth = 0): Record<string, unknown> | undefined {
  if (depth > MAX_DEPTH || typeof record !== 'object' || record === null) return undefined;
  if (Array.isArray(record)) {
    for (const item of record) {
      const found = callArgumentsIn(item, callId, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const obj = record as Record<string, unknown>;
  if (obj['id'] === callId || obj['call_id'] === callId) {
    const args = argumentsOf(obj) ?? (isObject(obj['function']) ? argumentsOf(obj['function']) : undefined);
    if (args !== undefined) return args;
  }
  for (const value of Object.values(obj)) {
    const found = callArgumentsIn(value, callId, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.replace(/\s+/g, ' ').trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * "<description> (<agent type>)", either alone, or null when the arguments name neither. Cut to
 * 120 characters (the prompt itself is the child run's first event; this only tells runs apart).
 */
export function subAgentLabel(args: Record<string, unknown> | undefined): string | null {
  if (args === undefined) return null;
  const description = text(args['description']);
  const type = text(args['subagent_type']) ?? text(args['agent_type']);
  const label = description !== undefined && type !== undefined ? `${description} (${type})` : (description ?? type);
  if (label === undefined) return null;
  return label.length > LABEL_CHARS ? `${label.slice(0, LABEL_CHARS - 1)}…` : label;
}
