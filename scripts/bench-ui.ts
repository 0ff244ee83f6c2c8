/**
 * The browser half of `npm run bench`: the app served by `loopscope serve`, in headless Chromium
 * driven by playwright-core (devkit/browser.ts), measured against the UI targets:
 *
 * 1. progressive runs table: the large synthetic trace opened with an empty cache — server start →
 *    the runs table's first rows (`loopscope:runs-shown`), and the ingest's progress then (target:
 *    rows while the ingest still runs), and server start → the trace ready;
 * 2. reopen: the same file, same cache — server start → runs shown (target < 1 s);
 * 3. search (FTS5): the long-run trace's rare word (in one step's results) — the API from the page, and the
 *    search box's submit → results shown (`loopscope:search-shown`) (target < 300 ms);
 * 4. a run of a million events (devkit/traceGenerators/longRunTrace.ts): scrolling its timeline
 *    (frame intervals and long tasks over 100 steps of one viewport; big jumps with the position
 *    slider that spans the run — the scrollbar spans a window of it — and the rows filled after
 *    each, with the line jumped to shown; the end of the list reachable with the slider) and jumps
 *    to steps, to an event, and `j` (`loopscope:cursor-shown`, target < 100 ms).
 *
 * Each time is the app's mark, checked against the DOM state it stands for: a mark that came
 * before the DOM showed that state counts the DOM's time, and the report says so. Misses never
 * fail the process; a step that cannot run does.
 * Needs the build (`npm run build`) and Debian's chromium.
 *
 *   npx tsx scripts/bench-ui.ts [--size 200MB|1GB] [--seed N] [--json] [--events N] [--only runs|long-run] [--long-run-cache DIR]
 *
 * `--only` measures one half; `--long-run-cache DIR` keeps the long run's database in DIR (made if
 * absent, never removed), so that repeated runs reuse its ingest instead of spending minutes on it.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from '../devkit/browser';
import { formatRoute, routes } from '../src-renderer/navigation/route';
import { RARE_WORD } from '../devkit/traceGenerators/longRunTrace';
import { parseSize } from '../devkit/traceGenerators/syntheticTrace';
import { displayPath, ensureLongRunTrace, ensureTrace, type LongRunTraceInfo, type TraceInfo } from './lib/benchTraces';
import { callApi, epochNow, serveTrace, type ServedTrace, type TraceProgress } from './lib/loopscopeServe';
import { pageProbe } from './lib/uiPageProbe';
import { repoRoot } from '../devkit/repoPaths';

const MB = 1024 * 1024;
const FRAME_BUDGET_MS = 1000 / 60;
/**
 * The scroll's p95 frame interval target, as the issue states it (≤ 16.7 ms): one frame of the
 * 60 Hz display. Chromium clamps requestAnimationFrame timestamps to 0.1 ms with a jittered
 * threshold (its defence against timing attacks), so the intervals of frames drawn exactly one
 * display frame apart read 16.5 to 16.8 ms: a blank page doing nothing reads 16.8 in about one
 * frame of 20, a p95 of 16.8 (the idle control, measured with every scroll). An interval is
 * therefore counted in display frames (rounded to whole 16.67 ms frames), and the p95 passes when
 * it is one frame; the p95 in milliseconds is reported as read.
 */
const P95_FRAME_TARGET_MS = 16.7;
const LONG_TASK_MS = 50;
const REOPEN_TARGET_MS = 1000;
const SEARCH_TARGET_MS = 300;
const FILL_TARGET_MS = 100;
const CURSOR_TARGET_MS = 100;
const VIEWPORT = { width: 1400, height: 860 };
const SCROLL_STEPS = 100;
const JUMP_FRACTIONS = [0.25, 0.5, 0.75, 1];
const REPETITIONS = 5;
const WAIT_MS = 20_000;
/** After a slider jump whose first filled place lacks the line jumped to: how long it is still watched for (the list settling as rows are measured). */
const SLIDER_SETTLE_MS = 1000;
/** Without a slider (the run fits one window): further scrolls to the bottom after the scrollbar's 100 %, as the list grows while rows are measured. */
const END_SLACK_SCROLLS = 2;
/** With a slider: scrolls to the bottom with the scrollbar, for how far each one reaches (informative). */
const BOTTOM_SCROLLS = 3;

// --- the report ------------------------------------------------------------------------------------

/** A figure against its target; pass is null when the figure could not be measured. */
export interface UiVerdict {
  value: number | null;
  unit: string;
  target: string;
  pass: boolean | null;
}

/** How a time was taken: the app's performance mark, or none came in the time allowed. */
export type MeasureSource = 'mark' | 'timeout';

export interface ProgressiveReport {
  trace: string;
  traceMb: number;
  serverStartToUrlMs: number;
  /**
   * Server start → the runs table shown: the first `loopscope:runs-shown` mark, or the frame that
   * first painted run rows when that came more than a frame after the mark (markBeforeRows).
   */
  serverStartToRunsShownMs: number;
  /** Run rows on screen when the mark was seen. */
  rowsShown: number;
  /** Server start → the mark. */
  serverStartToMarkMs: number;
  /** The DOM cross-check: server start → the frame that first painted run rows (null: none painted). */
  serverStartToDomRowsMs: number | null;
  /** The mark came more than a frame before the DOM painted run rows: the DOM's time counts. */
  markBeforeRows: boolean;
  /** The ingest's progress from `listTraces`, asked by the page right after the rows were shown. */
  progressAtRunsShown: { bytesRead: number; totalBytes: number; events: number; state: string; askedAfterMs: number } | null;
  serverStartToReadyMs: number | null;
  verdict: UiVerdict;
}

export interface ReopenReport {
  serverStartToUrlMs: number;
  pageLoadToRunsShownMs: number;
  /** As ProgressiveReport's: the mark, or the DOM's rows when they came more than a frame after it (markBeforeRows). */
  serverStartToRunsShownMs: number;
  /** Server start → the mark. */
  serverStartToMarkMs: number;
  markBeforeRows: boolean;
  /** The API says the cached database was reused. */
  reused: boolean | null;
  /** Where the page load went, ms from navigation start: the page's HTML and scripts, then each API call. */
  breakdown: { domContentLoadedMs: number | null; calls: { method: string; startMs: number; endMs: number }[] };
  /** The `runs-shown` marks seen, ms from navigation start, with the run rows on screen then. */
  marks: { ms: number; runRows: number }[];
  /** The DOM cross-check: the frame that first painted run rows, ms from navigation start (null: none painted). */
  domRowsMs: number | null;
  /** The trace's state as `listTraces` gave it (sampled every 50 ms from the URL on): first `ready` answer, ms after server start. */
  firstReadyMs: number | null;
  /** Answers before the first `ready` one (state `ingesting`: the cache being checked). */
  notReadyAnswers: number;
  verdict: UiVerdict;
}

export interface TimedSamples {
  samples: number[];
  medianMs: number | null;
  /** How each sample was taken (UI samples only). */
  sources?: MeasureSource[];
}

export interface SearchReport {
  trace: string;
  term: string;
  hits: number | null;
  api: TimedSamples;
  ui: TimedSamples;
  verdicts: { api: UiVerdict; ui: UiVerdict };
}

