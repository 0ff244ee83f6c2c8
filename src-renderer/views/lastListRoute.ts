import { routes, type Route } from '../navigation/route';

/** The last list view (runs with their filters, findings, …) seen for each trace: where Esc and "← Runs" go back to. */
const lastByTrace = new Map<string, Route>();

export function rememberListRoute(route: Route): void {
  if (route.view === 'trace') lastByTrace.set(route.traceId, route);
}

export function lastListRoute(traceId: string): Route {
  return lastByTrace.get(traceId) ?? routes.trace(traceId);
}
