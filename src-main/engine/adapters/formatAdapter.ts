/**
 * A format adapter maps the lines of one trace format into canonical events. The engine detects
 * the format from a file's first lines, then feeds every parsed line to the adapter's mapper, which
 * may keep state across lines (merge split records, pair requests with responses) and emits
 * canonical events, each anchored to the line it came from so its original bytes stay retrievable.
 */
import type { CanonicalEvent } from '../../../shared/trace/canonicalEvents';
import type { SpanMarker } from '../../../shared/trace/spanTree';
import type { TopLevelScan } from '../bytes/topLevelScan';

/** An event whose type Loopscope does not model; kept whole and shown as written. */
export interface UnknownEvent {
  type: 'unknown';
  type_raw: string;
  run_id?: string;
  step?: number;
  step_id?: string;
  ts?: string | number;
  /** What the record says in words, when it is a message to the model (a user's prompt): its summary, search text and the run's task. */
  text?: string;
  /** When the record begins or ends a span (shared/trace/spanTree.ts). */
  span?: SpanMarker;
}

export type AdaptedEvent = CanonicalEvent | UnknownEvent;

/** How many messages and tools a model request carries, when its content was not parsed. */
export interface RequestShape {
  messages: number | null;
  tools: number | null;
}

/** What was wrong in a line's fields and what was made of each (docs/semantics.md §10). */
export interface EventRepairs {
  /** One sentence per bad field: which field, what it held, what was made of it. */
  diagnostics: string[];
  /**
   * The tool calls written without a usable `call_id`, by position in the event's `tool_calls`,
   * with what was written instead. Their `call_id` holds the position until the ingester names them
   * by run, step and position, as it names streamed calls without ids.
   */
  callsWithoutId: Map<number, string>;
}

/** Where an event's source line lies in the file. */
export interface LineRef {
  lineNumber: number;
  offset: number;
  length: number;
}

/** A tool result's identity (for repeated-action progress) and the start of its output, for display. */
export interface ResultDigest {
  hash: string;
  preview: string;
  /** Characters of the output (bytes as written for a line read from its top level). */
  chars: number;
}

export interface MappedEvent {
  event: AdaptedEvent;
  /** The source record's own type, shown beside the canonical one (`assistant`, `response_item/function_call`, …). */
  typeRaw: string;
  /** The line the event is anchored to: for an event merged from several lines, the first. */
  line: LineRef;
  requestShape?: RequestShape;
  /** For a tool result whose output the adapter digested from the line's bytes; else derived from the event. */
  resultDigest?: ResultDigest;
  /** The bad fields of the event's line and what was made of them: each is reported on that line, which still loaded. */
  repairs?: EventRepairs;
}

/** Where a mapper hands over each event it maps, in the order the trace is to show them. */
export type Emit = (mapped: MappedEvent) => void;

/** Why a line could not be mapped: it becomes a parse error, the rest of the file still loads. */
export interface MapFailure {
  reason: string;
}

export interface FormatMapper {
  /**
   * Maps one parsed line; emits zero or more events (zero when it buffers, e.g. a split record).
   * `bytes` are the line as written, valid only during the call.
   */
  map(value: unknown, line: LineRef, emit: Emit, bytes: Buffer): MapFailure | undefined;
  /**
   * Maps a long line from its top-level scan instead of a full parse, when the format allows it;
   * returns false to have the line parsed in full and passed to `map`.
   */
  mapScanned?(bytes: Buffer, scan: TopLevelScan, line: LineRef, emit: Emit): boolean;
  /**
   * A long line's value as JSON.parse gives it, read from its bytes with what the mapper keeps of
   * the lines before (an HTTP exchange line: its conversation's earlier messages); null to have the
   * line parsed whole. The value then goes to `map` as a parsed line's does.
   */
  readValue?(bytes: Buffer): { value: unknown } | null;
  /** End of the file: emits what is still buffered. */
  finish(emit: Emit): void;
  /**
   * The lines so far are stored while the file is still being written (it is followed): emits what
   * is buffered and can be shown before the next lines, which go on where these stopped.
   */
  checkpoint?(emit: Emit): void;
}

/** The start of a file, for detection. */
export interface DetectionSample {
  path: string;
  /** Parsed JSON values of the first non-blank lines that parsed (JSONL framing). */
  values: unknown[];
  /** Parsed JSON values framed as values written back to back (pretty-printed records, one document), complete ones only. */
  framedValues: unknown[];
  /** The first 64 KiB as text, for documents too large for a complete value in the sample. */
  head: string;
}

export interface FormatAdapter {
  /** Stable name, reported per file and accepted by `--format`. */
  name: string;
  /**
   * How records are framed: one per line (JSONL, the default), or JSON values written back to back
   * (pretty-printed records, a single document), see ingest/jsonStreamSplitter.ts, or the `.json`
   * entries of a ZIP archive, one record per entry (bytes/zipEntries.ts; a file that is not a ZIP
   * is then read as JSON values). For a ZIP, an event's "line" is its entry's number (1-based,
   * central-directory order) and its offset/length are the entry's local header offset and
   * compressed size; the raw "line" read back is the entry inflated (store/rawLines.ts).
   */
  framing?: 'lines' | 'json-values' | 'zip-json';
  /**
   * With JSON-values framing, the arrays whose elements are mapped one by one instead of as part
   * of their document, so a document of any size streams: `''` for a document that is an array,
   * a member name for an array member of a top-level object (then `map` sees the object's head
   * with the array empty, each element, then the members after it). See ingest/jsonStreamSplitter.ts.
   */
  streamedArrays?: readonly string[];
  /** Says why the sample is in this format, or returns null. */
  detect(sample: DetectionSample): string | null;
  createMapper(context: { path: string }): FormatMapper;
  /**
   * Where files that belong to a trace of this format lie beside it (a Claude Code session's
   * sub-agent transcripts): files in `directory` whose name matches `name` are opened with the
   * trace, into the same database, by this adapter. Undefined when the format has none.
   */
  companions?(path: string): { directory: string; name: RegExp } | undefined;
  /**
   * The trace file `path` would be a companion of (the session a sub-agent transcript belongs
   * to), whether or not that file exists. Undefined when `path` is no companion's name.
   */
  companionOwner?(path: string): string | undefined;
  /**
   * The companion file that would hold the run a tool result names as its `child_run_id` (a
   * sub-agent's transcript), so a missing one can be named. Undefined when no file would.
   */
  companionFileOfRun?(childRunId: string): string | undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
