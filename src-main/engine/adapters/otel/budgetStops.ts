/**
 * An agent span that ended in error because a limit was hit: the agent SDKs stop a loop on its
 * turn, request, token or cost budget by raising an exception, which instrumentations record as
 * the span's `error.type` (or its `exception` event's `exception.type`) and status description.
 * Such an end is a budget stop (docs/semantics.md §5), not a failure. See docs/formats/otel.md.
 */
import { foldSpelling } from '../../../../shared/trace/runStatus';
import { errorOf } from './attributes';
import type { OtelSpan } from './spans';

/**
 * Error types that stop an agent on a limit (their last dotted segment, folded to snake case), with
 * the limit each names in docs/semantics.md §5's words; null when the message says which.
 */
const budgetErrorTypes: Readonly<Record<string, string | null>> = {
  // OpenAI Agents SDK: agents.exceptions.MaxTurnsExceeded (Python), MaxTurnsExceededError (JS).
  max_turns_exceeded: 'max_turns',
  max_turns_exceeded_error: 'max_turns',
  // Claude Agent SDK result subtypes.
  error_max_turns: 'max_turns',
  error_max_budget_usd: 'max_cost_usd',
  // Google ADK: RunConfig.max_llm_calls.
  llm_calls_limit_exceeded_error: 'max_turns',
  // LangGraph: the graph's recursion_limit, a cap on its steps that no §5 limit counts.
  graph_recursion_error: 'recursion_limit',
  // Pydantic AI: "The next request would exceed the request_limit of 3".
  usage_limit_exceeded: null,
};

/** Pydantic AI's UsageLimits fields, as its messages name them, in §5's words where one counts the same. */
const usageLimitNames: Readonly<Record<string, string>> = {
  request_limit: 'max_turns',
  tool_calls_limit: 'max_tool_calls',
  input_tokens_limit: 'max_input_tokens',
  request_tokens_limit: 'max_input_tokens',
  output_tokens_limit: 'max_output_tokens',
  response_tokens_limit: 'max_output_tokens',
  per_request_input_tokens_limit: 'max_context_tokens',
  total_tokens_limit: 'total_tokens_limit',
};

const USAGE_LIMIT_NAME = new RegExp(`\\b(${Object.keys(usageLimitNames).join('|')})\\b`);

/**
 * A status description that says the turn limit was hit when no error type does: the Agents SDK's
 * span error "Max turns exceeded", which its OpenTelemetry span processors write as the description.
 */
const MAX_TURNS_DESCRIPTION = /\bmax(?:imum)?[\s_-]+turns?\b.*\bexceeded\b/i;

export interface BudgetStop {
  /** The limit the stop names (`max_turns`, …, or the SDK's own name); absent when it names none. */
  limit?: string;
}

/** The budget stop a failed span records, or undefined when it failed for another reason (or did not fail). */
export function budgetStopOf(span: OtelSpan): BudgetStop | undefined {
  if (span.statusCode !== 'ERROR') return undefined;
  const error = errorOf(span);
  const errorType = error.code === undefined ? undefined : foldSpelling(error.code.split('.').at(-1)!);
  if (errorType !== undefined && errorType in budgetErrorTypes) {
    const limit = budgetErrorTypes[errorType] ?? usageLimitNames[USAGE_LIMIT_NAME.exec(error.message ?? '')?.[1] ?? ''];
    return limit === undefined ? {} : { limit };
  }
  if (errorType === undefined && error.message !== undefined && MAX_TURNS_DESCRIPTION.test(error.message)) return { limit: 'max_turns' };
  return undefined;
}
