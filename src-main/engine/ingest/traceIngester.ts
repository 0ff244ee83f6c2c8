/**
 * The ingest stage between lines and the store: decodes each line, maps it through the format
 * adapter into a canonical event, keeps the small per-run state that needs the whole stream
 * (step numbering, counters, streamed fragments not yet assembled) and hands rows to the writer.
 *
 * Memory is bounded by the number of runs and of streams still open, never by the file size:
 * payloads are not kept; the raw line stays retrievable by offset and length.
 */
import { contentHash, SUMMARY_CHARS } from '../bytes/contentHash';
import { resultIdentity } from '../bytes/resultIdentity';
import { isUtf8 } from 'node:buffer';
import type { AdaptedEvent, FormatMapper, LineRef, MappedEvent, ResultDigest } from '../adapters/formatAdapter';
import { canonicalJson } from '../../../shared/trace/canonicalJson';
import { apiErrorFacts, canonicalEventTypes, describeApiError, idText, isErrorResult, type Budgets, type EventOf, type ToolCall } from '../../../shared/trace/canonicalEvents';
import { errorLineOf } from '../../../shared/trace/errorLine';
import { classifyResponse, outputRepeatsText } from '../../../shared/trace/modelOutcome';
import { isPausedStatus, normalizeTerminalStatus, type NormalizedStatus, type RunStatus } from '../../../shared/trace/runStatus';
import { toIsoTimestamp } from '../../../shared/trace/timestamps';
import { isBookkeeping } from '../../../shared/trace/bookkeeping';
import { decodeToolOutput, outputPreview } from '../../../shared/toolOutput';
import { SpanNesting, type SpanExtent } from '../../../shared/trace/spanTree';
import { decodeLine, excerptOf, MAX_NESTING_DEPTH, repeatedKeyWarnings, stripUtf8Bom } from '../bytes/decodeLine';
import type { SplitLine } from './lineSplitter';
import { nestsDeeperThan, ScanError, scanTopLevel, type TopLevelScan } from '../bytes/topLevelScan';
import { SEARCH_TEXT_CHARS, SearchText } from './searchText';
import { findLineSecrets, replaceLineSecrets, secretValue } from './lineSecrets';
import { secretMask } from '../../../shared/secrets/secretScanner';
import type { EventSqlRow, RowBatcher, SpanSqlRow, StepSqlRow } from '../store/traceWriter';

/** Events without a `run_id` belong to this run, so a single-run log needs no ids at all. */
export const DEFAULT_RUN_ID = 'default';
/** Lines at least this long are first read from their top level only (see topLevelScan.ts). */
const SCAN_FIRST_BYTES = 8 * 1024;
/**
 * The latest responses with text a run keeps, and how much of each, to tell which one its terminal
 * output repeats (docs/semantics.md §1): an output repeats one of the last few answers, and a long
 * text is recognised by its start. At most 16 KiB per run still open; dropped when it ends.
 */
const RECENT_ANSWERS = 4;
const ANSWER_TEXT_CHARS = 4 * 1024;

export interface IngestCounters {
  lines: number;
  blankLines: number;
  events: number;
  unknownEvents: number;
  parseErrors: number;
}

interface StreamedCall {
  callId: string | null;
  name: string | null;
  argumentParts: string[];
}

/** Fragments of one streamed response, joined per call index (parallel calls interleave). */
interface OpenStream {
  step: number;
  calls: Map<string, StreamedCall>;
  finishReason: string | null;
  /** The response text streamed so far, for search and to match the run's output; kept up to `streamTextChars` characters. */
  textDeltas: string[];
  textChars: number;
  closed: boolean;
  lastEventId: number;
  lastLine: number;
}

