/**
 * The start page's answers put together from what a library's database returns (docs/semantics.md
 * §19): the local SQLite library (libraryQueries.ts) and ClickHouse (clickhouse/clickhouseLibrary.ts)
 * only fetch rows and counts; everything computed from them — status counts, periods, distributions
 * and their histograms, the tools' table, signature rows, run rows — is this one code, so both give
 * the same numbers for the same runs.
 */
import type { LibraryAggregates, LibraryDistribution, LibraryRun, LibrarySignature } from '../../../shared/library/libraryApi';
import { runsOverTime } from '../../../shared/library/runsOverTime';
import type { FindingKind } from '../../../shared/report';
import { distribution } from '../../../shared/summary/runsSummary';
import type { RunStatus } from '../../../shared/trace/runStatus';

/** The statuses of a run that ended without doing its work (docs/semantics.md §2): what the over-time chart counts as failed. */
const endedBadly: ReadonlySet<RunStatus> = new Set(['budget_exceeded', 'protocol_error', 'refused', 'failed', 'cancelled', 'unterminated']);

/** A run as a library database holds it (the columns of its `runs` table), its lists already read. */
export interface LibraryRunRecord {
  trace_id: string;
  trace_path: string;
  run_pk: number;
  run_id: string;
  file: string;
  directory: string;
  format: string;
  status: RunStatus;
  models: string[];
  provider: string | null;
  task: string | null;
  started_at: string | null;
  duration_ms: number | null;
  steps: number;
  tool_calls: number;
  tool_errors: number;
  errors: number;
  warnings: number;
  infos: number;
  finding_kinds: FindingKind[];
  input_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  reasoning_tokens: number | null;
  cost_usd: number | null;
  unpriced_responses: number;
  wasted_usd: number | null;
  sub_agent_cost_usd: number | null;
  parent_run_id: string | null;
}

export function toLibraryRun(row: LibraryRunRecord): LibraryRun {
  return {
    traceId: row.trace_id,
    runPk: row.run_pk,
    runId: row.run_id,
    file: row.file,
    tracePath: row.trace_path,
    directory: row.directory,
    format: row.format,
    status: row.status,
    models: row.models,
    provider: row.provider,
    task: row.task,
    startedAt: row.started_at,
    durationMs: row.duration_ms,
    steps: row.steps,
    toolCalls: row.tool_calls,
    toolErrors: row.tool_errors,
    findings: { error: row.errors, warning: row.warnings, info: row.infos },
    findingKinds: row.finding_kinds,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cachedTokens: row.cached_tokens,
    reasoningTokens: row.reasoning_tokens,
    costUsd: row.cost_usd,
    unpricedResponses: row.unpriced_responses,
    wastedUsd: row.wasted_usd,
    subAgentCostUsd: row.sub_agent_cost_usd,
    parentRunId: row.parent_run_id,
  };
}

/** Buckets doubling in width from the smallest positive value: a long tail (one run of 10× the rest) stays readable. */
function histogram(sorted: readonly number[]): LibraryDistribution['buckets'] {
  if (sorted.length === 0) return [];
  const max = sorted.at(-1) ?? 0;
  const positive = sorted.find((value) => value > 0);
  if (positive === undefined || max <= 0) return [{ from: 0, to: 0, runs: sorted.length }];
  // At most 24 buckets: from the first power of two at or below the smallest positive value.
  let lower = 2 ** Math.floor(Math.log2(positive));
  if (max / lower > 2 ** 24) lower = max / 2 ** 24;
  const buckets: LibraryDistribution['buckets'] = [];
  const zeros = sorted.filter((value) => value <= 0).length;
  if (zeros > 0) buckets.push({ from: 0, to: 0, runs: zeros });
  let index = zeros;
  for (let from = lower; index < sorted.length; from *= 2) {
    const to = from * 2;
    let runs = 0;
    while (index < sorted.length && (sorted[index] ?? 0) < to) {
      runs += 1;
      index += 1;
    }
    buckets.push({ from, to, runs });
  }
  return buckets;
}

