/**
 * Reads the top level of a JSON object line without parsing what is nested in it. Model requests
 * resend the whole history on every turn, so they are most of a trace's bytes, yet ingest needs
 * only their top-level fields (type, run, step, model) and how many messages and tools they
 * carry. Skipping nested values on the bytes (strings are jumped over with a native search)
 * avoids decoding and building objects for everything the engine does not read; the content is
 * parsed when someone opens it.
 *
 * The structure is still checked — balanced brackets, terminated strings, every top-level scalar
 * parsed — so a cut or garbled line is reported like any invalid JSON. What is not checked is the
 * grammar inside nested values (a stray comma deep in a message); the inspector reports that when
 * the line is opened.
 */
import { QUOTE, BACKSLASH, COMMA, COLON, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, isWhitespace } from './jsonBytes';

/** Where one top-level member's value lies in the line, and what it is. */
export interface ScannedMember {
  kind: 'string' | 'object' | 'array' | 'scalar';
  /** Byte range of the value as written (a string's range includes its quotes). */
  start: number;
  end: number;
  /** Number of elements (array) or members (object); 0 otherwise. */
  size: number;
  /** The value the same key had before in the object, when it is given twice (JSON.parse keeps the last). */
  earlier?: ScannedMember;
}

export type TopLevelScan = Map<string, ScannedMember>;

export class ScanError extends Error {}

function skipWhitespace(bytes: Buffer, position: number): number {
  let at = position;
  while (isWhitespace(bytes[at])) at += 1;
  return at;
}

/** Index of the quote closing the string whose opening quote is at `open`; -1 when it is not terminated. */
function closingQuote(bytes: Buffer, open: number): number {
  let at = open + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, at);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** Index of the quote closing the string whose opening quote is at `open`. */
function stringEnd(bytes: Buffer, open: number): number {
  const quote = closingQuote(bytes, open);
  if (quote === -1) throw new ScanError('a string is not terminated (the line looks cut)');
  return quote;
}

/** Skips an object or array starting at `open`; returns the index after it and its size. */
function skipContainer(bytes: Buffer, open: number): { end: number; size: number } {
  const stack: number[] = [bytes[open] === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET];
  let size = 0;
  let sawValue = false;
  let at = open + 1;
  while (at < bytes.length) {
    const byte = bytes[at]!;
    if (byte === QUOTE) {
      at = stringEnd(bytes, at) + 1;
      if (stack.length === 1) sawValue = true;
      continue;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (stack.length === 1) sawValue = true;
      stack.push(byte === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET);
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      if (stack.pop() !== byte) throw new ScanError(`unbalanced "${String.fromCharCode(byte)}" at byte ${at}`);
      if (stack.length === 0) {
        if (!sawValue && size > 0) throw new ScanError(`a trailing comma before byte ${at}`);
        return { end: at + 1, size: sawValue ? size + 1 : size };
      }
    } else if (byte === COMMA && stack.length === 1) {
      if (!sawValue) throw new ScanError(`an empty element before byte ${at}`);
      size += 1;
      sawValue = false;
    } else if (!isWhitespace(byte) && byte !== COLON && stack.length === 1) {
      sawValue = true;
    }
    at += 1;
  }
  throw new ScanError('an object or array is not closed (the line looks cut)');
}

/** End of a bare scalar (number, true, false, null) starting at `start`. */
function scalarEnd(bytes: Buffer, start: number): number {
  let at = start;
  while (at < bytes.length) {
    const byte = bytes[at]!;
    if (byte === COMMA || byte === CLOSE_BRACE || isWhitespace(byte)) return at;
    at += 1;
  }
  return at;
}

function parseSlice(bytes: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(bytes.toString('utf8', start, end));
  } catch (error) {
    throw new ScanError((error as Error).message);
  }
}

/**
 * A member's name from its quoted bytes (`open`, `close`: its quotes). Almost every name is plain
 * ASCII, which reads as it is written; one with an escape, a multi-byte character or a control
 * character (which JSON.parse rejects) is parsed.
 */
function memberName(bytes: Buffer, open: number, close: number): string {
  for (let at = open + 1; at < close; at += 1) {
    const byte = bytes[at]!;
    if (byte === BACKSLASH || byte < 0x20 || byte >= 0x80) return parseSlice(bytes, open, close + 1) as string;
  }
  return bytes.toString('latin1', open + 1, close);
}

