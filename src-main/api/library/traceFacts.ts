/**
 * What the library keeps of one ingested trace (docs/semantics.md §18): a row per run with its
 * measures, a row per finding with its failure signature (§15), and each call's tool, answer and
 * latency, read out of the trace's own database once, when the trace is indexed.
 */
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import type { FindingKind, Severity } from '../../../shared/report';
import { signatureOf } from '../../../shared/signatures/failureSignature';
import { findingSubject } from '../../../shared/summary/runsSummary';
import type { RunStatus } from '../../../shared/trace/runStatus';
import {
  callToolName,
  openDatabase,
  optionsKey,
  readReportOutline,
  reportedSources,
  runListRow,
  responseUsages,
  searchTerms,
  summaryCalls,
  type TraceHandle,
} from '../../engine';
import { buildTermFilter } from '../../../shared/library/termFilter';
import type { AnalysisOptions, ReportFinding } from '../../../shared/report';
import { RunCost } from '../../../shared/cost/runCost';
import type { UserPrices } from '../../../shared/cost/userPrices';
import { runTask } from '../queries/runs';

/** A task is kept to this many characters: enough to tell runs apart in a table and to search. */
const TASK_CHARS = 300;

export interface LibraryRunFacts {
  runPk: number;
  runId: string;
  file: string;
  directory: string;
  status: RunStatus;
  models: string[];
  provider: string | null;
  task: string | null;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  steps: number;
  toolCalls: number;
  toolErrors: number;
  errors: number;
  warnings: number;
  infos: number;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
  reasoningTokens: number | null;
  costUsd: number | null;
  unpricedResponses: number;
  /** Of `costUsd`, what went to repeated actions and to work after a budget was exhausted (docs/semantics.md §19). */
  wastedUsd: number | null;
  /** What the runs it started cost, theirs and their own sub-agents' (null when none of them has a cost). */
  subAgentCostUsd: number | null;
  parentRunId: string | null;
}

export interface LibraryFindingFacts {
  runPk: number;
  kind: FindingKind;
  severity: Severity;
  tool: string | null;
  /** The signature's key hashed to 16 hex digits: what the library groups and filters by. */
  signatureKey: string;
  signatureText: string;
  line: number | null;
  message: string;
}

export interface LibraryCallFacts {
  runPk: number;
  tool: string;
  state: string | null;
  latencyMs: number | null;
}

export interface TraceFacts {
  format: string;
  runs: LibraryRunFacts[];
  findings: LibraryFindingFacts[];
  calls: LibraryCallFacts[];
  /** The terms of its full-text index as a Bloom filter (shared/library/termFilter.ts); null: always searched. */
  termFilter: Uint8Array | null;
}