/** `analyze --summary`'s distribution of a measure (shared/summary/runsSummary.ts), with the histogram the chart draws. */
function distributionOf(values: readonly (number | null)[]): LibraryDistribution {
  const sorted = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  return { ...distribution(sorted), buckets: histogram(sorted) };
}

export type PerRunMeasure = keyof LibraryAggregates['perRun'];

/** What a backend fetches for the aggregates of the runs under a filter; `assembleAggregates` makes the answer of it. */
export interface AggregateParts {
  /** Runs per status and UTC start day (null: the run records no start), in any order. */
  runsByStatusAndDay: readonly { status: RunStatus; day: string | null; runs: number }[];
  /** The trace files the runs are in. */
  traces: number;
  /** Each measure's values over the runs, in any order (a null: the run does not record it). */
  measures: Readonly<Record<PerRunMeasure, readonly (number | null)[]>>;
  /** Ordered by runs, then findings (both descending), then kind. */
  findingsByKind: LibraryAggregates['findingsByKind'];
  /** Each tool's calls and calls answered with an error, in any order. */
  toolCalls: readonly { tool: string; calls: number; errors: number }[];
  /**
   * Each tool's latency percentiles, nearest-rank (§11): the value at rank ⌈p·n⌉ of its n timed
   * calls; a tool without timed calls may be left out.
   */
  toolLatencies: readonly { tool: string; p50: number | null; p95: number | null }[];
  facets: LibraryAggregates['facets'];
}

export function assembleAggregates(parts: AggregateParts): LibraryAggregates {
  const byStatus = new Map<RunStatus, number>();
  const days = new Map<string, { runs: number; failed: number }>();
  let runs = 0;
  for (const group of parts.runsByStatusAndDay) {
    runs += group.runs;
    byStatus.set(group.status, (byStatus.get(group.status) ?? 0) + group.runs);
    if (group.day === null) continue;
    const day = days.get(group.day) ?? { runs: 0, failed: 0 };
    day.runs += group.runs;
    if (endedBadly.has(group.status)) day.failed += group.runs;
    days.set(group.day, day);
  }
  const latency = new Map(parts.toolLatencies.map((row) => [row.tool, row]));
  const { measures } = parts;
  return {
    runs,
    traces: parts.traces,
    byStatus: [...byStatus].map(([status, count]) => ({ status, runs: count })).sort((a, b) => b.runs - a.runs || a.status.localeCompare(b.status)),
    findingsByKind: parts.findingsByKind,
    tools: parts.toolCalls
      .map((row) => ({
        name: row.tool,
        calls: row.calls,
        errors: row.errors,
        errorRate: row.errors / row.calls,
        p50Ms: latency.get(row.tool)?.p50 ?? null,
        p95Ms: latency.get(row.tool)?.p95 ?? null,
      }))
      .sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name)),
    perRun: {
      inputTokens: distributionOf(measures.inputTokens),
      outputTokens: distributionOf(measures.outputTokens),
      costUsd: distributionOf(measures.costUsd),
      wastedUsd: distributionOf(measures.wastedUsd),
      durationMs: distributionOf(measures.durationMs),
      steps: distributionOf(measures.steps),
    },
    overTime: runsOverTime([...days].map(([day, counts]) => ({ day, ...counts }))),
    facets: parts.facets,
  };
}

/** A failure signature's findings over the filtered runs, as a backend groups them. */
export interface SignatureGroup {
  key: string;
  kind: FindingKind;
  tool: string | null;
  text: string;
  findings: number;
  runs: number;
  first_seen: string | null;
  last_seen: string | null;
}

export function toLibrarySignature(group: SignatureGroup, totalRuns: number, example: LibrarySignature['example']): LibrarySignature {
  return {
    key: group.key,
    kind: group.kind,
    tool: group.tool,
    text: group.text,
    findings: group.findings,
    runs: group.runs,
    share: totalRuns === 0 ? 0 : group.runs / totalRuns,
    firstSeen: group.first_seen,
    lastSeen: group.last_seen,
    example,
  };
}
