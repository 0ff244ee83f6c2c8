/**
 * The run's waterfall, above its timeline (Perfetto / Langfuse style): each model call and tool
 * call as a bar on one time axis, parallel calls on tracks side by side (runWaterfall; how a bar's
 * ends are found: shared/analysis/waterfall.ts). The timeline's selected row is highlighted here;
 * clicking a bar selects its row. A run draws up to 10,000 bars, each lane's on a canvas
 * (WaterfallLane says why); the axis's ticks are placed in percent of the run's span, on a track
 * area as wide as the lanes', so bars and ticks line up. The view is memoized, so the run view's
 * renders (a page of the timeline arriving) do not redraw it; the cursor moving draws a lane's
 * highlighted bars again.
 */
import { memo, useLayoutEffect, useMemo, useRef, useState, type MouseEvent as ReactMouseEvent } from 'react';
import type { ApiResponse } from '../../shared/api';
import { axisTicks } from '../../shared/analysis/waterfall';
import { useQuery } from '../api/useQuery';
import { formatCount, formatDuration } from '../components/format';
import { useLatest } from '../components/useLatest';
import { whenIdle } from '../components/whenIdle';
import { visibleText } from '../components/VisibleText';
import '../styles/timeline-noise.css';

type Span = ApiResponse<'runWaterfall'>['spans'][number];

/** CSS pixels per track: a bar (`barHeight`) and the gap under it. */
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
              <WaterfallLane lane={lane} axis={axis} selectedEventId={selectedEventId} onSelect={onSelect} />
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

/** A bar's text: its tooltip when hovered (the canvas's title), and what tests and users read. */
const barLabel = (span: Span, axis: Axis) =>
  `${span.kind === 'model' ? 'model call' : visibleText(span.name ?? 'tool call')}${span.step === null ? '' : ` · step ${span.step}`} · ${formatDuration(span.endMs - span.startMs)} · at ${formatDuration(span.startMs - axis.startMs)}${span.failed ? ' · failed' : ''}`;

/** Bar geometry in CSS pixels (the DOM bars' former styles/timeline-noise.css sizes). */
const barHeight = 9;
const barMinWidth = 3;
/** Back-to-back calls stay apart: each bar leaves this much of its right end undrawn. */
const barGap = 1;
/** The canvas overhangs its lane by this much on every side, so a selected bar's outline is not cut off. */
const overhang = 3;
/** Bars at least this wide (CSS pixels) have rounded corners; narrower ones are plain rectangles. */
const roundedFrom = 6;

interface Lane {
  kind: 'model' | 'tool';
  spans: Span[];
  tracks: number;
}

/**
 * A lane's bars on one canvas. Drawn rather than laid out: thousands of DOM bars made every width
 * change of the run pane (the inspector opening) relayout and repaint them all, and their first
 * render was one long task; a canvas redraws them in a few milliseconds. The canvas is sized in
 * device pixels and its bars drawn again when its box changes (ResizeObserver, which gives the
 * width without a layout read), the device pixel ratio does (a `resolution` media query) or the
 * theme does, with the theme's colours read from the CSS custom properties. The bars are kept
 * on a second canvas, so that a change of the highlighted ones (the cursor moving, j) copies them
 * back and draws only those. Click and hover are hit-tested against the spans; the timeline below
 * stays the keyboard path to every call, so the canvas is an image with a summary for assistive technology.
 */
