import { useCallback, useMemo, useSyncExternalStore } from 'react';
import { formatRoute, parseRoute, routes, type Route, type RouteParams, type TraceTab } from './route';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

const readHash = (): string => window.location.hash;

/** The current route, following the location hash. */
export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, readHash);
  return useMemo(() => parseRoute(hash), [hash]);
}

/** Goes to a route; `replace` rewrites the current history entry (a redirect, a filter edit). */
export function navigate(route: Route, options: { replace?: boolean } = {}): void {
  const hash = formatRoute(route);
  if (hash === window.location.hash) return;
  if (options.replace) {
    window.history.replaceState(null, '', hash);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    window.location.hash = hash;
  }
}

/** Changes some of the start page's URL parameters (the library's filters and sort), keeping the others, as `useSetTabParams` does. */
export function useSetStartParams(params: RouteParams): (changes: Record<string, string | undefined>) => void {
  return useCallback(
    (changes: Record<string, string | undefined>) => {
      const next: Record<string, string> = {};
      for (const [key, value] of Object.entries({ ...params, ...changes })) if (value !== undefined && value !== '') next[key] = value;
      navigate(routes.start(next), { replace: true });
    },
    [params],
  );
}

/**
 * Changes some of a trace tab's URL parameters (its filters and sort), keeping the others; an
 * empty or undefined value removes its parameter. Replaces the history entry: editing a filter
 * is not a place to go back to.
 */
export function useSetTabParams(traceId: string, tab: TraceTab, params: RouteParams): (changes: Record<string, string | undefined>) => void {
  return useCallback(
    (changes: Record<string, string | undefined>) => {
      const next: Record<string, string> = {};
      for (const [key, value] of Object.entries({ ...params, ...changes })) if (value !== undefined && value !== '') next[key] = value;
      navigate(routes.trace(traceId, tab, next), { replace: true });
    },
    [params, traceId, tab],
  );
}
