/**
 * HTTP exchange logs (claude-trace and alike): one line per API call,
 * `{request{timestamp, method, url, headers, body}, response{timestamp, status_code, headers, body | body_raw}}`.
 * Each exchange with a model API (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses)
 * is one model call: a `model_request` and a `model_response` (from the JSON body, or reassembled
 * from the server-sent events of a streamed one).
 *
 * Runs are threads: every request resends the whole history, so a request whose history extends
 * (prefix-matches) the history of an earlier request continues that request's thread; anything
 * else starts a new one. Side calls (titles, quota checks, topic detection) thus become runs of
 * their own. Tool results are not lines of their own: they are read from the next request of the
 * thread. See docs/formats/http-exchange.md.
 */
import { apiErrorFacts, describeApiError, type ModelOutcome, type ToolCall } from '../../../../shared/trace/canonicalEvents';
import { classifyResponse } from '../../../../shared/trace/modelOutcome';
import { toIsoTimestamp } from '../../../../shared/trace/timestamps';
import {
  apiLabels,
  apiOf,
  callIdsIn,
  HistoryHasher,
  readApiError,
  readRequest,
  readResponseBody,
  resultsIn,
  resultText,
  urlPath,
  type ApiErrorObject,
  type ApiKind,
  type RequestView,
  type ResponseView,
} from './apis';
import { looksLikeSse, parseSse } from './sse';
import { assembleStream } from './streams';
import { defined, modelRequest, modelResponse, runEnd, toolResult, unknownEvent } from '../kit/events';
import { ExchangeLineReader } from './exchangeLineReader';
import { nonEmptyText } from '../kit/jsonValues';
import { isRecord, type Emit, type FormatAdapter, type FormatMapper, type LineRef } from '../formatAdapter';

/** Exchanges with endpoints that are not model calls (token counting, model lists, telemetry) go here. */
export const OTHER_REQUESTS_RUN_ID = 'other-requests';
/** How many earlier histories of a thread a request may extend (a branch off an earlier turn). */
const STATES_PER_THREAD = 8;
/** How many threads stay open for continuation; the least recently continued are closed first. */
const OPEN_THREADS = 256;
/** How many Responses ids are remembered for `previous_response_id` chaining. */
const RESPONSE_IDS = 1024;
/** How many issued call ids are remembered to identify the thread a later history continues. */
const CALL_IDS = 8192;
const ERROR_TEXT_CHARS = 1000;

interface ThreadState {
  thread: Thread;
  /** Number of history items, and the cumulative hash of all of them. */
  length: number;
  hash: number;
  /** The exchange got no usable response: resending the same history is a retry, not a new call. */
  failed: boolean;
  /** When its response arrived (epoch ms), if the log says: a retry is sent after it. */
  settledAt: number | undefined;
}

type LastExchange =
  | { kind: 'response'; line: LineRef; ts: string | undefined; outcome: ModelOutcome; finishReason: string | null | undefined }
  | { kind: 'api_error'; line: LineRef; ts: string | undefined; error: ApiErrorObject }
  | { kind: 'no_response' | 'unreadable'; line: LineRef; ts: string | undefined };

interface Thread {
  runId: string;
  step: number;
  model: string | undefined;
  hasTools: boolean;
  /** When the thread was last continued (a counter): the later, the more recent. */
  touchedAt: number;
  states: ThreadState[];
  /** Call ids issued by this thread's responses: their results reappear in every later history. */
  issued: Set<string>;
  /** Calls its responses issued that no result answered yet: a later request may still carry one into it. */
  pendingCalls: number;
  /** Its response ids still remembered: a later request may name one (`previous_response_id`) and go on with it. */
  chainIds: number;
  last: LastExchange | null;
  /** Its end was derived (when it closed, or at the end of the file). */
  ended: boolean;
}

interface PendingCall {
  thread: Thread;
  name: string;
  step: number;
}

