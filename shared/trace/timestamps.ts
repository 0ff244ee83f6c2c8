/** Trace timestamps arrive as ISO text or Unix epochs in seconds or milliseconds. */
const MILLISECOND_EPOCH_FLOOR = 1e11;

/** Already in the normalized form (`2025-06-03T14:21:07.452Z`): kept as is, it is the common case. */
const NORMALIZED_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function toIsoTimestamp(ts: string | number | undefined | null): string | null {
  if (ts === undefined || ts === null) return null;
  if (typeof ts === 'string' && NORMALIZED_ISO.test(ts)) return ts;
  const millis = typeof ts === 'number' ? (ts >= MILLISECOND_EPOCH_FLOOR ? ts : ts * 1000) : Date.parse(ts);
  // NaN, an infinity or an epoch beyond the range of dates all make an invalid date.
  const date = new Date(millis);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Null when either end is unknown, or is kept as written but no date can hold it (a leap second's `:60`). */
export function millisBetween(startIso: string | null, endIso: string | null): number | null {
  if (startIso === null || endIso === null) return null;
  const millis = Date.parse(endIso) - Date.parse(startIso);
  return Number.isNaN(millis) ? null : millis;
}

/**
 * A timestamp held by the million: its epoch milliseconds (a 16-byte number, against 40 bytes for
 * the 24-character string) when the text is exactly what `Date#toISOString` gives back for them,
 * otherwise the text as logged. Such texts are fixed-width, so they order as their numbers do.
 */
export type CompactTimestamp = string | number | null;

export function compactTimestamp(text: string | null): CompactTimestamp {
  if (text === null || text.length !== 24) return text;
  const millis = Date.parse(text);
  return Number.isFinite(millis) && new Date(millis).toISOString() === text ? millis : text;
}

/** Orders two timestamps as their texts order: two numbers as numbers, with no text made. */
export function compareTimestamps(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [timestampText(a)!, timestampText(b)!];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The text a compact timestamp was made from. */
export function timestampText(ts: CompactTimestamp): string | null {
  return typeof ts === 'number' ? new Date(ts).toISOString() : ts;
}
