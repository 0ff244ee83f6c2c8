/**
 * Loopscope's canonical trace format: one JSON object per line, one event per object.
 *
 * These zod schemas are the single source of truth: TypeScript types are inferred from them,
 * `docs/trace-format.schema.json` is generated from them, and every adapter maps its input into
 * them. Every object is "loose": unknown fields are kept (and shown), never rejected, because a
 * debugger that drops what it does not understand hides exactly the detail the user came for.
 */
import { z } from 'zod';

/** Ids arrive as strings or numbers; ingest keeps them as text (`idText`). */
export const idSchema = z.union([z.string().min(1), z.number()]);
export type Id = z.infer<typeof idSchema>;

export function idText(id: Id): string {
  return String(id);
}

/** ISO-8601 text or a Unix epoch number (seconds or milliseconds). */
export const timestampSchema = z.union([z.string(), z.number()]);

const tokenCount = z.number().nonnegative();

/**
 * A response's token counts. `input_tokens` is the whole prompt, cache reads and writes included;
 * `cached_input_tokens` and `cache_write_tokens` are the parts of it read from and written to the
 * provider's prompt cache. `output_tokens` includes reasoning; `reasoning_tokens` is that part.
 */
export const usageSchema = z.looseObject({
  input_tokens: tokenCount.optional(),
  output_tokens: tokenCount.optional(),
  cached_input_tokens: tokenCount.optional(),
  /** Of the input tokens, those written to the provider's prompt cache. */
  cache_write_tokens: tokenCount.optional(),
  /** Of the output tokens, those spent on reasoning. */
  reasoning_tokens: tokenCount.optional(),
  total_tokens: tokenCount.optional(),
  cost_usd: z.number().nonnegative().optional(),
  /** OpenAI-style aliases, accepted as written. */
  prompt_tokens: tokenCount.optional(),
  completion_tokens: tokenCount.optional(),
});
export type Usage = z.infer<typeof usageSchema>;

export const budgetsSchema = z.looseObject({
  max_turns: z.number().int().positive().optional(),
  /** Alias of max_turns used by step-capped loops (`maxSteps`, `hitCap`). */
  max_steps: z.number().int().positive().optional(),
  max_tool_calls: z.number().int().positive().optional(),
  /** Wall-clock limit for the run, in milliseconds from its start. */
  deadline_ms: z.number().positive().optional(),
  /** Absolute deadline, ISO-8601 or epoch. */
  deadline: timestampSchema.optional(),
  /** Output tokens of all the run's model calls together. */
  max_output_tokens: z.number().int().positive().optional(),
  /** Input tokens of all the run's model calls together (each call's whole prompt counts). */
  max_input_tokens: z.number().int().positive().optional(),
  max_cost_usd: z.number().positive().optional(),
  /** Input tokens of any single model call: the context the loop allows itself. */
  max_context_tokens: z.number().int().positive().optional(),
});
export type Budgets = z.infer<typeof budgetsSchema>;

