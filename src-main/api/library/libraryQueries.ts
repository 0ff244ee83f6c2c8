/**
 * The library's reads (docs/semantics.md §18): its runs under a filter, paged and sorted; what
 * they add up to; their failure signatures. Every view of the start page reads the same filter,
 * turned into one SQL condition here, so that a count and the rows it counts never disagree.
 * What is computed from the rows is libraryAssembly.ts, shared with the ClickHouse library.
 */
import type Database from 'better-sqlite3';
import type { ApiParsedRequest, ApiResponse } from '../../../shared/api';
import type { LibraryAggregates, LibraryFilter, LibrarySort } from '../../../shared/library/libraryApi';
import type { FindingKind } from '../../../shared/report';
import type { RunStatus } from '../../../shared/trace/runStatus';
import { assembleAggregates, toLibraryRun, toLibrarySignature, type AggregateParts, type LibraryRunRecord, type SignatureGroup } from './libraryAssembly';

interface Condition {
  sql: string;
  parameters: Record<string, string>;
}

/** The filter as a condition on `runs r`; `except` leaves one field out (a facet counts under the others). */
function filterCondition(filter: LibraryFilter, except?: keyof LibraryFilter): Condition {
  const clauses: string[] = [];
  const parameters: Record<string, string> = {};
  const use = <K extends keyof LibraryFilter>(field: K): LibraryFilter[K] | undefined => (field === except ? undefined : filter[field]);
  const status = use('status');
  if (status !== undefined) {
    clauses.push('r.status = @status');
    parameters['status'] = status;
  }
  const kind = use('findingKind');
  if (kind !== undefined) {
    clauses.push('EXISTS (SELECT 1 FROM findings f WHERE f.run_row = r.id AND f.kind = @kind)');
    parameters['kind'] = kind;
  }
  const format = use('format');
  if (format !== undefined) {
    clauses.push('r.format = @format');
    parameters['format'] = format;
  }
  const model = use('model');
  if (model !== undefined) {
    clauses.push('EXISTS (SELECT 1 FROM run_models m WHERE m.run_row = r.id AND m.model = @model)');
    parameters['model'] = model;
  }
  const directory = use('directory');
  if (directory !== undefined) {
    // The directory itself and any under it; a prefix compare, not LIKE, so `_` and `%` in a path are plain.
    const withSlash = directory.endsWith('/') ? directory : `${directory}/`;
    clauses.push("(r.directory = @directory OR substr(r.directory || '/', 1, length(@directoryPrefix)) = @directoryPrefix)");
    parameters['directory'] = directory.replace(/\/+$/, '') || '/';
    parameters['directoryPrefix'] = withSlash;
  }
  const from = use('from');
  if (from !== undefined) {
    clauses.push('r.started_day >= @from');
    parameters['from'] = from;
  }
  const to = use('to');
  if (to !== undefined) {
    clauses.push('r.started_day <= @to');
    parameters['to'] = to;
  }
  const text = use('text');
  if (text !== undefined) {
    clauses.push(
      "(instr(lower(r.run_id), @text) > 0 OR instr(lower(r.file), @text) > 0 OR instr(lower(ifnull(r.task, '')), @text) > 0 OR instr(lower(r.models), @text) > 0)",
    );
    parameters['text'] = text.toLowerCase();
  }
  const signature = use('signature');
  if (signature !== undefined) {
    clauses.push('EXISTS (SELECT 1 FROM findings f WHERE f.run_row = r.id AND f.signature_key = @signature)');
    parameters['signature'] = signature;
  }
  return { sql: clauses.length === 0 ? '1' : clauses.join(' AND '), parameters };
}

const sortColumns: Record<LibrarySort, string> = {
  started: 'r.started_at',
  file: 'r.file',
  status: 'r.status',
  steps: 'r.steps',
  tool_calls: 'r.tool_calls',
  findings: '(r.errors * 1000000 + r.warnings * 1000 + r.infos)',
  input_tokens: 'r.input_tokens',
  output_tokens: 'r.output_tokens',
  cost: 'r.cost_usd',
  duration: 'r.duration_ms',
};

/** A run as SQLite holds it: its lists as JSON text. */
type LibraryRunSqlRow = Omit<LibraryRunRecord, 'models' | 'finding_kinds'> & { models: string; finding_kinds: string };

function toRunRecord(row: LibraryRunSqlRow): LibraryRunRecord {
  return { ...row, models: JSON.parse(row.models) as string[], finding_kinds: JSON.parse(row.finding_kinds) as FindingKind[] };
}

