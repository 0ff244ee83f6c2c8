/**
 * The request diff of the API (`requestDiff`): two model requests of a trace — logged, read back
 * from the trace file, or reconstructed from the events for formats that log none (see
 * engine/derive/requestHistory.ts) — compared by shared/requests. Computed on demand, so ingest
 * pays nothing for it.
 */
import type Database from 'better-sqlite3';
import type { ApiParsedRequest, ApiResponse, RequestDiffResponse } from '../../shared/api';
import { diffRequests } from '../../shared/requests/diffRequests';
import { messageNumber, messageText, type NormalizedRequest } from '../../shared/requests/normalizedRequest';
import { compaction } from '../../shared/requests/compaction';
import { historyCompactedFinding, historyRewriteFinding, missingToolResultFindings, prefixChangeFinding } from '../../shared/requests/requestFindings';
import {
  diffEventInSources,
  hasLoggedRequests,
  LoggedRequestReader,
  previousRequestEventId,
  reconstructedRequest,
  requestsUpTo,
  runIdOf,
  TokenEstimator,
  type CompactionMarker,
  type DiffEventSqlRow,
} from '../engine';
import { canonicalJson } from '../../shared/trace/canonicalJson';
import { ApiError } from './apiError';
import { changedText } from './changedText';

/** Text of a new, removed or moved message sent to the view, at most. */
const MAX_MESSAGE_CHARS = 64 * 1024;

function eventInTrace(db: Database.Database, sourceIds: readonly number[], eventId: number): DiffEventSqlRow {
  const row = diffEventInSources(db, sourceIds, eventId);
  if (row === undefined) throw new ApiError('not_found', `no event ${eventId} in this trace`);
  return row;
}

/** A request of the diff: its messages, the estimated tokens of each, and (reconstructed) the compaction marked before it. */
interface ComparedRequest {
  eventId: number;
  request: NormalizedRequest;
  messageTokens: number[];
  compaction: CompactionMarker | null;
}

/**
 * The request an event stands for: a `model_request` event is a logged request; in a run with no
 * logged requests, a response stands for the request reconstructed for it.
 */
function comparedRequest(
  db: Database.Database,
  reader: LoggedRequestReader,
  estimator: TokenEstimator,
  event: DiffEventSqlRow,
  reconstructed: boolean,
): ComparedRequest {
  if (!reconstructed) {
    if (event.type !== 'model_request') throw new ApiError('invalid_request', `event ${event.id} is a ${event.type}, not a model request`);
    const logged = reader.readEvent(event.run_pk, event.id);
    if (logged === null) throw new ApiError('not_found', `no request ${event.id} in its run`);
    if ('problem' in logged.request) throw new ApiError('unavailable', logged.request.problem);
    return { eventId: event.id, request: logged.request, messageTokens: estimator.request(logged.request).messages.slice(), compaction: null };
  }
  const isResponse = event.type === 'model_response' || (event.type === 'stream_fragment' && event.outcome !== null);
  if (!isResponse)
    throw new ApiError(
      'invalid_request',
      `event ${event.id} is a ${event.type}: this run logs no requests, so a request is named by the response it was sent for`,
    );
  const rebuilt = reconstructedRequest(db, event.run_pk, event.id);
  if (rebuilt === null) throw new ApiError('not_found', `no response ${event.id} in its run`);
  return { eventId: event.id, request: rebuilt.request, messageTokens: rebuilt.messageTokens, compaction: rebuilt.compaction };
}

const emptyRequest: NormalizedRequest = { system: null, tools: [], messages: [], params: {}, reconstructed: false };

