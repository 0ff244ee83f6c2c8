/**
 * A run's waterfall (Perfetto / Langfuse style): each model call and tool call as a span on a time
 * axis, from the times the trace records. Pure: the API gathers the times, the UI draws the spans.
 *
 * When a span starts and ends:
 * - a tool call ends at its result's time and lasts its recorded latency (docs/semantics.md §11);
 *   without a latency it starts when it was issued (its `tool_call_start`, else the model response
 *   that issued it). Without a result time it ends at start + latency; with neither end nothing is
 *   drawn.
 * - a model call ends at its response's time and lasts its recorded latency; without one it starts
 *   at the run's previous event (what the model was waiting on: the prompt, the last result).
 * Times that are not dates, or an end before its start, draw nothing: a span is never guessed.
 */

export type SpanKind = 'model' | 'tool';

export interface SpanTimes {
  startMs: number;
  endMs: number;
}

function millis(iso: string | null): number | null {
  if (iso === null) return null;
  const value = Date.parse(iso);
  return Number.isNaN(value) ? null : value;
}

function validLatency(latencyMs: number | null): number | null {
  return latencyMs !== null && Number.isFinite(latencyMs) && latencyMs >= 0 ? latencyMs : null;
}

function span(startMs: number | null, endMs: number | null): SpanTimes | null {
  if (startMs === null || endMs === null || endMs < startMs) return null;
  return { startMs, endMs };
}

export function toolCallTimes(call: {
  issuedAt: string | null;
  startedAt: string | null;
  answeredAt: string | null;
  latencyMs: number | null;
}): SpanTimes | null {
  const latency = validLatency(call.latencyMs);
  const end = millis(call.answeredAt);
  const issued = millis(call.startedAt) ?? millis(call.issuedAt);
  if (end !== null) return span(latency !== null ? end - latency : issued, end);
  return issued !== null && latency !== null ? span(issued, issued + latency) : null;
}

export function modelCallTimes(response: { respondedAt: string | null; previousAt: string | null; latencyMs: number | null }): SpanTimes | null {
  const latency = validLatency(response.latencyMs);
  const end = millis(response.respondedAt);
  if (end === null) return null;
  return span(latency !== null ? end - latency : millis(response.previousAt), end);
}

/**
 * Tracks for spans that may overlap, so parallel calls sit side by side: each span goes on the
 * first track free at its start (its last span ended at or before it), else on a new one — the
 * fewest tracks for intervals taken by start (ties in input order: a response's calls top down as issued). Returns the track of each span, in input order.
 */
export function assignTracks(spans: readonly SpanTimes[]): number[] {
  const order = spans.map((_, index) => index).sort((a, b) => spans[a]!.startMs - spans[b]!.startMs || a - b);
  // Each track's last span: a span that ends where the next starts leaves the track free for it,
  // but a zero-length one still occupies its instant, so another at that instant goes beside it.
  const last: SpanTimes[] = [];
  const tracks = new Array<number>(spans.length);
  for (const index of order) {
    const current = spans[index]!;
    let track = last.findIndex((previous) => previous.endMs < current.startMs || (previous.endMs === current.startMs && previous.startMs < previous.endMs));
    if (track === -1) track = last.push(current) - 1;
    else last[track] = current;
    tracks[index] = track;
  }
  return tracks;
}

/** Tick marks for an axis of `durationMs`: a round step (1, 2 or 5 × 10^n ms) giving about `target` ticks, as offsets from the start. */
export function axisTicks(durationMs: number, target: number): number[] {
  if (!(durationMs > 0) || !(target >= 1)) return [0];
  const rough = durationMs / target;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= rough) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let offset = 0; offset <= durationMs + step * 1e-9; offset += step) ticks.push(offset);
  return ticks;
}
