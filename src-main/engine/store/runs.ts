/**
 * The runs table read back: runs listed with their file and finding counts (the API), as the
 * report lists them, the run that started another, and what budgets count beyond a run's row.
 * Runs are written by `TraceStore` (traceWriter.ts).
 */
import type Database from 'better-sqlite3';
import type { ApiParsedRequest } from '../../../shared/api';
import type { RunStatus } from '../../../shared/trace/runStatus';
import { prepared } from './preparedStatements';
import { containsPattern, idList } from './sqlText';
import type { RunSqlRow } from './traceWriter';

/** A stored run (less its end event) with its file and finding counts for one analysis. */
export interface RunListSqlRow extends Omit<RunSqlRow, 'end_event_id' | 'output_event_id'> {
  file: string;
  format: string;
  errors: number;
  warnings: number;
  infos: number;
  kinds: string | null;
}

/** A run with its file and its finding counts for the scope's analysis; `@key` is the options key. */
const runListSelect = `
  SELECT r.id, r.source_id, r.run_id, r.status, r.status_raw, r.end_limit, r.budgets_json, r.config_json, r.first_line, r.last_line,
         r.started_at, r.ended_at, r.steps, r.tool_calls, r.tool_results, r.input_tokens, r.output_tokens, r.start_event_id,
         s.path AS file, s.format,
         (SELECT count(*) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.severity = 'error') AS errors,
         (SELECT count(*) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.severity = 'warning') AS warnings,
         (SELECT count(*) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.severity = 'info') AS infos,
         (SELECT group_concat(DISTINCT f.kind) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key) AS kinds
  FROM runs r JOIN sources s ON s.id = r.source_id`;

export type RunSort = ApiParsedRequest<'runs'>['sort'];

/**
 * ORDER BY for a runs sort; ties (and the default) go by file, then position in the file. A run
 * without a duration sorts after those with one, either direction. api/liveRuns.ts sorts the same way.
 */
function runOrder(sort: RunSort, descending: boolean): string {
  const direction = descending ? 'DESC' : 'ASC';
  const position = `r.source_id ${direction}, r.first_line ${direction}, r.id ${direction}`;
  switch (sort) {
    case 'first_line':
      return position;
    case 'status':
      return `r.status ${direction}, ${position}`;
    case 'steps':
      return `r.steps ${direction}, ${position}`;
    case 'tool_calls':
      return `r.tool_calls ${direction}, ${position}`;
    case 'tokens':
      return `coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) ${direction}, ${position}`;
    case 'duration': {
      const duration = '(julianday(r.ended_at) - julianday(r.started_at))';
      return `${duration} IS NULL, ${duration} ${direction}, ${position}`;
    }
    case 'errors':
      return `errors ${direction}, ${position}`;
  }
}

export interface RunPageQuery {
  sourceIds: readonly number[];
  optionsKey: string;
  status?: string | undefined;
  findingKind?: string | undefined;
  /** Matched in the run's id, status and raw status, and runs of `textSourceIds`, whose file names match. */
  text?: string | undefined;
  textSourceIds: readonly number[];
  sort: RunSort;
  descending: boolean;
  limit: number;
  offset: number;
}

/** A page of the runs of the trace's sources that pass the filters, and how many pass them. */
export function runPage(db: Database.Database, query: RunPageQuery): { total: number; rows: RunListSqlRow[] } {
  const conditions = [`r.source_id IN (${idList(query.sourceIds)})`];
  const params: Record<string, unknown> = { key: query.optionsKey };
  if (query.status !== undefined) {
    conditions.push('r.status = @status');
    params['status'] = query.status;
  }
  if (query.findingKind !== undefined) {
    conditions.push('EXISTS (SELECT 1 FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.kind = @kind)');
    params['kind'] = query.findingKind;
  }
  if (query.text !== undefined && query.text !== '') {
    const byFile = query.textSourceIds.length > 0 ? ` OR r.source_id IN (${idList(query.textSourceIds)})` : '';
    conditions.push(`(r.run_id LIKE @text ESCAPE '\\' OR r.status LIKE @text ESCAPE '\\' OR r.status_raw LIKE @text ESCAPE '\\'${byFile})`);
    params['text'] = containsPattern(query.text);
  }
  const where = conditions.join(' AND ');
  const total = prepared<[Record<string, unknown>], { total: number }>(db, `SELECT count(*) AS total FROM runs r WHERE ${where}`).get(params)?.total ?? 0;
  const order = runOrder(query.sort, query.descending);
  // The page's runs are chosen first and only they get their finding counts: counted in the same
  // SELECT, every run that passes the filters was counted before the sort kept a page of them
  // (four lookups each, ~50 ms for the 6,629 runs of a 1 GB trace, paid on every open). Sorted by
  // errors, the counts are what chooses the page.
  const sql =
    query.sort === 'errors'
      ? `${runListSelect} WHERE ${where} ORDER BY ${order} LIMIT @limit OFFSET @offset`
      : `${runListSelect} WHERE r.id IN (SELECT r.id FROM runs r WHERE ${where} ORDER BY ${order} LIMIT @limit OFFSET @offset) ORDER BY ${order}`;
  const rows = prepared<[Record<string, unknown>], RunListSqlRow>(db, sql).all({ ...params, limit: query.limit, offset: query.offset });
  return { total, rows };
}

