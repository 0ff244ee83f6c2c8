/**
 * A run's waterfall: each model call and tool call with the times the trace records for it
 * (shared/analysis/waterfall.ts says how a span's ends are found) and its track, so parallel calls
 * sit side by side. Read from the run's responses and calls, never its pages of events: a run of
 * 100,000 events costs one scan of its responses, calls and call starts.
 */
import type Database from 'better-sqlite3';
import type { ApiResponse, CallRow } from '../../shared/api';
import { assignTracks, modelCallTimes, toolCallTimes, type SpanTimes } from '../../shared/analysis/waterfall';
import { prepared } from '../engine/store/preparedStatements';

type Waterfall = ApiResponse<'runWaterfall'>;
type Span = Waterfall['spans'][number];

/**
 * Calls drawn per kind, the run's first ones: past this a waterfall is a smear at any width (and
 * its answer megabytes), while the timeline lists them all.
 */
export const MAX_SPANS_PER_KIND = 5000;

interface ResponseSqlRow {
  id: number;
  step: number | null;
  ts: string | null;
  latency_ms: number | null;
  outcome: string | null;
  api_error: string | null;
  previous_ts: string | null;
}

interface CallSqlRow {
  event_id: number;
  call_id: string;
  name: string;
  step: number | null;
  state: CallRow['state'];
  answer_event_id: number | null;
  answer_type: string | null;
  issued_ts: string | null;
  answered_ts: string | null;
  latency_ms: number | null;
}

export function runWaterfall(db: Database.Database, runPk: number): Waterfall {
  const responses = prepared<[number], ResponseSqlRow>(
    db,
    // The event before a response (not bookkeeping), looked up only for a response with a time: a
    // run without timestamps must not scan back from each of its responses.
    `SELECT e.id, e.step, e.ts, e.latency_ms, e.outcome, e.api_error,
       CASE WHEN e.ts IS NULL OR e.latency_ms IS NOT NULL THEN NULL ELSE
         (SELECT p.ts FROM events p WHERE p.run_pk = e.run_pk AND p.run_index < e.run_index AND p.visible_index IS NOT NULL AND p.ts IS NOT NULL ORDER BY p.run_index DESC LIMIT 1)
       END AS previous_ts
     FROM events e WHERE e.run_pk = ? AND e.type = 'model_response' ORDER BY e.run_index LIMIT ${MAX_SPANS_PER_KIND}`,
  ).all(runPk);
  const calls = prepared<[number], CallSqlRow>(
    db,
    `SELECT c.event_id, c.call_id, c.name, c.step, c.state, c.answer_event_id, a.type AS answer_type, i.ts AS issued_ts, a.ts AS answered_ts, a.latency_ms
     FROM calls c JOIN events i ON i.id = c.event_id LEFT JOIN events a ON a.id = c.answer_event_id
     WHERE c.run_pk = ? ORDER BY c.event_id, c.call_index LIMIT ${MAX_SPANS_PER_KIND}`,
  ).all(runPk);
  const totals = prepared<[number, number], { responses: number; calls: number }>(
    db,
    "SELECT (SELECT count(*) FROM events WHERE run_pk = ? AND type = 'model_response') AS responses, (SELECT count(*) FROM tool_calls WHERE run_pk = ?) AS calls",
  ).get(runPk, runPk)!;
  // When each call was started (its first tool_call_start), where the format writes one.
  const startedAt = new Map<string, string>();
  for (const start of prepared<[number], { call_id: string; ts: string | null }>(db, "SELECT call_id, ts FROM events WHERE run_pk = ? AND type = 'tool_call_start' ORDER BY run_index").all(runPk)) {
    if (start.ts !== null && !startedAt.has(start.call_id)) startedAt.set(start.call_id, start.ts);
  }

  let untimed = 0;
  const model: { times: SpanTimes; span: Omit<Span, 'track' | 'startMs' | 'endMs'> }[] = [];
  for (const response of responses) {
    const times = modelCallTimes({ respondedAt: response.ts, previousAt: response.previous_ts, latencyMs: response.latency_ms });
    if (times === null) untimed += 1;
    else model.push({ times, span: { kind: 'model', eventId: response.id, issuerEventId: null, step: response.step, name: null, failed: response.api_error !== null || response.outcome === 'incomplete' } });
  }
  const tool: typeof model = [];
  for (const call of calls) {
    // A call that never ran (not executed, not issued) has no time to draw.
    if (call.state === 'unexecuted' || call.state === 'not_issued') continue;
    const ran = call.answer_type === 'tool_result';
    const times = toolCallTimes({ issuedAt: call.issued_ts, startedAt: startedAt.get(call.call_id) ?? null, answeredAt: ran ? call.answered_ts : null, latencyMs: ran ? call.latency_ms : null });
    if (times === null) untimed += 1;
    else tool.push({ times, span: { kind: 'tool', eventId: ran ? call.answer_event_id! : call.event_id, issuerEventId: call.event_id, step: call.step, name: call.name, failed: call.state === 'error' } });
  }
  const spans: Span[] = [];
  for (const group of [model, tool]) {
    const tracks = assignTracks(group.map((entry) => entry.times));
    group.forEach((entry, index) => spans.push({ ...entry.span, startMs: entry.times.startMs, endMs: entry.times.endMs, track: tracks[index]! }));
  }
  return { spans, untimed, omitted: totals.responses - responses.length + (totals.calls - calls.length) };
}
