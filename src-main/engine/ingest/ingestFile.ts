/**
 * The parsing half of ingest: reads a trace file chunk by chunk — bytes → lines → events → rows —
 * and hands the rows to a batcher. It never touches the database; the store worker writes what
 * the batcher ships, on the other core. Synchronous reads are the fastest way to stream a file on
 * a thread that has nothing else to do; the only await is between chunks, for back-pressure.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { JsonStreamSplitter } from './jsonStreamSplitter';
import { LineSplitter, type SplitLine } from './lineSplitter';
import type { FirstRowIds } from './eventRecorder';
import { TraceIngester, type IngestCounters, type IngesterOptions } from './traceIngester';
import { isJsonEntry, readZipDirectory, readZipEntry, startsWithZipSignature } from '../bytes/zipEntries';
import type { FileIdentity } from '../store/traceDatabase';
import type { RowBatcher } from '../store/traceWriter';
import type { FormatAdapter } from '../adapters/formatAdapter';

export interface IngestProgress extends IngestCounters {
  bytesRead: number;
  totalBytes: number;
}

export interface IngestOptions {
  maxLineBytes: number;
  firstIds?: FirstRowIds;
  /** Collect the text of the full-text search index (see IngesterOptions). */
  searchIndex: boolean;
  /**
   * Awaited between chunks: where a writer on another thread applies back-pressure. Waiting here,
   * not inside the synchronous parse, keeps this thread's event loop turning, so a writer that
   * dies is seen instead of waited for.
   */
  beforeNextChunk?: () => Promise<void>;
  onProgress?: (progress: IngestProgress) => void;
}

const CHUNK_BYTES = 1 << 20;
const PROGRESS_INTERVAL_MS = 100;

/** Reads the bytes `identity` describes (a file still growing is read up to its size at identification). */
export async function ingestFile(
  identity: FileIdentity,
  format: FormatAdapter,
  sourceId: number,
  rows: RowBatcher,
  options: IngestOptions,
): Promise<IngestProgress> {
  if (format.framing === 'zip-json' && isZipFile(identity)) {
    return ingestZipEntries(
      identity,
      new TraceIngester(sourceId, rows, format.createMapper({ path: identity.path }), ingesterOptions(format, options)),
      options,
    );
  }
  const file = new GrowingFileIngest(identity.path, format, sourceId, rows, options);
  await file.readTo(identity.size);
  return file.finish();
}

function ingesterOptions(format: FormatAdapter, options: IngestOptions): IngesterOptions {
  return { ...(options.firstIds !== undefined ? { firstIds: options.firstIds } : {}), searchIndex: options.searchIndex, format: format.name };
}

/**
 * A trace file read in parts, as it is written: each `readTo` goes on from where the last one
 * stopped — a line cut at the end of what was read waits in the splitter for the rest — with the
 * same parse state, so appended lines are ingested alone, never the file again.
 */
export class GrowingFileIngest {
  private readonly ingester: TraceIngester;
  private readonly splitter: LineSplitter | JsonStreamSplitter;
  private readonly accept: (line: SplitLine) => void;
  private lastReport = 0;

  constructor(
    private readonly path: string,
    format: FormatAdapter,
    sourceId: number,
    rows: RowBatcher,
    private readonly options: IngestOptions,
  ) {
    this.ingester = new TraceIngester(sourceId, rows, format.createMapper({ path }), ingesterOptions(format, options));
    this.splitter =
      format.framing === 'json-values' || format.framing === 'zip-json'
        ? new JsonStreamSplitter({
            maxRecordBytes: options.maxLineBytes,
            ...(format.streamedArrays !== undefined ? { streamedArrays: format.streamedArrays } : {}),
          })
        : new LineSplitter({ maxLineBytes: options.maxLineBytes });
    this.accept = this.ingester.acceptLine.bind(this.ingester);
  }

  /** Bytes handed to the splitter so far: where the next `readTo` starts. */
  get offset(): number {
    return this.splitter.bytesRead;
  }

  progress(totalBytes = this.offset): IngestProgress {
    return { ...this.ingester.counters, bytesRead: this.offset, totalBytes };
  }

  /** Reads the file from `offset` up to `size` bytes. */
  async readTo(size: number): Promise<void> {
    const fd = openSync(this.path, 'r');
    try {
      if (fstatSync(fd).size < size) throw new Error(`${this.path} shrank while it was being opened`);
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      let remaining = size - this.offset;
      while (remaining > 0) {
        const read = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, remaining), this.offset);
        if (read === 0) throw new Error(`${this.path} was truncated while it was being read`);
        remaining -= read;
        this.splitter.push(chunk.subarray(0, read), this.accept);
        if (this.options.beforeNextChunk) await this.options.beforeNextChunk();
        if (this.options.onProgress && Date.now() - this.lastReport >= PROGRESS_INTERVAL_MS) {
          this.options.onProgress(this.progress(size));
          this.lastReport = Date.now();
        }
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Stores the runs as the lines read so far leave them, the file still being written (see TraceIngester.checkpoint). */
  checkpoint(): IngestProgress {
    this.ingester.checkpoint();
    return this.progress();
  }

  /** The file ends here: its last line, even without a newline, is read, and every run is stored as final. */
  finish(): IngestProgress {
    this.splitter.end(this.accept);
    this.ingester.finish();
    const final = this.progress();
    this.options.onProgress?.(final);
    return final;
  }
}

function isZipFile(identity: FileIdentity): boolean {
  if (identity.size < 4) return false;
  const head = Buffer.alloc(4);
  const fd = openSync(identity.path, 'r');
  try {
    readSync(fd, head, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  return startsWithZipSignature(head);
}

/**
 * ZIP framing: each `.json` entry is one record, in central-directory order (other entries are
 * not records and are skipped). The record's line number is the entry's (1-based), its offset and
 * length are the entry's local header offset and compressed size; its bytes are the entry inflated.
 * An entry larger than the record size limit is reported as oversized without being inflated.
 */
async function ingestZipEntries(identity: FileIdentity, ingester: TraceIngester, options: IngestOptions): Promise<IngestProgress> {
  let bytesRead = 0;
  const progress = (): IngestProgress => ({ ...ingester.counters, bytesRead, totalBytes: identity.size });
  const fd = openSync(identity.path, 'r');
  try {
    if (fstatSync(fd).size < identity.size) throw new Error(`${identity.path} shrank while it was being opened`);
    let lastReport = Date.now();
    for (const entry of readZipDirectory(fd, identity.size)) {
      if (!isJsonEntry(entry)) continue;
      const record: SplitLine = { lineNumber: entry.index + 1, offset: entry.localHeaderOffset, length: entry.compressedSize, bytes: null };
      if (entry.uncompressedSize > options.maxLineBytes) {
        record.head = Buffer.from(`(ZIP entry ${entry.name}: ${entry.uncompressedSize} bytes inflated)`);
      } else {
        record.bytes = readZipEntry(fd, entry);
      }
      ingester.acceptLine(record);
      if (options.beforeNextChunk) await options.beforeNextChunk();
      bytesRead = Math.max(bytesRead, entry.localHeaderOffset + entry.compressedSize);
      if (options.onProgress && Date.now() - lastReport >= PROGRESS_INTERVAL_MS) {
        options.onProgress(progress());
        lastReport = Date.now();
      }
    }
  } finally {
    closeSync(fd);
  }
  ingester.finish();
  bytesRead = identity.size;
  const final = progress();
  options.onProgress?.(final);
  return final;
}
