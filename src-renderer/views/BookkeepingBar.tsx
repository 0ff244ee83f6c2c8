/**
 * Above the timeline: how many bookkeeping events (progress ticks, snapshots, span markers:
 * shared/trace/bookkeeping.ts) are folded away, and a link that shows them — or, when they are
 * shown, one that folds them away again. The choice is the URL's `?all=1`, so a link keeps it.
 */
import { formatCount } from '../components/format';
import { formatRoute, routes, type RunRoute } from '../navigation/route';
import '../styles/timeline-noise.css';

/** `hidden`: the run's bookkeeping events, null until the first page told. */
export function BookkeepingBar({ route, hidden }: { route: RunRoute; hidden: number | null }) {
  if (hidden === null || hidden === 0) return null;
  const toggled = formatRoute(
    routes.run(route.traceId, route.runPk, { step: route.step, eventId: route.eventId, showAll: !route.showAll, collapsed: route.collapsed }),
  );
  const noun = hidden === 1 ? 'bookkeeping event' : 'bookkeeping events';
  return (
    <div className="bookkeeping-bar muted" data-testid="bookkeeping-bar" data-hidden={hidden} data-show-all={route.showAll}>
      {route.showAll ? (
        <>
          <span>
            Showing all events, {formatCount(hidden)} {noun} included
          </span>
          {' · '}
          <a href={toggled} data-testid="bookkeeping-toggle" title="Fold away progress, snapshot and other bookkeeping records">
            Hide bookkeeping
          </a>
        </>
      ) : (
        <>
          <span>
            {formatCount(hidden)} {noun} hidden
          </span>
          {' · '}
          <a href={toggled} data-testid="bookkeeping-toggle" title="List progress, snapshot and other bookkeeping records too">
            Show all events
          </a>
        </>
      )}
    </div>
  );
}
