/**
 * What the runs table asks the API for, and its first page asked for early: the trace view asks
 * for it together with the trace's summary (`prefetchFirstRuns`) instead of after the summary
 * arrived and the table was drawn, so a trace opens one round trip sooner.
 */
import type { LoopscopeApi, RunRow } from '../../shared/api';
import { runSortSchema } from '../../shared/api';
import { findingKindSchema } from '../../shared/report';
import { runStatusSchema } from '../../shared/trace/runStatus';
import type { Page } from '../api/usePagedRows';
import type { RouteParams } from '../navigation/route';

export const runsPageSize = 200;

/** The table's filters and order as the route's parameters say them (what is not understood is left out). */
export function parseFilters(params: RouteParams) {
  const status = runStatusSchema.safeParse(params.status);
  const kind = findingKindSchema.safeParse(params.kind);
  const sort = runSortSchema.safeParse(params.sort);
  return {
    status: status.success ? status.data : undefined,
    findingKind: kind.success ? kind.data : undefined,
    text: params.text ?? '',
    sort: sort.success ? sort.data : ('first_line' as const),
    sorted: sort.success,
    descending: params.desc === '1',
  };
}

export type RunsFilters = ReturnType<typeof parseFilters>;

/** What the server is asked for: the filters and the order, without the page. */
export function runsRequest(traceId: string, filters: RunsFilters) {
  return {
    traceId,
    status: filters.status,
    findingKind: filters.findingKind,
    text: filters.text || undefined,
    sort: filters.sort,
    descending: filters.descending,
  };
}

/** First pages asked for before their table was drawn, by the table's identity (its request as JSON). */
const firstPages = new Map<string, Promise<Page<RunRow>>>();

/**
 * Asks for the first page of the runs table the route's parameters describe. Returns the function
 * that forgets it (when the trace view goes away before a table took it).
 */
export function prefetchFirstRuns(api: LoopscopeApi, traceId: string, params: RouteParams): () => void {
  const request = runsRequest(traceId, parseFilters(params));
  const identity = JSON.stringify(request);
  const page = api.runs({ ...request, offset: 0, limit: runsPageSize });
  // A failure is shown by the table that takes the page; until one does, it is not an unhandled rejection.
  page.catch(() => undefined);
  firstPages.set(identity, page);
  return () => {
    if (firstPages.get(identity) === page) firstPages.delete(identity);
  };
}

/**
 * The early first page of the table `identity`, taken once: later asks (a refresh while the trace
 * is read, another page) go to the API. Undefined when there is none for this page.
 */
export function takeFirstRuns(identity: string, offset: number, limit: number): Promise<Page<RunRow>> | undefined {
  if (offset !== 0 || limit !== runsPageSize) return undefined;
  const page = firstPages.get(identity);
  firstPages.delete(identity);
  return page;
}
