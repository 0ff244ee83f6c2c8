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

/**
 * 16 digits, the fewest an integer beyond 2^53 has, where a JSON number can start: at the start of
 * the text or after `:`, `,` or `[` and whitespace. A run of digits inside a string (an id, a hash,
 * a long number in a tool's output) mostly is not there, and parsing with a reviver is slow.
 */
const SIXTEEN_DIGIT_NUMBER = /(?:^|[:,[])\s*-?\d{16}/;
/** Any run of 16 digits: a native scan that skips most text quickly, tried first. */
const SIXTEEN_DIGITS = /\d{16}/;
const INTEGER_TEXT = /^-?\d+$/;

/** Whether `text` may hold an integer `JSON.parse` would round (false is certain, true is a maybe). */
export function mayHoldUnsafeIntegers(text: string): boolean {
  return SIXTEEN_DIGITS.test(text) && SIXTEEN_DIGIT_NUMBER.test(text);
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
