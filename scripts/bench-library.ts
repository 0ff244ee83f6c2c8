/**
 * `npm run bench:library`: Loopscope's trace library (docs/semantics.md §18) on a directory of
 * thousands of small traces, as `loopscope serve DIR` keeps it:
 *
 * 1. the library: N small trace files (default 10,000; devkit/traceGenerators/libraryOfTraces.ts:
 *    canonical events, Anthropic HTTP exchanges and OpenAI chat logs, a few KB to about 60 KB
 *    each, their runs spread over four months) in nested directories of 100 files, plus two
 *    canonical runs of about 1,000 steps (devkit/traceGenerators/longRunTrace.ts) for the compare.
 *    Generated once into bench-data/library-N/traces/ and reused while its stamp matches;
 * 2. first indexing: serve with a fresh cache until the library is idle with every file indexed —
 *    wall time, files/s, the serve process's peak RSS (VmHWM; the engine's workers are its threads);
 * 3. reopen (same cache): serve start → URL, and in Chromium the page's navigation → the start page
 *    painted with its aggregates ready and run rows (target < 1 s);
 * 4. every aggregate and filter over the HTTP API with the library idle: `libraryAggregates`,
 *    `libraryRuns` (100 rows) and `librarySignatures` unfiltered and under each filter (a status, a
 *    finding kind, a format, a model, a directory, a day range, a text), the runs sorted by cost and
 *    by duration — the median of 5 calls each (target < 200 ms);
 * 5. the most widespread failure signature's drill-down: runs and aggregates under it (< 200 ms);
 * 6. `compareRuns` of the two 1,000-step runs, in two traces: the first call (which opens them), then
 *    the median of 5 more (target < 500 ms);
 * 7. `librarySearch` for a common and a rare word (median of 3; no target), with how many traces it
 *    opened (the others ruled out by their term filters, shared/library/termFilter.ts).
 *
 * Prints a Markdown table (measure, value, target, PASS/MISS) and writes
 * bench-data/library-N/results.json. Every process it starts is stopped, even on failure; the
 * cache directory is removed unless `--keep`. Needs the build (`npm run build`) and Debian's chromium.
 *
 *   npx tsx scripts/bench-library.ts [--files N] [--keep] [--regenerate] [--json]
 *
 * Exits 0 even when a target is missed, non-zero only when a step fails.
 */
import { machineInfo, type MachineInfo } from './lib/benchReport';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';

import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp, waitForPage } from '../devkit/browser';
import { repoRoot } from '../devkit/repoPaths';
import { EXCHANGE_GENERATOR_VERSION } from '../devkit/traceGenerators/exchangeTrace';
import { generateLibraryTrace, LIBRARY_GENERATOR_VERSION, type LibraryTraceKind } from '../devkit/traceGenerators/libraryOfTraces';
import { generateLongRunTrace, LONG_RUN_GENERATOR_VERSION, RARE_WORD } from '../devkit/traceGenerators/longRunTrace';
import { Prng } from '../devkit/traceGenerators/prng';
import type { CompareReport } from '../shared/compare/compareRuns';
import type { LibraryAggregates, LibraryFilter, LibraryRun, LibrarySearchHit, LibrarySignature, LibraryStatus } from '../shared/library/libraryApi';
import { displayPath } from './lib/benchTraces';
import { callApi, epochNow, serveTrace, type ServedTrace } from './lib/loopscopeServe';
import { processTree } from './lib/processTree';

const MB = 1024 * 1024;
const DAY_MS = 86_400_000;
const FILES_PER_DIRECTORY = 100;
/** Directories of FILES_PER_DIRECTORY files per group directory: traces/g00/d000/…, traces/g00/d001/… */
const DIRECTORIES_PER_GROUP = 10;
/** What the library is made of, by weight. */
const KIND_WEIGHTS: readonly (readonly [LibraryTraceKind, number])[] = [
  ['canonical', 45],
  ['chat', 30],
  ['exchange', 25],
];
/** A file's size asked of its generator: log-normal around the median, within the bounds (the output lands near it). */
const SIZE_MEDIAN_BYTES = 12_000;
const SIZE_MIN_BYTES = 3_000;
const SIZE_MAX_BYTES = 56_000;
/** The runs start on a day of this window (UTC). */
const FIRST_DAY = Date.UTC(2026, 6, 1);
const DAYS = 120;
const LIBRARY_SEED = 20260701;
/** About 4 events a step (a response, 1–2 calls started and answered): 4,000 events make about 1,000 steps. */
const LONG_RUN_EVENTS = 4_000;
const LONG_RUNS = [
  { name: 'long-run-a', seed: 11 },
  { name: 'long-run-b', seed: 12 },
] as const;
/** Matched by `filter.text` (a word of the generated tasks). */
const TEXT_FILTER = 'flaky';
/** A word of the generated prose (tasks, answers, tool outputs) in most files. */
const COMMON_WORD = 'budget';

const POLL_MS = 250;
const PAGE_TARGET_MS = 1000;
const QUERY_TARGET_MS = 200;
const COMPARE_TARGET_MS = 500;
const QUERY_REPEATS = 5;
const COMPARE_REPEATS = 5;
const SEARCH_REPEATS = 3;
const PAGE_WAIT_MS = 60_000;
/** How long serve may take to exit after SIGINT before its process group is killed. */
const EXIT_WAIT_MS = 15_000;

