/**
 * Findings from request diffs (docs/semantics.md §9). Plain objects: the engine adds run id, step
 * and line when it stores them. Message numbers in the text are 1-based and count every message of
 * the request as logged, system messages included (`messageNumber`); `details` keeps both the
 * 0-based index into the normalized history and that number.
 */
import type { FindingKind, Severity } from '../report';
import { formatCount } from '../formatCount';
import { compactionTokens, type Compaction } from './compaction';
import type { HistoryVerdict, PrefixChange, ToolPairing } from './diffRequests';

export type RequestFindingKind = Extract<
  FindingKind,
  'history_rewrite' | 'history_compacted' | 'system_or_tools_changed' | 'missing_tool_result_in_history' | 'reconstruction_mismatch'
>;

export const requestFindingKinds: readonly RequestFindingKind[] = [
  'history_rewrite',
  'history_compacted',
  'system_or_tools_changed',
  'missing_tool_result_in_history',
  'reconstruction_mismatch',
];

export interface RequestFinding {
  kind: RequestFindingKind;
  severity: Severity;
  /** The call the finding is about (docs/semantics.md §4: every finding about one call names it). */
  callId: string | null;
  message: string;
  details: Record<string, unknown>;
}

/** What a rewrite did; a compaction is no rewrite finding (`historyCompactedFinding`). */
const happened: Record<Exclude<Extract<HistoryVerdict, { verdict: 'rewritten' }>['kind'], 'compacted'>, string> = {
  edited: 'an earlier message was edited',
  dropped: 'earlier messages were dropped',
  reordered: 'earlier messages were reordered',
  inserted: 'a message was inserted before earlier ones',
};

/**
 * `history_rewrite` (warning) for a request whose history is not the previous one plus new
 * messages — unless it is a compaction, which `historyCompactedFinding` reports.
 */
export function historyRewriteFinding(requestNumber: number, verdict: HistoryVerdict, against = previousRequest(requestNumber)): RequestFinding | null {
  if (verdict.verdict === 'extends' || verdict.kind === 'compacted') return null;
  const position = verdict.messageNumber;
  return {
    kind: 'history_rewrite',
    severity: 'warning',
    callId: null,
    message:
      `Request ${requestNumber} rewrites the history of ${against} at message ${position}: ${happened[verdict.kind]}. ` +
      `Provider prompt caching is invalidated from message ${position} on.`,
    details: { request: requestNumber, message_index: verdict.firstDifference, message_number: position, rewrite: verdict.kind, counts: verdict.counts },
  };
}

/**
 * What a request is compared with, as a finding names it: the run's previous request unless a diff
 * was asked against another (`request 2`, `request 3 of run b`).
 */
function previousRequest(requestNumber: number): string {
  return `request ${requestNumber - 1}`;
}

function plural(count: number, word: string): string {
  return `${formatCount(count)} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * `history_compacted` (info): the harness replaced the history with fewer messages. It is the
 * harness managing its context on purpose, so not a warning; it is still worth seeing, because
 * the request cannot reuse the prompt cache and what the summary left out is gone
 * (docs/semantics.md §9).
 */
export function historyCompactedFinding(requestNumber: number, found: Compaction, rewriteNumber: number | null): RequestFinding {
  const tokens = compactionTokens(found);
  const where = found.marker === null ? '' : ` (${found.marker.typeRaw} on line ${found.marker.line})`;
  const removed = found.messagesRemoved === null ? '' : `: ${plural(found.messagesRemoved, 'earlier message')} replaced`;
  const change = tokens === null ? '' : `; ${tokens}`;
  const message =
    found.evidence === 'token_drop'
      ? `Request ${requestNumber}'s recorded ${tokens ?? 'input fell'} although the trace shows no message removed: the history was compacted, truncated or started over without the trace logging it, ` +
        `so the requests rebuilt after it still hold messages the model no longer saw.`
      : `Request ${requestNumber} follows a compaction of the history${where}${removed}${change}. ` +
        `Provider prompt caching starts over from message ${rewriteNumber ?? 1}.`;
  return {
    kind: 'history_compacted',
    severity: 'info',
    callId: null,
    message,
    details: {
      request: requestNumber,
      evidence: found.evidence,
      marker: found.marker === null ? null : { type: found.marker.typeRaw, line: found.marker.line },
      message_number: rewriteNumber,
      tokens_before: found.tokensBefore,
      tokens_after: found.tokensAfter,
      tokens_removed: found.tokensRemoved,
      messages_removed: found.messagesRemoved,
    },
  };
}

