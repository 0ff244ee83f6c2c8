/**
 * Classifies a model response into one of the four outcomes of docs/semantics.md §1 from what the
 * trace shows: the outcome the loop logged, the provider's finish reason, a refusal, the calls.
 * Every reader (canonical events, streams, every adapter) derives outcomes here, so the same
 * exchange gets the same verdict whatever format logged it.
 */
import type { ModelOutcome } from './canonicalEvents';

/**
 * Finish reasons as providers and SDKs spell them, folded (lower case, `-` as `_`): OpenAI,
 * Anthropic, Gemini (`SAFETY`, `MALFORMED_FUNCTION_CALL`, …), Bedrock (`guardrail_intervened`),
 * Cohere (`COMPLETE`), Hugging Face TGI (`eos_token`), the Vercel AI SDK (`tool-calls`), Inspect
 * (`model_length`). A reason outside these lists is unknown, and an unknown reason cannot vouch
 * for a response (docs/semantics.md §1).
 */
const finishReasons = {
  final: ['stop', 'end_turn', 'stop_sequence', 'completed', 'complete', 'eos', 'eos_token'],
  // A Gemini call it could not parse comes without the call: a dropped call.
  toolCalls: ['tool_calls', 'tool_use', 'function_call', 'tool_call', 'malformed_function_call'],
  truncated: ['length', 'max_tokens', 'max_output_tokens', 'model_context_window_exceeded', 'model_length'],
  refusal: ['refusal'],
  contentFilter: [
    'content_filter',
    'content_filtered',
    'safety',
    'recitation',
    'blocklist',
    'prohibited_content',
    'spii',
    'image_safety',
    'guardrail_intervened',
  ],
  other: ['pause_turn'],
} as const;

const knownFinishReasons = new Set<string>(Object.values(finishReasons).flat());

function fold(reason: string): string {
  return reason.trim().toLowerCase().replaceAll('-', '_');
}

function isOneOf(reasons: readonly string[], reason: string): boolean {
  return reasons.includes(fold(reason));
}

export function isKnownFinishReason(reason: string): boolean {
  return knownFinishReasons.has(fold(reason));
}

export function isTruncationFinishReason(reason: string): boolean {
  return isOneOf(finishReasons.truncated, reason);
}

export function isContentFilterFinishReason(reason: string): boolean {
  return isOneOf(finishReasons.contentFilter, reason);
}

export function isToolCallFinishReason(reason: string): boolean {
  return isOneOf(finishReasons.toolCalls, reason);
}

function isFinalFinishReason(reason: string): boolean {
  return isOneOf(finishReasons.final, reason);
}

/**
 * A finish reason that says the response is not whole, whatever it carries: a truncation, a
 * content filter, a paused turn, or a reason no provider documents (which cannot vouch for it).
 */
function isIncompleteFinishReason(reason: string): boolean {
  return !isFinalFinishReason(reason) && !isToolCallFinishReason(reason) && !isOneOf(finishReasons.refusal, reason);
}

export interface ResponseShape {
  /** The outcome the loop logged itself, if it did. */
  outcome?: ModelOutcome | undefined;
  finishReason: string | null;
  toolCallCount: number;
  refusal?: string | null | undefined;
  /** Why the loop (or the adapter) says the response is incomplete. */
  incompleteReason?: string | null | undefined;
}

/**
 * The derivation order of docs/semantics.md §1: a refusal, then any sign that the response is not
 * whole (the loop said so, or the finish reason does), then the outcome the loop logged, then the
 * calls it carries. So a response cut by `length` in the middle of a call is incomplete, not a
 * call to execute, and a refusal that came with a call stays a refusal. The provider's finish
 * reason outranks a logged `final` or `tool_calls`: that label is the loop's claim, the reason is
 * the provider's evidence.
 */
export function classifyResponse(response: ResponseShape): ModelOutcome {
  const reason = response.finishReason;
  if (response.outcome === 'refusal' || (response.refusal ?? '') !== '' || (reason !== null && isOneOf(finishReasons.refusal, reason))) return 'refusal';
  // A logged `incomplete` is returned below as the logged outcome: nothing in between overrules it.
  if ((response.incompleteReason ?? '') !== '') return 'incomplete';
  if (reason !== null && isIncompleteFinishReason(reason)) return 'incomplete';
  if (response.outcome !== undefined) return response.outcome;
  if (response.toolCallCount > 0) return 'tool_calls';
  // A tool-call finish with no call: the provider dropped it (docs/semantics.md §1).
  if (reason !== null && isToolCallFinishReason(reason)) return 'incomplete';
  return 'final';
}

/** Shorter texts ("OK", "Done.") are too common to say which response an output came from. */
const MIN_CONTAINED_TEXT_CHARS = 20;
/** How deep, and through how many strings, a structured output is searched for the text. */
const OUTPUT_DEPTH = 4;
const OUTPUT_STRINGS = 64;

/**
 * Whether a run's terminal output repeats a response's text (docs/semantics.md §1): one of its
 * strings (the output itself, or a string field of a structured output) equals the text, or
 * contains it whole when the text is long enough to be told apart from a common phrase.
 */
export function outputRepeatsText(output: unknown, text: string): boolean {
  const wanted = text.trim();
  if (wanted === '') return false;
  const strings: string[] = [];
  const collect = (value: unknown, depth: number): void => {
    if (strings.length >= OUTPUT_STRINGS) return;
    if (typeof value === 'string') strings.push(value);
    else if (depth < OUTPUT_DEPTH && typeof value === 'object' && value !== null) {
      for (const item of Object.values(value)) collect(item, depth + 1);
    }
  };
  collect(output, 0);
  return strings.some((value) => {
    const candidate = value.trim();
    return candidate === wanted || (wanted.length >= MIN_CONTAINED_TEXT_CHARS && candidate.includes(wanted));
  });
}