interface RunState {
  pk: number;
  runId: string;
  firstLine: number;
  lastLine: number;
  startedAt: string | null;
  endedAt: string | null;
  lastStep: number;
  /** Step opened by a model_request still waiting for its response. */
  openRequestStep: number | null;
  stepIdOrdinals: Map<string, number>;
  modelSteps: Set<number>;
  toolCalls: number;
  toolResults: number;
  inputTokens: number | null;
  outputTokens: number | null;
  budgets: Budgets | null;
  config: unknown;
  startEventId: number | null;
  /** The run's terminal event: its first run_end that is not a pause (docs/semantics.md §2). */
  end: RunEnding | null;
  /** A pause (waiting_for_input/approval) no later event of the loop has lifted yet. */
  pause: RunEnding | null;
  /** The latest responses with text, oldest first (see RECENT_ANSWERS). */
  recentAnswers: { eventId: number; text: string }[];
  openStreams: Map<number, OpenStream>;
  steps: Map<number, StepSqlRow>;
  /** Steps changed since the run was last stored: a followed file's run is stored again and again, its rows only where they changed. */
  changedSteps: Set<number>;
  /** Events of the run so far: the next event's `run_index`. */
  events: number;
  /** Events of the run so far that are not bookkeeping: the next such event's `visible_index`. */
  visibleEvents: number;
  /** The run's span tree so far (shared/trace/spanTree.ts): each event's depth, each span's extent. */
  spans: SpanNesting;
  /** Bumped on every change; the run's row is (re)written and (re)analyzed when it differs from `storedVersion`. */
  version: number;
  storedVersion: number;
}

interface RunEnding {
  status: RunStatus;
  statusRaw: string;
  limit: string | null;
  eventId: number;
  /** The response whose text the run_end's output repeats (docs/semantics.md §1), if any. */
  outputEventId: number | null;
}

/** Events that show the loop at work: logged after a pause, they resume the run (docs/semantics.md §2). */
const loopActivityTypes: ReadonlySet<string> = new Set(canonicalEventTypes.filter((type) => type !== 'run_end'));

/** An event read from a line, with its run and step. */
interface LineEvent {
  id: number;
  runPk: number;
  step: number;
}

function spanRow(runPk: number, span: SpanExtent): SpanSqlRow {
  return {
    begin_event_id: span.beginEventId,
    run_pk: runPk,
    depth: span.depth,
    name: span.name,
    type: span.type,
    last_index: span.lastIndex,
    events: span.events,
    visible_events: span.visibleEvents,
    started_at: span.startedAt,
    ended_at: span.endedAt,
  };
}