export function signatureKeyOf(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

function firstLineShortened(text: string | null): string | null {
  if (text === null) return null;
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > TASK_CHARS ? `${line.slice(0, TASK_CHARS - 1)}…` : line;
}

/** What a run's responses add up to: its models and provider, token parts, and cost (shared/cost/runCost.ts). */
interface ResponseTally {
  models: string[];
  provider: string | null;
  cachedTokens: number | null;
  reasoningTokens: number | null;
  cost: RunCost;
}

const addNullable = (total: number | null, value: number | null): number | null => (value === null ? total : (total ?? 0) + value);

function tallyResponses(
  db: Parameters<typeof responseUsages>[0],
  sourceIds: readonly number[],
  userPrices: UserPrices | undefined,
): Map<number, ResponseTally> {
  const tallies = new Map<number, ResponseTally>();
  for (const usage of responseUsages(db, sourceIds)) {
    let tally = tallies.get(usage.run_pk);
    if (tally === undefined) {
      tally = { models: [], provider: null, cachedTokens: null, reasoningTokens: null, cost: new RunCost(userPrices) };
      tallies.set(usage.run_pk, tally);
    }
    if (usage.model !== null && !tally.models.includes(usage.model)) tally.models.push(usage.model);
    tally.provider ??= usage.provider;
    tally.cachedTokens = addNullable(tally.cachedTokens, usage.cached_input_tokens);
    tally.reasoningTokens = addNullable(tally.reasoningTokens, usage.reasoning_tokens);
    tally.cost.add(usage);
  }
  return tallies;
}

/**
 * Of a run's cost, what bought nothing: the responses that issued a repeated action's repeats (every
 * call of the group after the first), and every response from the first action after a budget was
 * exhausted on. Null when the run has no cost.
 */
function wastedCost(cost: RunCost | undefined, findings: readonly ReportFinding[]): number | null {
  if (cost === undefined || cost.byStep.size === 0) return null;
  const wastedSteps = new Set<number>();
  let afterBudget: number | null = null;
  for (const finding of findings) {
    const details = finding.details ?? {};
    if (finding.kind === 'repeated_action' && Array.isArray(details['calls'])) {
      for (const call of (details['calls'] as { step?: unknown }[]).slice(1)) if (typeof call.step === 'number') wastedSteps.add(call.step);
    }
    if (finding.kind === 'budget_exceeded' && details['after_exhaustion'] === true && finding.step !== null) {
      afterBudget = afterBudget === null ? finding.step : Math.min(afterBudget, finding.step);
    }
  }
  let wasted = 0;
  for (const [step, stepCost] of cost.byStep) {
    if (step !== null && (wastedSteps.has(step) || (afterBudget !== null && step >= afterBudget))) wasted += stepCost;
  }
  return wasted;
}

/** Each run's sub-agents' cost, theirs and their own sub-agents', added into `subAgentCostUsd` of every run above them. */
function rollUpSubAgentCosts(
  runs: LibraryRunFacts[],
  outlined: readonly { runPk: number; report: { file: string; run_id: string; parent?: { file: string; run_id: string } } }[],
): void {
  const keyOf = (file: string, runId: string): string => `${file}\u0000${runId}`;
  const byKey = new Map(outlined.map(({ report }, index) => [keyOf(report.file, report.run_id), index]));
  outlined.forEach(({ report }, index) => {
    const cost = runs[index]?.costUsd ?? null;
    if (cost === null) return;
    // Up the chain of parents; a cycle (a malformed trace naming itself) stops at a run seen before.
    const seen = new Set<number>([index]);
    for (let parent = report.parent; parent !== undefined;) {
      const at = byKey.get(keyOf(parent.file, parent.run_id));
      if (at === undefined || seen.has(at)) break;
      seen.add(at);
      const above = runs[at]!;
      above.subAgentCostUsd = (above.subAgentCostUsd ?? 0) + cost;
      parent = outlined[at]!.report.parent;
    }
  });
}

/** The library's rows of an opened trace, read from its database. */
export function readTraceFacts(trace: TraceHandle, analysis: AnalysisOptions, userPrices?: UserPrices): TraceFacts {
  const outline = readReportOutline(trace, analysis);
  const sources = reportedSources(trace);
  const sourceIds = sources.map((source) => source.sourceId);
  const sourceOfFile = new Map(sources.map((source) => [source.displayPath, source.sourceId]));
  const runPkOf = new Map(outline.runs.map(({ runPk, report }) => [`${report.file}\u0000${report.run_id}`, runPk]));
  const db = openDatabase(trace.dbPath, { readonly: true });
  try {
    const calls: LibraryCallFacts[] = [];
    const errorsOfRun = new Map<number, number>();
    for (const call of summaryCalls(db, sourceIds)) {
      calls.push({ runPk: call.run_pk, tool: call.name, state: call.state, latencyMs: call.latency_ms });
      if (call.state === 'error') errorsOfRun.set(call.run_pk, (errorsOfRun.get(call.run_pk) ?? 0) + 1);
    }
    const responses = tallyResponses(db, sourceIds, userPrices);
    const findingsOfRun = new Map<string, ReportFinding[]>();
    for (const finding of outline.findings) {
      const key = `${finding.file}\u0000${finding.run_id ?? ''}`;
      findingsOfRun.set(key, [...(findingsOfRun.get(key) ?? []), finding]);
    }
    const key = optionsKey(analysis);
    const runs = outline.runs.map(({ runPk, report }): LibraryRunFacts => {
      const tally = responses.get(runPk);
      const startEventId = runListRow(db, sourceIds, key, runPk)?.start_event_id ?? null;
      return {
        runPk,
        runId: report.run_id,
        file: report.file,
        directory: dirname(report.file),
        status: report.status,
        models: tally?.models ?? [],
        provider: tally?.provider ?? null,
        task: firstLineShortened(runTask(db, runPk, startEventId)),
        startedAt: report.started_at,
        endedAt: report.ended_at,
        durationMs: report.duration_ms,
        steps: report.steps,
        toolCalls: report.tool_calls,
        toolErrors: errorsOfRun.get(runPk) ?? 0,
        errors: report.findings.error,
        warnings: report.findings.warning,
        infos: report.findings.info,
        inputTokens: report.input_tokens,
        outputTokens: report.output_tokens,
        cachedTokens: tally?.cachedTokens ?? null,
        reasoningTokens: tally?.reasoningTokens ?? null,
        costUsd: tally?.cost.usd() ?? null,
        unpricedResponses: tally?.cost.unpriced ?? 0,
        wastedUsd: wastedCost(tally?.cost, findingsOfRun.get(`${report.file}\u0000${report.run_id}`) ?? []),
        subAgentCostUsd: null,
        parentRunId: report.parent?.run_id ?? null,
      };
    });
    rollUpSubAgentCosts(runs, outline.runs);
    const findings = outline.findings.flatMap((finding): LibraryFindingFacts[] => {
      const runPk = finding.run_id === null ? undefined : runPkOf.get(`${finding.file}\u0000${finding.run_id}`);
      if (runPk === undefined) return [];
      const sourceId = sourceOfFile.get(finding.file);
      const tool =
        sourceId === undefined || finding.run_id === null || finding.call_id === null
          ? null
          : (callToolName(db, sourceId, finding.run_id, finding.call_id) ?? null);
      const signature = signatureOf(findingSubject({ finding, tool }));
      return [
        {
          runPk,
          kind: finding.kind,
          severity: finding.severity,
          tool: signature.tool,
          signatureKey: signatureKeyOf(signature.key),
          signatureText: signature.text,
          line: finding.line,
          message: finding.message,
        },
      ];
    });
    return { format: outline.files[0]?.format ?? 'unknown', runs, findings, calls, termFilter: buildTermFilter(searchTerms(db)) };
  } finally {
    db.close();
  }
}
