/**
 * Where a JSON array repeats an array read before, byte for byte: every request resends its
 * conversation's history, so most of a request's messages array is the previous request's. The
 * shared bytes are found with memcmp, and the earlier array's elements wholly inside them are the
 * new array's first elements, unscanned (topLevelScan.ts's scanArray goes on after them).
 */
import type { ElementRange } from './topLevelScan';
import { CLOSE_BRACE, CLOSE_BRACKET, QUOTE } from './jsonBytes';

/** How many leading bytes `a` and `b` share: memcmp over blocks, then byte by byte in the block that differs. */
export function commonPrefixLength(a: Buffer, b: Buffer): number {
  const length = Math.min(a.length, b.length);
  const block = 4096;
  let at = 0;
  while (at + block <= length && a.compare(b, at, at + block, at, at + block) === 0) at += block;
  while (at < length && a[at] === b[at]) at += 1;
  return at;
}

/** An array as read before: its bytes (from its `[`) and its elements' ranges in them. */
export interface ArrayBytes {
  bytes: Buffer;
  ranges: readonly ElementRange[];
}

/**
 * The ranges, in `bytes`, of the first elements of the array opening at `open` that are `earlier`'s
 * elements byte for byte.
 */
export function sharedElements(earlier: ArrayBytes, bytes: Buffer, open: number): ElementRange[] {
  const common = commonPrefixLength(earlier.bytes, bytes.subarray(open, open + earlier.bytes.length));
  const shared: ElementRange[] = [];
  for (const range of earlier.ranges) {
    // An object, array or string ends where it closes; a bare number could go on (`12` → `123`),
    // so it is the same element only if the byte after it is the same too.
    const last = earlier.bytes[range.end - 1];
    const closed = last === CLOSE_BRACE || last === CLOSE_BRACKET || last === QUOTE;
    if (range.end > common || (!closed && range.end === common)) break;
    shared.push({ start: open + range.start, end: open + range.end });
  }
  return shared;
}
