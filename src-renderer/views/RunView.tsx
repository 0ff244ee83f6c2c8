/**
 * A run, step by step: the header (terminal state, budget use, findings), the timeline, and the
 * event inspector. The cursor is in the URL (`/step/<n>` or `/event/<id>`), so a reload or a link
 * lands on the same event; the keyboard moves it (j/k steps, n/p findings, Enter, Esc), and `d`
 * opens the diff of the request at the cursor (or the nearest request at or before it). The
 * run's requests and context growth are its second section (`/requests`). Bookkeeping events are
 * folded away unless the URL says `?all=1`; the cursor and j/k move over the rows listed.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useState, type Dispatch, type SetStateAction } from 'react';
import type { ApiResponse, EventRow, FindingRow } from '../../shared/api';
import { useApi } from '../api/ApiContext';
import { errorMessage } from '../api/client';
import { fetchAll } from '../api/fetchAll';
import { usePagedRows, type PagedRows } from '../api/usePagedRows';
import { useQuery } from '../api/useQuery';
import { inspectorColumns, Splitter, useInspectorWidth } from '../components/Splitter';
import { Failure, Loading } from '../components/States';
import { useLatest } from '../components/useLatest';
import { useShortcuts } from '../keyboard/shortcuts';
import { routes, type RunRoute } from '../navigation/route';
import { navigate } from '../navigation/useRoute';
import { EventInspector, type DiffAction } from './EventInspector';
import { BookkeepingBar } from './BookkeepingBar';
import { RequestsPanel } from './RequestsPanel';
import { RunHeader } from './RunHeader';
import { Waterfall } from './Waterfall';
import { toggledSpans } from './SpanHeader';
import { indexFindings, withCalls, type RunFindings, type TimelineEvent } from './runModel';
import { Timeline } from './Timeline';
import { openRequestDiff, useFindingWalk, useStepWalk } from './runWalks';
import { lastListRoute } from './lastListRoute';
import { SubAgentsProvider } from './SubAgents';

const eventPageSize = 100;
/** Rows on either side of a jump's target that come with its position: the screen it lands on, with the timeline's overscan. */
const jumpRowsAround = 50;

/** Where the cursor is: an index in the run's event list and, once its page is loaded, the event. */
interface Cursor {
  index: number;
  event: EventRow | undefined;
}

/**
 * `followed`: the trace's file is followed while it is written. Its new events arrive with each
 * `revision`; the timeline keeps its place unless the user turns on "Follow" (f), which keeps the
 * last event in view until the cursor is moved.
 */
