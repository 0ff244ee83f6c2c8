/**
 * Two runs side by side (docs/semantics.md §16): what each run was — status, findings, steps, tool
 * calls, tokens, cost, duration — with the second's difference from the first, and their turns
 * aligned (alignSteps.ts) with the first place the second run did something different.
 */
import { z } from 'zod';
import { runReportSchema, type RunReport } from '../report';
import { alignRuns, type ComparableTurn } from './alignSteps';

const comparedRunSchema = z.object({
  file: z.string(),
  run_id: z.string(),
  status: runReportSchema.shape.status,
  status_raw: z.string(),
  findings: runReportSchema.shape.findings,
  steps: z.number().int(),
  tool_calls: z.number().int(),
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  /** Cost the trace recorded for the run's responses; null when it records none. */
  cost_usd: z.number().nullable(),
  duration_ms: z.number().nullable(),
  /** The run's turns as aligned: step, outcome and each call's tool and the start of its arguments. */
  turns: z.array(
    z.object({
      step: z.number().int(),
      outcome: z.string(),
      calls: z.array(z.object({ tool: z.string(), args: z.string() })),
      /**
       * The request the turn's response answered, as an event of the trace database (where the format
       * logs no requests, the response itself, standing for the request rebuilt for it); null when
       * the run's requests are not analyzed.
       */
      request_event_id: z.number().int().nullable(),
    }),
  ),
});
export type ComparedRun = z.infer<typeof comparedRunSchema>;

const callOpSchema = z.enum(['same', 'changed', 'removed', 'inserted']);

export const compareReportSchema = z.object({
  a: comparedRunSchema,
  b: comparedRunSchema,
  /** B − A for each measure both runs have; null where either lacks it. */
  delta: z.object({
    steps: z.number().int(),
    tool_calls: z.number().int(),
    findings: z.number().int(),
    input_tokens: z.number().nullable(),
    output_tokens: z.number().nullable(),
    cost_usd: z.number().nullable(),
    duration_ms: z.number().nullable(),
  }),
  alignment: z.object({
    rows: z.array(
      z.object({
        op: callOpSchema,
        /** Indexes into `a.turns` / `b.turns`; null on the side the turn is missing from. */
        a: z.number().int().nullable(),
        b: z.number().int().nullable(),
        similarity: z.number(),
        calls: z.array(z.object({ op: callOpSchema, a: z.number().int().nullable(), b: z.number().int().nullable(), similarity: z.number() })),
      }),
    ),
    /** Index into `rows` of the first row that is not the same; null when the runs do the same throughout. */
    first_divergence: z.number().int().nullable(),
    similarity: z.number(),
  }),
});
export type CompareReport = z.infer<typeof compareReportSchema>;

/** A run's report without its requests: the comparison reads its turns instead. */
type ComparedRunReport = Omit<RunReport, 'requests'>;

/** A turn with the request it answered, so that the requests at a divergence can be diffed. */
export interface TurnToCompare extends ComparableTurn {
  requestEventId: number | null;
}

export interface RunToCompare {
  file: string;
  report: ComparedRunReport;
  turns: TurnToCompare[];
  costUsd: number | null;
}

function difference(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : b - a;
}

/** All of a run's findings, whatever their severity. */
export function findingTotal(findings: ComparedRun['findings']): number {
  return findings.error + findings.warning + findings.info;
}

function compared(run: RunToCompare): ComparedRun {
  const { report } = run;
  return {
    file: run.file,
    run_id: report.run_id,
    status: report.status,
    status_raw: report.status_raw,
    findings: report.findings,
    steps: report.steps,
    tool_calls: report.tool_calls,
    input_tokens: report.input_tokens,
    output_tokens: report.output_tokens,
    cost_usd: run.costUsd,
    duration_ms: report.duration_ms,
    turns: run.turns.map((turn) => ({
      step: turn.step,
      outcome: turn.outcome,
      calls: turn.calls.map((call) => ({ tool: call.tool, args: call.args })),
      request_event_id: turn.requestEventId,
    })),
  };
}

export function compareRuns(a: RunToCompare, b: RunToCompare): CompareReport {
  const alignment = alignRuns(a.turns, b.turns);
  return {
    a: compared(a),
    b: compared(b),
    delta: {
      steps: b.report.steps - a.report.steps,
      tool_calls: b.report.tool_calls - a.report.tool_calls,
      findings: findingTotal(b.report.findings) - findingTotal(a.report.findings),
      input_tokens: difference(a.report.input_tokens, b.report.input_tokens),
      output_tokens: difference(a.report.output_tokens, b.report.output_tokens),
      cost_usd: difference(a.costUsd, b.costUsd),
      duration_ms: difference(a.report.duration_ms, b.report.duration_ms),
    },
    alignment: {
      rows: alignment.rows.map((row) => ({ op: row.op, a: row.a, b: row.b, similarity: row.similarity, calls: row.calls })),
      first_divergence: alignment.firstDivergence,
      similarity: alignment.similarity,
    },
  };
}
