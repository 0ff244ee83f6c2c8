/**
 * The context-growth chart: a bar per request (input tokens on the left axis, recorded usage or an
 * o200k estimate drawn hatched; cached and output where recorded), the cumulative input with its
 * fit on the right axis, compactions marked where the history was cut, and the largest growth
 * turns labelled with the tokens they added. Drawn at the width of its pane (measured), with the
 * request numbers thinned to a round step that fits (charts/axisLabels.ts). Every bar opens its diff.
 */
import { useId } from 'react';
import type { ApiResponse, RequestRow } from '../../shared/api';
import { axisLabelPositions, placeLabels, roundAxisMax } from '../charts/axisLabels';
import { formatCount, formatTokenCount } from '../components/format';
import { useMeasuredWidth } from './useMeasuredWidth';

type Growth = ApiResponse<'requests'>['growth'];

const margin = { left: 58, right: 66, top: 30, bottom: 34 };
const height = 280;
/** Before the pane is measured, and the narrowest the plot is drawn (a narrower pane scrolls). */
const defaultWidth = 960;
const minimumWidth = 420;
/** The chart's 11 px digits, and the room kept between two labels. */
const charWidth = 7;
const labelGap = 6;

/** Fractions of each axis's maximum where it is labelled and gridded. */
const ticks = [0, 0.25, 0.5, 0.75, 1];

/** Where everything goes in the plot: the two vertical scales, a band per request, the bars' widths. */
interface ChartGeometry {
  width: number;
  plotWidth: number;
  plotHeight: number;
  /** The y of the horizontal axis. */
  bottom: number;
  /** Horizontal room of one request. */
  band: number;
  leftMax: number;
  rightMax: number;
  /** Tokens per request, left axis. */
  yLeft: (value: number) => number;
  /** Cumulative tokens, right axis. */
  yRight: (value: number) => number;
  /** Place of each request (by its index) in the list drawn. */
  positionOf: ReadonlyMap<number, number>;
  /** The x of the middle of a request's band. */
  centre: (requestIndex: number) => number;
  /** An output bar stands beside each input bar: some request records output tokens. */
  hasOutput: boolean;
  inputWidth: number;
  outputWidth: number;
}

function chartGeometry(width: number, requests: readonly RequestRow[], growth: Growth): ChartGeometry {
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const bottom = margin.top + plotHeight;
  const band = plotWidth / requests.length;
  const hasOutput = requests.some((request) => request.outputTokens !== null);
  const leftMax = roundAxisMax(Math.max(0, ...requests.flatMap((request) => [request.inputTokens ?? 0, request.outputTokens ?? 0])), ticks.length - 1);
  const rightMax = roundAxisMax(Math.max(0, ...growth.cumulative, ...(growth.fit?.predictedCumulative ?? [])), ticks.length - 1);
  const positionOf = new Map(requests.map((request, position) => [request.index, position]));
  return {
    width,
    plotWidth,
    plotHeight,
    bottom,
    band,
    leftMax,
    rightMax,
    yLeft: (value) => bottom - (value / leftMax) * plotHeight,
    yRight: (value) => bottom - (value / rightMax) * plotHeight,
    positionOf,
    centre: (requestIndex) => margin.left + ((positionOf.get(requestIndex) ?? requestIndex) + 0.5) * band,
    hasOutput,
    inputWidth: Math.max(1, Math.min(band * (hasOutput ? 0.55 : 0.72), 44)),
    outputWidth: Math.max(1, Math.min(band * 0.2, 14)),
  };
}

