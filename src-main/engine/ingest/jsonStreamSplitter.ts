/**
 * Splits a byte stream of JSON values written back to back — pretty-printed objects one after
 * another (the OpenTelemetry console exporter), or one whole JSON document — into records, at the
 * byte level: it tracks nesting and strings, and emits each top-level value when it closes. Like
 * the line splitter, any chunking of the input gives the same records.
 *
 * Streamed arrays: a document can be far larger than one record may be (an OpenHands event list,
 * an Inspect log's `samples`). The arrays named in `streamedArrays` are not kept whole: each of
 * their elements is a record of its own, emitted as soon as it closes, so memory holds one element,
 * not the document. `''` names a document that is itself an array. A member name names an array
 * member of a top-level object; the object is then emitted in parts, in file order:
 *   - the head: the members before the array, closed with the array left empty
 *     (`{"version":2,"eval":{…},"samples":[]}`), located at the bytes from `{` to the array's `[`;
 *   - each element of the array;
 *   - the tail: the members after the array, as an object of their own (`{"reductions":[…]}`),
 *     located at the bytes from after `]` to the closing `}`, and not emitted when there are none.
 * A record's bytes are what gets parsed; its offset and length locate the original bytes in the
 * file, which for a head or tail are the object's bytes around the array.
 *
 * A record that never closes is cut at the next line that starts with `{` or `[` in column 0 —
 * where pretty-printers start a top-level value — and emitted as it is, so one broken record
 * becomes one parse error instead of swallowing the rest of the file.
 */
import type { SplitLine } from './lineSplitter';
import { NEWLINE, QUOTE, BACKSLASH, COMMA, COLON, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, isWhitespace } from '../bytes/jsonBytes';

const OVERSIZED_HEAD_BYTES = 256;
/** Longest member name looked at when matching `streamedArrays`. */
const MAX_KEY_BYTES = 128;

/**
 * What the open record is: a top-level value; a line that is not JSON (`garbage`, it runs to the
 * end of its line); an element of a streamed array (`element` for an object or array, `string` and
 * `scalar` for the others); a top-level object watched for a streamed member (`object`).
 */
type RecordKind = 'value' | 'garbage' | 'element' | 'string' | 'scalar' | 'object';

/** Where a member key of a watched object is, while it is read. */
interface KeyState {
  /** Offset in the record's bytes where the key's opening quote is. */
  recordOffset: number;
  bytes: number[];
  closed: boolean;
  /** A `:` followed the closed key: the next non-blank byte starts its value. */
  colon: boolean;
}

export interface JsonStreamSplitterOptions {
  maxRecordBytes: number;
  /** Arrays whose elements are records of their own: `''` for a top-level array, else a top-level object's member name. */
  streamedArrays?: readonly string[];
}

export class JsonStreamSplitter {
  private readonly maxRecordBytes: number;
  private readonly streamsTopLevelArrays: boolean;
  private readonly streamedMembers: ReadonlySet<string>;
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private oversizedHead: Buffer | null = null;
  /** Offset of the open record's first byte; -1 when no record is open. */
  private recordStart = -1;
  private recordLine = 0;
  private kind: RecordKind = 'value';
  /** Bytes the open record's text starts with that are not in the file (a tail's `{`). */
  private prefix: Buffer | null = null;
  private position = 0;
  private line = 1;
  /** Nesting depth in the document (not in the record). */
  private depth = 0;
  private inString = false;
  private escaped = false;
  private atLineStart = true;
  /** Depth at which the elements of the streamed array being read sit; 0 when none is. */
  private elementDepth = 0;
  /** The streamed array is a member of a top-level object, whose tail follows it. */
  private memberArray = false;
  /** Between a member array's `]` and the tail's first member: blanks and one comma are not part of the tail. */
  private tailSkipsComma = false;
  private key: KeyState | null = null;

  constructor(options: JsonStreamSplitterOptions) {
    this.maxRecordBytes = options.maxRecordBytes;
    this.streamsTopLevelArrays = options.streamedArrays?.includes('') ?? false;
    this.streamedMembers = new Set(options.streamedArrays?.filter((name) => name !== ''));
  }

  get bytesRead(): number {
    return this.position;
  }

