/**
 * The report of `npm run bench` (scripts/bench.ts): what each step measured, the verdicts against
 * the ingest targets (PASS/MISS), and the text printed — per trace shape and size its table and
 * verdict lines, the million-event run's memory, then one summary table of every verdict in
 * Markdown, to paste into the README. `--json` prints the same report as data.
 */
import { cpus, loadavg, totalmem, type as osType, release as osRelease } from 'node:os';
import type { UiBenchReport } from '../bench-ui';
import { displayPath as display } from './benchTraces';

const MB = 1024 * 1024;
/** Engine MB/s ÷ baseline MB/s, at least. */
export const THROUGHPUT_TARGET = 0.5;
/** Peak RSS of the engine's process tree, below. */
export const RSS_TARGET_MB = 400;

/**
 * With `--repeat N` each contender runs N times, the rounds interleaved (every tool once per round),
 * and its report is its median round: `wallSamples` holds every round's time, in round order;
 * `peakRssMb` is the largest of any round, so a memory verdict is never the luckiest round's.
 */
export interface Repeated {
  wallSamples: number[];
}

export interface BaselineReport extends Repeated {
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

export interface EngineRunReport {
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

export interface EngineReport {
  command: string;
  ingest: EngineRunReport & Repeated;
  reopen: EngineRunReport;
  dbBytes: number;
  dbMb: number;
  dbToFileRatio: number;
}

/** A figure against its target. */
export interface Verdict {
  /** The figure compared: a ratio, megabytes, or Loopscope's time ÷ the other tool's. */
  value: number | null;
  /** The figure as the report shows it. */
  shown: string;
  target: string;
  pass: boolean;
}

export interface TraceVerdicts {
  throughputRatio: Verdict;
  peakRss: Verdict;
  /** Loopscope's ingest time ÷ DuckDB's; absent with `--no-compare`. */
  fasterThanDuckDb?: Verdict;
  /** Loopscope's ingest time ÷ jq's; absent with `--no-compare`. */
  fasterThanJq?: Verdict;
}

/** Another tool loading the same file: its time and memory beside the engine's. */
export interface ComparisonReport extends Repeated {
  tool: string;
  command: string;
  wallSeconds: number;
  peakRssMb: number | null;
  /** What it produced: rows in the table (DuckDB), records printed (jq). */
  records: number | null;
  error?: string;
}

export interface TraceBenchReport {
  kind: string;
  /** The size asked for, as in the file name: `200MB`, `1GB`. */
  size: string;
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
  verdicts?: TraceVerdicts;
  error?: string;
}

/** `loopscope analyze --json` on one run of a million events, from a fresh cache. */
export interface LongRunReport {
  trace: { path: string; mb: number; events: number; reused: boolean };
  command: string;
  analyze?: EngineRunReport;
  verdict?: Verdict;
  error?: string;
}

/** One line of the summary table: a trace (shape and size) against one target. */
export interface SummaryRow {
  trace: string;
  size: string;
  target: string;
  value: string;
  verdict: 'PASS' | 'MISS' | 'ERROR';
}

export interface BenchReport {
  date: string;
  machine: MachineInfo;
  traces: TraceBenchReport[];
  /** Absent with `--no-long-run`. */
  longRun?: LongRunReport;
  /** Every verdict above, one row each. */
  summary: SummaryRow[];
  /** The UI benchmark (scripts/bench-ui.ts); absent with `--no-ui`. */
  ui?: UiBenchReport | { error: string };
}

/** The round with the median time (the lower middle one of an even count), with every round's time and the largest peak RSS. */
export function medianRound<Run extends { wallSeconds: number; peakRssMb: number | null }>(runs: readonly Run[]): Run & Repeated {
  if (runs.length === 0) throw new Error('no round to take the median of');
  const byTime = [...runs].sort((a, b) => a.wallSeconds - b.wallSeconds);
  const median = byTime[Math.floor((byTime.length - 1) / 2)]!;
  const peaks = runs.map((run) => run.peakRssMb).filter((peak): peak is number => peak !== null);
  return { ...median, peakRssMb: peaks.length === 0 ? null : Math.max(...peaks), wallSamples: runs.map((run) => run.wallSeconds) };
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function toMb(bytes: number | null): number | null {
  return bytes === null ? null : round(bytes / MB, 1);
}

function fmt(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

// --- verdicts --------------------------------------------------------------------------------------

export function rssVerdict(peakRssMb: number | null): Verdict {
  return { value: peakRssMb, shown: `${fmt(peakRssMb, 0)} MB`, target: `< ${RSS_TARGET_MB} MB`, pass: peakRssMb !== null && peakRssMb < RSS_TARGET_MB };
}

/** Loopscope's ingest against another tool on the same file: faster passes; a tool that failed is no pass. */
function fasterVerdict(engine: EngineReport, other: ComparisonReport | undefined): Verdict | undefined {
  if (other === undefined) return undefined;
  if (other.error !== undefined) return { value: null, shown: `${other.tool} failed`, target: 'faster', pass: false };
  const ratio = round(engine.ingest.wallSeconds / other.wallSeconds, 3);
  return { value: ratio, shown: `${fmt(engine.ingest.wallSeconds, 2)} s vs ${fmt(other.wallSeconds, 2)} s`, target: 'faster', pass: ratio < 1 };
}

export function traceVerdicts(baseline: BaselineReport, engine: EngineReport, comparisons: readonly ComparisonReport[] | undefined): TraceVerdicts {
  const ratio = round(engine.ingest.mbPerSecond / baseline.mbPerSecond, 3);
  const verdicts: TraceVerdicts = {
    throughputRatio: { value: ratio, shown: fmt(ratio, 2), target: `>= ${THROUGHPUT_TARGET}`, pass: ratio >= THROUGHPUT_TARGET },
    peakRss: rssVerdict(engine.ingest.peakRssMb),
  };
  const duckDb = fasterVerdict(
    engine,
    comparisons?.find((other) => other.tool.startsWith('DuckDB')),
  );
  const jq = fasterVerdict(
    engine,
    comparisons?.find((other) => other.tool.startsWith('jq')),
  );
  if (duckDb) verdicts.fasterThanDuckDb = duckDb;
  if (jq) verdicts.fasterThanJq = jq;
  return verdicts;
}

const verdictTargets: Record<keyof TraceVerdicts, string> = {
  throughputRatio: `throughput ≥ ${THROUGHPUT_TARGET} × baseline`,
  peakRss: `peak RSS < ${RSS_TARGET_MB} MB`,
  fasterThanDuckDb: 'faster than DuckDB read_json',
  fasterThanJq: 'faster than jq -c',
};

const verdictWord = (verdict: Verdict): 'PASS' | 'MISS' => (verdict.pass ? 'PASS' : 'MISS');

export function summaryRows(traces: readonly TraceBenchReport[], longRun: LongRunReport | undefined): SummaryRow[] {
  const rows: SummaryRow[] = [];
  for (const report of traces) {
    const base = { trace: report.kind, size: report.size };
    if (report.error !== undefined) rows.push({ ...base, target: 'the bench', value: report.error.split('\n')[0] ?? '', verdict: 'ERROR' });
    for (const key of Object.keys(verdictTargets) as (keyof TraceVerdicts)[]) {
      const verdict = report.verdicts?.[key];
      if (verdict) rows.push({ ...base, target: verdictTargets[key], value: verdict.shown, verdict: verdictWord(verdict) });
    }
  }
  if (longRun) {
    const base = { trace: `long-run, ${fmt(longRun.trace.events, 0)} events`, size: `${fmt(longRun.trace.mb, 0)} MB` };
    if (longRun.verdict)
      rows.push({
        ...base,
        target: `analyze peak RSS < ${RSS_TARGET_MB} MB`,
        value: `${longRun.verdict.shown} (${fmt(longRun.analyze?.wallSeconds, 1)} s)`,
        verdict: verdictWord(longRun.verdict),
      });
    else rows.push({ ...base, target: 'the bench', value: longRun.error?.split('\n')[0] ?? '', verdict: 'ERROR' });
  }
  return rows;
}

// --- text ------------------------------------------------------------------------------------------

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col] ?? 0) : cell.padStart(widths[col] ?? 0))).join('   '));
}

