/**
 * `npm run bench`: ingest throughput and memory of the Loopscope engine against a plain
 * "split lines + JSON.parse" baseline and against the tools people load traces with today —
 * DuckDB's `read_json` into a table, and `jq` — on deterministic generated traces, in one run:
 * - `synthetic`: canonical Loopscope events of many interleaved runs
 *   (devkit/traceGenerators/syntheticTrace.ts);
 * - `exchange`: an HTTP exchange log where every request resends the growing history
 *   (devkit/traceGenerators/exchangeTrace.ts), the worst case for a viewer.
 *
 * Then, unless `--no-ui`, the UI benchmark (scripts/bench-ui.ts: the app in headless Chromium on
 * the synthetic trace of the same size and on a one-run trace of a million events), in the same
 * report.
 *
 *   npm run bench [-- --size 200MB|1GB] [--trace synthetic|exchange|all] [--seed N] [--json]
 *                 [--regenerate] [--keep-cache] [--cli bin/loopscope.js] [--no-compare] [--no-ui]
 *
 * Prints a report; exits 0 even when a target is missed, non-zero only when a step fails.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { cpus, totalmem, tmpdir, type as osType, release as osRelease } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatUiReport, runUiBench, type UiBenchReport } from './bench-ui';
import { parseSize } from '../devkit/traceGenerators/syntheticTrace';
import { displayPath as display, ensureTrace, traceKinds, type TraceInfo } from './lib/benchTraces';
import { measureNode, measureProgram, type MeasuredRun } from './lib/measure';
import { repoRoot } from '../devkit/repoPaths';

const MB = 1024 * 1024;
const THROUGHPUT_TARGET = 0.5; // engine MB/s ÷ baseline MB/s, at least
const RSS_TARGET_MB = 400; // engine peak RSS of the process tree, below

interface BaselineReport {
  wallSeconds: number;
  /** Time measured inside the child, without process start-up. */
  parseSeconds: number;
  mbPerSecond: number;
  linesPerSecond: number;
  eventsPerSecond: number;
  lines: number;
  events: number;
  parseErrors: number;
  peakRssMb: number | null;
  childMaxRssMb: number | null;
}

interface EngineRunReport {
  wallSeconds: number;
  mbPerSecond: number;
  eventsPerSecond: number;
  linesPerSecond: number;
  lines: number;
  events: number;
  parseErrors: number;
  runs: number;
  findings: number;
  peakRssMb: number | null;
  sampledTreePeakRssMb: number | null;
  childMaxRssMb: number | null;
  maxProcesses: number | null;
}

interface EngineReport {
  command: string;
  ingest: EngineRunReport;
  reopen: EngineRunReport;
  dbBytes: number;
  dbMb: number;
  dbToFileRatio: number;
}

interface Verdict {
  value: number | null;
  target: string;
  pass: boolean;
}

/** Another tool loading the same file: its time and memory beside the engine's. */
interface ComparisonReport {
  tool: string;
  command: string;
  wallSeconds: number;
  peakRssMb: number | null;
  /** What it produced: rows in the table (DuckDB), records printed (jq). */
  records: number | null;
  error?: string;
}

interface TraceBenchReport {
  trace: {
    path: string;
    bytes: number;
    mb: number;
    lines: number;
    events: number;
    garbageLines: number;
    runs: number;
    maxLineBytes: number;
    seed: number;
    reused: boolean;
    generateSeconds: number;
  };
  baseline?: BaselineReport;
  engine?: EngineReport;
  comparisons?: ComparisonReport[];
  verdicts?: { throughputRatio: Verdict; peakRss: Verdict };
  error?: string;
}

interface BenchReport {
  date: string;
  machine: { cpu: string; cores: number; memoryGb: number; os: string; node: string };
  traces: TraceBenchReport[];
  /** The UI benchmark (scripts/bench-ui.ts); absent with `--no-ui`. */
  ui?: UiBenchReport | { error: string };
}

/** `{files:[{events,…}], runs:[…], findings:[…]}`, the part of `analyze --json` the bench reads. */
interface AnalyzeOutput {
  files: { path: string; bytes: number; lines: number; events: number; parse_errors: unknown[] }[];
  runs: unknown[];
  findings: unknown[];
}

class StepError extends Error {}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function toMb(bytes: number | null): number | null {
  return bytes === null ? null : round(bytes / MB, 1);
}

