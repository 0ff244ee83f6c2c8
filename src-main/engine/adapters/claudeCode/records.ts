/**
 * Reading single Claude Code transcript records (`~/.claude/projects/<project>/<session>.jsonl`):
 * which run a record belongs to, what a user record is (tool results, a prompt, an interrupt, a
 * local command, …), and the text of content blocks. Pure functions; the mapper in claudeCode.ts
 * keeps the state across lines.
 */
import { isRecord } from '../formatAdapter';
import { contentText, nonEmptyText, textMember, type PartJoining } from '../kit/jsonValues';

/** Record kinds Claude Code writes; any other `type` is still kept, as an unknown event. */
export const conversationTypes = new Set(['user', 'assistant']);
const companionTypes = new Set(['system', 'progress', 'queue-operation']);
/** Record kinds written without a `sessionId`. */
const sessionlessTypes = new Set(['summary', 'file-history-snapshot']);

/**
 * The run a record belongs to: its session, or, for a sub-agent's sidechain record, the
 * sub-agent's own run `<sessionId>/agent-<agentId>`. Null for records without a session (`summary`,
 * `file-history-snapshot`). An inline sidechain record (isInlineSidechain) has no run of its own
 * here: which sub-agent it belongs to follows from its `parentUuid` chain, kept by the mapper.
 */
export function runIdOf(record: Record<string, unknown>): string | null {
  const sessionId = nonEmptyText(record['sessionId']);
  if (sessionId === undefined) return null;
  const agentId = record['isSidechain'] === true ? nonEmptyText(record['agentId']) : undefined;
  return agentId === undefined ? sessionId : `${sessionId}/agent-${agentId}`;
}

/** A sub-agent's record that old versions (1.0.x) wrote into the main file, without an `agentId`. */
export function isInlineSidechain(record: Record<string, unknown>): boolean {
  return record['isSidechain'] === true && nonEmptyText(record['agentId']) === undefined && nonEmptyText(record['sessionId']) !== undefined;
}

/** The raw type shown beside the canonical one: `system/compact_boundary`, `progress/agent_progress`, … */
export function companionTypeRaw(record: Record<string, unknown>, type: string): string {
  if (type === 'system') {
    const subtype = nonEmptyText(record['subtype']);
    return subtype === undefined ? type : `${type}/${subtype}`;
  }
  if (type === 'progress') {
    const data = record['data'];
    const kind = isRecord(data) ? nonEmptyText(data['type']) : undefined;
    return kind === undefined ? type : `${type}/${kind}`;
  }
  if (type === 'queue-operation') {
    const operation = nonEmptyText(record['operation']);
    return operation === undefined ? type : `${type}/${operation}`;
  }
  return type;
}

/** A record's own timestamp; a file-history snapshot keeps it inside `snapshot`. */
export function timestampOf(record: Record<string, unknown>): string | undefined {
  const ts = nonEmptyText(record['timestamp']);
  if (ts !== undefined) return ts;
  const snapshot = record['snapshot'];
  return isRecord(snapshot) ? nonEmptyText(snapshot['timestamp']) : undefined;
}

/** Claude Code's rule for a message's content blocks: only its `text` blocks (not tool uses or thinking), one a line. */
const TEXT_BLOCKS_BY_LINE: PartJoining = {
  separator: '\n',
  partText: (block) => (isRecord(block) && block['type'] === 'text' ? textMember(block) : undefined),
};

/** The text of a message's content: a plain string, or its `text` blocks joined by newlines; '' for anything else. */
export function messageText(content: unknown): string {
  return contentText(content, TEXT_BLOCKS_BY_LINE) ?? '';
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
    const type = isRecord(value) ? nonEmptyText(value['type']) : undefined;
    if (!isRecord(value) || type === undefined) {
      signals.other += 1;
      continue;
    }
    const hasSession = nonEmptyText(value['sessionId']) !== undefined;
    if (conversationTypes.has(type) && hasSession && nonEmptyText(value['uuid']) !== undefined && isRecord(value['message'])) {
      signals.conversation += 1;
      signals.version ??= nonEmptyText(value['version']);
    } else if (companionTypes.has(type) && hasSession) {
      signals.companion += 1;
    } else if (
      sessionlessTypes.has(type) &&
      ((type === 'summary' && nonEmptyText(value['leafUuid']) !== undefined) ||
        (type === 'file-history-snapshot' && nonEmptyText(value['messageId']) !== undefined && isRecord(value['snapshot'])))
    ) {
      signals.sessionless += 1;
    } else {
      signals.other += 1;
    }
  }
  return signals;
}