type ReadResponse =
  { kind: 'response'; view: ResponseView; streamed: boolean } | { kind: 'http_error'; error: ApiErrorObject } | { kind: 'unreadable'; reason: string };

function describeKind(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

/** ISO text of an epoch number or a zoned ISO string; a local time without zone is ambiguous, so none. */
function isoOf(value: unknown): string | undefined {
  if (typeof value === 'number') return toIsoTimestamp(value) ?? undefined;
  if (typeof value === 'string' && /(?:[zZ]|[+-]\d{2}:?\d{2})$/.test(value.trim())) return toIsoTimestamp(value) ?? undefined;
  return undefined;
}

function parsedBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  const trimmed = body.trim();
  if (!trimmed.startsWith('{')) return body;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return body;
  }
}

/** The last URL read and its host: a log's requests go to one or two hosts, and parsing a URL is slow. */
let lastHost = { url: '', host: '' };

function providerOf(url: string, api: ApiKind): string {
  if (url !== lastHost.url) {
    let host = '';
    try {
      host = new URL(url).hostname;
    } catch {
      host = '';
    }
    lastHost = { url, host };
  }
  const { host } = lastHost;
  if (host.includes('anthropic')) return 'anthropic';
  if (host.includes('openai')) return 'openai';
  if (host !== '') return host;
  return api === 'anthropic-messages' ? 'anthropic' : 'openai';
}

function isExchange(value: unknown): value is { request: Record<string, unknown>; response: unknown } {
  if (!isRecord(value) || !isRecord(value['request']) || typeof value['request']['url'] !== 'string') return false;
  return 'response' in value && (value['response'] === null || isRecord(value['response']));
}

function statusOf(response: Record<string, unknown>): number | undefined {
  const status = response['status_code'] ?? response['status'];
  return typeof status === 'number' && Number.isInteger(status) ? status : undefined;
}

function readResponse(api: ApiKind, response: Record<string, unknown>, fallbackId: (position: number) => string): ReadResponse {
  const status = statusOf(response);
  const body = parsedBody(response['body']);
  const raw = response['body_raw'];
  if (status !== undefined && (status < 200 || status > 299)) return { kind: 'http_error', error: readApiError(status, body, raw) };
  const sseText = typeof raw === 'string' && looksLikeSse(raw) ? raw : typeof body === 'string' && looksLikeSse(body) ? body : undefined;
  if (sseText !== undefined) return { kind: 'response', view: assembleStream(api, parseSse(sseText), fallbackId), streamed: true };
  const json = isRecord(body) ? body : parsedBody(typeof raw === 'string' ? raw : undefined);
  if (isRecord(json) && isRecord(json['error'])) return { kind: 'http_error', error: readApiError(status, json, raw) };
  const view = readResponseBody(api, json);
  if (view !== null) return { kind: 'response', view, streamed: false };
  const what = json === undefined || json === null ? 'the response has no body' : `the response body is not ${apiLabels[api]} response`;
  return { kind: 'unreadable', reason: what };
}

/** Derived as for every format (docs/semantics.md §1); a response that is not whole (a broken stream) is incomplete. */
function outcomeOf(view: ResponseView): ModelOutcome {
  return classifyResponse({
    outcome: view.complete ? undefined : 'incomplete',
    finishReason: view.finishReason ?? null,
    toolCallCount: view.toolCalls.length,
    refusal: view.refusal,
    incompleteReason: view.incompleteReason,
  });
}

/** Records which thread an id belongs to, forgetting the oldest beyond `limit`. */
function remember(threads: Map<string, Thread>, id: string, thread: Thread, limit: number): void {
  threads.delete(id);
  threads.set(id, thread);
  if (threads.size > limit) {
    const oldest = threads.keys().next();
    if (!oldest.done) threads.delete(oldest.value);
  }
}

