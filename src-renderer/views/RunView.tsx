/**
 * A run, step by step: the header (terminal state, budget use, findings), the timeline, and the
 * event inspector. The cursor is in the URL (`/step/<n>` or `/event/<id>`), so a reload or a link
 * lands on the same event; the keyboard moves it (j/k steps, n/p findings, Enter, Esc), and `d`
 * opens the diff of the request at the cursor (or the nearest request at or before it). The
 * run's requests and context growth are its second section (`/requests`). Bookkeeping events are
 * folded away unless the URL says `?all=1`; the cursor and j/k move over the rows listed.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ApiResponse, EventRow, FindingRow, LoopscopeApi } from '../../shared/api';
import { useApi } from '../api/ApiContext';
import { errorMessage } from '../api/client';
import { fetchAll } from '../api/fetchAll';
import { usePagedRows, type PagedRows } from '../api/usePagedRows';
import { useQuery } from '../api/useQuery';
import { SeverityBadge, StatusBadge } from '../components/Badges';
import { baseName, formatCount, formatDuration, formatTokens, humanize } from '../components/format';
import { MiddleEllipsis } from '../components/MiddleEllipsis';
import { inspectorColumns, Splitter, useInspectorWidth } from '../components/Splitter';
import { Failure, Loading } from '../components/States';
import { useLatest } from '../components/useLatest';
import { VisibleText, visibleText } from '../components/VisibleText';
import { useShortcuts } from '../keyboard/shortcuts';
import { formatRoute, routes, type Route, type RunSection } from '../navigation/route';
import { navigate } from '../navigation/useRoute';
import { EventInspector, type DiffAction } from './EventInspector';
import { BookkeepingBar } from './BookkeepingBar';
import { RequestsPanel } from './RequestsPanel';
import { Waterfall } from './Waterfall';
import { toggledSpans } from './SpanHeader';
import { findingRoute, indexFindings, withCalls, type RunFindings, type TimelineEvent } from './runModel';
import { FindingMarker, Timeline } from './Timeline';
import { lastListRoute } from './lastListRoute';
import { SubAgentOrigin, SubAgentsProvider } from './SubAgents';
import { childRunName } from './subAgentNames';

type RunRoute = Extract<Route, { view: 'run' }>;
type RunDetail = ApiResponse<'run'>;

const eventPageSize = 100;

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
  const api = useApi();
  const { traceId, runPk, showAll } = route;
  const collapsed = useCollapsedSpans(route);
  const runKey = `${traceId}:${runPk}:${revision}`;
  const run = useQuery(`run:${runKey}`, (client) => client.run({ traceId, runPk }));
  const findings = useQuery(`runFindings:${runKey}`, (client) => fetchAll((offset, limit) => client.findings({ traceId, runPk, offset, limit })));
  const { events, hiddenBookkeeping } = useRunEvents(route, collapsed, revision);
  const findingIndex = useMemo(() => indexFindings(findings.status === 'ready' ? findings.data : []), [findings]);

  const { cursor, failure: cursorFailure } = useCursor(route, collapsed, events);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => setNotice(null), [runPk, route.eventId, route.step, route.section]);
  const diffAction = useDiffAction(traceId, runPk, route.eventId, cursor);
  const { activeFindingId, goToFinding, moveFinding, leaveFindings } = useFindingWalk(traceId, runPk, findingIndex.ordered, cursor?.event?.line ?? null);
  const inspectorOpen = route.eventId !== null;
  const [followingEnd, setFollowingEnd] = useState(false);
  // Moving the cursor is reading somewhere else: the view stops jumping to the end.
  useEffect(() => setFollowingEnd(false), [runPk, route.eventId, route.step]);

  // An event of the timeline or a span of the waterfall.
  const goToEvent = useCallback(
    (event: { eventId: number; step: number | null }) => {
      leaveFindings();
      navigate(routes.run(traceId, runPk, { step: event.step, eventId: event.eventId, showAll, collapsed }));
    },
    [traceId, runPk, showAll, collapsed, leaveFindings],
  );
  const toggleSpan = useCallback(
    (spanEventId: number) => navigate(routes.run(traceId, runPk, { step: route.step, eventId: route.eventId, showAll, collapsed: toggledSpans(collapsed, spanEventId) })),
    [traceId, runPk, route.step, route.eventId, showAll, collapsed],
  );
  const closeInspector = useCallback(() => navigate(routes.run(traceId, runPk, { step: cursor?.event?.step ?? route.step, showAll, collapsed })), [traceId, runPk, cursor, route.step, showAll, collapsed]);
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

  const [inspectorWidth, setInspectorWidth] = useInspectorWidth();

  if (run.status === 'error') return <Failure what="this run" error={run.error} />;
  // While another run loads, the previous one's data must not stand in for it.
  if (run.data === undefined || run.data.run.runPk !== runPk) return <Loading what="the run" />;
  const detail = run.data;
  const ready = run.status === 'ready' && findings.status === 'ready' && events.total !== null && events.fresh;
  return (
    <section className="run-view" data-testid="run-view" data-state={ready ? 'ready' : 'loading'} data-run-id={detail.run.runId} data-cursor-index={cursor?.index ?? ''}>
      <RunHeader traceId={traceId} detail={detail} findings={findingIndex} activeFindingId={activeFindingId} onSelectFinding={goToFinding} section={route.section} />
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
          <button type="button" className="follow-toggle" aria-pressed={follow.on} onClick={follow.toggle} title="Keep the run's last event in view as the loop writes new ones (f)" data-testid="follow-toggle">
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
  const { route, revision, collapsed, events, hiddenBookkeeping, findings, cursor, activeFindingId, followEnd, onSelectEvent, onSelectFinding, onToggleSpan, inspector } = props;
  const { traceId, runPk, showAll, eventId } = route;
  return (
    <div className={`run-body ${eventId !== null ? 'with-inspector' : ''}`} style={eventId !== null ? { gridTemplateColumns: inspectorColumns(inspector.width) } : undefined}>
      <div className="timeline-pane">
        <BookkeepingBar route={route} hidden={hiddenBookkeeping} />
        {/* One per run: another run's bars must not stand in while this one's load. */}
        <Waterfall key={`${traceId}:${runPk}`} traceId={traceId} runPk={runPk} revision={revision} selectedEventId={eventId ?? cursor?.event?.eventId ?? null} onSelect={onSelectEvent} />
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
      {eventId !== null && <EventInspector key={eventId} traceId={traceId} eventId={eventId} onClose={inspector.onClose} diffAction={inspector.diffAction} searchQuery={route.query} />}
    </div>
  );
}

