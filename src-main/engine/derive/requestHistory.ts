/**
 * A run's model requests as normalized requests (shared/requests), the input of the request diff
 * and of request analysis (docs/semantics.md §9):
 * - logged: read back from the trace file — a canonical `model_request` record, or the request
 *   body of an HTTP exchange line (by its URL) — since ingest keeps no request content;
 * - reconstructed, for formats that log no requests (Claude Code, Codex, trajectories): request n
 *   is the messages the model had seen before response n, rebuilt from the run's events — its
 *   task, each response (text and calls) and each tool result. The events keep previews, not whole
 *   texts, so a reconstructed message shows its preview and is sized by the characters the event
 *   recorded (`events.content_chars`).
 */
import type Database from 'better-sqlite3';
import {
  historyEventsPage,
  issuedCallsBetween,
  modelRequestEvents,
  RawLineReader,
  runHasModelRequest,
  usageEvents,
  type HistoryEventSqlRow,
  type IssuedCallSqlRow,
  type RequestEventSqlRow,
  type UsageEventSqlRow,
} from '../store/readModel';
import {
  normalizeAnthropicMessagesRequest,
  normalizeCanonicalRequest,
  normalizeChatCompletionsRequest,
  normalizeMessages,
  normalizeResponsesRequest,
} from '../../../shared/requests/apiRequestBodies';
import { withPlaceholderLine } from '../../../shared/requests/acrossRuns';
import type { NormalizedRequest, RequestMessage } from '../../../shared/requests/normalizedRequest';
import { apiOf } from '../adapters/httpExchange/apis';
import { inspectSampleRequest } from '../adapters/inspectAi';
import { isRecord } from '../adapters/formatAdapter';
import { RequestBytesReader, type RequestThread } from './requestBytes';
import { tokensForChars } from './tokenEstimator';
import { namesModelInput } from '../../../shared/trace/canonicalEvents';

/** A request record this large is not read back. */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/** The provider's usage for the response that answered a request. */
export interface ResponseUsage {
  inputTokens: number | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
}

/** Where a logged request is, from its event row. */
export interface LoggedRequest {
  eventId: number;
  line: number;
  step: number | null;
  /** The request, or why it cannot be compared. */
  request: NormalizedRequest | { problem: string };
  /**
   * The record as logged, when it was parsed whole (a Responses continuation reads the previous
   * response from it); null when the request was read message by message (requestBytes.ts).
   */
  record: unknown;
}

export function hasLoggedRequests(db: Database.Database, runPk: number): boolean {
  return runHasModelRequest(db, runPk);
}

const noUsage: ResponseUsage = { inputTokens: null, cachedInputTokens: null, outputTokens: null };

/**
 * Pairs each `model_request` with the usage of the first response after it, before the next
 * request. Fed a run's requests and responses in order: from SQL after ingest, or from the rows
 * being written during it.
 */
export class AnsweringUsages {
  readonly byRequest = new Map<number, ResponseUsage>();
  private open: number | null = null;

  /** Whether the last request still waits for its response: its usage is not final until one comes, or the next request. */
  get awaitingResponse(): boolean {
    return this.open !== null;
  }

  add(row: UsageEventSqlRow): void {
    if (row.type === 'model_request') {
      this.open = row.id;
      this.byRequest.set(row.id, noUsage);
    } else if (this.open !== null) {
      this.byRequest.set(this.open, { inputTokens: row.input_tokens, cachedInputTokens: row.cached_input_tokens, outputTokens: row.output_tokens });
      this.open = null;
    }
  }
}

/** For every `model_request` of the run: the usage of the first response after it, before the next request. */
export function answeringUsages(db: Database.Database, runPk: number): Map<number, ResponseUsage> {
  const usages = new AnsweringUsages();
  for (const row of usageEvents(db, runPk)) usages.add(row);
  return usages.byRequest;
}

/** Line buffers are kept for lines up to this size; a longer line gets a buffer of its own. */
const MAX_POOLED_LINE_BYTES = 1024 * 1024;
/** Bytes of free buffers kept for the next lines. */
const MAX_FREE_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Buffers to read request lines into, by capacity (powers of two from 4 KiB). A run's thread holds
 * a view of its last line only until its next request is read (requestBytes.ts), so a few buffers
 * go round instead of one being allocated — and collected — per request.
 */
