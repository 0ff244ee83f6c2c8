/** A record as the file holds it now (`rawLine`, and the record of an event): its text, cut to a size, or stale. */
import type Database from 'better-sqlite3';
import type { RawRecord } from '../../../shared/api';
import { lineRecordLocation, RawLineReader, SourceChangedError, sourcePath, TraceFileError } from '../../engine';
import { ApiError } from '../apiError';
import type { Query } from './scope';

interface LineLocation {
  line: number;
  offset: number;
  length: number;
}

/** The longest prefix of `bytes` within `maxBytes` that does not split a UTF-8 character. */
function cutAtCharacter(bytes: Buffer, maxBytes: number): Buffer {
  if (bytes.length <= maxBytes) return bytes;
  let end = maxBytes;
  // Continuation bytes are 10xxxxxx: step back to the start of the character the cut falls in.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end);
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * The record of `location` as the file holds it now: its text (invalid UTF-8 replaced, a CRLF
 * line's `\r` left out, cut at `maxBytes`), or `stale` with no text when the file changed or is gone
 * since it was ingested.
 */
export function rawRecord(db: Database.Database, sourceId: number, location: LineLocation, maxBytes: number): RawRecord {
  const file = sourcePath(db, sourceId) ?? '';
  const base = { file, line: location.line, offset: location.offset, length: location.length };
  let raw;
  try {
    // Read at the record's own offset, not by its line: a line may hold several records (a JSON
    // array, events separated by lone CRs). One byte past the limit: cutAtCharacter looks at it to
    // tell whether the limit splits a character.
    const reader = RawLineReader.open(db, sourceId);
    if (reader === null) throw new ApiError('not_found', `nothing was recorded for line ${location.line} of ${file}`);
    try {
      raw = reader.read(location.line, { byte_offset: location.offset, byte_length: location.length }, { maxBytes: maxBytes + 1 });
    } finally {
      reader.close();
    }
  } catch (error) {
    if (error instanceof SourceChangedError || error instanceof TraceFileError) return { ...base, text: '', truncated: false, stale: true };
    throw error;
  }
  const kept = cutAtCharacter(raw.bytes, maxBytes);
  const truncated = kept.length < raw.length;
  const text = utf8.decode(kept);
  return { ...base, text: !truncated && text.endsWith('\r') ? text.slice(0, -1) : text, truncated, stale: false };
}

export const rawLine: Query<'rawLine'> = (db, scope, request) => {
  if (!scope.sourceIds.includes(request.sourceId)) throw new ApiError('not_found', `no source ${request.sourceId} in this trace`);
  const location = lineRecordLocation(db, request.sourceId, request.line);
  if (location === undefined) throw new ApiError('not_found', `nothing was recorded for line ${request.line} (a blank line, or past the end of the file)`);
  return rawRecord(db, request.sourceId, { line: request.line, offset: location.byte_offset, length: location.byte_length }, request.maxBytes);
};
