/**
 * `npm run bench`: ingest throughput and memory of the Loopscope engine against a plain
 * "split lines + JSON.parse" baseline, on a deterministic synthetic trace, in one run.
 *
 *   npm run bench [-- --size 200MB|1GB] [--seed N] [--json] [--regenerate] [--keep-cache]
 *                 [--cli bin/loopscope.js]
 *
 * Prints a report; exits 0 even when a target is missed, non-zero only when a step fails.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { cpus, totalmem, tmpdir, type as osType, release as osRelease } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateSyntheticTrace, GENERATOR_VERSION, parseSize, type GenerateStats } from './generate-synthetic-trace';
import { measureNode, type MeasuredRun } from './lib/measure';

const MB = 1024 * 1024;
const THROUGHPUT_TARGET = 0.5; // engine MB/s ÷ baseline MB/s, at least
const RSS_TARGET_MB = 300; // engine peak RSS, below

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface TraceInfo {
  path: string;
  reused: boolean;
  stats: GenerateStats;
}

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

interface BenchReport {
  date: string;
  machine: { cpu: string; cores: number; memoryGb: number; os: string; node: string };
  trace: { path: string; bytes: number; mb: number; lines: number; events: number; garbageLines: number; runs: number; maxLineBytes: number; seed: number; reused: boolean; generateSeconds: number };
  baseline?: BaselineReport;
  engine?: EngineReport;
  verdicts?: { throughputRatio: Verdict; peakRss: Verdict };
  error?: string;
}

/** `{files:[{events,…}], runs:[…], findings:[…]}`, the part of `analyze --json` the bench reads. */
interface AnalyzeOutput {
  files: { path: string; bytes: number; lines: number; events: number; parse_errors: unknown[] }[];
  runs: unknown[];
  findings: unknown[];
}

class StepError extends Error {}

/** Repo-relative when inside the repo, absolute otherwise. */
function display(path: string): string {
  const rel = relative(repoRoot, path);
  return rel.startsWith('..') ? path : rel;
}

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

// --- 1. the trace --------------------------------------------------------------------------------

function ensureTrace(targetBytes: number, seed: number, regenerate: boolean): TraceInfo {
  const size = targetBytes % 1024 ** 3 === 0 ? `${targetBytes / 1024 ** 3}GB` : targetBytes % MB === 0 ? `${targetBytes / MB}MB` : `${targetBytes}B`;
  const name = `synthetic-${size}-seed${seed}-v${GENERATOR_VERSION}`;
  const path = join(repoRoot, 'bench-data', `${name}.jsonl`);
  const metaPath = join(repoRoot, 'bench-data', `${name}.meta.json`);
  if (!regenerate && existsSync(path) && existsSync(metaPath)) {
    try {
      const stats = JSON.parse(readFileSync(metaPath, 'utf8')) as GenerateStats;
      if (stats.generatorVersion === GENERATOR_VERSION && stats.seed === seed && stats.targetBytes === targetBytes && statSync(path).size === stats.bytes) {
        log(`reusing ${display(path)}`);
        return { path, reused: true, stats };
      }
    } catch {
      // Unreadable metadata: regenerate.
    }
  }
  log(`generating ${display(path)} (${round(targetBytes / MB, 0)} MB, seed ${seed})…`);
  let logged = 0;
  const stats = generateSyntheticTrace({
    targetBytes,
    seed,
    outPath: path,
    onProgress: (bytes) => {
      if (bytes - logged < 128 * MB) return;
      logged = bytes;
      log(`  ${Math.round(bytes / MB)} MB`);
    },
  });
  writeFileSync(metaPath, `${JSON.stringify(stats, null, 2)}\n`);
  log(`generated in ${stats.seconds.toFixed(1)} s`);
  return { path, reused: false, stats };
}

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
 * The baseline script with its types stripped, in a temp file: running the .ts directly would
 * charge Node's type-stripping start-up (~0.1 s) to the baseline.
 */
function compiledBaseline(dir: string): string {
  const source = readFileSync(join(repoRoot, 'scripts/lib/baselineParse.ts'), 'utf8');
  const emitWarning = process.emitWarning;
  process.emitWarning = () => undefined; // "stripTypeScriptTypes is an experimental feature"
  try {
    const out = join(dir, 'baselineParse.mjs');
    writeFileSync(out, stripTypeScriptTypes(source));
    return out;
  } finally {
    process.emitWarning = emitWarning;
  }
}