class LineBuffers {
  private readonly free = new Map<number, ArrayBufferLike[]>();
  /** The buffers made here: only those are handed out again (a small Buffer elsewhere shares Node.js's pool). */
  private readonly made = new WeakSet<ArrayBufferLike>();
  private freeBytes = 0;

  /** A buffer of at least `length` bytes, or undefined for a line too long to pool. */
  take(length: number): Buffer | undefined {
    if (length > MAX_POOLED_LINE_BYTES) return undefined;
    let capacity = 4096;
    while (capacity < length) capacity *= 2;
    let buffer = this.free.get(capacity)?.pop();
    if (buffer !== undefined) this.freeBytes -= capacity;
    else {
      buffer = new ArrayBuffer(capacity);
      this.made.add(buffer);
    }
    return Buffer.from(buffer);
  }

  /** A buffer taken here that nothing holds a view of any more. */
  give(buffer: ArrayBufferLike): void {
    if (!this.made.has(buffer) || this.freeBytes + buffer.byteLength > MAX_FREE_BUFFER_BYTES) return;
    let list = this.free.get(buffer.byteLength);
    if (list === undefined) {
      list = [];
      this.free.set(buffer.byteLength, list);
    }
    list.push(buffer);
    this.freeBytes += buffer.byteLength;
  }
}

/**
 * Reads a run's logged requests in order. A Responses request naming `previous_response_id` is
 * completed with the conversation the server kept (see withStoredConversation).
 */
export class LoggedRequestReader {
  /** Per source: its open file; null for an unknown source. */
  private readonly readers = new Map<number, RawLineReader | null>();
  private readonly bytes = new RequestBytesReader();
  private readonly lineBuffers = new LineBuffers();
  /** The thread of callers that name none. */
  private readonly ownThread: RequestThread = { last: null };

  constructor(private readonly db: Database.Database) {}

  /** Every `model_request` event of the run, in order. */
  requestEvents(runPk: number): RequestEventSqlRow[] {
    return modelRequestEvents(this.db, runPk);
  }

  /** Yields the requests of these events (a run's, in order), each completed against the one before it. */
  *requests(events: readonly RequestEventSqlRow[]): Generator<LoggedRequest> {
    const thread: RequestThread = { last: null };
    let previous: LoggedRequest | null = null;
    for (const event of events) {
      const logged = this.read(event, previous, thread);
      yield logged;
      previous = logged;
    }
  }

  /**
   * One request; `previous` is the run's request before it (for a Responses continuation), `thread`
   * the run's place in the reader when several runs are read in turns.
   */
  read(event: RequestEventSqlRow, previous: LoggedRequest | null, thread = this.ownThread): LoggedRequest {
    const base = { eventId: event.id, line: event.line, step: event.step };
    if (event.byte_length > MAX_REQUEST_BYTES) {
      return {
        ...base,
        record: null,
        request: { problem: `the request on line ${event.line} is ${event.byte_length} bytes, over the ${MAX_REQUEST_BYTES}-byte limit for a diff` },
      };
    }
    const reader = this.reader(event.source_id);
    if (reader === null) return { ...base, record: null, request: { problem: `the file of line ${event.line} is not known` } };
    const format = reader.format;
    let record: unknown;
    try {
      // The buffer the thread's last line is in: free once the thread holds this line instead (or none).
      const held = thread.last?.bytes.buffer;
      const into = this.lineBuffers.take(event.byte_length);
      const bytes = reader.read(event.line, event, into === undefined ? {} : { into }).bytes;
      // An Inspect sample's record holds every model call of the sample: it is read whole, for its step's model event.
      const fromBytes = format === 'inspect-ai' ? null : format === 'http-exchange' ? this.bytes.exchange(bytes, thread) : this.bytes.canonical(bytes, thread);
      if (fromBytes === null) record = JSON.parse(bytes.toString('utf8'));
      const holds = thread.last?.bytes.buffer;
      if (held !== undefined && held !== holds) this.lineBuffers.give(held);
      if (into !== undefined && into.buffer !== holds) this.lineBuffers.give(into.buffer);
      if (fromBytes !== null) return { ...base, record: null, request: fromBytes };
      if (format === 'inspect-ai') record = inspectSampleRequest(record, event.step);
    } catch (error) {
      return { ...base, record: null, request: { problem: `the request on line ${event.line} cannot be read back: ${(error as Error).message}` } };
    }
    const request = format === 'http-exchange' ? exchangeRequest(record) : normalizeCanonicalRequest(record);
    if (request === null) return { ...base, record, request: { problem: `the record on line ${event.line} holds no request messages to compare` } };
    const completed = previous === null || 'problem' in previous.request ? request : withStoredConversation(request, previous.request, previous.record);
    return { ...base, record, request: completed };
  }