  push(chunk: Buffer, emit: (record: SplitLine) => void): void {
    let pieceStart = 0;
    for (let index = 0; index < chunk.length; index += 1) {
      const byte = chunk[index]!;
      const offset = this.position + index;
      const atLineStart = this.atLineStart;
      this.atLineStart = byte === NEWLINE;
      const opensValue = byte === OPEN_BRACE || byte === OPEN_BRACKET;

      if (this.recordStart === -1) {
        pieceStart = this.scanBetweenRecords(byte, opensValue, index, offset, pieceStart);
        continue;
      }

      if (atLineStart && opensValue && (this.kind === 'garbage' || !this.inString)) {
        pieceStart = this.cutAndReopen(chunk, pieceStart, index, offset, byte, emit);
        continue;
      }

      if (this.kind === 'garbage') {
        if (byte === NEWLINE) {
          this.completeRecord(chunk, pieceStart, index, offset, emit);
          this.line += 1;
        }
        continue;
      }
      if (byte === NEWLINE) this.line += 1;

      if (this.kind === 'scalar') {
        pieceStart = this.scanScalarElement(chunk, byte, pieceStart, index, offset, emit);
        continue;
      }

      if (this.inString) {
        this.scanStringByte(byte);
        if (!this.inString && this.kind === 'string') this.completeRecord(chunk, pieceStart, index + 1, offset + 1, emit);
        continue;
      }

      if (this.kind === 'object' && this.depth === 1 && (this.skipsTailSeparator(byte) || this.watchKey(byte, chunk, pieceStart, index, offset, emit))) {
        pieceStart = index + 1;
        continue;
      }

      if (byte === QUOTE) this.inString = true;
      else if (opensValue) this.depth += 1;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        this.depth -= 1;
        if (this.kind === 'element' && this.depth === this.elementDepth) this.completeRecord(chunk, pieceStart, index + 1, offset + 1, emit);
        else if (this.depth === 0) this.closeTopLevelValue(chunk.subarray(pieceStart, index + 1), offset + 1, emit);
      }
    }
    if (this.recordStart !== -1) this.accumulate(chunk.subarray(pieceStart));
    this.position += chunk.length;
  }

  /**
   * A byte while no record is open: a blank, a streamed array's comma or `]`, or the first byte of
   * a record, which it opens. Returns where the open record's first piece starts.
   */
  private scanBetweenRecords(byte: number, opensValue: boolean, index: number, offset: number, pieceStart: number): number {
    if (byte === NEWLINE) this.line += 1;
    if (this.elementDepth > 0) {
      if (isWhitespace(byte) || byte === COMMA) return pieceStart;
      if (byte === CLOSE_BRACKET) {
        this.closeStreamedArray(offset + 1);
        return index + 1;
      }
      this.beginElement(offset, byte);
      if (this.kind === 'element') this.depth += 1;
      return index;
    }
    if (isWhitespace(byte)) return pieceStart;
    if (byte === OPEN_BRACKET && this.streamsTopLevelArrays) {
      this.depth = 1;
      this.elementDepth = 1;
      this.memberArray = false;
      return pieceStart;
    }
    this.begin(offset, byte === OPEN_BRACE && this.streamedMembers.size > 0 ? 'object' : opensValue ? 'value' : 'garbage');
    if (opensValue) this.depth = 1;
    return index;
  }

  /**
   * A byte of a bare number or literal element, which ends at the first byte that cannot be part
   * of it. Returns where the open record's next piece starts.
   */
  private scanScalarElement(chunk: Buffer, byte: number, pieceStart: number, index: number, offset: number, emit: (record: SplitLine) => void): number {
    if (byte !== COMMA && byte !== CLOSE_BRACKET && byte !== CLOSE_BRACE && !isWhitespace(byte)) return pieceStart;
    this.completeRecord(chunk, pieceStart, index, offset, emit);
    if (byte !== CLOSE_BRACKET) return pieceStart;
    this.closeStreamedArray(offset + 1);
    return index + 1;
  }

  /** A byte inside a string: its end, its escapes, and the name of the member key being read. */
  private scanStringByte(byte: number): void {
    // JSON strings hold no raw newline: one here means the string was cut; the record will not
    // parse, and the framing carries on as if it had closed.
    if (byte === NEWLINE) this.inString = false;
    else if (this.escaped) this.escaped = false;
    else if (byte === BACKSLASH) this.escaped = true;
    else if (byte === QUOTE) this.inString = false;
    const key = this.key;
    if (key !== null && !key.closed) {
      if (!this.inString) key.closed = true;
      else if (key.bytes.length <= MAX_KEY_BYTES) key.bytes.push(byte);
    }
  }

  /** The open record's last piece ends before `pieceEnd` in `chunk`, at `endOffset` in the file: emits the record. */
  private completeRecord(chunk: Buffer, pieceStart: number, pieceEnd: number, endOffset: number, emit: (record: SplitLine) => void): void {
    this.accumulate(chunk.subarray(pieceStart, pieceEnd));
    emit(this.take(endOffset));
  }

  /**
   * A top-level value starts in column 0 while a record is still open: that record was cut. Emits
   * it as it is and opens the new value; returns where the open record's next piece starts.
   */
  private cutAndReopen(chunk: Buffer, pieceStart: number, index: number, offset: number, byte: number, emit: (record: SplitLine) => void): number {
    this.accumulate(chunk.subarray(pieceStart, index));
    emit(this.take(offset));
    this.resetToTopLevel();
    if (byte === OPEN_BRACKET && this.streamsTopLevelArrays) {
      this.depth = 1;
      this.elementDepth = 1;
      return index + 1;
    }
    this.begin(offset, byte === OPEN_BRACE && this.streamedMembers.size > 0 ? 'object' : 'value');
    this.depth = 1;
    return index;
  }

  /** The open record's last piece, up to its closing bracket at `end`: the record is complete. */
  private closeTopLevelValue(lastPiece: Buffer, end: number, emit: (record: SplitLine) => void): void {
    this.accumulate(lastPiece);
    // A tail with no member left (`}` alone) is only the end of its object: nothing to emit.
    const emptyTail = this.prefix !== null && this.oversizedHead === null && this.pendingLength === 1;
    const record = this.take(end);
    if (!emptyTail) emit(record);
  }

  /** Emits a record left open at the end of the input (a cut file). */
  end(emit: (record: SplitLine) => void): void {
    if (this.recordStart !== -1) emit(this.take(this.position));
  }

  /**
   * Between a member array's `]` and the tail's first member: the blanks and the one comma there
   * are not part of the tail. Returns true for such a byte.
   */
  private skipsTailSeparator(byte: number): boolean {
    if (!this.tailSkipsComma) return false;
    if (isWhitespace(byte) || byte === COMMA) {
      if (byte === COMMA) this.tailSkipsComma = false;
      return true;
    }
    this.tailSkipsComma = false;
    return false;
  }

  /**
   * Follows the member keys of a watched object at its top level. At the `[` of a streamed
   * member's value it emits the head and switches to the member's elements; returns true then.
   */
  private watchKey(byte: number, chunk: Buffer, pieceStart: number, index: number, offset: number, emit: (record: SplitLine) => void): boolean {
    const key = this.key;
    if (key !== null && key.closed) {
      if (!key.colon) {
        if (byte === COLON) {
          key.colon = true;
          return false;
        }
        if (isWhitespace(byte)) return false;
        this.key = null;
      } else {
        // The key's value starts here.
        if (isWhitespace(byte)) return false;
        this.key = null;
        const name = Buffer.from(key.bytes).toString('utf8');
        if (byte === OPEN_BRACKET && this.streamedMembers.has(name)) {
          this.accumulate(chunk.subarray(pieceStart, index + 1));
          emit(this.takeHead(key.recordOffset, name, offset + 1));
          this.depth = 2;
          this.elementDepth = 2;
          this.memberArray = true;
          return true;
        }
        return false;
      }
    }
    if (byte === QUOTE) {
      const recorded = (this.prefix?.length ?? 0) + this.recordedLength() + (index - pieceStart);
      this.key = { recordOffset: recorded, bytes: [], closed: false, colon: false };
    }
    return false;
  }

  private closeStreamedArray(endOffset: number): void {
    this.depth -= 1;
    this.elementDepth = 0;
    if (!this.memberArray) return;
    // The rest of the object is its tail, read as an object of its own.
    this.memberArray = false;
    this.begin(endOffset, 'object');
    this.prefix = Buffer.from('{');
    this.tailSkipsComma = true;
  }

  private beginElement(offset: number, byte: number): void {
    const kind: RecordKind = byte === OPEN_BRACE || byte === OPEN_BRACKET ? 'element' : byte === QUOTE ? 'string' : 'scalar';
    this.begin(offset, kind);
    if (kind === 'string') this.inString = true;
  }

  private begin(offset: number, kind: RecordKind): void {
    this.recordStart = offset;
    this.recordLine = this.line;
    this.kind = kind;
    this.prefix = null;
    this.key = null;
    this.tailSkipsComma = false;
    this.inString = false;
    this.escaped = false;
  }

  private resetToTopLevel(): void {
    this.depth = 0;
    this.elementDepth = 0;
    this.memberArray = false;
    this.inString = false;
    this.escaped = false;
  }

  /** Bytes of the open record accumulated so far (0 once it is oversized: its key positions no longer matter). */
  private recordedLength(): number {
    return this.oversizedHead === null ? this.pendingLength : 0;
  }

  private accumulate(piece: Buffer): void {
    if (piece.length === 0 || this.oversizedHead !== null) return;
    if (this.pendingLength + piece.length > this.maxRecordBytes) {
      this.oversizedHead = Buffer.concat([...this.pending, piece]).subarray(0, OVERSIZED_HEAD_BYTES);
      this.pending = [];
      this.pendingLength = 0;
      return;
    }
    this.pending.push(Buffer.from(piece));
    this.pendingLength += piece.length;
  }

  /** The head of a watched object: the members before `name`, with `name` an empty array. */
  private takeHead(keyOffset: number, name: string, endOffset: number): SplitLine {
    const record = this.take(endOffset);
    if (record.bytes !== null) {
      let before = record.bytes.subarray(0, keyOffset);
      let end = before.length;
      while (end > 0 && isWhitespace(before[end - 1]!)) end -= 1;
      before = before.subarray(0, end);
      record.bytes = Buffer.concat([before, Buffer.from(`${JSON.stringify(name)}:[]}`)]);
    }
    return record;
  }

  private take(endOffset: number): SplitLine {
    const bytes = this.oversizedHead === null ? Buffer.concat(this.prefix === null ? this.pending : [this.prefix, ...this.pending]) : null;
    const record: SplitLine = {
      lineNumber: this.recordLine,
      offset: this.recordStart,
      length: endOffset - this.recordStart,
      bytes,
      ...(this.oversizedHead !== null ? { head: this.oversizedHead } : {}),
    };
    this.pending = [];
    this.pendingLength = 0;
    this.oversizedHead = null;
    this.prefix = null;
    this.recordStart = -1;
    return record;
  }
}
