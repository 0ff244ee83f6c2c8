/**
 * An HTTP exchange line's value, read from its bytes with the messages its conversation sent
 * before: every request resends its conversation's history, so most of a line is the messages array
 * of an earlier request, byte for byte. The line is scanned (topLevelScan.ts) into its request, body
 * and messages array; the earlier array that shares the most leading elements with this one is found
 * among the few remembered under the same first two elements, and its shared elements are compared
 * with memcmp (commonPrefix.ts) instead of being scanned and parsed again.
 *
 * The value is the one JSON.parse gives for the whole line: every byte not shared with an array
 * parsed before is parsed — the line without its messages array, then each new element — so the
 * line is checked as JSON.parse checks it, and a shared element's value is the one its bytes parsed
 * to before (the same object: the mapper reads values and never changes them, and the history
 * hasher, apis.ts, then finds shared items equal at once). Anything this does not read the same way
 * — invalid UTF-8, a key given twice on the way to the messages, an integer JSON.parse would round,
 * a fault anywhere — returns null, and the line is parsed whole, its fault reported from that parse.
 */
import { isUtf8 } from 'node:buffer';
import { mayHoldUnsafeIntegers } from '../../../../shared/trace/exactIntegers';
import { sharedElements, type ArrayBytes } from '../../bytes/commonPrefix';
import { validUtf8Text } from '../../bytes/decodeLine';
import { OPEN_BRACE, OPEN_BRACKET } from '../../bytes/jsonBytes';
import {
  leadingElements,
  scanArray,
  scanObject,
  scanTopLevel,
  ScanError,
  type ElementRange,
  type SkipMember,
  type TopLevelScan,
} from '../../bytes/topLevelScan';

/**
 * Bytes of messages arrays remembered (a copy of each, with its parsed elements); the least
 * recently read go first. Enough for the conversations a log interleaves; a conversation forgotten
 * is only parsed in full on its next request.
 */
const REMEMBERED_ARRAY_BYTES = 8 * 1024 * 1024;
/** Arrays remembered under one key: conversations that begin alike (an evaluation's samples of one task, retries) share it. */
const ARRAYS_PER_KEY = 8;
/** Bytes of each of the first two elements that make an array's key. */
const KEY_BYTES = 512;

/**
 * Shorter lines are parsed whole: scanning one, piecing its value together and remembering its
 * array cost more than the parse saves (the many-short-conversations bench trace, lines of 5–15 KB,
 * took 15 % longer read this way; the long sessions', ~120 KB a line, 30 % less).
 */
const MIN_LINE_BYTES = 32 * 1024;

const EMPTY_ARRAY = Buffer.from('[]');

interface RememberedArray extends ArrayBytes {
  key: string;
  /** The value of each element. */
  items: readonly unknown[];
}

/** The messages array of the line being read: where, its elements' ranges, and the remembered array its first `shared` elements are. */
interface ScannedMessages {
  open: number;
  end: number;
  ranges: ElementRange[];
  shared: number;
  from: RememberedArray | null;
  key: string;
}

/** What scanning the line found on the way to its messages array. */
interface Found {
  request?: TopLevelScan;
  body?: TopLevelScan;
  messages?: ScannedMessages;
}

