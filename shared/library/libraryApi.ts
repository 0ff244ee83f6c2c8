/**
 * The trace library's side of the API (docs/semantics.md §18): the runs of every trace under the
 * directories `loopscope serve DIR…`/`open DIR…` was given, one row each, with what they add up to.
 * The library is kept in its own database, beside the traces' caches; a trace is opened only when
 * one of its runs is.
 */
import { z } from 'zod';
import { findingKindSchema } from '../report';
import { runStatusSchema } from '../trace/runStatus';

const dateText = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD');

/** What narrows the library's runs; every view of the start page reads the same filter. */
export const libraryFilterSchema = z.object({
  status: runStatusSchema.optional(),
  /** Runs with at least one finding of this kind. */
  findingKind: findingKindSchema.optional(),
  format: z.string().min(1).max(100).optional(),
  /** Runs one of whose responses names this model. */
  model: z.string().min(1).max(200).optional(),
  /** Runs of traces under this directory (absolute, as the library lists it). */
  directory: z.string().min(1).max(4096).optional(),
  /** Runs started on or after this day (UTC). */
  from: dateText.optional(),
  /** Runs started on or before this day (UTC). */
  to: dateText.optional(),
  /** Matched against run id, file, task and model. */
  text: z.string().min(1).max(500).optional(),
  /** Runs with a finding of this failure signature (its `key`). */
  signature: z
    .string()
    .regex(/^[0-9a-f]{16}$/, 'expected a signature key')
    .optional(),
});
export type LibraryFilter = z.infer<typeof libraryFilterSchema>;

export const librarySortSchema = z.enum(['started', 'file', 'status', 'steps', 'tool_calls', 'findings', 'input_tokens', 'output_tokens', 'cost', 'duration']);
export type LibrarySort = z.infer<typeof librarySortSchema>;

export const libraryRunSchema = z.object({
  /** The trace the run is in: its id opens it (`#/trace/<traceId>/run/<runPk>`). */
  traceId: z.string(),
  /** The run's key inside its trace. */
  runPk: z.number().int(),
  runId: z.string(),
  /** The file the run is in (a sub-agent's transcript is its own file, in its session's trace). */
  file: z.string(),
  /** The trace's main file. */
  tracePath: z.string(),
  directory: z.string(),
  format: z.string(),
  status: runStatusSchema,
  /** The models its responses name, in order of first use. */
  models: z.array(z.string()),
  provider: z.string().nullable(),
  /** The run's task, its first line, shortened. */
  task: z.string().nullable(),
  startedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  steps: z.number().int(),
  toolCalls: z.number().int(),
  /** Calls answered with an error. */
  toolErrors: z.number().int(),
  findings: z.object({ error: z.number().int(), warning: z.number().int(), info: z.number().int() }),
  findingKinds: z.array(findingKindSchema),
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  cachedTokens: z.number().nullable(),
  reasoningTokens: z.number().nullable(),
  /** Priced from recorded usage (docs/semantics.md §18); null when no response could be priced. */
  costUsd: z.number().nullable(),
  /** Responses with usage that no price covers (their cost is not in `costUsd`). */
  unpricedResponses: z.number().int(),
  /** Of `costUsd`, what went to repeated actions' repeats and to work after a budget was exhausted; null without a cost. */
  wastedUsd: z.number().nullable(),
  /** What the sub-agents it started cost, down the whole chain (not in `costUsd`); null when none has a cost. */
  subAgentCostUsd: z.number().nullable(),
  /** For a sub-agent: the run that started it. */
  parentRunId: z.string().nullable(),
});
export type LibraryRun = z.infer<typeof libraryRunSchema>;

/** How a per-run measure spreads over the runs that record it, with a histogram for its chart. */
export const libraryDistributionSchema = z.object({
  runs: z.number().int(),
  total: z.number(),
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  max: z.number().nullable(),
  /** Runs per bucket, buckets doubling in width from `from` of the first (a long tail stays readable). */
  buckets: z.array(z.object({ from: z.number(), to: z.number(), runs: z.number().int() })),
});
export type LibraryDistribution = z.infer<typeof libraryDistributionSchema>;

