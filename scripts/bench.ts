/**
 * `npm run bench`: ingest throughput and memory of the Loopscope engine against a plain
 * "split lines + JSON.parse" baseline and against the tools people load traces with today —
 * DuckDB's `read_json` into a table, and `jq` — on deterministic generated traces, in one run:
 * - `synthetic`: canonical Loopscope events of many interleaved runs
 *   (devkit/traceGenerators/syntheticTrace.ts);
 * - `exchange`: an HTTP exchange log of long sessions where every request resends the growing
 *   history (devkit/traceGenerators/exchangeTrace.ts);
 * - `chat`: an OpenAI Chat Completions exchange log of many short interleaved conversations
 *   (devkit/traceGenerators/chatTrace.ts).
 * Each at every size of `--size`, with PASS/MISS against the ingest targets (scripts/lib/benchReport.ts).
 *
 * Then, unless `--no-long-run`, `loopscope analyze` on one run of a million events
 * (devkit/traceGenerators/longRunTrace.ts) from a fresh cache: its time and peak RSS. Then, unless
 * `--no-ui`, the UI benchmark (scripts/bench-ui.ts: the app in headless Chromium on the synthetic
 * trace of the largest size and on the same million-event run). Last, a summary table of every
 * verdict, in Markdown.
 *
 *   npm run bench [-- --size 200MB[,1GB…]] [--trace synthetic|exchange|chat|all] [--seed N] [--json]
 *                 [--regenerate] [--keep-cache] [--cli bin/loopscope.js] [--no-compare] [--no-long-run] [--no-ui]
 *                 [--repeat N]
 *
 * `--repeat N`: N rounds per trace, interleaved (the engine, DuckDB, jq and the baseline once each
 * per round), each contender's median round reported, every round's time beside it. One round of a
 * tool can be far off on a shared machine (DuckDB's load of one file took 2.1 s and 7.7 s the same
 * afternoon); the median of three is what the verdicts are worth quoting.
 *
 * Prints a report; exits 0 even when a target is missed, non-zero only when a step fails.
 */
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatUiReport, runUiBench } from './bench-ui';
import { parseSize } from '../devkit/traceGenerators/syntheticTrace';
import {
  formatBenchReport,
  medianRound,
  round,
  rssVerdict,
  summaryRows,
  toMb,
  traceVerdicts,
  type BaselineReport,
  type BenchReport,
  type ComparisonReport,
  type EngineReport,
  type EngineRunReport,
  type LongRunReport,
  type TraceBenchReport,
  machineInfo,
} from './lib/benchReport';
import { displayPath as display, ensureLongRunTrace, ensureTrace, sizeName, traceKinds, type TraceInfo } from './lib/benchTraces';
import { measureNode, measureProgram, type MeasuredRun } from './lib/measure';
import { repoRoot } from '../devkit/repoPaths';

const MB = 1024 * 1024;
/** The one-run trace of the memory step: the same file the UI benchmark scrolls. */
const LONG_RUN_EVENTS = 1_000_000;
const LONG_RUN_SEED = 1;

/** `{files:[{events,…}], runs:[…], findings:[…]}`, the part of `analyze --json` the bench reads. */
interface AnalyzeOutput {
  files: { path: string; bytes: number; lines: number; events: number; parse_errors: unknown[] }[];
  runs: unknown[];
  findings: unknown[];
}

class StepError extends Error {}

/** What one round of a contender measures: its report without the rounds' times (see Repeated). */
type OneRound<Report> = Omit<Report, 'wallSamples'>;

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

// --- 1. the trace: scripts/lib/benchTraces.ts (ensureTrace) ---------------------------------------

// --- 2. baseline ---------------------------------------------------------------------------------

interface BaselineOutput {
  bytes: number;
  lines: number;
  parsed: number;
  parseErrors: number;
  seconds: number;
}

function requireSuccess(run: MeasuredRun, what: string): void {
  if (run.exitCode !== 0) {
    const how = run.signal ? `signal ${run.signal}` : `exit code ${run.exitCode}`;
    throw new StepError(`${what} failed (${how}): ${run.stderr.trim().slice(-2000) || '(no stderr)'}`);
  }
}

/**
 * A script of scripts/lib with its types stripped, in bench-data/ beside the repo's node_modules
 * (so its imports resolve): running the .ts directly would charge Node's type-stripping start-up
 * (~0.1 s) to what it measures. The caller removes it.
 */