function verdictLine(label: string, verdict: Verdict): string {
  return `${label.padEnd(28)}${verdict.shown.padEnd(22)} target ${verdict.target.padEnd(10)} ${verdictWord(verdict)}`;
}

function timesTable(report: TraceBenchReport): string[] {
  const { trace, baseline, engine } = report;
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
  return table(rows);
}

/** Every round's time of each contender, when there was more than one (the table shows the medians). */
function roundsText(report: TraceBenchReport): string[] {
  const contenders: [string, Repeated | undefined][] = [
    ['baseline', report.baseline],
    ['Loopscope (analyze, fresh cache)', report.engine?.ingest],
    ...(report.comparisons ?? []).map((other): [string, Repeated] => [other.tool, other]),
  ];
  const rounds = Math.max(...contenders.map(([, times]) => times?.wallSamples.length ?? 0));
  if (rounds < 2) return [];
  return [
    `rounds (${rounds}, interleaved; the table shows each one's median):`,
    ...contenders.map(([name, times]) => `  ${name.padEnd(32)} ${(times?.wallSamples ?? []).map((seconds) => fmt(seconds, 2)).join(' / ')} s`),
    '',
  ];
}

function traceText(report: TraceBenchReport): string[] {
  const { trace, engine, verdicts } = report;
  const out: string[] = [
    `trace    ${report.kind} ${report.size}: ${display(trace.path)} (${trace.reused ? 'reused' : `generated in ${fmt(trace.generateSeconds)} s`})`,
    `         ${fmt(trace.mb)} MB, ${fmt(trace.lines, 0)} lines, ${fmt(trace.events, 0)} records, ${fmt(trace.runs, 0)} runs, ${trace.garbageLines} garbage lines, longest line ${fmt(trace.maxLineBytes / 1024)} KB, seed ${trace.seed}`,
    '',
    ...timesTable(report),
    '',
    ...roundsText(report),
  ];
  if (verdicts) {
    out.push(verdictLine('throughput engine/baseline', verdicts.throughputRatio), verdictLine('engine peak RSS (tree)', verdicts.peakRss));
    if (verdicts.fasterThanDuckDb) out.push(verdictLine('load time vs DuckDB', verdicts.fasterThanDuckDb));
    if (verdicts.fasterThanJq) out.push(verdictLine('load time vs jq', verdicts.fasterThanJq));
  }
  for (const other of report.comparisons ?? []) if (other.error !== undefined) out.push(`${other.tool} failed: ${other.error}`);
  if (engine) {
    const e = engine.ingest;
    out.push(
      `database size               ${fmt(engine.dbMb)} MB = ${fmt(engine.dbToFileRatio, 2)} × file size`,
      `reopen unchanged file       ${fmt(engine.reopen.wallSeconds, 2)} s`,
      `engine result               ${fmt(e.events, 0)} events, ${fmt(e.runs, 0)} runs, ${fmt(e.findings, 0)} findings, ${fmt(e.parseErrors, 0)} parse errors`,
      `peak RSS detail             sampled tree ${fmt(e.sampledTreePeakRssMb)} MB (${e.maxProcesses ?? 'n/a'} process(es) at most), main process VmHWM ${fmt(e.childMaxRssMb)} MB`,
    );
  }
  if (report.error) out.push('', `ERROR: ${report.error}`);
  return out;
}

