/**
 * Growing typed-array columns, for what a long run holds one of per event or per call until it
 * ends: a number in a typed array takes its 1 to 8 bytes, where a field of an object per item, or
 * a slot of a JS list, takes 8 and a string per item its header besides.
 */

type NumberArray = Uint8Array | Uint32Array | Int32Array | Float64Array;

/**
 * Room for this many items first: a column then grows by doubling, copied once per growth. Small,
 * because every open run holds a dozen columns and an exchange log keeps each of its thousands of
 * conversations open until the file ends (at 256, the 1 GB chat trace's peak RSS rose by ~60 MB).
 */
export const FIRST_CAPACITY = 16;

export function grown<T extends NumberArray>(column: T, capacity: number): T {
  const larger = new (column.constructor as new (length: number) => T)(capacity);
  larger.set(column.subarray(0, Math.min(column.length, capacity)));
  return larger;
}

/** Numbers pushed one at a time into a typed array, read and set by position. */
export class NumberColumn<T extends NumberArray> {
  private values: T;
  private count = 0;

  constructor(empty: new (length: number) => T) {
    this.values = new empty(FIRST_CAPACITY);
  }

  get length(): number {
    return this.count;
  }

  /** Returns the new item's position. */
  push(value: number): number {
    if (this.count === this.values.length) this.values = grown(this.values, Math.max(FIRST_CAPACITY, this.count * 2));
    this.values[this.count] = value;
    return this.count++;
  }

  get(at: number): number {
    return this.values[at]!;
  }

  set(at: number, value: number): void {
    this.values[at] = value;
  }

  /** Gives back the room not used (a run that ended takes no more). */
  trim(): void {
    if (this.values.length !== this.count) this.values = grown(this.values, this.count);
  }
}

const HEX_HASH = /^[0-9a-f]{16}$/;
/** Character codes of the hex digits, by value. */
const HEX_DIGITS = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
const NO_HASH = 0;
const HALVES = 1;
const TEXT = 2;

/**
 * Content hashes (nullable), one per item: one as ingest writes it (16 lowercase hex digits,
 * bytes/contentHash.ts) is kept as its two 32-bit halves and read back as the same text; any other
 * text is kept as is.
 */
export class HashColumn {
  private readonly kinds = new NumberColumn(Uint8Array);
  private readonly high = new NumberColumn(Uint32Array);
  private readonly low = new NumberColumn(Uint32Array);
  private readonly texts = new Map<number, string>();

  push(hash: string | null): void {
    const at = this.kinds.length;
    if (hash !== null && HEX_HASH.test(hash)) {
      this.kinds.push(HALVES);
      this.high.push(Number.parseInt(hash.slice(0, 8), 16));
      this.low.push(Number.parseInt(hash.slice(8), 16));
      return;
    }
    this.kinds.push(hash === null ? NO_HASH : TEXT);
    this.high.push(0);
    this.low.push(0);
    if (hash !== null) this.texts.set(at, hash);
  }

  get(at: number): string | null {
    switch (this.kinds.get(at)) {
      case HALVES:
        return hexOf(this.high.get(at), this.low.get(at));
      case TEXT:
        return this.texts.get(at)!;
      default:
        return null;
    }
  }

  trim(): void {
    this.kinds.trim();
    this.high.trim();
    this.low.trim();
  }
}

/**
 * The 16 hex digits of two 32-bit halves, made in one go: the rules read a long run's hashes
 * several times over, and `toString(16)` of a number past 2^31 (half of them) is several times slower.
 */
function hexOf(high: number, low: number): string {
  const d = HEX_DIGITS;
  return String.fromCharCode(
    d[high >>> 28]!,
    d[(high >>> 24) & 15]!,
    d[(high >>> 20) & 15]!,
    d[(high >>> 16) & 15]!,
    d[(high >>> 12) & 15]!,
    d[(high >>> 8) & 15]!,
    d[(high >>> 4) & 15]!,
    d[high & 15]!,
    d[low >>> 28]!,
    d[(low >>> 24) & 15]!,
    d[(low >>> 20) & 15]!,
    d[(low >>> 16) & 15]!,
    d[(low >>> 12) & 15]!,
    d[(low >>> 8) & 15]!,
    d[(low >>> 4) & 15]!,
    d[low & 15]!,
  );
}
