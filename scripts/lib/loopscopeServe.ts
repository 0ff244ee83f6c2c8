/**
 * `loopscope serve FILE --cache-dir DIR` as a benchmark starts it: the built CLI in its own process
 * group (so stopping it stops everything it started), timed from the spawn to the URL it prints,
 * with the cache directory chosen by the caller (a fresh one for a first open, the same one again
 * for a reopen). Also the HTTP API as the page calls it (`POST <url>api/<method>`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../devkit/repoPaths';

export interface ServedTrace {
  /** `http://127.0.0.1:PORT/<token>/`. */
  url: string;
  pid: number;
  /** `performance.timeOrigin + performance.now()` (ms since the epoch) just before the spawn. */
  spawnedAt: number;
  /** The same clock when the URL line was read from its stdout. */
  urlAt: number;
  /** Stops the server and its whole process group; resolves once it exited. */
  stop(): Promise<void>;
}

const servingLine = /Loopscope is serving .* at (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)\s*$/m;

/** Milliseconds since the epoch, sub-millisecond, on the monotonic clock. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

export async function serveTrace(file: string, cacheDir: string): Promise<ServedTrace> {
  if (!existsSync(join(repoRoot, 'out', 'renderer', 'index.html')) || !existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) {
    throw new Error('The app is not built: run `npm run build` first.');
  }
  const spawnedAt = epochNow();
  // The benchmark traces were just generated, so a followed open would take them for files still
  // being written and leave their first ingest unfinished: they are read as the finished logs they are.
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'loopscope.js'), 'serve', file, '--cache-dir', cacheDir, '--no-follow'], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = () => stopGroup(child, exited);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  try {
    const { url, urlAt } = await new Promise<{ url: string; urlAt: number }>((resolve, reject) => {
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const match = servingLine.exec(stdout);
        if (match?.[1]) resolve({ url: match[1], urlAt: epochNow() });
      });
      child.on('error', reject);
      child.on('exit', (code, signal) => reject(new Error(`loopscope serve exited (${code ?? signal}) before serving:\n${stdout}${stderr}`)));
    });
    return { url, urlAt, spawnedAt, pid: child.pid ?? -1, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** SIGTERM to the process group, SIGKILL after 10 s if it is still there. */
async function stopGroup(child: ChildProcess, exited: Promise<void>): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  if (child.exitCode === null && child.signalCode === null) {
    signalGroup('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 10_000)))]);
    clearTimeout(timer);
  }
  // Whatever of the group outlived the leader (or a leader that ignored SIGTERM).
  signalGroup('SIGKILL');
}

/** One API call as the page makes it: `POST <url>api/<method>` with a JSON body. */
export async function callApi<T>(url: string, method: string, request: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(`${url}api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
  const body = (await response.json().catch(() => undefined)) as unknown;
  if (!response.ok) throw new Error(`${method} answered HTTP ${response.status}: ${JSON.stringify(body)?.slice(0, 300)}`);
  return body as T;
}

export interface TraceProgress {
  traceId: string;
  state: 'ingesting' | 'ready' | 'failed';
  progress: { bytesRead: number; totalBytes: number; events: number; parseErrors?: number };
  reused?: boolean;
  error?: string | null;
}
