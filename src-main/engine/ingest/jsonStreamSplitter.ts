/**
 * Splits a byte stream of JSON values written back to back — pretty-printed objects one after
 * another (the OpenTelemetry console exporter), or one whole JSON document — into records, at the
 * byte level: it tracks nesting and strings, and emits each top-level value when it closes. Like
 * the line splitter, any chunking of the input gives the same records.
 *
 * A record that never closes is cut at the next line that starts with `{` or `[` in column 0 —
 * where pretty-printers start a top-level value — and emitted as it is, so one broken record
 * becomes one parse error instead of swallowing the rest of the file.
 */
import type { SplitLine } from './lineSplitter';

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OVERSIZED_HEAD_BYTES = 256;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

export class JsonStreamSplitter {
  private readonly maxRecordBytes: number;
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private oversizedHead: Buffer | null = null;
  /** Offset of the open record's first byte; -1 between records. */
  private recordStart = -1;
  private recordLine = 0;
  /** A record that does not start with `{` or `[` is not JSON we can frame: it runs to the end of its line. */
  private garbage = false;
  private position = 0;
  private line = 1;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private atLineStart = true;

  constructor(options: { maxRecordBytes: number }) {
    this.maxRecordBytes = options.maxRecordBytes;
  }

  get bytesRead(): number {
    return this.position;
  }

  push(chunk: Buffer, emit: (record: SplitLine) => void): void {
    let pieceStart = 0;
    for (let index = 0; index < chunk.length; index += 1) {
      const byte = chunk[index]!;
      const atLineStart = this.atLineStart;
      this.atLineStart = byte === NEWLINE;
      const opensValue = byte === OPEN_BRACE || byte === OPEN_BRACKET;
      if (this.recordStart === -1) {
        if (isWhitespace(byte)) {
          if (byte === NEWLINE) this.line += 1;
          continue;
        }
        this.begin(this.position + index, !opensValue);
        pieceStart = index;
      } else if (atLineStart && opensValue && (this.garbage || !this.inString)) {
        // A top-level value starts while the previous record is still open: that one was cut.
        this.accumulate(chunk.subarray(pieceStart, index));
        emit(this.take(this.position + index));
        this.begin(this.position + index, false);
        pieceStart = index;
      }
      if (this.garbage) {
        if (byte === NEWLINE) {
          this.accumulate(chunk.subarray(pieceStart, index));
          emit(this.take(this.position + index));
          this.line += 1;
        }
        continue;
      }
      if (byte === NEWLINE) this.line += 1;
      if (this.inString) {
        // JSON strings hold no raw newline: one here means the string was cut; the record will not
        // parse, and the framing carries on as if it had closed.
        if (byte === NEWLINE) this.inString = false;
        else if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
        continue;
      }
      if (byte === QUOTE) this.inString = true;
      else if (opensValue) this.depth += 1;
      else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && --this.depth === 0) {
        this.accumulate(chunk.subarray(pieceStart, index + 1));
        emit(this.take(this.position + index + 1));
      }
    }
    if (this.recordStart !== -1) this.accumulate(chunk.subarray(pieceStart));
    this.position += chunk.length;
  }

  /** Emits a record left open at the end of the input (a cut file). */
  end(emit: (record: SplitLine) => void): void {
    if (this.recordStart !== -1) emit(this.take(this.position));
  }

  private begin(offset: number, garbage: boolean): void {
    this.recordStart = offset;
    this.recordLine = this.line;
    this.garbage = garbage;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
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

  private take(endOffset: number): SplitLine {
    const record: SplitLine = {
      lineNumber: this.recordLine,
      offset: this.recordStart,
      length: endOffset - this.recordStart,
      bytes: this.oversizedHead === null ? Buffer.concat(this.pending, this.pendingLength) : null,
      ...(this.oversizedHead !== null ? { head: this.oversizedHead } : {}),
    };
    this.pending = [];
    this.pendingLength = 0;
    this.oversizedHead = null;
    this.recordStart = -1;
    return record;
  }
}