class HttpExchangeMapper implements FormatMapper {
  private readonly threads: Thread[] = [];
  /** Threads that may still be continued, least recently continued first. */
  private readonly open = new Set<Thread>();
  private readonly pending = new Map<string, PendingCall>();
  private readonly responseThreads = new Map<string, Thread>();
  /** The thread whose response issued each call id (the most recent ones). */
  private readonly callThreads = new Map<string, Thread>();
  private readonly histories = new HistoryHasher();
  /** The states of every open thread by their history's hash: a request looks up its own prefixes instead of visiting every thread. */
  private readonly statesByHash = new Map<number, ThreadState[]>();
  private touches = 0;
  private readonly lines = new ExchangeLineReader();

  readValue(bytes: Buffer): { value: unknown } | null {
    return this.lines.read(bytes);
  }

  map(value: unknown, line: LineRef, emit: Emit): { reason: string } | undefined {
    if (!isRecord(value)) return { reason: `not an HTTP exchange: the line is ${describeKind(value)}, not an object` };
    const request = value['request'];
    if (!isRecord(request)) return { reason: 'not an HTTP exchange: the record has no "request" object' };
    const url = request['url'];
    if (typeof url !== 'string') return { reason: 'not an HTTP exchange: "request.url" is missing' };
    const response = value['response'];
    if (response !== undefined && response !== null && !isRecord(response)) return { reason: `"response" is ${describeKind(response)}, not an object` };
    const method = typeof request['method'] === 'string' ? request['method'].toUpperCase() : 'POST';
    const requestTs = isoOf(request['timestamp']) ?? isoOf(value['logged_at']);
    const body = parsedBody(request['body']);
    const api = method === 'POST' && isRecord(body) ? apiOf(url, body) : null;
    const typeRaw = `${method} ${urlPath(url)}`;
    if (api === null || !isRecord(body)) {
      emit({ event: unknownEvent(typeRaw, { run_id: OTHER_REQUESTS_RUN_ID, ts: requestTs }), typeRaw, line });
      return undefined;
    }
    this.mapExchange(
      { api, url, typeRaw, view: readRequest(api, body), requestTs, response: isRecord(response) ? response : null, note: value['note'] },
      line,
      emit,
    );
    return undefined;
  }

  private mapExchange(
    exchange: {
      api: ApiKind;
      url: string;
      typeRaw: string;
      view: RequestView;
      requestTs: string | undefined;
      response: Record<string, unknown> | null;
      note: unknown;
    },
    line: LineRef,
    emit: Emit,
  ): void {
    const { api, view, requestTs, response } = exchange;
    const hashes = view.previousResponseId === undefined ? this.histories.prefixHashes(api, view.items) : null;
    const hasTools = (view.tools?.length ?? 0) > 0;
    const sentAt = requestTs === undefined ? undefined : Date.parse(requestTs);
    const historyCallIds = view.items.flatMap((item) => callIdsIn(api, item));
    const match =
      hashes === null
        ? this.continuedResponse(view.previousResponseId!)
        : this.matchThread({ hashes, callIds: historyCallIds, model: view.model, hasTools, sentAt });
    const thread = match?.thread ?? this.newThread();
    this.touch(thread, emit);
    thread.step += 1;
    thread.model = view.model;
    thread.hasTools = hasTools;
    const step = thread.step;
    const runId = thread.runId;
    const fallbackId = (position: number): string => `${runId}:step${step}:call${position}`;
    const read = response === null ? null : readResponse(api, response, fallbackId);

    // A chain off a response this log does not hold: its history is out of sight, so a result for
    // a call not seen here cannot be told from one answered there.
    const historyUnseen = view.previousResponseId !== undefined && match === null;
    this.emitToolResults(
      thread,
      step,
      view,
      { matchedLength: match?.length ?? 0, callIds: new Set(historyCallIds), unseen: historyUnseen },
      read,
      requestTs,
      line,
      emit,
    );

    const provider = providerOf(exchange.url, api);
    const request = modelRequest({
      run_id: runId,
      step,
      ts: requestTs,
      model: view.model,
      provider,
      system: view.system,
      messages: view.messages,
      tools: view.tools,
      params: view.params,
    });
    const noResponse = typeof exchange.note === 'string' ? ` (no response: ${exchange.note})` : response === null ? ' (no response)' : '';
    emit({ event: request, typeRaw: `${exchange.typeRaw}${noResponse}`, line });

    const responseTs = response === null ? undefined : isoOf(response['timestamp']);
    const failed = this.emitResponse(thread, step, read, { model: view.model, provider }, requestTs, responseTs, line, emit);
    if (hashes !== null && hashes.length > 0) {
      this.addState({
        thread,
        length: hashes.length,
        hash: hashes[hashes.length - 1]!,
        failed,
        settledAt: responseTs === undefined ? undefined : Date.parse(responseTs),
      });
    }
  }