function cut(text: string): string {
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS)}…`;
}

/** A tool definition as the JSON diff shows it: keys sorted, so only real changes differ. */
function indentedJson(value: unknown): string {
  return JSON.stringify(JSON.parse(canonicalJson(value)), null, 2);
}

function spanTokens(tokens: readonly number[], span: { first: number; last: number } | null): number {
  if (span === null) return 0;
  let sum = 0;
  for (let i = span.first; i <= span.last; i++) sum += tokens[i] ?? 0;
  return sum;
}

/** The request the diff's left side is, as its findings name it: its number in its run, and the run when it is another. */
function comparedWith(db: Database.Database, runPk: number, previous: { id: number; run_pk: number }, reconstructed: boolean): string {
  const number = requestsUpTo(db, previous.run_pk, previous.id, reconstructed) ?? 1;
  return previous.run_pk === runPk ? `request ${number}` : `request ${number} of run ${runIdOf(db, previous.run_pk)}`;
}

export function requestDiff(db: Database.Database, sourceIds: readonly number[], request: ApiParsedRequest<'requestDiff'>): ApiResponse<'requestDiff'> {
  const event = eventInTrace(db, sourceIds, request.eventId);
  const reconstructed = !hasLoggedRequests(db, event.run_pk);
  const previousId = request.previousEventId ?? previousRequestEventId(db, event.run_pk, event.id, reconstructed);
  const reader = new LoggedRequestReader(db);
  const estimator = new TokenEstimator();
  let next: ComparedRequest;
  let previous: ComparedRequest | null;
  const previousEvent = previousId === null ? null : eventInTrace(db, sourceIds, previousId);
  try {
    next = comparedRequest(db, reader, estimator, event, reconstructed);
    if (previousEvent !== null && previousEvent.run_pk !== event.run_pk && reconstructed === hasLoggedRequests(db, previousEvent.run_pk)) {
      throw new ApiError('invalid_request', `event ${previousEvent.id} is not a request of the same kind (logged or reconstructed) as event ${event.id}`);
    }
    previous = previousEvent === null ? null : comparedRequest(db, reader, estimator, previousEvent, reconstructed);
  } finally {
    reader.close();
  }
  const before = previous?.request ?? { ...emptyRequest, reconstructed };
  // A marker counts only between adjacent requests: against an earlier one, other turns lie between.
  const marker = previousId === previousRequestEventId(db, event.run_pk, event.id, reconstructed) ? next.compaction : null;
  const diff = diffRequests(before, next.request, marker !== null);
  const compacted =
    diff.history.verdict === 'rewritten' && diff.history.kind === 'compacted'
      ? compaction(marker === null ? 'diff' : 'marker', marker, null, null, diff.history.counts.removed + diff.history.counts.modified)
      : null;
  // Request numbers in the finding texts count from the run's first request.
  const number = requestsUpTo(db, event.run_pk, event.id, reconstructed) ?? 1;
  const against = previousEvent === null ? undefined : comparedWith(db, event.run_pk, previousEvent, reconstructed);
  const findings =
    previous === null
      ? []
      : [
          compacted === null || diff.history.verdict !== 'rewritten' ? null : historyCompactedFinding(number, compacted, diff.history.messageNumber),
          historyRewriteFinding(number, diff.history, against),
          prefixChangeFinding(number, diff.prefix, against),
          ...missingToolResultFindings(number, diff.toolPairing),
        ];
  const entries = diff.alignment.entries;
  return {
    previousEventId: previous?.eventId ?? null,
    eventId: event.id,
    reconstructed,
    previousMessages: before.messages.length,
    messages: next.request.messages.length,
    messageNumbers: { previous: before.messages.map(messageNumber), next: next.request.messages.map(messageNumber) },
    history: diff.history,
    runs: diff.alignment.runs.map((run) => ({
      status: run.status,
      previous: run.previous,
      next: run.next,
      tokens: run.next !== null ? spanTokens(next.messageTokens, run.next) : spanTokens(previous?.messageTokens ?? [], run.previous),
    })),
    changes: entries.flatMap((entry): RequestDiffResponse['changes'] => {
      if (entry.status === 'unchanged') return [];
      const beforeMessage = entry.previousIndex === null ? undefined : before.messages[entry.previousIndex];
      const after = entry.nextIndex === null ? undefined : next.request.messages[entry.nextIndex];
      const base = { status: entry.status, previousIndex: entry.previousIndex, nextIndex: entry.nextIndex, role: (after ?? beforeMessage)?.role ?? 'unknown' };
      if (beforeMessage !== undefined && after !== undefined && entry.status === 'modified')
        return [{ ...base, ...changedText(messageText(beforeMessage), messageText(after)) }];
      return [
        {
          ...base,
          previousText: beforeMessage === undefined ? null : cut(messageText(beforeMessage)),
          nextText: after === undefined ? null : cut(messageText(after)),
          excerpt: null,
        },
      ];
    }),
    system: diff.system,
    tools: {
      added: diff.tools.added,
      removed: diff.tools.removed,
      changed: diff.tools.changed.map(({ name, description, parameters, previous: before, next: after }) => ({
        name,
        description,
        parameters,
        previousJson: indentedJson(before),
        nextJson: indentedJson(after),
      })),
      reordered: diff.tools.reordered,
    },
    compaction: compacted === null ? null : { evidence: compacted.evidence, marker: compacted.marker },
    params: diff.params,
    missingToolResults: diff.toolPairing.missingToolResults,
    orphanToolResults: diff.toolPairing.orphanToolResults,
    findings: findings.flatMap((finding) => (finding === null ? [] : [{ kind: finding.kind, severity: finding.severity, message: finding.message }])),
  };
}