  /** The logged request of one event (by id), completed against the run's requests before it. */
  readEvent(runPk: number, eventId: number): LoggedRequest | null {
    const events = this.requestEvents(runPk);
    const at = events.findIndex((event) => event.id === eventId);
    return at === -1 ? null : this.readAt(events, at);
  }

  /** The request of `events[at]` (a run's request events, in order), completed against those before it; read on `thread`. */
  readAt(events: readonly RequestEventSqlRow[], at: number, thread?: RequestThread): LoggedRequest {
    // A Responses continuation needs the conversation before it: walk back to the request that
    // starts the chain, then read forward.
    let start = at;
    while (start > 0 && isContinuation(this.read(events[start]!, null, thread))) start -= 1;
    let logged: LoggedRequest | null = null;
    for (let i = start; i <= at; i++) logged = this.read(events[i]!, logged, thread);
    return logged!;
  }

  close(): void {
    for (const reader of this.readers.values()) reader?.close();
    this.readers.clear();
  }

  private reader(sourceId: number): RawLineReader | null {
    if (!this.readers.has(sourceId)) this.readers.set(sourceId, RawLineReader.open(this.db, sourceId));
    return this.readers.get(sourceId)!;
  }
}

function isContinuation(logged: LoggedRequest): boolean {
  return !('problem' in logged.request) && typeof logged.request.params['previous_response_id'] === 'string';
}

function exchangeRequest(record: unknown): NormalizedRequest | null {
  const request = isRecord(record) ? record['request'] : undefined;
  if (!isRecord(request) || typeof request['url'] !== 'string' || !isRecord(request['body'])) return null;
  const body = request['body'];
  const api = apiOf(request['url'], body);
  if (api === 'openai-chat') return normalizeChatCompletionsRequest(body);
  if (api === 'anthropic-messages') return normalizeAnthropicMessagesRequest(body);
  if (api === 'openai-responses') return normalizeResponsesRequest(body);
  return null;
}

/**
 * A Responses request naming `previous_response_id` sends only its new input: the server keeps the
 * conversation. Its history is then the previous request's messages, the output of the response it
 * names (read from that exchange's response body), and its own input.
 */
function withStoredConversation(next: NormalizedRequest, previous: NormalizedRequest, previousRecord: unknown): NormalizedRequest {
  const continues = next.params['previous_response_id'];
  if (typeof continues !== 'string') return next;
  const response = isRecord(previousRecord) && isRecord(previousRecord['response']) ? previousRecord['response'] : undefined;
  const body =
    response === undefined
      ? undefined
      : isRecord(response['body'])
        ? response['body']
        : typeof response['body_raw'] === 'string'
          ? streamedResponse(response['body_raw'])
          : undefined;
  if (body === undefined || body['id'] !== continues) return next;
  const output = Array.isArray(body['output']) ? normalizeMessages(body['output']) : [];
  return { ...next, messages: [...previous.messages, ...output, ...next.messages] };
}

/**
 * A streamed Responses body (SSE text) as the response object it built: the one its
 * `response.completed` (or `incomplete`/`failed`) event carries, else its `response.created`
 * object with the items `response.output_item.done` reported.
 */
