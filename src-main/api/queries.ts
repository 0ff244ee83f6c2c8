/**
 * The API's reads of a trace database: each a function of a read-only connection, the trace's
 * scope and a parsed request, returning the response shared/api.ts describes. They run in the
 * query worker (queryWorker.ts), never on the caller's thread; the host validates the responses.
 *
 * Sorting, filtering and paging happen in SQL, so a view fetches the rows around its viewport
 * from a table of any size.
 */
import { basename } from 'node:path';
import type Database from 'better-sqlite3';
import type { ApiParsedRequest, ApiResponse, CallRow, CallSort, EventRow, FindingRow, RawRecord, RunRow } from '../../shared/api';
import { findingTemplate, findingTemplateKey } from '../../shared/findingTemplate';
import { latencyByTool } from '../../shared/latencyStats';
import type { FindingKind, Severity } from '../../shared/report';
import { namesModelInput } from '../../shared/trace/canonicalEvents';
import type { RunStatus } from '../../shared/trace/runStatus';
import { millisBetween, toIsoTimestamp } from '../../shared/trace/timestamps';
import { hiddenCount, mergeRanges, positionOfShown, shownIndexOf, type HiddenRange } from '../../shared/trace/spanTree';
import { RawLineReader, SourceChangedError } from '../engine/store/rawLines';
import { TraceFileError } from '../engine/store/traceDatabase';
import type { EventRow as StoredEventRow, RunRow as StoredRunRow } from '../engine/store/traceWriter';
import { ApiError } from './apiError';
import type { QueryMethod } from './queryProtocol';
import { prepared } from '../engine/store/preparedStatements';
import { requestDiff } from './requestDiff';
import { runRequests } from './runRequests';
import { runWaterfall } from './runWaterfall';
import { searchEvents } from './search';
import { startingCall, subAgentCalls } from './subAgents';
import { eventContent, type ContentEventRow } from './eventContent';

/** Which rows of the database belong to the trace, and which analysis its findings come from. */
export interface TraceScope {
  /** The trace file's source first, then the files opened with it. */
  sourceIds: readonly number[];
  /** `optionsKey` of the analysis options the host runs with. */
  optionsKey: string;
}

type Query<M extends QueryMethod> = (db: Database.Database, scope: TraceScope, request: ApiParsedRequest<M>) => ApiResponse<M>;

/** The scope's source ids as an SQL list; they are integers the host took from the engine. */
function sourceList(scope: TraceScope): string {
  if (!scope.sourceIds.every((id) => Number.isSafeInteger(id))) throw new Error('source ids must be integers');
  return scope.sourceIds.join(', ');
}

/** `%text%` for LIKE, with the pattern characters of `text` escaped (ESCAPE '\'). */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

// ---------------------------------------------------------------------------------------------
// Runs

/** A stored run (less its end event) with its file and finding counts. */
interface RunSqlRow extends Omit<StoredRunRow, 'end_event_id' | 'output_event_id'> {
  file: string;
  format: string;
  errors: number;
  warnings: number;
  infos: number;
  kinds: string | null;
}

/** A run with its file and its finding counts for the scope's analysis; `@key` is the options key. */
const runSelect = `
  SELECT r.id, r.source_id, r.run_id, r.status, r.status_raw, r.end_limit, r.budgets_json, r.config_json, r.first_line, r.last_line,
         r.started_at, r.ended_at, r.steps, r.tool_calls, r.tool_results, r.input_tokens, r.output_tokens, r.start_event_id,
         s.path AS file, s.format,
         (SELECT count(*) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.severity = 'error') AS errors,
         (SELECT count(*) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.severity = 'warning') AS warnings,
         (SELECT count(*) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.severity = 'info') AS infos,
         (SELECT group_concat(DISTINCT f.kind) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key) AS kinds
  FROM runs r JOIN sources s ON s.id = r.source_id`;

interface ParentSqlRow {
  id: number;
  run_id: string;
  call_id: string | null;
}

/**
 * The run that started `run` (as buildReport.ts `parentOf` reads it): the one holding a tool result
 * that names it, else — for a run of a companion file no result names — the parent file's run
 * whose id prefixes it (`<session>/…`).
 */
function parentOf(db: Database.Database, scope: TraceScope, run: { run_id: string; source_id: number }): RunRow['parent'] {
  const named = prepared<[string], ParentSqlRow>(
    db,
    `SELECT r.id, r.run_id, e.call_id FROM events e JOIN runs r ON r.id = e.run_pk
     WHERE e.child_run_id = ? AND e.type = 'tool_result' AND r.source_id IN (${sourceList(scope)}) ORDER BY e.id LIMIT 1`,
  ).get(run.run_id);
  const parent =
    named ??
    prepared<[number, string], ParentSqlRow>(
      db,
      `SELECT r.id, r.run_id, NULL AS call_id FROM runs r JOIN sources s ON s.parent_source_id = r.source_id
       WHERE s.id = ? AND substr(?, 1, length(r.run_id) + 1) = r.run_id || '/' ORDER BY r.first_line LIMIT 1`,
    ).get(run.source_id, run.run_id);
  return parent === undefined ? null : { runPk: parent.id, runId: parent.run_id, callId: parent.call_id, ...startingCall(db, parent.id, parent.call_id) };
}

function toRunRow(db: Database.Database, scope: TraceScope, row: RunSqlRow): RunRow {
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
    startedAt: row.started_at,
    endedAt: row.ended_at,
    durationMs: millisBetween(row.started_at, row.ended_at),
    firstLine: row.first_line,
    lastLine: row.last_line,
    findings: { error: row.errors, warning: row.warnings, info: row.infos },
    findingKinds: row.kinds === null ? [] : (row.kinds.split(',').sort() as FindingKind[]),
    parent: parentOf(db, scope, row),
  };
}