/** JSON.parse of valid UTF-8 bytes, or undefined for bytes it would reject or round an integer of. */
function parsed(bytes: Buffer): { value: unknown } | undefined {
  const text = validUtf8Text(bytes);
  if (mayHoldUnsafeIntegers(text)) return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export class ExchangeLineReader {
  private readonly byKey = new Map<string, RememberedArray[]>();
  /** Every remembered array, least recently remembered first. */
  private readonly remembered = new Set<RememberedArray>();
  private rememberedBytes = 0;

  /** The line's value as JSON.parse gives it, or null to have the line parsed whole. */
  read(bytes: Buffer): { value: unknown } | null {
    if (bytes.length < MIN_LINE_BYTES || !isUtf8(bytes)) return null;
    const found: Found = {};
    const nested =
      (name: 'request' | 'body', inner: SkipMember): SkipMember =>
      (key, line, open) => {
        if (key !== name || line[open] !== OPEN_BRACE) return null;
        const { members, end } = scanObject(line, open, inner);
        found[name] = members;
        return { end, size: members.size };
      };
    const messages: SkipMember = (key, line, open) => {
      if (key !== 'messages' || line[open] !== OPEN_BRACKET) return null;
      found.messages = this.scanMessages(line, open);
      return { end: found.messages.end, size: found.messages.ranges.length };
    };
    let top: TopLevelScan;
    try {
      top = scanTopLevel(bytes, nested('request', nested('body', messages)));
    } catch (error) {
      if (error instanceof ScanError) return null;
      throw error;
    }
    const scanned = found.messages;
    // A key given twice on the way is read as JSON.parse reads it (the last) only by a full parse.
    const once = (scan: TopLevelScan | undefined, key: string) => scan?.get(key) !== undefined && scan.get(key)!.earlier === undefined;
    if (
      scanned === undefined ||
      [...top.values()].some((member) => member.earlier !== undefined) ||
      !once(found.request, 'body') ||
      !once(found.body, 'messages')
    )
      return null;

    const skeleton = parsed(Buffer.concat([bytes.subarray(0, scanned.open), EMPTY_ARRAY, bytes.subarray(scanned.end)]));
    if (skeleton === undefined || !isObject(skeleton.value)) return null;
    const request = skeleton.value['request'];
    const body = isObject(request) ? request['body'] : undefined;
    if (!isObject(body) || !Array.isArray(body['messages'])) return null;
    const items: unknown[] = scanned.from === null ? [] : scanned.from.items.slice(0, scanned.shared);
    for (let index = scanned.shared; index < scanned.ranges.length; index++) {
      const range = scanned.ranges[index]!;
      const element = parsed(bytes.subarray(range.start, range.end));
      if (element === undefined) return null;
      items.push(element.value);
    }
    body['messages'] = items;
    this.remember(bytes, scanned, items);
    return { value: skeleton.value };
  }

  /** The messages array opening at `open`, its first elements taken from the remembered array that shares the most. */
  private scanMessages(line: Buffer, open: number): ScannedMessages {
    const leading = leadingElements(line, open, 2);
    const key = leading
      .map((range) => `${range.end - range.start}:${line.toString('latin1', range.start, Math.min(range.end, range.start + KEY_BYTES))}`)
      .join('\n');
    let from: RememberedArray | null = null;
    let known: ElementRange[] = [];
    for (const candidate of this.byKey.get(key) ?? []) {
      const shared = sharedElements(candidate, line, open);
      if (shared.length > known.length) {
        from = candidate;
        known = shared;
      }
    }
    const { elements, end } = scanArray(line, open, known);
    return { open, end, ranges: elements, shared: known.length, from, key };
  }

  /** Remembers the line's messages array for the requests after it; an array it wholly repeats is the same conversation's, and goes. */
  private remember(line: Buffer, scanned: ScannedMessages, items: readonly unknown[]): void {
    if (scanned.ranges.length === 0) return;
    const { open, end, key } = scanned;
    const entry: RememberedArray = {
      key,
      bytes: Buffer.from(line.subarray(open, end)),
      ranges: scanned.ranges.map((range) => ({ start: range.start - open, end: range.end - open })),
      items,
    };
    if (scanned.from !== null && scanned.shared === scanned.from.ranges.length) this.forget(scanned.from);
    const list = this.byKey.get(key) ?? [];
    list.unshift(entry);
    this.byKey.set(key, list);
    this.remembered.add(entry);
    this.rememberedBytes += entry.bytes.length;
    if (list.length > ARRAYS_PER_KEY) this.forget(list.at(-1)!);
    for (const oldest of this.remembered) {
      if (this.rememberedBytes <= REMEMBERED_ARRAY_BYTES || oldest === entry) break;
      this.forget(oldest);
    }
  }

  private forget(entry: RememberedArray): void {
    if (!this.remembered.delete(entry)) return;
    this.rememberedBytes -= entry.bytes.length;
    const list = this.byKey.get(entry.key)!;
    list.splice(list.indexOf(entry), 1);
    if (list.length === 0) this.byKey.delete(entry.key);
  }
}
