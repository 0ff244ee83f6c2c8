/**
 * Reading single Claude Code transcript records (`~/.claude/projects/<project>/<session>.jsonl`):
 * which run a record belongs to, what a user record is (tool results, a prompt, an interrupt, a
 * local command, …), and the text of content blocks. Pure functions; the mapper in claudeCode.ts
 * keeps the state across lines.
 */
import { isRecord } from './formatAdapter';

/** Record kinds Claude Code writes; any other `type` is still kept, as an unknown event. */
export const conversationTypes = new Set(['user', 'assistant']);
const companionTypes = new Set(['system', 'progress', 'queue-operation']);
/** Record kinds written without a `sessionId`. */
const sessionlessTypes = new Set(['summary', 'file-history-snapshot']);

export function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The run a record belongs to: its session, or, for a sub-agent's sidechain record, the
 * sub-agent's own run `<sessionId>/agent-<agentId>`. Null for records without a session (`summary`,
 * `file-history-snapshot`). An inline sidechain record (isInlineSidechain) has no run of its own
 * here: which sub-agent it belongs to follows from its `parentUuid` chain, kept by the mapper.
 */
export function runIdOf(record: Record<string, unknown>): string | null {
  const sessionId = stringField(record, 'sessionId');
  if (sessionId === undefined) return null;
  const agentId = record['isSidechain'] === true ? stringField(record, 'agentId') : undefined;
  return agentId === undefined ? sessionId : `${sessionId}/agent-${agentId}`;
}

/** A sub-agent's record that old versions (1.0.x) wrote into the main file, without an `agentId`. */
export function isInlineSidechain(record: Record<string, unknown>): boolean {
  return record['isSidechain'] === true && stringField(record, 'agentId') === undefined && stringField(record, 'sessionId') !== undefined;
}

/** The raw type shown beside the canonical one: `system/compact_boundary`, `progress/agent_progress`, … */
export function companionTypeRaw(record: Record<string, unknown>, type: string): string {
  if (type === 'system') {
    const subtype = stringField(record, 'subtype');
    return subtype === undefined ? type : `${type}/${subtype}`;
  }
  if (type === 'progress') {
    const data = record['data'];
    const kind = isRecord(data) ? stringField(data, 'type') : undefined;
    return kind === undefined ? type : `${type}/${kind}`;
  }
  if (type === 'queue-operation') {
    const operation = stringField(record, 'operation');
    return operation === undefined ? type : `${type}/${operation}`;
  }
  return type;
}

/** A record's own timestamp; a file-history snapshot keeps it inside `snapshot`. */
export function timestampOf(record: Record<string, unknown>): string | undefined {
  const ts = stringField(record, 'timestamp');
  if (ts !== undefined) return ts;
  const snapshot = record['snapshot'];
  return isRecord(snapshot) ? stringField(snapshot, 'timestamp') : undefined;
}

/** The text of a message's content: a plain string, or its `text` blocks joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (isRecord(block) && block['type'] === 'text' && typeof block['text'] === 'string') parts.push(block['text']);
  }
  return parts.join('\n');
}

const INTERRUPT_PREFIX = '[Request interrupted by user';

/** Claude Code's interrupt marker: `[Request interrupted by user]`, `… for tool use]`. */
export function isInterruptText(text: string): boolean {
  return text.trimStart().startsWith(INTERRUPT_PREFIX);
}

/**
 * What a user record without tool results is. Claude Code writes the user's prompts, its own
 * injected context (`isMeta`), local slash commands and their output, the summary that replaces
 * the history after a compaction, and the marker it writes when the user interrupts a turn.
 */
export type UserRecordKind = 'prompt' | 'command' | 'local_command_output' | 'meta' | 'compact_summary' | 'interrupt';

export function userRecordKind(record: Record<string, unknown>, text: string): UserRecordKind {
  if (record['isCompactSummary'] === true) return 'compact_summary';
  if (isInterruptText(text)) return 'interrupt';
  const trimmed = text.trimStart();
  if (record['isMeta'] === true || trimmed.startsWith('<local-command-caveat>')) return 'meta';
  if (trimmed.startsWith('<local-command-stdout>') || trimmed.startsWith('<local-command-stderr>')) return 'local_command_output';
  if (trimmed.startsWith('<command-name>') || trimmed.startsWith('<command-message>')) return 'command';
  return 'prompt';
}

/** The raw type shown for a user record of each kind. */
export const userTypeRaw: Readonly<Record<UserRecordKind, string>> = {
  prompt: 'user',
  command: 'user/command',
  local_command_output: 'user/local_command_output',
  meta: 'user/meta',
  compact_summary: 'user/compact_summary',
  interrupt: 'user/interrupt',
};

/** The tool-result blocks of a user record's content. */
export function toolResultBlocks(content: unknown): Record<string, unknown>[] {
  if (!Array.isArray(content)) return [];
  return content.filter((block): block is Record<string, unknown> => isRecord(block) && block['type'] === 'tool_result');
}

/** How many of the sampled records look like Claude Code transcript records, by kind. */
export interface TranscriptSignals {
  conversation: number;
  companion: number;
  sessionless: number;
  other: number;
  version: string | undefined;
}

export function transcriptSignals(values: readonly unknown[]): TranscriptSignals {
  const signals: TranscriptSignals = { conversation: 0, companion: 0, sessionless: 0, other: 0, version: undefined };
  for (const value of values) {
    const type = isRecord(value) ? stringField(value, 'type') : undefined;
    if (!isRecord(value) || type === undefined) {
      signals.other += 1;
      continue;
    }
    const hasSession = stringField(value, 'sessionId') !== undefined;
    if (conversationTypes.has(type) && hasSession && stringField(value, 'uuid') !== undefined && isRecord(value['message'])) {
      signals.conversation += 1;
      signals.version ??= stringField(value, 'version');
    } else if (companionTypes.has(type) && hasSession) {
      signals.companion += 1;
    } else if (
      sessionlessTypes.has(type) &&
      ((type === 'summary' && stringField(value, 'leafUuid') !== undefined) ||
        (type === 'file-history-snapshot' && stringField(value, 'messageId') !== undefined && isRecord(value['snapshot'])))
    ) {
      signals.sessionless += 1;
    } else {
      signals.other += 1;
    }
  }
  return signals;
}