/** "the system prompt and the tool definitions (added: a; removed: b; changed: c; reordered)". */
export function prefixChangeText(change: PrefixChange): string {
  const tools = [
    change.toolsAdded.length > 0 && `added: ${change.toolsAdded.join(', ')}`,
    change.toolsRemoved.length > 0 && `removed: ${change.toolsRemoved.join(', ')}`,
    change.toolsChanged.length > 0 && `changed: ${change.toolsChanged.join(', ')}`,
    change.toolsReordered && 'sent in another order',
  ].filter((part): part is string => part !== false);
  const what = [change.system && 'the system prompt', tools.length > 0 && `the tool definitions (${tools.join('; ')})`].filter(
    (part): part is string => part !== false,
  );
  return what.join(' and ');
}

/**
 * `system_or_tools_changed` (warning): they come before the first message, so the request shares
 * no cached prefix with the previous one, whatever its history (docs/semantics.md §9).
 */
export function prefixChangeFinding(requestNumber: number, change: PrefixChange | null, against = previousRequest(requestNumber)): RequestFinding | null {
  if (change === null) return null;
  return {
    kind: 'system_or_tools_changed',
    severity: 'warning',
    callId: null,
    message:
      `Request ${requestNumber} changes ${prefixChangeText(change)} of ${against}. ` +
      `They come before the first message, so provider prompt caching is invalidated from the first token.`,
    details: {
      request: requestNumber,
      system: change.system,
      tools_added: change.toolsAdded,
      tools_removed: change.toolsRemoved,
      tools_changed: change.toolsChanged,
      tools_reordered: change.toolsReordered,
    },
  };
}

/**
 * `reconstruction_mismatch` (info): a request rebuilt from the trace is far larger than the input
 * the provider recorded for its response — the rebuilt history holds messages the model was not
 * sent, so sizes and growth from there on are not what the model saw.
 */
export function reconstructionMismatchFinding(requestNumber: number, estimated: number, recorded: number): RequestFinding {
  return {
    kind: 'reconstruction_mismatch',
    severity: 'info',
    callId: null,
    message:
      `Request ${requestNumber} was rebuilt from the trace as about ${formatCount(estimated)} input tokens, but the provider recorded ${formatCount(recorded)} for its response: ` +
      `the rebuilt history holds more than the model was sent (records it did not see as written, or a compaction or truncation the trace does not log), ` +
      `so the sizes of the rebuilt requests from here on are not what the model saw.`,
    details: { request: requestNumber, estimated_input_tokens: estimated, recorded_input_tokens: recorded },
  };
}

/** The rebuilt estimate is more than this many times the recorded input, and at least `mismatchMinTokens` above it. */
export const mismatchFactor = 1.5;
export const mismatchMinTokens = 500;

/**
 * Whether a reconstructed request's estimate and its recorded input disagree widely. Only "the
 * rebuilt request holds more" counts: a reconstruction lacks the system prompt and tool
 * definitions, so the recorded input is normally the larger. A recorded 0 is no count.
 */
export function reconstructionDisagrees(estimated: number, recorded: number | null): recorded is number {
  return recorded !== null && recorded > 0 && estimated > recorded * mismatchFactor && estimated - recorded >= mismatchMinTokens;
}

/**
 * `missing_tool_result_in_history` (error), one per call or result: the request carries a call
 * without its result, or a result without its call, which breaks call/result correlation on the
 * provider side (docs/semantics.md §9). One finding per call so that each names its `call_id`
 * (docs/semantics.md §4).
 */
export function missingToolResultFindings(requestNumber: number, pairing: ToolPairing): RequestFinding[] {
  const withoutResult = pairing.missingToolResults.map((call): RequestFinding => ({
    kind: 'missing_tool_result_in_history',
    severity: 'error',
    callId: call.callId,
    message: `Request ${requestNumber} carries tool call ${call.callId} (${call.name}, message ${call.messageNumber}) without its result.`,
    details: { request: requestNumber, problem: 'missing_result', name: call.name, message_index: call.messageIndex, message_number: call.messageNumber },
  }));
  const withoutCall = pairing.orphanToolResults.map((result): RequestFinding => ({
    kind: 'missing_tool_result_in_history',
    severity: 'error',
    callId: result.callId,
    message: `Request ${requestNumber} carries a tool result for ${result.callId ?? 'no call id'} (message ${result.messageNumber}) without the call that issued it.`,
    details: { request: requestNumber, problem: 'orphan_result', message_index: result.messageIndex, message_number: result.messageNumber },
  }));
  return [...withoutResult, ...withoutCall];
}