export function RunView({ route, revision, followed }: { route: RunRoute; revision: number; followed: boolean }) {
  const { traceId, runPk } = route;
  const collapsed = useCollapsedSpans(route);
  const runKey = `${traceId}:${runPk}:${revision}`;
  const run = useQuery(`run:${runKey}`, (client) => client.run({ traceId, runPk }));
  const findings = useQuery(`runFindings:${runKey}`, (client) => fetchAll((offset, limit) => client.findings({ traceId, runPk, offset, limit })));
  const { events, hiddenBookkeeping, seedPages } = useRunEvents(route, collapsed, revision);
  const findingIndex = useMemo(() => indexFindings(findings.status === 'ready' ? findings.data : []), [findings]);

  const { cursor, failure: cursorFailure } = useCursor(route, collapsed, events, seedPages);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => setNotice(null), [runPk, route.eventId, route.step, route.section]);
  const diffAction = useDiffAction(traceId, runPk, route.eventId, cursor);
  const { activeFindingId, goToFinding, moveFinding, leaveFindings } = useFindingWalk(traceId, runPk, findingIndex.ordered, cursor?.event?.line ?? null);
  const [followingEnd, setFollowingEnd] = useState(false);
  // Moving the cursor is reading somewhere else: the view stops jumping to the end.
  useEffect(() => setFollowingEnd(false), [runPk, route.eventId, route.step]);

  const { goToEvent, toggleSpan, closeInspector } = useRunNavigation(route, collapsed, cursor, leaveFindings);
  useRunShortcuts({ route, collapsed, cursor, events, followed, setFollowingEnd, setNotice, leaveFindings, moveFinding, goToEvent, closeInspector });

  const [inspectorWidth, setInspectorWidth] = useInspectorWidth();

  if (run.status === 'error') return <Failure what="this run" error={run.error} />;
  // While another run loads, the previous one's data must not stand in for it.
  if (run.data === undefined || run.data.run.runPk !== runPk) return <Loading what="the run" />;
  const detail = run.data;
  const ready = run.status === 'ready' && findings.status === 'ready' && events.total !== null && events.fresh;
  return (
    <section
      className="run-view"
      data-testid="run-view"
      data-state={ready ? 'ready' : 'loading'}
      data-run-id={detail.run.runId}
      data-cursor-index={cursor?.index ?? ''}
    >
      <RunHeader
        traceId={traceId}
        detail={detail}
        findings={findingIndex}
        activeFindingId={activeFindingId}
        onSelectFinding={goToFinding}
        section={route.section}
      />
      <RunBanners
        findingsError={findings.status === 'error' ? { error: findings.error } : null}
        eventsError={events.error}
        cursorFailure={cursorFailure}
        notice={notice}
        follow={followed && route.section !== 'requests' ? { on: followingEnd, toggle: () => setFollowingEnd((on) => !on) } : null}
      />
      {route.section === 'requests' ? (
        <RequestsPanel traceId={traceId} runPk={runPk} revision={revision} sort={route.requestSort} />
      ) : (
        <SubAgentsProvider traceId={traceId} subAgents={detail.subAgents}>
          <TimelineSection
            route={route}
            revision={revision}
            collapsed={collapsed}
            events={events}
            hiddenBookkeeping={hiddenBookkeeping}
            findings={findingIndex}
            cursor={cursor}
            activeFindingId={activeFindingId}
            followEnd={followingEnd}
            onSelectEvent={goToEvent}
            onSelectFinding={goToFinding}
            onToggleSpan={toggleSpan}
            inspector={{ width: inspectorWidth, onWidthChange: setInspectorWidth, onClose: closeInspector, diffAction }}
          />
        </SubAgentsProvider>
      )}
    </section>
  );
}

type GoToEvent = (event: { eventId: number; step: number | null }) => void;

/** Where a click takes the run view: an event (of the timeline, or a span of the waterfall), a span collapsed or expanded, the inspector closed. */
function useRunNavigation(route: RunRoute, collapsed: number[], cursor: Cursor | null, leaveFindings: () => void) {
  const { traceId, runPk, showAll } = route;
  const goToEvent: GoToEvent = useCallback(
    (event) => {
      leaveFindings();
      navigate(routes.run(traceId, runPk, { step: event.step, eventId: event.eventId, showAll, collapsed }));
    },
    [traceId, runPk, showAll, collapsed, leaveFindings],
  );
  const toggleSpan = useCallback(
    (spanEventId: number) =>
      navigate(routes.run(traceId, runPk, { step: route.step, eventId: route.eventId, showAll, collapsed: toggledSpans(collapsed, spanEventId) })),
    [traceId, runPk, route.step, route.eventId, showAll, collapsed],
  );
  const closeInspector = useCallback(
    () => navigate(routes.run(traceId, runPk, { step: cursor?.event?.step ?? route.step, showAll, collapsed })),
    [traceId, runPk, cursor, route.step, showAll, collapsed],
  );
  return { goToEvent, toggleSpan, closeInspector };
}