/** Parses one member's value (for the small members a caller needs). */
export function memberValue(bytes: Buffer, member: ScannedMember): unknown {
  return parseSlice(bytes, member.start, member.end);
}

const PREVIEW_BYTES = 600;
/** The longest escape sequence in JSON text: `\\uXXXX`. */
const MAX_ESCAPE_CHARS = 6;

/**
 * The beginning of a member's value as readable text, without parsing the rest of it: a string's
 * first characters unescaped, or the JSON text of anything else.
 */
export function memberPreview(bytes: Buffer, member: ScannedMember, chars: number): string {
  if (member.kind !== 'string') return bytes.toString('utf8', member.start, Math.min(member.end, member.start + PREVIEW_BYTES)).slice(0, chars);
  const contentEnd = member.end - 1;
  if (contentEnd - member.start - 1 <= PREVIEW_BYTES) return (memberValue(bytes, member) as string).slice(0, chars);
  // The cut may split an escape sequence: drop up to its length from the end until the text parses.
  const escaped = bytes.toString('utf8', member.start + 1, member.start + 1 + PREVIEW_BYTES);
  for (let trim = 0; trim <= MAX_ESCAPE_CHARS; trim += 1) {
    try {
      return (JSON.parse(`"${escaped.slice(0, escaped.length - trim)}"`) as string).slice(0, chars);
    } catch {
      // try a shorter prefix
    }
  }
  return escaped.slice(0, chars);
}

/**
 * How a caller skips a member's value itself (a messages array it knows most of from the previous
 * request, say): the index after the value and its size, or null to have it scanned as usual.
 */
export type SkipMember = (key: string, bytes: Buffer, open: number) => { end: number; size: number } | null;

/** The members of the object opening at `open` in `bytes`, and the index after it. */
export function scanObject(bytes: Buffer, open: number, skip?: SkipMember): { members: TopLevelScan; end: number } {
  const scan: TopLevelScan = new Map();
  if (bytes[open] !== OPEN_BRACE) throw new ScanError(`expected an object at byte ${open}`);
  let at = skipWhitespace(bytes, open + 1);
  if (bytes[at] === CLOSE_BRACE) return { members: scan, end: at + 1 };
  for (;;) {
    if (bytes[at] !== QUOTE) throw new ScanError(`expected a member name at byte ${at}`);
    const keyEnd = stringEnd(bytes, at);
    const key = memberName(bytes, at, keyEnd);
    at = skipWhitespace(bytes, keyEnd + 1);
    if (bytes[at] !== COLON) throw new ScanError(`expected ":" after "${key}"`);
    at = skipWhitespace(bytes, at + 1);
    const start = at;
    const first = bytes[at];
    let member: ScannedMember;
    if (first === QUOTE) {
      at = stringEnd(bytes, at) + 1;
      member = { kind: 'string', start, end: at, size: 0 };
    } else if (first === OPEN_BRACE || first === OPEN_BRACKET) {
      const { end, size } = skip?.(key, bytes, at) ?? skipContainer(bytes, at);
      at = end;
      member = { kind: first === OPEN_BRACE ? 'object' : 'array', start, end, size };
    } else {
      at = scalarEnd(bytes, at);
      if (at === start) throw new ScanError(`"${key}" has no value`);
      member = { kind: 'scalar', start, end: at, size: 0 };
      memberValue(bytes, member);
    }
    const earlier = scan.get(key);
    if (earlier !== undefined) member.earlier = earlier;
    scan.set(key, member);
    at = skipWhitespace(bytes, at);
    if (bytes[at] === COMMA) {
      at = skipWhitespace(bytes, at + 1);
      continue;
    }
    if (bytes[at] === CLOSE_BRACE) return { members: scan, end: at + 1 };
    throw new ScanError(`expected "," or "}" at byte ${at}`);
  }
}

/**
 * Whether the JSON text in `bytes` nests objects and arrays more than `limit` levels deep. Counted
 * on the bytes, without recursion and with strings jumped over natively, so that a line nested a
 * hundred thousand levels deep (which JSON.parse reads, and every recursive walk after it
 * overflows the stack on) is found before anything walks it.
 */