/**
 * The run's events as the timeline lists them (bookkeeping folded away or not, spans collapsed),
 * and how many bookkeeping events are folded away (null until this list's first page arrived).
 */
function useRunEvents(route: RunRoute, collapsed: number[], revision: number): { events: PagedRows<TimelineEvent>; hiddenBookkeeping: number | null } {
  const api = useApi();
  const { traceId, runPk, showAll } = route;
  const [bookkeeping, setBookkeeping] = useState<{ list: string; count: number } | null>(null);
  const eventList = `events:${traceId}:${runPk}:${showAll ? 'all' : 'content'}:${collapsed.join(',')}`;
  const fetchEvents = useCallback(
    async (offset: number, limit: number) => {
      const page = await api.runEvents({ traceId, runPk, offset, limit, hideBookkeeping: !showAll, collapsedSpans: collapsed });
      const count = page.hiddenBookkeeping;
      setBookkeeping((known) => (known?.list === eventList && known.count === count ? known : { list: eventList, count }));
      return { total: page.total, rows: withCalls(page.rows, page.calls) };
    },
    [api, traceId, runPk, showAll, collapsed, eventList],
  );
  const events = usePagedRows(eventList, revision, fetchEvents, eventPageSize);
  return { events, hiddenBookkeeping: bookkeeping?.list === eventList ? bookkeeping.count : null };
}

/**
 * The walk through the run's findings (n / p, the header's markers): the finding it stands on,
 * left (`leaveFindings`) when the cursor moves by any other means, so n then goes on from the cursor.
 */