/** The run view's keys: f follow, j/k steps, n/p findings, Enter opens the cursor's event, Esc closes or goes back to the list, d diffs the request. */
function useRunShortcuts(options: {
  route: RunRoute;
  collapsed: number[];
  cursor: Cursor | null;
  events: PagedRows<TimelineEvent>;
  followed: boolean;
  setFollowingEnd: Dispatch<SetStateAction<boolean>>;
  setNotice: (notice: string | null) => void;
  leaveFindings: () => void;
  moveFinding: (direction: 1 | -1) => void;
  goToEvent: GoToEvent;
  closeInspector: () => void;
}): void {
  const { route, collapsed, cursor, events, followed, setFollowingEnd, setNotice, leaveFindings, moveFinding, goToEvent, closeInspector } = options;
  const api = useApi();
  const { traceId, runPk } = route;
  const inspectorOpen = route.eventId !== null;
  const moveStep = useStepWalk(route, collapsed, cursor?.event?.step ?? null, events, leaveFindings, setNotice);
  useShortcuts({
    f: () => {
      if (followed) setFollowingEnd((on) => !on);
    },
    j: () => moveStep(1),
    ArrowDown: () => moveStep(1),
    k: () => moveStep(-1),
    ArrowUp: () => moveStep(-1),
    n: () => moveFinding(1),
    p: () => moveFinding(-1),
    // With an event opened from a search, Enter is the search's next match (SearchMatchBar).
    Enter:
      inspectorOpen && route.query !== null
        ? undefined
        : () => {
            if (cursor?.event) goToEvent(cursor.event);
          },
    Escape: () => {
      if (inspectorOpen) closeInspector();
      else navigate(lastListRoute(traceId));
    },
    d: () => openRequestDiff(api, traceId, runPk, cursor?.event, setNotice),
  });
}

/** Above the run's body: what could not be loaded, the last key's notice, and the follow toggle (null: the file is not followed, or the section has no timeline). */
function RunBanners(props: {
  findingsError: { error: unknown } | null;
  eventsError: string | null;
  cursorFailure: string | null;
  notice: string | null;
  follow: { on: boolean; toggle: () => void } | null;
}) {
  const { findingsError, eventsError, cursorFailure, notice, follow } = props;
  return (
    <>
      {findingsError !== null && <Failure what="the run's findings" error={findingsError.error} />}
      {eventsError !== null && <Failure what="the run's events" error={new Error(eventsError)} />}
      {cursorFailure !== null && <Failure what="the event this link points to" error={new Error(cursorFailure)} />}
      {notice !== null && (
        <div className="banner banner-info run-notice" role="status" data-testid="run-notice">
          {notice}
        </div>
      )}
      {follow !== null && (
        <div className="run-follow">
          <button
            type="button"
            className="follow-toggle"
            aria-pressed={follow.on}
            onClick={follow.toggle}
            title="Keep the run's last event in view as the loop writes new ones (f)"
            data-testid="follow-toggle"
          >
            {follow.on ? 'Following new events' : 'Follow new events'}
          </button>
        </div>
      )}
    </>
  );
}

/** The run's timeline section: the bookkeeping bar, the waterfall, the timeline, and the inspector when an event is open. */
function TimelineSection(props: {
  route: RunRoute;
  revision: number;
  collapsed: number[];
  events: PagedRows<TimelineEvent>;
  hiddenBookkeeping: number | null;
  findings: RunFindings;
  cursor: Cursor | null;
  activeFindingId: number | null;
  followEnd: boolean;
  onSelectEvent: (event: { eventId: number; step: number | null }) => void;
  onSelectFinding: (finding: FindingRow) => void;
  onToggleSpan: (spanEventId: number) => void;
  inspector: { width: number | null; onWidthChange: (width: number) => void; onClose: () => void; diffAction: DiffAction | null };
}) {
  const {
    route,
    revision,
    collapsed,
    events,
    hiddenBookkeeping,
    findings,
    cursor,
    activeFindingId,
    followEnd,
    onSelectEvent,
    onSelectFinding,
    onToggleSpan,
    inspector,
  } = props;
  const { traceId, runPk, showAll, eventId } = route;
  return (
    <div
      className={`run-body ${eventId !== null ? 'with-inspector' : ''}`}
      style={eventId !== null ? { gridTemplateColumns: inspectorColumns(inspector.width) } : undefined}
    >
      <div className="timeline-pane">
        <BookkeepingBar route={route} hidden={hiddenBookkeeping} />
        {/* One per run: another run's bars must not stand in while this one's load. */}
        <Waterfall
          key={`${traceId}:${runPk}`}
          traceId={traceId}
          runPk={runPk}
          revision={revision}
          selectedEventId={eventId ?? cursor?.event?.eventId ?? null}
          onSelect={onSelectEvent}
        />
        <Timeline
          traceId={traceId}
          runPk={runPk}
          showAll={showAll}
          collapsed={collapsed}
          events={events}
          findings={findings}
          cursorIndex={cursor?.index ?? null}
          activeFindingId={activeFindingId}
          followEnd={followEnd}
          onSelectEvent={onSelectEvent}
          onSelectFinding={onSelectFinding}
          onToggleSpan={onToggleSpan}
        />
      </div>
      {eventId !== null && <Splitter width={inspector.width} onChange={inspector.onWidthChange} />}
      {eventId !== null && (
        <EventInspector
          key={eventId}
          traceId={traceId}
          eventId={eventId}
          onClose={inspector.onClose}
          diffAction={inspector.diffAction}
          searchQuery={route.query}
        />
      )}
    </div>
  );
}

