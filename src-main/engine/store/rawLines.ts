/**
 * Nothing is lost: every line that became an event or a parse error can be read back byte for
 * byte from the trace file, by the offset and length recorded at ingest. The file is checked
 * against the identity recorded then, so a changed file is reported instead of returning
 * bytes that are no longer the line that was analyzed.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { identifyFile } from './traceDatabase';

export interface RawLine {
  line: number;
  offset: number;
  /** The line's bytes as stored in the file, without its `\n` terminator. */
  bytes: Buffer;
}

export class SourceChangedError extends Error {}

interface LocationRow {
  byte_offset: number;
  byte_length: number;
}

interface SourceIdentityRow {
  path: string;
  size: number;
  mtime_ms: number;
  fingerprint: string;
}

/** Returns null when nothing was recorded for that line (a blank line, or past the end). */
export function readRawLine(db: Database.Database, sourceId: number, line: number): RawLine | null {
  const location =
    db.prepare<[number, number], LocationRow>('SELECT byte_offset, byte_length FROM events WHERE source_id = ? AND line = ? LIMIT 1').get(sourceId, line) ??
    db.prepare<[number, number], LocationRow>('SELECT byte_offset, byte_length FROM parse_errors WHERE source_id = ? AND line = ? LIMIT 1').get(sourceId, line) ??
    db.prepare<[number, number], LocationRow>('SELECT byte_offset, byte_length FROM absorbed_lines WHERE source_id = ? AND line = ? LIMIT 1').get(sourceId, line);
  if (location === undefined) return null;
  const source = db.prepare<[number], SourceIdentityRow>('SELECT path, size, mtime_ms, fingerprint FROM sources WHERE id = ?').get(sourceId);
  if (source === undefined) return null;
  const current = identifyFile(source.path);
  if (current.size !== source.size || current.mtimeMs !== source.mtime_ms || current.fingerprint !== source.fingerprint) {
    throw new SourceChangedError(`${source.path} changed since it was ingested; reopen it to see its current lines`);
  }
  const bytes = Buffer.alloc(location.byte_length);
  const fd = openSync(source.path, 'r');
  try {
    readSync(fd, bytes, 0, location.byte_length, location.byte_offset);
  } finally {
    closeSync(fd);
  }
  return { line, offset: location.byte_offset, bytes };
}
