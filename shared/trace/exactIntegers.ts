/**
 * Integers beyond 2^53 as written. `JSON.parse` turns `12345678901234567890` into the nearest
 * double, 12345678901234567000, so a call id written as a number would no longer be its own value
 * (and a token count would be shown as a number the trace does not hold). V8 hands a reviver the
 * source text of each value (`context.source`, Node 22 and Chromium 114+), which is what keeps them
 * exact; a reviver makes the parse several times slower, so it runs only on text with a run of 16
 * digits, the fewest an integer beyond 2^53 has.
 */

/** What V8 passes a reviver as its third argument, for primitive values. */
interface ReviverContext {
  source?: string;
}

declare global {
  interface JSON {
    /** A value `JSON.stringify` writes as exactly this JSON text (ES2026 `JSON.rawJSON`). */
    rawJSON(text: string): RawJson;
    isRawJSON(value: unknown): value is RawJson;
  }
}

/** A number kept as its JSON text: `JSON.stringify` writes it back digit for digit. */
export interface RawJson {
  readonly rawJSON: string;
}

const INTEGER_TEXT = /^-?\d+$/;
/** The fewest digits an integer beyond 2^53 has. */
const RUN_LENGTH = 16;
/** One character of JavaScript's `\s`. */
const WHITESPACE = /\s/;

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * Whether a run of digits starting at `start` stands where a JSON number can start: at the start of
 * the text, or after `:`, `,` or `[` and whitespace, with a minus sign before it or not. A run of
 * digits inside a string (an id, a hash, a long number in a tool's output) mostly is not there.
 */
function startsNumber(text: string, start: number): boolean {
  let at = start - 1;
  if (at >= 0 && text[at] === '-') at -= 1;
  while (at >= 0 && WHITESPACE.test(text[at]!)) at -= 1;
  return at < 0 || text[at] === ':' || text[at] === ',' || text[at] === '[';
}

/**
 * Whether `text` may hold an integer `JSON.parse` would round (false is certain, true is a maybe):
 * 16 digits or more where a number can start. Any run of 16 digits covers a multiple of 16, so only
 * every 16th character is looked at, and the run around it measured only where that one is a
 * digit: a sixteenth of the reads a regular expression makes, which tries every character.
 */
export function mayHoldUnsafeIntegers(text: string): boolean {
  for (let probe = RUN_LENGTH - 1; probe < text.length; probe += RUN_LENGTH) {
    if (!isDigit(text.charCodeAt(probe))) continue;
    let start = probe;
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start -= 1;
    let end = probe + 1;
    while (end < text.length && isDigit(text.charCodeAt(end))) end += 1;
    if (end - start >= RUN_LENGTH && startsNumber(text, start)) return true;
    // The next probe past this run: a run is looked at once.
    probe = Math.max(probe, end - 1);
  }
  return false;
}

/**
 * `JSON.parse(text)`, except that each integer beyond 2^53 becomes what `exact` makes of it: its
 * digits as written, the key it is the value of ('' for the top level, the index in an array) and
 * the double `JSON.parse` would have given.
 */
export function parseJsonExactly(text: string, exact: (digits: string, key: string, rounded: number) => unknown): unknown {
  const reviver = (key: string, value: unknown, context?: ReviverContext): unknown => {
    if (typeof value !== 'number' || Number.isSafeInteger(value)) return value;
    // A fraction or an exponent is not written as an integer: its source fails INTEGER_TEXT.
    const source = context?.source;
    return source !== undefined && INTEGER_TEXT.test(source) ? exact(source, key, value) : value;
  };
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}
