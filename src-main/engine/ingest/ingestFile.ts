/**
 * Reads a trace file chunk by chunk into its database: bytes → lines → events → rows. Runs inside
 * the ingest worker (see ingestWorker.ts); synchronous reads are the fastest way to stream a file
 * on a thread that has nothing else to do.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { LineSplitter } from './lineSplitter';
import { TraceIngester, type IngestCounters } from './traceIngester';
import { createQueryIndexes } from '../store/schema';
import { TraceWriter } from '../store/traceWriter';
import type { FileIdentity } from '../store/traceDatabase';

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

/** Ingests `identity.path` as a new source and returns its id. */
export function ingestFile(db: Database.Database, identity: FileIdentity, options: IngestOptions): number {
  const source = db
    .prepare(
      `INSERT INTO sources (path, size, mtime_ms, fingerprint, format, ingest_started_at)
       VALUES (?, ?, ?, ?, 'loopscope', ?)`,
    )
    .run(identity.path, identity.size, identity.mtimeMs, identity.fingerprint, new Date().toISOString());
  const sourceId = Number(source.lastInsertRowid);
  const writer = new TraceWriter(db);
  const ingester = new TraceIngester(sourceId, writer);
  const splitter = new LineSplitter({ maxLineBytes: options.maxLineBytes });
  const accept = ingester.acceptLine.bind(ingester);
  const report = (): void =>
    options.onProgress?.({ ...ingester.counters, bytesRead: splitter.bytesRead, totalBytes: identity.size });

  const fd = openSync(identity.path, 'r');
  try {
    // The file may grow while it is read (a live log); only the bytes present at stat time are this source.
    if (fstatSync(fd).size < identity.size) throw new Error(`${identity.path} shrank while it was being opened`);
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let lastReport = Date.now();
    let remaining = identity.size;
    while (remaining > 0) {
      const read = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, remaining), null);
      if (read === 0) throw new Error(`${identity.path} was truncated while it was being read`);
      remaining -= read;
      splitter.push(chunk.subarray(0, read), accept);
      if (Date.now() - lastReport >= PROGRESS_INTERVAL_MS) {
        report();
        lastReport = Date.now();
      }
    }
    splitter.end(accept);
  } finally {
    closeSync(fd);
  }
  ingester.finish();
  writer.flush();
  createQueryIndexes(db);
  const counters = ingester.counters;
  db.prepare(
    `UPDATE sources SET bytes = ?, lines = ?, blank_lines = ?, events = ?, parse_errors = ?, ingest_completed_at = ?
     WHERE id = ?`,
  ).run(identity.size, counters.lines, counters.blankLines, counters.events, counters.parseErrors, new Date().toISOString(), sourceId);
  report();
  return sourceId;
}
