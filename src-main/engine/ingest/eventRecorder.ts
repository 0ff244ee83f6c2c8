/**
 * Events to rows: each event the format adapter maps becomes an event row (with its search text),
 * and changes the state of its run — steps, spans, calls, streamed responses, its ending — which is
 * stored as run, step, span and call rows when the run ends and whenever the ingest checkpoints.
 *
 * Memory is bounded by the number of runs and of streams still open, never by the file size:
 * payloads are not kept; the raw line stays retrievable by offset and length.
 */
import { contentHash } from '../bytes/contentHash';
import { excerptOf } from '../bytes/decodeLine';
import type { LineRef, MappedEvent } from '../adapters/formatAdapter';
import { canonicalJson } from '../../../shared/trace/canonicalJson';
import { apiErrorFacts, describeApiError, idText, type EventOf, type ToolCall } from '../../../shared/trace/canonicalEvents';
import { classifyResponse, outputRepeatsText } from '../../../shared/trace/modelOutcome';
import { isPausedStatus, normalizeTerminalStatus, type NormalizedStatus } from '../../../shared/trace/runStatus';
import { toIsoTimestamp } from '../../../shared/trace/timestamps';
import { outputSearchValue } from '../../../shared/toolOutput';
import type { EventSqlRow, RowBatcher } from '../store/traceWriter';
import { addRunStart, addToolResult, newEventRow } from './eventRows';
import { argumentsText, argumentsValue, digestFromEvent, parseArguments, sumOptional, textLength, truncate } from './fieldValues';
import {
  ANSWER_TEXT_CHARS,
  countInStep,
  derivedCallId,
  loopActivityTypes,
  newRunState,
  rememberAnswer,
  runRow,
  spanRow,
  stepOf,
  stepRow,
  type RunEnding,
  type RunState,
} from './runState';
import { SearchText } from './searchText';
import { addStreamFragment, type OpenStream } from './streamAssembly';

/** Events without a `run_id` belong to this run, so a single-run log needs no ids at all. */
const DEFAULT_RUN_ID = 'default';

/**
 * The first row ids this ingest assigns: 1 in a new database; past the rows already there when a
 * second source (a companion file) is loaded into the same database.
 */
export interface FirstRowIds {
  event: number;
  toolCall: number;
  run: number;
}

/** Where a diagnostic about a field of the line being read goes: the line reader, which has the line's text. */
export interface RepairReporter {
  reportRepair(line: LineRef, diagnostic: string): void;
}

/** The latest event recorded, with its run and step. */
export interface RecordedEvent {
  id: number;
  runPk: number;
  step: number;
}

export class EventRecorder {
  /** The latest event recorded: overwritten by each, so recording allocates nothing for it. */
  readonly lastEvent: RecordedEvent = { id: 0, runPk: 0, step: 0 };
  private readonly runs = new Map<string, RunState>();
  private nextEventId: number;
  private nextToolCallId: number;
  private readonly firstRunPk: number;
  /** Of a stream's text, what is kept: enough for search and for the run's output (ANSWER_TEXT_CHARS), even without search. */
  private readonly streamTextChars: number;
  /** What a run without a terminal event is stored as (see `storeRuns`). */
  private openRunStatus: 'running' | 'unterminated' = 'unterminated';

  /** `searchTextChars`: search text kept per event, 0 when no search index is built. */
  constructor(
    private readonly sourceId: number,
    private readonly writer: RowBatcher,
    private readonly format: string,
    private readonly searchTextChars: number,
    firstIds: FirstRowIds,
    private readonly counters: { unknownEvents: number },
    private readonly repairs: RepairReporter,
  ) {
    this.nextEventId = firstIds.event;
    this.nextToolCallId = firstIds.toolCall;
    this.firstRunPk = firstIds.run;
    this.streamTextChars = Math.max(searchTextChars, ANSWER_TEXT_CHARS);
  }

