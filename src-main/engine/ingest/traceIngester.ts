/**
 * The ingest stage between lines and the store: reads each line (credentials masked, JSON decoded
 * or a long line scanned from its top level), has the format adapter map it, and hands the events
 * to the recorder (eventRecorder.ts), which turns them into rows. A line that cannot be read is a
 * parse error; one read without an event of its own is an absorbed line.
 */
import { isUtf8 } from 'node:buffer';
import type { FormatMapper, LineRef, MappedEvent } from '../adapters/formatAdapter';
import { decodeLine, excerptOf, MAX_NESTING_DEPTH, repeatedKeyWarnings, stripUtf8Bom, type DecodedLine } from '../bytes/decodeLine';
import { nestsDeeperThan, ScanError, scanTopLevel, type TopLevelScan } from '../bytes/topLevelScan';
import { secretMask } from '../../../shared/secrets/secretScanner';
import type { RowBatcher } from '../store/traceWriter';
import { EventRecorder, type FirstRowIds, type RecordedEvent, type RepairReporter } from './eventRecorder';
import { findLineSecrets, replaceLineSecrets, secretValue } from './lineSecrets';
import type { SplitLine } from './lineSplitter';
import { SEARCH_TEXT_CHARS } from './searchText';

/** Lines at least this long are first read from their top level only (see topLevelScan.ts). */
const SCAN_FIRST_BYTES = 8 * 1024;

export interface IngestCounters {
  lines: number;
  blankLines: number;
  events: number;
  unknownEvents: number;
  parseErrors: number;
}

export interface IngesterOptions {
  firstIds?: FirstRowIds;
  /**
   * Whether to collect the text full-text search indexes (default true). The index costs about a
   * third of the ingest time, and only the app searches: `loopscope analyze` turns it off.
   */
  searchIndex?: boolean;
  /** The format's name (FormatAdapter.name): which of its unknown events are bookkeeping (shared/trace/bookkeeping.ts). */
  format?: string;
}

export class TraceIngester implements RepairReporter {
  readonly counters: IngestCounters = { lines: 0, blankLines: 0, events: 0, unknownEvents: 0, parseErrors: 0 };
  private readonly recorder: EventRecorder;
  /** Whether the line being mapped has produced an event anchored to it. */
  private currentLineAnchored = false;
  private currentLine = 0;
  /** The first event anchored to the line being read: where its credentials are reported. */
  private currentLineEvent: RecordedEvent | null = null;
  /** The line being read as written, for the excerpt of a diagnostic about one of its fields. */
  private currentLineText: string | Buffer = '';
  private readonly emit = (mapped: MappedEvent): void => {
    this.counters.events += 1;
    const anchored = mapped.line.lineNumber === this.currentLine;
    if (anchored) this.currentLineAnchored = true;
    this.recorder.accept(mapped);
    if (anchored && this.currentLineEvent === null) {
      const recorded = this.recorder.lastEvent;
      this.currentLineEvent = { id: recorded.id, runPk: recorded.runPk, step: recorded.step };
    }
  };

  constructor(
    private readonly sourceId: number,
    private readonly writer: RowBatcher,
    private readonly mapper: FormatMapper,
    options: IngesterOptions = {},
  ) {
    const searchTextChars = options.searchIndex === false ? 0 : SEARCH_TEXT_CHARS;
    const firstIds = options.firstIds ?? { event: 1, toolCall: 1, run: 1 };
    this.recorder = new EventRecorder(sourceId, writer, options.format ?? '', searchTextChars, firstIds, this.counters, this);
  }

  /**
   * Credentials are found in the line's bytes as written (so their offsets are the file's, and one
   * on a line that is not JSON is found too), and the line is then read with each of them masked:
   * nothing stored from it — summaries, excerpts, the search index — can hold one.
   */
  acceptLine(line: SplitLine): void {
    this.counters.lines = line.lineNumber;
    this.currentLine = line.lineNumber;
    this.currentLineAnchored = false;
    this.currentLineEvent = null;
    const written = line.bytes ?? line.head;
    const secrets = written === undefined ? [] : findLineSecrets(written);
    if (written === undefined || secrets.length === 0) {
      this.readLine(line);
      return;
    }
    const previews = secrets.map((secret) => secretMask(secret.kind, secretValue(written, secret)));
    const masked = replaceLineSecrets(written, secrets, previews);
    this.readLine(line.bytes === null ? { ...line, head: masked } : { ...line, bytes: masked });
    // Set by readLine, which TypeScript's narrowing after the reset above does not see.
    const event = this.currentLineEvent as RecordedEvent | null;
    secrets.forEach((secret, index) => {
      this.writer.addSecret({
        source_id: this.sourceId,
        line: line.lineNumber,
        byte_offset: line.offset + secret.start,
        line_offset: secret.start,
        byte_length: secret.end - secret.start,
        kind: secret.kind,
        confidence: secret.confidence,
        preview: previews[index] ?? '',
        event_id: event?.id ?? null,
        run_pk: event?.runPk ?? null,
        step: event?.step ?? null,
      });
    });
  }