function truncate(text: string, max = SUMMARY_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function argumentsText(args: unknown): string {
  if (args === undefined) return '{}';
  return typeof args === 'string' ? args : JSON.stringify(args);
}

/** Parses call arguments the way a loop must before executing: a JSON string or an object. */
function parseArguments(args: unknown): { value: unknown } | { error: string } {
  if (args === undefined || args === null) return { value: {} };
  if (typeof args !== 'string') return { value: args };
  if (args.trim() === '') return { value: {} };
  if (args.length > 2 * MAX_NESTING_DEPTH && nestsDeeperThan(Buffer.from(args), MAX_NESTING_DEPTH)) {
    return { error: `arguments are nested more than ${MAX_NESTING_DEPTH.toLocaleString('en-US')} levels deep: ${truncate(args, 80)}` };
  }
  try {
    return { value: JSON.parse(args) as unknown };
  } catch (error) {
    return { error: `arguments are not valid JSON (${(error as Error).message}): ${truncate(args, 80)}` };
  }
}

/** Arguments as searched: parsed when they are JSON text, as written otherwise. */
function argumentsValue(args: unknown): unknown {
  const parsed = parseArguments(args);
  return 'value' in parsed ? parsed.value : args;
}

function sumOptional(total: number | null, value: number | undefined): number | null {
  if (value === undefined) return total;
  return (total ?? 0) + value;
}

/**
 * The first row ids this ingest assigns: 1 in a new database; past the rows already there when a
 * second source (a companion file) is loaded into the same database.
 */
export interface FirstRowIds {
  event: number;
  toolCall: number;
  run: number;
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

export class TraceIngester {
  readonly counters: IngestCounters = { lines: 0, blankLines: 0, events: 0, unknownEvents: 0, parseErrors: 0 };
  private readonly runs = new Map<string, RunState>();
  private readonly format: string;
  private nextEventId: number;
  private nextToolCallId: number;
  private readonly firstRunPk: number;
  /** Search text kept per event: SEARCH_TEXT_CHARS, or 0 when no search index is built. */
  private readonly searchTextChars: number;
  /** Of a stream's text, what is kept: enough for search and for the run's output (ANSWER_TEXT_CHARS), even without search. */
  private readonly streamTextChars: number;
  /** What a run without a terminal event is stored as (see `checkpoint`). */
  private openRunStatus: 'running' | 'unterminated' = 'unterminated';
  /** Whether the line being mapped has produced an event anchored to it. */
  private currentLineAnchored = false;
  private currentLine = 0;
  /** The first event anchored to the line being read: where its credentials are reported. */
  private currentLineEvent: LineEvent | null = null;
  /** The line being read as written, for the excerpt of a diagnostic about one of its fields. */
  private currentLineText: string | Buffer = '';
  private readonly emit = (mapped: MappedEvent): void => {
    this.counters.events += 1;
    if (mapped.line.lineNumber === this.currentLine) this.currentLineAnchored = true;
    this.acceptEvent(mapped);
  };

  constructor(
    private readonly sourceId: number,
    private readonly writer: RowBatcher,
    private readonly mapper: FormatMapper,
    options: IngesterOptions = {},
  ) {
    const firstIds = options.firstIds ?? { event: 1, toolCall: 1, run: 1 };
    this.nextEventId = firstIds.event;
    this.nextToolCallId = firstIds.toolCall;
    this.firstRunPk = firstIds.run;
    this.searchTextChars = options.searchIndex === false ? 0 : SEARCH_TEXT_CHARS;
    this.streamTextChars = Math.max(this.searchTextChars, ANSWER_TEXT_CHARS);
    this.format = options.format ?? '';
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
    const event = this.currentLineEvent as LineEvent | null;
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
      this.reportError(line, `nested more than ${MAX_NESTING_DEPTH.toLocaleString('en-US')} levels deep, deeper than Loopscope reads; not loaded`, bytes.subarray(0, 512), false);
      return;
    }
    if (bytes.length >= SCAN_FIRST_BYTES && this.mapper.mapScanned && this.acceptScannedLine(ref, bytes)) return;
    const decoded = decodeLine(bytes);
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
    this.storeOpenRunsAs('unterminated');
    for (const run of this.runs.values()) this.storeRun(run, { closeStreams: true });
    this.writer.flush();
  }

  /**
   * Stores every run changed since it was last stored, as a file still being written has it now:
   * its open streams stay open and the adapter keeps its state, since the file's next lines go on
   * where these stopped. A run without a terminal event is stored as `running` (its unanswered
   * calls pending, not dangling: docs/semantics.md §4) until `finish` stores it as `unterminated`.
   */
  checkpoint(): void {
    this.storeOpenRunsAs('running');
    for (const run of this.runs.values()) this.storeRun(run, { closeStreams: false });
    this.writer.flush();
  }

  private storeOpenRunsAs(status: 'running' | 'unterminated'): void {
    if (status === this.openRunStatus) return;
    this.openRunStatus = status;
    // Their rows and analysis change with it.
    for (const run of this.runs.values()) if (run.end === null) run.version += 1;
  }

  /**
   * Writes the run's row and asks for its analysis. Done when the run ends, so the store worker
   * analyzes it while parsing goes on, and again at the end only if the run changed since.
   */
  private storeRun(run: RunState, { closeStreams }: { closeStreams: boolean }): void {
    if (closeStreams) this.closeStreams(run);
    if (run.storedVersion === run.version) return;
    run.storedVersion = run.version;
    // A run that has not ended but is paused shows the pause; one whose pause was lifted is open again.
    const ending = run.end ?? run.pause;
    const status = ending ? { status: ending.status, raw: ending.statusRaw } : { status: this.openRunStatus, raw: '' };
    this.writer.addRun({
      id: run.pk,
      source_id: this.sourceId,
      run_id: run.runId,
      status: status.status,
      status_raw: status.raw,
      end_limit: ending?.limit ?? null,
      budgets_json: run.budgets ? JSON.stringify(run.budgets) : null,
      config_json: run.config === undefined ? null : JSON.stringify(run.config),
      first_line: run.firstLine,
      last_line: run.lastLine,
      started_at: run.startedAt,
      ended_at: run.endedAt,
      steps: run.modelSteps.size,
      tool_calls: run.toolCalls,
      tool_results: run.toolResults,
      input_tokens: run.inputTokens,
      output_tokens: run.outputTokens,
      start_event_id: run.startEventId,
      end_event_id: ending?.eventId ?? null,
      output_event_id: ending?.outputEventId ?? null,
    });
    for (const step of run.changedSteps) this.writer.addStep(run.steps.get(step)!);
    run.changedSteps.clear();
    // Spans still open reach as far as the run has come; stored again as they grow or end.
    for (const span of run.spans.openSpans()) this.writer.addSpan(spanRow(run.pk, span));
    this.writer.analyzeRun(run.pk);
  }

  /** Something wrong in a field of the line being read, which still became an event (docs/semantics.md §10). */
  private reportRepair(line: LineRef, diagnostic: string): void {
    this.reportError(line, `${diagnostic}; the line was loaded`, this.currentLineText, true);
  }

  private closeStreams(run: RunState): void {
    for (const stream of run.openStreams.values()) this.emitStream(run, stream);
    run.openStreams.clear();
  }

  private rememberAnswer(run: RunState, eventId: number, text: string | null | undefined): void {
    if (text === null || text === undefined || text.trim() === '') return;
    run.recentAnswers.push({ eventId, text: text.slice(0, ANSWER_TEXT_CHARS) });
    if (run.recentAnswers.length > RECENT_ANSWERS) run.recentAnswers.shift();
  }

  /** The latest response whose text the run's terminal output repeats; streams still open end first, as their text counts too. */
  private outputSource(run: RunState, output: unknown): number | null {
    if (output === undefined || output === null) return null;
    this.closeStreams(run);
    for (let index = run.recentAnswers.length - 1; index >= 0; index -= 1) {
      const answer = run.recentAnswers[index]!;
      if (outputRepeatsText(output, answer.text)) return answer.eventId;
    }
    return null;
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

  private runFor(runId: string, line: number): RunState {
    let run = this.runs.get(runId);
    if (run === undefined) {
      run = {
        pk: this.firstRunPk + this.runs.size,
        runId,
        firstLine: line,
        lastLine: line,
        startedAt: null,
        endedAt: null,
        lastStep: 0,
        openRequestStep: null,
        stepIdOrdinals: new Map(),
        modelSteps: new Set(),
        toolCalls: 0,
        toolResults: 0,
        inputTokens: null,
        outputTokens: null,
        budgets: null,
        config: undefined,
        startEventId: null,
        end: null,
        pause: null,
        recentAnswers: [],
        openStreams: new Map(),
        steps: new Map(),
        changedSteps: new Set(),
        events: 0,
        visibleEvents: 0,
        spans: new SpanNesting(),
        version: 0,
        storedVersion: -1,
      };
      this.runs.set(runId, run);
    }
    run.firstLine = Math.min(run.firstLine, line);
    run.lastLine = Math.max(run.lastLine, line);
    run.version += 1;
    return run;
  }

  /**
   * The step an event belongs to: as logged (`step`, or `step_id` numbered in order of first
   * appearance), else inferred — a request or response without a step opens the next one, and
   * tool events belong to the current one.
   */
  private stepOf(run: RunState, event: AdaptedEvent): number {
    let step = event.step;
    if (step === undefined && event.step_id !== undefined) {
      step = run.stepIdOrdinals.get(idText(event.step_id));
      if (step === undefined) {
        step = run.stepIdOrdinals.size + 1;
        run.stepIdOrdinals.set(idText(event.step_id), step);
      }
    }
    if (step === undefined) {
      if (event.type === 'model_request') step = run.lastStep + 1;
      else if (event.type === 'model_response' || event.type === 'stream_fragment') step = run.openRequestStep ?? run.lastStep + 1;
      else step = run.lastStep;
    }
    if (event.type === 'model_request') run.openRequestStep = step;
    if (event.type === 'model_response') run.openRequestStep = null;
    run.lastStep = Math.max(run.lastStep, step);
    return step;
  }

  private acceptEvent(mapped: MappedEvent): void {
    const { event, line, repairs } = mapped;
    const run = this.runFor(event.run_id === undefined ? DEFAULT_RUN_ID : idText(event.run_id), line.lineNumber);
    const step = this.stepOf(run, event);
    for (const diagnostic of repairs?.diagnostics ?? []) this.reportRepair(line, diagnostic);
    if (line.lineNumber === this.currentLine && this.currentLineEvent === null) this.currentLineEvent = { id: this.nextEventId, runPk: run.pk, step };
    const ts = toIsoTimestamp(event.ts);
    if (ts !== null) {
      if (run.startedAt === null || ts < run.startedAt) run.startedAt = ts;
      if (run.endedAt === null || ts > run.endedAt) run.endedAt = ts;
    }
    const row = this.newEventRow(run, mapped, step, ts);
    const spans = run.spans.accept({ eventId: row.id, runIndex: row.run_index, visible: row.visible_index !== null, ts, ...(event.type === 'unknown' && event.span ? { marker: event.span } : {}) });
    row.span_depth = spans.depth;
    for (const span of spans.ended) this.writer.addSpan(spanRow(run.pk, span));
    if (run.end === null && loopActivityTypes.has(event.type)) run.pause = null;
    const search = new SearchText(this.searchTextChars);
    this.acceptByType(run, mapped, row, step, search);
    this.writer.addEvent(row);
    const text = search.text();
    if (text !== null) this.writer.addSearchText(row.id, text);
    this.countInStep(run, row);
    if (event.type === 'run_end') this.storeRun(run, { closeStreams: true });
  }

  /** The event's row with the columns every type has; the type-specific ones start null (see acceptByType). */
  private newEventRow(run: RunState, { event, typeRaw, line }: MappedEvent, step: number, ts: string | null): EventSqlRow {
    return {
      id: this.nextEventId++,
      source_id: this.sourceId,
      run_pk: run.pk,
      line: line.lineNumber,
      byte_offset: line.offset,
      byte_length: line.length,
      type: event.type,
      type_raw: typeRaw,
      step,
      step_id: event.step_id === undefined ? null : idText(event.step_id),
      ts,
      call_id: null,
      name: null,
      outcome: null,
      finish_reason: null,
      tool_call_count: null,
      input_tokens: null,
      output_tokens: null,
      cost_usd: null,
      latency_ms: null,
      result_ok: null,
      error_code: null,
      result_hash: null,
      progress: null,
      summary: null,
      child_run_id: null,
      cached_input_tokens: null,
      content_chars: null,
      run_index: run.events++,
      api_error: null,
      incomplete_reason: null,
      error_line: null,
      visible_index: isBookkeeping(this.format, event.type, typeRaw) ? null : run.visibleEvents++,
      span_depth: 0,
    };
  }

  /**
   * What the event's type adds: its columns in the row, its words in the search text, and what it
   * changes in the run (its start, calls, results, end).
   */
  private acceptByType(run: RunState, { event, line, requestShape, resultDigest, repairs }: MappedEvent, row: EventSqlRow, step: number, search: SearchText): void {
    switch (event.type) {
      case 'run_start':
        this.acceptRunStart(run, event, row);
        row.content_chars = event.task === undefined ? null : textLength(event.task);
        search.add(event.task);
        break;
      case 'model_request': {
        const shape = requestShape ?? { messages: event.messages?.length ?? null, tools: event.tools?.length ?? null };
        row.summary = `${shape.messages ?? 0} messages, ${shape.tools ?? 0} tools${event.model ? `, ${event.model}` : ''}`;
        // The message this request adds; a long request line is read without its messages (see SCAN_FIRST_BYTES).
        search.add(event.messages?.at(-1));
        break;
      }
      case 'model_response':
        this.acceptModelResponse(run, event, row, step, search, line, repairs?.callsWithoutId);
        break;
      case 'stream_fragment':
        this.acceptStreamFragment(run, event, row, step);
        break;
      case 'tool_call_start':
        row.call_id = idText(event.call_id);
        row.name = event.name ?? null;
        row.summary = event.permission ? `permission: ${event.permission}` : null;
        search.add(event.name);
        search.add(argumentsValue(event.arguments));
        break;
      case 'tool_result': {
        const digest = resultDigest ?? digestFromEvent(event);
        this.acceptToolResult(run, event, row, digest);
        // A long result line is read without its output: its preview is what is at hand. An output is
        // searched as it reads (Codex's output JSON unwrapped, content blocks as their text).
        // Other JSON is searched by its values, not its keys (SearchText).
        if (event.output === undefined) search.add(digest.preview);
        else {
          const decoded = decodeToolOutput(event.output);
          search.add(decoded.kind === 'json' ? event.output : decoded.text);
        }
        search.add(event.error);
        break;
      }
      case 'tool_call_not_executed':
        row.call_id = idText(event.call_id);
        row.name = event.name ?? null;
        row.summary = event.reason ?? null;
        search.add(event.name);
        search.add(event.reason);
        break;
      case 'run_end': {
        const normalized = normalizeTerminalStatus(event);
        this.acceptRunEnd(run, event, normalized, row.id);
        row.summary = normalized.raw === '' ? null : normalized.raw;
        search.add(event.reason);
        search.add(event.output);
        break;
      }
      case 'unknown':
        this.counters.unknownEvents += 1;
        // A prompt the adapter read (Claude Code's user messages): its words on the timeline and in search.
        if (event.text !== undefined && event.text.trim() !== '') {
          row.summary = truncate(event.text.replace(/\s+/g, ' ').trim());
          search.add(event.text);
        }
        break;
    }
  }

  /** Keeps the step's row (one per model call; step 0 holds what came before the first) up to date. */
  private countInStep(run: RunState, row: EventSqlRow): void {
    const step = row.step ?? 0;
    run.changedSteps.add(step);
    const existing = run.steps.get(step);
    if (existing === undefined) {
      run.steps.set(step, {
        run_pk: run.pk,
        step,
        first_line: row.line,
        last_line: row.line,
        started_at: row.ts,
        ended_at: row.ts,
        events: 1,
        response_event_id: row.type === 'model_response' ? row.id : null,
      });
      return;
    }
    existing.first_line = Math.min(existing.first_line, row.line);
    existing.last_line = Math.max(existing.last_line, row.line);
    if (row.ts !== null) {
      if (existing.started_at === null || row.ts < existing.started_at) existing.started_at = row.ts;
      if (existing.ended_at === null || row.ts > existing.ended_at) existing.ended_at = row.ts;
    }
    existing.events += 1;
    if (row.type === 'model_response') existing.response_event_id = row.id;
  }

  /**
   * The first run_end that is not a pause ends the run; later ones change nothing (they are
   * reported as duplicates). A pause holds until the loop logs more work or ends the run; a pause
   * logged right after another replaces it (docs/semantics.md §2).
   */
  private acceptRunEnd(run: RunState, event: EventOf<'run_end'>, normalized: NormalizedStatus, eventId: number): void {
    if (run.end !== null) return;
    const ending: RunEnding = { status: normalized.status, statusRaw: normalized.raw, limit: event.limit ?? null, eventId, outputEventId: this.outputSource(run, event.output) };
    // The answers its output may repeat are behind it now.
    run.recentAnswers = [];
    if (isPausedStatus(ending.status)) run.pause = ending;
    else run.end = ending;
  }

  private acceptRunStart(run: RunState, event: EventOf<'run_start'>, row: EventSqlRow): void {
    run.config = event.config;
    run.startEventId ??= row.id;
    const budgets = { ...event.config?.budgets, ...event.budgets };
    run.budgets = Object.keys(budgets).length > 0 ? budgets : null;
    row.summary = [event.config?.provider, event.config?.model].filter(Boolean).join(' ') || null;
  }

  private acceptModelResponse(
    run: RunState,
    event: EventOf<'model_response'>,
    row: EventSqlRow,
    step: number,
    search: SearchText,
    line: LineRef,
    callsWithoutId: ReadonlyMap<number, string> | undefined,
  ): void {
    run.openStreams.delete(step);
    run.modelSteps.add(step);
    const calls = event.tool_calls ?? [];
    const finishReason = event.finish_reason ?? null;
    const apiError = event.api_error === undefined ? null : apiErrorFacts(event.api_error);
    // A call the provider refused gave no model output: not a final answer (docs/semantics.md §7).
    const outcome = event.outcome ?? (apiError !== null ? 'incomplete' : undefined);
    row.outcome = classifyResponse({ outcome, finishReason, toolCallCount: calls.length, refusal: event.refusal, incompleteReason: event.incomplete_reason });
    row.api_error = apiError === null ? null : JSON.stringify(apiError);
    this.rememberAnswer(run, row.id, event.text);
    row.finish_reason = finishReason;
    row.incomplete_reason = event.incomplete_reason ?? null;
    row.tool_call_count = calls.length;
    if (row.outcome === 'tool_calls') run.toolCalls += calls.length;
    const inputTokens = event.usage?.input_tokens ?? event.usage?.prompt_tokens;
    const outputTokens = event.usage?.output_tokens ?? event.usage?.completion_tokens;
    row.input_tokens = inputTokens ?? null;
    row.output_tokens = outputTokens ?? null;
    row.cached_input_tokens = event.usage?.cached_input_tokens ?? null;
    row.content_chars = textLength(event.text ?? event.refusal ?? '') + calls.reduce((sum, call) => sum + call.name.length + textLength(call.arguments), 0);
    row.cost_usd = event.usage?.cost_usd ?? null;
    run.inputTokens = sumOptional(run.inputTokens, inputTokens);
    run.outputTokens = sumOptional(run.outputTokens, outputTokens);
    row.latency_ms = event.latency_ms ?? null;
    row.summary =
      calls.length > 0
        ? truncate(calls.map((call) => `${call.name}(${truncate(argumentsText(call.arguments), 60)})`).join(', '))
        : apiError !== null
          ? truncate(`API error: ${describeApiError(apiError)}`)
          : truncate(event.refusal ?? event.text ?? '');
    search.add(event.text);
    search.add(event.refusal);
    calls.forEach((call, index) => {
      search.add(call.name);
      const written = callsWithoutId?.get(index);
      // Named like a streamed call without an id, and paired with no result: none can name it (docs/semantics.md §10).
      const callId = written === undefined ? call.call_id : derivedCallId(run, step, index);
      if (written !== undefined) {
        this.reportRepair(line, `${written}: the call (${excerptOf(call.name)}) is kept as call ${excerptOf(String(callId))}, an id derived from its run, step and position, which no result is paired with`);
      }
      search.add(this.addCall(run, { eventId: row.id, line: row.line }, step, index, written === undefined ? call : { ...call, call_id: callId }, 'response'));
    });
  }

  /** Returns the call's arguments as searched: parsed when they are JSON text, as written otherwise. */
  private addCall(
    run: RunState,
    issuedBy: { eventId: number; line: number },
    step: number,
    index: number,
    call: Pick<ToolCall, 'call_id' | 'name' | 'arguments'>,
    origin: 'response' | 'stream',
    incompleteReason?: string,
  ): unknown {
    const parsed = incompleteReason === undefined ? parseArguments(call.arguments) : { error: incompleteReason };
    this.writer.addToolCall({
      id: this.nextToolCallId++,
      run_pk: run.pk,
      event_id: issuedBy.eventId,
      call_index: index,
      call_id: idText(call.call_id),
      name: call.name,
      step,
      line: issuedBy.line,
      origin,
      args_hash: 'value' in parsed ? contentHash(canonicalJson(parsed.value)) : null,
      args_error: 'error' in parsed ? parsed.error : null,
      args_summary: truncate(argumentsText(call.arguments), 120),
    });
    return 'value' in parsed ? parsed.value : call.arguments;
  }

  private acceptStreamFragment(run: RunState, event: EventOf<'stream_fragment'>, row: EventSqlRow, step: number): void {
    let stream = run.openStreams.get(step);
    if (stream === undefined) {
      stream = { step, calls: new Map(), finishReason: null, textDeltas: [], textChars: 0, closed: false, lastEventId: row.id, lastLine: row.line };
      run.openStreams.set(step, stream);
    }
    stream.lastEventId = row.id;
    stream.lastLine = row.line;
    row.call_id = event.call_id === undefined ? null : idText(event.call_id);
    row.name = event.name ?? null;
    if (event.index !== undefined || event.call_id !== undefined || event.arguments_delta !== undefined) {
      const key = event.index !== undefined ? `#${event.index}` : `id:${event.call_id ?? ''}`;
      let call = stream.calls.get(key);
      if (call === undefined) {
        call = { callId: null, name: null, argumentParts: [] };
        stream.calls.set(key, call);
      }
      call.callId ??= event.call_id === undefined ? null : idText(event.call_id);
      call.name ??= event.name ?? null;
      if (event.arguments_delta !== undefined) call.argumentParts.push(event.arguments_delta);
    }
    if (event.text_delta !== undefined && stream.textChars < this.streamTextChars) {
      stream.textDeltas.push(event.text_delta);
      stream.textChars += event.text_delta.length;
    }
    if (event.finish_reason !== undefined && event.finish_reason !== null) {
      stream.finishReason = event.finish_reason;
      stream.closed = true;
    }
  }

  /**
   * A stream with no model_response line of its own becomes the step's response: its calls are
   * joined per index and parsed only now that the stream is over (docs/semantics.md §4). When the
   * stream never closed, the response is incomplete and none of its calls counts as issued; a
   * call whose joined arguments are not even valid JSON was cut mid-arguments. The stream's text
   * and calls are searched as one response, on its last fragment.
   */
  private emitStream(run: RunState, stream: OpenStream): void {
    run.version += 1;
    run.modelSteps.add(stream.step);
    const issuedBy = { eventId: stream.lastEventId, line: stream.lastLine };
    // A stream that never closed broke: incomplete, whatever it carried (docs/semantics.md §1).
    const outcome = classifyResponse({ outcome: stream.closed ? undefined : 'incomplete', finishReason: stream.finishReason, toolCallCount: stream.calls.size });
    if (outcome === 'tool_calls') run.toolCalls += stream.calls.size;
    const search = new SearchText(this.searchTextChars);
    const streamedText = stream.textDeltas.join('');
    search.add(streamedText);
    let index = 0;
    for (const call of stream.calls.values()) {
      const callId = call.callId ?? derivedCallId(run, stream.step, index);
      const joined = call.argumentParts.join('');
      const cut = !stream.closed && 'error' in parseArguments(joined);
      const incomplete = cut ? `the stream ended before this call's arguments were complete: ${truncate(joined, 80)}` : undefined;
      search.add(call.name);
      search.add(this.addCall(run, issuedBy, stream.step, index, { call_id: callId, name: call.name ?? '(unnamed)', arguments: joined }, 'stream', incomplete));
      index += 1;
    }
    const text = search.text();
    if (text !== null) this.writer.addSearchText(stream.lastEventId, text);
    this.rememberAnswer(run, stream.lastEventId, streamedText);
    this.writer.setStreamOutcome({ eventId: stream.lastEventId, runPk: run.pk, outcome, finishReason: stream.finishReason, toolCallCount: stream.calls.size });
    const step = run.steps.get(stream.step);
    if (step !== undefined) {
      step.response_event_id = stream.lastEventId;
      run.changedSteps.add(stream.step);
    }
  }

  private acceptToolResult(run: RunState, event: EventOf<'tool_result'>, row: EventSqlRow, digest: ResultDigest): void {
    run.toolResults += 1;
    const isError = isErrorResult(event);
    row.call_id = idText(event.call_id);
    row.name = event.name ?? null;
    row.result_ok = isError ? 0 : 1;
    row.latency_ms = event.latency_ms ?? null;
    row.progress = event.progress === undefined ? null : event.progress ? 1 : 0;
    row.child_run_id = event.child_run_id === undefined ? null : idText(event.child_run_id);
    const error = event.error;
    row.error_code = isError ? (typeof error === 'object' ? (error.code ?? null) : null) : null;
    row.result_hash = digest.hash;
    row.content_chars = digest.chars + (typeof error === 'string' ? error.length : 0);
    row.error_line = isError ? errorLineOf(event) : null;
    const errorText = row.error_line ?? (typeof error === 'string' ? error : (error?.safe_message ?? error?.message ?? ''));
    row.summary = truncate(isError ? `error${row.error_code ? ` ${row.error_code}` : ''}${errorText ? `: ${errorText}` : ''}` : digest.preview);
  }
}

/** The id of a call written without one: its run, step and position. */
function derivedCallId(run: RunState, step: number, index: number): string {
  return `${run.runId}:step${step}:call${index}`;
}

/** Characters of a value as text: a string as it is, anything else as JSON. */
function textLength(value: unknown): number {
  if (typeof value === 'string') return value.length;
  return value === undefined ? 0 : (JSON.stringify(value)?.length ?? 0);
}

/**
 * A result's identity for the repeated-action analysis: a hash of its status, output and error
 * without their volatile fields (resultIdentity). Results of one tool serialize their keys in one
 * order, so plain JSON text tells them apart.
 */
export function digestFromEvent(event: EventOf<'tool_result'>): ResultDigest {
  const output = JSON.stringify(event.output ?? null);
  return {
    hash: resultIdentity(isErrorResult(event), output, JSON.stringify(event.error ?? null)),
    // Decoded (Codex's output JSON, content blocks) and on one line: a summary never shows a literal \n.
    preview: outputPreview(event.output, SUMMARY_CHARS + 1),
    chars: typeof event.output === 'string' ? event.output.length : event.output === undefined ? 0 : output.length,
  };
}
