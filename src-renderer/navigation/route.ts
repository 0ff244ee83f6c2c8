/**
 * Every view has a URL in the location hash (`#/trace/<id>/run/<runPk>/event/<eventId>`), so a
 * reload or a pasted link lands in the same place, and the page's own path (which carries the
 * `loopscope serve` token) is never touched.
 *
 * A run's requests and context growth: `#/trace/<id>/run/<runPk>/requests`, optionally
 * `/sort/<column>-<asc|desc>` (the requests table's order). A request diff:
 * `#/trace/<id>/run/<runPk>/diff/<eventId>`, optionally `/against/<eventId>` (the left side, when
 * it is not the previous request), `/against-trace/<id>` (the left side's trace, when it is another:
 * two runs of two traces compared at their divergence), `/from/<eventId>` (the event `d` was pressed on, when it was
 * not itself a request) and `/layout/side-by-side` (changed texts as two columns of lines).
 *
 * A run's timeline folds bookkeeping events away; `?all=1` shows every event.
 *
 * Two runs of the trace side by side: `#/trace/<id>/compare/<runPk A>/<runPk B>`; of two traces:
 * `#/trace/<id A>/compare/<runPk A>/trace/<id B>/<runPk B>`.
 *
 * The start page (the library) keeps its filters and sort in the query part: `#/?status=failed`.
 */
export const traceTabs = ['runs', 'findings', 'calls', 'parse-errors', 'search'] as const;
export type TraceTab = (typeof traceTabs)[number];

/** Filters and other view options, kept in the URL's query part. */
export type RouteParams = Readonly<Record<string, string>>;

export type Route =
  /** The start page: the library's runs and what they add up to; `params` are its filters and sort. */
  | { view: 'start'; params: RouteParams }
  | { view: 'trace'; traceId: string; tab: TraceTab; params: RouteParams }
  /**
   * A run; `step` puts the cursor on a step, `eventId` opens that event in the inspector;
   * `section` is the timeline or the run's requests (context growth); `requestSort`: the
   * requests table's order (null: request order); `showAll`: the timeline lists bookkeeping events
   * too (shared/trace/bookkeeping.ts); `collapsed`: the spans the timeline shows collapsed, by
   * their begin event's id (shared/trace/spanTree.ts), ascending; `query`: the search the event was
   * opened from (`?q=`), highlighted in it, with its next match one key away.
   */
  | {
      view: 'run';
      traceId: string;
      runPk: number;
      step: number | null;
      eventId: number | null;
      section: RunSection;
      requestSort: RequestSort | null;
      showAll: boolean;
      collapsed: readonly number[];
      query: string | null;
    }
  /**
   * Request `eventId` (a model request, or the response a reconstructed request was sent for)
   * against `previousEventId` (null: the run's previous request); `fromEventId`: the event `d`
   * was pressed on, when the view had to pick the nearest request at or before it; `layout`: a
   * changed text as a word diff, or side by side (pretty-printed JSON or text, line by line).
   */
  | {
      view: 'diff';
      traceId: string;
      runPk: number;
      eventId: number;
      previousEventId: number | null;
      previousTraceId: string | null;
      fromEventId: number | null;
      layout: DiffLayout;
    }
  /** Run `runPkA` and run `runPkB` side by side, their turns aligned (docs/semantics.md §16); B is of trace `traceIdB` when not null. */
  | { view: 'compare'; traceId: string; runPkA: number; runPkB: number; traceIdB: string | null };

/** A run's view, with its cursor, section and timeline options. */
export type RunRoute = Extract<Route, { view: 'run' }>;

export type RunSection = 'timeline' | 'requests';

export const requestSortColumns = ['index', 'delta', 'input'] as const;
export type RequestSortColumn = (typeof requestSortColumns)[number];
export interface RequestSort {
  column: RequestSortColumn;
  descending: boolean;
}

export type DiffLayout = 'words' | 'side-by-side';

