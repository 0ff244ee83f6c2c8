/**
 * Findings from request diffs. Plain objects for now: shared/report.ts gets the two kinds later,
 * and the engine adds run id, step and line when it stores them. Message numbers in the text are
 * 1-based, as the UI shows them; `details` keeps 0-based indices.
 */
import type { Severity } from '../report';
import type { HistoryVerdict, ToolPairing } from './diffRequests';

export type RequestFindingKind = 'history_rewrite' | 'missing_tool_result_in_history';

export interface RequestFinding {
  kind: RequestFindingKind;
  severity: Severity;
  message: string;
  details: Record<string, unknown>;
}

const happened: Record<Extract<HistoryVerdict, { verdict: 'rewritten' }>['kind'], string> = {
  edited: 'an earlier message was edited',
  dropped: 'earlier messages were dropped',
  reordered: 'earlier messages were reordered',
  compacted: 'earlier messages were compacted into fewer (typically a summary)',
  inserted: 'a message was inserted before earlier ones',
};

/** `history_rewrite` (warning) for a request whose history is not the previous one plus new messages. */
export function historyRewriteFinding(requestNumber: number, verdict: HistoryVerdict): RequestFinding | null {
  if (verdict.verdict === 'extends') return null;
  const position = verdict.firstDifference + 1;
  return {
    kind: 'history_rewrite',
    severity: 'warning',
    message:
      `Request ${requestNumber} rewrites the history of request ${requestNumber - 1} at message ${position}: ${happened[verdict.kind]}. ` +
      `Provider prompt caching is invalidated from message ${position} on.`,
    details: { request: requestNumber, message_index: verdict.firstDifference, rewrite: verdict.kind, counts: verdict.counts },
  };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * `missing_tool_result_in_history` (error): the request carries a call without its result or a
 * result without its call, which breaks call/result correlation on the provider side (docs/semantics.md §9).
 */
export function missingToolResultFinding(requestNumber: number, pairing: ToolPairing): RequestFinding | null {
  const { missingToolResults, orphanToolResults } = pairing;
  if (missingToolResults.length === 0 && orphanToolResults.length === 0) return null;
  const problems: string[] = [];
  if (missingToolResults.length > 0) {
    const calls = missingToolResults.map((call) => `${call.callId} ${call.name} at message ${call.messageIndex + 1}`).join(', ');
    problems.push(`${plural(missingToolResults.length, 'tool call')} without a result (${calls})`);
  }
  if (orphanToolResults.length > 0) {
    const results = orphanToolResults.map((result) => `${result.callId ?? 'no call id'} at message ${result.messageIndex + 1}`).join(', ');
    problems.push(`${plural(orphanToolResults.length, 'tool result')} without the call that issued it (${results})`);
  }
  return {
    kind: 'missing_tool_result_in_history',
    severity: 'error',
    message: `Request ${requestNumber} carries ${problems.join(' and ')}.`,
    details: {
      request: requestNumber,
      missing_results: missingToolResults.map((call) => ({ call_id: call.callId, name: call.name, message_index: call.messageIndex })),
      orphan_results: orphanToolResults.map((result) => ({ call_id: result.callId, message_index: result.messageIndex })),
    },
  };
}