/** Run `runPk` if it belongs to one of `sourceIds`. */
export function runListRow(db: Database.Database, sourceIds: readonly number[], optionsKey: string, runPk: number): RunListSqlRow | undefined {
  return prepared<[Record<string, unknown>], RunListSqlRow>(db, `${runListSelect} WHERE r.id = @runPk AND r.source_id IN (${idList(sourceIds)})`).get({
    key: optionsKey,
    runPk,
  });
}

export interface ParentRunSqlRow {
  id: number;
  run_id: string;
  /** The call whose result names the child run; null for a companion-file run found by its id. */
  call_id: string | null;
  source_id: number;
}

/**
 * The run of `sourceIds` that started each of `runs`, in their order: the one holding a tool result
 * that names it, else — for a run of a companion file no result names — the parent file's run whose
 * id prefixes it (`<session>/…`). Two queries whatever the number of runs: a page of the runs table
 * asks for 200, a report for all of a trace's (two queries per run took a third of a page's answer).
 */
export function parentRunsOf(
  db: Database.Database,
  sourceIds: readonly number[],
  runs: readonly { run_id: string; source_id: number }[],
): (ParentRunSqlRow | undefined)[] {
  const parents: (ParentRunSqlRow | undefined)[] = runs.map(() => undefined);
  if (runs.length === 0) return parents;
  const namedBy = new Map<string, ParentRunSqlRow>();
  const named = prepared<[string], ParentRunSqlRow & { child_run_id: string }>(
    db,
    // CROSS JOIN keeps the run ids outermost, so each is looked up in the index of results that
    // started a run; left to itself the planner walks every event of every run of the sources.
    `SELECT e.child_run_id, r.id, r.run_id, e.call_id, r.source_id
     FROM json_each(?) child CROSS JOIN events e ON e.child_run_id = child.value JOIN runs r ON r.id = e.run_pk
     WHERE e.type = 'tool_result' AND r.source_id IN (${idList(sourceIds)}) ORDER BY e.id`,
  ).all(JSON.stringify([...new Set(runs.map((run) => run.run_id))]));
  for (const { child_run_id: child, ...parent } of named) if (!namedBy.has(child)) namedBy.set(child, parent);
  const unnamed: number[] = [];
  runs.forEach((run, at) => {
    parents[at] = namedBy.get(run.run_id);
    if (parents[at] === undefined) unnamed.push(at);
  });
  if (unnamed.length === 0) return parents;
  const byPrefix = prepared<[string], ParentRunSqlRow & { at: number }>(
    db,
    `SELECT json_extract(j.value, '$[0]') AS at, r.id, r.run_id, NULL AS call_id, r.source_id
     FROM json_each(?) j JOIN sources s ON s.id = json_extract(j.value, '$[1]') JOIN runs r ON r.source_id = s.parent_source_id
     WHERE substr(json_extract(j.value, '$[2]'), 1, length(r.run_id) + 1) = r.run_id || '/' ORDER BY at, r.first_line`,
  ).all(JSON.stringify(unnamed.map((at) => [at, runs[at]!.source_id, runs[at]!.run_id])));
  for (const { at, ...parent } of byPrefix) parents[at] ??= parent;
  return parents;
}

export interface ChildRunCandidateSqlRow {
  id: number;
  run_id: string;
  source_id: number;
}

/** Runs `run` may have started: those its tool results name, and companion-file runs under its id (`parentRunsOf` decides). */
export function childRunCandidates(
  db: Database.Database,
  sourceIds: readonly number[],
  run: { id: number; source_id: number; run_id: string },
): ChildRunCandidateSqlRow[] {
  return prepared<[Record<string, unknown>], ChildRunCandidateSqlRow>(
    db,
    `SELECT r.id, r.run_id, r.source_id FROM runs r
     WHERE r.source_id IN (${idList(sourceIds)}) AND (
       -- +run_pk: through the small index of results that started a run, not all of the run's events.
       r.run_id IN (SELECT child_run_id FROM events WHERE +run_pk = @runPk AND type = 'tool_result' AND child_run_id IS NOT NULL)
       OR (r.source_id IN (SELECT id FROM sources WHERE parent_source_id = @sourceId) AND substr(r.run_id, 1, length(@runId) + 1) = @runId || '/'))
     ORDER BY r.source_id, r.first_line`,
  ).all({ runPk: run.id, sourceId: run.source_id, runId: run.run_id });
}