function parseRequestSort(text: string | undefined): RequestSort | null {
  const match = /^(\w+)-(asc|desc)$/.exec(text ?? '');
  if (match === null || !(requestSortColumns as readonly string[]).includes(match[1]!)) return null;
  return { column: match[1] as RequestSortColumn, descending: match[2] === 'desc' };
}

const startRoute: Route = { view: 'start', params: {} };

function parseInteger(text: string | undefined): number | null {
  if (text === undefined || !/^-?\d+$/.test(text)) return null;
  return Number(text);
}

/** Collapsed spans are at most this many (the API's limit): a hand-made link cannot ask for more. */
const maxCollapsed = 1000;

/** `12,40,7` → [7, 12, 40]: ids, ascending, once each; what is not an id is left out. */
function parseIdList(text: string | null): number[] {
  if (text === null) return [];
  const ids = text.split(',').flatMap((part) => (/^\d{1,15}$/.test(part) ? [Number(part)] : []));
  return [...new Set(ids)].toSorted((a, b) => a - b).slice(0, maxCollapsed);
}

function isTraceTab(text: string): text is TraceTab {
  return (traceTabs as readonly string[]).includes(text);
}

/** `name/value/name/value…` from `start` on. */
function pairs(segments: readonly string[], start: number): Map<string, string> {
  const options = new Map<string, string>();
  for (let index = start; index + 1 < segments.length; index += 2) options.set(segments[index] ?? '', segments[index + 1] ?? '');
  return options;
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?', 2);
  const parts = path.split('/').filter((part) => part !== '');
  let segments: string[];
  try {
    segments = parts.map((part) => decodeURIComponent(part));
  } catch {
    return startRoute;
  }
  if (segments[0] !== 'trace' || segments[1] === undefined)
    return segments.length === 0 ? routes.start(Object.fromEntries(new URLSearchParams(query))) : startRoute;
  const traceId = segments[1];
  const rest = segments.slice(2);
  if (rest[0] === 'run') {
    const runPk = parseInteger(rest[1]);
    if (runPk === null) return { view: 'trace', traceId, tab: 'runs', params: {} };
    if (rest[2] === 'diff') {
      const eventId = parseInteger(rest[3]);
      if (eventId !== null) {
        const options = pairs(rest, 4);
        return routes.requestDiff(traceId, runPk, eventId, {
          previousEventId: parseInteger(options.get('against')),
          previousTraceId: options.get('against-trace') ?? null,
          fromEventId: parseInteger(options.get('from')),
          layout: options.get('layout') === 'side-by-side' ? 'side-by-side' : 'words',
        });
      }
    }
    if (rest[2] === 'requests') return routes.runRequests(traceId, runPk, parseRequestSort(pairs(rest, 3).get('sort')));
    const options = pairs(rest, 2);
    const search = new URLSearchParams(query);
    const searched = search.get('q');
    return routes.run(traceId, runPk, {
      step: parseInteger(options.get('step')),
      eventId: parseInteger(options.get('event')),
      showAll: search.get('all') === '1',
      collapsed: parseIdList(search.get('collapsed')),
      query: searched === null || searched.trim() === '' ? null : searched,
    });
  }
  if (rest[0] === 'compare') {
    const runPkA = parseInteger(rest[1]);
    // `…/compare/<A>/<B>`, or `…/compare/<A>/trace/<trace B>/<B>` for a run of another trace.
    const across = rest[2] === 'trace' && rest[3] !== undefined;
    const runPkB = parseInteger(across ? rest[4] : rest[2]);
    if (runPkA !== null && runPkB !== null) return routes.compare(traceId, runPkA, runPkB, across ? (rest[3] ?? null) : null);
  }
  const tab = rest[0] !== undefined && isTraceTab(rest[0]) ? rest[0] : 'runs';
  return { view: 'trace', traceId, tab, params: Object.fromEntries(new URLSearchParams(query)) };
}