function log(message: string): void {
  process.stderr.write(`[bench-library] ${message}\n`);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;
const fmt = (value: number | null | undefined, digits = 0): string =>
  value === null || value === undefined ? 'n/a' : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The lower middle of the samples, as scripts/lib/benchReport.ts's medianRound takes it. */
function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

// --- the report ------------------------------------------------------------------------------------

interface Row {
  measure: string;
  value: string;
  /** Empty: reported, no target. */
  target: string;
  verdict: 'PASS' | 'MISS' | '';
}

interface Timed<T> {
  samples: number[];
  medianMs: number;
  result: T;
}

interface QueryMeasure {
  name: string;
  method: 'libraryAggregates' | 'libraryRuns' | 'librarySignatures';
  request: Record<string, unknown>;
  samples: number[];
  medianMs: number;
  /** What it answered: runs counted (aggregates), runs matching (runs), signatures (signatures). */
  answered: number;
  pass: boolean;
}

interface LibraryInfo {
  dir: string;
  tracesDir: string;
  files: number;
  bytes: number;
  kinds: Record<string, { files: number; bytes: number; runs: number; largest: number }>;
  smallest: number;
  medianBytes: number;
  largest: number;
  longRuns: { name: string; path: string; events: number; steps: number; bytes: number }[];
  reused: boolean;
  generateSeconds: number;
}

interface Report {
  date: string;
  machine: MachineInfo;
  library?: LibraryInfo;
  firstIndexing?: {
    seconds: number;
    filesPerSecond: number;
    status: LibraryStatus;
    peakRssMb: number | null;
    rssAtEndMb: number | null;
    /** CPU seconds of serve (user + system, every thread) until idle, and per file. */
    cpuSeconds: number | null;
    cpuMsPerFile: number | null;
    processes: number;
    libraryDbMb: number;
    cacheMb: number;
    exitMs: number;
    exitedOnSigint: boolean;
  };
  reopen?: {
    serverStartToUrlMs: number;
    /** Just before `page.goto` → the start page painted with its aggregates ready and run rows (Node's clock against the page's). */
    gotoToPaintedMs: number | null;
    /** The page's own clock, from its navigation start. */
    navigationToDomReadyMs: number | null;
    navigationToPaintedMs: number | null;
    aggregatesReadyMs: number | null;
    firstRunRowMs: number | null;
    runRows: number;
    domContentLoadedMs: number | null;
    apiCalls: { method: string; startMs: number; endMs: number }[];
    /** The library's state when the page was ready (a reopen rescans the files). */
    libraryStateAtReady: string | null;
    serverStartToIdleMs: number | null;
    pageProblems: string[];
    peakRssMb: number | null;
    exitMs: number;
    exitedOnSigint: boolean;
  };
  picked?: Record<string, unknown>;
  queries: QueryMeasure[];
  drillDown?: {
    signature: { key: string; kind: string; text: string; runs: number; share: number };
    runs: QueryMeasure;
    aggregates: QueryMeasure;
    parallel: { samples: number[]; medianMs: number; pass: boolean };
  };
  compare?: {
    a: { file: string; traceId: string; runPk: number; steps: number };
    b: { file: string; traceId: string; runPk: number; steps: number };
    findMs: number;
    firstCallMs: number;
    samples: number[];
    medianMs: number;
    alignedRows: number;
    similarity: number;
    firstDivergence: number | null;
  };
  search?: {
    word: string;
    samples: number[];
    medianMs: number;
    hits: number;
    matches: number;
    tracesSearched: number;
    tracesOpened: number;
    complete: boolean;
  }[];
  rows: Row[];
  errors: string[];
}

// --- 1. the library --------------------------------------------------------------------------------

interface Stamp {
  files: number;
  filesPerDirectory: number;
  generators: { library: number; exchange: number; longRun: number };
  longRunEvents: number;
  library: Omit<LibraryInfo, 'dir' | 'tracesDir' | 'reused'>;
}

/** Every file under `dir`: its count and bytes. */
function walk(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const sub = walk(path);
      files += sub.files;
      bytes += sub.bytes;
    } else {
      files += 1;
      bytes += statSync(path).size;
    }
  }
  return { files, bytes };
}