export interface SubAgentRunSqlRow {
  id: number;
  status: string;
  steps: number;
  tool_calls: number;
  started_at: string | null;
  ended_at: string | null;
  errors: number;
  warnings: number;
  infos: number;
  /** The summary of its last final response. */
  answer: string | null;
}

/** The first run of `sourceIds` with id `runId`, summed up for a sub-agent call. */
export function subAgentRun(db: Database.Database, sourceIds: readonly number[], optionsKey: string, runId: string): SubAgentRunSqlRow | undefined {
  return prepared<[{ runId: string; key: string }], SubAgentRunSqlRow>(
    db,
    `SELECT r.id, r.status, r.steps, r.tool_calls, r.started_at, r.ended_at,
            (SELECT count(*) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.severity = 'error') AS errors,
            (SELECT count(*) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.severity = 'warning') AS warnings,
            (SELECT count(*) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.severity = 'info') AS infos,
            (SELECT e.summary FROM events e WHERE e.run_pk = r.id AND e.type = 'model_response' AND e.outcome = 'final' ORDER BY e.id DESC LIMIT 1) AS answer
     FROM runs r WHERE r.run_id = @runId AND r.source_id IN (${idList(sourceIds)}) ORDER BY r.source_id, r.first_line LIMIT 1`,
  ).get({ runId, key: optionsKey });
}

/**
 * The events that are a run's model responses as its usage and cost count them: each response, and
 * the fragment that closed a stream (it carries the streamed response's usage). Unqualified column
 * names: the events table is the only one in these statements with `type` and `outcome`.
 */
export const responseEventsSql = "(type = 'model_response' OR (type = 'stream_fragment' AND outcome IS NOT NULL))";

/** `responseEventsSql` for an event already read. */
export function isResponseEvent(event: { type: string; outcome: string | null }): boolean {
  return event.type === 'model_response' || (event.type === 'stream_fragment' && event.outcome !== null);
}

export interface RunCounterSqlRow {
  /** Tool calls that ran (started or answered by a result), counted only if a response issued them. */
  executedToolCalls: number;
  costUsd: number;
  maxInputTokens: number | null;
}

/** What budget counters need beyond the run's row, counted the way shared/analysis/budgets.ts counts. */
export function runCounters(db: Database.Database, runPk: number): RunCounterSqlRow {
  const executed = prepared<[number, number], { count: number }>(
    db,
    `SELECT count(DISTINCT e.call_id) AS count FROM events e
     WHERE e.run_pk = ? AND e.type IN ('tool_call_start', 'tool_result') AND e.call_id IN (SELECT call_id FROM tool_calls WHERE run_pk = ?)`,
  ).get(runPk, runPk);
  const responses = prepared<[number], { cost: number | null; max_input: number | null }>(
    db,
    `SELECT sum(cost_usd) AS cost, max(input_tokens) AS max_input FROM events WHERE run_pk = ? AND ${responseEventsSql}`,
  ).get(runPk);
  return { executedToolCalls: executed?.count ?? 0, costUsd: responses?.cost ?? 0, maxInputTokens: responses?.max_input ?? null };
}

/** The run id of `runPk`; '' when there is none. */
export function runIdOf(db: Database.Database, runPk: number): string {
  return prepared<[number], { run_id: string }>(db, 'SELECT run_id FROM runs WHERE id = ?').get(runPk)?.run_id ?? '';
}

/** A run's row as the report lists it. */
export interface ReportRunSqlRow {
  id: number;
  run_id: string;
  status: RunStatus;
  status_raw: string;
  steps: number;
  tool_calls: number;
  tool_results: number;
  input_tokens: number | null;
  output_tokens: number | null;
  started_at: string | null;
  ended_at: string | null;
  first_line: number;
  last_line: number;
}

/** The source's runs in file order, the columns the report lists (in its key order). */
export function reportRuns(db: Database.Database, sourceId: number): ReportRunSqlRow[] {
  return db
    .prepare<[number], ReportRunSqlRow>(
      `SELECT id, run_id, status, status_raw, steps, tool_calls, tool_results, input_tokens, output_tokens,
              started_at, ended_at, first_line, last_line
       FROM runs WHERE source_id = ? ORDER BY first_line`,
    )
    .all(sourceId);
}

/** The source's run keys in file order. */
export function runPksOfSource(db: Database.Database, sourceId: number): number[] {
  return prepared<[number], { id: number }>(db, 'SELECT id FROM runs WHERE source_id = ? ORDER BY first_line')
    .all(sourceId)
    .map((row) => row.id);
}