export function formatRoute(route: Route): string {
  if (route.view === 'start') return `#/${paramsQuery(route.params)}`;
  const trace = `#/trace/${encodeURIComponent(route.traceId)}`;
  if (route.view === 'diff') {
    let hash = `${trace}/run/${route.runPk}/diff/${route.eventId}`;
    if (route.previousEventId !== null) hash += `/against/${route.previousEventId}`;
    if (route.previousEventId !== null && route.previousTraceId !== null && route.previousTraceId !== route.traceId)
      hash += `/against-trace/${encodeURIComponent(route.previousTraceId)}`;
    if (route.fromEventId !== null) hash += `/from/${route.fromEventId}`;
    if (route.layout !== 'words') hash += `/layout/${route.layout}`;
    return hash;
  }
  if (route.view === 'compare')
    return `${trace}/compare/${route.runPkA}/${route.traceIdB === null || route.traceIdB === route.traceId ? '' : `trace/${encodeURIComponent(route.traceIdB)}/`}${route.runPkB}`;
  if (route.view === 'run') {
    if (route.section === 'requests') {
      const sort = route.requestSort;
      return `${trace}/run/${route.runPk}/requests${sort === null ? '' : `/sort/${sort.column}-${sort.descending ? 'desc' : 'asc'}`}`;
    }
    let hash = `${trace}/run/${route.runPk}`;
    if (route.step !== null) hash += `/step/${route.step}`;
    if (route.eventId !== null) hash += `/event/${route.eventId}`;
    const search = new URLSearchParams();
    if (route.showAll) search.set('all', '1');
    if (route.collapsed.length > 0) search.set('collapsed', route.collapsed.join(','));
    if (route.query !== null) search.set('q', route.query);
    const query = search.toString().replaceAll('%2C', ',');
    return query === '' ? hash : `${hash}?${query}`;
  }
  return `${trace}/${route.tab}${paramsQuery(route.params)}`;
}

/** `?a=1&b=2` of the parameters that have a value; nothing when none has. */
function paramsQuery(params: RouteParams): string {
  const entries = Object.entries(params).filter(([, value]) => value !== '');
  return entries.length > 0 ? `?${new URLSearchParams(entries).toString()}` : '';
}

export const routes = {
  start: (params: RouteParams = {}): Route => ({ view: 'start', params }),
  trace: (traceId: string, tab: TraceTab = 'runs', params: RouteParams = {}): Route => ({ view: 'trace', traceId, tab, params }),
  run: (
    traceId: string,
    runPk: number,
    where: { step?: number | null; eventId?: number | null; showAll?: boolean; collapsed?: readonly number[]; query?: string | null } = {},
  ): Route => ({
    view: 'run',
    traceId,
    runPk,
    step: where.step ?? null,
    eventId: where.eventId ?? null,
    section: 'timeline',
    requestSort: null,
    showAll: where.showAll ?? false,
    collapsed: where.collapsed ?? [],
    query: where.query ?? null,
  }),
  /** The run's requests and its context growth; `requestSort`: the table's order. */
  runRequests: (traceId: string, runPk: number, requestSort: RequestSort | null = null): Route => ({
    view: 'run',
    traceId,
    runPk,
    step: null,
    eventId: null,
    section: 'requests',
    requestSort,
    showAll: false,
    collapsed: [],
    query: null,
  }),
  compare: (traceId: string, runPkA: number, runPkB: number, traceIdB: string | null = null): Route => ({
    view: 'compare',
    traceId,
    runPkA,
    runPkB,
    traceIdB: traceIdB === traceId ? null : traceIdB,
  }),
  /** Request `eventId` against the previous request of its run, or against `previousEventId`. */
  requestDiff: (
    traceId: string,
    runPk: number,
    eventId: number,
    options: { previousEventId?: number | null; previousTraceId?: string | null; fromEventId?: number | null; layout?: DiffLayout } = {},
  ): Route => ({
    view: 'diff',
    traceId,
    runPk,
    eventId,
    previousEventId: options.previousEventId ?? null,
    previousTraceId: options.previousEventId == null || options.previousTraceId === traceId ? null : (options.previousTraceId ?? null),
    fromEventId: options.fromEventId ?? null,
    layout: options.layout ?? 'words',
  }),
};
