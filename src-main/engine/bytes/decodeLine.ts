/**
 * Turns one line's bytes into a JSON value, or into the reason it is not one. Decoding is strict
 * about what it reports (invalid UTF-8 is replaced *and* reported) and lenient about what it
 * accepts (a BOM, a trailing CR), because the user needs both the data and the truth about it.
 */
import { isAscii, isUtf8, transcode } from 'node:buffer';
import { mayHoldUnsafeIntegers, parseJsonExactly } from '../../../shared/trace/exactIntegers';
import { ScanError, scanTopLevel, type TopLevelScan } from './topLevelScan';

export type DecodedLine =
  | { kind: 'blank' }
  /** `warnings`: what the line holds that the value cannot show as written (a key given twice, a number rounded). */
  | { kind: 'json'; value: unknown; text: string; invalidUtf8: boolean; warnings: string[] }
  | { kind: 'invalid'; reason: string; text: string; invalidUtf8: boolean };

/**
 * Deeper nesting is not read: a line nested this deep is reported, not loaded. JSON.parse reads any
 * depth, but everything after it (serializing, hashing arguments, structured cloning, the JSON tree)
 * recurses, and the main thread's stack holds about 3,300 levels of the least of them
 * (structuredClone); worker threads about 12,000.
 */
export const MAX_NESTING_DEPTH = 2000;

/**
 * Top-level keys trace formats identify records by. JSON.parse keeps the last of a key given twice,
 * silently; for these a record given two different values is ambiguous, so it is said.
 */
const IDENTIFYING_KEYS = ['type', 'run_id', 'call_id', 'step', 'step_id'] as const;

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const EXCERPT_CHARS = 160;

export function stripUtf8Bom(bytes: Buffer): Buffer {
  return bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes;
}

function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}

/** Whether an integer beyond 2^53 under `key` is an id (kept as its digits, ids being text) rather than a quantity. */
function isIdKey(key: string): boolean {
  return key === 'id' || key.endsWith('_id') || key.endsWith('Id');
}

/**
 * The line's JSON, with integers beyond 2^53 as written: an id keeps its digits (as text, which is
 * how ids are kept); any other number is left rounded, and for a token count that is said in
 * `warnings`, since totals and the normalized fields show it.
 */
function parseLine(text: string, warnings: string[]): unknown {
  if (!mayHoldUnsafeIntegers(text)) return JSON.parse(text);
  return parseJsonExactly(text, (digits, key, rounded) => {
    if (isIdKey(key)) return digits;
    if (key.endsWith('tokens')) {
      warnings.push(`"${key}" is ${digits}, beyond 2^53: counted as ${String(rounded)}; the raw line keeps its exact value`);
    }
    return rounded;
  });
}

/**
 * Whether some identifying key of the line's object is written more than once anywhere in the line
 * (maybe nested): the cheap test before a scan. A key the parsed object lacks was not written at
 * its top level at all (JSON.parse keeps the last of a repeated key), so its nested uses (the
 * `"type"` of every message in a logged request) cost nothing.
 */
function mayRepeatIdentifyingKey(text: string, value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return IDENTIFYING_KEYS.some((key) => {
    if (!Object.hasOwn(value, key)) return false;
    const first = text.indexOf(`"${key}"`);
    return first !== -1 && text.indexOf(`"${key}"`, first + key.length + 2) !== -1;
  });
}

/** A warning for each identifying key the object line gives more than once, with different values. */
export function repeatedKeyWarnings(bytes: Buffer, scan: TopLevelScan): string[] {
  const warnings: string[] = [];
  for (const key of IDENTIFYING_KEYS) {
    const values: string[] = [];
    for (let member = scan.get(key); member !== undefined; member = member.earlier) values.unshift(bytes.toString('utf8', member.start, member.end));
    if (new Set(values).size > 1)
      warnings.push(`the key "${key}" is given ${values.length} times (${values.map((value) => excerptOf(value)).join(', then ')}): the last is used`);
  }
  return warnings;
}

/**
 * The text of valid UTF-8 bytes. V8 decodes UTF-8 one character at a time past the first non-ASCII
 * byte (~380 MB/s on a tool output holding a few ✓ or box-drawing characters); converted to UTF-16
 * first (`transcode`, which is vectorized) and taken as two-byte text, the same text comes ~30 %
 * faster. Valid UTF-8 has one decoding, so the text is the same either way; ASCII keeps V8's own
 * fast path, and invalid bytes keep its replacement characters.
 */
export function validUtf8Text(bytes: Buffer): string {
  if (isAscii(bytes)) return bytes.toString('utf8');
  const utf16 = transcode(bytes, 'utf8', 'utf16le');
  return utf16.toString('utf16le');
}

export function decodeLine(bytes: Buffer): DecodedLine {
  if (isBlank(bytes)) return { kind: 'blank' };
  const invalidUtf8 = !isUtf8(bytes);
  const text = invalidUtf8 ? bytes.toString('utf8') : validUtf8Text(bytes);
  const warnings: string[] = [];
  let value: unknown;
  try {
    value = parseLine(text, warnings);
  } catch (error) {
    return { kind: 'invalid', reason: `not valid JSON: ${withVisibleControls((error as Error).message)}`, text, invalidUtf8 };
  }
  if (mayRepeatIdentifyingKey(text, value)) {
    try {
      warnings.push(...repeatedKeyWarnings(bytes, scanTopLevel(bytes)));
    } catch (error) {
      // What JSON.parse read but the byte scan does not (say, nesting beyond its depth): no warning to give.
      if (!(error instanceof ScanError)) throw error;
    }
  }
  return { kind: 'json', value, text, invalidUtf8, warnings };
}

/**
 * Control characters written as `\uXXXX` escapes: a diagnostic is one line of text, and a NUL or an
 * escape sequence from the trace (which JSON.parse quotes in its messages) must not reach a terminal.
 */
function withVisibleControls(text: string): string {
  // eslint-disable-next-line no-control-regex -- making control characters visible is the point
  return text.replace(/[\u0000-\u001f\u007f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A short, single-line excerpt for diagnostics; control characters are made visible. */
export function excerptOf(text: string): string {
  return withVisibleControls(text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text);
}
