/**
 * Nothing is lost: every line that became an event or a parse error can be read back byte for
 * byte from the trace file, by the offset and length recorded at ingest. The file is checked
 * against the identity recorded then, so a changed file is reported instead of returning
 * bytes that are no longer the line that was analyzed.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { prepared } from './preparedStatements';
import { identifyFile } from './traceDatabase';
// eslint-disable-next-line no-restricted-imports -- whether a source's lines are ZIP entries is its format's framing, which only the adapters know
import { adapterNamed } from '../adapters/registry';
import { readZipDirectory, readZipEntry, startsWithZipSignature } from '../bytes/zipEntries';

export interface RawLine {
  line: number;
  offset: number;
  /**
   * The line's bytes as stored in the file, without its `\n` terminator. For a ZIP container
   * (`zip-json` framing) the "line" is an entry, and these are its bytes inflated.
   */
  bytes: Buffer;
  /** The line's whole length in bytes: more than `bytes` holds when it was read with `maxBytes`. */
  length: number;
}

export class SourceChangedError extends Error {}

/**
 * Whether the bytes ingested are still the file's: the same file, or one that only grew since
 * (a trace still being written, a followed file): its recorded lines are still where they were.
 */
function ingestedBytesUnchanged(source: SourceIdentityRow): boolean {
  const current = identifyFile(source.path);
  if (current.size === source.size) return current.mtimeMs === source.mtime_ms && current.fingerprint === source.fingerprint;
  return current.size > source.size && identifyFile(source.path, source.size)?.fingerprint === source.fingerprint;
}

/** Where a record is in its file. */
export interface LocationSqlRow {
  byte_offset: number;
  byte_length: number;
}

interface SourceIdentityRow {
  path: string;
  size: number;
  mtime_ms: number;
  fingerprint: string;
  format: string;
}

/**
 * Returns null when nothing was recorded for that line (a blank line, or past the end). With
 * `maxBytes`, reads at most that many bytes of the line, so a huge line is not read whole to be
 * shown in part (a ZIP entry is inflated whole, then cut).
 */
export function readRawLine(db: Database.Database, sourceId: number, line: number, options: { maxBytes?: number } = {}): RawLine | null {
  const location =
    db.prepare<[number, number], LocationSqlRow>('SELECT byte_offset, byte_length FROM events WHERE source_id = ? AND line = ? LIMIT 1').get(sourceId, line) ??
    db
      .prepare<[number, number], LocationSqlRow>('SELECT byte_offset, byte_length FROM parse_errors WHERE source_id = ? AND line = ? LIMIT 1')
      .get(sourceId, line) ??
    db
      .prepare<[number, number], LocationSqlRow>('SELECT byte_offset, byte_length FROM absorbed_lines WHERE source_id = ? AND line = ? LIMIT 1')
      .get(sourceId, line);
  if (location === undefined) return null;
  const reader = RawLineReader.open(db, sourceId);
  if (reader === null) return null;
  try {
    return reader.read(line, location, options);
  } finally {
    reader.close();
  }
}

/** Where the first record of `line` is: an event's, else a parse error's, else an absorbed line's. */
export function lineRecordLocation(db: Database.Database, sourceId: number, line: number): LocationSqlRow | undefined {
  return prepared<[number, number, number, number, number, number], LocationSqlRow>(
    db,
    `SELECT byte_offset, byte_length FROM events WHERE source_id = ? AND line = ?
     UNION ALL SELECT byte_offset, byte_length FROM parse_errors WHERE source_id = ? AND line = ?
     UNION ALL SELECT byte_offset, byte_length FROM absorbed_lines WHERE source_id = ? AND line = ?
     LIMIT 1`,
  ).get(sourceId, line, sourceId, line, sourceId, line);
}

/**
 * The records of the event on `line` and of up to `absorbedLines` lines after it that were folded
 * into events (where a merged message's later blocks are).
 */
export function recordsFrom(db: Database.Database, sourceId: number, line: number, absorbedLines: number): (LocationSqlRow & { line: number })[] {
  return prepared<[number, number, number, number, number], LocationSqlRow & { line: number }>(
    db,
    `SELECT line, byte_offset, byte_length FROM events WHERE source_id = ? AND line = ?
     UNION ALL
     SELECT line, byte_offset, byte_length FROM (
       SELECT line, byte_offset, byte_length FROM absorbed_lines WHERE source_id = ? AND line > ? ORDER BY line LIMIT ?)`,
  ).all(sourceId, line, sourceId, line, absorbedLines);
}

/**
 * Reads lines of one source by their recorded locations, with one identity check and one open
 * file for all of them (request analysis reads back every request of a trace).
 */
export class RawLineReader {
  private constructor(
    private readonly fd: number,
    private readonly size: number,
    /** The format the source was read as. */
    readonly format: string,
  ) {}

  /** Null when the source is unknown; throws SourceChangedError when the file changed since it was ingested. */
  static open(db: Database.Database, sourceId: number): RawLineReader | null {
    const source = db.prepare<[number], SourceIdentityRow>('SELECT path, size, mtime_ms, fingerprint, format FROM sources WHERE id = ?').get(sourceId);
    if (source === undefined) return null;
    if (!ingestedBytesUnchanged(source)) throw new SourceChangedError(`${source.path} changed since it was ingested; reopen it to see its current lines`);
    return new RawLineReader(openSync(source.path, 'r'), source.size, source.format);
  }

  /** `into`: a buffer to read the line into when it is large enough (the line's bytes are then a view of it), for a caller that reuses its buffers. */
  read(line: number, location: LocationSqlRow, options: { maxBytes?: number; into?: Buffer } = {}): RawLine {
    if (adapterNamed(this.format)?.framing === 'zip-json') {
      const zipEntry = zipEntryBytes(this.fd, this.size, location.byte_offset);
      if (zipEntry !== null)
        return { line, offset: location.byte_offset, bytes: zipEntry.subarray(0, options.maxBytes ?? zipEntry.length), length: zipEntry.length };
    }
    // Not zero-filled first (request analysis reads back every request of a trace): the read fills
    // it, and what a file cut short since its identity check leaves unread is zeroed as before.
    const length = Math.min(location.byte_length, options.maxBytes ?? location.byte_length);
    const bytes = options.into !== undefined && options.into.length >= length ? options.into.subarray(0, length) : Buffer.allocUnsafe(length);
    const read = readSync(this.fd, bytes, 0, bytes.length, location.byte_offset);
    if (read < bytes.length) bytes.fill(0, read);
    return { line, offset: location.byte_offset, bytes, length: location.byte_length };
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** In a ZIP container, the inflated bytes of the entry whose local header is at `offset`; null when the file is not a ZIP. */
function zipEntryBytes(fd: number, size: number, offset: number): Buffer | null {
  const signature = Buffer.alloc(4);
  readSync(fd, signature, 0, 4, 0);
  if (!startsWithZipSignature(signature)) return null;
  const entry = readZipDirectory(fd, size).find((candidate) => candidate.localHeaderOffset === offset);
  return entry === undefined ? null : readZipEntry(fd, entry);
}