export function nestsDeeperThan(bytes: Buffer, limit: number): boolean {
  if (!opensMoreThan(bytes, limit)) return false;
  let depth = 0;
  for (let at = 0; at < bytes.length; at += 1) {
    const byte = bytes[at];
    if (byte === QUOTE) {
      const close = closingQuote(bytes, at);
      if (close === -1) return false;
      at = close;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
      if (depth > limit) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth -= 1;
  }
  return false;
}

/**
 * Whether `bytes` holds more than `limit` opening brackets and braces, strings included: a
 * necessary condition for nesting deeper than `limit`, found by native searches. Almost every line
 * holds far fewer, so the byte-by-byte count above, which every long line would otherwise pay, is
 * skipped for them (a trace that resends its histories does hold thousands: it pays the count).
 */
function opensMoreThan(bytes: Buffer, limit: number): boolean {
  let count = 0;
  for (const open of [OPEN_BRACKET, OPEN_BRACE]) {
    for (let at = bytes.indexOf(open); at !== -1; at = bytes.indexOf(open, at + 1)) {
      count += 1;
      if (count > limit) return true;
    }
  }
  return false;
}

/** The members of the object that is the whole of `bytes` (one line). */
export function scanTopLevel(bytes: Buffer, skip?: SkipMember): TopLevelScan {
  const open = skipWhitespace(bytes, 0);
  if (bytes[open] !== OPEN_BRACE) throw new ScanError('the line is not a JSON object');
  const { members, end } = scanObject(bytes, open, skip);
  if (skipWhitespace(bytes, end) !== bytes.length) throw new ScanError(`unexpected data after the object at byte ${end}`);
  return members;
}

export interface ElementRange {
  start: number;
  end: number;
}

/** Scans one array element starting at `start`; returns the index after it. */
function elementEnd(bytes: Buffer, start: number): number {
  const first = bytes[start];
  if (first === QUOTE) return stringEnd(bytes, start) + 1;
  if (first === OPEN_BRACE || first === OPEN_BRACKET) return skipContainer(bytes, start).end;
  let at = start;
  while (at < bytes.length && bytes[at] !== COMMA && bytes[at] !== CLOSE_BRACKET && !isWhitespace(bytes[at])) at += 1;
  if (at === start) throw new ScanError(`an empty element at byte ${at}`);
  return at;
}

/**
 * The elements of the array opening at `open` in `bytes` (their ranges in `bytes`), and the index
 * after it. `known`: the ranges of its first elements, already scanned — the caller vouches for
 * them (the same bytes as in an array scanned before) — so the scan goes on after the last.
 */
export function scanArray(bytes: Buffer, open: number, known: readonly ElementRange[] = []): { elements: ElementRange[]; end: number } {
  const elements = [...known];
  let at: number;
  if (elements.length === 0) {
    if (bytes[open] !== OPEN_BRACKET) throw new ScanError('not a JSON array');
    at = skipWhitespace(bytes, open + 1);
    if (bytes[at] === CLOSE_BRACKET) return { elements, end: at + 1 };
    const end = elementEnd(bytes, at);
    elements.push({ start: at, end });
    at = end;
  } else at = elements[elements.length - 1]!.end;
  for (;;) {
    at = skipWhitespace(bytes, at);
    if (bytes[at] === CLOSE_BRACKET) return { elements, end: at + 1 };
    if (bytes[at] !== COMMA) throw new ScanError(`expected "," or "]" at byte ${at}`);
    const start = skipWhitespace(bytes, at + 1);
    at = elementEnd(bytes, start);
    elements.push({ start, end: at });
  }
}

/** The ranges of the first `count` elements of the array opening at `open` (all of them when it has fewer). */
export function leadingElements(bytes: Buffer, open: number, count: number): ElementRange[] {
  if (bytes[open] !== OPEN_BRACKET) throw new ScanError('not a JSON array');
  const elements: ElementRange[] = [];
  let at = skipWhitespace(bytes, open + 1);
  while (elements.length < count && bytes[at] !== CLOSE_BRACKET) {
    if (elements.length > 0) {
      if (bytes[at] !== COMMA) throw new ScanError(`expected "," or "]" at byte ${at}`);
      at = skipWhitespace(bytes, at + 1);
    }
    const end = elementEnd(bytes, at);
    elements.push({ start: at, end });
    at = skipWhitespace(bytes, end);
  }
  return elements;
}
