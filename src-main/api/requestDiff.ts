/**
 * The request diff of the API (`requestDiff`): reads two logged model requests back from the trace
 * file — a canonical `model_request` record, or the request body of an HTTP exchange line — turns
 * them into normalized requests (shared/requests) and compares them. Computed on demand from the
 * raw records, so ingest pays nothing for it.
 */
import type Database from 'better-sqlite3';
import type { ApiParsedRequest, ApiResponse } from '../../shared/api';
import { diffRequests } from '../../shared/requests/diffRequests';
import { messageText, type NormalizedRequest } from '../../shared/requests/normalizedRequest';
import {
  normalizeAnthropicMessagesRequest,
  normalizeCanonicalRequest,
  normalizeChatCompletionsRequest,
  normalizeMessages,
  normalizeResponsesRequest,
} from '../../shared/requests/normalizeRequest';
import { historyRewriteFinding, missingToolResultFinding } from '../../shared/requests/requestFindings';
import { apiOf } from '../engine/adapters/httpExchangeApis';
import { isRecord } from '../engine/adapters/formatAdapter';
import { readRawLine } from '../engine/store/rawLines';
import { ApiError } from './apiError';

/** A request record this large is not read back for a diff. */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
/** Text of a changed message sent to the view, at most (the word diff runs on it). */
const MAX_MESSAGE_CHARS = 64 * 1024;

interface RequestEventRow {
  id: number;
  source_id: number;
  run_pk: number;
  line: number;
  byte_length: number;
  type: string;
  format: string;
}

const requestEventSql = `SELECT e.id, e.source_id, e.run_pk, e.line, e.byte_length, e.type, s.format
  FROM events e JOIN sources s ON s.id = e.source_id WHERE e.id = ? AND e.source_id IN (SELECT value FROM json_each(?))`;

function requestEvent(db: Database.Database, sourceIds: readonly number[], eventId: number): RequestEventRow {
  const row = db.prepare<[number, string], RequestEventRow>(requestEventSql).get(eventId, JSON.stringify(sourceIds));
  if (row === undefined) throw new ApiError('not_found', `no event ${eventId} in this trace`);
  if (row.type !== 'model_request') throw new ApiError('invalid_request', `event ${eventId} is a ${row.type}, not a model request`);
  return row;
}

/** The model request before `event` in its run, if there is one. */
function previousRequest(db: Database.Database, event: RequestEventRow): number | null {
  const row = db
    .prepare<[number, number], { id: number }>("SELECT id FROM events WHERE run_pk = ? AND type = 'model_request' AND id < ? ORDER BY id DESC LIMIT 1")
    .get(event.run_pk, event.id);
  return row?.id ?? null;
}

interface LoggedRequest {
  record: unknown;
  request: NormalizedRequest;
}

/** The request as logged: the canonical record itself, or an HTTP exchange's request body by its URL. */
function loggedRequest(db: Database.Database, event: RequestEventRow): LoggedRequest {
  if (event.byte_length > MAX_REQUEST_BYTES) throw new ApiError('unavailable', `the request on line ${event.line} is ${event.byte_length} bytes, over the ${MAX_REQUEST_BYTES}-byte limit for a diff`);
  let record: unknown;
  try {
    record = JSON.parse(readRawLine(db, event.source_id, event.line)?.bytes.toString('utf8') ?? 'null');
  } catch (error) {
    throw new ApiError('unavailable', `the request on line ${event.line} cannot be read back: ${(error as Error).message}`);
  }
  const request = event.format === 'http-exchange' ? exchangeRequest(record) : normalizeCanonicalRequest(record);
  if (request === null) throw new ApiError('unavailable', `the record on line ${event.line} holds no request messages to compare`);
  return { record, request };
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
function withStoredConversation(next: LoggedRequest, previous: LoggedRequest): NormalizedRequest {
  const continues = next.request.params['previous_response_id'];
  if (typeof continues !== 'string') return next.request;
  const response = isRecord(previous.record) && isRecord(previous.record['response']) ? previous.record['response'] : undefined;
  const body = response === undefined ? undefined : isRecord(response['body']) ? response['body'] : typeof response['body_raw'] === 'string' ? streamedResponse(response['body_raw']) : undefined;
  if (body === undefined || body['id'] !== continues) return next.request;
  const output = Array.isArray(body['output']) ? normalizeMessages(body['output']) : [];
  return { ...next.request, messages: [...previous.request.messages, ...output, ...next.request.messages] };
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
    if (isRecord(event['response']) && (event['type'] === 'response.completed' || event['type'] === 'response.incomplete' || event['type'] === 'response.failed')) return event['response'];
    if (event['type'] === 'response.created' && isRecord(event['response'])) response = event['response'];
    if (event['type'] === 'response.output_item.done') items.push(event['item']);
  }
  return response === undefined ? undefined : { ...response, output: items };
}

const emptyRequest: NormalizedRequest = { system: null, tools: [], messages: [], params: {}, reconstructed: false };

function cut(text: string): string {
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS)}…`;
}

export function requestDiff(db: Database.Database, sourceIds: readonly number[], request: ApiParsedRequest<'requestDiff'>): ApiResponse<'requestDiff'> {
  const event = requestEvent(db, sourceIds, request.eventId);
  const previousId = request.previousEventId ?? previousRequest(db, event);
  const logged = loggedRequest(db, event);
  const previousLogged = previousId === null ? null : loggedRequest(db, requestEvent(db, sourceIds, previousId));
  const previous = previousLogged?.request ?? emptyRequest;
  const next = previousLogged === null ? logged.request : withStoredConversation(logged, previousLogged);
  const diff = diffRequests(previous, next);
  // Request numbers in the finding texts count from the run's first logged request.
  const number = db.prepare<[number, number], { n: number }>("SELECT count(*) AS n FROM events WHERE run_pk = ? AND type = 'model_request' AND id <= ?").get(event.run_pk, event.id)?.n ?? 1;
  const findings = previousId === null ? [] : [historyRewriteFinding(number, diff.history), missingToolResultFinding(number, diff.toolPairing)];
  const entries = diff.alignment.entries;
  return {
    previousEventId: previousId,
    eventId: event.id,
    previousMessages: previous.messages.length,
    messages: next.messages.length,
    history: diff.history,
    runs: diff.alignment.runs.map((run) => ({ status: run.status, previous: run.previous, next: run.next })),
    changes: entries.flatMap((entry) => {
      if (entry.status === 'unchanged') return [];
      const before = entry.previousIndex === null ? undefined : previous.messages[entry.previousIndex];
      const after = entry.nextIndex === null ? undefined : next.messages[entry.nextIndex];
      return [
        {
          status: entry.status,
          previousIndex: entry.previousIndex,
          nextIndex: entry.nextIndex,
          role: (after ?? before)?.role ?? 'unknown',
          previousText: before === undefined ? null : cut(messageText(before)),
          nextText: after === undefined ? null : cut(messageText(after)),
        },
      ];
    }),
    system: diff.system,
    tools: { added: diff.tools.added, removed: diff.tools.removed, changed: diff.tools.changed.map(({ name, description, parameters }) => ({ name, description, parameters })) },
    params: diff.params,
    missingToolResults: diff.toolPairing.missingToolResults,
    orphanToolResults: diff.toolPairing.orphanToolResults,
    findings: findings.flatMap((finding) => (finding === null ? [] : [{ kind: finding.kind, severity: finding.severity, message: finding.message }])),
  };
}
