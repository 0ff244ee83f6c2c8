/**
 * Runs a child process and measures it: wall time, peak RSS of its process tree (sampled from
 * /proc), and the exact peak RSS of the main child — reported from inside it at exit for Node
 * (`measureNode`), read from /proc for any other program (`measureProgram`: jq, …).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { procAvailable, TreeMemorySampler } from './processTree';

export interface MeasuredRun {
  command: string[];
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  wallSeconds: number;
  /** Max sampled (every ~50 ms) sum of VmRSS over the child's process tree; null without /proc. */
  sampledTreePeakBytes: number | null;
  /** Peak RSS (VmHWM / ru_maxrss) of the main child process, reported by the child itself at exit. */
  childMaxRssBytes: number | null;
  /** The larger of the two: the reported peak RSS. */
  peakRssBytes: number | null;
  maxProcesses: number | null;
}

export interface MeasureOptions {
  /** Arguments after `process.execPath`. */
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  sampleIntervalMs?: number;
  /** Send the child's stdout to /dev/null instead of collecting it (a program that prints the whole trace). */
  discardStdout?: boolean;
}

const MAXRSS_ENV = 'LOOPSCOPE_BENCH_MAXRSS_FILE';

/**
 * Preloaded into the child: writes `process.resourceUsage().maxRSS` (KiB; the kernel's ru_maxrss,
 * i.e. the process's VmHWM) to a file on exit. Only on the main thread; not inherited by child
 * processes since it is passed as an argument, not through NODE_OPTIONS.
 */
const maxRssHook = `
import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
const file = process.env.${MAXRSS_ENV};
if (isMainThread && file) {
  process.on('exit', () => {
    try { writeFileSync(file, String(process.resourceUsage().maxRSS)); } catch {}
  });
}
`;

export function measureNode(options: MeasureOptions): Promise<MeasuredRun> {
  return measure(process.execPath, options, true);
}

/** Any executable (found on PATH); its peak RSS is the sampled high-water mark of its process. */
export function measureProgram(executable: string, options: MeasureOptions): Promise<MeasuredRun> {
  return measure(executable, options, false);
}

async function measure(executable: string, options: MeasureOptions, isNode: boolean): Promise<MeasuredRun> {
  const hookDir = mkdtempSync(join(tmpdir(), 'loopscope-bench-rss-'));
  const hookFile = join(hookDir, 'maxrss');
  const args = isNode ? ['--import', `data:text/javascript,${encodeURIComponent(maxRssHook)}`, ...options.args] : options.args;
  const started = performance.now();
  const child = spawn(executable, args, {
    cwd: options.cwd,
    env: { ...(options.env ?? process.env), [MAXRSS_ENV]: hookFile },
    stdio: ['ignore', options.discardStdout ? 'ignore' : 'pipe', 'pipe'],
  });
  const sampler = child.pid !== undefined && procAvailable() ? new TreeMemorySampler(child.pid, options.sampleIntervalMs) : undefined;
  sampler?.start();

  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

  try {
    const { exitCode, signal } = await new Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, sig) => resolve({ exitCode: code, signal: sig }));
    });
    const wallSeconds = (performance.now() - started) / 1000;
    const memory = sampler?.stop();
    let childMaxRssBytes: number | null = null;
    try {
      childMaxRssBytes = Number(readFileSync(hookFile, 'utf8')) * 1024;
    } catch {
      // The child died before its exit handlers ran (signal) or never started.
    }
    childMaxRssBytes ??= memory?.rootHwmBytes || null;
    const sampledTreePeakBytes = memory?.peakTreeRssBytes || null;
    const peaks = [sampledTreePeakBytes, childMaxRssBytes].filter((value): value is number => value !== null);
    return {
      command: [executable, ...options.args],
      exitCode,
      signal,
      stdout: Buffer.concat(stdout).toString('utf8'),
      stderr: Buffer.concat(stderr).toString('utf8'),
      wallSeconds,
      sampledTreePeakBytes,
      childMaxRssBytes,
      peakRssBytes: peaks.length > 0 ? Math.max(...peaks) : null,
      maxProcesses: memory?.maxProcesses ?? null,
    };
  } finally {
    sampler?.stop();
    rmSync(hookDir, { recursive: true, force: true });
  }
}