function WaterfallLane({ lane, axis, selectedEventId, onSelect }: { lane: Lane; axis: Axis; selectedEventId: number | null; onSelect: (span: Span) => void }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const drawn = useRef<DrawnBars | null>(null);
  /** The track area's width (CSS pixels) the ResizeObserver last gave; null before its first report. */
  const width = useRef<number | null>(null);
  const [hovered, setHovered] = useState<Span | null>(null);
  const highlights: Highlights = { selectedEventId, hovered };
  const latest = useLatest({ lane, axis, highlights });

  useLayoutEffect(() => {
    const element = canvas.current;
    if (element === null) return;
    const redraw = () => {
      if (width.current === null) return;
      const { lane, axis, highlights } = latest.current;
      drawn.current = drawBars(element, lane, axis, width.current, drawn.current);
      drawHighlights(element, drawn.current, lane, highlights);
    };
    // A new width (the inspector opening narrows the pane) is drawn once the page is idle: a long
    // run's bars take ~15 ms, spent in the frames a jump to an event needs for its row; meanwhile
    // the last drawing is shown stretched to the new box. The first report draws at once.
    let cancelIdleRedraw: (() => void) | null = null;
    const resized = new ResizeObserver(([entry]) => {
      if (entry === undefined) return;
      const first = width.current === null;
      width.current = entry.contentRect.width - 2 * overhang;
      if (first) redraw();
      else
        cancelIdleRedraw ??= whenIdle(() => {
          cancelIdleRedraw = null;
          redraw();
        }, 200);
    });
    resized.observe(element);
    const theme = matchMedia('(prefers-color-scheme: dark)');
    theme.addEventListener('change', redraw);
    // The window moved to a screen of another density, or zoomed: the box in CSS pixels can stay
    // the same (no resize report) while the canvas needs more or fewer device pixels. A query for
    // the present ratio changes once, when the ratio leaves it; then one for the new ratio is watched.
    let density: MediaQueryList | null = null;
    const densityChanged = () => {
      watchDensity();
      redraw();
    };
    const watchDensity = () => {
      density?.removeEventListener('change', densityChanged);
      density = matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`);
      density.addEventListener('change', densityChanged);
    };
    watchDensity();
    return () => {
      resized.disconnect();
      cancelIdleRedraw?.();
      theme.removeEventListener('change', redraw);
      density?.removeEventListener('change', densityChanged);
    };
  }, [latest]);
  // New spans (the run grew) are drawn again; before the first resize report, that report draws them.
  useLayoutEffect(() => {
    if (canvas.current !== null && width.current !== null) drawn.current = drawBars(canvas.current, lane, axis, width.current, drawn.current);
  }, [lane, axis]);
  useLayoutEffect(() => {
    if (canvas.current !== null && drawn.current !== null) drawHighlights(canvas.current, drawn.current, lane, { selectedEventId, hovered });
  }, [lane, axis, selectedEventId, hovered]);

  const spanAt = (event: ReactMouseEvent<HTMLCanvasElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    return barAt(lane, axis, box.width - 2 * overhang, event.clientX - box.left - overhang, event.clientY - box.top - overhang);
  };
  const tracks = lane.tracks === 1 ? 'one track' : `${lane.tracks} tracks`;
  const selected = selectedEventId === null ? undefined : lane.spans.find((span) => span.eventId === selectedEventId);
  return (
    <div className="waterfall-track-area waterfall-tracks" style={{ height: lane.tracks * trackHeight }}>
      <canvas
        ref={canvas}
        className={`waterfall-canvas ${hovered !== null ? 'bar-hovered' : ''}`}
        role="img"
        aria-label={`${lane.kind === 'model' ? 'Model calls' : 'Tool calls'}: ${calls(lane.spans.length)} on ${tracks}; the timeline lists them`}
        title={hovered === null ? undefined : barLabel(hovered, axis)}
        data-testid="waterfall-canvas"
        data-kind={lane.kind}
        data-bars={lane.spans.length}
        data-tracks={lane.tracks}
        data-selected-event-id={selected?.eventId ?? ''}
        onMouseMove={(event) => {
          const span = spanAt(event);
          if (span !== hovered) setHovered(span);
        }}
        onMouseLeave={() => setHovered(null)}
        onClick={(event) => {
          const span = spanAt(event);
          if (span !== null) onSelect(span);
        }}
      />
    </div>
  );
}

interface Highlights {
  selectedEventId: number | null;
  hovered: Span | null;
}

/** A lane's bars as last drawn, toned down, on a canvas of their own; with what drawing the highlighted ones needs. */
interface DrawnBars {
  bars: HTMLCanvasElement;
  axis: Axis;
  width: number;
  ratio: number;
  colours: { model: string; tool: string; failed: string; outline: string; relatedOutline: string };
}

/** A bar's left edge and width in CSS pixels, in a track area `width` wide. */
function barBox(span: Span, axis: Axis, width: number): { left: number; width: number } {
  const left = (percentOf(axis, span.startMs) / 100) * width;
  return { left, width: Math.max(barMinWidth, (percentOf(axis, span.endMs) / 100) * width - left) };
}

/** The bar under a point of the track area (CSS pixels from its top left), the last drawn if bars overlap. */
function barAt(lane: Lane, axis: Axis, width: number, x: number, y: number): Span | null {
  const track = Math.floor(y / trackHeight);
  if (y < 0 || y - track * trackHeight > barHeight) return null;
  let found: Span | null = null;
  for (const span of lane.spans) {
    if (span.track !== track) continue;
    const box = barBox(span, axis, width);
    if (x >= box.left && x <= box.left + box.width) found = span;
  }
  return found;
}

/** A bar's rectangle on the canvas, its edges on device pixels (crisp at any devicePixelRatio, as the DOM bars were). */
function barRect(span: Span, axis: Axis, width: number, ratio: number): { left: number; top: number; width: number } {
  const snap = (value: number) => Math.round(value * ratio) / ratio;
  const box = barBox(span, axis, width);
  const left = snap(box.left);
  return { left, top: span.track * trackHeight, width: Math.max(snap(box.left + box.width) - left - barGap, 1 / ratio) };
}

const fillOf = (span: Span, colours: DrawnBars['colours']) => (span.failed ? colours.failed : colours[span.kind]);

/** Sizes the canvas for its box and draws every bar, toned down (85 % of its colour over the background, as the DOM bars were), on a canvas kept for the highlights. */
function drawBars(canvas: HTMLCanvasElement, lane: Lane, axis: Axis, width: number, previous: DrawnBars | null): DrawnBars {
  const ratio = window.devicePixelRatio || 1;
  const pixelWidth = Math.round((width + 2 * overhang) * ratio);
  const pixelHeight = Math.round((lane.tracks * trackHeight + 2 * overhang) * ratio);
  // Setting a canvas's size clears it, even to the same size: set only when it changed.
  if (canvas.width !== pixelWidth) canvas.width = pixelWidth;
  if (canvas.height !== pixelHeight) canvas.height = pixelHeight;
  const style = getComputedStyle(canvas);
  const colour = (name: string) => style.getPropertyValue(name).trim();
  const colours = { model: colour('--accent'), tool: colour('--ok'), failed: colour('--error'), outline: colour('--fg'), relatedOutline: colour('--fg-muted') };
  // The canvas of the bars is reused: a new one per draw would leave its pixels to the garbage
  // collector, which then runs long collections.
  const bars = previous?.bars ?? document.createElement('canvas');
  if (bars.width !== pixelWidth) bars.width = pixelWidth;
  if (bars.height !== pixelHeight) bars.height = pixelHeight;
  const context = bars.getContext('2d');
  if (context !== null) {
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.clearRect(0, 0, pixelWidth, pixelHeight);
    context.setTransform(ratio, 0, 0, ratio, ratio * overhang, ratio * overhang);
    context.globalAlpha = 0.85;
    // One path per colour: thousands of bars, a few fills. Only bars wide enough to show it get
    // rounded corners: a path of thousands of curves takes tens of milliseconds to rasterize in
    // software, plain rectangles a few.
    for (const fill of new Set(lane.spans.map((span) => fillOf(span, colours)))) {
      context.beginPath();
      for (const span of lane.spans) {
        if (fillOf(span, colours) !== fill) continue;
        const bar = barRect(span, axis, width, ratio);
        if (bar.width < roundedFrom) context.rect(bar.left, bar.top, bar.width, barHeight);
        else context.roundRect(bar.left, bar.top, bar.width, barHeight, 2);
      }
      context.fillStyle = fill;
      context.fill();
    }
  }
  return { bars, axis, width, ratio, colours };
}

/**
 * The drawn bars copied back, then the highlighted ones in full colour with an outline: the calls
 * the selected response issued, the hovered bar, then the selected bar on top.
 */
function drawHighlights(canvas: HTMLCanvasElement, drawn: DrawnBars, lane: Lane, { selectedEventId, hovered }: Highlights): void {
  const context = canvas.getContext('2d');
  if (context === null) return;
  const { bars, axis, width, ratio, colours } = drawn;
  context.setTransform(1, 0, 0, 1, 0, 0);
  context.clearRect(0, 0, canvas.width, canvas.height);
  context.drawImage(bars, 0, 0);
  context.setTransform(ratio, 0, 0, ratio, ratio * overhang, ratio * overhang);
  const outlined = (span: Span, outline: string, lineWidth: number, offset: number) => {
    const bar = barRect(span, axis, width, ratio);
    context.fillStyle = fillOf(span, colours);
    context.beginPath();
    context.roundRect(bar.left, bar.top, bar.width, barHeight, 2);
    context.fill();
    context.strokeStyle = outline;
    context.lineWidth = lineWidth;
    const out = offset + lineWidth / 2;
    context.beginPath();
    context.roundRect(bar.left - out, bar.top - out, bar.width + 2 * out, barHeight + 2 * out, 2 + out);
    context.stroke();
  };
  if (selectedEventId !== null) {
    for (const span of lane.spans) if (span.eventId !== selectedEventId && span.issuerEventId === selectedEventId) outlined(span, colours.relatedOutline, 1, 0);
  }
  if (hovered !== null) outlined(hovered, colours.outline, 1, 0);
  for (const span of lane.spans) if (span.eventId === selectedEventId) outlined(span, colours.outline, 2, 1);
}

const calls = (count: number) => `${formatCount(count)} ${count === 1 ? 'call' : 'calls'}`;

/** The axis (the earliest start to the latest end) and each kind's spans with its number of tracks. */
function laneLayout(spans: readonly Span[]): { axis: Axis; lanes: Lane[] } {
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
