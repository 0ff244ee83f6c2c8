/**
 * The findings table: the one place findings are written (the run analysis, request findings,
 * secret findings — each replaces its own under one analysis's options key) and read back, as the
 * report, the API's lists and groups, and a run's budget view see them.
 */
import type Database from 'better-sqlite3';
import type { FindingKind, Severity } from '../../../shared/report';
import { prepared } from './preparedStatements';
import { idList } from './sqlText';

/** A finding to store: one analysis's (`optionsKey`) result about a source, a run of it, or neither. */
export interface NewFindingSqlRow {
  source_id: number;
  options_key: string;
  run_pk: number | null;
  kind: string;
  severity: string;
  step: number | null;
  call_id: string | null;
  line: number | null;
  message: string;
  details_json: string | null;
}

export function insertFinding(db: Database.Database, row: NewFindingSqlRow): void {
  prepared<unknown[], unknown>(
    db,
    `INSERT INTO findings (source_id, options_key, run_pk, kind, severity, step, call_id, line, message, details_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(row.source_id, row.options_key, row.run_pk, row.kind, row.severity, row.step, row.call_id, row.line, row.message, row.details_json);
}

/** Removes the run's findings under one options key: of `kinds` only, when given. */
export function deleteRunFindings(db: Database.Database, runPk: number, optionsKey: string, kinds?: readonly string[]): void {
  if (kinds === undefined) prepared(db, 'DELETE FROM findings WHERE run_pk = ? AND options_key = ?').run(runPk, optionsKey);
  else
    prepared(db, `DELETE FROM findings WHERE run_pk = ? AND options_key = ? AND kind IN (${kinds.map((kind) => `'${kind}'`).join(', ')})`).run(
      runPk,
      optionsKey,
    );
}

/** Removes the source's findings of one kind under one options key. */
export function deleteSourceFindings(db: Database.Database, sourceId: number, optionsKey: string, kind: string): void {
  prepared(db, 'DELETE FROM findings WHERE source_id = ? AND options_key = ? AND kind = ?').run(sourceId, optionsKey, kind);
}

/** A finding as the report lists it. */
export interface ReportFindingSqlRow {
  run_id: string | null;
  kind: FindingKind;
  severity: Severity;
  step: number | null;
  call_id: string | null;
  line: number | null;
  message: string;
  details_json: string | null;
}

/** The source's findings under one options key, by the position of their run, else their line. */
export function reportFindings(db: Database.Database, sourceId: number, optionsKey: string): ReportFindingSqlRow[] {
  return db
    .prepare<[number, string], ReportFindingSqlRow>(
      `SELECT r.run_id, f.kind, f.severity, f.step, f.call_id, f.line, f.message, f.details_json
       FROM findings f LEFT JOIN runs r ON r.id = f.run_pk
       WHERE f.source_id = ? AND f.options_key = ? ORDER BY coalesce(r.first_line, f.line), f.id`,
    )
    .all(sourceId, optionsKey);
}

/** A finding as the API lists it: the report's columns with its id, its run's key and where it points. */
export interface FindingListSqlRow extends ReportFindingSqlRow {
  id: number;
  run_pk: number | null;
  /** The first event of the run on the finding's line. */
  event_id: number | null;
}

/** A finding with its run and the first event of the run on the finding's line. */
const findingListSelect = `
  SELECT f.id, f.run_pk, r.run_id, f.kind, f.severity, f.step, f.call_id, f.line, f.message, f.details_json,
         (SELECT e.id FROM events e WHERE e.source_id = f.source_id AND e.line = f.line AND e.run_pk = f.run_pk ORDER BY e.id LIMIT 1) AS event_id
  FROM findings f LEFT JOIN runs r ON r.id = f.run_pk`;

const findingOrder = 'f.source_id, coalesce(r.first_line, f.line), f.id';

const severityOrder = `CASE severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END`;

export interface FindingFilter {
  sourceIds: readonly number[];
  optionsKey: string;
  runPk?: number | undefined;
  kind?: string | undefined;
  severity?: string | undefined;
}

/** The filter's WHERE clause and its parameters; `scopeOnly` leaves out the kind and severity. */
function findingWhere(filter: FindingFilter, scopeOnly: boolean): { where: string; params: Record<string, unknown> } {
  const conditions = [`f.source_id IN (${idList(filter.sourceIds)})`, 'f.options_key = @key'];
  const params: Record<string, unknown> = { key: filter.optionsKey };
  if (filter.runPk !== undefined) {
    conditions.push('f.run_pk = @runPk');
    params['runPk'] = filter.runPk;
  }
  if (!scopeOnly && filter.kind !== undefined) {
    conditions.push('f.kind = @kind');
    params['kind'] = filter.kind;
  }
  if (!scopeOnly && filter.severity !== undefined) {
    conditions.push('f.severity = @severity');
    params['severity'] = filter.severity;
  }
  return { where: conditions.join(' AND '), params };
}

/** How many findings of each kind and severity the scope (trace or run, not kind or severity) holds: errors first. */
export function findingGroups(db: Database.Database, filter: FindingFilter): { kind: FindingKind; severity: Severity; count: number }[] {
  const { where, params } = findingWhere(filter, true);
  return prepared<[Record<string, unknown>], { kind: FindingKind; severity: Severity; count: number }>(
    db,
    `SELECT kind, severity, count(*) AS count FROM findings f WHERE ${where} GROUP BY kind, severity ORDER BY ${severityOrder}, kind`,
  ).all(params);
}

/** A page of the findings that pass the filter, in file order, and how many pass it. */
export function findingPage(
  db: Database.Database,
  filter: FindingFilter,
  page: { limit: number; offset: number },
): { total: number; rows: FindingListSqlRow[] } {
  const { where, params } = findingWhere(filter, false);
  const total = prepared<[Record<string, unknown>], { total: number }>(db, `SELECT count(*) AS total FROM findings f WHERE ${where}`).get(params)?.total ?? 0;
  const rows = prepared<[Record<string, unknown>], FindingListSqlRow>(
    db,
    `${findingListSelect} WHERE ${where} ORDER BY ${findingOrder} LIMIT @limit OFFSET @offset`,
  ).all({
    ...params,
    limit: page.limit,
    offset: page.offset,
  });
  return { total, rows };
}

/** The id and message of every finding that passes the filter, in file order. */
export function findingMessages(db: Database.Database, filter: FindingFilter): { id: number; message: string }[] {
  const { where, params } = findingWhere(filter, false);
  return prepared<[Record<string, unknown>], { id: number; message: string }>(
    db,
    `SELECT f.id, f.message FROM findings f LEFT JOIN runs r ON r.id = f.run_pk WHERE ${where} ORDER BY ${findingOrder}`,
  ).all(params);
}

/** The findings with these ids (integers read from the table), in no particular order. */
export function findingsWithIds(db: Database.Database, ids: readonly number[]): FindingListSqlRow[] {
  if (ids.length === 0) return [];
  // Their number varies, so the statement is not cached.
  return db.prepare<[], FindingListSqlRow>(`${findingListSelect} WHERE f.id IN (${ids.map((id) => Number(id)).join(', ')})`).all();
}

/** The run's findings under one options key anchored on `line`. */
export function findingsOnLine(db: Database.Database, runPk: number, line: number, optionsKey: string): FindingListSqlRow[] {
  return prepared<[number, number, string], FindingListSqlRow>(
    db,
    `${findingListSelect} WHERE f.run_pk = ? AND f.line = ? AND f.options_key = ? ORDER BY f.id`,
  ).all(runPk, line, optionsKey);
}

/** The `details_json` of the run's budget_exceeded findings under one options key. */
export function budgetFindingDetails(db: Database.Database, runPk: number, optionsKey: string): (string | null)[] {
  return prepared<[number, string], { details_json: string | null }>(
    db,
    `SELECT details_json FROM findings WHERE run_pk = ? AND options_key = ? AND kind = 'budget_exceeded'`,
  )
    .all(runPk, optionsKey)
    .map((row) => row.details_json);
}
