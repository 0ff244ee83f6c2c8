/**
 * Splits a byte stream into lines at the byte level, without decoding and without string
 * concatenation: a chunk boundary may fall anywhere (inside a line, between `\r` and `\n`,
 * inside a multi-byte character) and the lines come out the same.
 *
 * A line longer than `maxLineBytes` is not buffered: its bytes are skipped as they stream past and
 * it is reported as oversized with its exact offset and length, so memory stays bounded whatever
 * the file holds.
 */

export interface SplitLine {
  /** 1-based line number; blank lines count. */
  lineNumber: number;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** Length in bytes of the line as stored, terminator excluded (a trailing `\r` is included). */
  length: number;
  /**
   * The line's bytes without the `\n` and without a trailing `\r`; `null` when the line was oversized.
   * Valid only during the `emit` callback: it may be a view into the caller's chunk.
   */
  bytes: Buffer | null;
  /** First bytes of an oversized line, kept for the diagnostic excerpt. */
  head?: Buffer;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const OVERSIZED_HEAD_BYTES = 256;

export class LineSplitter {
  private readonly maxLineBytes: number;
  /** Pieces of the current, not yet terminated line (copies, so callers may reuse their chunk buffers). */
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private oversizedHead: Buffer | null = null;
  private lineStart = 0;
  private position = 0;
  private lineNumber = 0;

  constructor(options: { maxLineBytes: number }) {
    this.maxLineBytes = options.maxLineBytes;
  }

  /** Bytes consumed so far. */
  get bytesRead(): number {
    return this.position;
  }

  /** Feeds a chunk and calls `emit` for every line it completes. */
  push(chunk: Buffer, emit: (line: SplitLine) => void): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.accumulate(chunk.subarray(start));
        this.position += chunk.length - start;
        return;
      }
      const piece = chunk.subarray(start, newline);
      const whollyInChunk = this.pending.length === 0 && this.oversizedHead === null && piece.length <= this.maxLineBytes;
      if (!whollyInChunk) this.accumulate(piece);
      this.position += piece.length;
      emit(this.takeLine(whollyInChunk ? piece : null));
      this.position += 1;
      this.lineStart = this.position;
      start = newline + 1;
    }
  }

  /** Flushes a last line that has no terminating newline. */
  end(emit: (line: SplitLine) => void): void {
    if (this.position > this.lineStart) emit(this.takeLine(null));
  }

  private accumulate(piece: Buffer): void {
    if (piece.length === 0) return;
    const lengthSoFar = this.position - this.lineStart;
    if (this.oversizedHead !== null) return;
    if (lengthSoFar + piece.length > this.maxLineBytes) {
      this.oversizedHead = Buffer.concat([...this.pending, piece]).subarray(0, OVERSIZED_HEAD_BYTES);
      this.pending = [];
      this.pendingLength = 0;
      return;
    }
    this.pending.push(Buffer.from(piece));
    this.pendingLength += piece.length;
  }

  /** `direct` is the line when it lies wholly inside the current chunk: emitted without copying. */
  private takeLine(direct: Buffer | null): SplitLine {
    this.lineNumber += 1;
    const length = this.position - this.lineStart;
    const offset = this.lineStart;
    if (this.oversizedHead !== null) {
      const head = this.oversizedHead;
      this.oversizedHead = null;
      return { lineNumber: this.lineNumber, offset, length, bytes: null, head };
    }
    let bytes = direct ?? (this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingLength));
    this.pending = [];
    this.pendingLength = 0;
    if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN) bytes = bytes.subarray(0, bytes.length - 1);
    return { lineNumber: this.lineNumber, offset, length, bytes };
  }
}