export interface FrameStats {
  frames: number;
  p50Ms: number | null;
  p95Ms: number | null;
  /** The p95 interval in display frames (each interval rounded to whole 60 Hz frames): 1 is every frame on time. */
  p95DisplayFrames: number | null;
  maxMs: number | null;
  longTasks: number;
  longestTaskMs: number | null;
}

export interface JumpScroll {
  fraction: number;
  /** The position slider (the run longer than one window) or the scrollbar (the run is one window). */
  via: 'slider' | 'scrollbar';
  /** The event index the slider was set to (round(fraction × (events − 1))); null with the scrollbar. */
  index: number | null;
  /** That event's line, from the API; null with the scrollbar. */
  expectedLine: number | null;
  /** Input → the first frame with the viewport filled and showing the expected line (or, not shown, filled at the new place). */
  filledMs: number | null;
  /** The expected line was among the rows shown; null with the scrollbar (no line expected). */
  expectedShown: boolean | null;
  firstLine: number | null;
  lastLine: number | null;
  lastType: string | null;
  frames: FrameStats;
  verdict: UiVerdict;
}

export interface ScrollReport {
  events: number;
  runViewOpenMs: number | null;
  scrollHeightPx: number;
  clientHeightPx: number;
  /** What the list's rows would need at the estimated 46 px each, for comparison with scrollHeight. */
  listHeightPx: number;
  steps: { count: number; fromLine: number | null; toLine: number | null; framesWithPlaceholders: number; filledAfterMs: number | null; frames: FrameStats };
  /** The position slider's range (its `max` + 1), null when the run fits one window and there is none. */
  sliderEvents: number | null;
  jumps: JumpScroll[];
  /**
   * With a slider: scrolling to the bottom with the scrollbar, BOTTOM_SCROLLS times after the steps,
   * and the last row each time — how far the window moves on per scroll (informative, no target).
   */
  bottomScrolls: { fromLine: number | null; scrolls: { lastLine: number | null; filledMs: number | null }[]; frames: FrameStats } | null;
  overall: FrameStats;
  /** The control: IDLE_CONTROL_FRAMES frame intervals of a blank page in the same browser, just before the scroll (what the clock reads of frames that are all on time). */
  idleControl: FrameStats;
  /**
   * The end of the list: the last row shown after the jump to 100 % — with the slider, that jump
   * alone; with the scrollbar, that and up to END_SLACK_SCROLLS more scrolls to the bottom (the list
   * growing as rows are measured).
   */
  end: {
    via: 'slider' | 'scrollbar';
    expectedLine: number;
    expectedType: string;
    lastShownLine: number | null;
    lastShownType: string | null;
    extraScrolls: number;
    reachable: boolean;
  };
  verdicts: { p95Frame: UiVerdict; longestTask: UiVerdict; rowsFilled: UiVerdict; endReachable: UiVerdict };
}

export interface CursorJump {
  what: string;
  /** The figure: the mark's time, or the DOM's when the mark came before the row was on screen (null: no mark came). */
  ms: number | null;
  source: MeasureSource;
  /** The `loopscope:cursor-shown` mark's time. */
  markMs: number | null;
  /** When the DOM showed the cursor's row on screen, timed at the frame that paints it (null: not within 3 s of the mark). */
  domMs: number | null;
  /** The mark came more than a frame before the cursor's row was on screen. */
  markBeforeRowShown: boolean;
  cursorLine: number | null;
  verdict: UiVerdict;
}

export interface JumpsReport {
  jumps: CursorJump[];
}

export interface UiBenchReport {
  title: string;
  browser: string;
  viewport: { width: number; height: number };
  syntheticTrace: { path: string; mb: number; reused: boolean };
  longRunTrace: {
    path: string;
    events: number;
    lines: number;
    mb: number;
    reused: boolean;
    /** Server start → the trace ready: its ingest, or with `cacheKept` possibly a reuse of the kept database. */
    ingestSeconds: number | null;
    /** The long run's database was kept between runs (`--long-run-cache`). */
    cacheKept: boolean;
  };
  progressive?: ProgressiveReport;
  reopen?: ReopenReport;
  search?: SearchReport;
  scroll?: ScrollReport;
  jumps?: JumpsReport;
  /**
   * The app's script as each page loaded it (out/renderer/assets/index-*.js) and when that file
   * was written: `npm run build` run by someone else meanwhile shows as more than one.
   */
  builds: { page: string; script: string; builtAt: string | null }[];
  /** The machine's 1-minute load average when the UI benchmark started and ended (2 cores: others' work shows). */
  loadAverage: { start: number; end: number | null };
  /** What the page reported as broken meanwhile (page errors). */
  pageProblems: string[];
  /** Measurements that could not be taken, and why. */
  errors: string[];
}

export interface UiBenchOptions {
  /** The large synthetic trace (bench.ts passes the one it already has). */
  syntheticTrace?: TraceInfo;
  size?: string;
  seed?: number;
  longRunEvents?: number;
  /** Measure only the runs table (first open and reopen) or only the long run; both when absent. */
  only?: 'runs' | 'long-run';
  /** Where the long run's database is kept between runs (made if absent, never removed); a fresh temporary directory when absent. */
  longRunCache?: string;
  log?: (message: string) => void;
}

// --- helpers ---------------------------------------------------------------------------------------