export function libraryRuns(db: Database.Database, request: ApiParsedRequest<'libraryRuns'>): ApiResponse<'libraryRuns'> {
  const condition = filterCondition(request.filter);
  const total = db.prepare<Record<string, string>, number>(`SELECT count(*) FROM runs r WHERE ${condition.sql}`).pluck().get(condition.parameters) ?? 0;
  const direction = request.descending ? 'DESC' : 'ASC';
  // Runs without the measure sort last either way; ties in file order.
  const column = sortColumns[request.sort];
  const rows = db
    .prepare<Record<string, string | number>, LibraryRunSqlRow>(
      `SELECT r.*, f.trace_id, f.path AS trace_path FROM runs r JOIN files f ON f.id = r.file_id
       WHERE ${condition.sql}
       ORDER BY ${column} IS NULL, ${column} ${direction}, r.file, r.run_pk
       LIMIT @limit OFFSET @offset`,
    )
    .all({ ...condition.parameters, limit: request.limit, offset: request.offset });
  return { total, offset: request.offset, rows: rows.map((row) => toLibraryRun(toRunRecord(row))) };
}

function facet(db: Database.Database, filter: LibraryFilter, field: 'format' | 'model' | 'directory'): LibraryAggregates['facets']['formats'] {
  const condition = filterCondition(filter, field);
  const sql =
    field === 'model'
      ? `SELECT m.model AS value, count(DISTINCT r.id) AS runs FROM runs r JOIN run_models m ON m.run_row = r.id WHERE ${condition.sql} GROUP BY m.model`
      : `SELECT r.${field} AS value, count(*) AS runs FROM runs r WHERE ${condition.sql} GROUP BY r.${field}`;
  return db.prepare<Record<string, string>, { value: string; runs: number }>(`${sql} ORDER BY runs DESC, value LIMIT 200`).all(condition.parameters);
}

/**
 * Each tool's calls, errors and latency percentiles over the filtered runs, in SQL: a library of
 * thousands of traces has hundreds of thousands of calls, which are not carried into JavaScript.
 * Percentiles are nearest-rank (a latency some call really had), as everywhere (§11): the value at
 * rank ⌈p·n⌉ of the tool's n timed calls.
 */
function toolTallies(db: Database.Database, where: string, parameters: Record<string, string>): Pick<AggregateParts, 'toolCalls' | 'toolLatencies'> {
  const toolCalls = db
    .prepare<Record<string, string>, { tool: string; calls: number; errors: number }>(
      `SELECT c.tool, count(*) AS calls, sum(c.state = 'error') AS errors FROM calls c JOIN runs r ON r.id = c.run_row ${where} GROUP BY c.tool`,
    )
    .all(parameters);
  const toolLatencies = db
    .prepare<Record<string, string>, { tool: string; p50: number | null; p95: number | null }>(
      `SELECT tool, max(CASE WHEN n = (total * 50 + 99) / 100 THEN latency_ms END) AS p50, max(CASE WHEN n = (total * 95 + 99) / 100 THEN latency_ms END) AS p95
       FROM (SELECT c.tool, c.latency_ms, row_number() OVER (PARTITION BY c.tool ORDER BY c.latency_ms) AS n, count(*) OVER (PARTITION BY c.tool) AS total
             FROM calls c JOIN runs r ON r.id = c.run_row ${where} AND c.latency_ms IS NOT NULL)
       GROUP BY tool`,
    )
    .all(parameters);
  return { toolCalls, toolLatencies };
}

/** How many times the library's rows have changed (libraryWriter.ts). */
function generation(db: Database.Database): string {
  return db.prepare<[], string>("SELECT value FROM meta WHERE key = 'generation'").pluck().get() ?? '0';
}

/**
 * The unfiltered aggregates as last stored for the current rows, else computed and (when `db` can be
 * written: the library worker) stored: what the start page asks first, answered without a scan of
 * every call when nothing changed since.
 */
export function storedAggregates(db: Database.Database): ApiResponse<'libraryAggregates'> {
  const current = generation(db);
  const stored = db.prepare<[], string>("SELECT value FROM meta WHERE key = 'aggregates'").pluck().get();
  if (stored !== undefined) {
    const snapshot = JSON.parse(stored) as { generation: string; aggregates: ApiResponse<'libraryAggregates'> };
    if (snapshot.generation === current) return snapshot.aggregates;
  }
  const aggregates = computeAggregates(db, {});
  if (!db.readonly) db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('aggregates', ?)").run(JSON.stringify({ generation: current, aggregates }));
  return aggregates;
}

export function libraryAggregates(db: Database.Database, request: ApiParsedRequest<'libraryAggregates'>): ApiResponse<'libraryAggregates'> {
  return isUnfiltered(request.filter) ? storedAggregates(db) : computeAggregates(db, request.filter);
}

function isUnfiltered(filter: LibraryFilter): boolean {
  return Object.values(filter).every((value) => value === undefined);
}

