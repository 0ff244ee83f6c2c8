/**
 * Every view has a URL in the location hash (`#/trace/<id>/run/<runPk>/event/<eventId>`), so a
 * reload or a pasted link lands in the same place, and the page's own path (which carries the
 * `loopscope serve` token) is never touched.
 */
export const traceTabs = ['runs', 'findings', 'calls', 'parse-errors', 'search'] as const;
export type TraceTab = (typeof traceTabs)[number];

/** Filters and other view options, kept in the URL's query part. */
export type RouteParams = Readonly<Record<string, string>>;

export type Route =
  | { view: 'start' }
  | { view: 'trace'; traceId: string; tab: TraceTab; params: RouteParams }
  /** A run; `step` puts the cursor on a step, `eventId` opens that event in the inspector. */
  | { view: 'run'; traceId: string; runPk: number; step: number | null; eventId: number | null };

const startRoute: Route = { view: 'start' };

function parseInteger(text: string | undefined): number | null {
  if (text === undefined || !/^-?\d+$/.test(text)) return null;
  return Number(text);
}

function isTraceTab(text: string): text is TraceTab {
  return (traceTabs as readonly string[]).includes(text);
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
  if (segments[0] !== 'trace' || segments[1] === undefined) return startRoute;
  const traceId = segments[1];
  const rest = segments.slice(2);
  if (rest[0] === 'run') {
    const runPk = parseInteger(rest[1]);
    if (runPk === null) return { view: 'trace', traceId, tab: 'runs', params: {} };
    const options = new Map<string, string>();
    for (let index = 2; index + 1 < rest.length; index += 2) options.set(rest[index] ?? '', rest[index + 1] ?? '');
    return { view: 'run', traceId, runPk, step: parseInteger(options.get('step')), eventId: parseInteger(options.get('event')) };
  }
  const tab = rest[0] !== undefined && isTraceTab(rest[0]) ? rest[0] : 'runs';
  return { view: 'trace', traceId, tab, params: Object.fromEntries(new URLSearchParams(query)) };
}

export function formatRoute(route: Route): string {
  if (route.view === 'start') return '#/';
  const trace = `#/trace/${encodeURIComponent(route.traceId)}`;
  if (route.view === 'run') {
    let hash = `${trace}/run/${route.runPk}`;
    if (route.step !== null) hash += `/step/${route.step}`;
    if (route.eventId !== null) hash += `/event/${route.eventId}`;
    return hash;
  }
  const entries = Object.entries(route.params).filter(([, value]) => value !== '');
  const query = entries.length > 0 ? `?${new URLSearchParams(entries).toString()}` : '';
  return `${trace}/${route.tab}${query}`;
}

export const routes = {
  start: (): Route => startRoute,
  trace: (traceId: string, tab: TraceTab = 'runs', params: RouteParams = {}): Route => ({ view: 'trace', traceId, tab, params }),
  run: (traceId: string, runPk: number, where: { step?: number | null; eventId?: number | null } = {}): Route => ({
    view: 'run',
    traceId,
    runPk,
    step: where.step ?? null,
    eventId: where.eventId ?? null,
  }),
};