function streamedResponse(sse: string): Record<string, unknown> | undefined {
  let response: Record<string, unknown> | undefined;
  const items: unknown[] = [];
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data:')) continue;
    let event: unknown;
    try {
      event = JSON.parse(line.slice('data:'.length));
    } catch {
      continue;
    }
    if (!isRecord(event)) continue;
    if (
      isRecord(event['response']) &&
      (event['type'] === 'response.completed' || event['type'] === 'response.incomplete' || event['type'] === 'response.failed')
    )
      return event['response'];
    if (event['type'] === 'response.created' && isRecord(event['response'])) response = event['response'];
    if (event['type'] === 'response.output_item.done') items.push(event['item']);
  }
  return response === undefined ? undefined : { ...response, output: items };
}

// ---------------------------------------------------------------------------------------------
// Reconstruction

/**
 * One step of a reconstructed history: a message the model saw, a response (a request was sent
 * before it), or a compaction the trace marks (the history so far is replaced).
 */
export type HistoryItem =
  | { kind: 'message'; eventId: number; message: RequestMessage; tokens: number }
  | { kind: 'response'; eventId: number; line: number; step: number | null; usage: ResponseUsage; message: RequestMessage | null; tokens: number }
  | { kind: 'compaction'; eventId: number; marker: CompactionMarker };

export interface CompactionMarker {
  typeRaw: string;
  line: number;
}

/**
 * Records with which a format says its harness replaced the whole history (docs/semantics.md §9),
 * by raw type; `summary`: the record itself carries what replaces it. Claude Code's
 * `compact_boundary` carries none: its summary is the next record (`user/compact_summary`), itself
 * a marker (a second one with nothing between them removes nothing more). Codex's `compacted` holds the summary (and, in newer
 * versions, the messages it keeps); its `event_msg/context_compacted` is a mirror of it, not a
 * second compaction. OpenHands' `condensation` forgets only some events, so it is no marker here:
 * its drop in recorded input tokens shows it.
 */
const compactionMarkers: ReadonlyMap<string, { summary: boolean }> = new Map([
  ['system/compact_boundary', { summary: false }],
  // The summary itself (`isCompactSummary`): a marker too, for versions that write no boundary.
  ['user/compact_summary', { summary: true }],
  ['compacted', { summary: true }],
]);

function tokensOf(chars: number | null): number {
  return chars === null ? 0 : tokensForChars(chars);
}

/** Each row with the one after it (undefined for the last); closing it early closes the rows too. */
function* withFollowing<T>(rows: Iterable<T>): Generator<[T, T | undefined]> {
  let held: { row: T } | null = null;
  for (const row of rows) {
    if (held !== null) yield [held.row, row];
    held = { row };
  }
  if (held !== null) yield [held.row, undefined];
}

/** Events read per page of a run's history. */
const HISTORY_PAGE_EVENTS = 10_000;

const NO_CALLS: readonly IssuedCallSqlRow[] = [];

/**
 * The run's events in order, each with the calls it issued, read a page at a time (keyset by id):
 * between pages no statement is open, so whoever consumes the history may write (store each
 * request as it is made) instead of holding a long run's records.
 */
function* historyPages(db: Database.Database, runPk: number): Generator<[HistoryEventSqlRow, readonly IssuedCallSqlRow[]]> {
  let afterId = 0;
  for (;;) {
    const page = historyEventsPage(db, runPk, afterId, HISTORY_PAGE_EVENTS);
    if (page.length === 0) return;
    const calls = new Map<number, IssuedCallSqlRow[]>();
    for (const call of issuedCallsBetween(db, runPk, page[0]!.id, page.at(-1)!.id)) {
      const list = calls.get(call.event_id) ?? [];
      list.push(call);
      calls.set(call.event_id, list);
    }
    for (const event of page) yield [event, calls.get(event.id) ?? NO_CALLS];
    afterId = page.at(-1)!.id;
  }
}

/**
 * The run's events as the conversation they imply, in order: messages (task, user input, tool
 * results), responses (each preceded by a request, and appending the assistant's message) and
 * compactions. `sourceIndex` of a reconstructed message is its position in the rebuilt history
 * (from 0 again after a compaction): its number is the one a user counts.
 */
