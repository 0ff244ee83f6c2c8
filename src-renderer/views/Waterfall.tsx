/**
 * The run's waterfall, above its timeline (Perfetto / Langfuse style): each model call and tool
 * call as a bar on one time axis, parallel calls on tracks side by side (runWaterfall; how a bar's
 * ends are found: shared/analysis/waterfall.ts). The timeline's selected row is highlighted here;
 * clicking a bar selects its row. Bars are placed in percent of the run's span, so the lane
 * follows the width it is given without measuring it. A run draws up to 10,000 bars: the view and
 * each bar are memoized, so that the run view's renders (a page of the timeline arriving, the
 * cursor moving) redraw only the bars whose selection changed, not all of them.
 */
import { memo, useMemo, useState } from 'react';
import type { ApiResponse } from '../../shared/api';
import { axisTicks } from '../../shared/analysis/waterfall';
import { useQuery } from '../api/useQuery';
import { formatCount, formatDuration } from '../components/format';
import { visibleText } from '../components/VisibleText';
import '../styles/timeline-noise.css';

type Span = ApiResponse<'runWaterfall'>['spans'][number];

/** Pixels per track (styles/timeline-noise.css `.waterfall-bar` height plus its gap). */
const trackHeight = 12;

export interface WaterfallProps {
  traceId: string;
  runPk: number;
  revision: number;
  /** The event the timeline has selected (the inspector's, else the cursor's). */
  selectedEventId: number | null;
  onSelect: (span: Span) => void;
}

export const Waterfall = memo(function Waterfall({ traceId, runPk, revision, selectedEventId, onSelect }: WaterfallProps) {
  const waterfall = useQuery(`waterfall:${traceId}:${runPk}:${revision}`, (client) => client.runWaterfall({ traceId, runPk }));
  const [open, setOpen] = useState(true);
  const layout = useMemo(() => (waterfall.data === undefined ? null : laneLayout(waterfall.data.spans)), [waterfall.data]);
  if (waterfall.status === 'error' || waterfall.data === undefined || layout === null) return null;
  const { spans, untimed, omitted } = waterfall.data;
  if (spans.length === 0 && untimed === 0) return null;
  if (spans.length === 0) {
    return (
      <div className="waterfall waterfall-empty muted" data-testid="waterfall" data-state="untimed">
        No waterfall: this run records no times for its {untimed === 1 ? 'call' : `${formatCount(untimed)} model and tool calls`}.
      </div>
    );
  }
  const { axis, lanes } = layout;
  const { startMs, durationMs } = axis;
  const ticks = axisTicks(durationMs, 6);
  return (
    <section className="waterfall" data-testid="waterfall" data-state="ready" aria-label="Waterfall: model and tool calls on a time axis">
      <div className="waterfall-head">
        <button type="button" className="waterfall-toggle" aria-expanded={open} onClick={() => setOpen((shown) => !shown)} data-testid="waterfall-toggle">
          {open ? '▾' : '▸'} Waterfall
        </button>
        <span className="muted">
          {formatDuration(durationMs)}
          {untimed > 0 && ` · ${calls(untimed)} without recorded times not drawn`}
          {omitted > 0 && ` · ${calls(omitted)} later not drawn`}
        </span>
      </div>
      {open && (
        <div className="waterfall-body">
          <div className="waterfall-lane waterfall-axis" aria-hidden="true">
            <span />
            <div className="waterfall-track-area">
              {ticks.map((offset) => (
                <span key={offset} className="waterfall-tick" style={{ left: `${percentOf(axis, startMs + offset)}%` }}>
                  {formatDuration(offset)}
                </span>
              ))}
            </div>
          </div>
          {lanes.map((lane) => (
            <div key={lane.kind} className="waterfall-lane" data-kind={lane.kind}>
              <span className="waterfall-lane-label muted">{lane.kind === 'model' ? 'Model' : 'Tools'}</span>
              <div className="waterfall-track-area waterfall-tracks" style={{ height: lane.tracks * trackHeight }}>
                {lane.spans.map((span) => (
                  <WaterfallBar
                    key={`${span.kind}:${span.eventId}:${span.startMs}:${span.track}`}
                    span={span}
                    axis={axis}
                    selected={span.eventId === selectedEventId}
                    related={span.eventId !== selectedEventId && span.issuerEventId !== null && span.issuerEventId === selectedEventId}
                    onSelect={onSelect}
                  />
                ))}
              </div>
            </div>
          ))}
        </div>
      )}
    </section>
  );
});

/** The run's time axis: its earliest start and how long it spans. */
interface Axis {
  startMs: number;
  durationMs: number;
}

const percentOf = (axis: Axis, ms: number) => (axis.durationMs === 0 ? 0 : ((ms - axis.startMs) / axis.durationMs) * 100);

const WaterfallBar = memo(function WaterfallBar({
  span,
  axis,
  selected,
  related,
  onSelect,
}: {
  span: Span;
  axis: Axis;
  selected: boolean;
  related: boolean;
  onSelect: (span: Span) => void;
}) {
  const label = `${span.kind === 'model' ? 'model call' : visibleText(span.name ?? 'tool call')}${span.step === null ? '' : ` · step ${span.step}`} · ${formatDuration(span.endMs - span.startMs)} · at ${formatDuration(span.startMs - axis.startMs)}${span.failed ? ' · failed' : ''}`;
  const left = percentOf(axis, span.startMs);
  return (
    <button
      type="button"
      tabIndex={-1}
      className={`waterfall-bar bar-${span.kind} ${span.failed ? 'bar-failed' : ''} ${selected ? 'bar-selected' : ''} ${related ? 'bar-related' : ''}`}
      style={{ left: `${left}%`, width: `${percentOf(axis, span.endMs) - left}%`, top: span.track * trackHeight }}
      title={label}
      aria-label={label}
      data-testid="waterfall-bar"
      data-kind={span.kind}
      data-event-id={span.eventId}
      data-selected={selected}
      onClick={() => onSelect(span)}
    />
  );
});

const calls = (count: number) => `${formatCount(count)} ${count === 1 ? 'call' : 'calls'}`;

/** The axis (the earliest start to the latest end) and each kind's spans with its number of tracks. */
function laneLayout(spans: readonly Span[]): { axis: Axis; lanes: { kind: 'model' | 'tool'; spans: Span[]; tracks: number }[] } {
  let startMs = Infinity;
  let endMs = -Infinity;
  for (const span of spans) {
    startMs = Math.min(startMs, span.startMs);
    endMs = Math.max(endMs, span.endMs);
  }
  const lanes = (['model', 'tool'] as const)
    .map((kind) => {
      const ofKind = spans.filter((span) => span.kind === kind);
      return { kind, spans: ofKind, tracks: ofKind.reduce((most, span) => Math.max(most, span.track + 1), 0) };
    })
    .filter((lane) => lane.spans.length > 0);
  return { axis: { startMs, durationMs: spans.length === 0 ? 0 : endMs - startMs }, lanes };
}