function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function percentile(values: readonly number[], fraction: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? null;
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function below(value: number | null, limit: number, unit: string, inclusive = false): UiVerdict {
  return {
    value: value === null ? null : round(value),
    unit,
    target: `${inclusive ? '≤' : '<'} ${limit.toLocaleString('en-US', { maximumFractionDigits: 1 })} ${unit}`,
    pass: value === null ? null : inclusive ? value <= limit : value < limit,
  };
}

function frameStats(intervals: readonly number[], longTasks: readonly number[]): FrameStats {
  const p50 = percentile(intervals, 0.5);
  const p95 = percentile(intervals, 0.95);
  const p95DisplayFrames = percentile(
    intervals.map((interval) => Math.max(1, Math.round(interval / FRAME_BUDGET_MS))),
    0.95,
  );
  return {
    frames: intervals.length,
    p50Ms: p50 === null ? null : round(p50),
    p95Ms: p95 === null ? null : round(p95),
    p95DisplayFrames,
    maxMs: intervals.length === 0 ? null : round(Math.max(...intervals)),
    longTasks: longTasks.length,
    longestTaskMs: longTasks.length === 0 ? null : round(Math.max(...longTasks)),
  };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

/** Page clock (ms since the epoch) minus Node's, from the tightest of a few round trips. */
async function clockOffset(page: Page): Promise<number> {
  let best = { roundTrip: Number.POSITIVE_INFINITY, offset: 0 };
  for (let attempt = 0; attempt < 7; attempt += 1) {
    const before = epochNow();
    const clock = (await page.evaluate('window.__bench.now()')) as { origin: number; now: number };
    const after = epochNow();
    if (after - before < best.roundTrip) best = { roundTrip: after - before, offset: clock.origin + clock.now - (before + after) / 2 };
  }
  return best.offset;
}

/** A page of the app with the probe installed, before any navigation. */
async function newProbedPage(browser: Browser, problems: string[]): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.addInitScript({ content: pageProbe });
  return { context, page };
}

/** Which build of the renderer the page runs: its module script's file name, and that file's modification time. */
async function recordBuild(page: Page, what: string, report: UiBenchReport): Promise<void> {
  const scripts = (await page.evaluate("Array.from(document.querySelectorAll('script[src]')).map((script) => script.getAttribute('src'))")) as string[];
  for (const script of scripts) {
    const name = script.split('/').pop() ?? script;
    const file = join(repoRoot, 'out', 'renderer', 'assets', name);
    const builtAt = existsSync(file) ? statSync(file).mtime.toISOString() : null;
    report.builds.push({ page: what, script: name, builtAt });
  }
}

/** Polls `listTraces` until the (only) trace is ready; returns the Node-clock time it was first seen ready. */
async function waitReady(server: ServedTrace, log: (message: string) => void, what: string): Promise<{ readyAt: number; trace: TraceProgress }> {
  let lastLogged = 0;
  const deadline = epochNow() + 30 * 60_000;
  for (;;) {
    if (epochNow() > deadline) throw new Error(`${what} not ready after 30 min`);
    const [trace] = await callApi<TraceProgress[]>(server.url, 'listTraces');
    if (!trace) throw new Error('the server lists no trace');
    if (trace.state === 'failed') throw new Error(`the ingest of ${what} failed: ${trace.error ?? 'no reason given'}`);
    if (trace.state === 'ready') return { readyAt: epochNow(), trace };
    if (epochNow() - lastLogged > 5000) {
      lastLogged = epochNow();
      const { bytesRead, totalBytes, events } = trace.progress;
      log(`  ${what}: ${Math.floor((100 * bytesRead) / Math.max(1, totalBytes))} % read, ${events.toLocaleString('en-US')} events`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface StateSample {
  /** ms after the server's spawn. */
  ms: number;
  state: string;
}

/** Samples the trace's state every 50 ms until stopped: when the server first said `ready`. */
function pollStates(server: ServedTrace): { stop: () => Promise<StateSample[]> } {
  const samples: StateSample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const [trace] = await callApi<TraceProgress[]>(server.url, 'listTraces');
        if (trace) samples.push({ ms: round(epochNow() - server.spawnedAt), state: trace.state });
      } catch {
        // The server is stopping.
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

function progressOf(answer: unknown): { bytesRead: number; totalBytes: number; events: number; state: string } | null {
  const traces = (answer as { traces?: TraceProgress[] } | null)?.traces;
  const trace = Array.isArray(traces) ? traces[0] : undefined;
  return trace ? { ...trace.progress, state: trace.state } : null;
}

// --- 1 and 2: the runs table, first open and reopen --------------------------------------------------

interface PageProgressive {
  firstRowsAt: number | null;
  firstRowsProgress: { sent: number; received: number; traces?: unknown } | null;
  mark: { time: number; runRows: number } | null;
  markProgress: { sent: number; received: number; traces?: unknown } | null;
}

/**
 * When the runs table was shown (page clock): the runs-shown mark's time, checked against the DOM —
 * "shown" is run rows on screen, so a mark that came more than a frame before the DOM painted run
 * rows does not count yet, the DOM's time does.
 */
function runsShownAt(markTime: number, domTime: number | null): { time: number; markBeforeRows: boolean } {
  const early = domTime !== null && domTime > markTime + FRAME_BUDGET_MS;
  return { time: early ? domTime : markTime, markBeforeRows: early };
}

/** How a runs-shown time was taken, for the report. */
function runsShownNote(markBeforeRows: boolean, markMs: number, domMs: number | null): string {
  if (!markBeforeRows) return '';
  return ` [the runs-shown mark came at ${fmt(markMs)} ms, before any run row was painted (DOM, ${fmt(domMs)} ms): the DOM's time counts]`;
}

async function measureFirstOpen(browser: Browser, trace: TraceInfo, cacheDir: string, report: UiBenchReport, log: (message: string) => void): Promise<void> {
  const { context, page } = await newProbedPage(browser, report.pageProblems);
  let server: ServedTrace | undefined;
  try {
    log(`first open (empty cache): ${displayPath(trace.path)}…`);
    server = await serveTrace(trace.path, cacheDir);
    await page.goto(server.url);
    if (!(await page.evaluate(`window.__bench.waitProgressive(${30 * 60_000})`))) throw new Error('first open: no runs shown within 30 min');
    await recordBuild(page, 'first open', report);
    const offset = await clockOffset(page);
    const seen = (await page.evaluate('window.__bench.progressive')) as PageProgressive;
    const origin = ((await page.evaluate('window.__bench.now()')) as { origin: number }).origin;
    const mark = seen.mark;
    if (mark === null) throw new Error('first open: the runs were shown without a loopscope:runs-shown mark');
    const { time: shownAt, markBeforeRows } = runsShownAt(mark.time, seen.firstRowsAt);
    // The ingest's progress asked right after the time that counts.
    const answer = markBeforeRows ? seen.firstRowsProgress : seen.markProgress;
    const progress = progressOf(answer);
    const fromServerStart = (pageTime: number) => origin + pageTime - offset - server!.spawnedAt;
    const serverStartToRunsShownMs = fromServerStart(shownAt);
    log('  rows shown; waiting for the ingest to end…');
    const { readyAt } = await waitReady(server, log, 'synthetic trace');
    const fraction = progress && progress.totalBytes > 0 ? progress.bytesRead / progress.totalBytes : null;
    report.progressive = {
      trace: displayPath(trace.path),
      traceMb: round(trace.stats.bytes / MB),
      serverStartToUrlMs: round(server.urlAt - server.spawnedAt),
      serverStartToRunsShownMs: round(serverStartToRunsShownMs),
      rowsShown: mark.runRows,
      serverStartToMarkMs: round(fromServerStart(mark.time)),
      serverStartToDomRowsMs: seen.firstRowsAt === null ? null : round(fromServerStart(seen.firstRowsAt)),
      markBeforeRows,
      progressAtRunsShown: progress && answer ? { ...progress, askedAfterMs: round(answer.sent - shownAt) } : null,
      serverStartToReadyMs: round(readyAt - server.spawnedAt),
      verdict: {
        value: fraction === null ? null : round(fraction * 100),
        unit: '%',
        target: '< 100 % (ingest still running)',
        pass: progress === null ? null : progress.state === 'ingesting' && fraction !== null && fraction < 1,
      },
    };
  } finally {
    await context.close();
    await server?.stop();
  }
}

async function measureReopen(browser: Browser, trace: TraceInfo, cacheDir: string, report: UiBenchReport, log: (message: string) => void): Promise<void> {
  const { context, page } = await newProbedPage(browser, report.pageProblems);
  let server: ServedTrace | undefined;
  try {
    log('reopen (same cache)…');
    server = await serveTrace(trace.path, cacheDir);
    const poller = pollStates(server);
    const gotoAt = epochNow();
    await page.goto(server.url);
    const shown = (await page.evaluate(`window.__bench.waitRunsShown(${WAIT_MS * 3})`)) as { time: number; runRows: number; domTime: number | null } | null;
    if (shown === null) throw new Error(`reopen: no runs shown within ${(WAIT_MS * 3) / 1000} s`);
    await recordBuild(page, 'reopen', report);
    const offset = await clockOffset(page);
    const origin = ((await page.evaluate('window.__bench.now()')) as { origin: number }).origin;
    const { time: shownTime, markBeforeRows } = runsShownAt(shown.time, shown.domTime);
    const shownAt = origin + shownTime - offset;
    const states = await poller.stop();
    const firstReady = states.findIndex((sample) => sample.state === 'ready');
    const [summary] = await callApi<TraceProgress[]>(server.url, 'listTraces');
    const total = shownAt - server.spawnedAt;
    const load = (await page.evaluate('window.__bench.loadBreakdown()')) as {
      domContentLoaded: number | null;
      calls: { method: string; start: number; end: number }[];
    };
    const marks = (await page.evaluate("window.__bench.marks.filter((mark) => mark.name === 'loopscope:runs-shown')")) as { time: number; runRows: number }[];
    report.reopen = {
      serverStartToUrlMs: round(server.urlAt - server.spawnedAt),
      pageLoadToRunsShownMs: round(shownAt - gotoAt),
      serverStartToRunsShownMs: round(total),
      serverStartToMarkMs: round(origin + shown.time - offset - server.spawnedAt),
      markBeforeRows,
      reused: summary?.reused ?? null,
      breakdown: {
        domContentLoadedMs: load.domContentLoaded === null ? null : round(load.domContentLoaded),
        calls: load.calls
          .filter((call) => call.start <= shownTime)
          .map((call) => ({ method: call.method, startMs: round(call.start), endMs: round(call.end) })),
      },
      marks: marks.map((mark) => ({ ms: round(mark.time), runRows: mark.runRows })),
      domRowsMs: shown.domTime === null ? null : round(shown.domTime),
      firstReadyMs: firstReady === -1 ? null : states[firstReady]!.ms,
      notReadyAnswers: firstReady === -1 ? states.length : firstReady,
      verdict: below(total, REOPEN_TARGET_MS, 'ms'),
    };
  } finally {
    await context.close();
    await server?.stop();
  }
}

// --- 3 and 4: the long run -----------------------------------------------------------------------------

interface RunsPage {
  total: number;
  rows: { runPk: number; runId: string; steps: number; lastLine: number }[];
}
interface EventsPage {
  total: number;
  rows: { eventId: number; line: number; type: string; step: number | null }[];
}
/** A step and its first event: where `/step/<n>` puts the cursor. */
interface StepTarget {
  step: number;
  eventId: number;
}
/** Steps to jump to, read from the run's events (the run API does not list a run's steps). */
interface StepTargets {
  first: StepTarget;
  middle: StepTarget;
  /** The steps after `middle`, in order: where `j` goes. */
  afterMiddle: StepTarget[];
  last: StepTarget;
}
interface MeasuredInPage {
  ms: number | null;
  source: MeasureSource;
  domMs: number | null;
  cursor?: { line: number; type: string; step: number | null; eventId: number } | null;
  hits?: number;
}

async function measureSearch(page: Page, traceId: string, report: UiBenchReport, log: (message: string) => void, traceName: string): Promise<void> {
  log(`search "${RARE_WORD}"…`);
  const api = (await page.evaluate(`window.__bench.searchApi(${JSON.stringify(traceId)}, ${JSON.stringify(RARE_WORD)}, ${REPETITIONS})`)) as {
    times: number[];
    total: number | null;
  };
  const ui: MeasuredInPage[] = [];
  const runsHash = formatRoute(routes.trace(traceId, 'runs'));
  for (let index = 0; index < REPETITIONS; index += 1) {
    // From the runs tab each time, so the search view mounts and asks the API again.
    await page.evaluate(`location.hash = ${JSON.stringify(runsHash)}`);
    await page.locator('[data-testid=runs-view]').waitFor({ timeout: WAIT_MS });
    await page.fill('[data-testid=search-input]', RARE_WORD);
    ui.push((await page.evaluate(`window.__bench.submitSearch(${JSON.stringify(RARE_WORD)}, ${WAIT_MS})`)) as MeasuredInPage);
  }
  const uiTimes = ui.flatMap((measured) => (measured.ms === null ? [] : [measured.ms]));
  const apiMedian = median(api.times);
  const uiMedian = ui.some((measured) => measured.ms === null) ? null : median(uiTimes);
  report.search = {
    trace: traceName,
    term: RARE_WORD,
    hits: api.total,
    api: { samples: api.times.map((time) => round(time)), medianMs: apiMedian === null ? null : round(apiMedian) },
    ui: { samples: uiTimes.map((time) => round(time)), medianMs: uiMedian === null ? null : round(uiMedian), sources: ui.map((measured) => measured.source) },
    verdicts: { api: below(apiMedian, SEARCH_TARGET_MS, 'ms'), ui: below(uiMedian, SEARCH_TARGET_MS, 'ms') },
  };
}

interface PhaseFrames {
  intervals: number[];
  longTasks: number[];
}
interface RowFacts {
  line: number;
  type: string;
}
interface ScrollGeometry {
  scrollHeight: number;
  clientHeight: number;
  bodyStyleHeight: string | null;
  rowsInDom: number;
}
interface StepsResult extends PhaseFrames {
  count: number;
  framesWithPlaceholders: number;
  fromLine: number | null;
  toLine: number | null;
  filledAfterMs: number | null;
  scrollTop: number;
}
interface JumpResult extends PhaseFrames {
  /** The jump's input came (the slider's input event). */
  began: boolean;
  filledMs: number | null;
  expectedShown: boolean | null;
  firstRow: RowFacts | null;
  lastRow: RowFacts | null;
  atBottom: boolean;
}
const IDLE_CONTROL_FRAMES = 300;

/** The frame intervals of a blank page, in a page of its own beside `page` (see P95_FRAME_TARGET_MS). */
async function idleFrameIntervals(page: Page): Promise<FrameStats> {
  const blank = await page.context().newPage();
  try {
    await blank.setContent('<!doctype html><title>idle control</title>');
    const stamps = (await blank.evaluate(
      `new Promise((resolve) => { const stamps = []; const frame = (at) => { stamps.push(at); if (stamps.length <= ${IDLE_CONTROL_FRAMES}) requestAnimationFrame(frame); else resolve(stamps); }; requestAnimationFrame(frame); })`,
    )) as number[];
    return frameStats(
      stamps.slice(1).map((at, index) => at - stamps[index]!),
      [],
    );
  } finally {
    await blank.close();
  }
}

interface BottomScrollsResult extends PhaseFrames {
  fromLine: number | null;
  scrolls: { filledMs: number | null; lastRow: RowFacts | null; atBottom: boolean; scrollHeight: number }[];
}

async function measureScroll(
  page: Page,
  traceId: string,
  runPk: number,
  events: number,
  lastEvent: RowFacts,
  lineAt: (index: number) => Promise<number>,
  report: UiBenchReport,
  log: (message: string) => void,
): Promise<void> {
  log('run view: scrolling the timeline…');
  const runViewOpenMs = (await page.evaluate(`window.__bench.openRun(${JSON.stringify(formatRoute(routes.run(traceId, runPk)))}, ${WAIT_MS * 3})`)) as
    number | null;
  if (runViewOpenMs === null) throw new Error('the run view did not show its timeline within a minute');
  const slider = page.locator('[data-testid=timeline-position]');
  const sliderMax = (await slider.count()) > 0 ? await slider.getAttribute('max') : null;
  const sliderEvents = sliderMax === null ? null : Number(sliderMax) + 1;
  if (sliderEvents !== null && sliderEvents !== events) report.pageProblems.push(`the position slider spans ${sliderEvents} events, the run has ${events}`);

  const idleControl = await idleFrameIntervals(page);
  const geometry = (await page.evaluate(`window.__bench.scrollStart(${WAIT_MS})`)) as ScrollGeometry;
  const steps = (await page.evaluate(`window.__bench.scrollSteps(${JSON.stringify({ steps: SCROLL_STEPS, timeoutMs: WAIT_MS })})`)) as StepsResult;
  const bottom =
    sliderEvents === null
      ? null
      : ((await page.evaluate(`window.__bench.scrollToBottom(${JSON.stringify({ times: BOTTOM_SCROLLS, timeoutMs: WAIT_MS })})`)) as BottomScrollsResult);

  const jumps: JumpScroll[] = [];
  let endResult: { lastRow: RowFacts | null; extraScrolls: number } | null = null;
  for (const fraction of JUMP_FRACTIONS) {
    let result: JumpResult;
    let index: number | null = null;
    let expectedLine: number | null = null;
    if (sliderEvents !== null) {
      index = Math.round(fraction * (events - 1));
      expectedLine = await lineAt(index);
      await page.evaluate(`window.__bench.armSliderJump(${JSON.stringify({ expectLine: expectedLine, timeoutMs: WAIT_MS, settleMs: SLIDER_SETTLE_MS })})`);
      await slider.fill(String(index));
      result = (await page.evaluate('window.__bench.jumpResult()')) as JumpResult;
      if (!result.began) throw new Error(`the position slider set to ${index} dispatched no input event`);
    } else {
      result = (await page.evaluate(`window.__bench.scrollbarJump(${JSON.stringify({ fraction, timeoutMs: WAIT_MS })})`)) as JumpResult;
    }
    const fill = result.filledMs === null ? null : round(result.filledMs);
    const verdict = below(fill, FILL_TARGET_MS, 'ms');
    if (expectedLine !== null) {
      // With the slider, the line jumped to must be among the rows shown too.
      verdict.target = `${verdict.target}, line shown`;
      if (result.expectedShown === false) verdict.pass = false;
    }
    jumps.push({
      fraction,
      via: sliderEvents === null ? 'scrollbar' : 'slider',
      index,
      expectedLine,
      filledMs: fill,
      expectedShown: result.expectedShown,
      firstLine: result.firstRow?.line ?? null,
      lastLine: result.lastRow?.line ?? null,
      lastType: result.lastRow?.type ?? null,
      frames: frameStats(result.intervals, result.longTasks),
      verdict,
    });
    if (fraction === 1) {
      endResult = { lastRow: result.lastRow, extraScrolls: 0 };
      if (sliderEvents === null) {
        // The scrollbar's 100 %: the list can grow under it as the rows there are measured.
        const more = (await page.evaluate(
          `window.__bench.scrollEnd(${JSON.stringify({ lastLine: lastEvent.line, maxScrolls: END_SLACK_SCROLLS, timeoutMs: WAIT_MS })})`,
        )) as { attempts: number; lastRow: RowFacts | null };
        endResult = { lastRow: more.lastRow, extraScrolls: more.attempts };
      }
    }
    await page.waitForTimeout(400);
  }
  const all = (await page.evaluate('window.__bench.scrollStop()')) as { allIntervals: number[]; allLongTasks: number[] };

  const overall = frameStats(all.allIntervals, all.allLongTasks);
  const fills = jumps.map((jump) => jump.filledMs);
  const worstFill = fills.some((fill) => fill === null) ? null : Math.max(...(fills as number[]));
  const lastShown = endResult?.lastRow ?? null;
  const reachable = lastShown !== null && lastShown.line === lastEvent.line && lastShown.type === lastEvent.type;
  const via = sliderEvents === null ? 'scrollbar' : 'slider';
  report.scroll = {
    events,
    runViewOpenMs: round(runViewOpenMs),
    scrollHeightPx: geometry.scrollHeight,
    clientHeightPx: geometry.clientHeight,
    listHeightPx: events * 46,
    steps: {
      count: steps.count,
      fromLine: steps.fromLine,
      toLine: steps.toLine,
      framesWithPlaceholders: steps.framesWithPlaceholders,
      filledAfterMs: steps.filledAfterMs === null ? null : round(steps.filledAfterMs),
      frames: frameStats(steps.intervals, steps.longTasks),
    },
    sliderEvents,
    jumps,
    bottomScrolls:
      bottom === null
        ? null
        : {
            fromLine: bottom.fromLine,
            scrolls: bottom.scrolls.map((scroll) => ({
              lastLine: scroll.lastRow?.line ?? null,
              filledMs: scroll.filledMs === null ? null : round(scroll.filledMs),
            })),
            frames: frameStats(bottom.intervals, bottom.longTasks),
          },
    overall,
    idleControl,
    end: {
      via,
      expectedLine: lastEvent.line,
      expectedType: lastEvent.type,
      lastShownLine: lastShown?.line ?? null,
      lastShownType: lastShown?.type ?? null,
      extraScrolls: endResult?.extraScrolls ?? 0,
      reachable,
    },
    verdicts: {
      p95Frame: {
        value: overall.p95Ms,
        unit: 'ms',
        target: `≤ ${P95_FRAME_TARGET_MS} ms: one 60 Hz frame`,
        pass: overall.p95DisplayFrames === null ? null : overall.p95DisplayFrames <= 1,
      },
      longestTask: { value: overall.longestTaskMs ?? 0, unit: 'ms', target: `no long task > ${LONG_TASK_MS} ms`, pass: overall.longTasks === 0 },
      rowsFilled: below(worstFill, FILL_TARGET_MS, 'ms'),
      endReachable: {
        value: lastShown?.line ?? null,
        unit: 'line',
        target: `line ${lastEvent.line.toLocaleString('en-US')} (${lastEvent.type}) shown`,
        pass: endResult === null ? null : reachable,
      },
    },
  };
}

async function measureJumps(
  page: Page,
  traceId: string,
  runPk: number,
  steps: StepTargets,
  eventTarget: { eventId: number; line: number },
  report: UiBenchReport,
  log: (message: string) => void,
): Promise<void> {
  log('run view: jumps to steps, to an event, and j…');
  const jumps: CursorJump[] = [];
  const record = (what: string, measured: MeasuredInPage): void => {
    // "Shown" is the row on screen: a mark that came before the DOM had the row in view does not count yet.
    const early = measured.source === 'mark' && measured.ms !== null && measured.domMs !== null && measured.domMs > measured.ms + FRAME_BUDGET_MS;
    const ms = early ? measured.domMs : measured.ms;
    jumps.push({
      what,
      ms: ms === null ? null : round(ms),
      source: measured.source,
      markMs: measured.source === 'mark' && measured.ms !== null ? round(measured.ms) : null,
      domMs: measured.domMs === null ? null : round(measured.domMs),
      markBeforeRowShown: early,
      cursorLine: measured.cursor?.line ?? null,
      verdict: below(ms, CURSOR_TARGET_MS, 'ms'),
    });
  };
  const { first, middle, last } = steps;
  // The keys go to the page, not to the search box the search measurements left focused.
  await page.evaluate('document.activeElement && document.activeElement.blur && document.activeElement.blur()');
  const jump = async (what: string, where: { step?: number; eventId?: number }, expect: { step?: number; eventId?: number }) => {
    const hash = formatRoute(routes.run(traceId, runPk, where));
    record(what, (await page.evaluate(`window.__bench.jump(${JSON.stringify(hash)}, ${JSON.stringify(expect)}, ${WAIT_MS})`)) as MeasuredInPage);
    await page.waitForTimeout(300);
  };
  await jump(`/step/${first.step} (first)`, { step: first.step }, first);
  await jump(`/step/${last.step} (last)`, { step: last.step }, last);
  await jump(`/step/${middle.step} (middle)`, { step: middle.step }, middle);
  // j from the middle step's cursor (inspector closed): the next step each time.
  for (const expect of steps.afterMiddle.slice(0, 3)) {
    await page.evaluate(`window.__bench.armKey(${JSON.stringify(expect)}, ${WAIT_MS})`);
    await page.keyboard.press('j');
    record(`j → step ${expect.step}`, (await page.evaluate('window.__bench.keyResult()')) as MeasuredInPage);
    await page.waitForTimeout(300);
  }
  await jump(`/event/${eventTarget.eventId} (line ${eventTarget.line})`, { eventId: eventTarget.eventId }, { eventId: eventTarget.eventId });
  report.jumps = { jumps };
}

async function measureLongRun(
  browser: Browser,
  trace: LongRunTraceInfo,
  cacheDir: string,
  report: UiBenchReport,
  log: (message: string) => void,
): Promise<void> {
  let server: ServedTrace | undefined;
  let context: BrowserContext | undefined;
  try {
    log(`long run: opening ${displayPath(trace.path)}…`);
    server = await serveTrace(trace.path, cacheDir);
    const { readyAt, trace: summary } = await waitReady(server, log, 'long-run trace');
    report.longRunTrace.ingestSeconds = round((readyAt - server.spawnedAt) / 1000, 1);
    const traceId = summary.traceId;
    const runs = await callApi<RunsPage>(server.url, 'runs', { traceId, offset: 0, limit: 10 });
    const run = runs.rows[0];
    if (!run) throw new Error('the long-run trace has no run');
    const eventsAt = (offset: number, limit: number) =>
      callApi<EventsPage>(server!.url, 'runEvents', { traceId, runPk: run.runPk, offset: Math.max(0, offset), limit });
    const head = await eventsAt(0, 50);
    const total = head.total;
    const tail = await eventsAt(total - 50, 50);
    const middlePage = await eventsAt(Math.floor(total / 2), 100);
    const lastEvent = tail.rows.at(-1);
    if (!lastEvent) throw new Error('the run has no last event');
    /** The line of the run's event at an index (where the position slider set to that index should go). */
    const lineAt = async (index: number): Promise<number> => {
      const event = (await eventsAt(index, 1)).rows[0];
      if (!event) throw new Error(`the run has no event at index ${index}`);
      return event.line;
    };
    /** The steps that start inside a page of events (the first row starts one only at the run's start), with their first event. */
    const stepsStarting = (page: EventsPage, fromRunStart: boolean): StepTarget[] =>
      page.rows.flatMap((event, index) => {
        if (event.step === null) return [];
        const previous = page.rows[index - 1];
        const starts = previous === undefined ? fromRunStart : previous.step !== event.step;
        return starts ? [{ step: event.step, eventId: event.eventId }] : [];
      });
    const middleSteps = stepsStarting(middlePage, false);
    const first = stepsStarting(head, true)[0];
    const last = stepsStarting(tail, false).at(-1);
    if (first === undefined || last === undefined || middleSteps.length < 4) throw new Error("could not find the run's steps from its events");
    const steps: StepTargets = { first, last, middle: middleSteps[0]!, afterMiddle: middleSteps.slice(1) };
    // An event two thirds into the run, away from the steps jumped to.
    const eventTarget = (await eventsAt(Math.floor((total * 2) / 3), 1)).rows[0];
    if (!eventTarget) throw new Error('no event two thirds into the run');

    const probed = await newProbedPage(browser, report.pageProblems);
    context = probed.context;
    const { page } = probed;
    await page.goto(server.url);
    if ((await page.evaluate(`window.__bench.waitRunsShown(${WAIT_MS * 3})`)) === null) throw new Error('the long-run trace showed no runs');
    await recordBuild(page, 'long run', report);
    const sections: [string, () => Promise<void>][] = [
      ['search', () => measureSearch(page, traceId, report, log, displayPath(trace.path))],
      ['scrolling', () => measureScroll(page, traceId, run.runPk, total, lastEvent, lineAt, report, log)],
      ['jumps', () => measureJumps(page, traceId, run.runPk, steps, eventTarget, report, log)],
    ];
    for (const [name, section] of sections) {
      try {
        await section();
      } catch (error) {
        report.errors.push(`${name}: ${message(error)}`);
        log(`  ${name} failed: ${message(error)}`);
      }
    }
  } finally {
    await context?.close();
    await server?.stop();
  }
}

// --- the benchmark ---------------------------------------------------------------------------------

export async function runUiBench(options: UiBenchOptions = {}): Promise<UiBenchReport> {
  const log = options.log ?? ((text: string) => process.stderr.write(`[bench-ui] ${text}\n`));
  const seed = options.seed ?? 1;
  const synthetic = options.syntheticTrace ?? ensureTrace('synthetic', parseSize(options.size ?? '200MB'), seed, false, log);
  const longRun = ensureLongRunTrace(options.longRunEvents ?? 1_000_000, 1, false, log);
  const browser = await launchBrowser();
  const report: UiBenchReport = {
    title: 'UI (Chromium, playwright-core)',
    browser: `Chromium ${browser.version()} (headless, software rendering)`,
    viewport: VIEWPORT,
    syntheticTrace: { path: displayPath(synthetic.path), mb: round(synthetic.stats.bytes / MB), reused: synthetic.reused },
    longRunTrace: {
      path: displayPath(longRun.path),
      events: longRun.stats.events,
      lines: longRun.stats.lines,
      mb: round(longRun.stats.bytes / MB),
      reused: longRun.reused,
      ingestSeconds: null,
      cacheKept: options.longRunCache !== undefined,
    },
    builds: [],
    loadAverage: { start: round(loadavg()[0] ?? 0, 2), end: null },
    pageProblems: [],
    errors: [],
  };
  const syntheticCache = mkdtempSync(join(tmpdir(), 'loopscope-bench-ui-'));
  const longRunCache = options.longRunCache ?? mkdtempSync(join(tmpdir(), 'loopscope-bench-ui-long-'));
  try {
    if (options.only !== 'long-run') {
      try {
        await measureFirstOpen(browser, synthetic, syntheticCache, report, log);
        await measureReopen(browser, synthetic, syntheticCache, report, log);
      } catch (error) {
        report.errors.push(`runs table: ${message(error)}`);
        log(`  runs table failed: ${message(error)}`);
      }
      rmSync(syntheticCache, { recursive: true, force: true });
    }
    if (options.only !== 'runs') {
      try {
        await measureLongRun(browser, longRun, longRunCache, report, log);
      } catch (error) {
        report.errors.push(`long run: ${message(error)}`);
        log(`  long run failed: ${message(error)}`);
      }
    }
  } finally {
    report.loadAverage.end = round(loadavg()[0] ?? 0, 2);
    await browser.close();
    rmSync(syntheticCache, { recursive: true, force: true });
    if (options.longRunCache === undefined) rmSync(longRunCache, { recursive: true, force: true });
  }
  return report;
}

// --- the text report -------------------------------------------------------------------------------

function fmt(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function status(verdict: UiVerdict): string {
  return verdict.pass === null ? 'NOT MEASURED' : verdict.pass ? 'PASS' : 'MISS';
}

const sourceNote: Record<MeasureSource, string> = { mark: '', timeout: ' [timed out]' };

function sourcesNote(sources: readonly MeasureSource[]): string {
  return sources.includes('timeout') ? sourceNote.timeout : '';
}

function line(label: string, value: string, verdict?: UiVerdict, note = ''): string {
  const head = `  ${label.padEnd(46)} ${value.padStart(12)}`;
  return verdict ? `${head}   target ${verdict.target.padEnd(30)} ${status(verdict)}${note}` : `${head}${note}`;
}

function frames(stats: FrameStats): string {
  return `frames p50 ${fmt(stats.p50Ms, 1)} / p95 ${fmt(stats.p95Ms, 1)} / max ${fmt(stats.maxMs, 1)} ms over ${stats.frames}; ${stats.longTasks} long task(s)${stats.longestTaskMs === null ? '' : `, longest ${fmt(stats.longestTaskMs)} ms`}`;
}

/** Where the whole scroll's long tasks fell: in which measured phase, or between them (the pauses after the jumps). */
function longTaskPlaces(scroll: ScrollReport): string {
  const steps = scroll.steps.frames.longTasks;
  const jumps = scroll.jumps.reduce((sum, jump) => sum + jump.frames.longTasks, 0);
  const bottom = scroll.bottomScrolls?.frames.longTasks ?? 0;
  const between = scroll.overall.longTasks - steps - jumps - bottom;
  return `${steps} in the steps, ${jumps} in the jumps${scroll.bottomScrolls ? `, ${bottom} in the scrolls to the bottom` : ''}, ${between} between them`;
}

function describeBuilds(builds: UiBenchReport['builds']): string {
  // Vite names the bundle by its content's hash: the same name is the same code, whenever written.
  const scripts = [...new Set(builds.map((build) => build.script))];
  const writes = [...new Set(builds.map((build) => build.builtAt ?? 'gone'))];
  if (scripts.length === 0) return 'n/a';
  const rebuilt =
    writes.length > 1
      ? ` (rebuilt during the run with the same content: ${writes.map((write) => write.slice(11, 19)).join(', ')} UTC)`
      : ` (written ${writes[0]?.slice(11, 19)} UTC)`;
  if (scripts.length === 1) return `out/renderer/assets/${scripts[0]}${rebuilt}`;
  return `CHANGED DURING THE RUN (rebuilt with other code meanwhile): ${builds.map((build) => `${build.page}: ${build.script}`).join('; ')}`;
}

export function formatUiReport(report: UiBenchReport): string {
  const out: string[] = [
    report.title,
    `browser  ${report.browser}, viewport ${report.viewport.width}×${report.viewport.height}`,
    `build    ${describeBuilds(report.builds)}`,
    `load     1-min load average ${fmt(report.loadAverage.start, 2)} at the start, ${fmt(report.loadAverage.end, 2)} at the end (${cpus().length} cores)`,
    `traces   ${report.syntheticTrace.path} (${fmt(report.syntheticTrace.mb, 1)} MB); ${report.longRunTrace.path} (${fmt(report.longRunTrace.events)} events in one run, ${fmt(report.longRunTrace.mb, 1)} MB${report.longRunTrace.ingestSeconds === null ? '' : `, ${report.longRunTrace.cacheKept ? 'opened with the kept cache' : 'ingested'} in ${fmt(report.longRunTrace.ingestSeconds, 1)} s`})`,
    '',
  ];
  const p = report.progressive;
  if (p) {
    const progress = p.progressAtRunsShown;
    out.push(
      `Progressive runs table: ${p.trace}, empty cache`,
      line('server start → URL printed', `${fmt(p.serverStartToUrlMs)} ms`),
      line(
        'server start → first run rows shown',
        `${fmt(p.serverStartToRunsShownMs)} ms`,
        undefined,
        `   (${p.rowsShown} rows on screen at the mark; run rows painted (DOM) at ${fmt(p.serverStartToDomRowsMs)} ms)${runsShownNote(p.markBeforeRows, p.serverStartToMarkMs, p.serverStartToDomRowsMs)}`,
      ),
      line(
        'ingest progress when rows shown',
        progress ? `${fmt(p.verdict.value, 1)} %` : 'n/a',
        p.verdict,
        progress
          ? `   (${fmt(progress.bytesRead / MB, 1)} of ${fmt(progress.totalBytes / MB, 1)} MB, ${fmt(progress.events)} events, state ${progress.state}; asked ${fmt(progress.askedAfterMs)} ms after)`
          : '',
      ),
      line('server start → trace ready', `${fmt(p.serverStartToReadyMs === null ? null : p.serverStartToReadyMs / 1000, 2)} s`),
      '',
    );
  }
  const r = report.reopen;
  if (r) {
    out.push(
      `Reopen: same file, same cache${r.reused === null ? '' : r.reused ? ' (database reused)' : ' (database NOT reused: ingested again)'}`,
      line(
        'server start → runs shown',
        `${fmt(r.serverStartToRunsShownMs)} ms`,
        r.verdict,
        runsShownNote(r.markBeforeRows, r.serverStartToMarkMs, r.serverStartToRunsShownMs),
      ),
      line('  server start → URL printed', `${fmt(r.serverStartToUrlMs)} ms`),
      line('  page load → runs shown', `${fmt(r.pageLoadToRunsShownMs)} ms`),
      line(
        '  server start → API says the trace is ready',
        r.firstReadyMs === null ? 'n/a' : `${fmt(r.firstReadyMs)} ms`,
        undefined,
        `   (${r.notReadyAnswers} listTraces answer(s) said "ingesting" before, polled every 50 ms from the URL on)`,
      ),
      `    in the page (ms from navigation start): HTML + scripts ${fmt(r.breakdown.domContentLoadedMs)}; ${r.breakdown.calls.map((call) => `${call.method} ${fmt(call.startMs)}–${fmt(call.endMs)}`).join(', ')}${
        r.marks.length > 0 ? `; runs-shown mark(s) at ${r.marks.map((mark) => `${fmt(mark.ms)} (${mark.runRows} rows)`).join(', ')}` : '; no runs-shown mark'
      }; run rows first painted (DOM) at ${fmt(r.domRowsMs)}`,
      '',
    );
  }
  const s = report.search;
  if (s) {
    out.push(
      `Search (FTS5): "${s.term}" in ${s.trace}, ${s.hits === null ? '?' : fmt(s.hits)} hit(s), ${REPETITIONS} runs each`,
      line(
        'API search, in page (fetch), median',
        `${fmt(s.api.medianMs, 1)} ms`,
        s.verdicts.api,
        `   (${s.api.samples.map((time) => fmt(time, 1)).join(', ')})`,
      ),
      line(
        'UI submit → results shown, median',
        `${fmt(s.ui.medianMs, 1)} ms`,
        s.verdicts.ui,
        `   (${s.ui.samples.map((time) => fmt(time, 1)).join(', ')})${sourcesNote(s.ui.sources ?? [])}`,
      ),
      '',
    );
  }
  const c = report.scroll;
  if (c) {
    out.push(
      `Scrolling the ${fmt(c.events)}-event run's timeline (scrollHeight ${fmt(c.scrollHeightPx)} px for ~${fmt(c.listHeightPx)} px of rows; ${
        c.sliderEvents === null
          ? 'no position slider: the scrollbar spans the run'
          : `the scrollbar spans a window of it, the position slider ${fmt(c.sliderEvents)} events`
      }; run view opened in ${fmt(c.runViewOpenMs)} ms)`,
      line(
        `${c.steps.count} steps of one viewport, one per frame`,
        `p95 ${fmt(c.steps.frames.p95Ms, 1)} ms`,
        undefined,
        `   (${frames(c.steps.frames)}; lines ${fmt(c.steps.fromLine)} → ${fmt(c.steps.toLine)}, placeholders visible in ${c.steps.framesWithPlaceholders} of ${c.steps.count} frames, filled ${fmt(c.steps.filledAfterMs)} ms after the last step)`,
      ),
    );
    for (const jump of c.jumps) {
      if (jump.via === 'slider') {
        const shown = jump.expectedShown ? `line ${fmt(jump.expectedLine)} shown` : `line ${fmt(jump.expectedLine)} NOT shown`;
        out.push(
          line(
            `position slider to ${fmt(jump.fraction * 100)} % → rows filled`,
            `${fmt(jump.filledMs)} ms`,
            jump.verdict,
            `   (value ${fmt(jump.index)}: lines ${fmt(jump.firstLine)}–${fmt(jump.lastLine)}, ${shown}${jump.expectedShown ? '' : ` within ${fmt(SLIDER_SETTLE_MS)} ms of the rows filled`}; ${frames(jump.frames)})`,
          ),
        );
      } else {
        out.push(
          line(
            `scrollbar to ${fmt(jump.fraction * 100)} % → rows filled`,
            `${fmt(jump.filledMs)} ms`,
            jump.verdict,
            `   (lines ${fmt(jump.firstLine)}–${fmt(jump.lastLine)}; ${frames(jump.frames)})`,
          ),
        );
      }
    }
    out.push(
      line(
        'frame interval p95, whole scroll',
        `${fmt(c.overall.p95Ms, 1)} ms`,
        c.verdicts.p95Frame,
        `   (${fmt(c.overall.p95DisplayFrames)} display frame(s); p50 ${fmt(c.overall.p50Ms, 1)}, max ${fmt(c.overall.maxMs, 1)} ms over ${c.overall.frames} frames; a blank page beside it, the control: p95 ${fmt(c.idleControl.p95Ms, 1)} ms, max ${fmt(c.idleControl.maxMs, 1)} ms over ${c.idleControl.frames} frames)`,
      ),
      line(
        'long tasks, whole scroll',
        `${c.overall.longTasks}${c.overall.longestTaskMs === null ? '' : `, ≤ ${fmt(c.overall.longestTaskMs, 1)} ms`}`,
        c.verdicts.longestTask,
        c.overall.longTasks === 0 ? '' : `   (${longTaskPlaces(c)})`,
      ),
      line('slowest fill after a jump', `${fmt(c.verdicts.rowsFilled.value)} ms`, c.verdicts.rowsFilled),
      line(
        c.end.via === 'slider' ? 'end of the list: position slider to 100 %' : 'end of the list: scrollbar to 100 %',
        c.end.lastShownLine === null ? 'n/a' : `line ${fmt(c.end.lastShownLine)}`,
        c.verdicts.endReachable,
        `   (last row shown: line ${fmt(c.end.lastShownLine)}, ${c.end.lastShownType ?? '—'}${c.end.via === 'scrollbar' ? `; after ${c.end.extraScrolls} more scroll(s) to the bottom` : ''})`,
      ),
    );
    if (c.bottomScrolls) {
      const lines = [c.bottomScrolls.fromLine, ...c.bottomScrolls.scrolls.map((scroll) => scroll.lastLine)];
      const moves = c.bottomScrolls.scrolls.slice(1).flatMap((scroll, index) => {
        const previous = c.bottomScrolls!.scrolls[index]!.lastLine;
        return scroll.lastLine === null || previous === null ? [] : [scroll.lastLine - previous];
      });
      out.push(
        `  informative (no target): scrolling to the bottom with the scrollbar ${c.bottomScrolls.scrolls.length} times after the steps: last row line ${lines.map((value) => fmt(value)).join(' → ')}` +
          (moves.length > 0 ? `; the window moves on by ${moves.map((move) => fmt(move)).join(', ')} rows each time` : '') +
          ` (filled in ${c.bottomScrolls.scrolls.map((scroll) => fmt(scroll.filledMs)).join(', ')} ms; ${frames(c.bottomScrolls.frames)})`,
      );
    }
    out.push('');
  }
  const j = report.jumps;
  if (j) {
    out.push('Jumps in the run view (→ loopscope:cursor-shown)');
    for (const jump of j.jumps) {
      const dom =
        jump.source !== 'mark'
          ? ''
          : jump.domMs === null
            ? `; mark at ${fmt(jump.markMs, 1)} ms, but the cursor row was not seen on screen within 3 s after it`
            : jump.markBeforeRowShown
              ? `; mark at ${fmt(jump.markMs, 1)} ms came BEFORE the row was on screen (DOM) at ${fmt(jump.domMs, 1)} ms: the DOM time counts`
              : `; mark at ${fmt(jump.markMs, 1)} ms, row on screen in the DOM at ${fmt(jump.domMs, 1)} ms`;
      out.push(
        line(
          jump.what,
          `${fmt(jump.ms, 1)} ms`,
          jump.verdict,
          `   (cursor on line ${jump.cursorLine === null ? 'none' : fmt(jump.cursorLine)}${dom})${sourceNote[jump.source]}`,
        ),
      );
    }
    out.push('');
  }
  for (const problem of report.pageProblems.slice(0, 10)) out.push(`page problem: ${problem}`);
  for (const error of report.errors) out.push(`NOT MEASURED: ${error}`);
  return out.join('\n').replace(/\n+$/, '');
}

// --- standalone ------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: '200MB' },
      seed: { type: 'string', default: '1' },
      events: { type: 'string', default: '1000000' },
      json: { type: 'boolean', default: false },
      only: { type: 'string' },
      'long-run-cache': { type: 'string' },
    },
  });
  const only = values.only;
  if (only !== undefined && only !== 'runs' && only !== 'long-run') throw new Error(`--only must be runs or long-run, got ${only}`);
  const seed = Number(values.seed);
  const events = Number(values.events);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  if (!Number.isInteger(events) || events < 10) throw new Error(`--events must be an integer ≥ 10, got ${values.events}`);
  const report = await runUiBench({
    size: values.size,
    seed,
    longRunEvents: events,
    ...(only !== undefined ? { only } : {}),
    ...(values['long-run-cache'] !== undefined ? { longRunCache: values['long-run-cache'] } : {}),
  });
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatUiReport(report)}\n`);
  return report.errors.length > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`[bench-ui] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