  private addState(state: ThreadState): void {
    const { thread } = state;
    thread.states.push(state);
    const sameHash = this.statesByHash.get(state.hash);
    if (sameHash === undefined) this.statesByHash.set(state.hash, [state]);
    else sameHash.push(state);
    if (thread.states.length > STATES_PER_THREAD) this.forgetState(thread.states.shift()!);
  }

  private forgetState(state: ThreadState): void {
    const sameHash = this.statesByHash.get(state.hash);
    if (sameHash === undefined) return;
    const at = sameHash.indexOf(state);
    if (at !== -1) sameHash.splice(at, 1);
    if (sameHash.length === 0) this.statesByHash.delete(state.hash);
  }

  /**
   * Emits the model_response of an exchange; returns whether it failed to give a usable response.
   * `sentTo`: the model the request named and the provider it went to, which a response that names
   * no model of its own (an error) was asked of.
   */
  private emitResponse(
    thread: Thread,
    step: number,
    read: ReadResponse | null,
    sentTo: { model: string | undefined; provider: string },
    requestTs: string | undefined,
    responseTs: string | undefined,
    line: LineRef,
    emit: Emit,
  ): boolean {
    const ts = responseTs ?? requestTs;
    const base = { run_id: thread.runId, step, ts };
    const latency = requestTs !== undefined && responseTs !== undefined ? Date.parse(responseTs) - Date.parse(requestTs) : undefined;
    const latencyMs = latency !== undefined && latency >= 0 ? latency : undefined;
    if (read === null) {
      thread.last = { kind: 'no_response', line, ts };
      return true;
    }
    if (read.kind === 'http_error') {
      // The provider answered with an error, not a model output: no finish reason, no text (docs/semantics.md §7).
      const { error } = read;
      const event = modelResponse({
        ...base,
        outcome: 'incomplete',
        incomplete_reason: [error.status !== undefined ? `HTTP ${error.status}` : 'API error', error.type ?? error.code].filter(Boolean).join(' '),
        api_error: error,
        latency_ms: latencyMs,
        model: sentTo.model,
        provider: sentTo.provider,
      });
      emit({ event, typeRaw: `response ${error.status ?? 'error'}`, line });
      thread.last = { kind: 'api_error', line, ts, error };
      return true;
    }
    if (read.kind === 'unreadable') {
      const event = modelResponse({
        ...base,
        outcome: 'incomplete',
        incomplete_reason: read.reason,
        latency_ms: latencyMs,
        model: sentTo.model,
        provider: sentTo.provider,
      });
      emit({ event, typeRaw: 'response (unreadable)', line });
      thread.last = { kind: 'unreadable', line, ts };
      return true;
    }
    const { view } = read;
    const outcome = outcomeOf(view);
    const event = modelResponse({
      ...base,
      outcome,
      finish_reason: view.finishReason,
      text: view.text,
      tool_calls: view.toolCalls,
      refusal: view.refusal,
      incomplete_reason: view.incompleteReason,
      usage: view.usage,
      latency_ms: latencyMs,
      response_id: view.responseId,
      model: view.model ?? sentTo.model,
      provider: sentTo.provider,
      api_error: view.apiError,
    });
    emit({ event, typeRaw: `response ${read.streamed ? '(SSE)' : '(JSON)'}`, line });
    for (const call of view.toolCalls) this.issue(thread, step, call, outcome === 'tool_calls');
    if (view.responseId !== undefined) this.rememberResponse(view.responseId, thread, emit);
    thread.last =
      view.apiError !== undefined
        ? { kind: 'api_error', line, ts, error: view.apiError }
        : { kind: 'response', line, ts, outcome, finishReason: view.finishReason };
    return !view.complete;
  }

