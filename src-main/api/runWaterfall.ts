/**
 * A run's waterfall: each model call and tool call with the times the trace records for it
 * (shared/analysis/waterfall.ts says how a span's ends are found) and its track, so parallel calls
 * sit side by side. Read from the run's responses and calls, never its pages of events: a run of
 * 100,000 events costs one scan of its responses, calls and call starts.
 */
import type Database from 'better-sqlite3';
import type { ApiResponse } from '../../shared/api';
import { assignTracks, modelCallTimes, toolCallTimes, type SpanTimes } from '../../shared/analysis/waterfall';
import { callCount, callStarts, responseCount, timedCalls, timedResponses } from '../engine';

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
  // Fewer than the limit drawn is all of them: the run is counted only when it has more.
  const omittedResponses = responses.length < MAX_SPANS_PER_KIND ? 0 : responseCount(db, runPk) - responses.length;
  const omittedCalls = calls.length < MAX_SPANS_PER_KIND ? 0 : callCount(db, runPk) - calls.length;
  const startedAt = firstStarts(db, runPk, new Set(calls.map((call) => call.call_id)));

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
  return { spans, untimed, omitted: omittedResponses + omittedCalls };
}

/**
 * When each of the calls `callIds` was started (the first tool_call_start with its id that has a
 * time), where the format writes one: read in order up to the last of them, not through the rest
 * of a long run.
 */
function firstStarts(db: Database.Database, runPk: number, callIds: ReadonlySet<string>): Map<string, string> {
  const startedAt = new Map<string, string>();
  if (callIds.size === 0) return startedAt;
  for (const start of callStarts(db, runPk)) {
    if (start.ts === null || startedAt.has(start.call_id) || !callIds.has(start.call_id)) continue;
    startedAt.set(start.call_id, start.ts);
    if (startedAt.size === callIds.size) break;
  }
  return startedAt;
}