function ensureLibrary(files: number, regenerate: boolean): LibraryInfo {
  const dir = join(repoRoot, 'bench-data', `library-${files}`);
  // The traces in a directory of their own: the stamp and results.json beside it are not files of the library.
  const tracesDir = join(dir, 'traces');
  const stampPath = join(dir, 'stamp.json');
  const wanted = {
    files,
    filesPerDirectory: FILES_PER_DIRECTORY,
    generators: { library: LIBRARY_GENERATOR_VERSION, exchange: EXCHANGE_GENERATOR_VERSION, longRun: LONG_RUN_GENERATOR_VERSION },
    longRunEvents: LONG_RUN_EVENTS,
  };
  if (!regenerate && existsSync(stampPath) && existsSync(tracesDir)) {
    try {
      const stamp = JSON.parse(readFileSync(stampPath, 'utf8')) as Stamp;
      const onDisk = walk(tracesDir);
      if (
        JSON.stringify({ files: stamp.files, filesPerDirectory: stamp.filesPerDirectory, generators: stamp.generators, longRunEvents: stamp.longRunEvents }) ===
          JSON.stringify(wanted) &&
        onDisk.files === stamp.library.files &&
        onDisk.bytes === stamp.library.bytes
      ) {
        log(`reusing ${displayPath(tracesDir)} (${fmt(onDisk.files)} files, ${fmt(onDisk.bytes / MB, 1)} MB)`);
        return { ...stamp.library, dir, tracesDir, reused: true };
      }
      log(`${displayPath(stampPath)} does not match this run's library: regenerating`);
    } catch {
      // An unreadable stamp: regenerate.
    }
  }
  rmSync(tracesDir, { recursive: true, force: true });
  rmSync(stampPath, { force: true });
  log(`generating ${fmt(files)} trace files and ${LONG_RUNS.length} long runs in ${displayPath(tracesDir)}…`);
  const started = performance.now();
  const rng = new Prng(LIBRARY_SEED);
  const kinds: LibraryInfo['kinds'] = {};
  let bytes = 0;
  let smallest = Number.POSITIVE_INFINITY;
  const sizes: number[] = [];
  let largest = 0;
  for (let index = 0; index < files; index++) {
    const directoryIndex = Math.floor(index / FILES_PER_DIRECTORY);
    const group = Math.floor(directoryIndex / DIRECTORIES_PER_GROUP);
    const subdir = join(tracesDir, `g${String(group).padStart(2, '0')}`, `d${String(directoryIndex).padStart(3, '0')}`);
    if (index % FILES_PER_DIRECTORY === 0) mkdirSync(subdir, { recursive: true });
    const kind = rng.weighted(KIND_WEIGHTS);
    const targetBytes = rng.logNormalInt(SIZE_MEDIAN_BYTES, 0.8, SIZE_MIN_BYTES, SIZE_MAX_BYTES);
    const startAt = FIRST_DAY + rng.int(0, DAYS - 1) * DAY_MS + rng.int(0, DAY_MS - 1);
    const stats = generateLibraryTrace({
      kind,
      seed: index + 1,
      targetBytes,
      startAt,
      outPath: join(subdir, `${kind}-${String(index).padStart(5, '0')}.jsonl`),
    });
    const counts = (kinds[kind] ??= { files: 0, bytes: 0, runs: 0, largest: 0 });
    counts.largest = Math.max(counts.largest, stats.bytes);
    sizes.push(stats.bytes);
    counts.files += 1;
    counts.bytes += stats.bytes;
    counts.runs += stats.runs;
    bytes += stats.bytes;
    smallest = Math.min(smallest, stats.bytes);
    largest = Math.max(largest, stats.bytes);
    if ((index + 1) % 1000 === 0) log(`  ${fmt(index + 1)} files, ${fmt(bytes / MB, 1)} MB`);
  }
  const longRunsDir = join(tracesDir, 'long-runs');
  mkdirSync(longRunsDir, { recursive: true });
  const longRuns = LONG_RUNS.map(({ name, seed }) => {
    const path = join(longRunsDir, `${name}-seed${seed}.jsonl`);
    const stats = generateLongRunTrace({ events: LONG_RUN_EVENTS, seed, outPath: path });
    bytes += stats.bytes;
    return { name, path: relative(tracesDir, path), events: stats.events, steps: stats.steps, bytes: stats.bytes };
  });
  const library: Stamp['library'] = {
    files: files + longRuns.length,
    bytes,
    kinds,
    smallest,
    medianBytes: median(sizes),
    largest,
    longRuns,
    generateSeconds: round((performance.now() - started) / 1000, 2),
  };
  writeFileSync(stampPath, `${JSON.stringify({ ...wanted, library } satisfies Stamp, null, 2)}\n`);
  log(`generated in ${library.generateSeconds} s`);
  return { ...library, dir, tracesDir, reused: false };
}

// --- serve -----------------------------------------------------------------------------------------

/** Everything started and not yet stopped: stopped on failure and on Ctrl-C. */
const running = { served: new Set<ServedTrace>(), browser: null as Browser | null, interrupted: false };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startServe(dir: string, cacheDir: string): Promise<ServedTrace> {
  const served = await serveTrace(dir, cacheDir);
  running.served.add(served);
  return served;
}

/** SIGINT to serve's process group (as Ctrl-C would), waiting for it to exit; then whatever is left is killed. */
async function stopServe(served: ServedTrace): Promise<{ exitMs: number; exitedOnSigint: boolean }> {
  const started = performance.now();
  try {
    process.kill(-served.pid, 'SIGINT');
  } catch {
    // Gone already.
  }
  while (alive(served.pid) && performance.now() - started < EXIT_WAIT_MS) await sleep(25);
  const exitedOnSigint = !alive(served.pid);
  const exitMs = round(performance.now() - started);
  await served.stop();
  running.served.delete(served);
  return { exitMs, exitedOnSigint };
}

async function stopEverything(): Promise<void> {
  await Promise.all([...running.served].map((served) => stopServe(served).catch(() => undefined)));
  const browser = running.browser;
  running.browser = null;
  await browser?.close().catch(() => undefined);
}

function statusKb(pid: number, field: string): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

const kbToMb = (kb: number | null): number | null => (kb === null ? null : round(kb / 1024, 1));

/** Clock ticks a second, the unit of /proc/PID/stat's times. */
const clockTicks = ((): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system, all its threads) the process has used so far. */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return null;
  }
}

const api = <T>(served: ServedTrace, method: string, request: Record<string, unknown> = {}): Promise<T> => callApi<T>(served.url, method, request);