function machineInfo(): BenchReport['machine'] {
  const cpuList = cpus();
  return {
    cpu: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    memoryGb: round(totalmem() / 1024 ** 3, 1),
    os: `${osType()} ${osRelease()}`,
    node: process.version,
  };
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

async function runBaseline(trace: TraceInfo): Promise<BaselineReport> {
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

async function runEngineOnce(cliPath: string, trace: TraceInfo, cacheDir: string, label: string): Promise<EngineRunReport> {
  log(`engine: ${label}…`);
  const run = await measureNode({
    args: [cliPath, 'analyze', trace.path, '--json', '--fail-on', 'never'],
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
    mbPerSecond: round(trace.stats.bytes / MB / run.wallSeconds, 1),
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

async function runEngine(cliPath: string, trace: TraceInfo, keepCache: boolean): Promise<EngineReport> {
  if (!existsSync(cliPath)) throw new StepError(`${display(cliPath)} not found (run \`npm run build\` first)`);
  const cacheDir = mkdtempSync(join(tmpdir(), 'loopscope-bench-cache-'));
  try {
    const ingest = await runEngineOnce(cliPath, trace, cacheDir, 'ingest from scratch');
    const dbBytes = directoryBytes(cacheDir);
    const reopen = await runEngineOnce(cliPath, trace, cacheDir, 'reopen unchanged file');
    if (reopen.events !== ingest.events) log(`warning: reopen reported ${reopen.events} events, ingest ${ingest.events}`);
    return {
      command: `${process.execPath} ${display(cliPath)} analyze <trace> --json --fail-on never`,
      ingest,
      reopen,
      dbBytes,
      dbMb: round(dbBytes / MB, 1),
      dbToFileRatio: round(dbBytes / trace.stats.bytes, 2),
    };
  } finally {
    if (keepCache) log(`cache kept in ${cacheDir}`);
    else rmSync(cacheDir, { recursive: true, force: true });
  }
}

// --- 4. other tools on the same file ----------------------------------------------------------------

async function runDuckDb(trace: TraceInfo): Promise<ComparisonReport> {
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

async function runJq(trace: TraceInfo): Promise<ComparisonReport> {
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

// --- 5. report -----------------------------------------------------------------------------------

function fmt(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function verdicts(baseline: BaselineReport, engine: EngineReport): TraceBenchReport['verdicts'] {
  const ratio = round(engine.ingest.mbPerSecond / baseline.mbPerSecond, 3);
  const rss = engine.ingest.peakRssMb;
  return {
    throughputRatio: { value: ratio, target: `>= ${THROUGHPUT_TARGET}`, pass: ratio >= THROUGHPUT_TARGET },
    peakRss: { value: rss, target: `< ${RSS_TARGET_MB} MB`, pass: rss !== null && rss < RSS_TARGET_MB },
  };
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col] ?? 0) : cell.padStart(widths[col] ?? 0))).join('   '));
}

function traceReport(report: TraceBenchReport): string[] {
  const { trace, baseline, engine } = report;
  const out: string[] = [];
  out.push(
    `trace    ${display(trace.path)} (${trace.reused ? 'reused' : `generated in ${fmt(trace.generateSeconds)} s`})`,
    `         ${fmt(trace.mb)} MB, ${fmt(trace.lines, 0)} lines, ${fmt(trace.events, 0)} records, ${fmt(trace.runs, 0)} runs, ${trace.garbageLines} garbage lines, longest line ${fmt(trace.maxLineBytes / 1024)} KB, seed ${trace.seed}`,
    '',
  );
  const rows: string[][] = [['', 'time s', 'MB/s', 'peak RSS MB', 'engine time ÷ this', 'engine RSS ÷ this']];
  if (baseline) rows.push(['baseline (split + JSON.parse)', fmt(baseline.wallSeconds, 2), fmt(baseline.mbPerSecond), fmt(baseline.peakRssMb), '', '']);
  if (engine) {
    const e = engine.ingest;
    rows.push(['Loopscope (analyze, fresh cache)', fmt(e.wallSeconds, 2), fmt(e.mbPerSecond), fmt(e.peakRssMb), '', '']);
    rows.push(['Loopscope (reopen, same cache)', fmt(engine.reopen.wallSeconds, 2), '', fmt(engine.reopen.peakRssMb), '', '']);
  }
  for (const other of report.comparisons ?? []) {
    if (other.error !== undefined) {
      rows.push([other.tool, 'failed', '', '', '', '']);
      continue;
    }
    const timeRatio = engine ? fmt(engine.ingest.wallSeconds / other.wallSeconds, 2) : '';
    const rssRatio = engine && engine.ingest.peakRssMb !== null && other.peakRssMb !== null ? fmt(engine.ingest.peakRssMb / other.peakRssMb, 2) : '';
    rows.push([other.tool, fmt(other.wallSeconds, 2), fmt(trace.mb / other.wallSeconds), fmt(other.peakRssMb), timeRatio, rssRatio]);
  }
  out.push(...table(rows), '');
  if (report.verdicts) {
    const { throughputRatio, peakRss } = report.verdicts;
    out.push(
      `throughput engine/baseline  ${fmt(throughputRatio.value, 2).padEnd(10)} target ${throughputRatio.target.padEnd(10)} ${throughputRatio.pass ? 'PASS' : 'MISS'}`,
    );
    out.push(`engine peak RSS (tree)      ${`${fmt(peakRss.value)} MB`.padEnd(10)} target ${peakRss.target.padEnd(10)} ${peakRss.pass ? 'PASS' : 'MISS'}`);
  }
  const duckdb = report.comparisons?.find((other) => other.tool.startsWith('DuckDB'));
  if (engine && duckdb && duckdb.error === undefined) {
    const faster = engine.ingest.wallSeconds < duckdb.wallSeconds;
    out.push(
      `load time vs DuckDB         ${fmt(engine.ingest.wallSeconds, 2)} s vs ${fmt(duckdb.wallSeconds, 2)} s  target: faster     ${faster ? 'PASS' : 'MISS'}`,
    );
  }
  for (const other of report.comparisons ?? []) if (other.error !== undefined) out.push(`${other.tool} failed: ${other.error}`);
  if (engine) {
    const e = engine.ingest;
    out.push(`database size               ${fmt(engine.dbMb)} MB = ${fmt(engine.dbToFileRatio, 2)} × file size`);
    out.push(`reopen unchanged file       ${fmt(engine.reopen.wallSeconds, 2)} s`);
    out.push(
      `engine result               ${fmt(e.events, 0)} events, ${fmt(e.runs, 0)} runs, ${fmt(e.findings, 0)} findings, ${fmt(e.parseErrors, 0)} parse errors`,
    );
    out.push(
      `peak RSS detail             sampled tree ${fmt(e.sampledTreePeakRssMb)} MB (${e.maxProcesses ?? 'n/a'} process(es) at most), main process VmHWM ${fmt(e.childMaxRssMb)} MB`,
    );
  }
  if (report.error) out.push('', `ERROR: ${report.error}`);
  return out;
}

function printReport(report: BenchReport): void {
  const { machine } = report;
  const out: string[] = [
    'Loopscope ingest benchmark',
    `machine  ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB RAM, ${machine.os}, Node ${machine.node}`,
    '',
  ];
  for (const trace of report.traces) out.push(...traceReport(trace), '');
  if (report.ui) out.push('error' in report.ui ? `UI (Chromium, playwright-core)\nERROR: ${report.ui.error}` : formatUiReport(report.ui), '');
  process.stdout.write(`${out.join('\n')}\n`);
}

async function benchTrace(trace: TraceInfo, options: { cliPath: string; keepCache: boolean; compare: boolean }): Promise<TraceBenchReport> {
  const report: TraceBenchReport = {
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
    report.baseline = await runBaseline(trace);
    report.engine = await runEngine(options.cliPath, trace, options.keepCache);
    report.verdicts = verdicts(report.baseline, report.engine);
    if (options.compare) report.comparisons = [await runDuckDb(trace), await runJq(trace)];
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
      'no-ui': { type: 'boolean', default: false },
      cli: { type: 'string', default: 'bin/loopscope.js' },
    },
  });
  const targetBytes = parseSize(values.size);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const kinds = values.trace === 'all' ? traceKinds : traceKinds.filter((kind) => kind === values.trace);
  if (kinds.length === 0) throw new Error(`--trace must be synthetic, exchange or all, got ${values.trace}`);
  const cliPath = resolve(repoRoot, values.cli);

  const report: BenchReport = { date: new Date().toISOString(), machine: machineInfo(), traces: [] };
  let synthetic: TraceInfo | undefined;
  for (const kind of kinds) {
    const trace = ensureTrace(kind, targetBytes, seed, values.regenerate, log);
    if (kind === 'synthetic') synthetic = trace;
    report.traces.push(await benchTrace(trace, { cliPath, keepCache: values['keep-cache'], compare: !values['no-compare'] }));
  }
  if (!values['no-ui']) {
    log('UI benchmark (Chromium)…');
    try {
      report.ui = await runUiBench({
        syntheticTrace: synthetic ?? ensureTrace('synthetic', targetBytes, seed, values.regenerate, log),
        seed,
        log: (message) => log(`ui: ${message}`),
      });
    } catch (error) {
      report.ui = { error: error instanceof Error ? error.message : String(error) };
    }
  }
  if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else printReport(report);
  const uiFailed = report.ui !== undefined && ('error' in report.ui || report.ui.errors.length > 0);
  return report.traces.some((trace) => trace.error !== undefined) || uiFailed ? 1 : 0;
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
