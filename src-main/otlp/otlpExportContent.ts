/**
 * What each stored event of a trace says in full — a response's id and calls with their arguments,
 * a result's output and error, a request's messages, a run's config — for the OTLP export
 * (otlpExport.ts). The database keeps events' facts, not their content (the file keeps that), so the
 * source's records are read again from where ingest found them (every event's record and every
 * absorbed line, in file order) and mapped by a fresh mapper of the source's format, as ingest
 * mapped them, each record with its credentials replaced by `[REDACTED:<kind>]` first — the same
 * redaction `loopscope redact` writes (src-main/cli/redact.ts). The mapped events are matched to the
 * stored ones as the inspector matches one (api/eventContent.ts): same line, type, raw type and call.
 */
import type Database from 'better-sqlite3';
import { idText } from '../../shared/trace/canonicalEvents';
import {
  absorbedLineLocation,
  absorbedLinesAfter,
  adapterNamed,
  decodeLine,
  findLineSecrets,
  RawLineReader,
  replaceLineSecrets,
  sourcePath,
  type AdaptedEvent,
  type EventListSqlRow,
  type MappedEvent,
} from '../engine';
import { redactionPlaceholder } from '../../shared/secrets/secretScanner';

/** The stored event a mapped one is: same type and raw type, and the same call for a call's or result's event. */
function isStoredEvent(mapped: MappedEvent, row: EventListSqlRow): boolean {
  const event = mapped.event;
  if (event.type !== row.type || mapped.typeRaw !== row.type_raw) return false;
  const callId = 'call_id' in event ? event.call_id : undefined;
  return callId === undefined || callId === null || row.call_id === null || idText(callId as string | number) === row.call_id;
}

/** Where every record ingest mapped lies: the events' records and the absorbed lines, by line. */
function recordLocations(db: Database.Database, sourceId: number, rows: readonly EventListSqlRow[]): Map<number, { byte_offset: number; byte_length: number }> {
  const locations = new Map<number, { byte_offset: number; byte_length: number }>();
  for (const row of rows) if (!locations.has(row.line)) locations.set(row.line, { byte_offset: row.byte_offset, byte_length: row.byte_length });
  // Lines folded into an event lie between its line and the next event's; those before the first event after line 0.
  for (const line of [0, ...locations.keys()]) {
    for (const absorbed of absorbedLinesAfter(db, sourceId, line)) {
      const location = absorbedLineLocation(db, sourceId, absorbed);
      if (location !== undefined && !locations.has(absorbed)) locations.set(absorbed, location);
    }
  }
  return locations;
}

/**
 * The content of the source's stored events `rows`, by event id, credentials redacted; an event
 * its record does not map to again (a record an adapter reads only as part of its document) has
 * none, and is exported with its stored facts alone.
 */
export function redactedEventContents(db: Database.Database, sourceId: number, rows: readonly EventListSqlRow[]): Map<number, AdaptedEvent> {
  const contents = new Map<number, AdaptedEvent>();
  const reader = RawLineReader.open(db, sourceId);
  if (reader === null) return contents;
  const emitted = new Map<number, MappedEvent[]>();
  try {
    const adapter = adapterNamed(reader.format);
    if (adapter === undefined) return contents;
    const mapper = adapter.createMapper({ path: sourcePath(db, sourceId) ?? '' });
    const emit = (mapped: MappedEvent): void => {
      const onLine = emitted.get(mapped.line.lineNumber) ?? [];
      onLine.push(mapped);
      emitted.set(mapped.line.lineNumber, onLine);
    };
    const locations = [...recordLocations(db, sourceId, rows).entries()].sort(([a], [b]) => a - b);
    for (const [line, location] of locations) {
      const raw = reader.read(line, location);
      const secrets = findLineSecrets(raw.bytes);
      const bytes = replaceLineSecrets(
        raw.bytes,
        secrets,
        secrets.map((secret) => redactionPlaceholder(secret.kind)),
      );
      const decoded = decodeLine(bytes);
      if (decoded.kind === 'json') mapper.map(decoded.value, { lineNumber: line, offset: location.byte_offset, length: location.byte_length }, emit, bytes);
    }
    mapper.finish(emit);
  } finally {
    reader.close();
  }
  for (const row of [...rows].sort((a, b) => a.id - b.id)) {
    const onLine = emitted.get(row.line);
    const at = onLine?.findIndex((mapped) => isStoredEvent(mapped, row)) ?? -1;
    if (onLine === undefined || at === -1) continue;
    contents.set(row.id, onLine[at]!.event);
    onLine.splice(at, 1);
  }
  return contents;
}