const facet = z.array(z.object({ value: z.string(), runs: z.number().int() }));

export const libraryAggregatesSchema = z.object({
  runs: z.number().int(),
  traces: z.number().int(),
  byStatus: z.array(z.object({ status: runStatusSchema, runs: z.number().int() })),
  findingsByKind: z.array(z.object({ kind: findingKindSchema, findings: z.number().int(), runs: z.number().int() })),
  tools: z.array(
    z.object({
      name: z.string(),
      calls: z.number().int(),
      errors: z.number().int(),
      errorRate: z.number(),
      p50Ms: z.number().nullable(),
      p95Ms: z.number().nullable(),
    }),
  ),
  perRun: z.object({
    inputTokens: libraryDistributionSchema,
    outputTokens: libraryDistributionSchema,
    costUsd: libraryDistributionSchema,
    wastedUsd: libraryDistributionSchema,
    durationMs: libraryDistributionSchema,
    steps: libraryDistributionSchema,
  }),
  /** Runs per period they started in (UTC; shared/library/runsOverTime.ts), and of those how many ended badly. */
  overTime: z.object({
    granularity: z.enum(['day', 'week', 'month']),
    periods: z.array(z.object({ period: z.string(), from: z.string(), to: z.string(), runs: z.number().int(), failed: z.number().int() })),
  }),
  /** The values the filters offer, with their runs under the other filters. */
  facets: z.object({ formats: facet, models: facet, directories: facet }),
});
export type LibraryAggregates = z.infer<typeof libraryAggregatesSchema>;

export const librarySignatureSchema = z.object({
  key: z.string(),
  kind: findingKindSchema,
  tool: z.string().nullable(),
  text: z.string(),
  findings: z.number().int(),
  runs: z.number().int(),
  /** Of the runs the filter leaves. */
  share: z.number(),
  firstSeen: z.string().nullable(),
  lastSeen: z.string().nullable(),
  example: z.object({ traceId: z.string(), runPk: z.number().int(), runId: z.string(), file: z.string(), line: z.number().int().nullable() }),
});
export type LibrarySignature = z.infer<typeof librarySignatureSchema>;

export const libraryStatusSchema = z.object({
  /** The directories and files the library was given. */
  roots: z.array(z.string()),
  /** `indexing`: files are being read; `idle`: every file found is indexed (new ones are looked for every few seconds). */
  state: z.enum(['indexing', 'idle']),
  /** Files found under the roots with a trace's extension. */
  files: z.number().int(),
  /** Of those, the ones read so far (indexed, skipped or failed). */
  indexed: z.number().int(),
  /** Files no format recognises (a config, a note): not traces, left out. */
  skipped: z.number().int(),
  /** Files that could not be read, each with why (the first few). */
  failed: z.number().int(),
  failures: z.array(z.object({ path: z.string(), reason: z.string() })),
  /** The file being read now. */
  current: z.string().nullable(),
  /** Goes up whenever the library's rows change: a view reloads what it shows. */
  revision: z.number().int(),
});
export type LibraryStatus = z.infer<typeof libraryStatusSchema>;

export const librarySearchHitSchema = z.object({
  traceId: z.string(),
  tracePath: z.string(),
  runPk: z.number().int(),
  runId: z.string(),
  status: runStatusSchema,
  /** The run's matches, first ones first. */
  matches: z.array(
    z.object({
      eventId: z.number().int(),
      line: z.number().int(),
      type: z.string(),
      /** The tool the event concerns, when it concerns one. */
      name: z.string().nullable(),
      /** Text around the match; `ranges` are [start, end) character ranges in it to highlight (as text, never HTML). */
      snippet: z.string(),
      ranges: z.array(z.tuple([z.number().int(), z.number().int()])),
    }),
  ),
  /** Matches in the run beyond those listed. */
  moreMatches: z.number().int(),
});
export type LibrarySearchHit = z.infer<typeof librarySearchHitSchema>;