  private readLine(line: SplitLine): void {
    if (line.bytes === null) {
      this.reportError(line, `line is ${line.length} bytes, over the line size limit; not loaded`, line.head ?? Buffer.alloc(0), false);
      return;
    }
    const bytes = line.offset === 0 ? stripUtf8Bom(line.bytes) : line.bytes;
    const ref: LineRef = { lineNumber: line.lineNumber, offset: line.offset, length: line.length };
    // Valid JSON nested d levels deep has at least 2d bytes: shorter lines need no count.
    if (bytes.length > 2 * MAX_NESTING_DEPTH && nestsDeeperThan(bytes, MAX_NESTING_DEPTH)) {
      this.reportError(
        line,
        `nested more than ${MAX_NESTING_DEPTH.toLocaleString('en-US')} levels deep, deeper than Loopscope reads; not loaded`,
        bytes.subarray(0, 512),
        false,
      );
      return;
    }
    if (bytes.length >= SCAN_FIRST_BYTES && this.mapper.mapScanned && this.acceptScannedLine(ref, bytes)) return;
    const read = bytes.length >= SCAN_FIRST_BYTES ? this.mapper.readValue?.(bytes) : null;
    // The text of a line read from its bytes is only for excerpts: its first characters.
    const decoded: DecodedLine = read
      ? { kind: 'json', value: read.value, text: bytes.toString('utf8', 0, 512), invalidUtf8: false, warnings: [] }
      : decodeLine(bytes);
    if (decoded.kind === 'blank') {
      this.counters.blankLines += 1;
      return;
    }
    if (decoded.kind === 'invalid') {
      this.reportError(line, decoded.reason + (decoded.invalidUtf8 ? ' (the line is also not valid UTF-8)' : ''), decoded.text, false);
      return;
    }
    if (decoded.invalidUtf8) this.reportError(line, 'invalid UTF-8 bytes were replaced with U+FFFD; the line was loaded', decoded.text, true);
    this.currentLineText = decoded.text;
    const failure = this.mapper.map(decoded.value, ref, this.emit, bytes);
    if (failure !== undefined) {
      this.reportError(line, failure.reason, decoded.text, false);
      return;
    }
    for (const warning of decoded.warnings) this.reportError(line, `${warning}; the line was loaded`, decoded.text, true);
    if (!this.currentLineAnchored) {
      this.writer.addAbsorbedLine({ source_id: this.sourceId, line: line.lineNumber, byte_offset: line.offset, byte_length: line.length });
    }
  }

  /** A long line is first read from its top level; returns false to have it parsed in full. */
  private acceptScannedLine(ref: LineRef, bytes: Buffer): boolean {
    let scan: TopLevelScan;
    try {
      scan = scanTopLevel(bytes);
    } catch (error) {
      if (!(error instanceof ScanError)) throw error;
      this.reportError(ref, `not valid JSON: ${error.message}`, bytes.subarray(0, 512), false);
      return true;
    }
    this.currentLineText = bytes.subarray(0, 512);
    if (!this.mapper.mapScanned!(bytes, scan, ref, this.emit)) return false;
    if (!isUtf8(bytes)) this.reportError(ref, 'invalid UTF-8 bytes were replaced with U+FFFD; the line was loaded', bytes.subarray(0, 512), true);
    for (const warning of repeatedKeyWarnings(bytes, scan)) this.reportError(ref, `${warning}; the line was loaded`, bytes.subarray(0, 512), true);
    return true;
  }

  /** Closes open streams and stores every run not stored since its last change; call once after the last line. */
  finish(): void {
    this.mapper.finish(this.emit);
    this.recorder.storeRuns('unterminated', { closeStreams: true });
    this.writer.flush();
  }

  /**
   * Stores every run changed since it was last stored, as a file still being written has it now:
   * its open streams stay open and the adapter keeps its state, since the file's next lines go on
   * where these stopped. A run without a terminal event is stored as `running` (its unanswered
   * calls pending, not dangling: docs/semantics.md §4) until `finish` stores it as `unterminated`.
   */
  checkpoint(): void {
    this.mapper.checkpoint?.(this.emit);
    this.recorder.storeRuns('running', { closeStreams: false });
    this.writer.flush();
  }

  /** Something wrong in a field of the line being read, which still became an event (docs/semantics.md §10). */
  reportRepair(line: LineRef, diagnostic: string): void {
    this.reportError(line, `${diagnostic}; the line was loaded`, this.currentLineText, true);
  }

  private reportError(line: Pick<LineRef, 'lineNumber' | 'offset' | 'length'>, message: string, excerptSource: string | Buffer, loaded: boolean): void {
    this.counters.parseErrors += 1;
    const text = typeof excerptSource === 'string' ? excerptSource : excerptSource.toString('utf8');
    this.writer.addParseError({
      source_id: this.sourceId,
      line: line.lineNumber,
      byte_offset: line.offset,
      byte_length: line.length,
      message,
      excerpt: excerptOf(text),
      loaded: loaded ? 1 : 0,
    });
  }
}
