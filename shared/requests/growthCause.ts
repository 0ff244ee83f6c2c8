/**
 * What made a request larger than the one before it, in words a user reads at a glance
 * ("tool result of Read", "user message", "system prompt changed"): the messages the turn appended,
 * largest first, then what changed before the messages (system prompt, tool definitions) or inside
 * them (a rewrite). The growth view names its largest turns with these (docs/ui.md, Context growth).
 */

/** One part of what a turn added, the shape of `RequestRow['added']` (shared/api.ts). */
export interface AddedGroup {
  role: string;
  /** The tool whose results these are (role `tool`); null for other roles. */
  tool: string | null;
  messages: number;
  tokens: number;
}

export interface GrowthCauseInput {
  added: readonly AddedGroup[];
  prefixChange: {
    system: boolean;
    toolsAdded: readonly string[];
    toolsRemoved: readonly string[];
    toolsChanged: readonly string[];
    toolsReordered: boolean;
  } | null;
  rewrite: { messageNumber: number } | null;
}

export interface GrowthCause {
  label: string;
  /** Tokens this part added; null for a change that is not an appended message (a system prompt). */
  tokens: number | null;
}

/** "tool result of Read", "3 tool results of Bash", "user message", "2 assistant messages". */
export function addedGroupLabel(group: Pick<AddedGroup, 'role' | 'tool' | 'messages'>): string {
  const many = group.messages > 1;
  const count = many ? `${group.messages} ` : '';
  if (group.role === 'tool') {
    const what = many ? 'tool results' : 'tool result';
    if (group.tool === null) return `${count}${what}`;
    // A call sent without a name is still a tool's result, just not a named one.
    return group.tool === '' ? `${count}${what} of an unnamed tool` : `${count}${what} of ${group.tool}`;
  }
  return `${count}${group.role} message${many ? 's' : ''}`;
}

/** The causes of one turn's growth: appended messages by size, then prefix changes and a rewrite. */
export function growthCauses(request: GrowthCauseInput): GrowthCause[] {
  const causes: GrowthCause[] = [...request.added]
    .filter((group) => group.tokens > 0)
    .sort((a, b) => b.tokens - a.tokens)
    .map((group) => ({ label: addedGroupLabel(group), tokens: group.tokens }));
  const prefix = request.prefixChange;
  if (prefix !== null) {
    if (prefix.system) causes.push({ label: 'system prompt changed', tokens: null });
    if (prefix.toolsAdded.length + prefix.toolsRemoved.length + prefix.toolsChanged.length > 0 || prefix.toolsReordered)
      causes.push({ label: 'tool definitions changed', tokens: null });
  }
  if (request.rewrite !== null) causes.push({ label: `history rewritten at message ${request.rewrite.messageNumber}`, tokens: null });
  return causes;
}