function useFindingWalk(traceId: string, runPk: number, ordered: readonly FindingRow[], cursorLine: number | null) {
  const [activeFindingId, setActiveFindingId] = useState<number | null>(null);
  useEffect(() => setActiveFindingId(null), [runPk]);
  const goToFinding = useCallback(
    (finding: FindingRow) => {
      setActiveFindingId(finding.findingId);
      navigate(findingRoute(traceId, finding));
    },
    [traceId],
  );
  const leaveFindings = useCallback(() => setActiveFindingId(null), []);
  const moveFinding = (direction: 1 | -1) => {
    const next = nextFinding(ordered, activeFindingId, cursorLine, direction);
    if (next) goToFinding(next);
  };
  return { activeFindingId, goToFinding, moveFinding, leaveFindings };
}

/** The finding after (or before) the active one; with none active, the first at or after the cursor's line (or the last before it). */
function nextFinding(ordered: readonly FindingRow[], activeFindingId: number | null, cursorLine: number | null, direction: 1 | -1): FindingRow | undefined {
  const active = ordered.findIndex((finding) => finding.findingId === activeFindingId);
  if (active !== -1) return ordered[active + direction];
  if (direction === 1) return cursorLine === null ? ordered[0] : ordered.find((finding) => (finding.line ?? Infinity) >= cursorLine);
  return cursorLine === null ? undefined : ordered.findLast((finding) => finding.line !== null && finding.line < cursorLine);
}

/**
 * j / k: the next or previous step (`onMoved` once it is found). A run can have 250,000 steps: the
 * server finds the step, not a list held here. The walk goes on from the last step asked for, so
 * a held key walks on before each jump lands.
 */
function useStepWalk(
  route: RunRoute,
  collapsed: number[],
  cursorStep: number | null,
  events: PagedRows<EventRow>,
  onMoved: () => void,
  onError: (message: string) => void,
): (direction: 1 | -1) => void {
  const api = useApi();
  const { traceId, runPk, showAll } = route;
  const inspectorOpen = route.eventId !== null;
  const pendingStep = useRef<number | null>(null);
  useEffect(() => {
    pendingStep.current = null;
  }, [route.step, route.eventId]);
  return (direction) => {
    const current = pendingStep.current ?? route.step ?? cursorStep;
    if (current === null && direction === -1) return;
    const asked = api.stepPosition({ traceId, runPk, step: current ?? -1, direction: direction === 1 ? 'after' : 'before', hideBookkeeping: !showAll, collapsedSpans: collapsed });
    pendingStep.current = current;
    void asked.then(async (target) => {
      if (target === null || pendingStep.current !== current) return;
      pendingStep.current = target.step;
      onMoved();
      if (!inspectorOpen) {
        navigate(routes.run(traceId, runPk, { step: target.step, showAll, collapsed }));
        return;
      }
      // The inspector follows the cursor: show the step's first event.
      const event = await events.load(target.index);
      if (pendingStep.current === target.step && event) navigate(routes.run(traceId, runPk, { step: target.step, eventId: event.eventId, showAll, collapsed }));
    }, (error: unknown) => onError(errorMessage(error)));
  };
}

