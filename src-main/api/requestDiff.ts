/**
 * The request diff of the API (`requestDiff`): two model requests of a trace — logged, read back
 * from the trace file, or reconstructed from the events for formats that log none (see
 * engine/derive/requestHistory.ts) — compared by shared/requests. Computed on demand, so ingest
 * pays nothing for it. The left side may be a request of another trace (`previousTraceId`): two
 * runs of two traces compared at their first divergence (docs/semantics.md §16).
 */
import { basename } from 'node:path';
import type Database from 'better-sqlite3';
import type { ApiParsedRequest, ApiResponse, RequestDiffResponse } from '../../shared/api';
import { diffRequests } from '../../shared/requests/diffRequests';
import { messageNumber, messageText, type NormalizedRequest } from '../../shared/requests/normalizedRequest';
import { comparableAcrossRuns } from '../../shared/requests/acrossRuns';
import { compaction } from '../../shared/requests/compaction';
import { historyCompactedFinding, historyRewriteFinding, missingToolResultFindings, prefixChangeFinding } from '../../shared/requests/requestFindings';
import {
  diffEventInSources,
  hasLoggedRequests,
  isResponseEvent,
  LoggedRequestReader,
  previousRequestEventId,
  reconstructedRequest,
  requestsUpTo,
  runIdOf,
  sourcePath,
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
  if (!isResponseEvent(event))
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

/** A trace's database and its sources, where a side of the diff is read. */
export interface DiffTrace {
  db: Database.Database;
  sourceIds: readonly number[];
}

/**
 * The request the diff's left side is, as its findings name it: its number in its run, the run when
 * it is another, and the file when it is of another trace.
 */
function comparedWith(trace: DiffTrace, sameTrace: boolean, runPk: number, previous: DiffEventSqlRow, reconstructed: boolean): string {
  const number = requestsUpTo(trace.db, previous.run_pk, previous.id, reconstructed) ?? 1;
  if (sameTrace && previous.run_pk === runPk) return `request ${number}`;
  const run = `request ${number} of run ${runIdOf(trace.db, previous.run_pk)}`;
  const file = sameTrace ? undefined : sourcePath(trace.db, previous.source_id);
  return file === undefined ? run : `${run} in ${basename(file)}`;
}

/** The read of one side's request, its trace's logged requests read through its own reader. */
function comparedRequestIn(trace: DiffTrace, estimator: TokenEstimator, event: DiffEventSqlRow, reconstructed: boolean): ComparedRequest {
  const reader = new LoggedRequestReader(trace.db);
  try {
    return comparedRequest(trace.db, reader, estimator, event, reconstructed);
  } finally {
    reader.close();
  }
}

/** Request `eventId` of `trace` against `previousEventId` of `previousTrace` (the same trace unless the request names another), or against the previous request of its run. */
export function requestDiff(trace: DiffTrace, request: ApiParsedRequest<'requestDiff'>, previousTrace: DiffTrace = trace): ApiResponse<'requestDiff'> {
  const { db } = trace;
  const sameTrace = previousTrace === trace;
  const event = eventInTrace(db, trace.sourceIds, request.eventId);
  const reconstructed = !hasLoggedRequests(db, event.run_pk);
  const previousId = request.previousEventId ?? (sameTrace ? previousRequestEventId(db, event.run_pk, event.id, reconstructed) : null);
  const estimator = new TokenEstimator();
  const previousEvent = previousId === null ? null : eventInTrace(previousTrace.db, previousTrace.sourceIds, previousId);
  const next = comparedRequestIn(trace, estimator, event, reconstructed);
  if (
    previousEvent !== null &&
    (!sameTrace || previousEvent.run_pk !== event.run_pk) &&
    reconstructed === hasLoggedRequests(previousTrace.db, previousEvent.run_pk)
  ) {
    throw new ApiError('invalid_request', `event ${previousEvent.id} is not a request of the same kind (logged or reconstructed) as event ${event.id}`);
  }
  const previous = previousEvent === null ? null : comparedRequestIn(previousTrace, estimator, previousEvent, reconstructed);
  // Against a request of another run, call ids and reconstructed lines are each run's own (shared/requests/acrossRuns.ts).
  const acrossRuns = previousEvent !== null && (!sameTrace || previousEvent.run_pk !== event.run_pk);
  const comparable = (compared: NormalizedRequest): NormalizedRequest => (acrossRuns ? comparableAcrossRuns(compared) : compared);
  const before = comparable(previous?.request ?? { ...emptyRequest, reconstructed });
  const after = comparable(next.request);
  // A marker counts only between adjacent requests: against an earlier one, other turns lie between.
  const marker = sameTrace && previousId === previousRequestEventId(db, event.run_pk, event.id, reconstructed) ? next.compaction : null;
  const diff = diffRequests(before, after, marker !== null);
  const compacted =
    diff.history.verdict === 'rewritten' && diff.history.kind === 'compacted'
      ? compaction(marker === null ? 'diff' : 'marker', marker, null, null, diff.history.counts.removed + diff.history.counts.modified)
      : null;
  // Request numbers in the finding texts count from the run's first request.
  const number = requestsUpTo(db, event.run_pk, event.id, reconstructed) ?? 1;
  const against = previousEvent === null ? undefined : comparedWith(previousTrace, sameTrace, event.run_pk, previousEvent, reconstructed);
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
    messages: after.messages.length,
    messageNumbers: { previous: before.messages.map(messageNumber), next: after.messages.map(messageNumber) },
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
      const afterMessage = entry.nextIndex === null ? undefined : after.messages[entry.nextIndex];
      const base = {
        status: entry.status,
        previousIndex: entry.previousIndex,
        nextIndex: entry.nextIndex,
        role: (afterMessage ?? beforeMessage)?.role ?? 'unknown',
      };
      if (beforeMessage !== undefined && afterMessage !== undefined && entry.status === 'modified')
        return [{ ...base, ...changedText(messageText(beforeMessage), messageText(afterMessage)) }];
      return [
        {
          ...base,
          previousText: beforeMessage === undefined ? null : cut(messageText(beforeMessage)),
          nextText: afterMessage === undefined ? null : cut(messageText(afterMessage)),
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