function longRunText(report: LongRunReport): string[] {
  const out = [
    `long run ${display(report.trace.path)} (${report.trace.reused ? 'reused' : 'generated'}): one run, ${fmt(report.trace.events, 0)} events, ${fmt(report.trace.mb)} MB`,
    `         ${report.command}, fresh cache`,
  ];
  const { analyze, verdict } = report;
  if (analyze && verdict) {
    out.push(
      `analyze time                ${fmt(analyze.wallSeconds, 2)} s, ${fmt(analyze.events, 0)} events, ${fmt(analyze.runs, 0)} run(s)`,
      verdictLine('analyze peak RSS (tree)', verdict),
      `peak RSS detail             sampled tree ${fmt(analyze.sampledTreePeakRssMb)} MB (${analyze.maxProcesses ?? 'n/a'} process(es) at most), main process VmHWM ${fmt(analyze.childMaxRssMb)} MB`,
    );
  }
  if (report.error) out.push(`ERROR: ${report.error}`);
  return out;
}

function summaryText(rows: readonly SummaryRow[]): string[] {
  return [
    'Summary (Markdown):',
    '',
    '| trace | size | target | measured | verdict |',
    '|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.trace} | ${row.size} | ${row.target} | ${row.value.replaceAll('|', '\\|')} | ${row.verdict === 'PASS' ? 'PASS' : `**${row.verdict}**`} |`,
    ),
  ];
}

export function formatBenchReport(report: BenchReport, formatUiReport: (ui: UiBenchReport) => string): string {
  const { machine } = report;
  const out: string[] = [
    'Loopscope ingest benchmark',
    `machine  ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB RAM, ${machine.os}, Node ${machine.node}`,
    '',
  ];
  for (const trace of report.traces) out.push(...traceText(trace), '');
  if (report.longRun) out.push(...longRunText(report.longRun), '');
  if (report.ui) out.push('error' in report.ui ? `UI (Chromium, playwright-core)\nERROR: ${report.ui.error}` : formatUiReport(report.ui), '');
  out.push(...summaryText(report.summary));
  return `${out.join('\n')}\n`;
}

/** The machine a benchmark ran on, with its load then: a noisy machine reads slower. */
export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGb: number;
  os: string;
  node: string;
  loadAverage: number[];
}

export function machineInfo(): MachineInfo {
  const cpuList = cpus();
  const round1 = (value: number): number => Math.round(value * 10) / 10;
  return {
    cpu: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    memoryGb: round1(totalmem() / 1024 ** 3),
    os: `${osType()} ${osRelease()}`,
    node: process.version,
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}
