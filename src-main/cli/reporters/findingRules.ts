/**
 * Every finding kind as a rule of the CI reports (SARIF `tool.driver.rules`, JUnit failure types):
 * a name, one line, and a fuller description, condensed from docs/semantics.md §12 and the README's
 * "What it finds" table (a new kind adds its row there, and here: the Record makes it required).
 */
import type { FindingKind, Severity } from '../../../shared/report';

export interface FindingRule {
  /** PascalCase, as SARIF tools name their rules. */
  name: string;
  /** The severity a finding of the kind usually has; each finding carries its own. */
  defaultSeverity: Severity;
  short: string;
  full: string;
}

export const findingRules: Readonly<Record<FindingKind, FindingRule>> = {
  dangling_call: {
    name: 'DanglingCall',
    defaultSeverity: 'error',
    short: 'A tool call never received a result before the run ended.',
    full: 'An issued tool call has neither a result nor a not-executed mark when the run is over (any terminal state, unterminated included). Calls of a running or paused run are pending, not dangling.',
  },
  unexecuted_call: {
    name: 'UnexecutedCall',
    defaultSeverity: 'warning',
    short: 'The loop explicitly marked a call as not executed.',
    full: 'The loop logged a tool_call_not_executed mark for a call (for example the calls of a turn the user stopped); the message quotes its reason.',
  },
  orphan_result: {
    name: 'OrphanResult',
    defaultSeverity: 'error',
    short: 'A tool result names a call id no model response issued.',
    full: 'A tool result or not-executed mark names a call_id that no issued call of the run carries, before or after it.',
  },
  duplicate_result: {
    name: 'DuplicateResult',
    defaultSeverity: 'error',
    short: 'One tool call received two answers.',
    full: 'A call that already has its answer receives another: a second result, a not-executed mark after a result, a result after a mark, or a second mark.',
  },
  duplicate_call_id: {
    name: 'DuplicateCallId',
    defaultSeverity: 'error',
    short: 'The same call id was issued twice in a run.',
    full: 'An issued call reuses a call_id already issued in the run, in an earlier response or the same one; reported once per re-issue.',
  },
  out_of_order_result: {
    name: 'OutOfOrderResult',
    defaultSeverity: 'warning',
    short: 'A tool result was logged before the call that issued it.',
    full: 'A result or not-executed mark is logged before any issue of its call_id, and the call is issued later; the call counts as answered.',
  },
  invalid_arguments: {
    name: 'InvalidArguments',
    defaultSeverity: 'error',
    short: 'An issued call has arguments that are not valid JSON.',
    full: "An issued call's arguments are a string that is not JSON, or that nests deeper than the reader's limit. A call of an incomplete response is judged by its response's verdict instead.",
  },
  repeated_action: {
    name: 'RepeatedAction',
    defaultSeverity: 'warning',
    short: 'The same tool call was repeated without progress.',
    full: 'Among the last window of issued calls (default 6), one action (tool name and canonical arguments) counts threshold times (default 3) since the last call whose result made progress. Consecutive firings of one action are one finding.',
  },
  budget_exceeded: {
    name: 'BudgetExceeded',
    defaultSeverity: 'warning',
    short: 'The run stopped on a budget, or acted after one was used up.',
    full: 'Warning: the run stopped on a budget (which limit, its value, the counter and the step; said plainly when the logged counter is below the limit). Error: a model or tool call was made after a declared limit (turns, tool calls, deadline, tokens, cost, context) was used up.',
  },
  unterminated_run: {
    name: 'UnterminatedRun',
    defaultSeverity: 'warning',
    short: 'The run has no terminal event: it crashed, was killed or cut.',
    full: 'The run has no terminal event and its file is no longer being written: the loop crashed, was killed, or its log was cut.',
  },
  duplicate_run_end: {
    name: 'DuplicateRunEnd',
    defaultSeverity: 'warning',
    short: 'A second run_end for a run that had already ended.',
    full: 'A run_end is logged after the one the run status came from (a shutdown hook, a wrapper and the loop both logging, a retried write); the first one counts.',
  },
  event_after_end: {
    name: 'EventAfterEnd',
    defaultSeverity: 'warning',
    short: 'The loop logged events after its terminal event.',
    full: 'Error: a tool call started or completed after the run said it had ended. Warning: anything else of the loop logged after the end (model calls, error results, not-executed marks).',
  },
  dropped_tool_call: {
    name: 'DroppedToolCall',
    defaultSeverity: 'error',
    short: 'A tool-call finish reason with no call in the response.',
    full: 'A response carries no call although its finish reason is a tool-call one (tool_calls, tool_use, function_call, MALFORMED_FUNCTION_CALL) or its outcome is tool_calls: the provider likely dropped a malformed call.',
  },
  truncated_response: {
    name: 'TruncatedResponse',
    defaultSeverity: 'warning',
    short: 'A response was cut off by a length limit or a content filter.',
    full: "A response's finish reason is a truncation (length, max_tokens, model_context_window_exceeded, ...) or a content filter (content_filter, SAFETY, guardrail_intervened, ...), whatever outcome the loop logged.",
  },
  refusal: {
    name: 'Refusal',
    defaultSeverity: 'warning',
    short: 'The model declined to answer.',
    full: "A response's outcome is a refusal: logged so, a non-empty refusal text, or finish reason refusal; a refusal that came with a call or was cut short included.",
  },
  unknown_finish_reason: {
    name: 'UnknownFinishReason',
    defaultSeverity: 'warning',
    short: 'A finish reason no provider documents.',
    full: 'A finish reason is none of the known final, tool-call, truncation, content-filter or refusal reasons: the response cannot be trusted as complete.',
  },
  api_error: {
    name: 'ApiError',
    defaultSeverity: 'warning',
    short: 'The provider refused a model call.',
    full: 'A model response carries an API error (HTTP 4xx/5xx, an error event in a stream, a failed model span). Info when the loop retried and a retry went through, warning when a later call went through only after the loop changed its request, error when no call went through after it.',
  },
  incomplete_response: {
    name: 'IncompleteResponse',
    defaultSeverity: 'warning',
    short: 'A response that did not complete: a broken stream or a logged incomplete outcome.',
    full: 'A response whose outcome is incomplete and that no more specific verdict fits: a stream that broke, a logged outcome "incomplete" or incomplete_reason, pause_turn, or a failed step an adapter marks so.',
  },
  incomplete_call_executed: {
    name: 'IncompleteCallExecuted',
    defaultSeverity: 'error',
    short: 'A call from an incomplete response was executed anyway.',
    full: 'A call of an incomplete response has a tool_call_start or a tool result: the loop treated a call it should not trust as issued.',
  },
  incomplete_answer_accepted: {
    name: 'IncompleteAnswerAccepted',
    defaultSeverity: 'error',
    short: 'A run ended as a success on an incomplete response.',
    full: 'The run ends succeeded or model_finished and the response it ended on (the one its output repeats, else the last) is incomplete.',
  },
  tool_error: {
    name: 'ToolError',
    defaultSeverity: 'info',
    short: 'A tool returned an error.',
    full: 'A tool result is an error: a status other than ok/success, or an error without a status. Its code is kept, and the line of its output that says why.',
  },
  history_rewrite: {
    name: 'HistoryRewrite',
    defaultSeverity: 'warning',
    short: "A model request's history is not the previous request's plus new messages.",
    full: "A logged model request edits, drops, reorders or inserts earlier messages of the previous request's history: from that message on, the provider's prompt cache no longer matches.",
  },
  history_compacted: {
    name: 'HistoryCompacted',
    defaultSeverity: 'info',
    short: 'The history was compacted before this request.',
    full: "The harness replaced (part of) the history with fewer messages, seen by the format's marker, a logged summary replacing many messages, or a drop of over a quarter in the recorded input tokens; with the tokens it removed.",
  },
  system_or_tools_changed: {
    name: 'SystemOrToolsChanged',
    defaultSeverity: 'warning',
    short: 'The system prompt or tool definitions changed between requests.',
    full: "A logged request's system prompt or tool definitions (added, removed, changed, reordered) differ from the previous request's: the prompt cache is lost from the first token.",
  },
  missing_tool_result_in_history: {
    name: 'MissingToolResultInHistory',
    defaultSeverity: 'error',
    short: 'A model request carries a tool call without its result, or a result without its call.',
    full: 'A logged model request carries a call without its result anywhere in the request, or a tool result whose call is not in it; one finding per call or result, on the first request that carries it.',
  },
  reconstruction_mismatch: {
    name: 'ReconstructionMismatch',
    defaultSeverity: 'info',
    short: 'A rebuilt request is far larger than the input the provider recorded.',
    full: 'A request rebuilt from a trace that logs none is estimated at more than 1.5 times (and 500 tokens above) the input tokens recorded for its response: the rebuilt history holds more than the model was sent. Reported once per run.',
  },
  secret_in_trace: {
    name: 'SecretInTrace',
    defaultSeverity: 'error',
    short: 'A credential is written in the trace.',
    full: 'A credential (an API key or token, an Authorization header or bearer token, a private key, a JWT) is found in a line of the trace; a warning when the match is of low confidence. Share the trace only after `loopscope redact`.',
  },
};

/** Where each kind is specified, relative to the project's home: the findings reference. */
export const findingsReferencePath = 'docs/semantics.md#12-findings-reference';
