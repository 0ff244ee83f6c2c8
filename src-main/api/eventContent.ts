/**
 * What an event says — a tool result's output, the arguments of the calls it issued, a prompt's or
 * a task's text — read from its record by the format's own adapter, the same mapping ingest made.
 * The database keeps events' facts, not their content (the file keeps that), so the inspector's
 * Output and Arguments views ask for it here, one event at a time.
 *
 * Unless `revealSecrets`, the record's text is masked before it is mapped, as the record view shows
 * it: a credential recognised by its context (`"aws_secret_access_key": …`) stays masked in the
 * output even once the output is a value of its own, out of that context.
 *
 * The record and the lines folded into it are mapped by a fresh mapper, alone: an adapter that
 * needs the lines around them (a stream of chunks, an element of a streamed document) may emit no
 * matching event, and then the answer is null and the inspector shows the record as written.
 */
import type Database from 'better-sqlite3';
import type { EventContent } from '../../shared/api';
import {
  absorbedLineLocation,
  adapterNamed,
  decodeLine,
  RawLineReader,
  sourcePath,
  type AdaptedEvent,
  type ContentEventSqlRow,
  type MappedEvent,
} from '../engine';
import { maskSecrets } from '../../shared/secrets/secretScanner';
import { idText } from '../../shared/trace/canonicalEvents';

/** Records longer than this are not mapped again for their content (their JSON view still shows them, cut). */
export const CONTENT_MAX_BYTES = 16 * 1024 * 1024;

/** The adapted event the stored one came from: same type and raw type, and the same call for a call's or result's event. */
function isStoredEvent(mapped: MappedEvent, row: ContentEventSqlRow): boolean {
  const event = mapped.event;
  if (event.type !== row.type || mapped.typeRaw !== row.type_raw) return false;
  const callId = 'call_id' in event ? event.call_id : undefined;
  return callId === undefined || callId === null || row.call_id === null || idText(callId as string | number) === row.call_id;
}

function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function contentOf(event: AdaptedEvent): EventContent {
  switch (event.type) {
    case 'tool_result':
      return { output: event.output, error: event.error, arguments: [], text: null };
    case 'model_response':
      return {
        output: undefined,
        error: undefined,
        arguments: (event.tool_calls ?? []).map((call) => ({ callId: idText(call.call_id), name: call.name, value: call.arguments })),
        text: event.text ?? event.refusal ?? null,
      };
    case 'tool_call_start':
      return {
        output: undefined,
        error: undefined,
        arguments: [{ callId: idText(event.call_id), name: event.name ?? '', value: event.arguments }],
        text: null,
      };
    case 'run_start':
      return { output: undefined, error: undefined, arguments: [], text: textOf(event.task) };
    case 'unknown':
      return { output: undefined, error: undefined, arguments: [], text: event.text ?? null };
    default:
      return { output: undefined, error: undefined, arguments: [], text: null };
  }
}

/**
 * The content of the stored event `row` (with `absorbedLines`, the lines folded into it), or null
 * when its record cannot be read whole or mapped alone.
 */
export function eventContent(
  db: Database.Database,
  row: ContentEventSqlRow,
  absorbedLines: readonly number[],
  options: { revealSecrets: boolean },
): EventContent | null {
  if (row.byte_length > CONTENT_MAX_BYTES) return null;
  let reader: RawLineReader | null;
  try {
    reader = RawLineReader.open(db, row.source_id);
  } catch {
    return null; // a changed file: the inspector says so beside the record
  }
  if (reader === null) return null;
  try {
    const adapter = adapterNamed(reader.format);
    if (adapter === undefined) return null;
    const path = sourcePath(db, row.source_id) ?? '';
    const locations = [{ line: row.line, byte_offset: row.byte_offset, byte_length: row.byte_length }];
    for (const line of absorbedLines) {
      const location = absorbedLineLocation(db, row.source_id, line);
      if (location !== undefined && location.byte_length <= CONTENT_MAX_BYTES) locations.push({ line, ...location });
    }
    const mapper = adapter.createMapper({ path });
    const emitted: MappedEvent[] = [];
    const emit = (mapped: MappedEvent) => emitted.push(mapped);
    for (const location of locations) {
      const raw = reader.read(location.line, location);
      if (raw.bytes.length < raw.length) return null;
      const bytes = options.revealSecrets ? raw.bytes : Buffer.from(maskSecrets(raw.bytes.toString('utf8')));
      const decoded = decodeLine(bytes);
      if (decoded.kind !== 'json') continue;
      mapper.map(decoded.value, { lineNumber: location.line, offset: location.byte_offset, length: location.byte_length }, emit, bytes);
    }
    mapper.finish(emit);
    const found = emitted.find((mapped) => isStoredEvent(mapped, row));
    return found === undefined ? null : contentOf(found.event);
  } catch {
    // An adapter that cannot map the record without the lines before it: no content, the record still shows.
    return null;
  } finally {
    reader.close();
  }
}
