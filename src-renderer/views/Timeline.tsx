/**
 * A run as a timeline: one row per event in file order, placed in one of four lanes (input, model,
 * tool calls, results), a step header where a new step begins. Virtualized over the run's events;
 * only the pages around the viewport are fetched, and rows are memoized so moving the cursor
 * re-renders two rows, not the run.
 */
import { memo, useEffect, useRef, type CSSProperties, type MouseEvent } from 'react';
import type { CallRow, EventRow, FindingRow } from '../../shared/api';
import type { PagedRows } from '../api/usePagedRows';
import { formatUsd } from '../../shared/formatUsd';
import { CallStateBadge } from '../components/Badges';
import { callHue, formatCount, formatDuration, humanize } from '../components/format';
import { useLatest } from '../components/useLatest';
import { useWindowedVirtualizer, windowRows, type WindowedVirtualizer } from '../components/useWindowedVirtualizer';
import { VisibleText, visibleText } from '../components/VisibleText';
import { formatRoute, routes } from '../navigation/route';
import type { RunFindings, TimelineEvent } from './runModel';
import { SpanHeader, spanIndent } from './SpanHeader';
import { SubAgentLink, SubAgentSummary } from './SubAgents';

const lanes = [
  { lane: 'input', label: 'Input' },
  { lane: 'model', label: 'Model' },
  { lane: 'call', label: 'Tool calls' },
  { lane: 'result', label: 'Results' },
] as const;

/** Height of the sticky lane header (styles.css `.timeline-lanes`). */
const lanesHeaderHeight = 30;

export interface TimelineProps {
  traceId: string;
  runPk: number;
  /** Bookkeeping events are listed too: links between rows keep it so. */
  showAll: boolean;
  /** Spans shown collapsed (begin event ids): links between rows keep them so. */
  collapsed: readonly number[];
  events: PagedRows<TimelineEvent>;
  findings: RunFindings;
  cursorIndex: number | null;
  activeFindingId: number | null;
  /** Keep the last event in view as events are added (a followed file's new lines). */
  followEnd: boolean;
  onSelectEvent: (event: EventRow) => void;
  onSelectFinding: (finding: FindingRow) => void;
  /** Collapses or expands the span the event begins. */
  onToggleSpan: (spanEventId: number) => void;
}