  /**
   * Stores every run changed since it was last stored, its runs without a terminal event as
   * `openRunStatus`. `closeStreams` ends their open streams first (the file is over); otherwise they
   * stay open, as the file's next lines go on where these stopped.
   */
  storeRuns(openRunStatus: 'running' | 'unterminated', { closeStreams }: { closeStreams: boolean }): void {
    this.storeOpenRunsAs(openRunStatus);
    for (const run of this.runs.values()) this.storeRun(run, { closeStreams });
  }

  /** Records one event the adapter mapped: its row, search text, step, spans and what it changes in its run. */
  accept(mapped: MappedEvent): void {
    const { event, line, repairs } = mapped;
    const run = this.runFor(event.run_id === undefined ? DEFAULT_RUN_ID : idText(event.run_id), line.lineNumber);
    const step = stepOf(run, event);
    for (const diagnostic of repairs?.diagnostics ?? []) this.repairs.reportRepair(line, diagnostic);
    this.lastEvent.id = this.nextEventId;
    this.lastEvent.runPk = run.pk;
    this.lastEvent.step = step;
    const ts = toIsoTimestamp(event.ts);
    if (ts !== null) {
      if (run.startedAt === null || ts < run.startedAt) run.startedAt = ts;
      if (run.endedAt === null || ts > run.endedAt) run.endedAt = ts;
    }
    const row = newEventRow(this.nextEventId++, this.sourceId, this.format, run, mapped, step, ts);
    const spans = run.spans.accept({
      eventId: row.id,
      runIndex: row.run_index,
      visible: row.visible_index !== null,
      ts,
      ...(event.type === 'unknown' && event.span ? { marker: event.span } : {}),
    });
    row.span_depth = spans.depth;
    for (const span of spans.ended) this.writer.addSpan(spanRow(run.pk, span));
    if (run.end === null && loopActivityTypes.has(event.type)) run.pause = null;
    const search = new SearchText(this.searchTextChars);
    this.acceptByType(run, mapped, row, step, search);
    this.writer.addEvent(row);
    const text = search.text();
    if (text !== null) this.writer.addSearchText(row.id, text);
    countInStep(run, row);
    if (event.type === 'run_end') this.storeRun(run, { closeStreams: true });
  }

