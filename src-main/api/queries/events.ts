/**
 * A run's events as the timeline pages them (`runEvents`), where an event or a step is in that
 * list (`eventPosition`, `stepPosition`), the request nearest an event (`requestAt`), and one event
 * in full (`event`).
 */
import type Database from 'better-sqlite3';
import type { ApiResponse, CallRow, EventRow } from '../../../shared/api';
import { responseCost } from '../../../shared/cost/runCost';
import { pageOffsetsAround } from '../../../shared/htmlReport/reportSnapshot';
import { namesModelInput } from '../../../shared/trace/canonicalEvents';
import { millisBetween } from '../../../shared/trace/timestamps';
import { hiddenCount, mergeRanges, positionOfShown, shownIndexOf, type HiddenRange } from '../../../shared/trace/spanTree';
import {
  absorbedLinesAfter,
  callAnsweredBy,
  callsIssuedBy,
  callsIssuedByOrNamed,
  eventCount,
  eventInSources,
  eventsBetween,
  findingsOnLine,
  firstPositionOfStep,
  isResponseEvent,
  nearestStep,
  requestNearEvent,
  runIdOf,
  spanExtents,
  spansBegunBy,
  type EventListSqlRow,
  type EventPosition,
} from '../../engine';
import { ApiError } from '../apiError';
import { eventContent } from '../eventContent';
import { toCallRow } from './calls';
import { toFindingRow } from './findings';
import { rawRecord } from './rawRecords';
import { runInScope } from './runs';
import type { Query, TraceScope } from './scope';

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

function toEventRow(row: EventListSqlRow, scope: TraceScope, span: EventRow['span'] = null): EventRow {
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
    cost: isResponseEvent(row) ? responseCost(row, scope.userPrices) : null,
    latencyMs: row.latency_ms,
    resultOk: row.result_ok === null ? null : row.result_ok === 1,
    errorCode: row.error_code,
    summary: row.summary,
    lane: laneOf(row.type, row.type_raw),
    spanDepth: row.span_depth,
    span,
  };
}

const positionOf = (hideBookkeeping: boolean): EventPosition => (hideBookkeeping ? 'visible_index' : 'run_index');

export const runEvents: Query<'runEvents'> = (db, scope, request) => {
  const row = runInScope(db, scope, request.runPk);
  // Both by a position index: the count from its last entry, the page by seeking to its first row
  // (keyset), so the millionth event costs what the first does, with bookkeeping hidden or not.
  const position = positionOf(request.hideBookkeeping);
  const all = eventCount(db, row.id, 'run_index');
  const listed = request.hideBookkeeping ? eventCount(db, row.id, 'visible_index') : all;
  // Collapsed spans hide ranges of positions: the page is read around them, one seek per range.
  const hidden = hiddenBySpans(db, row.id, position, request.collapsedSpans);
  const rows: EventListSqlRow[] = [];
  let from = positionOfShown(request.offset, hidden);
  for (const range of [...hidden.filter(([, last]) => last >= from), undefined]) {
    const before = range === undefined ? Number.MAX_SAFE_INTEGER : range[0];
    rows.push(...eventsBetween(db, row.id, position, from, before, request.limit - rows.length));
    if (range === undefined || rows.length >= request.limit) break;
    from = range[1] + 1;
  }
  const hiddenBookkeeping = all - (request.hideBookkeeping ? listed : eventCount(db, row.id, 'visible_index'));
  const spans = spanHeaders(db, rows, request.hideBookkeeping, request.collapsedSpans);
  return {
    total: listed - hiddenCount(hidden),
    offset: request.offset,
    rows: rows.map((event) => toEventRow(event, scope, spans.get(event.id) ?? null)),
    calls: callsOfEvents(db, row.id, rows),
    hiddenBookkeeping,
  };
};

/** What the run's `collapsed` spans (by begin event id) hide from its list by `position`: merged position ranges. */
function hiddenBySpans(db: Database.Database, runPk: number, position: EventPosition, collapsed: readonly number[]): HiddenRange[] {
  if (collapsed.length === 0) return [];
  const spans = spanExtents(db, runPk, position, collapsed);
  return mergeRanges(
    spans.flatMap(({ start, events, visible_events }) =>
      start === null ? [] : [[start + 1, start + (position === 'run_index' ? events : visible_events)] as const],
    ),
  );
}