async function runBaseline(trace: TraceInfo): Promise<BaselineReport> {
  log('baseline: split lines + JSON.parse…');
  const dir = mkdtempSync(join(tmpdir(), 'loopscope-bench-baseline-'));
  let run: MeasuredRun;
  try {
    run = await measureNode({ args: [compiledBaseline(dir), trace.path], cwd: repoRoot });
  } finally {
    rmSync(dir, { recursive: true, force: true });
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

// --- 5. report -----------------------------------------------------------------------------------

function fmt(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function verdicts(baseline: BaselineReport, engine: EngineReport): BenchReport['verdicts'] {
  const ratio = round(engine.ingest.mbPerSecond / baseline.mbPerSecond, 3);
  const rss = engine.ingest.peakRssMb;
  return {
    throughputRatio: { value: ratio, target: `>= ${THROUGHPUT_TARGET}`, pass: ratio >= THROUGHPUT_TARGET },
    peakRss: { value: rss, target: `< ${RSS_TARGET_MB} MB`, pass: rss !== null && rss < RSS_TARGET_MB },
  };
}

function printReport(report: BenchReport): void {
  const { machine, trace, baseline, engine } = report;
  const out: string[] = [];
  out.push('Loopscope ingest benchmark');
  out.push(`machine  ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB RAM, ${machine.os}, Node ${machine.node}`);
  out.push(
    `trace    ${display(trace.path)} (${trace.reused ? 'reused' : `generated in ${fmt(trace.generateSeconds)} s`})`,
    `         ${fmt(trace.mb)} MB, ${fmt(trace.lines, 0)} lines, ${fmt(trace.events, 0)} events, ${fmt(trace.runs, 0)} runs, ${trace.garbageLines} garbage lines, longest line ${fmt(trace.maxLineBytes / 1024)} KB, seed ${trace.seed}`,
  );
  out.push('');
  const rows: string[][] = [['', 'time s', 'MB/s', 'events/s', 'lines/s', 'peak RSS MB']];
  if (baseline) rows.push(['baseline (split + JSON.parse)', fmt(baseline.wallSeconds, 2), fmt(baseline.mbPerSecond), fmt(baseline.eventsPerSecond, 0), fmt(baseline.linesPerSecond, 0), fmt(baseline.peakRssMb)]);
  if (engine) {
    const e = engine.ingest;
    rows.push(['engine (analyze, fresh cache)', fmt(e.wallSeconds, 2), fmt(e.mbPerSecond), fmt(e.eventsPerSecond, 0), fmt(e.linesPerSecond, 0), fmt(e.peakRssMb)]);
    const r = engine.reopen;
    rows.push(['engine (reopen, same cache)', fmt(r.wallSeconds, 2), '', '', '', fmt(r.peakRssMb)]);
  }
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length))) ?? [];
  for (const row of rows) out.push(row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col] ?? 0) : cell.padStart(widths[col] ?? 0))).join('   '));
  out.push('');
  if (report.verdicts) {
    const { throughputRatio, peakRss } = report.verdicts;
    out.push(`throughput engine/baseline  ${fmt(throughputRatio.value, 2).padEnd(10)} target ${throughputRatio.target.padEnd(10)} ${throughputRatio.pass ? 'PASS' : 'MISS'}`);
    out.push(`engine peak RSS (tree)      ${`${fmt(peakRss.value)} MB`.padEnd(10)} target ${peakRss.target.padEnd(10)} ${peakRss.pass ? 'PASS' : 'MISS'}`);
  }
  if (engine) {
    const e = engine.ingest;
    out.push(`database size               ${fmt(engine.dbMb)} MB = ${fmt(engine.dbToFileRatio, 2)} × file size`);
    out.push(`reopen unchanged file       ${fmt(engine.reopen.wallSeconds, 2)} s`);
    out.push(`engine result               ${fmt(e.events, 0)} events, ${fmt(e.runs, 0)} runs, ${fmt(e.findings, 0)} findings, ${fmt(e.parseErrors, 0)} parse errors`);
    out.push(`peak RSS detail             sampled tree ${fmt(e.sampledTreePeakRssMb)} MB (${e.maxProcesses ?? 'n/a'} process(es) at most), main process VmHWM ${fmt(e.childMaxRssMb)} MB`);
  }
  if (report.error) out.push('', `ERROR: ${report.error}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      size: { type: 'string', default: '200MB' },
      seed: { type: 'string', default: '1' },
      json: { type: 'boolean', default: false },
      regenerate: { type: 'boolean', default: false },
      'keep-cache': { type: 'boolean', default: false },
      cli: { type: 'string', default: 'bin/loopscope.js' },
    },
  });
  const targetBytes = parseSize(values.size);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const cliPath = resolve(repoRoot, values.cli);

  const trace = ensureTrace(targetBytes, seed, values.regenerate);
  const report: BenchReport = {
    date: new Date().toISOString(),
    machine: machineInfo(),
    trace: {
      path: trace.path,
      bytes: trace.stats.bytes,
      mb: round(trace.stats.bytes / MB, 1),
      lines: trace.stats.lines,
      events: trace.stats.events,
      garbageLines: trace.stats.garbageLines,
      runs: trace.stats.runs,
      maxLineBytes: trace.stats.maxLineBytes,
      seed,
      reused: trace.reused,
      generateSeconds: round(trace.stats.seconds, 1),
    },
  };
  let failed = false;
  try {
    report.baseline = await runBaseline(trace);
    report.engine = await runEngine(cliPath, trace, values['keep-cache']);
    report.verdicts = verdicts(report.baseline, report.engine);
  } catch (error) {
    if (!(error instanceof StepError)) throw error;
    report.error = error.message;
    failed = true;
  }
  if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else printReport(report);
  return failed ? 1 : 0;
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