/**
 * ORDER BY for a runs sort; ties (and the default) go by file, then position in the file. A run
 * without a duration sorts after those with one, either direction. liveRuns.ts sorts the same way.
 */
function runOrder(sort: ApiParsedRequest<'runs'>['sort'], descending: boolean): string {
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

interface SourcePathRow {
  id: number;
  path: string;
}

const runs: Query<'runs'> = (db, scope, request) => {
  const conditions = [`r.source_id IN (${sourceList(scope)})`];
  const params: Record<string, unknown> = { key: scope.optionsKey };
  if (request.status !== undefined) {
    conditions.push('r.status = @status');
    params['status'] = request.status;
  }
  if (request.findingKind !== undefined) {
    conditions.push('EXISTS (SELECT 1 FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.kind = @kind)');
    params['kind'] = request.findingKind;
  }
  if (request.text !== undefined && request.text !== '') {
    // The file is matched by its name, not its directories, which every run of the trace shares.
    const needle = request.text.toLowerCase();
    const matchingSources = prepared<[], SourcePathRow>(db, `SELECT id, path FROM sources WHERE id IN (${sourceList(scope)})`)
      .all()
      .filter((source) => basename(source.path).toLowerCase().includes(needle))
      .map((source) => source.id);
    const byFile = matchingSources.length > 0 ? ` OR r.source_id IN (${matchingSources.join(', ')})` : '';
    conditions.push(`(r.run_id LIKE @text ESCAPE '\\' OR r.status LIKE @text ESCAPE '\\' OR r.status_raw LIKE @text ESCAPE '\\'${byFile})`);
    params['text'] = containsPattern(request.text);
  }
  const where = conditions.join(' AND ');
  const total = prepared<[Record<string, unknown>], { total: number }>(db, `SELECT count(*) AS total FROM runs r WHERE ${where}`).get(params)?.total ?? 0;
  const rows = prepared<[Record<string, unknown>], RunSqlRow>(
    db,
    `${runSelect} WHERE ${where} ORDER BY ${runOrder(request.sort, request.descending)} LIMIT @limit OFFSET @offset`,
  ).all({ ...params, limit: request.limit, offset: request.offset });
  return { total, offset: request.offset, rows: rows.map((row) => toRunRow(db, scope, row)) };
};

function runInScope(db: Database.Database, scope: TraceScope, runPk: number): RunSqlRow {
  const row = prepared<[Record<string, unknown>], RunSqlRow>(db, `${runSelect} WHERE r.id = @runPk AND r.source_id IN (${sourceList(scope)})`).get({
    key: scope.optionsKey,
    runPk,
  });
  if (row === undefined) throw new ApiError('not_found', `no run ${runPk} in this trace`);
  return row;
}

// ---------------------------------------------------------------------------------------------
// One run: budgets, steps, children, config

type BudgetUse = ApiResponse<'run'>['budgets'][number];

interface RunCounters {
  executedToolCalls: number;
  costUsd: number;
  maxInputTokens: number | null;
}

/** What budget counters need beyond the run's row, counted the way shared/analysis/budgets.ts counts. */
function runCounters(db: Database.Database, runPk: number): RunCounters {
  // A tool call counts once it ran (started or answered by a result), and only if a response issued it.
  const executed = prepared<[number, number], { count: number }>(
    db,
    `SELECT count(DISTINCT e.call_id) AS count FROM events e
     WHERE e.run_pk = ? AND e.type IN ('tool_call_start', 'tool_result') AND e.call_id IN (SELECT call_id FROM tool_calls WHERE run_pk = ?)`,
  ).get(runPk, runPk);
  const responses = prepared<[number], { cost: number | null; max_input: number | null }>(
    db,
    `SELECT sum(cost_usd) AS cost, max(input_tokens) AS max_input FROM events
     WHERE run_pk = ? AND (type = 'model_response' OR (type = 'stream_fragment' AND outcome IS NOT NULL))`,
  ).get(runPk);
  return { executedToolCalls: executed?.count ?? 0, costUsd: responses?.cost ?? 0, maxInputTokens: responses?.max_input ?? null };
}

/** The limits a budget_exceeded finding of the run names (`details.limit`, normalized by the analysis). */
function budgetLimitsReported(db: Database.Database, scope: TraceScope, runPk: number): Set<string> {
  const rows = prepared<[number, string], { details_json: string | null }>(
    db,
    `SELECT details_json FROM findings WHERE run_pk = ? AND options_key = ? AND kind = 'budget_exceeded'`,
  ).all(runPk, scope.optionsKey);
  const limits = new Set<string>();
  for (const row of rows) {
    const limit = row.details_json === null ? undefined : (JSON.parse(row.details_json) as { limit?: unknown }).limit;
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
function budgetUses(db: Database.Database, scope: TraceScope, run: RunSqlRow): BudgetUse[] {
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
function runTask(db: Database.Database, runPk: number, startEventId: number | null): string | null {
  const contentColumns = 'id, source_id, line, byte_offset, byte_length, type, type_raw, call_id';
  const taskOf = (row: (ContentEventRow & { id: number }) | undefined): string | null => {
    if (row === undefined || row.byte_length > TASK_RECORD_MAX_BYTES) return null;
    const text = eventContent(db, row, [], { revealSecrets: false })?.text ?? null;
    return text === null || text.trim() === '' ? null : text;
  };
  const start = startEventId === null ? undefined : prepared<[number], ContentEventRow & { id: number }>(db, `SELECT ${contentColumns} FROM events WHERE id = ?`).get(startEventId);
  const fromStart = taskOf(start);
  if (fromStart !== null) return fromStart;
  // Ingest summarizes a record that carries a prompt's text; a run's first prompt is among its first records.
  const prompts = prepared<[number, number], ContentEventRow & { id: number }>(
    db,
    `SELECT ${contentColumns} FROM events WHERE run_pk = ? AND run_index < ? AND type = 'unknown' AND summary IS NOT NULL ORDER BY run_index LIMIT 20`,
  ).all(runPk, TASK_SEARCH_EVENTS);
  for (const prompt of prompts) {
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
function childrenOf(db: Database.Database, scope: TraceScope, run: RunSqlRow): ApiResponse<'run'>['children'] {
  const candidates = prepared<[Record<string, unknown>], { id: number; run_id: string; source_id: number }>(
    db,
    `SELECT r.id, r.run_id, r.source_id FROM runs r
     WHERE r.source_id IN (${sourceList(scope)}) AND (
       -- +run_pk: through the small index of results that started a run, not all of the run's events.
       r.run_id IN (SELECT child_run_id FROM events WHERE +run_pk = @runPk AND type = 'tool_result' AND child_run_id IS NOT NULL)
       OR (r.source_id IN (SELECT id FROM sources WHERE parent_source_id = @sourceId) AND substr(r.run_id, 1, length(@runId) + 1) = @runId || '/'))
     ORDER BY r.source_id, r.first_line`,
  ).all({ runPk: run.id, sourceId: run.source_id, runId: run.run_id });
  return candidates.flatMap((candidate) => {
    const parent = parentOf(db, scope, candidate);
    return parent?.runPk === run.id ? [{ runPk: candidate.id, runId: candidate.run_id, callId: parent.callId }] : [];
  });
}

const run: Query<'run'> = (db, scope, request) => {
  const row = runInScope(db, scope, request.runPk);
  return {
    run: toRunRow(db, scope, row),
    config: runConfig(row.config_json),
    task: runTask(db, row.id, row.start_event_id),
    endLimit: row.end_limit,
    budgets: budgetUses(db, scope, row),
    children: childrenOf(db, scope, row),
    subAgents: subAgentCalls(db, sourceList(scope), scope.optionsKey, row),
  };
};

// ---------------------------------------------------------------------------------------------
// Events

const eventSqlColumns = [
  'id', 'source_id', 'run_pk', 'line', 'byte_offset', 'byte_length', 'type', 'type_raw', 'step', 'ts', 'call_id', 'name', 'outcome',
  'finish_reason', 'input_tokens', 'output_tokens', 'latency_ms', 'result_ok', 'error_code', 'summary', 'run_index', 'visible_index', 'span_depth',
] as const satisfies readonly (keyof StoredEventRow)[];

/** The stored event columns a view lists. */
type EventSqlRow = Pick<StoredEventRow, (typeof eventSqlColumns)[number]>;

const eventColumns = eventSqlColumns.join(', ');

/**
 * The timeline lane of an event: what went into the model (the run's start, each model request,
 * and unknown events whose own type names a user/prompt/input message) is `input`; responses and
 * streamed fragments are `model`; a call being executed or refused is `call`; its result is
 * `result`; the run's end and any other event is `other`.
 */
export function laneOf(type: string, typeRaw: string): EventRow['lane'] {
  switch (type) {
    case 'run_start':
    case 'model_request':
      return 'input';
    case 'model_response':
    case 'stream_fragment':
      return 'model';
    case 'tool_call_start':
    case 'tool_call_not_executed':
      return 'call';
    case 'tool_result':
      return 'result';
    case 'unknown':
      return namesModelInput(typeRaw) ? 'input' : 'other';
    default:
      return 'other';
  }
}

function toEventRow(row: EventSqlRow, span: EventRow['span'] = null): EventRow {
  return {
    eventId: row.id,
    sourceId: row.source_id,
    line: row.line,
    type: row.type,
    typeRaw: row.type_raw,
    step: row.step,
    ts: row.ts,
    callId: row.call_id,
    name: row.name,
    outcome: row.outcome,
    finishReason: row.finish_reason,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    latencyMs: row.latency_ms,
    resultOk: row.result_ok === null ? null : row.result_ok === 1,
    errorCode: row.error_code,
    summary: row.summary,
    lane: laneOf(row.type, row.type_raw),
    spanDepth: row.span_depth,
    span,
  };
}

/** The run's events counted by their position index: one seek to its last entry. */
function eventCount(db: Database.Database, runPk: number, position: EventPosition): number {
  return (prepared<[number], { last: number | null }>(db, `SELECT max(${position}) AS last FROM events WHERE run_pk = ?`).get(runPk)?.last ?? -1) + 1;
}

/** Which position a run's event list is paged by: every event, or those that are not bookkeeping. */
type EventPosition = 'run_index' | 'visible_index';

const positionOf = (hideBookkeeping: boolean): EventPosition => (hideBookkeeping ? 'visible_index' : 'run_index');

const runEvents: Query<'runEvents'> = (db, scope, request) => {
  const row = runInScope(db, scope, request.runPk);
  // Both by a position index: the count from its last entry, the page by seeking to its first row
  // (keyset), so the millionth event costs what the first does, with bookkeeping hidden or not.
  const position = positionOf(request.hideBookkeeping);
  const all = eventCount(db, row.id, 'run_index');
  const listed = request.hideBookkeeping ? eventCount(db, row.id, 'visible_index') : all;
  // Collapsed spans hide ranges of positions: the page is read around them, one seek per range.
  const hidden = hiddenBySpans(db, row.id, position, request.collapsedSpans);
  const rows: EventSqlRow[] = [];
  let from = positionOfShown(request.offset, hidden);
  for (const range of [...hidden.filter(([, last]) => last >= from), undefined]) {
    const before = range === undefined ? Number.MAX_SAFE_INTEGER : range[0];
    rows.push(
      ...prepared<[number, number, number, number], EventSqlRow>(db, `SELECT ${eventColumns} FROM events WHERE run_pk = ? AND ${position} >= ? AND ${position} < ? ORDER BY ${position} LIMIT ?`).all(
        row.id,
        from,
        before,
        request.limit - rows.length,
      ),
    );
    if (range === undefined || rows.length >= request.limit) break;
    from = range[1] + 1;
  }
  const hiddenBookkeeping = all - (request.hideBookkeeping ? listed : eventCount(db, row.id, 'visible_index'));
  const spans = spanHeaders(db, rows, request.hideBookkeeping, request.collapsedSpans);
  return {
    total: listed - hiddenCount(hidden),
    offset: request.offset,
    rows: rows.map((event) => toEventRow(event, spans.get(event.id) ?? null)),
    calls: callsOfEvents(db, row.id, rows),
    hiddenBookkeeping,
  };
};

/** What the run's `collapsed` spans (by begin event id) hide from its list by `position`: merged position ranges. */
function hiddenBySpans(db: Database.Database, runPk: number, position: EventPosition, collapsed: readonly number[]): HiddenRange[] {
  if (collapsed.length === 0) return [];
  const spans = prepared<[number, string], { start: number | null; events: number; visible_events: number }>(
    db,
    `SELECT e.${position} AS start, s.events, s.visible_events FROM spans s JOIN events e ON e.id = s.begin_event_id WHERE s.run_pk = ? AND s.begin_event_id IN (SELECT value FROM json_each(?))`,
  ).all(runPk, JSON.stringify(collapsed));
  return mergeRanges(spans.flatMap(({ start, events, visible_events }) => (start === null ? [] : [[start + 1, start + (position === 'run_index' ? events : visible_events)] as const])));
}

/** The span each of `events` begins (its header row), by event id; counts are of the list asked for. */
function spanHeaders(db: Database.Database, events: readonly EventSqlRow[], hideBookkeeping: boolean, collapsed: readonly number[]): Map<number, NonNullable<EventRow['span']>> {
  const headers = new Map<number, NonNullable<EventRow['span']>>();
  if (!events.some((event) => event.type === 'unknown')) return headers;
  const rows = prepared<[string], { begin_event_id: number; name: string | null; type: string | null; events: number; visible_events: number; started_at: string | null; ended_at: string | null }>(
    db,
    'SELECT begin_event_id, name, type, events, visible_events, started_at, ended_at FROM spans WHERE begin_event_id IN (SELECT value FROM json_each(?))',
  ).all(JSON.stringify(events.filter((event) => event.type === 'unknown').map((event) => event.id)));
  for (const span of rows) {
    // A span with one time stamp (its other events untimed) has no measured length, not a length of 0.
    const duration = span.started_at === span.ended_at ? null : millisBetween(span.started_at, span.ended_at);
    headers.set(span.begin_event_id, {
      name: span.name,
      type: span.type,
      events: hideBookkeeping ? span.visible_events : span.events,
      durationMs: duration !== null && duration >= 0 ? duration : null,
      collapsed: collapsed.includes(span.begin_event_id),
    });
  }
  return headers;
}

/** The calls `events` issue (responses) or name by id (starts, results, not-executed marks). */
function callsOfEvents(db: Database.Database, runPk: number, events: readonly EventSqlRow[]): CallRow[] {
  const issuers = events.filter((event) => event.type === 'model_response' || event.type === 'stream_fragment').map((event) => event.id);
  const callIds = [...new Set(events.flatMap((event) => (event.call_id === null ? [] : [event.call_id])))];
  if (issuers.length === 0 && callIds.length === 0) return [];
  // Two index seeks (tool_calls by issuing event, by call id), not one OR that scans the run's calls.
  return prepared<[{ runPk: number; issuers: string; callIds: string }], CallSqlRow>(
    db,
    `${callSelect} WHERE c.id IN (
       SELECT id FROM tool_calls WHERE run_pk = @runPk AND event_id IN (SELECT value FROM json_each(@issuers))
       UNION SELECT id FROM tool_calls WHERE run_pk = @runPk AND call_id IN (SELECT value FROM json_each(@callIds)))
     ORDER BY c.id`,
  )
    .all({ runPk, issuers: JSON.stringify(issuers), callIds: JSON.stringify(callIds) })
    .map(toCallRow);
}

function eventInScope(db: Database.Database, scope: TraceScope, eventId: number): EventSqlRow {
  const row = prepared<[number], EventSqlRow>(db, `SELECT ${eventColumns} FROM events WHERE id = ? AND source_id IN (${sourceList(scope)})`).get(eventId);
  if (row === undefined) throw new ApiError('not_found', `no event ${eventId} in this trace`);
  return row;
}

const eventPosition: Query<'eventPosition'> = (db, scope, request) => {
  const event = eventInScope(db, scope, request.eventId);
  const shown = (position: EventPosition, at: number) => shownIndexOf(at, hiddenBySpans(db, event.run_pk, position, request.collapsedSpans));
  return { runPk: event.run_pk, index: shown('run_index', event.run_index), visibleIndex: event.visible_index === null ? null : shown('visible_index', event.visible_index) };
};

/** From the run's stored requests (analysis/requestAnalysis.ts), by line: one index seek, however long the run. */
const requestAt: Query<'requestAt'> = (db, scope, request) => {
  const event = eventInScope(db, scope, request.eventId);
  const nearest = (sql: string) =>
    prepared<[number, number], { event_id: number; line: number; reconstructed: number }>(db, `SELECT event_id, line, reconstructed FROM requests WHERE run_pk = ? AND ${sql} LIMIT 1`).get(
      event.run_pk,
      event.line,
    );
  const found = nearest('line <= ? ORDER BY line DESC') ?? nearest('line > ? ORDER BY line');
  return found === undefined ? null : { eventId: found.event_id, line: found.line, reconstructed: found.reconstructed === 1 };
};

/**
 * A step of a run and where it starts in the run's event list: the step itself (`at`), or the
 * nearest one after or before it — what stepping through a run of 250,000 steps asks, one at a time.
 */
const stepPosition: Query<'stepPosition'> = (db, scope, request) => {
  const run = runInScope(db, scope, request.runPk);
  const comparison = { at: '= @step ORDER BY step', after: '> @step ORDER BY step', before: '< @step ORDER BY step DESC' }[request.direction];
  const step = prepared<[{ runPk: number; step: number }], { step: number; first_line: number }>(
    db,
    `SELECT step, first_line FROM steps WHERE run_pk = @runPk AND step ${comparison} LIMIT 1`,
  ).get({ runPk: run.id, step: request.step });
  if (step === undefined) return null;
  // The step's first event: the run's first one (not bookkeeping, when that is hidden) at or after
  // the step's first line — on that line, of the step or later: a record that holds many steps (an
  // Inspect sample is one record) must not put every step at its first event.
  const position = positionOf(request.hideBookkeeping);
  const first = prepared<[{ sourceId: number; line: number; runPk: number; step: number }], { position: number }>(
    db,
    `SELECT ${position} AS position FROM events WHERE source_id = @sourceId AND line >= @line AND run_pk = @runPk AND ${position} IS NOT NULL
       AND (line > @line OR step >= @step) ORDER BY source_id, line, id LIMIT 1`,
  ).get({ sourceId: run.source_id, line: step.first_line, runPk: run.id, step: step.step });
  return first === undefined ? null : { step: step.step, index: shownIndexOf(first.position, hiddenBySpans(db, run.id, position, request.collapsedSpans)) };
};

// ---------------------------------------------------------------------------------------------
// Raw records

interface LineLocation {
  line: number;
  offset: number;
  length: number;
}

/** The longest prefix of `bytes` within `maxBytes` that does not split a UTF-8 character. */
function cutAtCharacter(bytes: Buffer, maxBytes: number): Buffer {
  if (bytes.length <= maxBytes) return bytes;
  let end = maxBytes;
  // Continuation bytes are 10xxxxxx: step back to the start of the character the cut falls in.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end);
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * The record of `location` as the file holds it now: its text (invalid UTF-8 replaced, a CRLF
 * line's `\r` left out, cut at `maxBytes`), or `stale` with no text when the file changed or is gone
 * since it was ingested.
 */
function rawRecord(db: Database.Database, sourceId: number, location: LineLocation, maxBytes: number): RawRecord {
  const file = prepared<[number], { path: string }>(db, 'SELECT path FROM sources WHERE id = ?').get(sourceId)?.path ?? '';
  const base = { file, line: location.line, offset: location.offset, length: location.length };
  let raw;
  try {
    // Read at the record's own offset, not by its line: a line may hold several records (a JSON
    // array, events separated by lone CRs). One byte past the limit: cutAtCharacter looks at it to
    // tell whether the limit splits a character.
    const reader = RawLineReader.open(db, sourceId);
    if (reader === null) throw new ApiError('not_found', `nothing was recorded for line ${location.line} of ${file}`);
    try {
      raw = reader.read(location.line, { byte_offset: location.offset, byte_length: location.length }, { maxBytes: maxBytes + 1 });
    } finally {
      reader.close();
    }
  } catch (error) {
    if (error instanceof SourceChangedError || error instanceof TraceFileError) return { ...base, text: '', truncated: false, stale: true };
    throw error;
  }
  const kept = cutAtCharacter(raw.bytes, maxBytes);
  const truncated = kept.length < raw.length;
  const text = utf8.decode(kept);
  return { ...base, text: !truncated && text.endsWith('\r') ? text.slice(0, -1) : text, truncated, stale: false };
}

const rawLine: Query<'rawLine'> = (db, scope, request) => {
  if (!scope.sourceIds.includes(request.sourceId)) throw new ApiError('not_found', `no source ${request.sourceId} in this trace`);
  const location = prepared<[number, number, number, number, number, number], { byte_offset: number; byte_length: number }>(
    db,
    `SELECT byte_offset, byte_length FROM events WHERE source_id = ? AND line = ?
     UNION ALL SELECT byte_offset, byte_length FROM parse_errors WHERE source_id = ? AND line = ?
     UNION ALL SELECT byte_offset, byte_length FROM absorbed_lines WHERE source_id = ? AND line = ?
     LIMIT 1`,
  ).get(request.sourceId, request.line, request.sourceId, request.line, request.sourceId, request.line);
  if (location === undefined) throw new ApiError('not_found', `nothing was recorded for line ${request.line} (a blank line, or past the end of the file)`);
  return rawRecord(db, request.sourceId, { line: request.line, offset: location.byte_offset, length: location.byte_length }, request.maxBytes);
};

// ---------------------------------------------------------------------------------------------
// Calls

interface CallSqlRow {
  run_pk: number;
  run_id: string;
  event_id: number;
  call_index: number;
  call_id: string;
  name: string;
  step: number | null;
  line: number;
  args_summary: string | null;
  args_error: string | null;
  state: CallRow['state'];
  answer_event_id: number | null;
  error_code: string | null;
  error_line: string | null;
  answer_type: string | null;
  answer_latency_ms: number | null;
}

/**
 * Each call with its run, how it was answered, and the result's error code and latency: the one
 * ingest stored on the result, from what the format records (docs/semantics.md §11).
 */
const callSelect = `
  SELECT c.run_pk, r.run_id, c.event_id, c.call_index, c.call_id, c.name, c.step, c.line, c.args_summary, c.args_error, c.state, c.answer_event_id,
         a.error_code, a.error_line, a.type AS answer_type, a.latency_ms AS answer_latency_ms
  FROM calls c JOIN runs r ON r.id = c.run_pk LEFT JOIN events a ON a.id = c.answer_event_id`;

/** A call's latency: its result's; a call marked not executed has none, nothing ran. */
const callLatencySql = "CASE WHEN a.type = 'tool_result' THEN a.latency_ms END";

/** Calls the user has to look at first: failed, never answered, not run; answered ones last. */
const callStateRankSql = "CASE c.state WHEN 'error' THEN 0 WHEN 'dangling' THEN 1 WHEN 'unexecuted' THEN 2 WHEN 'not_issued' THEN 3 WHEN 'pending' THEN 4 WHEN 'ok' THEN 5 ELSE 6 END";

/** ORDER BY for the Calls list; ties (and unknown values, always last) in log order. */
function callOrder(sort: CallSort, descending: boolean): string {
  const direction = descending ? 'DESC' : 'ASC';
  switch (sort) {
    case 'position':
      return `c.id ${direction}`;
    case 'step':
      return `c.step IS NULL, c.step ${direction}, c.id`;
    case 'tool':
      return `c.name ${direction}, c.id`;
    case 'state':
      return `${callStateRankSql} ${direction}, c.id`;
    case 'latency':
      return `${callLatencySql} IS NULL, ${callLatencySql} ${direction}, c.id`;
  }
}

function toCallRow(row: CallSqlRow): CallRow {
  return {
    runPk: row.run_pk,
    runId: row.run_id,
    eventId: row.event_id,
    callIndex: row.call_index,
    callId: row.call_id,
    name: row.name,
    step: row.step,
    line: row.line,
    argsSummary: row.args_summary,
    argsError: row.args_error,
    state: row.state,
    answerEventId: row.answer_event_id,
    errorCode: row.error_code,
    errorLine: row.error_line,
    // A call marked not executed has no latency: nothing ran.
    latencyMs: row.answer_type === 'tool_result' ? row.answer_latency_ms : null,
  };
}

const calls: Query<'calls'> = (db, scope, request) => {
  const scopeConditions = [`r.source_id IN (${sourceList(scope)})`];
  const params: Record<string, unknown> = {};
  if (request.runPk !== undefined) {
    scopeConditions.push('r.id = @runPk');
    params['runPk'] = request.runPk;
  }
  const conditions = [...scopeConditions];
  if (request.name !== undefined) {
    conditions.push('c.name = @name');
    params['name'] = request.name;
  }
  if (request.state !== undefined) {
    conditions.push('c.state = @state');
    params['state'] = request.state;
  }
  if (request.text !== undefined && request.text !== '') {
    conditions.push(
      "(c.name LIKE @text ESCAPE '\\' OR c.call_id LIKE @text ESCAPE '\\' OR c.args_summary LIKE @text ESCAPE '\\' OR c.args_error LIKE @text ESCAPE '\\' OR a.error_line LIKE @text ESCAPE '\\')",
    );
    params['text'] = containsPattern(request.text);
  }
  const where = conditions.join(' AND ');
  const total =
    prepared<[Record<string, unknown>], { total: number }>(db, `SELECT count(*) AS total FROM calls c JOIN runs r ON r.id = c.run_pk LEFT JOIN events a ON a.id = c.answer_event_id WHERE ${where}`).get(
      params,
    )?.total ?? 0;
  const rows = prepared<[Record<string, unknown>], CallSqlRow>(db, `${callSelect} WHERE ${where} ORDER BY ${callOrder(request.sort ?? 'position', request.descending ?? false)} LIMIT @limit OFFSET @offset`).all({
    ...params,
    limit: request.limit,
    offset: request.offset,
  });
  // The tool names of the whole scope (trace or run), for a filter that offers every tool.
  const names = prepared<[Record<string, unknown>], { name: string }>(
    db,
    `SELECT DISTINCT c.name FROM tool_calls c JOIN runs r ON r.id = c.run_pk WHERE ${scopeConditions.join(' AND ')} ORDER BY c.name`,
  )
    .all(request.runPk === undefined ? {} : { runPk: request.runPk })
    .map((row) => row.name);
  return { total, offset: request.offset, rows: rows.map(toCallRow), names };
};

const callLatency: Query<'callLatency'> = (db, scope, request) => {
  const conditions = [`r.source_id IN (${sourceList(scope)})`];
  if (request.runPk !== undefined) conditions.push('r.id = @runPk');
  const samples = prepared<[Record<string, unknown>], { name: string; latency_ms: number | null; run_pk: number }>(
    db,
    `SELECT c.name, c.run_pk, ${callLatencySql} AS latency_ms FROM calls c JOIN runs r ON r.id = c.run_pk LEFT JOIN events a ON a.id = c.answer_event_id WHERE ${conditions.join(' AND ')}`,
  ).all(request.runPk === undefined ? {} : { runPk: request.runPk });
  const tools = latencyByTool(samples.map((sample) => ({ name: sample.name, latencyMs: sample.latency_ms })));
  return { tools, runs: new Set(samples.map((sample) => sample.run_pk)).size };
};

// ---------------------------------------------------------------------------------------------
// Findings

interface FindingSqlRow {
  id: number;
  run_pk: number | null;
  run_id: string | null;
  kind: FindingKind;
  severity: Severity;
  step: number | null;
  call_id: string | null;
  line: number | null;
  event_id: number | null;
  message: string;
  details_json: string | null;
}

/** A finding with its run and the first event of the run on the finding's line. */
const findingSelect = `
  SELECT f.id, f.run_pk, r.run_id, f.kind, f.severity, f.step, f.call_id, f.line, f.message, f.details_json,
         (SELECT e.id FROM events e WHERE e.source_id = f.source_id AND e.line = f.line AND e.run_pk = f.run_pk ORDER BY e.id LIMIT 1) AS event_id
  FROM findings f LEFT JOIN runs r ON r.id = f.run_pk`;

function toFindingRow(row: FindingSqlRow): FindingRow {
  return {
    findingId: row.id,
    runPk: row.run_pk,
    runId: row.run_id,
    kind: row.kind,
    severity: row.severity,
    step: row.step,
    callId: row.call_id,
    line: row.line,
    eventId: row.event_id,
    message: row.message,
    details: row.details_json === null ? null : (JSON.parse(row.details_json) as Record<string, unknown>),
  };
}

const severityOrder = `CASE severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END`;

const findings: Query<'findings'> = (db, scope, request) => {
  const scopeConditions = [`f.source_id IN (${sourceList(scope)})`, 'f.options_key = @key'];
  const params: Record<string, unknown> = { key: scope.optionsKey };
  if (request.runPk !== undefined) {
    scopeConditions.push('f.run_pk = @runPk');
    params['runPk'] = request.runPk;
  }
  const conditions = [...scopeConditions];
  if (request.kind !== undefined) {
    conditions.push('f.kind = @kind');
    params['kind'] = request.kind;
  }
  if (request.severity !== undefined) {
    conditions.push('f.severity = @severity');
    params['severity'] = request.severity;
  }
  const where = conditions.join(' AND ');
  const scopeParams = request.runPk === undefined ? { key: scope.optionsKey } : { key: scope.optionsKey, runPk: request.runPk };
  const groups = prepared<[Record<string, unknown>], { kind: FindingKind; severity: Severity; count: number }>(
    db,
    `SELECT kind, severity, count(*) AS count FROM findings f WHERE ${scopeConditions.join(' AND ')} GROUP BY kind, severity ORDER BY ${severityOrder}, kind`,
  ).all(scopeParams);
  if (request.templates === true || request.templateKey !== undefined) return findingsByTemplate(db, where, params, request, groups);
  const total = prepared<[Record<string, unknown>], { total: number }>(db, `SELECT count(*) AS total FROM findings f WHERE ${where}`).get(params)?.total ?? 0;
  const rows = prepared<[Record<string, unknown>], FindingSqlRow>(
    db,
    `${findingSelect} WHERE ${where} ORDER BY ${findingOrder} LIMIT @limit OFFSET @offset`,
  ).all({ ...params, limit: request.limit, offset: request.offset });
  return { total, offset: request.offset, rows: rows.map(toFindingRow), groups };
};

const findingOrder = 'f.source_id, coalesce(r.first_line, f.line), f.id';

/**
 * Findings grouped by message template (shared/findingTemplate.ts), or one template's occurrences.
 * Templates are computed here, not in SQL: masking ids and numbers needs regular expressions, and
 * reading only ids and messages keeps it cheap for tens of thousands of findings.
 */
function findingsByTemplate(
  db: Database.Database,
  where: string,
  params: Record<string, unknown>,
  request: ApiParsedRequest<'findings'>,
  groups: ApiResponse<'findings'>['groups'],
): ApiResponse<'findings'> {
  const messages = prepared<[Record<string, unknown>], { id: number; message: string }>(
    db,
    `SELECT f.id, f.message FROM findings f LEFT JOIN runs r ON r.id = f.run_pk WHERE ${where} ORDER BY ${findingOrder}`,
  ).all(params);
  const byKey = new Map<string, { template: string; ids: number[] }>();
  for (const { id, message } of messages) {
    const template = findingTemplate(message);
    const key = findingTemplateKey(template);
    const group = byKey.get(key);
    if (group) group.ids.push(id);
    else byKey.set(key, { template, ids: [id] });
  }
  const rowsById = (ids: number[]): Map<number, FindingRow> => {
    if (ids.length === 0) return new Map();
    // The ids are integers read from the table a moment ago; their number varies, so the statement is not cached.
    const rows = db.prepare<[], FindingSqlRow>(`${findingSelect} WHERE f.id IN (${ids.map((id) => Number(id)).join(', ')})`).all();
    return new Map(rows.map((row) => [row.id, toFindingRow(row)]));
  };
  const end = request.offset + request.limit;
  if (request.templateKey !== undefined) {
    const ids = byKey.get(request.templateKey)?.ids ?? [];
    const page = ids.slice(request.offset, end);
    const found = rowsById(page);
    return { total: ids.length, offset: request.offset, rows: page.flatMap((id) => found.get(id) ?? []), groups };
  }
  // Most occurrences first; among equals, the one met first in the file.
  const ordered = [...byKey].sort(([, a], [, b]) => b.ids.length - a.ids.length);
  const page = ordered.slice(request.offset, end);
  const firsts = rowsById(page.map(([, group]) => group.ids[0]!));
  const templates = page.flatMap(([key, group]) => {
    const first = firsts.get(group.ids[0]!);
    return first === undefined ? [] : [{ key, template: group.template, count: group.ids.length, first }];
  });
  return { total: ordered.length, offset: request.offset, rows: [], groups, templates };
}

// ---------------------------------------------------------------------------------------------
// One event, in full

const event: Query<'event'> = (db, scope, request) => {
  const row = eventInScope(db, scope, request.eventId);
  const runId = prepared<[number], { run_id: string }>(db, 'SELECT run_id FROM runs WHERE id = ?').get(row.run_pk)?.run_id ?? '';
  // Lines folded into an event are the ones after its line, up to the next line that is an event,
  // that produced no event of their own (absorbed_lines).
  const nextEventLine =
    prepared<[number, number], { line: number | null }>(db, 'SELECT min(line) AS line FROM events WHERE source_id = ? AND line > ?').get(row.source_id, row.line)?.line ?? null;
  const absorbedLines = prepared<[number, number, number | null, number | null], { line: number }>(
    db,
    'SELECT line FROM absorbed_lines WHERE source_id = ? AND line > ? AND (? IS NULL OR line < ?) ORDER BY line',
  )
    .all(row.source_id, row.line, nextEventLine, nextEventLine)
    .map((absorbed) => absorbed.line);
  // With its run: tool_calls is indexed by (run_pk, event_id), not by event alone.
  const issued = prepared<[number, number], CallSqlRow>(db, `${callSelect} WHERE c.run_pk = ? AND c.event_id = ? ORDER BY c.call_index`).all(row.run_pk, row.id).map(toCallRow);
  const anchored = prepared<[number, number, string], FindingSqlRow>(
    db,
    `${findingSelect} WHERE f.run_pk = ? AND f.line = ? AND f.options_key = ? ORDER BY f.id`,
  )
    .all(row.run_pk, row.line, scope.optionsKey)
    .map(toFindingRow);
  return {
    event: toEventRow(row),
    runPk: row.run_pk,
    runId,
    record: rawRecord(db, row.source_id, { line: row.line, offset: row.byte_offset, length: row.byte_length }, request.maxBytes),
    absorbedLines,
    calls: issued,
    findings: anchored,
    content: eventContent(db, row, absorbedLines, { revealSecrets: request.revealSecrets }),
    answers:
      row.call_id === null
        ? null
        : (prepared<[number, string, number], CallSqlRow>(db, `${callSelect} WHERE c.run_pk = ? AND c.call_id = ? AND c.answer_event_id = ? LIMIT 1`)
            .all(row.run_pk, row.call_id, row.id)
            .map(toCallRow)[0] ?? null),
  };
};

// ---------------------------------------------------------------------------------------------
// Parse errors

const parseErrors: Query<'parseErrors'> = (db, scope, request) => {
  const where = `p.source_id IN (${sourceList(scope)})`;
  const total = prepared<[], { total: number }>(db, `SELECT count(*) AS total FROM parse_errors p WHERE ${where}`).get()?.total ?? 0;
  const rows = prepared<
    [number, number],
    { source_id: number; file: string; line: number; byte_offset: number; byte_length: number; message: string; excerpt: string; loaded: number }
  >(
    db,
    `SELECT p.source_id, s.path AS file, p.line, p.byte_offset, p.byte_length, p.message, p.excerpt, p.loaded
     FROM parse_errors p JOIN sources s ON s.id = p.source_id WHERE ${where} ORDER BY p.source_id, p.line LIMIT ? OFFSET ?`,
  ).all(request.limit, request.offset);
  return {
    total,
    offset: request.offset,
    rows: rows.map((row) => ({
      sourceId: row.source_id,
      file: row.file,
      line: row.line,
      offset: row.byte_offset,
      length: row.byte_length,
      message: row.message,
      excerpt: row.excerpt,
      loaded: row.loaded === 1,
    })),
  };
};

// ---------------------------------------------------------------------------------------------
// The trace as a whole

export interface SourceSummary {
  format: string;
  formatReason: string;
  /** Sizes and counts over the trace's files. */
  bytes: number;
  events: number;
  parseErrors: number;
}

/** The format and counts of an ingested trace: a reused ingest reports no progress, so its summary comes from here. */
export function sourceSummary(db: Database.Database, scope: TraceScope): SourceSummary {
  const main = prepared<[number], { format: string; format_reason: string }>(db, 'SELECT format, format_reason FROM sources WHERE id = ?').get(scope.sourceIds[0] ?? -1);
  if (main === undefined) throw new Error('the trace source is missing from its database');
  const totals = prepared<[], { bytes: number; events: number; parse_errors: number }>(
    db,
    `SELECT sum(bytes) AS bytes, sum(events) AS events, sum(parse_errors) AS parse_errors FROM sources WHERE id IN (${sourceList(scope)})`,
  ).get();
  return { format: main.format, formatReason: main.format_reason, bytes: totals?.bytes ?? 0, events: totals?.events ?? 0, parseErrors: totals?.parse_errors ?? 0 };
}

export const queries: { [M in QueryMethod]: Query<M> } = {
  runs,
  run,
  runEvents,
  eventPosition,
  stepPosition,
  requestAt,
  event,
  calls,
  callLatency,
  findings,
  parseErrors,
  rawLine,
  requestDiff: (db, scope, request) => requestDiff(db, scope.sourceIds, request),
  requests: (db, scope, request) => runRequests(db, runInScope(db, scope, request.runPk).id),
  runWaterfall: (db, scope, request) => runWaterfall(db, runInScope(db, scope, request.runPk).id),
  // A trace's database holds only the trace's own files, so the search needs no scope.
  search: (db, _scope, request) => searchEvents(db, request),
};
