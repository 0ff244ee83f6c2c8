/**
 * The parsing half of ingest: reads a trace file chunk by chunk — bytes → lines → events → rows —
 * and hands the rows to a batcher. It never touches the database; the store worker writes what
 * the batcher ships, on the other core. Synchronous reads are the fastest way to stream a file on
 * a thread that has nothing else to do; the only await is between chunks, for back-pressure.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { JsonStreamSplitter } from './jsonStreamSplitter';
import { LineSplitter, type SplitLine } from './lineSplitter';
import { TraceIngester, type FirstRowIds, type IngestCounters } from './traceIngester';
import { isJsonEntry, readZipDirectory, readZipEntry, startsWithZipSignature } from './zipEntries';
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
export async function ingestFile(identity: FileIdentity, format: FormatAdapter, sourceId: number, rows: RowBatcher, options: IngestOptions): Promise<IngestProgress> {
  const ingester = new TraceIngester(sourceId, rows, format.createMapper({ path: identity.path }), {
    ...(options.firstIds !== undefined ? { firstIds: options.firstIds } : {}),
    searchIndex: options.searchIndex,
  });
  if (format.framing === 'zip-json' && isZipFile(identity)) return ingestZipEntries(identity, ingester, options);
  const splitter =
    format.framing === 'json-values' || format.framing === 'zip-json'
      ? new JsonStreamSplitter({ maxRecordBytes: options.maxLineBytes, ...(format.streamedArrays !== undefined ? { streamedArrays: format.streamedArrays } : {}) })
      : new LineSplitter({ maxLineBytes: options.maxLineBytes });
  const accept = ingester.acceptLine.bind(ingester);
  const progress = (): IngestProgress => ({ ...ingester.counters, bytesRead: splitter.bytesRead, totalBytes: identity.size });

  const fd = openSync(identity.path, 'r');
  try {
    if (fstatSync(fd).size < identity.size) throw new Error(`${identity.path} shrank while it was being opened`);
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let lastReport = Date.now();
    let remaining = identity.size;
    while (remaining > 0) {
      const read = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, remaining), null);
      if (read === 0) throw new Error(`${identity.path} was truncated while it was being read`);
      remaining -= read;
      splitter.push(chunk.subarray(0, read), accept);
      if (options.beforeNextChunk) await options.beforeNextChunk();
      if (options.onProgress && Date.now() - lastReport >= PROGRESS_INTERVAL_MS) {
        options.onProgress(progress());
        lastReport = Date.now();
      }
    }
    splitter.end(accept);
  } finally {
    closeSync(fd);
  }
  ingester.finish();
  const final = progress();
  options.onProgress?.(final);
  return final;
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
