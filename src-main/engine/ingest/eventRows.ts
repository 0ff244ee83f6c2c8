/**
 * An event's row in the store: the columns every event has, and those a run start or a tool result
 * fills from its own fields (with what each changes in its run). The recorder (eventRecorder.ts)
 * fills the rest, which needs more than the event: responses, streams, run ends.
 */
import type { MappedEvent, ResultDigest } from '../adapters/formatAdapter';
import { idText, isErrorResult, type EventOf } from '../../../shared/trace/canonicalEvents';
import { isBookkeeping } from '../../../shared/trace/bookkeeping';
import { errorLineOf } from '../../../shared/trace/errorLine';
import type { EventSqlRow } from '../store/traceWriter';
import { truncate } from './fieldValues';
import type { RunState } from './runState';

/** The event's row with the columns every type has; the type-specific ones start null (see EventRecorder.acceptByType). */
export function newEventRow(
  id: number,
  sourceId: number,
  format: string,
  run: RunState,
  { event, typeRaw, line }: MappedEvent,
  step: number,
  ts: string | null,
): EventSqlRow {
  return {
    id,
    source_id: sourceId,
    run_pk: run.pk,
    line: line.lineNumber,
    byte_offset: line.offset,
    byte_length: line.length,
    type: event.type,
    type_raw: typeRaw,
    step,
    step_id: event.step_id === undefined ? null : idText(event.step_id),
    ts,
    call_id: null,
    name: null,
    outcome: null,
    finish_reason: null,
    tool_call_count: null,
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
    latency_ms: null,
    result_ok: null,
    error_code: null,
    result_hash: null,
    progress: null,
    summary: null,
    child_run_id: null,
    cached_input_tokens: null,
    content_chars: null,
    run_index: run.events++,
    api_error: null,
    incomplete_reason: null,
    error_line: null,
    visible_index: isBookkeeping(format, event.type, typeRaw) ? null : run.visibleEvents++,
    span_depth: 0,
    model: null,
    provider: null,
    cache_write_tokens: null,
    reasoning_tokens: null,
  };
}

/** A run start sets the run's configuration and budgets; its row shows provider and model. */
export function addRunStart(run: RunState, event: EventOf<'run_start'>, row: EventSqlRow): void {
  run.config = event.config;
  run.startEventId ??= row.id;
  const budgets = { ...event.config?.budgets, ...event.budgets };
  run.budgets = Object.keys(budgets).length > 0 ? budgets : null;
  row.summary = [event.config?.provider, event.config?.model].filter(Boolean).join(' ') || null;
}

/** A tool result counts in its run; its row holds its status, error and digest. */
export function addToolResult(run: RunState, event: EventOf<'tool_result'>, row: EventSqlRow, digest: ResultDigest): void {
  run.toolResults += 1;
  const isError = isErrorResult(event);
  row.call_id = idText(event.call_id);
  row.name = event.name ?? null;
  row.result_ok = isError ? 0 : 1;
  row.latency_ms = event.latency_ms ?? null;
  row.progress = event.progress === undefined ? null : event.progress ? 1 : 0;
  row.child_run_id = event.child_run_id === undefined ? null : idText(event.child_run_id);
  const error = event.error;
  row.error_code = isError ? (typeof error === 'object' ? (error.code ?? null) : null) : null;
  row.result_hash = digest.hash;
  row.content_chars = digest.chars + (typeof error === 'string' ? error.length : 0);
  row.error_line = isError ? errorLineOf(event) : null;
  const errorText = row.error_line ?? (typeof error === 'string' ? error : (error?.safe_message ?? error?.message ?? ''));
  row.summary = truncate(isError ? `error${row.error_code ? ` ${row.error_code}` : ''}${errorText ? `: ${errorText}` : ''}` : digest.preview);
}