function computeAggregates(db: Database.Database, filter: LibraryFilter): ApiResponse<'libraryAggregates'> {
  const condition = filterCondition(filter);
  const where = `WHERE ${condition.sql}`;
  const parameters = condition.parameters;
  const measures = db
    .prepare<
      Record<string, string>,
      {
        input_tokens: number | null;
        output_tokens: number | null;
        cost_usd: number | null;
        wasted_usd: number | null;
        duration_ms: number | null;
        steps: number;
      }
    >(`SELECT r.input_tokens, r.output_tokens, r.cost_usd, r.wasted_usd, r.duration_ms, r.steps FROM runs r ${where}`)
    .all(parameters);
  const runsByStatusAndDay = db
    .prepare<Record<string, string>, { status: RunStatus; day: string | null; runs: number }>(
      `SELECT r.status, r.started_day AS day, count(*) AS runs FROM runs r ${where} GROUP BY r.status, r.started_day`,
    )
    .all(parameters);
  const traces = db.prepare<Record<string, string>, number>(`SELECT count(DISTINCT r.file_id) FROM runs r ${where}`).pluck().get(parameters) ?? 0;
  const findingsByKind = db
    .prepare<Record<string, string>, { kind: FindingKind; findings: number; runs: number }>(
      `SELECT f.kind, count(*) AS findings, count(DISTINCT f.run_row) AS runs FROM findings f JOIN runs r ON r.id = f.run_row ${where}
       GROUP BY f.kind ORDER BY runs DESC, findings DESC, f.kind`,
    )
    .all(parameters);
  return assembleAggregates({
    runsByStatusAndDay,
    traces,
    measures: {
      inputTokens: measures.map((run) => run.input_tokens),
      outputTokens: measures.map((run) => run.output_tokens),
      costUsd: measures.map((run) => run.cost_usd),
      wastedUsd: measures.map((run) => run.wasted_usd),
      durationMs: measures.map((run) => run.duration_ms),
      steps: measures.map((run) => run.steps),
    },
    findingsByKind,
    ...toolTallies(db, where, parameters),
    facets: { formats: facet(db, filter, 'format'), models: facet(db, filter, 'model'), directories: facet(db, filter, 'directory') },
  });
}

export function librarySignatures(db: Database.Database, request: ApiParsedRequest<'librarySignatures'>): ApiResponse<'librarySignatures'> {
  const condition = filterCondition(request.filter);
  const where = `WHERE ${condition.sql}`;
  const totalRuns = db.prepare<Record<string, string>, number>(`SELECT count(*) FROM runs r ${where}`).pluck().get(condition.parameters) ?? 0;
  const groups = db
    .prepare<Record<string, string | number>, SignatureGroup & { example: number }>(
      `SELECT f.signature_key AS key, f.kind, f.tool, f.signature_text AS text, count(*) AS findings, count(DISTINCT f.run_row) AS runs,
              min(r.started_at) AS first_seen, max(r.started_at) AS last_seen, min(f.id) AS example
       FROM findings f JOIN runs r ON r.id = f.run_row ${where}
       GROUP BY f.signature_key ORDER BY runs DESC, findings DESC, f.signature_key`,
    )
    .all(condition.parameters);
  const example = db.prepare<[number], { trace_id: string; run_pk: number; run_id: string; file: string; line: number | null }>(
    'SELECT fl.trace_id, r.run_pk, r.run_id, r.file, f.line FROM findings f JOIN runs r ON r.id = f.run_row JOIN files fl ON fl.id = r.file_id WHERE f.id = ?',
  );
  const listed = groups.slice(request.offset, request.offset + request.limit);
  return {
    total: groups.length,
    offset: request.offset,
    rows: listed.flatMap((group) => {
      const first = example.get(group.example);
      if (first === undefined) return [];
      return [toLibrarySignature(group, totalRuns, { traceId: first.trace_id, runPk: first.run_pk, runId: first.run_id, file: first.file, line: first.line })];
    }),
  };
}

/** The trace file the library knows by this id; undefined when it knows none. */
export function libraryTracePath(db: Database.Database, traceId: string): string | undefined {
  return db.prepare<[string], string>("SELECT path FROM files WHERE trace_id = ? AND state = 'indexed'").pluck().get(traceId);
}

/** The indexed traces, in path order, with the databases a search across the library reads. */
export interface LibraryTrace {
  traceId: string;
  path: string;
  dbPath: string;
  sourceIds: number[];
  /** Its search terms' Bloom filter (shared/library/termFilter.ts); null: always searched. */
  termFilter: Uint8Array | null;
}

export function libraryTraces(db: Database.Database): LibraryTrace[] {
  return db
    .prepare<[], { trace_id: string; path: string; db_path: string; source_ids: string; term_filter: Buffer | null }>(
      "SELECT trace_id, path, db_path, source_ids, term_filter FROM files WHERE state = 'indexed' AND db_path IS NOT NULL ORDER BY path",
    )
    .all()
    .map((row) => ({
      traceId: row.trace_id,
      path: row.path,
      dbPath: row.db_path,
      sourceIds: JSON.parse(row.source_ids) as number[],
      termFilter: row.term_filter === null ? null : new Uint8Array(row.term_filter.buffer, row.term_filter.byteOffset, row.term_filter.byteLength),
    }));
}