export function* reconstructedHistory(db: Database.Database, runPk: number): Generator<HistoryItem> {
  let position = 0;
  const textMessage = (role: string, text: string): RequestMessage => ({
    role,
    content: text === '' ? [] : [{ type: 'text', text }],
    toolCalls: [],
    toolCallId: null,
    name: null,
    isError: false,
    sourceIndex: position++,
  });
  // One event ahead: a record sized by its line must be the line's only event. In a whole-document
  // format (one JSON document, every event on its one line) the line's bytes are the document's.
  let previousLine = -1;
  for (const [[event, issued], following] of withFollowing(historyPages(db, runPk))) {
    const ownLine = event.line !== previousLine && following?.[0].line !== event.line;
    previousLine = event.line;
    switch (event.type) {
      case 'run_start':
        if (event.content_chars !== null) {
          yield {
            kind: 'message',
            eventId: event.id,
            message: textMessage('user', withPlaceholderLine(`The run's task (${event.content_chars} characters)`, event.line)),
            tokens: tokensOf(event.content_chars),
          };
        }
        break;
      case 'unknown': {
        const marker = compactionMarkers.get(event.type_raw);
        if (marker !== undefined) {
          position = 0;
          yield { kind: 'compaction', eventId: event.id, marker: { typeRaw: event.type_raw, line: event.line } };
          if (marker.summary) {
            const tokens = ownLine ? tokensOf(event.byte_length) : 0;
            yield {
              kind: 'message',
              eventId: event.id,
              message: textMessage('user', withPlaceholderLine(`The compaction summary (${event.type_raw} record)`, event.line)),
              tokens,
            };
          }
        } else if (namesModelInput(event.type_raw)) {
          yield {
            kind: 'message',
            eventId: event.id,
            message: textMessage('user', withPlaceholderLine(`${event.type_raw} record`, event.line)),
            tokens: ownLine ? tokensOf(event.byte_length) : 0,
          };
        }
        break;
      }
      case 'model_response':
      case 'stream_fragment': {
        if (event.outcome === null) break;
        const message: RequestMessage = {
          ...textMessage('assistant', issued.length > 0 ? '' : (event.summary ?? '')),
          toolCalls: issued.map((call) => ({ callId: call.call_id, name: call.name, arguments: call.args_summary ?? '' })),
        };
        const usage = { inputTokens: event.input_tokens, cachedInputTokens: event.cached_input_tokens, outputTokens: event.output_tokens };
        yield { kind: 'response', eventId: event.id, line: event.line, step: event.step, usage, message, tokens: tokensOf(event.content_chars) };
        break;
      }
      case 'tool_result':
        yield {
          kind: 'message',
          eventId: event.id,
          message: { ...textMessage('tool', event.summary ?? ''), toolCallId: event.call_id, name: event.name, isError: event.result_ok === 0 },
          tokens: tokensOf(event.content_chars),
        };
        break;
      default:
        break;
    }
  }
}

/**
 * The request reconstructed for one response: the messages before it, each with its estimated
 * tokens, and the compaction marked since the response before it (null when none).
 */
export function reconstructedRequest(
  db: Database.Database,
  runPk: number,
  responseEventId: number,
): { request: NormalizedRequest; messageTokens: number[]; compaction: CompactionMarker | null; line: number; step: number | null } | null {
  let messages: RequestMessage[] = [];
  let messageTokens: number[] = [];
  let compaction: CompactionMarker | null = null;
  for (const item of reconstructedHistory(db, runPk)) {
    if (item.kind === 'compaction') {
      messages = [];
      messageTokens = [];
      compaction ??= item.marker;
      continue;
    }
    if (item.kind === 'response' && item.eventId === responseEventId) {
      return { request: { system: null, tools: [], messages, params: {}, reconstructed: true }, messageTokens, compaction, line: item.line, step: item.step };
    }
    if (item.kind === 'response') compaction = null;
    if (item.message !== null) {
      messages.push(item.message);
      messageTokens.push(item.tokens);
    }
  }
  return null;
}
