/**
 * A run's waterfall: each model call and tool call with the times the trace records for it
 * (shared/analysis/waterfall.ts says how a span's ends are found) and its track, so parallel calls
 * sit side by side. Read from the run's responses and calls, never its pages of events: a run of
 * 100,000 events costs one scan of its responses, calls and call starts.
 */
import type Database from 'better-sqlite3';
import type { ApiResponse } from '../../shared/api';
import { assignTracks, modelCallTimes, toolCallTimes, type SpanTimes } from '../../shared/analysis/waterfall';
import { callStarts, responseAndCallCounts, timedCalls, timedResponses } from '../engine';

type Waterfall = ApiResponse<'runWaterfall'>;
type Span = Waterfall['spans'][number];

/**
 * Calls drawn per kind, the run's first ones: past this a waterfall is a smear at any width (and
 * its answer megabytes), while the timeline lists them all.
 */
export const MAX_SPANS_PER_KIND = 5000;

export function runWaterfall(db: Database.Database, runPk: number): Waterfall {
  const responses = timedResponses(db, runPk, MAX_SPANS_PER_KIND);
  const calls = timedCalls(db, runPk, MAX_SPANS_PER_KIND);
  const totals = responseAndCallCounts(db, runPk);
  // When each call was started (its first tool_call_start), where the format writes one.
  const startedAt = new Map<string, string>();
  for (const start of callStarts(db, runPk)) {
    if (start.ts !== null && !startedAt.has(start.call_id)) startedAt.set(start.call_id, start.ts);
  }

  let untimed = 0;
  const model: { times: SpanTimes; span: Omit<Span, 'track' | 'startMs' | 'endMs'> }[] = [];
  for (const response of responses) {
    const times = modelCallTimes({ respondedAt: response.ts, previousAt: response.previous_ts, latencyMs: response.latency_ms });
    if (times === null) untimed += 1;
    else
      model.push({
        times,
        span: {
          kind: 'model',
          eventId: response.id,
          issuerEventId: null,
          step: response.step,
          name: null,
          failed: response.api_error !== null || response.outcome === 'incomplete',
        },
      });
  }
  const tool: typeof model = [];
  for (const call of calls) {
    // A call that never ran (not executed, not issued) has no time to draw.
    if (call.state === 'unexecuted' || call.state === 'not_issued') continue;
    const ran = call.answer_type === 'tool_result';
    const times = toolCallTimes({
      issuedAt: call.issued_ts,
      startedAt: startedAt.get(call.call_id) ?? null,
      answeredAt: ran ? call.answered_ts : null,
      latencyMs: ran ? call.latency_ms : null,
    });
    if (times === null) untimed += 1;
    else
      tool.push({
        times,
        span: {
          kind: 'tool',
          eventId: ran ? call.answer_event_id! : call.event_id,
          issuerEventId: call.event_id,
          step: call.step,
          name: call.name,
          failed: call.state === 'error',
        },
      });
  }
  const spans: Span[] = [];
  for (const group of [model, tool]) {
    const tracks = assignTracks(group.map((entry) => entry.times));
    group.forEach((entry, index) => spans.push({ ...entry.span, startMs: entry.times.startMs, endMs: entry.times.endMs, track: tracks[index]! }));
  }
  return { spans, untimed, omitted: totals.responses - responses.length + (totals.calls - calls.length) };
}