/** d: the diff of the request at the cursor's event (or the nearest one at or before it), or a notice saying why there is none. */
function openRequestDiff(api: LoopscopeApi, traceId: string, runPk: number, event: EventRow | undefined, setNotice: (notice: string | null) => void): void {
  if (!event) {
    setNotice('Select an event first (click it, or j / k), then press d to diff its request.');
    return;
  }
  setNotice(null);
  api.requestAt({ traceId, eventId: event.eventId }).then(
    (request) => {
      if (request === null) setNotice('This run has no model request (nor a model response to rebuild one from): there is nothing to diff.');
      else navigate(routes.requestDiff(traceId, runPk, request.eventId, { fromEventId: request.eventId === event.eventId ? null : event.eventId }));
    },
    (error: unknown) => setNotice(`Could not find the request: ${errorMessage(error)}`),
  );
}

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
      setAction({ eventId: event.eventId, action: { route: routes.requestDiff(traceId, runPk, event.eventId), label: 'Diff with previous request', hint: null } });
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
            action: { route: routes.requestDiff(traceId, runPk, event.eventId), label: 'Diff with previous request', hint: 'reconstructed: this format does not log requests' },
          });
        else
          setAction({
            eventId: event.eventId,
            action: { route: routes.requestDiff(traceId, runPk, request.eventId), label: 'Diff the request it answered with the previous one', hint: `the model request on line ${request.line}` },
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
function useCursor(route: RunRoute, collapsed: number[], events: PagedRows<EventRow>): { cursor: Cursor | null; failure: string | null } {
  const api = useApi();
  const [position, setPosition] = useState<{ runPk: number; showAll: boolean; collapsed: readonly number[]; index: number } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const { traceId, runPk, eventId, step, showAll } = route;
  const current = position?.runPk === runPk && position.showAll === showAll && position.collapsed === collapsed ? position : null;
  const currentEvent = current === null ? undefined : events.rowAt(current.index);
  // Read only to skip a jump that is already done: the cursor's event arriving must not trigger one.
  const latestCurrentEvent = useLatest(currentEvent);

  useEffect(() => {
    const currentEvent = latestCurrentEvent.current;
    let active = true;
    setFailure(null);
    const place = (index: number) => {
      if (active) setPosition({ runPk, showAll, collapsed, index });
    };
    if (eventId !== null) {
      if (currentEvent?.eventId === eventId) return;
      api.eventPosition({ traceId, eventId, collapsedSpans: collapsed }).then(
        (found) => {
          if (!active) return;
          // A link to an event of another run (a sub-agent's result): go to that run.
          if (found.runPk !== runPk) navigate(routes.run(traceId, found.runPk, { eventId, showAll }), { replace: true });
          else if (showAll) place(found.index);
          // A link to a bookkeeping event while bookkeeping is folded away: show every event, so it has a row.
          else if (found.visibleIndex === null) navigate(routes.run(traceId, runPk, { step, eventId, showAll: true, collapsed }), { replace: true });
          else place(found.visibleIndex);
        },
        (error: unknown) => active && setFailure(errorMessage(error)),
      );
    } else if (step !== null) {
      if (currentEvent !== undefined && currentEvent.step === step) return;
      api.stepPosition({ traceId, runPk, step, direction: 'at', hideBookkeeping: !showAll, collapsedSpans: collapsed }).then(
        (found) => {
          if (!active) return;
          if (found === null) setFailure(`this run has no step ${step}`);
          else place(found.index);
        },
        (error: unknown) => active && setFailure(errorMessage(error)),
      );
    }
    return () => {
      active = false;
    };
  }, [api, traceId, runPk, eventId, step, showAll, collapsed, latestCurrentEvent]);

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

function budgetLabel(name: string): string {
  return humanize(name.replace(/_ms$/, '').replace(/_usd$/, ' (USD)'));
}

function RunHeader({
  traceId,
  detail,
  findings,
  activeFindingId,
  onSelectFinding,
  section,
}: {
  traceId: string;
  detail: RunDetail;
  findings: RunFindings;
  activeFindingId: number | null;
  onSelectFinding: (finding: FindingRow) => void;
  section: RunSection;
}) {
  const { run } = detail;
  return (
    <header className="run-header" data-testid="run-header">
      <div className="run-title">
        <a href={formatRoute(lastListRoute(traceId))} className="back-link" title="Back to the list (Esc)">
          ← Back
        </a>
        <h2>
          {/* A sub-agent is told apart by its own part of the id; the line below names its parent. */}
          <MiddleEllipsis text={run.parent === null ? run.runId : childRunName(run.runId, run.parent.runId)} kind="id" title={visibleText(run.runId)} />
        </h2>
        <StatusBadge status={run.status} raw={run.statusRaw} />
        <nav className="tabs run-sections" aria-label="Run views">
          <a
            href={formatRoute(routes.run(traceId, run.runPk))}
            className={`tab ${section === 'timeline' ? 'tab-active' : ''}`}
            aria-current={section === 'timeline' ? 'page' : undefined}
            data-testid="run-section-timeline"
          >
            Timeline
          </a>
          <a
            href={formatRoute(routes.runRequests(traceId, run.runPk))}
            className={`tab ${section === 'requests' ? 'tab-active' : ''}`}
            aria-current={section === 'requests' ? 'page' : undefined}
            data-testid="run-section-requests"
          >
            Requests &amp; context growth
          </a>
        </nav>
        <span className="muted" data-testid="status-raw">
          {run.status === 'running' ? (
            'still being written: no terminal event yet'
          ) : run.statusRaw === '' ? (
            'no terminal status was written'
          ) : (
            <>
              written as “<VisibleText text={run.statusRaw} />”
            </>
          )}
        </span>
      </div>
      <div className="run-facts">
        <span>{formatCount(run.steps)} steps</span>
        <span>
          {formatCount(run.toolCalls)} tool calls, {formatCount(run.toolResults)} results
        </span>
        <span>tokens {formatTokens(run.inputTokens, run.outputTokens)}</span>
        <span>{formatDuration(run.durationMs, '—')}</span>
        <span title={run.file}>
          <VisibleText text={baseName(run.file)} /> lines {run.firstLine}–{run.lastLine} · {run.format}
        </span>
        {detail.endLimit !== null && (
          <span className="budget-exceeded">
            stopped on <VisibleText text={detail.endLimit} />
          </span>
        )}
      </div>
      {detail.budgets.length > 0 && (
        <div className="budgets">
          {detail.budgets.map((budget) => (
            <span key={budget.name} className={`budget ${budget.exceeded ? 'budget-exceeded' : ''}`} data-testid="budget" data-exceeded={budget.exceeded}>
              {budgetLabel(budget.name)} {formatCount(budget.used)}/{formatCount(budget.limit)}
              {budget.exceeded && ' — budget exceeded'}
            </span>
          ))}
        </div>
      )}
      {detail.task !== null && (
        // One line (its line breaks as spaces); the tooltip has it whole, line by line.
        <p className="run-task" title={detail.task.split('\n').map(visibleText).join('\n')} data-testid="run-task">
          <span className="muted">Task: </span>
          <VisibleText text={detail.task.replace(/\s+/g, ' ').trim()} />
        </p>
      )}
      <SubAgentOrigin traceId={traceId} detail={detail} />
      {detail.children.length > 0 && (
        <div className="run-family">
          <span>
            Sub-agents:{' '}
            {detail.children.map((child) => (
              <a key={child.runPk} href={formatRoute(routes.run(traceId, child.runPk))} className="child-link" title={visibleText(child.runId)}>
                <VisibleText text={childRunName(child.runId, run.runId)} />
                {child.callId !== null && <span className="muted"> (call <VisibleText text={child.callId} />)</span>}
              </a>
            ))}
          </span>
        </div>
      )}
      {findings.ordered.length > 0 && (
        <FindingSummary ordered={findings.ordered} activeFindingId={activeFindingId} onSelectFinding={onSelectFinding} />
      )}
      {findings.ofRun.length > 0 && (
        <ul className="plain-list run-level-findings">
          {findings.ofRun.map((finding) => (
            <li key={finding.findingId}>
              <SeverityBadge severity={finding.severity} /> <VisibleText text={finding.message} />
            </li>
          ))}
        </ul>
      )}
    </header>
  );
}

/**
 * The run's findings in the header: one marker per kind with its count (a run can have hundreds of
 * one kind), each opening the next finding of that kind; n / p walk them all in order.
 */
function FindingSummary({ ordered, activeFindingId, onSelectFinding }: { ordered: readonly FindingRow[]; activeFindingId: number | null; onSelectFinding: (finding: FindingRow) => void }) {
  const activeIndex = ordered.findIndex((finding) => finding.findingId === activeFindingId);
  const byKind = new Map<string, FindingRow[]>();
  for (const finding of ordered) byKind.set(finding.kind, [...(byKind.get(finding.kind) ?? []), finding]);
  return (
    <div className="run-findings" data-testid="run-findings">
      <span className="muted">
        Findings (n / p){activeIndex >= 0 ? ` — ${activeIndex + 1} of ${ordered.length}` : ''}:
      </span>
      {[...byKind.values()].map((ofKind) => {
        const active = ofKind.find((finding) => finding.findingId === activeFindingId);
        // The next one of this kind after the active finding, wrapping to the first.
        const next = ofKind.find((finding) => ordered.indexOf(finding) > activeIndex) ?? ofKind[0]!;
        return (
          <span key={ofKind[0]!.kind} className="finding-kind" data-testid="finding-kind" data-kind={ofKind[0]!.kind}>
            <FindingMarker finding={active ?? next} active={active !== undefined} onSelect={() => onSelectFinding(next)} />
            {ofKind.length > 1 && <span className="muted"> ×{ofKind.length}</span>}
          </span>
        );
      })}
    </div>
  );
}