  /**
   * What the event's type adds: its columns in the row, its words in the search text, and what it
   * changes in the run (its start, calls, results, end).
   */
  private acceptByType(
    run: RunState,
    { event, line, requestShape, resultDigest, repairs }: MappedEvent,
    row: EventSqlRow,
    step: number,
    search: SearchText,
  ): void {
    switch (event.type) {
      case 'run_start':
        addRunStart(run, event, row);
        row.content_chars = event.task === undefined ? null : textLength(event.task);
        search.add(event.task);
        break;
      case 'model_request': {
        const shape = requestShape ?? { messages: event.messages?.length ?? null, tools: event.tools?.length ?? null };
        row.summary = `${shape.messages ?? 0} messages, ${shape.tools ?? 0} tools${event.model ? `, ${event.model}` : ''}`;
        // The message this request adds; a long request line is read without its messages (see SCAN_FIRST_BYTES in traceIngester.ts).
        search.add(event.messages?.at(-1));
        break;
      }
      case 'model_response':
        this.acceptModelResponse(run, event, row, step, search, line, repairs?.callsWithoutId);
        break;
      case 'stream_fragment':
        addStreamFragment(run, event, row, step, this.streamTextChars);
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
        addToolResult(run, event, row, digest);
        // A long result line is read without its output: its preview is what is at hand. An output is
        // searched as it reads (Codex's output JSON unwrapped, content blocks as their text).
        // Other JSON is searched by its values, not its keys (SearchText).
        if (event.output === undefined) search.add(digest.preview);
        else search.add(outputSearchValue(event.output));
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
    rememberAnswer(run, row.id, event.text);
    row.finish_reason = finishReason;
    row.incomplete_reason = event.incomplete_reason ?? null;
    row.tool_call_count = calls.length;
    if (row.outcome === 'tool_calls') run.toolCalls += calls.length;
    const inputTokens = event.usage?.input_tokens ?? event.usage?.prompt_tokens;
    const outputTokens = event.usage?.output_tokens ?? event.usage?.completion_tokens;
    row.input_tokens = inputTokens ?? null;
    row.output_tokens = outputTokens ?? null;
    row.cached_input_tokens = event.usage?.cached_input_tokens ?? null;
    row.cache_write_tokens = event.usage?.cache_write_tokens ?? null;
    row.reasoning_tokens = event.usage?.reasoning_tokens ?? null;
    row.model = event.model ?? null;
    row.provider = event.provider ?? null;
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
        this.repairs.reportRepair(
          line,
          `${written}: the call (${excerptOf(call.name)}) is kept as call ${excerptOf(String(callId))}, an id derived from its run, step and position, which no result is paired with`,
        );
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
    const outcome = classifyResponse({
      outcome: stream.closed ? undefined : 'incomplete',
      finishReason: stream.finishReason,
      toolCallCount: stream.calls.size,
    });
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
    rememberAnswer(run, stream.lastEventId, streamedText);
    this.writer.setStreamOutcome({ eventId: stream.lastEventId, runPk: run.pk, outcome, finishReason: stream.finishReason, toolCallCount: stream.calls.size });
    if (run.steps.setResponse(stream.step, stream.lastEventId)) run.changedSteps.add(stream.step);
  }

  /**
   * The first run_end that is not a pause ends the run; later ones change nothing (they are
   * reported as duplicates). A pause holds until the loop logs more work or ends the run; a pause
   * logged right after another replaces it (docs/semantics.md §2).
   */
  private acceptRunEnd(run: RunState, event: EventOf<'run_end'>, normalized: NormalizedStatus, eventId: number): void {
    if (run.end !== null) return;
    const ending: RunEnding = {
      status: normalized.status,
      statusRaw: normalized.raw,
      limit: event.limit ?? null,
      eventId,
      outputEventId: this.outputSource(run, event.output),
    };
    // The answers its output may repeat are behind it now.
    run.recentAnswers = [];
    if (isPausedStatus(ending.status)) run.pause = ending;
    else run.end = ending;
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

  private closeStreams(run: RunState): void {
    for (const stream of run.openStreams.values()) this.emitStream(run, stream);
    run.openStreams.clear();
  }

  private runFor(runId: string, line: number): RunState {
    let run = this.runs.get(runId);
    if (run === undefined) {
      run = newRunState(this.firstRunPk + this.runs.size, runId, line);
      this.runs.set(runId, run);
    }
    run.firstLine = Math.min(run.firstLine, line);
    run.lastLine = Math.max(run.lastLine, line);
    run.version += 1;
    return run;
  }

  /**
   * Writes the run's row and asks for its analysis. Done when the run ends, so the store worker
   * analyzes it while parsing goes on, and again at the end only if the run changed since.
   */
  private storeRun(run: RunState, { closeStreams }: { closeStreams: boolean }): void {
    if (closeStreams) this.closeStreams(run);
    if (run.storedVersion === run.version) return;
    run.storedVersion = run.version;
    this.writer.addRun(runRow(run, this.sourceId, this.openRunStatus));
    for (const step of run.changedSteps) this.writer.addStep(stepRow(run, step));
    run.changedSteps.clear();
    // Spans still open reach as far as the run has come; stored again as they grow or end.
    for (const span of run.spans.openSpans()) this.writer.addSpan(spanRow(run.pk, span));
    this.writer.analyzeRun(run.pk);
  }

  private storeOpenRunsAs(status: 'running' | 'unterminated'): void {
    if (status === this.openRunStatus) return;
    this.openRunStatus = status;
    // Their rows and analysis change with it.
    for (const run of this.runs.values()) if (run.end === null) run.version += 1;
  }
}