function compiledScript(name: string): string {
  const source = readFileSync(join(repoRoot, 'scripts/lib', `${name}.ts`), 'utf8');
  const emitWarning = process.emitWarning;
  process.emitWarning = () => undefined; // "stripTypeScriptTypes is an experimental feature"
  try {
    const out = join(repoRoot, 'bench-data', `.${name}.mjs`);
    writeFileSync(out, stripTypeScriptTypes(source));
    return out;
  } finally {
    process.emitWarning = emitWarning;
  }
}

async function runBaseline(trace: TraceInfo): Promise<OneRound<BaselineReport>> {
  log('baseline: split lines + JSON.parse…');
  const script = compiledScript('baselineParse');
  let run: MeasuredRun;
  try {
    run = await measureNode({ args: [script, trace.path], cwd: repoRoot });
  } finally {
    rmSync(script, { force: true });
  }
  requireSuccess(run, 'baseline');
  const out = JSON.parse(run.stdout) as BaselineOutput;
  if (out.bytes !== trace.stats.bytes) throw new StepError(`baseline read ${out.bytes} bytes, expected ${trace.stats.bytes}`);
  return {
    wallSeconds: round(run.wallSeconds, 3),
    parseSeconds: round(out.seconds, 3),
    mbPerSecond: round(out.bytes / MB / run.wallSeconds, 1),
    linesPerSecond: Math.round(out.lines / run.wallSeconds),
    eventsPerSecond: Math.round(out.parsed / run.wallSeconds),
    lines: out.lines,
    events: out.parsed,
    parseErrors: out.parseErrors,
    peakRssMb: toMb(run.peakRssBytes),
    childMaxRssMb: toMb(run.childMaxRssBytes),
  };
}

// --- 3. engine -----------------------------------------------------------------------------------