export const toolCallSchema = z.looseObject({
  call_id: idSchema,
  name: z.string(),
  /** A JSON string (OpenAI formats) or an object (Anthropic); both must parse to JSON. */
  arguments: z.unknown().optional(),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const modelOutcomeSchema = z.enum(['final', 'tool_calls', 'refusal', 'incomplete']);
export type ModelOutcome = z.infer<typeof modelOutcomeSchema>;

export const toolErrorSchema = z.looseObject({
  code: z.string().optional(),
  retryable: z.boolean().optional(),
  safe_message: z.string().optional(),
  details_ref: z.string().optional(),
  message: z.string().optional(),
});

/**
 * A provider's refusal to answer a model call (docs/semantics.md §7): an HTTP error status, or an
 * error event in a stream. `type`/`code` are the provider's own words (`overloaded_error`,
 * `rate_limit_exceeded`); a bare string is its message.
 */
export const apiErrorSchema = z.union([
  z.looseObject({
    /** The HTTP status, when the call got one (a stream's error event arrives under a 200). */
    status: z.number().int().optional(),
    type: z.string().optional(),
    code: z.string().optional(),
    message: z.string().optional(),
  }),
  z.string(),
]);
export type ApiError = z.infer<typeof apiErrorSchema>;

/** What an API error says, in one shape: the status, the provider's error type (else code), the message. */
export interface ApiErrorFacts {
  status: number | null;
  type: string | null;
  message: string | null;
}

export function apiErrorFacts(error: ApiError): ApiErrorFacts {
  if (typeof error === 'string') return { status: null, type: null, message: error === '' ? null : error };
  return { status: error.status ?? null, type: error.type ?? error.code ?? null, message: error.message ?? null };
}

/** "HTTP 529 overloaded_error: Overloaded": an API error as one line of text. */
export function describeApiError(facts: ApiErrorFacts): string {
  const head = [facts.status !== null ? `HTTP ${facts.status}` : null, facts.type].filter((part) => part !== null).join(' ');
  if (head === '') return facts.message ?? 'an API error';
  return facts.message !== null ? `${head}: ${facts.message}` : head;
}

/** Fields every event may carry. `step` counts model calls (1-based); `step_id` is the loop's own label. */
const eventBase = {
  run_id: idSchema.optional(),
  step: z.number().int().nonnegative().optional(),
  step_id: idSchema.optional(),
  ts: timestampSchema.optional(),
};

export const runStartSchema = z.looseObject({
  ...eventBase,
  type: z.literal('run_start'),
  config: z
    .looseObject({
      provider: z.string().optional(),
      model: z.string().optional(),
      versions: z.record(z.string(), z.unknown()).optional(),
      budgets: budgetsSchema.optional(),
    })
    .optional(),
  /** Budgets may also sit at the top level. */
  budgets: budgetsSchema.optional(),
  task: z.unknown().optional(),
});

export const modelRequestSchema = z.looseObject({
  ...eventBase,
  type: z.literal('model_request'),
  model: z.string().optional(),
  provider: z.string().optional(),
  system: z.unknown().optional(),
  messages: z.array(z.unknown()).optional(),
  tools: z.array(z.unknown()).optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});

export const modelResponseSchema = z.looseObject({
  ...eventBase,
  type: z.literal('model_response'),
  /** When absent it is derived from finish_reason and tool_calls (docs/semantics.md §1). */
  outcome: modelOutcomeSchema.optional(),
  text: z.string().nullable().optional(),
  tool_calls: z.array(toolCallSchema).optional(),
  /** The provider's finish/stop reason exactly as sent (`stop`, `tool_calls`, `end_turn`, `length`, …). */
  finish_reason: z.string().nullable().optional(),
  refusal: z.string().nullable().optional(),
  incomplete_reason: z.string().optional(),
  usage: usageSchema.optional(),
  latency_ms: z.number().nonnegative().optional(),
  response_id: z.string().optional(),
  /** The model that answered, as the provider names it. */
  model: z.string().optional(),
  /** Who served the call (`openai`, `anthropic`, …): with the model, what prices it. */
  provider: z.string().optional(),
  /** The call failed at the provider: no model output. Such a response is `incomplete` unless it says otherwise. */
  api_error: apiErrorSchema.optional(),
});

export const streamFragmentSchema = z.looseObject({
  ...eventBase,
  type: z.literal('stream_fragment'),
  response_id: z.string().optional(),
  /** Position of the tool call within the response; parallel calls interleave, so fragments are joined per index. */
  index: z.number().int().nonnegative().optional(),
  call_id: idSchema.optional(),
  name: z.string().optional(),
  arguments_delta: z.string().optional(),
  text_delta: z.string().optional(),
  /** Present on the fragment that closes the stream. */
  finish_reason: z.string().nullable().optional(),
});

export const permissionDecisionSchema = z.enum(['allowed', 'denied', 'asked', 'auto']);

export const toolCallStartSchema = z.looseObject({
  ...eventBase,
  type: z.literal('tool_call_start'),
  call_id: idSchema,
  name: z.string().optional(),
  arguments: z.unknown().optional(),
  permission: z.union([permissionDecisionSchema, z.string()]).optional(),
});

export const toolResultSchema = z.looseObject({
  ...eventBase,
  type: z.literal('tool_result'),
  call_id: idSchema,
  name: z.string().optional(),
  /** `ok` or `error`; when absent, the presence of `error` decides. */
  status: z.string().optional(),
  output: z.unknown().optional(),
  error: z.union([toolErrorSchema, z.string()]).optional(),
  latency_ms: z.number().nonnegative().optional(),
  /** Did this action change observable state? Used by the repeated-action analysis (docs/semantics.md §6). */
  progress: z.boolean().optional(),
  /** The run this call started (a sub-agent's): that run is shown as the call's child. */
  child_run_id: idSchema.optional(),
});

export const toolCallNotExecutedSchema = z.looseObject({
  ...eventBase,
  type: z.literal('tool_call_not_executed'),
  call_id: idSchema,
  name: z.string().optional(),
  reason: z.string().optional(),
});

export const runEndSchema = z.looseObject({
  ...eventBase,
  type: z.literal('run_end'),
  /** The terminal status exactly as the loop wrote it (`MODEL_FINISHED`, `budget_exhausted`, …). */
  status: z.string().optional(),
  hitCap: z.boolean().optional(),
  output: z.unknown().optional(),
  /** Which budget tripped, when the loop says: `max_turns`, `max_tool_calls`, `deadline`, … */
  limit: z.string().optional(),
  reason: z.string().optional(),
  steps: z.number().int().nonnegative().optional(),
  tool_calls: z.number().int().nonnegative().optional(),
});

export const canonicalEventSchema = z.discriminatedUnion('type', [
  runStartSchema,
  modelRequestSchema,
  modelResponseSchema,
  streamFragmentSchema,
  toolCallStartSchema,
  toolResultSchema,
  toolCallNotExecutedSchema,
  runEndSchema,
]);
export type CanonicalEvent = z.infer<typeof canonicalEventSchema>;

export type CanonicalEventType = CanonicalEvent['type'];
export type EventOf<T extends CanonicalEventType> = Extract<CanonicalEvent, { type: T }>;

export const canonicalEventTypes = [
  'run_start',
  'model_request',
  'model_response',
  'stream_fragment',
  'tool_call_start',
  'tool_result',
  'tool_call_not_executed',
  'run_end',
] as const satisfies readonly CanonicalEventType[];

/**
 * Event-type spellings loops already use, mapped to the canonical name. Lookup is on the
 * lower-cased name with `.`/`-` folded to `_`. Bare words such as `start` or `response` are not
 * aliases: other formats use them for their own records (span events, HTTP exchanges).
 */
export const eventTypeAliases: Readonly<Record<string, CanonicalEventType>> = {
  run_start: 'run_start',
  run_started: 'run_start',
  model_request: 'model_request',
  llm_request: 'model_request',
  model_response: 'model_response',
  llm_response: 'model_response',
  stream_fragment: 'stream_fragment',
  model_response_delta: 'stream_fragment',
  stream_chunk: 'stream_fragment',
  tool_call_start: 'tool_call_start',
  tool_start: 'tool_call_start',
  tool_execution_start: 'tool_call_start',
  tool_result: 'tool_result',
  tool_call_result: 'tool_result',
  tool_end: 'tool_result',
  tool_call_not_executed: 'tool_call_not_executed',
  call_not_executed: 'tool_call_not_executed',
  tool_call_skipped: 'tool_call_not_executed',
  unexecuted_call: 'tool_call_not_executed',
  run_end: 'run_end',
  run_ended: 'run_end',
  run_finished: 'run_end',
};

/**
 * Whether an event the loop logged under its own type (an unknown event) names a user's or a
 * harness's prompt by that type: what went into the model (a timeline's input lane, a message of
 * a reconstructed request).
 */
export function namesModelInput(typeRaw: string): boolean {
  return /user|human|prompt|input|instruction|task/i.test(typeRaw);
}

export function canonicalEventType(raw: string): CanonicalEventType | undefined {
  return eventTypeAliases[raw.trim().toLowerCase().replace(/[.-]/g, '_')];
}

/** A tool result is an error when its status says so, or, without a status, when it carries an error. */
export function isErrorResult(event: Pick<z.infer<typeof toolResultSchema>, 'status' | 'error'>): boolean {
  if (event.status === undefined) return event.error !== undefined;
  const status = event.status.toLowerCase();
  return status !== 'ok' && status !== 'success';
}