/**
 * The run's events as the timeline lists them (bookkeeping folded away or not, spans collapsed),
 * and how many bookkeeping events are folded away (null until this list's first page arrived).
 */
function useRunEvents(
  route: RunRoute,
  collapsed: number[],
  revision: number,
): { events: PagedRows<TimelineEvent>; hiddenBookkeeping: number | null; seedPages: SeedPages } {
  const api = useApi();
  const { traceId, runPk, showAll } = route;
  const [bookkeeping, setBookkeeping] = useState<{ list: string; count: number } | null>(null);
  const eventList = `events:${traceId}:${runPk}:${showAll ? 'all' : 'content'}:${collapsed.join(',')}`;
  const received = useCallback(
    (page: ApiResponse<'runEvents'>) => {
      const count = page.hiddenBookkeeping;
      setBookkeeping((known) => (known?.list === eventList && known.count === count ? known : { list: eventList, count }));
      return { total: page.total, rows: withCalls(page.rows, page.calls) };
    },
    [eventList],
  );
  const fetchEvents = useCallback(
    async (offset: number, limit: number) =>
      received(await api.runEvents({ traceId, runPk, offset, limit, hideBookkeeping: !showAll, collapsedSpans: collapsed })),
    [api, traceId, runPk, showAll, collapsed, received],
  );
  const events = usePagedRows(eventList, revision, fetchEvents, eventPageSize);
  const { seed } = events;
  const seedPages: SeedPages = useCallback(
    (pages) => {
      for (const page of pages ?? []) seed(page.offset, received(page));
    },
    [seed, received],
  );
  return { events, hiddenBookkeeping: bookkeeping?.list === eventList ? bookkeeping.count : null, seedPages };
}

/** Holds the pages of the run's event list that came with a jump's position (none: nothing to hold). */
type SeedPages = (pages: ApiResponse<'runEvents'>[] | undefined) => void;

/**
 * The inspector's "diff" action for the event it shows: a model request diffs itself; a model
 * response diffs the request it answered (logged), or is the request (reconstructed runs).
 */
function useDiffAction(traceId: string, runPk: number, eventId: number | null, cursor: Cursor | null): DiffAction | null {
  const api = useApi();
  const [action, setAction] = useState<{ eventId: number; action: DiffAction | null } | null>(null);
  const event = cursor?.event?.eventId === eventId ? cursor?.event : undefined;
  useEffect(() => {
    if (event === undefined) return;
    if (event.type === 'model_request') {
      setAction({
        eventId: event.eventId,
        action: { route: routes.requestDiff(traceId, runPk, event.eventId), label: 'Diff with previous request', hint: null },
      });
      return;
    }
    if (event.type !== 'model_response') {
      setAction({ eventId: event.eventId, action: null });
      return;
    }
    let active = true;
    api.requestAt({ traceId, eventId: event.eventId }).then(
      (request) => {
        if (!active) return;
        if (request === null) setAction({ eventId: event.eventId, action: null });
        else if (request.eventId === event.eventId)
          setAction({
            eventId: event.eventId,
            action: {
              route: routes.requestDiff(traceId, runPk, event.eventId),
              label: 'Diff with previous request',
              hint: 'reconstructed: this format does not log requests',
            },
          });
        else
          setAction({
            eventId: event.eventId,
            action: {
              route: routes.requestDiff(traceId, runPk, request.eventId),
              label: 'Diff the request it answered with the previous one',
              hint: `the model request on line ${request.line}`,
            },
          });
      },
      // Without it the inspector offers no diff; the d key says why.
      () => active && setAction({ eventId: event.eventId, action: null }),
    );
    return () => {
      active = false;
    };
  }, [api, traceId, runPk, event]);
  return action !== null && action.eventId === eventId ? action.action : null;
}