function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) total += directoryBytes(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

function parseAnalyzeOutput(stdout: string): AnalyzeOutput {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch (error) {
    throw new StepError(`engine --json output is not JSON (${(error as Error).message}): ${stdout.slice(0, 300)}`);
  }
  const out = value as Partial<AnalyzeOutput>;
  if (!Array.isArray(out.files) || !Array.isArray(out.runs) || !Array.isArray(out.findings)) {
    throw new StepError('engine --json output lacks files[], runs[] or findings[]');
  }
  return out as AnalyzeOutput;
}

/** `loopscope analyze --json` on the file at `path` (`bytes` long) with the cache in `cacheDir`. */
async function runEngineOnce(cliPath: string, path: string, bytes: number, cacheDir: string, label: string): Promise<EngineRunReport> {
  log(`engine: ${label}…`);
  const run = await measureNode({
    args: [cliPath, 'analyze', path, '--json', '--fail-on', 'never'],
    cwd: repoRoot,
    env: { ...process.env, LOOPSCOPE_CACHE_DIR: cacheDir },
  });
  requireSuccess(run, `engine (${label})`);
  const out = parseAnalyzeOutput(run.stdout);
  const events = out.files.reduce((sum, file) => sum + (file.events || 0), 0);
  const lines = out.files.reduce((sum, file) => sum + (file.lines || 0), 0);
  const parseErrors = out.files.reduce((sum, file) => sum + (Array.isArray(file.parse_errors) ? file.parse_errors.length : 0), 0);
  return {
    wallSeconds: round(run.wallSeconds, 3),
    mbPerSecond: round(bytes / MB / run.wallSeconds, 1),
    eventsPerSecond: Math.round(events / run.wallSeconds),
    linesPerSecond: Math.round(lines / run.wallSeconds),
    lines,
    events,
    parseErrors,
    runs: out.runs.length,
    findings: out.findings.length,
    peakRssMb: toMb(run.peakRssBytes),
    sampledTreePeakRssMb: toMb(run.sampledTreePeakBytes),
    childMaxRssMb: toMb(run.childMaxRssBytes),
    maxProcesses: run.maxProcesses,
  };
}

/** The engine's report: its median ingest from scratch, and a reopen of the last round's cache in `cacheDir`. */
async function engineReport(cliPath: string, trace: TraceInfo, ingests: readonly EngineRunReport[], cacheDir: string): Promise<EngineReport> {
  const dbBytes = directoryBytes(cacheDir);
  const reopen = await runEngineOnce(cliPath, trace.path, trace.stats.bytes, cacheDir, 'reopen unchanged file');
  const ingest = medianRound(ingests);
  if (reopen.events !== ingest.events) log(`warning: reopen reported ${reopen.events} events, ingest ${ingest.events}`);
  return {
    command: `${process.execPath} ${display(cliPath)} analyze <trace> --json --fail-on never`,
    ingest,
    reopen,
    dbBytes,
    dbMb: round(dbBytes / MB, 1),
    dbToFileRatio: round(dbBytes / trace.stats.bytes, 2),
  };
}

/** A tool's median round, or (its figures unusable) its first failed one. */
function repeatedComparison(rounds: readonly OneRound<ComparisonReport>[]): ComparisonReport {
  const failed = rounds.find((run) => run.error !== undefined);
  if (failed !== undefined) return { ...failed, wallSamples: rounds.map((run) => run.wallSeconds) };
  return medianRound(rounds);
}

// --- 4. other tools on the same file ----------------------------------------------------------------

async function runDuckDb(trace: TraceInfo): Promise<OneRound<ComparisonReport>> {
  log('duckdb: read_json into a table…');
  const dir = mkdtempSync(join(tmpdir(), 'loopscope-bench-duckdb-'));
  const script = compiledScript('duckdbLoad');
  try {
    const run = await measureNode({ args: [script, trace.path, join(dir, 'trace.duckdb')], cwd: repoRoot });
    const base = {
      tool: 'DuckDB read_json → table',
      command: "CREATE TABLE trace AS SELECT * FROM read_json(<trace>, format = 'newline_delimited', ignore_errors = true)",
      wallSeconds: round(run.wallSeconds, 3),
      peakRssMb: toMb(run.peakRssBytes),
    };
    if (run.exitCode !== 0) return { ...base, records: null, error: run.stderr.trim().split('\n').slice(-3).join(' ') };
    return { ...base, records: (JSON.parse(run.stdout) as { rows: number }).rows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(script, { force: true });
  }
}

async function runJq(trace: TraceInfo): Promise<OneRound<ComparisonReport>> {
  log('jq: parse and print every record…');
  // Line by line (-R, fromjson?), so a broken line is skipped instead of ending the run, as a
  // person reading a real trace with jq must.
  const args = ['-c', '-R', 'fromjson? // empty', trace.path];
  const base = {
    tool: 'jq -c (line by line)',
    command: `jq ${args
      .slice(0, 3)
      .map((arg) => (arg.includes(' ') ? `'${arg}'` : arg))
      .join(' ')} <trace> > /dev/null`,
  };
  try {
    const run = await measureProgram('jq', { args, cwd: repoRoot, discardStdout: true });
    if (run.exitCode !== 0)
      return { ...base, wallSeconds: round(run.wallSeconds, 3), peakRssMb: toMb(run.peakRssBytes), records: null, error: run.stderr.trim().slice(-300) };
    return { ...base, wallSeconds: round(run.wallSeconds, 3), peakRssMb: toMb(run.peakRssBytes), records: null };
  } catch (error) {
    return { ...base, wallSeconds: 0, peakRssMb: null, records: null, error: `jq could not be run: ${(error as Error).message}` };
  }
}

// --- 5. one run of a million events ----------------------------------------------------------------

async function runLongRun(cliPath: string, regenerate: boolean): Promise<LongRunReport> {
  const trace = ensureLongRunTrace(LONG_RUN_EVENTS, LONG_RUN_SEED, regenerate, log);
  const report: LongRunReport = {
    trace: { path: trace.path, mb: round(trace.stats.bytes / MB, 1), events: trace.stats.events, reused: trace.reused },
    command: `${display(cliPath)} analyze <trace> --json --fail-on never`,
  };
  const cacheDir = mkdtempSync(join(tmpdir(), 'loopscope-bench-long-run-'));
  try {
    if (!existsSync(cliPath)) throw new StepError(`${display(cliPath)} not found (run \`npm run build\` first)`);
    readThrough(trace.path);
    report.analyze = await runEngineOnce(cliPath, trace.path, trace.stats.bytes, cacheDir, `one run of ${trace.stats.events.toLocaleString('en-US')} events`);
    report.verdict = rssVerdict(report.analyze.peakRssMb);
  } catch (error) {
    if (!(error instanceof StepError)) throw error;
    report.error = error.message;
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  return report;
}

/**
 * Reads the file through once, untimed, before anything is timed on it: the machine reclaims page
 * cache it has not used for a while (and a trace generated earlier may not be in it), so whoever ran
 * first would read from the disk and the others from memory. Each contender then reads it from memory.
 */
function readThrough(path: string): void {
  const buffer = Buffer.allocUnsafe(8 * MB);
  const fd = openSync(path, 'r');
  try {
    while (readSync(fd, buffer, 0, buffer.length, null) > 0);
  } finally {
    closeSync(fd);
  }
}

async function benchTrace(trace: TraceInfo, options: { cliPath: string; keepCache: boolean; compare: boolean; rounds: number }): Promise<TraceBenchReport> {
  const report: TraceBenchReport = {
    kind: trace.kind,
    size: sizeName(trace.stats.targetBytes),
    trace: {
      path: trace.path,
      bytes: trace.stats.bytes,
      mb: round(trace.stats.bytes / MB, 1),
      lines: trace.stats.lines,
      events: trace.stats.events,
      garbageLines: trace.stats.garbageLines,
      runs: trace.stats.runs,
      maxLineBytes: trace.stats.maxLineBytes,
      seed: trace.stats.seed,
      reused: trace.reused,
      generateSeconds: round(trace.stats.seconds, 1),
    },
  };
  try {
    readThrough(trace.path);
    if (!existsSync(options.cliPath)) throw new StepError(`${display(options.cliPath)} not found (run \`npm run build\` first)`);
    const baselines: OneRound<BaselineReport>[] = [];
    const ingests: EngineRunReport[] = [];
    const duckDb: OneRound<ComparisonReport>[] = [];
    const jq: OneRound<ComparisonReport>[] = [];
    // Every tool once per round, so that each meets the machine in the same states; each ingest
    // from scratch into a fresh cache, the last one kept for the reopen.
    let cacheDir = '';
    try {
      for (let round = 1; round <= options.rounds; round++) {
        baselines.push(await runBaseline(trace));
        if (cacheDir !== '') rmSync(cacheDir, { recursive: true, force: true });
        cacheDir = mkdtempSync(join(tmpdir(), 'loopscope-bench-cache-'));
        const label = options.rounds === 1 ? 'ingest from scratch' : `ingest from scratch (round ${round} of ${options.rounds})`;
        ingests.push(await runEngineOnce(options.cliPath, trace.path, trace.stats.bytes, cacheDir, label));
        if (options.compare) {
          duckDb.push(await runDuckDb(trace));
          jq.push(await runJq(trace));
        }
      }
      report.engine = await engineReport(options.cliPath, trace, ingests, cacheDir);
    } finally {
      if (cacheDir !== '' && options.keepCache) log(`cache kept in ${cacheDir}`);
      else if (cacheDir !== '') rmSync(cacheDir, { recursive: true, force: true });
    }
    report.baseline = medianRound(baselines);
    if (options.compare) report.comparisons = [repeatedComparison(duckDb), repeatedComparison(jq)];
    report.verdicts = traceVerdicts(report.baseline, report.engine, report.comparisons);
  } catch (error) {
    if (!(error instanceof StepError)) throw error;
    report.error = error.message;
  }
  return report;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: '200MB' },
      trace: { type: 'string', default: 'all' },
      seed: { type: 'string', default: '1' },
      json: { type: 'boolean', default: false },
      regenerate: { type: 'boolean', default: false },
      'keep-cache': { type: 'boolean', default: false },
      'no-compare': { type: 'boolean', default: false },
      'no-long-run': { type: 'boolean', default: false },
      'no-ui': { type: 'boolean', default: false },
      cli: { type: 'string', default: 'bin/loopscope.js' },
      repeat: { type: 'string', default: '1' },
    },
  });
  const rounds = Number(values.repeat);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--repeat must be a whole number of rounds, at least 1, got ${values.repeat}`);
  const sizes = values.size.split(',').map((size) => parseSize(size));
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const kinds = values.trace === 'all' ? traceKinds : traceKinds.filter((kind) => kind === values.trace);
  if (kinds.length === 0) throw new Error(`--trace must be ${traceKinds.join(', ')} or all, got ${values.trace}`);
  const cliPath = resolve(repoRoot, values.cli);

  const report: BenchReport = { date: new Date().toISOString(), machine: machineInfo(), traces: [], summary: [] };
  for (const targetBytes of sizes) {
    for (const kind of kinds) {
      const trace = ensureTrace(kind, targetBytes, seed, values.regenerate, log);
      report.traces.push(await benchTrace(trace, { cliPath, keepCache: values['keep-cache'], compare: !values['no-compare'], rounds }));
    }
  }
  if (!values['no-long-run']) report.longRun = await runLongRun(cliPath, values.regenerate);
  if (!values['no-ui']) {
    log('UI benchmark (Chromium)…');
    try {
      report.ui = await runUiBench({
        syntheticTrace: ensureTrace('synthetic', Math.max(...sizes), seed, false, log),
        seed,
        log: (message) => log(`ui: ${message}`),
      });
    } catch (error) {
      report.ui = { error: error instanceof Error ? error.message : String(error) };
    }
  }
  report.summary = summaryRows(report.traces, report.longRun);
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatBenchReport(report, formatUiReport));
  const uiFailed = report.ui !== undefined && ('error' in report.ui || report.ui.errors.length > 0);
  const stepFailed = report.traces.some((trace) => trace.error !== undefined) || report.longRun?.error !== undefined;
  return stepFailed || uiFailed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`[bench] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
