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
  if (!text.startsWith(minute.text)) {
    // A text is toISOString's exactly when its minute is, and its seconds and milliseconds are written as toISOString writes them.
    const start = `${text.slice(0, 17)}00.000Z`;
    const millis = Date.parse(start);
    if (!Number.isFinite(millis) || new Date(millis).toISOString() !== start) return text;
    minute = { text: start.slice(0, 17), millis };
  }
  const seconds = digitAt(text, 17) * 10 + digitAt(text, 18);
  const millis = digitAt(text, 20) * 100 + digitAt(text, 21) * 10 + digitAt(text, 22);
  return seconds >= 0 && seconds < 60 && millis >= 0 && text[19] === '.' && text[23] === 'Z' ? minute.millis + seconds * 1000 + millis : text;
}

/**
 * The minute of the last timestamp compacted, checked once: a run's timestamps come in order, most
 * in the minute of the one before, and parsing each with Date.parse and writing it back cost ~1 µs
 * (a second of CPU per million events, twice: the ingest's steps, the store's timeline).
 */
let minute = { text: '-', millis: 0 };

/** The decimal digit at `index`; below -1000 for any other character, so a number made with it is negative. */
function digitAt(text: string, index: number): number {
  const digit = text.charCodeAt(index) - 48;
  return digit >= 0 && digit <= 9 ? digit : -10_000;
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