  private issue(thread: Thread, step: number, call: ToolCall, issued: boolean): void {
    const callId = String(call.call_id);
    // Calls of an incomplete response are not issued (they owe no result), but a result the loop
    // sent anyway is still theirs, not an orphan.
    const earlier = this.pending.get(callId);
    if (earlier !== undefined) earlier.thread.pendingCalls -= 1;
    this.pending.set(callId, { thread, name: call.name, step });
    thread.pendingCalls += 1;
    if (issued) thread.issued.add(callId);
    remember(this.callThreads, callId, thread, CALL_IDS);
  }

  /**
   * Tool results are read from the history items this request adds to its thread: each answers a
   * call still open. A result the provider rejected (a 4xx naming its id) does not answer its call;
   * a result for a call no response issued and no history item carries is an orphan, kept.
   */
  private emitToolResults(
    thread: Thread,
    step: number,
    view: RequestView,
    history: { matchedLength: number; callIds: ReadonlySet<string>; unseen: boolean },
    read: ReadResponse | null,
    ts: string | undefined,
    line: LineRef,
    emit: Emit,
  ): void {
    const added = view.items.slice(history.matchedLength);
    const results = added.flatMap((item) => resultsIn(view.api, item));
    if (results.length === 0) return;
    const status = read?.kind === 'http_error' ? read.error.status : undefined;
    const rejection = read?.kind === 'http_error' && status !== undefined && status >= 400 && status < 500 ? (read.error.message ?? '') : null;
    for (const result of results) {
      const pending = this.pending.get(result.callId);
      const named = rejection !== null && rejection.includes(result.callId);
      let target: Thread;
      let resultStep: number;
      let name: string | undefined;
      if (pending !== undefined) {
        if (named) continue;
        this.pending.delete(result.callId);
        pending.thread.pendingCalls -= 1;
        target = pending.thread;
        resultStep = pending.step;
        name = pending.name;
      } else {
        if (!named && (history.unseen || thread.issued.has(result.callId) || history.callIds.has(result.callId))) continue;
        target = thread;
        resultStep = Math.max(1, step - 1);
      }
      const errorMessage = result.isError ? resultText(result.output).slice(0, ERROR_TEXT_CHARS) : '';
      const event = toolResult({
        run_id: target.runId,
        step: resultStep,
        ts,
        call_id: result.callId,
        name,
        status: result.isError ? 'error' : 'ok',
        output: result.output,
        error: result.isError ? defined({ message: nonEmptyText(errorMessage) }) : undefined,
      });
      emit({ event, typeRaw: result.typeRaw, line });
      // Its last awaited result: a closed thread may be out of reach now.
      this.endIfUnreachable(target, emit);
    }
  }

