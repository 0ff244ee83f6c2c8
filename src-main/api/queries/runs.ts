/** The runs list (`runs`) and one run with its budgets, task, config and the runs it started (`run`). */
import { basename } from 'node:path';
import type Database from 'better-sqlite3';
import type { ApiResponse, RunRow } from '../../../shared/api';
import type { FindingKind } from '../../../shared/report';
import { namesModelInput } from '../../../shared/trace/canonicalEvents';
import type { RunStatus } from '../../../shared/trace/runStatus';
import { millisBetween, toIsoTimestamp } from '../../../shared/trace/timestamps';
import {
  budgetFindingDetails,
  childRunCandidates,
  contentEvent,
  parentRunsOf,
  runCounters,
  runListRow,
  runPage,
  sourcePaths,
  summarizedUnknownEvents,
  type ContentEventSqlRow,
  type RunListSqlRow,
} from '../../engine';
import { ApiError } from '../apiError';
import { eventContent } from '../eventContent';
import { startingCall, subAgentCalls } from '../subAgents';
import { rolledUpCosts, runCost } from './cost';
import type { Query, TraceScope } from './scope';

/** The run that started each of `runs` (store/runs.ts `parentRunsOf`), with the call that did. */
function parentsOf(db: Database.Database, scope: TraceScope, runs: readonly { run_id: string; source_id: number }[]): RunRow['parent'][] {
  return parentRunsOf(db, scope.sourceIds, runs).map((parent) =>
    parent === undefined ? null : { runPk: parent.id, runId: parent.run_id, callId: parent.call_id, ...startingCall(db, parent.id, parent.call_id) },
  );
}

function toRunRow(db: Database.Database, scope: TraceScope, row: RunListSqlRow, parent: RunRow['parent']): RunRow {
  return {
    runPk: row.id,
    runId: row.run_id,
    file: row.file,
    format: row.format,
    status: row.status as RunStatus,
    statusRaw: row.status_raw,
    steps: row.steps,
    toolCalls: row.tool_calls,
    toolResults: row.tool_results,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cost: runCost(db, scope, row.id),
    startedAt: row.started_at,
    endedAt: row.ended_at,
    durationMs: millisBetween(row.started_at, row.ended_at),
    firstLine: row.first_line,
    lastLine: row.last_line,
    findings: { error: row.errors, warning: row.warnings, info: row.infos },
    findingKinds: row.kinds === null ? [] : (row.kinds.split(',').sort() as FindingKind[]),
    parent,
  };
}

function toRunRows(db: Database.Database, scope: TraceScope, rows: readonly RunListSqlRow[]): RunRow[] {
  const parents = parentsOf(db, scope, rows);
  return rows.map((row, at) => toRunRow(db, scope, row, parents[at]!));
}

export const runs: Query<'runs'> = (db, scope, request) => {
  // The file is matched by its name, not its directories, which every run of the trace shares.
  const needle = request.text?.toLowerCase();
  const textSourceIds =
    needle === undefined || needle === ''
      ? []
      : sourcePaths(db, scope.sourceIds)
          .filter((source) => basename(source.path).toLowerCase().includes(needle))
          .map((source) => source.id);
  const page = runPage(db, {
    sourceIds: scope.sourceIds,
    optionsKey: scope.optionsKey,
    status: request.status,
    findingKind: request.findingKind,
    text: request.text,
    textSourceIds,
    sort: request.sort,
    descending: request.descending,
    limit: request.limit,
    offset: request.offset,
  });
  return { total: page.total, offset: request.offset, rows: toRunRows(db, scope, page.rows) };
};

export function runInScope(db: Database.Database, scope: TraceScope, runPk: number): RunListSqlRow {
  const row = runListRow(db, scope.sourceIds, scope.optionsKey, runPk);
  if (row === undefined) throw new ApiError('not_found', `no run ${runPk} in this trace`);
  return row;
}

type BudgetUse = ApiResponse<'run'>['budgets'][number];

/** The limits a budget_exceeded finding of the run names (`details.limit`, normalized by the analysis). */
function budgetLimitsReported(db: Database.Database, scope: TraceScope, runPk: number): Set<string> {
  const limits = new Set<string>();
  for (const detailsJson of budgetFindingDetails(db, runPk, scope.optionsKey)) {
    const limit = detailsJson === null ? undefined : (JSON.parse(detailsJson) as { limit?: unknown }).limit;
    if (typeof limit === 'string') limits.add(limit);
  }
  return limits;
}

function finiteNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * Use against each declared budget. `exceeded` when more was used than allowed, when the run ended
 * on that limit (runs.end_limit as declared, or as the analysis normalized it in a budget_exceeded
 * finding — which also covers a cap reached without a final answer).
 */
