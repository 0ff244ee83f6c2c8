/**
 * Peak memory of a child process and all its descendants, sampled from /proc (Linux only):
 * every `intervalMs`, walk /proc/<pid>/stat for parent links, sum VmRSS over the tree and keep
 * the maximum. Threads (worker_threads) belong to their process and are counted with it.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface TreeMemory {
  /** Highest sampled sum of VmRSS over the process tree, in bytes (0 if never sampled). */
  peakTreeRssBytes: number;
  /** Highest VmHWM read for the root process while it ran, in bytes. */
  rootHwmBytes: number;
  /** Most processes seen in the tree at once. */
  maxProcesses: number;
  samples: number;
}

export function procAvailable(): boolean {
  try {
    readFileSync('/proc/self/status', 'utf8');
    return true;
  } catch {
    return false;
  }
}

function readStatusKb(pid: number, field: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined; // exited meanwhile
  }
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return match?.[1] ? Number(match[1]) : undefined;
}

/** Parent pid of every live process. */
function parentLinks(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid …": comm may contain spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  return children;
}

export function processTree(rootPid: number): number[] {
  const children = parentLinks();
  const tree: number[] = [];
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop();
    if (pid === undefined) break;
    tree.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return tree;
}

export class TreeMemorySampler {
  private readonly result: TreeMemory = { peakTreeRssBytes: 0, rootHwmBytes: 0, maxProcesses: 0, samples: 0 };
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rootPid: number,
    private readonly intervalMs = 50,
  ) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  /** Stops sampling; call when the child has exited. */
  stop(): TreeMemory {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    return { ...this.result };
  }

  private sample(): void {
    let totalKb = 0;
    let live = 0;
    for (const pid of processTree(this.rootPid)) {
      const rss = readStatusKb(pid, 'VmRSS');
      if (rss === undefined) continue;
      totalKb += rss;
      live++;
    }
    if (live === 0) return;
    const hwm = readStatusKb(this.rootPid, 'VmHWM') ?? 0;
    this.result.samples++;
    this.result.peakTreeRssBytes = Math.max(this.result.peakTreeRssBytes, totalKb * 1024);
    this.result.rootHwmBytes = Math.max(this.result.rootHwmBytes, hwm * 1024);
    this.result.maxProcesses = Math.max(this.result.maxProcesses, live);
  }
}