  /**
   * The thread a history continues (docs/semantics.md §8). Candidates are the threads one of whose
   * earlier histories is a prefix of this one; a one-item prefix counts only with the same model
   * and tools presence, another model *and* another tools presence never. The same history again
   * is a candidate only when its earlier send got no usable response and the request was sent
   * after that failure came back (a retry; two agents sending the same first request at once are
   * two threads). Among candidates, what identifies a thread decides first: the thread whose
   * response issued the latest call id the history carries. Only when no call id identifies one:
   * the longest prefix, then the same model, the same tools presence, the most recently continued.
   */
  private matchThread(request: {
    hashes: readonly number[];
    callIds: readonly string[];
    model: string | undefined;
    hasTools: boolean;
    sentAt: number | undefined;
  }): { thread: Thread; length: number } | null {
    const { hashes, model, hasTools, sentAt } = request;
    const candidates = new Map<Thread, { length: number; score: number; order: number }>();
    for (let length = 1; length <= hashes.length; length += 1) {
      for (const state of this.statesByHash.get(hashes[length - 1]!) ?? []) {
        if (state.length !== length) continue;
        const { thread } = state;
        const sameModel = thread.model === model;
        const sameTools = thread.hasTools === hasTools;
        if (!sameModel && !sameTools) continue;
        if (length === hashes.length && !(state.failed && !(sentAt !== undefined && state.settledAt !== undefined && sentAt < state.settledAt))) continue;
        if (length <= 1 && !(sameModel && sameTools)) continue;
        const score = length * 4 + (sameModel ? 2 : 0) + (sameTools ? 1 : 0);
        const known = candidates.get(thread);
        if (known === undefined || score > known.score) candidates.set(thread, { length, score, order: thread.touchedAt });
      }
    }
    if (candidates.size === 0) return null;
    for (let index = request.callIds.length - 1; index >= 0; index -= 1) {
      const issuer = this.callThreads.get(request.callIds[index]!);
      const candidate = issuer === undefined ? undefined : candidates.get(issuer);
      if (issuer !== undefined && candidate !== undefined) return { thread: issuer, length: candidate.length };
    }
    let best: { thread: Thread; length: number; score: number; order: number } | null = null;
    for (const [thread, candidate] of candidates) {
      if (best === null || candidate.score > best.score || (candidate.score === best.score && candidate.order > best.order)) best = { thread, ...candidate };
    }
    return best === null ? null : { thread: best.thread, length: best.length };
  }

  private continuedResponse(previousResponseId: string): { thread: Thread; length: number } | null {
    const thread = this.responseThreads.get(previousResponseId);
    return thread === undefined ? null : { thread, length: 0 };
  }

  private newThread(): Thread {
    const thread: Thread = {
      runId: `thread-${this.threads.length + 1}`,
      step: 0,
      model: undefined,
      hasTools: false,
      touchedAt: 0,
      states: [],
      issued: new Set(),
      pendingCalls: 0,
      chainIds: 0,
      last: null,
      ended: false,
    };
    this.threads.push(thread);
    return thread;
  }

  /**
   * Marks a thread as the most recently continued; closes the least recent beyond the limit. A
   * closed thread that nothing can reach any more — no history can extend it (its states are
   * forgotten), no call of it awaits a result, no response of it can be named by
   * `previous_response_id` — is as it will be at the end of the file: its end is derived now, so
   * its run is analyzed (and let go of) while the file is read instead of after it.
   */
  private touch(thread: Thread, emit: Emit): void {
    this.open.delete(thread);
    this.open.add(thread);
    this.touches += 1;
    thread.touchedAt = this.touches;
    if (this.open.size > OPEN_THREADS) {
      const oldest = this.open.values().next();
      if (!oldest.done) {
        const closed = oldest.value;
        this.open.delete(closed);
        for (const state of closed.states) this.forgetState(state);
        closed.states = [];
        closed.issued.clear();
        this.endIfUnreachable(closed, emit);
      }
    }
  }

  /** A closed thread that nothing can reach any more ends now (see touch). */
  private endIfUnreachable(thread: Thread, emit: Emit): void {
    if (thread.ended || this.open.has(thread) || thread.pendingCalls > 0 || thread.chainIds > 0) return;
    this.endThread(thread, 'derived when the thread closed', emit);
  }

