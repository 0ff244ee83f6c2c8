/**
 * A run, step by step: the header (terminal state, budget use, findings), the timeline, and the
 * event inspector. The cursor is in the URL (`/step/<n>` or `/event/<id>`), so a reload or a link
 * lands on the same event; the keyboard moves it (j/k steps, n/p findings, Enter, Esc), and `d`
 * opens the diff of the request at the cursor (or the nearest request at or before it). The
 * run's requests and context growth are its second section (`/requests`). Bookkeeping events are
 * folded away unless the URL says `?all=1`; the cursor and j/k move over the rows listed.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ApiResponse, EventRow, FindingRow } from '../../shared/api';
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
import { findingRoute, indexFindings, withCalls, type RunFindings } from './runModel';
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
  const findingIndex = useMemo(() => indexFindings(findings.status === 'ready' ? findings.data : []), [findings]);

  const { cursor, failure: cursorFailure } = useCursor(route, collapsed, events);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => setNotice(null), [runPk, route.eventId, route.step, route.section]);
  const diffAction = useDiffAction(traceId, runPk, route.eventId, cursor);
  const [activeFindingId, setActiveFindingId] = useState<number | null>(null);
  useEffect(() => setActiveFindingId(null), [runPk]);
  const inspectorOpen = route.eventId !== null;
  const [followingEnd, setFollowingEnd] = useState(false);
  // Moving the cursor is reading somewhere else: the view stops jumping to the end.
  useEffect(() => setFollowingEnd(false), [runPk, route.eventId, route.step]);

  // Moving the cursor by any other means than n/p ends the walk through findings: n then goes on from the cursor.
  const goToEvent = useCallback(
    (event: EventRow) => {
      setActiveFindingId(null);
      navigate(routes.run(traceId, runPk, { step: event.step, eventId: event.eventId, showAll, collapsed }));
    },
    [traceId, runPk, showAll, collapsed],
  );
  const selectSpan = useCallback(
    (span: { eventId: number; step: number | null }) => {
      setActiveFindingId(null);
      navigate(routes.run(traceId, runPk, { step: span.step, eventId: span.eventId, showAll, collapsed }));
    },
    [traceId, runPk, showAll, collapsed],
  );
  const toggleSpan = useCallback(
    (spanEventId: number) => navigate(routes.run(traceId, runPk, { step: route.step, eventId: route.eventId, showAll, collapsed: toggledSpans(collapsed, spanEventId) })),
    [traceId, runPk, route.step, route.eventId, showAll, collapsed],
  );
  const goToFinding = useCallback(
    (finding: FindingRow) => {
      setActiveFindingId(finding.findingId);
      navigate(findingRoute(traceId, finding));
    },
    [traceId],
  );

  // The step the keys move from: the last one asked for, so a held key walks on before each jump lands.
  const pendingStep = useRef<number | null>(null);
  useEffect(() => {
    pendingStep.current = null;
  }, [route.step, route.eventId]);
  const moveStep = (direction: 1 | -1) => {
    const current = pendingStep.current ?? route.step ?? cursor?.event?.step ?? null;
    if (current === null && direction === -1) return;
    // A run can have 250,000 steps: the server finds the next one, not a list held here.
    const asked = api.stepPosition({ traceId, runPk, step: current ?? -1, direction: direction === 1 ? 'after' : 'before', hideBookkeeping: !showAll, collapsedSpans: collapsed });
    pendingStep.current = current;
    void asked.then(async (target) => {
      if (target === null || pendingStep.current !== current) return;
      pendingStep.current = target.step;
      setActiveFindingId(null);
      if (!inspectorOpen) {
        navigate(routes.run(traceId, runPk, { step: target.step, showAll, collapsed }));
        return;
      }
      // The inspector follows the cursor: show the step's first event.
      const event = await events.load(target.index);
      if (pendingStep.current === target.step && event) navigate(routes.run(traceId, runPk, { step: target.step, eventId: event.eventId, showAll, collapsed }));
    }, (error: unknown) => setNotice(errorMessage(error)));
  };
  const moveFinding = (direction: 1 | -1) => {
    const ordered = findingIndex.ordered;
    if (ordered.length === 0) return;
    const active = ordered.findIndex((finding) => finding.findingId === activeFindingId);
    const line = cursor?.event?.line ?? null;
    let next: FindingRow | undefined;
    if (active !== -1) next = ordered[active + direction];
    else if (direction === 1) next = line === null ? ordered[0] : ordered.find((finding) => (finding.line ?? Infinity) >= line);
    else next = line === null ? undefined : ordered.findLast((finding) => finding.line !== null && finding.line < line);
    if (next) goToFinding(next);
  };
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
      if (inspectorOpen) navigate(routes.run(traceId, runPk, { step: cursor?.event?.step ?? route.step, showAll, collapsed }));
      else navigate(lastListRoute(traceId));
    },
    d: () => {
      const event = cursor?.event;
      if (!cursor || !event) {
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
    },
  });

  const [inspectorWidth, setInspectorWidth] = useInspectorWidth();
  const closeInspector = useCallback(() => navigate(routes.run(traceId, runPk, { step: cursor?.event?.step ?? route.step, showAll, collapsed })), [traceId, runPk, cursor, route.step, showAll, collapsed]);

  if (run.status === 'error') return <Failure what="this run" error={run.error} />;
  // While another run loads, the previous one's data must not stand in for it.
  if (run.data === undefined || run.data.run.runPk !== runPk) return <Loading what="the run" />;
  const detail = run.data;
  const ready = run.status === 'ready' && findings.status === 'ready' && events.total !== null && events.fresh;
  return (
    <section className="run-view" data-testid="run-view" data-state={ready ? 'ready' : 'loading'} data-run-id={detail.run.runId} data-cursor-index={cursor?.index ?? ''}>
      <RunHeader traceId={traceId} detail={detail} findings={findingIndex} activeFindingId={activeFindingId} onSelectFinding={goToFinding} section={route.section} />
      {findings.status === 'error' && <Failure what="the run's findings" error={findings.error} />}
      {events.error !== null && <Failure what="the run's events" error={new Error(events.error)} />}
      {cursorFailure !== null && <Failure what="the event this link points to" error={new Error(cursorFailure)} />}
      {notice !== null && (
        <div className="banner banner-info run-notice" role="status" data-testid="run-notice">
          {notice}
        </div>
      )}
      {followed && route.section !== 'requests' && (
        <div className="run-follow">
          <button type="button" className="follow-toggle" aria-pressed={followingEnd} onClick={() => setFollowingEnd((on) => !on)} title="Keep the run's last event in view as the loop writes new ones (f)" data-testid="follow-toggle">
            {followingEnd ? 'Following new events' : 'Follow new events'}
          </button>
        </div>
      )}
      {route.section === 'requests' ? (
        <RequestsPanel traceId={traceId} runPk={runPk} revision={revision} sort={route.requestSort} />
      ) : (
      <SubAgentsProvider traceId={traceId} subAgents={detail.subAgents}>
      <div className={`run-body ${inspectorOpen ? 'with-inspector' : ''}`} style={inspectorOpen ? { gridTemplateColumns: inspectorColumns(inspectorWidth) } : undefined}>
        <div className="timeline-pane">
        <BookkeepingBar route={route} hidden={bookkeeping?.list === eventList ? bookkeeping.count : null} />
        {/* One per run: another run's bars must not stand in while this one's load. */}
        <Waterfall key={`${traceId}:${runPk}`} traceId={traceId} runPk={runPk} revision={revision} selectedEventId={route.eventId ?? cursor?.event?.eventId ?? null} onSelect={selectSpan} />
        <Timeline
          traceId={traceId}
          runPk={runPk}
          showAll={showAll}
          collapsed={collapsed}
          events={events}
          findings={findingIndex}
          cursorIndex={cursor?.index ?? null}
          activeFindingId={activeFindingId}
          followEnd={followingEnd}
          onSelectEvent={goToEvent}
          onSelectFinding={goToFinding}
          onToggleSpan={toggleSpan}
        />
        </div>
        {route.eventId !== null && <Splitter width={inspectorWidth} onChange={setInspectorWidth} />}
        {route.eventId !== null && <EventInspector key={route.eventId} traceId={traceId} eventId={route.eventId} onClose={closeInspector} diffAction={diffAction} searchQuery={route.query} />}
      </div>
      </SubAgentsProvider>
      )}
    </section>
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