/**
 * The cursor the route asks for: `/event/<id>` puts it on that event (found with `eventPosition`),
 * `/step/<n>` on the step's first event, unless it already sits in that step (closing the
 * inspector keeps it where it was).
 */
function useCursor(route: RunRoute, collapsed: number[], events: PagedRows<EventRow>, seedPages: SeedPages): { cursor: Cursor | null; failure: string | null } {
  const api = useApi();
  const [position, setPosition] = useState<{ runPk: number; showAll: boolean; collapsed: readonly number[]; index: number } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const { traceId, runPk, eventId, step, showAll } = route;
  const current = position?.runPk === runPk && position.showAll === showAll && position.collapsed === collapsed ? position : null;
  const currentEvent = current === null ? undefined : events.rowAt(current.index);
  // Read only to skip a jump that is already done: the cursor's event arriving must not trigger one.
  const latestCurrentEvent = useLatest(currentEvent);
  // The pages come with the position (one round trip per jump); the list they go into may change
  // meanwhile, so the latest list's is used, and the seed ignores another list's pages.
  const latestSeedPages = useLatest(seedPages);

  // A layout effect, so the position is asked for before the inspector (a child, whose effects
  // run first) asks for its event: the API answers one query at a time, and the row on screen is
  // what the jump waits for, the inspector's content can come after it.
  useLayoutEffect(() => {
    const currentEvent = latestCurrentEvent.current;
    let active = true;
    setFailure(null);
    const place = (index: number) => {
      if (active) setPosition({ runPk, showAll, collapsed, index });
    };
    if (eventId !== null) {
      if (currentEvent?.eventId === eventId) return;
      api
        .eventPosition({ traceId, eventId, collapsedSpans: collapsed, pages: { pageSize: eventPageSize, around: jumpRowsAround, hideBookkeeping: !showAll } })
        .then(
          (found) => {
            if (!active) return;
            // A link to an event of another run (a sub-agent's result): go to that run.
            if (found.runPk !== runPk) navigate(routes.run(traceId, found.runPk, { eventId, showAll }), { replace: true });
            // A link to a bookkeeping event while bookkeeping is folded away: show every event, so it has a row.
            else if (!showAll && found.visibleIndex === null)
              navigate(routes.run(traceId, runPk, { step, eventId, showAll: true, collapsed }), { replace: true });
            else {
              latestSeedPages.current(found.pages);
              place(showAll ? found.index : found.visibleIndex!);
            }
          },
          (error: unknown) => active && setFailure(errorMessage(error)),
        );
    } else if (step !== null) {
      if (currentEvent !== undefined && currentEvent.step === step) return;
      api
        .stepPosition({
          traceId,
          runPk,
          step,
          direction: 'at',
          hideBookkeeping: !showAll,
          collapsedSpans: collapsed,
          pages: { pageSize: eventPageSize, around: jumpRowsAround },
        })
        .then(
          (found) => {
            if (!active) return;
            if (found === null) setFailure(`this run has no step ${step}`);
            else {
              latestSeedPages.current(found.pages);
              place(found.index);
            }
          },
          (error: unknown) => active && setFailure(errorMessage(error)),
        );
    }
    return () => {
      active = false;
    };
  }, [api, traceId, runPk, eventId, step, showAll, collapsed, latestCurrentEvent, latestSeedPages]);

  return { cursor: current === null ? null : { index: current.index, event: currentEvent }, failure };
}

/**
 * The route's collapsed spans, the same array while they stay the same: every navigation parses a
 * new route, and the timeline's rows, memoized, must not all re-render when only the cursor moved.
 */
function useCollapsedSpans(route: RunRoute): number[] {
  const key = route.collapsed.join(',');
  return useMemo(() => (key === '' ? [] : key.split(',').map(Number)), [key]);
}