export function Timeline({
  traceId,
  runPk,
  showAll,
  collapsed,
  events,
  findings,
  cursorIndex,
  activeFindingId,
  followEnd,
  onSelectEvent,
  onSelectFinding,
  onToggleSpan,
}: TimelineProps) {
  const scrollElement = useRef<HTMLDivElement>(null);
  const count = events.total ?? 0;
  const { virtualizer, start, scrollToIndex, currentRange } = useWindowedVirtualizer({
    count,
    getScrollElement: () => scrollElement.current,
    estimateSize: 46,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const first = start + (items[0]?.index ?? 0);
  const last = start + (items[items.length - 1]?.index ?? 0);
  useWantedEvents(events, count, first, last, currentRange);

  useScrollToCursor({ virtualizer, start, scrollToIndex }, count, cursorIndex, followEnd);

  useCursorShownMark({ virtualizer, start }, cursorIndex, cursorIndex === null ? undefined : events.rowAt(cursorIndex)?.eventId);

  const timeline = (
    <div ref={scrollElement} className="timeline" data-testid="timeline" role="grid" aria-label="Run timeline" aria-rowcount={count}>
      <TimelineLaneHeaders />
      <div className="timeline-body" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const index = start + item.index;
          const event = events.rowAt(index);
          const previous = index === 0 ? null : events.rowAt(index - 1);
          const startsStep = event !== undefined && (index === 0 || (previous !== undefined && previous?.step !== event.step));
          const rowFindings = event ? findings.byEvent.get(event.eventId) : undefined;
          const stepFindings = startsStep && event?.step !== null && event?.step !== undefined ? findings.byStep.get(event.step) : undefined;
          const ownsActive = [...(rowFindings ?? []), ...(stepFindings ?? [])].some((finding) => finding.findingId === activeFindingId);
          return (
            <div
              key={item.key}
              ref={virtualizer.measureElement}
              data-index={item.index}
              aria-rowindex={index + 2}
              className="timeline-slot"
              style={{ transform: `translateY(${item.start}px)` }}
            >
              {event === undefined ? (
                <div className="timeline-row row-placeholder" aria-busy="true" />
              ) : (
                <TimelineRow
                  traceId={traceId}
                  runPk={runPk}
                  showAll={showAll}
                  collapsed={collapsed}
                  event={event}
                  startsStep={startsStep}
                  selected={index === cursorIndex}
                  findings={rowFindings}
                  stepFindings={stepFindings}
                  activeFindingId={ownsActive ? activeFindingId : null}
                  onSelectEvent={onSelectEvent}
                  onSelectFinding={onSelectFinding}
                  onToggleSpan={onToggleSpan}
                />
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
  if (count <= windowRows) return timeline;
  const shown = virtualizer.range === null ? null : { first: start + virtualizer.range.startIndex, last: start + virtualizer.range.endIndex };
  return (
    <div className="timeline-frame">
      <TimelinePosition count={count} shown={shown} onChange={(index) => scrollToIndex(index, 'start')} />
      {timeline}
    </div>
  );
}

/**
 * Asks for the pages of the rows in the window, and of one row before it: that row says whether
 * the first visible row starts a step. The rows are those rendered when the effect runs: after a
 * jump, the render's rows can be those the scroll has already left (rows never shown, whose pages
 * would be asked for ahead of the ones jumped to). Beyond either edge, `readAheadMultiple` times as
 * many rows as are rendered are asked for too, so a page is on its way before the scroll reaches
 * it: asked for only once its rows were in view, a screen of placeholders was painted, then every
 * row rendered again when the page came (5 of 100 frames scrolling a screen a frame,
 * scripts/bench-ui.ts).
 */
const readAheadMultiple = 2;

function useWantedEvents(
  events: PagedRows<TimelineEvent>,
  count: number,
  first: number,
  last: number,
  currentRange: WindowedVirtualizer['currentRange'],
): void {
  const { want } = events;
  const latestRange = useLatest(currentRange);
  useEffect(() => {
    const range = latestRange.current();
    if (count === 0 || range === null) return;
    const ahead = readAheadMultiple * (range.last - range.first + 1);
    want(Math.max(0, range.first - 1 - ahead), Math.min(count - 1, range.last + ahead));
  }, [want, first, last, count, latestRange]);
}

/** The row of column headers: the line gutter, then one header per lane. */
function TimelineLaneHeaders() {
  return (
    <div className="timeline-lanes timeline-columns" role="row">
      <div role="columnheader" className="timeline-gutter">
        Line
      </div>
      {lanes.map(({ lane, label }) => (
        <div key={lane} role="columnheader" className={`lane-header lane-${lane}`} data-testid={`lane-${lane}`}>
          {label}
        </div>
      ))}
    </div>
  );
}

/** Marks `loopscope:cursor-shown` once the cursor's row is loaded and inside the viewport, after the paint that shows it: what the jump benchmark times (scripts/bench-ui.ts). */
function useCursorShownMark(windowed: Pick<WindowedVirtualizer, 'virtualizer' | 'start'>, cursorIndex: number | null, cursorEventId: number | undefined): void {
  const { virtualizer, start } = windowed;
  const cursorItem = cursorIndex === null ? undefined : virtualizer.measurementsCache[cursorIndex - start];
  const viewTop = virtualizer.scrollOffset ?? 0;
  const cursorOnScreen =
    cursorEventId !== undefined && cursorItem !== undefined && cursorItem.end > viewTop && cursorItem.start < viewTop + (virtualizer.scrollRect?.height ?? 0);
  useEffect(() => {
    if (cursorOnScreen) requestAnimationFrame(() => performance.mark('loopscope:cursor-shown', { detail: { index: cursorIndex, eventId: cursorEventId } }));
  }, [cursorOnScreen, cursorIndex, cursorEventId]);
}

/**
 * Scrolls the timeline to the cursor when it moves off screen, and to the run's last event while
 * `followEnd` is on. The cursor moving, the run growing or follow turned on is what asks for a
 * scroll: the window moving and `scrollToIndex` (new on every render) ask for none.
 */
function useScrollToCursor(
  windowed: Pick<WindowedVirtualizer, 'virtualizer' | 'start' | 'scrollToIndex'>,
  count: number,
  cursorIndex: number | null,
  followEnd: boolean,
): void {
  const { virtualizer, start } = windowed;
  const latestWindow = useLatest(windowed);
  const cursorItem = cursorIndex === null || cursorIndex < start ? undefined : virtualizer.measurementsCache[cursorIndex - start];
  const cursorMeasured = cursorItem !== undefined && virtualizer.itemSizeCache.has(cursorItem.key);

  // A cursor off screen is brought to the top (just under the sticky lane header, which precedes
  // the rows), so the step it starts reads downwards; one on screen stays put. Only a measured row
  // is known to be on screen: one not rendered yet (a link opened to it, its page arriving with the
  // position) is placed by estimated heights, and rows taller than the estimate put it below the
  // screen where the estimate had it, or push the list's end (which a row near it was aimed at)
  // further down. So the cursor's row is looked at again once it is measured.
  useEffect(() => {
    const { start, scrollToIndex } = latestWindow.current;
    if (cursorIndex === null || cursorIndex >= count) return;
    const item = cursorIndex >= start ? virtualizer.measurementsCache[cursorIndex - start] : undefined;
    const top = virtualizer.scrollOffset ?? 0;
    const height = virtualizer.scrollRect?.height ?? 0;
    if (item && cursorMeasured && item.start >= top && item.end + lanesHeaderHeight <= top + height) return;
    scrollToIndex(cursorIndex, 'start');
  }, [cursorIndex, cursorMeasured, count, virtualizer, latestWindow]);

  useEffect(() => {
    if (followEnd && count > 0) latestWindow.current.scrollToIndex(count - 1, 'auto');
  }, [followEnd, count, latestWindow]);
}

/** Above a run longer than one window: the scrollbar spans the window, this slider spans the run. */
function TimelinePosition({ count, shown, onChange }: { count: number; shown: { first: number; last: number } | null; onChange: (index: number) => void }) {
  return (
    <label className="timeline-position muted">
      <span>
        {shown === null ? `${formatCount(count)} events` : `Events ${formatCount(shown.first + 1)}–${formatCount(shown.last + 1)} of ${formatCount(count)}`}
      </span>
      <input
        type="range"
        min={0}
        max={count - 1}
        value={shown?.first ?? 0}
        aria-label="Position in the run"
        data-testid="timeline-position"
        onChange={(event) => onChange(Number(event.target.value))}
      />
    </label>
  );
}

interface TimelineRowProps {
  traceId: string;
  runPk: number;
  showAll: boolean;
  collapsed: readonly number[];
  /** With the calls it issued (a model response), starts (a `tool_call_start`) or answers (a result or a not-executed mark). */
  event: TimelineEvent;
  startsStep: boolean;
  selected: boolean;
  findings: FindingRow[] | undefined;
  stepFindings: FindingRow[] | undefined;
  activeFindingId: number | null;
  onSelectEvent: (event: EventRow) => void;
  onSelectFinding: (finding: FindingRow) => void;
  onToggleSpan: (spanEventId: number) => void;
}

const TimelineRow = memo(function TimelineRow(props: TimelineRowProps) {
  const {
    traceId,
    runPk,
    showAll,
    collapsed,
    event,
    startsStep,
    selected,
    findings,
    stepFindings,
    activeFindingId,
    onSelectEvent,
    onSelectFinding,
    onToggleSpan,
  } = props;
  // Unknown events have no lane of their own; they sit in the input lane, marked as "other".
  const lane = event.lane === 'other' ? 'input' : event.lane;
  const eventLink = (eventId: number) => formatRoute(routes.run(traceId, runPk, { eventId, showAll, collapsed }));
  // A span's begin is its header; every row is indented by the spans it is inside.
  const { span, spanDepth: depth } = event;
  return (
    <div
      className={`timeline-row ${selected ? 'row-selected' : ''} ${findings ? `has-findings severity-${findings[0]?.severity ?? 'info'}` : ''}`}
      data-testid="timeline-row"
      data-event-id={event.eventId}
      data-lane={event.lane}
      data-type={event.type}
      data-step={event.step ?? ''}
      data-line={event.line}
      data-selected={selected}
      data-span-depth={depth > 0 ? depth : undefined}
      style={spanIndent(depth)}
      aria-selected={selected}
      role="row"
      onClick={() => onSelectEvent(event)}
    >
      {startsStep && (
        <div className="step-header" data-testid="step-header" data-step={event.step ?? ''}>
          <span className="step-title">{event.step === null ? 'Run' : event.step === 0 ? 'Before the first model call' : `Step ${event.step}`}</span>
          {stepFindings?.map((finding) => (
            <FindingMarker key={finding.findingId} finding={finding} active={finding.findingId === activeFindingId} onSelect={onSelectFinding} />
          ))}
        </div>
      )}
      <div className="timeline-columns">
        <div className="timeline-gutter" role="rowheader">
          <span className="muted">line {event.line}</span>
        </div>
        {span !== null ? (
          <div className="span-cell" role="gridcell">
            <SpanHeader span={span} depth={depth} onToggle={() => onToggleSpan(event.eventId)} />
          </div>
        ) : (
          lanes.map(({ lane: column }) => (
            <div key={column} className={`lane-cell lane-${column}`} role="gridcell">
              {column === lane && <EventChip event={event} answered={event.answered} started={event.started} eventLink={eventLink} />}
              {column === 'call' && event.issued?.map((call) => <CallChip key={call.callIndex} call={call} eventLink={eventLink} />)}
            </div>
          ))
        )}
      </div>
      {findings && (
        <div className="row-findings">
          {findings.map((finding) => (
            <FindingMarker key={finding.findingId} finding={finding} active={finding.findingId === activeFindingId} onSelect={onSelectFinding} />
          ))}
        </div>
      )}
    </div>
  );
});

function hueStyle(callId: string | null): CSSProperties | undefined {
  return callId === null ? undefined : ({ '--call-hue': callHue(callId) } as CSSProperties);
}

/** Links inside a row go where they point; they must not also select the row. */
const stopRowClick = (event: MouseEvent) => event.stopPropagation();

function EventChip({
  event,
  answered,
  started,
  eventLink,
}: {
  event: EventRow;
  answered: CallRow | undefined;
  started: CallRow | undefined;
  eventLink: (eventId: number) => string;
}) {
  const linked = event.type === 'tool_result' || event.type === 'tool_call_not_executed' || event.type === 'tool_call_start';
  const facts: string[] = [];
  if (event.name !== null) facts.push(event.name);
  if (event.outcome !== null) facts.push(event.outcome);
  if (event.finishReason !== null && event.finishReason !== event.outcome) facts.push(`finish: ${event.finishReason}`);
  if (event.type === 'tool_result') facts.push(event.resultOk === false ? `error${event.errorCode === null ? '' : ` ${event.errorCode}`}` : 'ok');
  // The cost before the tokens: it is short, and the step's cost (a step has one response), so a narrow column keeps it.
  if (event.cost !== null) facts.push('usd' in event.cost ? formatUsd(event.cost.usd) : 'no price');
  if (event.inputTokens !== null || event.outputTokens !== null)
    facts.push(`${formatCount(event.inputTokens ?? 0)} → ${formatCount(event.outputTokens ?? 0)} tokens`);
  if (event.latencyMs !== null) facts.push(formatDuration(event.latencyMs));
  return (
    <div
      className={`event-chip type-${event.type} ${event.lane === 'other' ? 'lane-other' : ''} ${linked && event.callId !== null ? 'call-colored' : ''} ${event.resultOk === false ? 'chip-error' : ''}`}
      style={linked ? hueStyle(event.callId) : undefined}
      data-testid="event-chip"
    >
      <div className="chip-title">
        <span className="event-type">{event.typeRaw === event.type ? humanize(event.type) : <VisibleText text={event.typeRaw} />}</span>
        {facts.length > 0 && (
          <span className="chip-facts">
            {' · '}
            <VisibleText text={facts.join(' · ')} />
          </span>
        )}
      </div>
      {event.summary !== null && (
        <div className="chip-summary" title={visibleText(event.summary)}>
          <VisibleText text={event.summary} />
        </div>
      )}
      {(event.type === 'tool_result' || event.type === 'tool_call_not_executed') &&
        (answered ? (
          <a className="call-link" href={eventLink(answered.eventId)} onClick={stopRowClick} data-testid="link-to-call">
            ← call {visibleText(answered.name)}
          </a>
        ) : (
          <span className="call-unlinked" data-testid="result-unlinked">
            no call issued this id
          </span>
        ))}
      {event.type === 'tool_result' && <SubAgentLink callId={event.callId} />}
      {event.type === 'tool_call_start' && started?.answerEventId != null && (
        <a className="call-link" href={eventLink(started.answerEventId)} onClick={stopRowClick} data-testid="link-to-result">
          → result
        </a>
      )}
    </div>
  );
}

/**
 * A call a model response issued: linked to its result by colour and a link, or marked as
 * unanswered — or, in a run still going on (being written, or paused), as waiting for its result.
 */
function CallChip({ call, eventLink }: { call: CallRow; eventLink: (eventId: number) => string }) {
  const unanswered = call.answerEventId === null;
  const waiting = call.state === 'pending';
  return (
    <div
      className={`call-chip call-colored call-state-${call.state ?? 'unknown'} ${waiting ? 'call-waiting' : unanswered ? 'call-unanswered' : ''}`}
      style={hueStyle(call.callId)}
      data-testid="call-chip"
      data-call-id={call.callId}
      data-call-state={call.state ?? ''}
      title={`call id ${visibleText(call.callId)}`}
    >
      <div className="chip-title">
        <span className="event-type">
          <VisibleText text={call.name} />
        </span>{' '}
        <CallStateBadge state={call.state} errorCode={call.errorCode} />
      </div>
      {(call.argsError ?? call.argsSummary) !== null && (
        <div className={`chip-summary ${call.argsError !== null ? 'chip-error' : ''}`}>
          <VisibleText text={call.argsError ?? call.argsSummary ?? ''} />
        </div>
      )}
      {waiting ? (
        <span className="call-waiting-label" data-testid="call-waiting">
          waiting for its result
        </span>
      ) : call.answerEventId === null ? (
        <span className="call-unlinked" data-testid="call-unlinked">
          no result
        </span>
      ) : (
        <a className="call-link" href={eventLink(call.answerEventId)} onClick={stopRowClick} data-testid="link-to-result">
          {call.state === 'unexecuted' ? '→ not executed' : '→ result'}
          {call.latencyMs !== null && ` (${formatDuration(call.latencyMs)})`}
        </a>
      )}
      <SubAgentSummary callId={call.callId} />
    </div>
  );
}

export function FindingMarker({ finding, active, onSelect }: { finding: FindingRow; active: boolean; onSelect: (finding: FindingRow) => void }) {
  return (
    <button
      type="button"
      className={`finding-marker severity-${finding.severity} ${active ? 'finding-active' : ''}`}
      data-testid="finding-marker"
      data-kind={finding.kind}
      data-severity={finding.severity}
      data-active={active}
      title={visibleText(finding.message)}
      onClick={(event) => {
        event.stopPropagation();
        onSelect(finding);
      }}
    >
      ⚑ {humanize(finding.kind)}
    </button>
  );
}
