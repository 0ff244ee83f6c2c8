/**
 * What many runs add up to (docs/semantics.md §17): runs by status, findings by kind, failure
 * signatures across runs (§15), each tool's calls, error rate and latency, and the distributions
 * of tokens, cost (§19) and duration per run. `analyze --summary` prints it; `analyze --json`
 * carries it as `summary`.
 */
import { z } from 'zod';
import { analyzeReportSchema, findingKindSchema, type FindingKind, type ReportFinding } from '../report';
import { runStatusSchema, type RunStatus } from '../trace/runStatus';
import { nearestRankPercentile } from '../latencyStats';
import { groupBySignature, type SignatureSubject } from '../signatures/failureSignature';

/** How a measure spreads over the runs that have it (nearest-rank percentiles: values some run really had). */
const distributionSchema = z.object({
  /** Runs with a value; the others do not record it. */
  runs: z.number().int(),
  total: z.number(),
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  max: z.number().nullable(),
});
export type Distribution = z.infer<typeof distributionSchema>;

/** Signatures listed in a summary: the most widespread first; the rest are counted. */
export const LISTED_SIGNATURES = 50;

export const runsSummarySchema = z.object({
  runs: z.number().int(),
  by_status: z.array(z.object({ status: runStatusSchema, runs: z.number().int() })),
  findings: z.array(z.object({ kind: findingKindSchema, findings: z.number().int(), runs: z.number().int() })),
  signatures: z.array(
    z.object({
      kind: findingKindSchema,
      tool: z.string().nullable(),
      text: z.string(),
      findings: z.number().int(),
      runs: z.number().int(),
      /** Of all runs summarized. */
      share: z.number(),
      /** Start times of the first and last runs it was seen in (ISO text as the traces wrote them). */
      first_seen: z.string().nullable(),
      last_seen: z.string().nullable(),
      example: z.object({ file: z.string(), run_id: z.string().nullable(), line: z.number().int().nullable() }),
    }),
  ),
  /** Signatures beyond the listed ones. */
  more_signatures: z.number().int(),
  tools: z.array(
    z.object({
      name: z.string(),
      calls: z.number().int(),
      errors: z.number().int(),
      error_rate: z.number(),
      /** Calls with a recorded duration, and their percentiles (docs/semantics.md §11). */
      timed: z.number().int(),
      p50_ms: z.number().nullable(),
      p95_ms: z.number().nullable(),
    }),
  ),
  input_tokens: distributionSchema,
  output_tokens: distributionSchema,
  cost_usd: distributionSchema,
  duration_ms: distributionSchema,
});
export type RunsSummary = z.infer<typeof runsSummarySchema>;

/** `analyze --json --summary`: the report with its summary. */
export const summarizedReportSchema = analyzeReportSchema.extend({ summary: runsSummarySchema });

export interface SummarizedRun {
  file: string;
  run_id: string;
  status: RunStatus;
  started_at: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  /** The run's cost (docs/semantics.md §19: recorded, else priced); null when no response has one. */
  cost_usd: number | null;
  duration_ms: number | null;
}

export interface SummarizedCall {
  name: string;
  /** How the call was answered (docs/semantics.md §3): 'error' counts toward the error rate. */
  state: string | null;
  latency_ms: number | null;
}

export interface SummarizedFinding {
  finding: ReportFinding;
  /** The tool of the call the finding is about; null when it is about none. */
  tool: string | null;
}

/**
 * What a finding's signature is made of (§15): a tool error by its code and error line, a repeated
 * action by its call, anything else by its message.
 */
export function findingSubject({ finding, tool }: SummarizedFinding): SignatureSubject {
  const details = finding.details ?? {};
  const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
  if (finding.kind === 'tool_error') {
    const code = text(details['code']);
    const line = text(details['error_line']);
    const said = [code, line].filter((part) => part !== null).join(': ');
    if (said !== '') return { kind: finding.kind, tool, text: said };
  }
  if (finding.kind === 'repeated_action') {
    const name = text(details['name']) ?? tool;
    return { kind: finding.kind, tool: name, text: `${name ?? ''}(${text(details['arguments']) ?? ''})` };
  }
  return { kind: finding.kind, tool, text: withoutOwnIds(finding.message, finding) };
}

/**
 * The message with the finding's own call id and run id taken out: they name this occurrence, not
 * the failure, and ids like `bad-fields:step2:call0` have no shape the masks of §15 know.
 */
function withoutOwnIds(message: string, finding: ReportFinding): string {
  let text = message;
  if (finding.call_id !== null) text = replaceWhole(text, finding.call_id, '<id>');
  if (finding.run_id !== null) text = replaceWhole(text, finding.run_id, '<run>');
  return text;
}

