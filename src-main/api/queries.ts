/**
 * The API's reads of a trace database: each a function of a read-only connection, the trace's
 * scope and a parsed request, returning the response shared/api.ts describes. They run in the
 * query worker (queryWorker.ts), except a reopened trace's summary and first page of runs, read on
 * the caller's thread before that worker has started (traceSession.ts); the host validates the
 * responses.
 *
 * Each resource has its module under queries/, reading through the engine's read model
 * (engine/store): sorting, filtering and paging happen in SQL there, so a view fetches the rows
 * around its viewport from a table of any size.
 */
import type { QueryMethod } from './queryProtocol';
import { requestDiff } from './requestDiff';
import { runRequests } from './runRequests';
import { runWaterfall } from './runWaterfall';
import { searchEvents } from './search';
import { callLatency, calls } from './queries/calls';
import { event, eventPosition, requestAt, runEvents, stepPosition } from './queries/events';
import { traceCost } from './queries/cost';
import { findings } from './queries/findings';
import { rawLine } from './queries/rawRecords';
import { run, runInScope, runs } from './queries/runs';
import type { Query } from './queries/scope';
import { parseErrors } from './queries/trace';

export type { TraceScope } from './queries/scope';
export { sourceSummary, type SourceSummary } from './queries/trace';

export const queries: { [M in QueryMethod]: Query<M> } = {
  runs,
  run,
  runEvents,
  eventPosition,
  stepPosition,
  requestAt,
  event,
  calls,
  callLatency,
  findings,
  parseErrors,
  traceCost,
  rawLine,
  requestDiff: (db, scope, request) => requestDiff({ db, sourceIds: scope.sourceIds }, request),
  requests: (db, scope, request) => runRequests(db, runInScope(db, scope, request.runPk).id),
  runWaterfall: (db, scope, request) => runWaterfall(db, runInScope(db, scope, request.runPk).id),
  // A trace's database holds only the trace's own files, so the search needs no scope.
  search: (db, _scope, request) => searchEvents(db, request),
};
