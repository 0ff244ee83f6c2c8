/**
 * The parsing half of ingest: reads a trace file chunk by chunk — bytes → lines → events → rows —
 * and hands the rows to a batcher. It never touches the database; the store worker writes what
 * the batcher ships, on the other core. Synchronous reads are the fastest way to stream a file on
 * a thread that has nothing else to do.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { JsonStreamSplitter } from './jsonStreamSplitter';
import { LineSplitter } from './lineSplitter';
import { TraceIngester, type IngestCounters } from './traceIngester';
import type { FileIdentity } from '../store/traceDatabase';
import type { RowBatcher } from '../store/traceWriter';
import type { FormatAdapter } from '../adapters/formatAdapter';

export interface IngestProgress extends IngestCounters {
  bytesRead: number;
  totalBytes: number;
}

export interface IngestOptions {
  maxLineBytes: number;
  onProgress?: (progress: IngestProgress) => void;
}

const CHUNK_BYTES = 1 << 20;
const PROGRESS_INTERVAL_MS = 100;

/** Reads the bytes `identity` describes (a file still growing is read up to its size at identification). */
export function ingestFile(identity: FileIdentity, format: FormatAdapter, sourceId: number, rows: RowBatcher, options: IngestOptions): IngestProgress {
  const ingester = new TraceIngester(sourceId, rows, format.createMapper({ path: identity.path }));
  const splitter =
    format.framing === 'json-values'
      ? new JsonStreamSplitter({ maxRecordBytes: options.maxLineBytes })
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
