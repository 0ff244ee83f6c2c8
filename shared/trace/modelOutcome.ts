/**
 * Classifies a model response into one of the four outcomes of docs/semantics.md §1 when the loop did not
 * log the outcome itself, from the provider's finish reason and the calls it carried.
 */
import type { ModelOutcome } from './canonicalEvents';

const finishReasons = {
  final: ['stop', 'end_turn', 'stop_sequence', 'completed'],
  toolCalls: ['tool_calls', 'tool_use', 'function_call', 'tool_call'],
  truncated: ['length', 'max_tokens', 'max_output_tokens', 'model_context_window_exceeded'],
  refusal: ['refusal'],
  other: ['content_filter', 'pause_turn'],
} as const;

const knownFinishReasons = new Set<string>(Object.values(finishReasons).flat());

function fold(reason: string): string {
  return reason.trim().toLowerCase();
}

export function isKnownFinishReason(reason: string): boolean {
  return knownFinishReasons.has(fold(reason));
}

export function isTruncationFinishReason(reason: string): boolean {
  return (finishReasons.truncated as readonly string[]).includes(fold(reason));
}

export function isContentFilterFinishReason(reason: string): boolean {
  return fold(reason) === 'content_filter';
}

export function isToolCallFinishReason(reason: string): boolean {
  return (finishReasons.toolCalls as readonly string[]).includes(fold(reason));
}

export interface ResponseShape {
  outcome?: ModelOutcome | undefined;
  finishReason: string | null;
  toolCallCount: number;
  refusal?: string | null | undefined;
}

export function classifyResponse(response: ResponseShape): ModelOutcome {
  if (response.outcome !== undefined) return response.outcome;
  if (response.toolCallCount > 0) return 'tool_calls';
  const reason = response.finishReason === null ? null : fold(response.finishReason);
  if ((response.refusal ?? '') !== '' || reason === 'refusal') return 'refusal';
  if (reason === null || (finishReasons.final as readonly string[]).includes(reason)) return 'final';
  // Truncation, a tool-call finish with no calls (a dropped call), filters and unknown reasons.
  return 'incomplete';
}