/**
 * `id` replaced where it stands alone, not inside a longer word. An id that is a plain word (a run
 * named `a` or `main`) is left: it cannot be told from the message's own words.
 */
function replaceWhole(text: string, id: string, placeholder: string): string {
  if (/^\p{L}*$/u.test(id)) return text;
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![\\p{L}\\p{N}_-])${escaped}(?![\\p{L}\\p{N}_-])`, 'gu'), placeholder);
}

export function distribution(values: Iterable<number | null>): Distribution {
  const present = [...values].filter((value): value is number => value !== null).sort((a, b) => a - b);
  return {
    runs: present.length,
    total: present.reduce((sum, value) => sum + value, 0),
    p50: nearestRankPercentile(present, 50),
    p95: nearestRankPercentile(present, 95),
    max: present.at(-1) ?? null,
  };
}

/**
 * Each tool's calls, errors and latencies, counted one call at a time as they are read (a library
 * can hold millions of calls: only their latencies are kept, as numbers).
 */
export class ToolTally {
  private readonly byTool = new Map<string, { calls: number; errors: number; latencies: number[] }>();

  add(call: SummarizedCall): void {
    let tool = this.byTool.get(call.name);
    if (tool === undefined) {
      tool = { calls: 0, errors: 0, latencies: [] };
      this.byTool.set(call.name, tool);
    }
    tool.calls += 1;
    if (call.state === 'error') tool.errors += 1;
    if (call.latency_ms !== null) tool.latencies.push(call.latency_ms);
  }

  /** Most called first, ties by name. */
  rows(): RunsSummary['tools'] {
    return [...this.byTool]
      .map(([name, tool]) => {
        const sorted = tool.latencies.sort((a, b) => a - b);
        return {
          name,
          calls: tool.calls,
          errors: tool.errors,
          error_rate: tool.errors / tool.calls,
          timed: sorted.length,
          p50_ms: nearestRankPercentile(sorted, 50),
          p95_ms: nearestRankPercentile(sorted, 95),
        };
      })
      .sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name));
  }
}

/** A run across traces: its file and run id (run ids repeat across files). */
export const summaryRunKey = (file: string, runId: string | null): string => `${file}\u0000${runId ?? ''}`;

export function summarizeRuns(runs: readonly SummarizedRun[], findings: readonly SummarizedFinding[], tools: ToolTally): RunsSummary {
  const startedAt = new Map(runs.map((run) => [summaryRunKey(run.file, run.run_id), run.started_at]));

  const byStatus = new Map<RunStatus, number>();
  for (const run of runs) byStatus.set(run.status, (byStatus.get(run.status) ?? 0) + 1);

  const byKind = new Map<FindingKind, { findings: number; runs: Set<string> }>();
  for (const { finding } of findings) {
    const entry = byKind.get(finding.kind) ?? { findings: 0, runs: new Set<string>() };
    entry.findings += 1;
    entry.runs.add(summaryRunKey(finding.file, finding.run_id));
    byKind.set(finding.kind, entry);
  }

  const groups = groupBySignature(
    findings.map((summarized) => {
      const key = summaryRunKey(summarized.finding.file, summarized.finding.run_id);
      return { subject: findingSubject(summarized), runKey: key, at: startedAt.get(key) ?? null, item: summarized.finding };
    }),
    runs.length,
  );

  return {
    runs: runs.length,
    by_status: [...byStatus].map(([status, count]) => ({ status, runs: count })).sort((a, b) => b.runs - a.runs || a.status.localeCompare(b.status)),
    findings: [...byKind]
      .map(([kind, entry]) => ({ kind, findings: entry.findings, runs: entry.runs.size }))
      .sort((a, b) => b.runs - a.runs || b.findings - a.findings || a.kind.localeCompare(b.kind)),
    signatures: groups.slice(0, LISTED_SIGNATURES).map((group) => ({
      kind: group.signature.kind,
      tool: group.signature.tool,
      text: group.signature.text,
      findings: group.findings,
      runs: group.runs,
      share: group.share,
      first_seen: group.firstSeen,
      last_seen: group.lastSeen,
      example: { file: group.example.file, run_id: group.example.run_id, line: group.example.line },
    })),
    more_signatures: Math.max(0, groups.length - LISTED_SIGNATURES),
    tools: tools.rows(),
    input_tokens: distribution(runs.map((run) => run.input_tokens)),
    output_tokens: distribution(runs.map((run) => run.output_tokens)),
    cost_usd: distribution(runs.map((run) => run.cost_usd)),
    duration_ms: distribution(runs.map((run) => run.duration_ms)),
  };
}
