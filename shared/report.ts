/**
 * The analysis report: what `loopscope analyze --json` prints and what the app's API returns.
 * The fields named in the CLI contract stay stable; new fields may be added.
 */
import { z } from 'zod';
import { runStatusSchema } from './trace/runStatus';

/** Every kind, what it means exactly and its severity: docs/semantics.md §12 (a new kind adds its row there). */
export const findingKindSchema = z.enum([
  'dangling_call',
  'unexecuted_call',
  'orphan_result',
  'duplicate_result',
  'duplicate_call_id',
  'out_of_order_result',
  'invalid_arguments',
  'repeated_action',
  'budget_exceeded',
  'unterminated_run',
  'duplicate_run_end',
  'event_after_end',
  'dropped_tool_call',
  'truncated_response',
  'refusal',
  'unknown_finish_reason',
  'api_error',
  'incomplete_response',
  'incomplete_call_executed',
  'incomplete_answer_accepted',
  'tool_error',
  'history_rewrite',
  'history_compacted',
  'system_or_tools_changed',
  'missing_tool_result_in_history',
  'reconstruction_mismatch',
  'secret_in_trace',
]);
export type FindingKind = z.infer<typeof findingKindSchema>;

export const severitySchema = z.enum(['error', 'warning', 'info']);
export type Severity = z.infer<typeof severitySchema>;

export const severityRank: Readonly<Record<Severity, number>> = { error: 2, warning: 1, info: 0 };

export const findingSchema = z.object({
  kind: findingKindSchema,
  severity: severitySchema,
  /** Null for a finding on a line that belongs to no run (a secret on a line that is not an event). */
  run_id: z.string().nullable(),
  /** The step (model call, 1-based) where the problem shows; null when it belongs to the whole run. */
  step: z.number().int().nullable(),
  call_id: z.string().nullable(),
  /** 1-based line of the source file where the finding is anchored. */
  line: z.number().int().nullable(),
  message: z.string(),
  /** Kind-specific structured facts (the repeated calls, the budget that tripped, …). */
  details: z.record(z.string(), z.unknown()).optional(),
});
export type Finding = z.infer<typeof findingSchema>;

/** A finding as reported: which file its run came from, since run ids may repeat across files. */
export const reportFindingSchema = findingSchema.extend({ file: z.string() });
export type ReportFinding = z.infer<typeof reportFindingSchema>;

export const parseErrorSchema = z.object({
  line: z.number().int(),
  offset: z.number().int(),
  length: z.number().int(),
  message: z.string(),
  excerpt: z.string(),
  /** True when the line still produced an event (e.g. invalid UTF-8 replaced); false when it was not loaded. */
  loaded: z.boolean(),
});
export type ParseError = z.infer<typeof parseErrorSchema>;

export const fileReportSchema = z.object({
  path: z.string(),
  format: z.string(),
  /** Why the format was chosen: what detection saw, or `--format`. */
  format_reason: z.string(),
  bytes: z.number().int(),
  lines: z.number().int(),
  events: z.number().int(),
  /** Records the format's adapter does not model: kept and shown as unknown events. */
  unknown_events: z.number().int(),
  parse_errors: z.array(parseErrorSchema),
});

/** Where a request's input-token count comes from: the provider's usage, or an offline estimate. */
export const tokenSourceSchema = z.enum(['recorded', 'estimated']);
export type TokenSource = z.infer<typeof tokenSourceSchema>;

export const rewriteKindSchema = z.enum(['edited', 'dropped', 'reordered', 'compacted', 'inserted']);

export const compactionEvidenceSchema = z.enum(['marker', 'diff', 'token_drop']);

/**
 * One model request of a run, against the one before it (docs/semantics.md §9): logged as sent, or
 * reconstructed from the messages the model had seen (formats that do not log requests).
 */
export const requestReportSchema = z.object({
  /** 0-based position among the run's requests. */
  index: z.number().int(),
  /** 1-based line of the request (reconstructed: of the response it was sent for). */
  line: z.number().int(),
  step: z.number().int().nullable(),
  reconstructed: z.boolean(),
  messages: z.number().int(),
  /** Messages this request added to the previous one's history. */
  appended_messages: z.number().int(),
  /**
   * Where the history stopped being the previous one's, and what happened; null when it extends it.
   * `message_index`: 0-based, in the history without system messages; `message_number`: the message
   * as a user counts it, 1-based, every message of the request as logged (system included).
   */
  rewrite: z.object({ message_index: z.number().int(), message_number: z.number().int(), kind: rewriteKindSchema }).nullable(),
  /** The system prompt or tool definitions changed since the previous request (prompt cache lost from the first token); null when neither did. */
  prefix_change: z
    .object({
      system: z.boolean(),
      tools_added: z.array(z.string()),
      tools_removed: z.array(z.string()),
      tools_changed: z.array(z.string()),
      tools_reordered: z.boolean(),
    })
    .nullable(),
  /**
   * The history was compacted before this request (docs/semantics.md §9): seen by the trace's
   * marker, the diff of logged requests, or a drop in recorded input tokens; null otherwise.
   */
  compaction: z
    .object({
      evidence: compactionEvidenceSchema,
      marker: z.object({ type: z.string(), line: z.number().int() }).nullable(),
      tokens_before: z.number().nullable(),
      tokens_after: z.number().nullable(),
      tokens_removed: z.number().nullable(),
      messages_removed: z.number().int().nullable(),
    })
    .nullable(),
  input_tokens: z.number().nullable(),
  input_tokens_source: tokenSourceSchema.nullable(),
  cached_input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
});
export type RequestReport = z.infer<typeof requestReportSchema>;

export const runReportSchema = z.object({
  run_id: z.string(),
  file: z.string(),
  status: runStatusSchema,
  status_raw: z.string(),
  steps: z.number().int(),
  tool_calls: z.number().int(),
  tool_results: z.number().int(),
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  first_line: z.number().int(),
  last_line: z.number().int(),
  findings: z.object({ error: z.number().int(), warning: z.number().int(), info: z.number().int() }),
  /**
   * For a run another run started (a sub-agent): that run, the call that started it (null when no
   * result names it, e.g. a compaction summariser), and its file. Absent for a top-level run.
   */
  parent: z.object({ run_id: z.string(), call_id: z.string().nullable(), file: z.string() }).optional(),
  /** The run's model requests in order, with their context growth. */
  requests: z.array(requestReportSchema),
});
export type RunReport = z.infer<typeof runReportSchema>;

export const skippedFileSchema = z.object({ path: z.string(), reason: z.string() });
export type SkippedFile = z.infer<typeof skippedFileSchema>;

export const analyzeReportSchema = z.object({
  files: z.array(fileReportSchema),
  runs: z.array(runReportSchema),
  findings: z.array(reportFindingSchema),
  /** Files found in a directory that are not traces of a known format. */
  skipped: z.array(skippedFileSchema).default([]),
});
export type AnalyzeReport = z.infer<typeof analyzeReportSchema>;

export const analysisOptionsSchema = z
  .object({
    /** Repeated-action window: how many recent tool calls are looked at (docs/semantics.md §6). */
    window: z.number().int().min(1).default(6),
    /** Repeated-action threshold: how many identical calls without progress fire the finding. */
    threshold: z.number().int().min(1).default(3),
  })
  .refine((options) => options.threshold <= options.window, {
    message: 'threshold must not exceed window',
  });
export type AnalysisOptions = z.infer<typeof analysisOptionsSchema>;