/** The span each of `events` begins (its header row), by event id; counts are of the list asked for. */
function spanHeaders(
  db: Database.Database,
  events: readonly EventListSqlRow[],
  hideBookkeeping: boolean,
  collapsed: readonly number[],
): Map<number, NonNullable<EventRow['span']>> {
  const headers = new Map<number, NonNullable<EventRow['span']>>();
  if (!events.some((event) => event.type === 'unknown')) return headers;
  for (const span of spansBegunBy(
    db,
    events.filter((event) => event.type === 'unknown').map((event) => event.id),
  )) {
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
function callsOfEvents(db: Database.Database, runPk: number, events: readonly EventListSqlRow[]): CallRow[] {
  const issuers = events.filter((event) => event.type === 'model_response' || event.type === 'stream_fragment').map((event) => event.id);
  const callIds = [...new Set(events.flatMap((event) => (event.call_id === null ? [] : [event.call_id])))];
  if (issuers.length === 0 && callIds.length === 0) return [];
  return callsIssuedByOrNamed(db, runPk, issuers, callIds).map(toCallRow);
}

function eventInScope(db: Database.Database, scope: TraceScope, eventId: number): EventListSqlRow {
  const row = eventInSources(db, scope.sourceIds, eventId);
  if (row === undefined) throw new ApiError('not_found', `no event ${eventId} in this trace`);
  return row;
}

/**
 * The pages of the run's list (`runEvents`' answers) that hold the rows within `asked.around` of
 * `index`: what a jump to `index` shows, sent with the position so that the jump is one round trip.
 */
function pagesAround(
  db: Database.Database,
  scope: TraceScope,
  list: { traceId: string; runPk: number; hideBookkeeping: boolean; collapsedSpans: number[] },
  index: number,
  asked: { pageSize: number; around: number },
): ApiResponse<'runEvents'>[] {
  const pages: ApiResponse<'runEvents'>[] = [];
  for (const offset of pageOffsetsAround(index, asked)) {
    const answer = runEvents(db, scope, { ...list, offset, limit: asked.pageSize });
    if (answer.rows.length === 0) break;
    pages.push(answer);
  }
  return pages;
}

export const eventPosition: Query<'eventPosition'> = (db, scope, request) => {
  const event = eventInScope(db, scope, request.eventId);
  const shown = (position: EventPosition, at: number) => shownIndexOf(at, hiddenBySpans(db, event.run_pk, position, request.collapsedSpans));
  const index = shown('run_index', event.run_index);
  const visibleIndex = event.visible_index === null ? null : shown('visible_index', event.visible_index);
  const asked = request.pages;
  const listed = asked?.hideBookkeeping ? visibleIndex : index;
  if (asked === undefined || listed === null) return { runPk: event.run_pk, index, visibleIndex };
  const list = { traceId: request.traceId, runPk: event.run_pk, hideBookkeeping: asked.hideBookkeeping, collapsedSpans: request.collapsedSpans };
  return { runPk: event.run_pk, index, visibleIndex, pages: pagesAround(db, scope, list, listed, asked) };
};

/** From the run's stored requests (engine/derive/requestAnalysis.ts), by position: line, then event. */
export const requestAt: Query<'requestAt'> = (db, scope, request) => {
  const event = eventInScope(db, scope, request.eventId);
  const found = requestNearEvent(db, event.run_pk, { line: event.line, eventId: event.id });
  return found === undefined ? null : { eventId: found.event_id, line: found.line, reconstructed: found.reconstructed === 1 };
};

/**
 * A step of a run and where it starts in the run's event list: the step itself (`at`), or the
 * nearest one after or before it — what stepping through a run of 250,000 steps asks, one at a time.
 */
export const stepPosition: Query<'stepPosition'> = (db, scope, request) => {
  const run = runInScope(db, scope, request.runPk);
  const step = nearestStep(db, run.id, request.step, request.direction);
  if (step === undefined) return null;
  const position = positionOf(request.hideBookkeeping);
  const first = firstPositionOfStep(db, position, { sourceId: run.source_id, line: step.first_line, runPk: run.id, step: step.step });
  if (first === undefined) return null;
  const index = shownIndexOf(first, hiddenBySpans(db, run.id, position, request.collapsedSpans));
  if (request.pages === undefined) return { step: step.step, index };
  const list = { traceId: request.traceId, runPk: run.id, hideBookkeeping: request.hideBookkeeping, collapsedSpans: request.collapsedSpans };
  return { step: step.step, index, pages: pagesAround(db, scope, list, index, request.pages) };
};

export const event: Query<'event'> = (db, scope, request) => {
  const row = eventInScope(db, scope, request.eventId);
  const absorbedLines = absorbedLinesAfter(db, row.source_id, row.line);
  const answered = row.call_id === null ? undefined : callAnsweredBy(db, row.run_pk, row.call_id, row.id);
  return {
    event: toEventRow(row, scope),
    runPk: row.run_pk,
    runId: runIdOf(db, row.run_pk),
    record: rawRecord(db, row.source_id, { line: row.line, offset: row.byte_offset, length: row.byte_length }, request.maxBytes),
    absorbedLines,
    calls: callsIssuedBy(db, row.run_pk, row.id).map(toCallRow),
    findings: findingsOnLine(db, row.run_pk, row.line, scope.optionsKey).map(toFindingRow),
    content: eventContent(db, row, absorbedLines, { revealSecrets: request.revealSecrets }),
    answers: answered === undefined ? null : toCallRow(answered),
  };
};