/** Polls `libraryStatus` every POLL_MS until the library is idle with every file it found read. */
async function waitForIdle(served: ServedTrace, expectedFiles: number, timeoutMs: number): Promise<LibraryStatus> {
  const deadline = performance.now() + timeoutMs;
  let lastLog = performance.now();
  for (;;) {
    const status = await api<LibraryStatus | null>(served, 'libraryStatus');
    if (status === null) throw new Error('libraryStatus answered null: serve was not given a directory');
    if (status.state === 'idle' && status.indexed === status.files && status.files >= expectedFiles) return status;
    if (performance.now() > deadline) throw new Error(`the library was not idle after ${fmt(timeoutMs / 1000)} s: ${JSON.stringify(status).slice(0, 400)}`);
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      log(`  ${status.state}: ${fmt(status.indexed)} of ${fmt(status.files)} files read (${status.failed} failed, ${status.skipped} skipped)`);
    }
    await sleep(POLL_MS);
  }
}

// --- 2. first indexing -----------------------------------------------------------------------------

async function firstIndexing(library: LibraryInfo, cacheDir: string): Promise<NonNullable<Report['firstIndexing']>> {
  rmSync(cacheDir, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  log(`first indexing: serve ${displayPath(library.tracesDir)} with a fresh cache ${displayPath(cacheDir)}…`);
  const served = await startServe(library.tracesDir, cacheDir);
  const status = await waitForIdle(served, library.files, 120_000 + library.files * 1000);
  const seconds = (epochNow() - served.spawnedAt) / 1000;
  const peakRssMb = kbToMb(statusKb(served.pid, 'VmHWM'));
  const rssAtEndMb = kbToMb(statusKb(served.pid, 'VmRSS'));
  const cpu = cpuSeconds(served.pid);
  const processes = processTree(served.pid).length;
  const exit = await stopServe(served);
  const librariesDir = join(cacheDir, 'libraries');
  const libraryDbBytes = existsSync(librariesDir) ? walk(librariesDir).bytes : 0;
  log(`  idle after ${fmt(seconds, 1)} s (${fmt(status.files / seconds, 1)} files/s), peak RSS ${fmt(peakRssMb)} MB`);
  return {
    seconds: round(seconds, 2),
    filesPerSecond: round(status.files / seconds, 1),
    status,
    peakRssMb,
    rssAtEndMb,
    cpuSeconds: cpu === null ? null : round(cpu, 2),
    cpuMsPerFile: cpu === null ? null : round((cpu * 1000) / status.files),
    processes,
    libraryDbMb: round(libraryDbBytes / MB, 1),
    cacheMb: round(walk(cacheDir).bytes / MB, 1),
    ...exit,
  };
}

// --- 3. reopen to the populated start page ---------------------------------------------------------

/**
 * Installed before the app's scripts (an init script, not subject to the page's CSP): records, on
 * the page's clock, when the aggregates became ready, the first run row appeared, both were there,
 * and the frame after that (painted).
 */
const startPageProbe = String.raw`
(() => {
  const state = { aggregatesReadyAt: null, firstRowAt: null, readyAt: null, paintedAt: null, rows: 0 };
  window.__libraryBench = state;
  const check = () => {
    const now = performance.now();
    if (state.aggregatesReadyAt === null && document.querySelector('[data-testid=library-aggregates][data-state=ready]')) state.aggregatesReadyAt = now;
    if (state.firstRowAt === null && document.querySelector('[data-testid=library-run]')) state.firstRowAt = now;
    if (state.readyAt === null && document.querySelector('[data-testid=library-aggregates][data-state=ready]') && document.querySelector('[data-testid=library-run]')) {
      state.readyAt = now;
      state.rows = document.querySelectorAll('[data-testid=library-run]').length;
      requestAnimationFrame(() => requestAnimationFrame(() => { state.paintedAt = performance.now(); }));
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-state'] });
})();
`;

interface ProbeState {
  aggregatesReadyAt: number | null;
  firstRowAt: number | null;
  readyAt: number;
  paintedAt: number;
  rows: number;
  timeOrigin: number;
  domContentLoadedMs: number | null;
  apiCalls: { method: string; startMs: number; endMs: number }[];
}

async function reopen(library: LibraryInfo, cacheDir: string, errors: string[]): Promise<{ report: NonNullable<Report['reopen']>; served: ServedTrace }> {
  running.browser ??= await launchBrowser();
  log('reopen: serve again with the same cache, the start page in Chromium…');
  const served = await startServe(library.tracesDir, cacheDir);
  const report: NonNullable<Report['reopen']> = {
    serverStartToUrlMs: round(served.urlAt - served.spawnedAt),
    gotoToPaintedMs: null,
    navigationToDomReadyMs: null,
    navigationToPaintedMs: null,
    aggregatesReadyMs: null,
    firstRunRowMs: null,
    runRows: 0,
    domContentLoadedMs: null,
    apiCalls: [],
    libraryStateAtReady: null,
    serverStartToIdleMs: null,
    pageProblems: [],
    peakRssMb: null,
    exitMs: 0,
    exitedOnSigint: false,
  };
  // openApp's page (it watches for page errors, failed calls and CSP violations), on a blank page
  // first so that the probe is installed before the app's first script.
  const app = await openApp(running.browser, 'about:blank');
  try {
    await app.page.addInitScript({ content: startPageProbe });
    const beforeGoto = epochNow();
    await app.page.goto(served.url);
    await waitForPage(app.page, 'window.__libraryBench !== undefined && window.__libraryBench.paintedAt !== null', PAGE_WAIT_MS);
    const probe = (await app.page.evaluate(`(() => {
      const navigation = performance.getEntriesByType('navigation')[0];
      const apiCalls = performance.getEntriesByType('resource')
        .filter((entry) => entry.name.includes('/api/'))
        .map((entry) => ({ method: entry.name.slice(entry.name.lastIndexOf('/') + 1), startMs: Math.round(entry.startTime), endMs: Math.round(entry.responseEnd) }));
      return { ...window.__libraryBench, timeOrigin: performance.timeOrigin, domContentLoadedMs: navigation ? Math.round(navigation.domContentLoadedEventEnd) : null, apiCalls };
    })()`)) as ProbeState;
    report.libraryStateAtReady = (await api<LibraryStatus | null>(served, 'libraryStatus'))?.state ?? null;
    Object.assign(report, {
      gotoToPaintedMs: round(probe.timeOrigin + probe.paintedAt - beforeGoto),
      navigationToDomReadyMs: round(probe.readyAt),
      navigationToPaintedMs: round(probe.paintedAt),
      aggregatesReadyMs: probe.aggregatesReadyAt === null ? null : round(probe.aggregatesReadyAt),
      firstRunRowMs: probe.firstRowAt === null ? null : round(probe.firstRowAt),
      runRows: probe.rows,
      domContentLoadedMs: probe.domContentLoadedMs,
      apiCalls: probe.apiCalls,
    });
    log(`  URL after ${fmt(report.serverStartToUrlMs)} ms; start page painted ${fmt(report.gotoToPaintedMs)} ms after page.goto`);
  } catch (error) {
    errors.push(`reopen page: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    report.pageProblems = [...app.problems];
    await app.page.context().close();
  }
  // The reopen looks at every file again (size and time) before it is idle.
  await waitForIdle(served, library.files, 120_000 + library.files * 200);
  report.serverStartToIdleMs = round(epochNow() - served.spawnedAt);
  return { report, served };
}

// --- 4.–7. the API ---------------------------------------------------------------------------------

async function timed<T>(times: number, call: () => Promise<T>): Promise<Timed<T>> {
  const samples: number[] = [];
  let result: T | undefined;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    result = await call();
    samples.push(round(performance.now() - started, 2));
  }
  if (result === undefined) throw new Error('nothing timed');
  return { samples, medianMs: median(samples), result };
}

type Paged<T> = { total: number; offset: number; rows: T[] };

async function measureQuery(served: ServedTrace, name: string, method: QueryMeasure['method'], request: Record<string, unknown>): Promise<QueryMeasure> {
  const { samples, medianMs, result } = await timed(QUERY_REPEATS, () => api<LibraryAggregates | Paged<unknown>>(served, method, request));
  const answered = 'runs' in result ? result.runs : result.total;
  return { name, method, request, samples, medianMs, answered, pass: medianMs < QUERY_TARGET_MS };
}

/** One value of each filter that exists in this library, from the unfiltered aggregates. */
function pickFilters(aggregates: LibraryAggregates): { name: string; filter: LibraryFilter }[] {
  const cases: { name: string; filter: LibraryFilter }[] = [{ name: 'no filter', filter: {} }];
  const byRuns = <T extends { runs: number }>(list: readonly T[]): T[] => [...list].sort((a, b) => b.runs - a.runs);
  const statuses = byRuns(aggregates.byStatus);
  // A status that ended badly, the view someone opens to find out what went wrong.
  const status = statuses.find((entry) => !['succeeded', 'model_finished'].includes(entry.status)) ?? statuses[0];
  if (status) cases.push({ name: `status ${status.status}`, filter: { status: status.status } });
  const kind = byRuns(aggregates.findingsByKind)[0];
  if (kind) cases.push({ name: `finding kind ${kind.kind}`, filter: { findingKind: kind.kind } });
  const format = byRuns(aggregates.facets.formats)[0];
  if (format) cases.push({ name: `format ${format.value}`, filter: { format: format.value } });
  const model = byRuns(aggregates.facets.models)[0];
  if (model) cases.push({ name: `model ${model.value}`, filter: { model: model.value } });
  const directories = aggregates.facets.directories;
  const directory = directories[Math.floor(directories.length / 2)];
  if (directory) cases.push({ name: `directory …/${directory.value.split('/').slice(-2).join('/')}`, filter: { directory: directory.value } });
  const busiest = byRuns(aggregates.overTime.periods)[0];
  if (busiest) {
    const to =
      aggregates.overTime.granularity === 'day' ? new Date(Date.parse(`${busiest.from}T00:00:00Z`) + 6 * DAY_MS).toISOString().slice(0, 10) : busiest.to;
    cases.push({ name: `from ${busiest.from} to ${to}`, filter: { from: busiest.from, to } });
  }
  cases.push({ name: `text "${TEXT_FILTER}"`, filter: { text: TEXT_FILTER } });
  return cases;
}

async function measureFilters(served: ServedTrace, report: Report): Promise<void> {
  const aggregates = await api<LibraryAggregates>(served, 'libraryAggregates', { filter: {} });
  const cases = pickFilters(aggregates);
  report.picked = {
    ...Object.fromEntries(cases.slice(1).map((entry) => [entry.name, entry.filter])),
    runs: aggregates.runs,
    traces: aggregates.traces,
    facets: { formats: aggregates.facets.formats.length, models: aggregates.facets.models.length, directories: aggregates.facets.directories.length },
    overTime: aggregates.overTime.granularity,
  };
  log(`filters: ${QUERY_REPEATS} calls each of libraryAggregates, libraryRuns and librarySignatures under ${cases.length} filters…`);
  for (const { name, filter } of cases) {
    report.queries.push(await measureQuery(served, name, 'libraryAggregates', { filter }));
    report.queries.push(await measureQuery(served, name, 'libraryRuns', { filter, limit: 100 }));
    report.queries.push(await measureQuery(served, name, 'librarySignatures', { filter }));
  }
  for (const sort of ['cost', 'duration'] as const)
    report.queries.push(await measureQuery(served, `sorted by ${sort}`, 'libraryRuns', { filter: {}, sort, descending: true, limit: 100 }));
}

async function measureDrillDown(served: ServedTrace): Promise<NonNullable<Report['drillDown']>> {
  const signatures = await api<Paged<LibrarySignature>>(served, 'librarySignatures', { filter: {}, limit: 10 });
  const top = signatures.rows[0];
  if (!top) throw new Error('librarySignatures listed no signature to drill into');
  log(`drill-down: signature ${top.key} (${top.kind}, ${top.runs} runs)…`);
  const filter = { signature: top.key };
  const runs = await measureQuery(served, `signature ${top.key}`, 'libraryRuns', { filter, limit: 100 });
  const aggregates = await measureQuery(served, `signature ${top.key}`, 'libraryAggregates', { filter });
  // As the page asks them: both at once.
  const parallel = await timed(QUERY_REPEATS, () =>
    Promise.all([api(served, 'libraryRuns', { filter, limit: 100 }), api(served, 'libraryAggregates', { filter })]),
  );
  return {
    signature: { key: top.key, kind: top.kind, text: top.text.slice(0, 120), runs: top.runs, share: round(top.share, 3) },
    runs,
    aggregates,
    parallel: { samples: parallel.samples, medianMs: parallel.medianMs, pass: parallel.medianMs < QUERY_TARGET_MS },
  };
}

async function measureCompare(served: ServedTrace, library: LibraryInfo): Promise<NonNullable<Report['compare']>> {
  const started = performance.now();
  const [a, b] = await Promise.all(
    library.longRuns.map(async (longRun) => {
      const page = await api<Paged<LibraryRun>>(served, 'libraryRuns', { filter: { text: longRun.name }, limit: 10 });
      const run = page.rows.find((row) => row.file.endsWith(longRun.path.split('/').pop() ?? longRun.name));
      if (!run) throw new Error(`libraryRuns found no run of ${longRun.path} by filter.text "${longRun.name}" (${page.total} rows)`);
      return run;
    }),
  );
  if (!a || !b) throw new Error('the two long runs were not both found');
  const findMs = round(performance.now() - started, 2);
  const request = { traceId: a.traceId, runPkA: a.runPk, runPkB: b.runPk, traceIdB: b.traceId };
  log(`compare: ${a.steps} steps against ${b.steps} steps, two traces…`);
  const first = await timed(1, () => api<CompareReport>(served, 'compareRuns', request));
  const again = await timed(COMPARE_REPEATS, () => api<CompareReport>(served, 'compareRuns', request));
  const run = (row: LibraryRun) => ({ file: displayPath(row.file), traceId: row.traceId, runPk: row.runPk, steps: row.steps });
  return {
    a: run(a),
    b: run(b),
    findMs,
    firstCallMs: first.medianMs,
    samples: again.samples,
    medianMs: again.medianMs,
    alignedRows: again.result.alignment.rows.length,
    similarity: round(again.result.alignment.similarity, 3),
    firstDivergence: again.result.alignment.first_divergence,
  };
}

async function measureSearch(served: ServedTrace): Promise<NonNullable<Report['search']>> {
  const out: NonNullable<Report['search']> = [];
  for (const word of [COMMON_WORD, RARE_WORD]) {
    log(`search: "${word}"…`);
    const { samples, medianMs, result } = await timed(SEARCH_REPEATS, () =>
      api<{ hits: LibrarySearchHit[]; tracesSearched: number; tracesOpened: number; complete: boolean }>(served, 'librarySearch', { query: word }),
    );
    out.push({
      word,
      samples,
      medianMs,
      hits: result.hits.length,
      matches: result.hits.reduce((sum, hit) => sum + hit.matches.length + hit.moreMatches, 0),
      tracesSearched: result.tracesSearched,
      tracesOpened: result.tracesOpened,
      complete: result.complete,
    });
  }
  return out;
}

// --- the table -------------------------------------------------------------------------------------

const verdict = (pass: boolean): Row['verdict'] => (pass ? 'PASS' : 'MISS');

function tableRows(report: Report): Row[] {
  const rows: Row[] = [];
  const { library, firstIndexing: first, reopen: again, drillDown, compare, search } = report;
  if (library) rows.push({ measure: 'library', value: `${fmt(library.files)} files, ${fmt(library.bytes / MB, 1)} MB`, target: '', verdict: '' });
  if (first) {
    rows.push(
      { measure: 'first indexing: serve start → idle, every file indexed', value: `${fmt(first.seconds, 1)} s`, target: '', verdict: '' },
      { measure: 'first indexing: files/s', value: fmt(first.filesPerSecond, 1), target: '', verdict: '' },
      { measure: 'first indexing: serve peak RSS (VmHWM)', value: `${fmt(first.peakRssMb)} MB`, target: '', verdict: '' },
    );
  }
  if (again) {
    rows.push(
      { measure: 'reopen: serve start → URL printed', value: `${fmt(again.serverStartToUrlMs)} ms`, target: '', verdict: '' },
      {
        measure: 'reopen: page.goto → start page painted (aggregates ready, run rows)',
        value: `${fmt(again.gotoToPaintedMs)} ms`,
        target: `< ${fmt(PAGE_TARGET_MS)} ms`,
        verdict: verdict(again.gotoToPaintedMs !== null && again.gotoToPaintedMs < PAGE_TARGET_MS),
      },
    );
  }
  for (const query of report.queries) {
    rows.push({
      measure: `${query.method} (${query.name})`,
      value: `${fmt(query.medianMs, 1)} ms`,
      target: `< ${QUERY_TARGET_MS} ms`,
      verdict: verdict(query.pass),
    });
  }
  if (drillDown) {
    rows.push(
      {
        measure: 'signature drill-down: libraryRuns',
        value: `${fmt(drillDown.runs.medianMs, 1)} ms`,
        target: `< ${QUERY_TARGET_MS} ms`,
        verdict: verdict(drillDown.runs.pass),
      },
      {
        measure: 'signature drill-down: libraryAggregates',
        value: `${fmt(drillDown.aggregates.medianMs, 1)} ms`,
        target: `< ${QUERY_TARGET_MS} ms`,
        verdict: verdict(drillDown.aggregates.pass),
      },
      {
        measure: 'signature drill-down: both at once',
        value: `${fmt(drillDown.parallel.medianMs, 1)} ms`,
        target: `< ${QUERY_TARGET_MS} ms`,
        verdict: verdict(drillDown.parallel.pass),
      },
    );
  }
  if (compare) {
    const steps = `${fmt(compare.a.steps)} vs ${fmt(compare.b.steps)} steps`;
    rows.push(
      {
        measure: `compareRuns, first call (${steps}, opens both traces)`,
        value: `${fmt(compare.firstCallMs, 1)} ms`,
        target: `< ${COMPARE_TARGET_MS} ms`,
        verdict: verdict(compare.firstCallMs < COMPARE_TARGET_MS),
      },
      {
        measure: `compareRuns, median of ${COMPARE_REPEATS} more`,
        value: `${fmt(compare.medianMs, 1)} ms`,
        target: `< ${COMPARE_TARGET_MS} ms`,
        verdict: verdict(compare.medianMs < COMPARE_TARGET_MS),
      },
    );
  }
  for (const entry of search ?? []) {
    rows.push({
      measure: `librarySearch "${entry.word}" (${entry.word === RARE_WORD ? 'rare' : 'common'})`,
      value: `${fmt(entry.medianMs, 1)} ms (${entry.hits} runs, ${fmt(entry.tracesSearched)} traces searched, ${fmt(entry.tracesOpened)} opened${entry.complete ? '' : ', stopped at the limit'})`,
      target: '',
      verdict: '',
    });
  }
  for (const error of report.errors) rows.push({ measure: 'NOT MEASURED', value: error.split('\n')[0] ?? '', target: '', verdict: 'MISS' });
  return rows;
}

function formatReport(report: Report): string {
  const { machine, library, firstIndexing: first, reopen: again, drillDown, compare } = report;
  const out: string[] = [
    'Loopscope library benchmark',
    `machine  ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB RAM, ${machine.os}, Node ${machine.node}, load ${machine.loadAverage.join(' ')}`,
  ];
  if (library) {
    const kinds = Object.entries(library.kinds)
      .map(
        ([kind, counts]) =>
          `${kind} ${fmt(counts.files)} files / ${fmt(counts.runs)} runs / ${fmt(counts.bytes / MB, 1)} MB (largest ${fmt(counts.largest / 1024)} KB)`,
      )
      .join('; ');
    out.push(
      `library  ${displayPath(library.tracesDir)} (${library.reused ? 'reused' : `generated in ${fmt(library.generateSeconds, 1)} s`}): ${fmt(library.files)} files, ${fmt(library.bytes / MB, 1)} MB`,
      `         ${kinds}; files of ${fmt(library.smallest / 1024, 1)}–${fmt(library.largest / 1024, 1)} KB (median ${fmt(library.medianBytes / 1024, 1)} KB); ${library.longRuns.map((run) => `${run.path} ${fmt(run.steps)} steps, ${fmt(run.events)} events`).join(', ')}`,
    );
  }
  out.push('', '| measure | value | target | verdict |', '|---|---|---|---|');
  for (const row of report.rows)
    out.push(`| ${row.measure} | ${row.value.replaceAll('|', '\\|')} | ${row.target || '—'} | ${row.verdict === 'MISS' ? '**MISS**' : row.verdict || '—'} |`);
  out.push('');
  if (first) {
    const s = first.status;
    out.push(
      `first indexing: ${fmt(s.files)} files, ${fmt(s.indexed)} read, ${s.skipped} skipped, ${s.failed} failed${s.failures.length > 0 ? ` (${s.failures.map((failure) => `${failure.path}: ${failure.reason}`).join('; ')})` : ''}; CPU ${fmt(first.cpuSeconds, 1)} s (${fmt(first.cpuMsPerFile)} ms a file) over ${fmt(first.seconds, 1)} s on ${machine.cores} cores; RSS at the end ${fmt(first.rssAtEndMb)} MB, ${first.processes} process(es); cache ${fmt(first.cacheMb, 1)} MB (library database ${fmt(first.libraryDbMb, 1)} MB); serve exited ${first.exitMs} ms after SIGINT${first.exitedOnSigint ? '' : ' (did NOT exit: killed)'}`,
    );
  }
  if (again) {
    const calls = again.apiCalls.map((call) => `${call.method} ${call.startMs}–${call.endMs}`).join(', ');
    out.push(
      `reopen page (ms from navigation start, page clock): DOMContentLoaded ${fmt(again.domContentLoadedMs)}, aggregates ready ${fmt(again.aggregatesReadyMs)}, first run row ${fmt(again.firstRunRowMs)}, both ${fmt(again.navigationToDomReadyMs)}, painted ${fmt(again.navigationToPaintedMs)} (${again.runRows} rows); library ${again.libraryStateAtReady ?? 'n/a'} then; idle again ${fmt(again.serverStartToIdleMs)} ms after serve start`,
      `reopen API calls (ms from navigation start): ${calls || 'none seen'}`,
      `reopen serve: peak RSS ${fmt(again.peakRssMb)} MB; exited ${again.exitMs} ms after SIGINT${again.exitedOnSigint ? '' : ' (did NOT exit: killed)'}`,
    );
    for (const problem of again.pageProblems.slice(0, 10)) out.push(`page problem: ${problem}`);
  }
  if (report.picked) out.push(`filters picked: ${JSON.stringify(report.picked)}`);
  if (report.queries.length > 0) {
    const slowest = [...report.queries].sort((a, b) => b.medianMs - a.medianMs).slice(0, 3);
    out.push(
      `slowest queries: ${slowest.map((query) => `${query.method} (${query.name}) ${fmt(query.medianMs, 1)} ms [${query.samples.map((sample) => fmt(sample, 1)).join(' / ')}]`).join('; ')}`,
    );
  }
  if (drillDown)
    out.push(
      `drill-down signature: ${drillDown.signature.kind} "${drillDown.signature.text}" in ${drillDown.signature.runs} runs (${fmt(drillDown.signature.share * 100, 1)} %)`,
    );
  if (compare)
    out.push(
      `compare: ${compare.a.file} run ${compare.a.runPk} vs ${compare.b.file} run ${compare.b.runPk}; found by filter.text in ${fmt(compare.findMs, 1)} ms; ${fmt(compare.alignedRows)} aligned rows, similarity ${compare.similarity}, first divergence at row ${compare.firstDivergence ?? 'none'}; samples ${compare.samples.map((sample) => fmt(sample, 1)).join(' / ')} ms`,
    );
  for (const entry of report.search ?? [])
    out.push(`search "${entry.word}": ${entry.samples.map((sample) => fmt(sample, 1)).join(' / ')} ms; ${entry.hits} runs with ${fmt(entry.matches)} matches`);
  for (const error of report.errors) out.push(`ERROR: ${error}`);
  return `${out.join('\n')}\n`;
}

// --- main ------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      files: { type: 'string', default: '10000' },
      keep: { type: 'boolean', default: false },
      regenerate: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const files = Number(values.files);
  if (!Number.isInteger(files) || files < 10) throw new Error(`--files must be an integer ≥ 10, got ${values.files}`);
  if (!existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) throw new Error('The app is not built: run `npm run build` first.');

  const report: Report = { date: new Date().toISOString(), machine: machineInfo(), queries: [], rows: [], errors: [] };
  const library = ensureLibrary(files, values.regenerate);
  report.library = library;
  const cacheDir = join(library.dir, `cache-${process.pid}`);
  // `on`, not `once`: under npx/tsx a Ctrl-C arrives twice (from the terminal and relayed by tsx),
  // and a second one without a listener would end the process before serve is stopped.
  const interrupted = (signal: NodeJS.Signals): void => {
    if (running.interrupted) return;
    running.interrupted = true;
    log(`${signal}: stopping what was started…`);
    void stopEverything().finally(() => {
      if (!values.keep) rmSync(cacheDir, { recursive: true, force: true });
      process.exit(130);
    });
  };
  process.on('SIGINT', interrupted);
  process.on('SIGTERM', interrupted);

  try {
    report.firstIndexing = await firstIndexing(library, cacheDir);
    const { report: reopened, served } = await reopen(library, cacheDir, report.errors);
    report.reopen = reopened;
    try {
      await measureFilters(served, report);
    } catch (error) {
      report.errors.push(`filters: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      report.drillDown = await measureDrillDown(served);
    } catch (error) {
      report.errors.push(`drill-down: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      report.compare = await measureCompare(served, library);
    } catch (error) {
      report.errors.push(`compare: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      report.search = await measureSearch(served);
    } catch (error) {
      report.errors.push(`search: ${error instanceof Error ? error.message : String(error)}`);
    }
    reopened.peakRssMb = kbToMb(statusKb(served.pid, 'VmHWM'));
    Object.assign(reopened, await stopServe(served));
  } catch (error) {
    report.errors.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    await stopEverything();
    if (values.keep) log(`cache kept in ${displayPath(cacheDir)}`);
    else rmSync(cacheDir, { recursive: true, force: true });
  }
  // Interrupted: the signal handler ends the process; a half-run is not written over the last results.
  if (running.interrupted) return 130;
  report.rows = tableRows(report);
  const resultsPath = join(library.dir, 'results.json');
  writeFileSync(resultsPath, `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote ${displayPath(resultsPath)}`);
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.errors.length > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    async (error: unknown) => {
      await stopEverything();
      process.stderr.write(`[bench-library] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