  /** Remembers which thread a response id belongs to (the most recent RESPONSE_IDS); a thread whose last id is forgotten may become unreachable. */
  private rememberResponse(responseId: string, thread: Thread, emit: Emit): void {
    const earlier = this.responseThreads.get(responseId);
    if (earlier !== undefined) {
      this.responseThreads.delete(responseId);
      earlier.chainIds -= 1;
    }
    this.responseThreads.set(responseId, thread);
    thread.chainIds += 1;
    if (earlier !== undefined && earlier !== thread) this.endIfUnreachable(earlier, emit);
    if (this.responseThreads.size > RESPONSE_IDS) {
      const [oldestId, oldest] = this.responseThreads.entries().next().value!;
      this.responseThreads.delete(oldestId);
      oldest.chainIds -= 1;
      this.endIfUnreachable(oldest, emit);
    }
  }

  /**
   * HTTP logs never say a run ended. A thread whose last response was a final answer (or a
   * refusal), or whose last exchange was an API error, with no later request continuing it, ended
   * there; any other thread (calls awaiting results, a cut-off response) stays unterminated.
   */
  finish(emit: Emit): void {
    for (const thread of this.threads) if (!thread.ended) this.endThread(thread, 'derived at end of file', emit);
  }

  private endThread(thread: Thread, typeRaw: string, emit: Emit): void {
    const last = thread.last;
    if (last === null) return;
    let status: string;
    let reason: string;
    if (last.kind === 'response' && (last.outcome === 'final' || last.outcome === 'refusal')) {
      status = last.outcome === 'final' ? 'model_finished' : 'refused';
      const finishReason = last.finishReason === undefined || last.finishReason === null ? 'no finish reason' : `finish reason "${last.finishReason}"`;
      reason = `derived: the thread's last response (line ${last.line.lineNumber}) is a ${last.outcome} answer (${finishReason}) and no later request continues the thread`;
    } else if (last.kind === 'api_error') {
      status = 'failed';
      reason = `derived: the thread's last exchange (line ${last.line.lineNumber}) failed at the provider with ${describeApiError(apiErrorFacts(last.error)).slice(0, 200)} and no later request continues the thread`;
    } else {
      return;
    }
    thread.ended = true;
    const event = runEnd({ run_id: thread.runId, step: thread.step, ts: last.ts, status, reason });
    emit({ event, typeRaw, line: last.line });
  }
}

export const httpExchangeFormat: FormatAdapter = {
  name: 'http-exchange',
  detect(sample) {
    const exchanges = sample.values.filter(isExchange);
    if (exchanges.length === 0 && sample.values.length === 0) {
      // A first exchange too large for the detection sample: recognised by how it starts.
      const start = /^\s*\{\s*"request"\s*:\s*\{[^{}]*?"url"\s*:\s*"([^"]+)"/.exec(sample.head.slice(0, 4096));
      return start ? `HTTP exchange log: the first record is a {request{url, …}, response} pair to ${urlPath(start[1]!)}, too large to sample whole` : null;
    }
    if (exchanges.length === 0 || exchanges.length * 2 < sample.values.length) return null;
    const apis = new Map<string, number>();
    for (const exchange of exchanges) {
      const body = parsedBody(exchange.request['body']);
      const api = isRecord(body) ? apiOf(exchange.request['url'] as string, body) : null;
      const label = api === null ? 'other endpoints' : apiLabels[api];
      apis.set(label, (apis.get(label) ?? 0) + 1);
    }
    const seen = [...apis.entries()].map(([label, n]) => `${n} ${label}`).join(', ');
    return `HTTP exchange log: ${exchanges.length} of the first ${sample.values.length} records are {request{url, body}, response{status_code, body | body_raw}} pairs (${seen})`;
  },
  createMapper() {
    return new HttpExchangeMapper();
  },
};
