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
  /** The call the finding is about (docs/semantics.md §4: every finding about one call names it). */
  callId: string | null;
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
    callId: null,
    message:
      `Request ${requestNumber} rewrites the history of request ${requestNumber - 1} at message ${position}: ${happened[verdict.kind]}. ` +
      `Provider prompt caching is invalidated from message ${position} on.`,
    details: { request: requestNumber, message_index: verdict.firstDifference, rewrite: verdict.kind, counts: verdict.counts },
  };
}

/**
 * `missing_tool_result_in_history` (error), one per call or result: the request carries a call
 * without its result, or a result without its call, which breaks call/result correlation on the
 * provider side (docs/semantics.md §9). One finding per call so that each names its `call_id`
 * (docs/semantics.md §4).
 */
export function missingToolResultFindings(requestNumber: number, pairing: ToolPairing): RequestFinding[] {
  const withoutResult = pairing.missingToolResults.map(
    (call): RequestFinding => ({
      kind: 'missing_tool_result_in_history',
      severity: 'error',
      callId: call.callId,
      message: `Request ${requestNumber} carries tool call ${call.callId} (${call.name}, message ${call.messageIndex + 1}) without its result.`,
      details: { request: requestNumber, problem: 'missing_result', name: call.name, message_index: call.messageIndex },
    }),
  );
  const withoutCall = pairing.orphanToolResults.map(
    (result): RequestFinding => ({
      kind: 'missing_tool_result_in_history',
      severity: 'error',
      callId: result.callId,
      message: `Request ${requestNumber} carries a tool result for ${result.callId ?? 'no call id'} (message ${result.messageIndex + 1}) without the call that issued it.`,
      details: { request: requestNumber, problem: 'orphan_result', message_index: result.messageIndex },
    }),
  );
  return [...withoutResult, ...withoutCall];
}
