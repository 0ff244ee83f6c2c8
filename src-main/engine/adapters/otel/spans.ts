/**
 * One OpenTelemetry span as the GenAI mapping reads it, whatever exporter wrote it: the OTLP
 * (otlp.ts) and console-exporter (console.ts) readers decode their own framing into `OtelSpan`s,
 * with the id and time readers here. See docs/formats/otel.md.
 */
export interface SpanTime {
  /** Microseconds since the Unix epoch: spans of one model call are microseconds apart. */
  micros: number;
  iso: string;
}

export interface OtelSpanEvent {
  name: string;
  time: SpanTime | null;
  attributes: Record<string, unknown>;
}

export type SpanStatusCode = 'UNSET' | 'OK' | 'ERROR';

/** One span, whatever exporter wrote it: ids without `0x`, lower-case. */
export interface OtelSpan {
  traceId: string;
  spanId: string;
  parentId: string | null;
  name: string;
  start: SpanTime | null;
  end: SpanTime | null;
  statusCode: SpanStatusCode;
  statusMessage: string | null;
  attributes: Record<string, unknown>;
  events: OtelSpanEvent[];
  /** The resource's `service.name`. */
  service: string | null;
}

/** A trace or span id as Loopscope shows it: without the console exporter's `0x`, lower-case; null when absent or all zeros. */
export function normalizeSpanId(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const id = value.trim().replace(/^0x/i, '').toLowerCase();
  return id === '' || /^0+$/.test(id) ? null : id;
}

function timeFromMicros(micros: number): SpanTime {
  return { micros, iso: new Date(Math.floor(micros / 1000)).toISOString() };
}

const ISO_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/;

/** `2026-03-01T20:47:18.711501Z` (the console exporter), to the microsecond. */
export function timeFromIso(value: unknown): SpanTime | null {
  if (typeof value !== 'string') return null;
  const match = ISO_TIME.exec(value.trim());
  if (match === null) return null;
  const seconds = Date.parse(`${match[1]!}${match[3] ?? 'Z'}`);
  if (!Number.isFinite(seconds)) return null;
  const fraction = Number((match[2] ?? '').padEnd(6, '0').slice(0, 6));
  return timeFromMicros(seconds * 1000 + fraction);
}

/** OTLP `…TimeUnixNano`, a decimal string (or number); `0` or absent means not set. */
export function timeFromUnixNanos(value: unknown): SpanTime | null {
  let micros: number;
  if (typeof value === 'string' && /^\d+$/.test(value)) micros = value.length > 3 ? Number(value.slice(0, -3)) : 0;
  else if (typeof value === 'number' && Number.isFinite(value)) micros = Math.floor(value / 1000);
  else return null;
  return micros > 0 ? timeFromMicros(micros) : null;
}