export function GrowthChart({
  requests,
  growth,
  highlighted,
  onOpen,
}: {
  requests: readonly RequestRow[];
  growth: Growth;
  /** Request indices of the largest growth turns, largest first: labelled with what they added. */
  highlighted: readonly number[];
  onOpen: (request: RequestRow) => void;
}) {
  const [figure, measured] = useMeasuredWidth<HTMLElement>();
  const width = Math.max(minimumWidth, measured ?? defaultWidth);
  const id = useId().replace(/[^A-Za-z0-9_-]/g, '');
  const hatch = `hatch-${id}`;
  const plotClip = `plot-${id}`;
  const geometry = chartGeometry(width, requests, growth);
  const { plotWidth, plotHeight, bottom, yRight, positionOf, centre } = geometry;
  const line = (values: readonly number[]) =>
    growth.requestIndices.map((requestIndex, k) => `${centre(requestIndex).toFixed(1)},${yRight(values[k] ?? 0).toFixed(1)}`).join(' ');

  const added = new Map(growth.largestGrowth.map((step) => [step.requestIndex, step.growth]));
  const highlightedPositions = highlighted.map((index) => positionOf.get(index)).filter((position): position is number => position !== undefined);
  const numbered = new Set(axisLabelPositions(requests.length, plotWidth, { charWidth, gap: labelGap, priority: highlightedPositions }));
  // "+12k" over the largest turns' bars, the largest first when two would touch.
  const growthLabel = (index: number) => `+${formatTokenCount(added.get(index) ?? 0)}`;
  const growthLabelled = new Set(
    placeLabels(
      highlighted.map((index) => ({ x: centre(index) - margin.left, width: growthLabel(index).length * charWidth })),
      labelGap,
      { min: -margin.left, max: plotWidth + margin.right },
    ).map((k) => highlighted[k]!),
  );

  return (
    <figure className="growth-figure" ref={figure}>
      <svg
        className="growth-chart"
        width={width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label="Input tokens per request, and the cumulative input with its fit"
        data-testid="growth-chart"
      >
        <defs>
          <pattern id={hatch} patternUnits="userSpaceOnUse" width="8" height="8" patternTransform="rotate(45)">
            <rect width="8" height="8" className="hatch-ground" />
            <line x1="0" y1="0" x2="0" y2="8" className="hatch-line" />
          </pattern>
          {/* The fit can dip below zero (a poor fit): the lines stay inside the plot. */}
          <clipPath id={plotClip}>
            <rect x={margin.left} y={margin.top - 8} width={plotWidth} height={plotHeight + 8} />
          </clipPath>
        </defs>
        <VerticalAxes geometry={geometry} cumulative={growth.cumulative.length > 0} />
        {requests.map((request, position) => {
          const rank = highlighted.indexOf(request.index);
          return (
            <GrowthBar
              key={request.eventId}
              request={request}
              position={position}
              rank={rank}
              grew={added.get(request.index)}
              growthLabel={growthLabelled.has(request.index) ? growthLabel(request.index) : null}
              numbered={numbered.has(position)}
              geometry={geometry}
              hatch={hatch}
              onOpen={onOpen}
            />
          );
        })}
        <g clipPath={`url(#${plotClip})`}>
          {growth.fit && growth.requestIndices.length > 1 && (
            <polyline points={line(growth.fit.predictedCumulative)} className="line-fit" data-testid="growth-fit-line" />
          )}
          {growth.requestIndices.length > 0 && <polyline points={line(growth.cumulative)} className="line-cumulative" data-testid="growth-cumulative-line" />}
        </g>
        <line x1={margin.left} x2={width - margin.right} y1={bottom} y2={bottom} className="axis-line" />
        <text x={margin.left + plotWidth / 2} y={height - 2} textAnchor="middle" className="axis-title">
          request
        </text>
      </svg>
      <GrowthLegend requests={requests} growth={growth} highlighted={highlighted.length > 0} />
    </figure>
  );
}

/** The grid lines with the tokens of both axes, and the axes' titles; the right one only when there is a cumulative line. */
function VerticalAxes({ geometry, cumulative }: { geometry: ChartGeometry; cumulative: boolean }) {
  const { width, leftMax, rightMax, yLeft, yRight } = geometry;
  return (
    <>
      {ticks.map((tick) => (
        <g key={tick} className="axis">
          <line x1={margin.left} x2={width - margin.right} y1={yLeft(tick * leftMax)} y2={yLeft(tick * leftMax)} className="grid-line" />
          <text x={margin.left - 6} y={yLeft(tick * leftMax) + 4} textAnchor="end">
            {formatTokenCount(tick * leftMax)}
          </text>
          {cumulative && (
            <text x={width - margin.right + 6} y={yRight(tick * rightMax) + 4} textAnchor="start" className="axis-right">
              {formatTokenCount(tick * rightMax)}
            </text>
          )}
        </g>
      ))}
      <text x={4} y={margin.top - 14} textAnchor="start" className="axis-title">
        tokens per request
      </text>
      {cumulative && (
        <text x={width - 4} y={margin.top - 14} textAnchor="end" className="axis-title axis-right">
          cumulative
        </text>
      )}
    </>
  );
}

/** What a bar says to a screen reader and on hover: its request, its tokens, why it stands out. */
function barDescription(request: RequestRow, rank: number, grew: number | undefined): string {
  const input = request.inputTokens;
  const cached = request.cachedInputTokens;
  return [
    `Request ${request.index + 1} (line ${request.line})`,
    input === null
      ? 'input tokens unknown'
      : `${formatCount(input)} input tokens${request.inputTokensSource === 'estimated' ? ' (estimated, o200k tokenizer)' : ''}`,
    cached !== null && `${formatCount(cached)} cached`,
    request.outputTokens !== null && `${formatCount(request.outputTokens)} output tokens`,
    grew !== undefined && `added ${formatCount(Math.round(grew))} tokens`,
    rank >= 0 && `the #${rank + 1} growth of the run`,
    request.compaction &&
      `history compacted before it${request.compaction.tokensRemoved === null ? '' : ` (−${formatCount(request.compaction.tokensRemoved)} tokens)`}`,
    'click for its diff',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** One request: its bars (input, cached, output), its compaction mark, its labels, and the whole band as a link to its diff. */
function GrowthBar(props: {
  request: RequestRow;
  position: number;
  /** Its place among the largest growth turns, -1 when not one of them. */
  rank: number;
  /** The tokens it added, when it is one of the largest growth turns. */
  grew: number | undefined;
  /** "+12k" over the bar, or null when it is not labelled. */
  growthLabel: string | null;
  /** Whether its request number is shown under the axis. */
  numbered: boolean;
  geometry: ChartGeometry;
  hatch: string;
  onOpen: (request: RequestRow) => void;
}) {
  const { request, position, rank, grew, growthLabel, numbered, geometry, hatch, onOpen } = props;
  const { band, plotHeight, bottom, yLeft, hasOutput, inputWidth, outputWidth } = geometry;
  const x = margin.left + (position + 0.5) * band;
  const estimatedBar = request.inputTokensSource === 'estimated';
  const input = request.inputTokens;
  const cached = request.cachedInputTokens;
  const label = barDescription(request, rank, grew);
  const barX = hasOutput ? x - inputWidth / 2 - outputWidth / 2 : x - inputWidth / 2;
  return (
    <g
      className={`growth-bar ${rank >= 0 ? 'growth-top' : ''}`}
      data-testid="growth-bar"
      data-request-index={request.index}
      data-estimated={estimatedBar}
      data-rank={rank >= 0 ? rank + 1 : undefined}
      data-compacted={request.compaction !== null}
      role="link"
      tabIndex={0}
      aria-label={label}
      onClick={() => onOpen(request)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') {
          event.preventDefault();
          onOpen(request);
        }
      }}
    >
      <title>{label}</title>
      <rect x={x - band / 2} y={margin.top} width={band} height={plotHeight} className="bar-hit" />
      {request.compaction && (
        <g data-testid="growth-compaction-mark">
          <line x1={x - band / 2} x2={x - band / 2} y1={margin.top - 12} y2={bottom} className="compaction-line" />
          <text x={x - band / 2 + 3} y={margin.top - 3} textAnchor="start" className="compaction-label">
            {request.compaction.tokensRemoved === null ? 'compacted' : `compacted −${formatTokenCount(request.compaction.tokensRemoved)}`}
          </text>
        </g>
      )}
      {input !== null && (
        <rect
          x={barX}
          y={yLeft(input)}
          width={inputWidth}
          height={Math.max(0, bottom - yLeft(input))}
          className={estimatedBar ? 'bar-input bar-estimated' : 'bar-input'}
          fill={estimatedBar ? `url(#${hatch})` : undefined}
        />
      )}
      {cached !== null && cached > 0 && (
        <rect x={barX} y={yLeft(cached)} width={inputWidth} height={Math.max(0, bottom - yLeft(cached))} className="bar-cached" />
      )}
      {request.outputTokens !== null && (
        <rect
          x={barX + inputWidth + 1}
          y={yLeft(request.outputTokens)}
          width={outputWidth}
          height={Math.max(0, bottom - yLeft(request.outputTokens))}
          className="bar-output"
        />
      )}
      {growthLabel !== null && input !== null && (
        <text x={x} y={yLeft(input) - 5} textAnchor="middle" className="growth-top-label">
          {growthLabel}
        </text>
      )}
      {numbered && (
        <text x={x} y={bottom + 16} textAnchor="middle" className={rank >= 0 ? 'bar-label bar-label-top' : 'bar-label'} data-testid="growth-x-label">
          {request.index + 1}
        </text>
      )}
    </g>
  );
}

/** The legend names only what the chart draws. */
function GrowthLegend({ requests, growth, highlighted }: { requests: readonly RequestRow[]; growth: Growth; highlighted: boolean }) {
  const hasRecorded = requests.some((request) => request.inputTokensSource === 'recorded');
  const hasEstimated = requests.some((request) => request.inputTokensSource === 'estimated');
  const hasCached = requests.some((request) => request.cachedInputTokens !== null && request.cachedInputTokens > 0);
  const hasOutput = requests.some((request) => request.outputTokens !== null);
  const hasCompaction = requests.some((request) => request.compaction !== null);
  return (
    <figcaption className="growth-legend" data-testid="growth-legend">
      {hasRecorded && <LegendItem swatch="swatch-input" label="input tokens (recorded usage)" />}
      {hasEstimated && <LegendItem swatch="swatch-estimated" label="input tokens, estimated (o200k tokenizer)" testId="legend-estimated" />}
      {hasCached && <LegendItem swatch="swatch-cached" label="cached input" />}
      {hasOutput && <LegendItem swatch="swatch-output" label="output tokens" />}
      {growth.cumulative.length > 0 && <LegendItem swatch="swatch-cumulative" label="cumulative input (right axis)" />}
      {growth.fit && <LegendItem swatch="swatch-fit" label="fit N×S + T×N(N+1)/2 (right axis)" />}
      {highlighted && <LegendItem swatch="swatch-top" label="the largest growth (+ tokens added)" />}
      {hasCompaction && <LegendItem swatch="swatch-compaction" label="history compacted before this request" testId="legend-compaction" />}
    </figcaption>
  );
}

function LegendItem({ swatch, label, testId }: { swatch: string; label: string; testId?: string }) {
  return (
    <span className="legend-item" data-testid={testId}>
      <span className={`swatch ${swatch}`} aria-hidden="true" /> {label}
    </span>
  );
}
