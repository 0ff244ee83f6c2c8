/**
 * A bar chart of counts over categories (statuses, kinds, days, histogram buckets), drawn by uPlot
 * on a canvas: one or two series side by side per category, the values under the cursor in its
 * legend. Colours are the theme's (read from the CSS variables each time it is drawn, so a switch
 * to dark mode redraws it in dark colours). Every chart has a table beside it (ChartCard), which is
 * what a screen reader and a sort read.
 */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useMeasuredWidth } from '../views/useMeasuredWidth';
import { tickStep } from './axisLabels';

export interface BarSeries {
  label: string;
  values: readonly number[];
  /** A CSS colour variable of the theme (`--accent`, `--error`, …). */
  colorVariable: string;
}

export interface BarChartProps {
  labels: readonly string[];
  /** What a label names (`status`, `month`), for the legend's reading under the cursor. */
  categoryName: string;
  series: readonly BarSeries[];
  /** Horizontal bars for named categories (their names read left of them); vertical for ordered ones (periods, buckets). */
  orientation: 'horizontal' | 'vertical';
  /** The plot's height when vertical; horizontal, it grows with the categories. */
  height: number;
  /** What the chart shows, for assistive technology (the table beside it has the numbers). */
  ariaLabel: string;
  formatValue: (value: number) => string;
}

function themeColor(variable: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(variable).trim() || '#888';
}

/** Redraws when the system switches between light and dark. */
function useColorScheme(): 'dark' | 'light' {
  const [scheme, setScheme] = useState<'dark' | 'light'>(() => (window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'));
  useEffect(() => {
    const query = window.matchMedia('(prefers-color-scheme: dark)');
    const changed = (): void => setScheme(query.matches ? 'dark' : 'light');
    query.addEventListener('change', changed);
    return () => query.removeEventListener('change', changed);
  }, []);
  return scheme;
}

/** Pixels per character of the axis font, for fitting labels. */
const CHARACTER_WIDTH = 6.5;
/** The widest the names beside horizontal bars may make their axis. */
const MAX_NAME_AXIS = 170;
/** Height of one horizontal bar's row. */
const BAR_ROW = 22;
const AXIS_FONT = '11px system-ui, sans-serif';
/** Steps between the count axis's ticks: 1, 2, 5, 10, 20, 50, … */
const COUNT_STEPS = Array.from({ length: 30 }, (_, index) => [1, 2, 5][index % 3]! * 10 ** Math.floor(index / 3));

export function BarChart({ labels, categoryName, series, orientation, height, ariaLabel, formatValue }: BarChartProps) {
  const [box, width] = useMeasuredWidth<HTMLDivElement>();
  const scheme = useColorScheme();
  const key = JSON.stringify([labels, categoryName, series, orientation, height, scheme]);
  const latest = useRef({ labels, categoryName, series, formatValue });
  latest.current = { labels, categoryName, series, formatValue };

  useEffect(() => {
    const element = box.current;
    if (element === null || width === null) return;
    const { labels: names, categoryName: category, series: shown, formatValue: format } = latest.current;
    const foreground = themeColor('--fg-muted');
    const grid = themeColor('--border');
    const horizontal = orientation === 'horizontal';
    const longest = Math.max(1, ...names.map((name) => shorten(name, horizontal).length));
    // Along a vertical chart, a name every `step` bars: as many as fit without touching.
    const step = horizontal ? 1 : tickStep((width - 70) / Math.max(1, names.length), longest * CHARACTER_WIDTH, 10);
    const paired = shown.length > 1;
    const options: uPlot.Options = {
      width,
      height: horizontal ? Math.max(90, 60 + names.length * BAR_ROW) : height,
      legend: { show: true, live: true },
      cursor: { points: { show: false }, drag: { x: false, y: false } },
      scales: {
        x: { time: false, range: [-0.5, names.length - 0.5], ...(horizontal ? { ori: 1, dir: -1 } : {}) },
        y: { range: (_plot, _min, max) => [0, Math.max(1, max * 1.1)], ...(horizontal ? { ori: 0 } : {}) },
      },
      axes: [
        {
          stroke: foreground,
          grid: { show: false },
          ticks: { stroke: grid },
          splits: () => names.flatMap((_, index) => (index % step === 0 ? [index] : [])),
          values: (_plot, splits) => splits.map((split) => shorten(names[split] ?? '', horizontal)),
          gap: 4,
          size: horizontal ? Math.min(MAX_NAME_AXIS, 16 + longest * CHARACTER_WIDTH) : 32,
          font: AXIS_FONT,
          ...(horizontal ? { side: 3 } : {}),
        },
        {
          stroke: foreground,
          grid: { stroke: grid, width: 1 },
          ticks: { show: false },
          // Counts: ticks at whole numbers only.
          incrs: COUNT_STEPS,
          values: (_plot, splits) => splits.map(format),
          font: AXIS_FONT,
          size: horizontal ? 28 : 56,
          ...(horizontal ? { side: 2 } : {}),
        },
      ],
      series: [
        { label: category, value: (_plot, value) => (value === null ? '' : (names[value] ?? '')) },
        ...shown.map((one, index) => ({
          label: one.label,
          stroke: themeColor(one.colorVariable),
          fill: themeColor(one.colorVariable),
          value: (_plot: uPlot, value: number | null) => (value === null ? '' : format(value)),
          paths: uPlot.paths.bars?.({ size: [paired ? 0.4 : 0.7, 64], align: paired ? (index === 0 ? -1 : 1) : 0 }),
          points: { show: false },
        })),
      ],
    };
    const data: uPlot.AlignedData = [names.map((_, index) => index), ...shown.map((one) => [...one.values])];
    const plot = new uPlot(options, data, element);
    return () => plot.destroy();
  }, [box, width, height, orientation, key]);

  return <div ref={box} className="bar-chart" role="img" aria-label={ariaLabel} data-testid="bar-chart" />;
}

/** Axis labels stay short; the legend and the table carry the whole name. */
function shorten(label: string, horizontal: boolean): string {
  const most = horizontal ? 24 : 12;
  return label.length > most ? `${label.slice(0, most - 1)}…` : label;
}