function budgetUses(db: Database.Database, scope: TraceScope, run: RunListSqlRow): BudgetUse[] {
  if (run.budgets_json === null) return [];
  const declared = JSON.parse(run.budgets_json) as Record<string, unknown>;
  const counters = runCounters(db, run.id);
  const reported = budgetLimitsReported(db, scope, run.id);
  const uses: BudgetUse[] = [];
  const add = (name: string, limitName: string, declaredAs: string, used: number | null, limit: number | null): void => {
    if (used === null || limit === null) return;
    const exceeded = used > limit || reported.has(limitName) || run.end_limit === declaredAs || run.end_limit === limitName;
    uses.push({ name, used, limit, exceeded });
  };
  const turnsKey = finiteNumber(declared['max_turns']) !== null ? 'max_turns' : 'max_steps';
  add('turns', 'max_turns', turnsKey, run.steps, finiteNumber(declared[turnsKey]));
  add('tool_calls', 'max_tool_calls', 'max_tool_calls', counters.executedToolCalls, finiteNumber(declared['max_tool_calls']));
  add('output_tokens', 'max_output_tokens', 'max_output_tokens', run.output_tokens ?? 0, finiteNumber(declared['max_output_tokens']));
  add('cost_usd', 'max_cost_usd', 'max_cost_usd', counters.costUsd, finiteNumber(declared['max_cost_usd']));
  add('context_tokens', 'max_context_tokens', 'max_context_tokens', counters.maxInputTokens, finiteNumber(declared['max_context_tokens']));
  const absoluteDeadline = declared['deadline'];
  const deadlineMs =
    finiteNumber(declared['deadline_ms']) ??
    (typeof absoluteDeadline === 'string' || typeof absoluteDeadline === 'number' ? millisBetween(run.started_at, toIsoTimestamp(absoluteDeadline)) : null);
  const deadlineKey = finiteNumber(declared['deadline_ms']) !== null ? 'deadline_ms' : 'deadline';
  add('deadline_ms', 'deadline', deadlineKey, millisBetween(run.started_at, run.ended_at), deadlineMs);
  return uses;
}

/** Records this large are not mapped again just to find a task in them. */
const TASK_RECORD_MAX_BYTES = 1024 * 1024;
/** How far into a run its first prompt is looked for (bookkeeping records can come first). */
const TASK_SEARCH_EVENTS = 1000;

/**
 * The run's task, as its format records one: the start event's `task` (the canonical run_start, a
 * Cline task, a Codex session's first user message), else the first prompt the run's records carry
 * (a Claude Code session's first user message, whatever bookkeeping records came before it).
 */
export function runTask(db: Database.Database, runPk: number, startEventId: number | null): string | null {
  const taskOf = (row: ContentEventSqlRow | undefined): string | null => {
    if (row === undefined || row.byte_length > TASK_RECORD_MAX_BYTES) return null;
    const text = eventContent(db, row, [], { revealSecrets: false })?.text ?? null;
    return text === null || text.trim() === '' ? null : text;
  };
  const fromStart = taskOf(startEventId === null ? undefined : contentEvent(db, startEventId));
  if (fromStart !== null) return fromStart;
  // Ingest summarizes a record that carries a prompt's text; a run's first prompt is among its first records.
  for (const prompt of summarizedUnknownEvents(db, runPk, TASK_SEARCH_EVENTS)) {
    if (!namesModelInput(prompt.type_raw)) continue;
    const text = taskOf(prompt);
    if (text !== null) return text;
  }
  return null;
}

function runConfig(configJson: string | null): Record<string, unknown> | null {
  if (configJson === null) return null;
  const config: unknown = JSON.parse(configJson);
  return typeof config === 'object' && config !== null && !Array.isArray(config) ? (config as Record<string, unknown>) : null;
}

/** The runs `run` started: those its tool results name, and companion-file runs under its id, whose parent is this run. */
function childrenOf(db: Database.Database, scope: TraceScope, run: RunListSqlRow): ApiResponse<'run'>['children'] {
  const candidates = childRunCandidates(db, scope.sourceIds, run);
  const parents = parentRunsOf(db, scope.sourceIds, candidates);
  return candidates.flatMap((candidate, at) => {
    const parent = parents[at];
    return parent?.id === run.id ? [{ runPk: candidate.id, runId: candidate.run_id, callId: parent.call_id }] : [];
  });
}

export const run: Query<'run'> = (db, scope, request) => {
  const row = runInScope(db, scope, request.runPk);
  const children = childrenOf(db, scope, row);
  const costs = rolledUpCosts(db, scope, row.id, (runPk) =>
    runPk === row.id ? children.map((child) => child.runPk) : childrenOf(db, scope, runInScope(db, scope, runPk)).map((child) => child.runPk),
  );
  return {
    run: toRunRows(db, scope, [row])[0]!,
    config: runConfig(row.config_json),
    task: runTask(db, row.id, row.start_event_id),
    endLimit: row.end_limit,
    budgets: budgetUses(db, scope, row),
    children,
    subAgents: subAgentCalls(db, scope, row, (childPk) => costs.get(childPk) ?? runCost(db, scope, childPk)),
    costWithSubAgents: children.length === 0 ? null : (costs.get(row.id) ?? null),
  };
};
