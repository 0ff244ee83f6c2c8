/**
 * The search an event was opened from, in the inspector: which match this is ("2 of 5"), and the
 * next one — a button, Enter or F3 — across events, in the order the search lists hits (run, step,
 * line), back to the first after the last. The query stays in the URL, so a link reopens it.
 */
import { useEffect, useRef } from 'react';
import { formatCount } from '../components/format';
import { VisibleText } from '../components/VisibleText';
import { useQuery } from '../api/useQuery';
import { useShortcuts } from '../keyboard/shortcuts';
import { navigate } from '../navigation/useRoute';
import { formatRoute, routes, type Route } from '../navigation/route';

export function SearchMatchBar({
  traceId,
  runPk,
  eventId,
  step,
  query,
}: {
  traceId: string;
  runPk: number;
  eventId: number;
  step: number | null;
  query: string;
}) {
  const all = useQuery(`search-first:${traceId}:${query}`, (api) => api.search({ traceId, query, limit: 1 }));
  const after = useQuery(`search-after:${traceId}:${query}:${eventId}`, (api) => api.search({ traceId, query, afterEventId: eventId, limit: 1 }));
  const total = all.status === 'ready' ? all.data.total : null;
  const remaining = after.status === 'ready' ? after.data.total : null;
  const next = after.status === 'ready' && all.status === 'ready' ? (after.data.rows[0] ?? all.data.rows[0] ?? null) : null;
  const nextRoute: Route | null = next === null ? null : routes.run(traceId, next.runPk, { step: next.step, eventId: next.eventId, query });
  const goNext = () => {
    if (nextRoute !== null) navigate(nextRoute);
  };
  useShortcuts({ Enter: goNext, F3: goNext });
  const bar = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Once the event is drawn: its first marked match in view (the Output comes before the JSON).
    const frame = requestAnimationFrame(() =>
      bar.current?.closest('[data-testid=event-inspector]')?.querySelector('mark')?.scrollIntoView({ block: 'center', inline: 'nearest' }),
    );
    return () => cancelAnimationFrame(frame);
  }, [eventId]);
  const position = total !== null && remaining !== null ? total - remaining : null;
  return (
    <div className="search-match-bar" ref={bar} role="navigation" aria-label="Search matches" data-testid="search-match-bar">
      <span>
        Matches for “<VisibleText text={query} />”
        {total !== null && position !== null && (
          <span className="muted" data-testid="search-match-position">
            {' '}
            — {formatCount(position)} of {formatCount(total)}
          </span>
        )}
      </span>
      <button type="button" onClick={goNext} disabled={nextRoute === null} data-testid="next-match" title="Next match (Enter or F3)">
        Next match ↓
      </button>
      <a href={formatRoute(routes.run(traceId, runPk, { step, eventId }))} className="muted" data-testid="clear-search">
        clear
      </a>
    </div>
  );
}
