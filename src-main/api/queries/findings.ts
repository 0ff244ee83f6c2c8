/** The findings list, grouped by kind and severity or by message template (`findings`), and the API row of a stored finding. */
import type { ApiParsedRequest, ApiResponse, FindingRow } from '../../../shared/api';
import { findingTemplate, findingTemplateKey } from '../../../shared/findingTemplate';
import { findingGroups, findingMessages, findingPage, findingsWithIds, type FindingFilter, type FindingListSqlRow } from '../../engine';
import type { Query } from './scope';

export function toFindingRow(row: FindingListSqlRow): FindingRow {
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

export const findings: Query<'findings'> = (db, scope, request) => {
  const filter: FindingFilter = {
    sourceIds: scope.sourceIds,
    optionsKey: scope.optionsKey,
    runPk: request.runPk,
    kind: request.kind,
    severity: request.severity,
  };
  const groups = findingGroups(db, filter);
  if (request.templates === true || request.templateKey !== undefined) return findingsByTemplate(db, filter, request, groups);
  const page = findingPage(db, filter, request);
  return { total: page.total, offset: request.offset, rows: page.rows.map(toFindingRow), groups };
};

/**
 * Findings grouped by message template (shared/findingTemplate.ts), or one template's occurrences.
 * Templates are computed here, not in SQL: masking ids and numbers needs regular expressions, and
 * reading only ids and messages keeps it cheap for tens of thousands of findings.
 */
function findingsByTemplate(
  db: Parameters<Query<'findings'>>[0],
  filter: FindingFilter,
  request: ApiParsedRequest<'findings'>,
  groups: ApiResponse<'findings'>['groups'],
): ApiResponse<'findings'> {
  const byKey = new Map<string, { template: string; ids: number[] }>();
  for (const { id, message } of findingMessages(db, filter)) {
    const template = findingTemplate(message);
    const key = findingTemplateKey(template);
    const group = byKey.get(key);
    if (group) group.ids.push(id);
    else byKey.set(key, { template, ids: [id] });
  }
  const rowsById = (ids: number[]): Map<number, FindingRow> => new Map(findingsWithIds(db, ids).map((row) => [row.id, toFindingRow(row)]));
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
