/**
 * Keeps the library database in step with the files under its roots (docs/semantics.md §18): finds
 * every trace file (as `loopscope analyze DIR` does: sub-agent transcripts with their session),
 * indexes those it does not hold or that changed since (size or modification time), removes those
 * that are gone, and looks again every `rescanMs`, so a file written while the library is open
 * appears, and one appended to is indexed again.
 *
 * Indexing a file is opening it with the engine (its cache is built, or reused when unchanged),
 * then copying its runs, findings and calls into the library (traceFacts.ts).
 *
 * A file written to within the idle time (`followIdleMs`, the app's `--idle-after`) is being
 * written now: it is followed, as an open trace is, so its runs without a terminal event read
 * `running` (their unanswered calls pending, not dangling) and its rows are replaced as it grows,
 * until it has not grown for the idle time and they become what the file says for good. That is
 * how received OpenTelemetry spans (src-main/otlp/) show a run live until its root span ends.
 */
import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { LibraryStatus } from '../../../shared/library/libraryApi';
import type { AnalysisOptions } from '../../../shared/report';
import type { UserPrices } from '../../../shared/cost/userPrices';
import { DEFAULT_STORE_WORKER_MIN_BYTES, OpenStopped, openTrace, openTraceHere, TraceFileError, type FollowOptions, type TraceHandle } from '../../engine';
import { traceIdFor } from '../traceId';
import { expandTraceArguments, withCompanionsInTheirTrace, type TraceArgument } from '../traceFiles';
import { readTraceFacts } from './traceFacts';
import { storedAggregates } from './libraryQueries';
import { LibraryWriter, type FileOutcome, type IndexedFile } from './libraryWriter';

/** How long a reopened library waits before it looks at its files again. */
const REOPEN_QUIET_MS = 1500;

export interface LibraryIndexerOptions {
  roots: readonly string[];
  cacheDir: string;
  analysis: AnalysisOptions;
  userPrices: UserPrices | null;
  /** How long to wait between two looks for changed files; null: look once. */
  rescanMs: number | null;
  /** Files indexed at once: each is ingested by its own engine worker. */
  concurrency: number;
  /** A file written to within this long is followed until it has not grown for this long; null: every file is read once. */
  followIdleMs: number | null;
  onStatus: (status: LibraryStatus) => void;
}

/** Files followed at once, each with an engine worker: beyond it, a file being written is read as it is now. */
const MAX_FOLLOWED_FILES = 8;

/** Failures listed in the status; the rest are counted. */
const LISTED_FAILURES = 20;

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}

/** The trace files under the roots now: a root that is gone, or a directory with none, gives none. */
function traceFilesUnder(roots: readonly string[]): TraceArgument[] {
  const found: TraceArgument[] = [];
  for (const root of roots) {
    try {
      found.push(...expandTraceArguments([root]));
    } catch {
      // An empty directory: files may come later.
    }
  }
  return withCompanionsInTheirTrace(found);
}

function identify(file: TraceArgument): (IndexedFile & { fromDirectory: boolean }) | null {
  try {
    const stat = statSync(file.path);
    return { path: file.path, traceId: traceIdFor(file.path), size: stat.size, mtimeMs: stat.mtimeMs, fromDirectory: file.fromDirectory };
  } catch {
    return null;
  }
}

export class LibraryIndexer {
  private readonly writer: LibraryWriter;
  private stopped = false;
  /** Aborted by `stop`: an ingest under way ends before its next chunk. */
  private readonly stopping = new AbortController();
  private wake: (() => void) | null = null;
  private status: LibraryStatus;
  private readonly failures = new Map<string, string>();
  private readonly skipped = new Set<string>();
  private running: Promise<void> | null = null;
  /** The files being followed (written to within the idle time), kept up to date by their followers, not by scans. */
  private readonly following = new Map<string, TraceHandle>();

  constructor(
    private readonly db: Database.Database,
    private readonly options: LibraryIndexerOptions,
  ) {
    this.writer = new LibraryWriter(db);
    this.status = { roots: [...options.roots], state: 'indexing', files: 0, indexed: 0, skipped: 0, failed: 0, failures: [], current: null, revision: 0 };
  }

  /** Starts indexing; the promise settles when it stops (rejecting if the library cannot be written). */
  start(): Promise<void> {
    this.running = this.loop();
    return this.running;
  }

  /** Stops after the files being indexed; resolves once it has. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    this.wake?.();
    await this.running?.catch(() => undefined);
    await Promise.all([...this.following.keys()].map((path) => this.unfollow(path)));
  }

  private report(change: Partial<LibraryStatus>): void {
    this.status = {
      ...this.status,
      ...change,
      skipped: this.skipped.size,
      failed: this.failures.size,
      failures: [...this.failures].slice(0, LISTED_FAILURES).map(([path, reason]) => ({ path, reason })),
    };
    this.options.onStatus(this.status);
  }

  private async loop(): Promise<void> {
    // What the library held when it was last open is there to read before the first look at the files,
    // which waits a moment: a walk of thousands of files would compete with the page's first reads.
    const held = this.writer.knownFiles();
    for (const [path, file] of held) {
      if (file.state === 'skipped') this.skipped.add(path);
      if (file.state === 'failed') this.failures.set(path, file.error ?? 'could not be read');
    }
    this.report(held.size > 0 ? { state: 'idle', files: held.size, indexed: held.size } : {});
    if (held.size > 0 && this.options.rescanMs !== null) await this.pause(REOPEN_QUIET_MS);
    for (;;) {
      if (this.stopped) return;
      await this.scan();
      // The start page's first view, computed once per change, not at every page load.
      storedAggregates(this.db);
      if (this.stopped || this.options.rescanMs === null) return;
      await this.pause(this.options.rescanMs);
      if (this.stopped) return;
    }
  }

  /** Waits `ms`, or less when stopped. */
  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }

  private async scan(): Promise<void> {
    const known = this.writer.knownFiles();
    // Runs stored as running by a follower that stopped before the file went idle (the app was closed): read again.
    const leftRunning = new Set(this.writer.pathsWithRunningRuns());
    const found = traceFilesUnder(this.options.roots).flatMap((file) => identify(file) ?? []);
    const foundPaths = new Set(found.map((file) => file.path));
    let changed = false;
    for (const path of known.keys()) {
      if (foundPaths.has(path)) continue;
      this.writer.remove(path);
      this.failures.delete(path);
      this.skipped.delete(path);
      changed = true;
    }
    const stale = found.filter((file) => {
      if (this.following.has(file.path)) return false;
      const held = known.get(file.path);
      const unchanged = held !== undefined && held.size === file.size && held.mtimeMs === file.mtimeMs && !leftRunning.has(file.path);
      // A file that failed in an earlier session and has not changed stays failed, and said so.
      if (unchanged && held.state === 'failed') this.failures.set(file.path, held.error ?? 'could not be read');
      if (unchanged && held.state === 'skipped') this.skipped.add(file.path);
      return !unchanged;
    });
    const indexedBefore = found.length - stale.length;
    if (changed) this.report({ revision: this.status.revision + 1 });
    if (stale.length === 0) {
      if (this.status.state !== 'idle' || this.status.files !== found.length)
        this.report({ state: 'idle', files: found.length, indexed: found.length, current: null });
      return;
    }
    let done = 0;
    this.report({ state: 'indexing', files: found.length, indexed: indexedBefore });
    const queue = stale.slice();
    const next = async (): Promise<void> => {
      for (let file = queue.shift(); file !== undefined && !this.stopped; file = queue.shift()) {
        this.report({ current: file.path });
        const outcome = await this.index(file);
        if (outcome === null) return;
        this.writer.replace(file, outcome);
        if (outcome.state === 'failed') this.failures.set(file.path, outcome.reason);
        else this.failures.delete(file.path);
        if (outcome.state === 'skipped') this.skipped.add(file.path);
        else this.skipped.delete(file.path);
        done += 1;
        this.report({ indexed: indexedBefore + done, revision: this.status.revision + 1 });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.options.concurrency) }, next));
    this.report({ state: 'idle', current: null });
  }

  private outcomeOf(trace: TraceHandle): FileOutcome {
    const facts = readTraceFacts(trace, this.options.analysis, this.options.userPrices ?? undefined);
    return { state: 'indexed', facts, dbPath: trace.dbPath, sourceIds: [trace.sourceId, ...trace.companions.map((companion) => companion.sourceId)] };
  }

  /** How to follow the file when it is being written now (and there is room for one more); undefined: read it once. */
  private followOptions(file: IndexedFile): FollowOptions | undefined {
    const idleMs = this.options.followIdleMs;
    if (idleMs === null || Date.now() - file.mtimeMs >= idleMs || this.following.size >= MAX_FOLLOWED_FILES) return undefined;
    return {
      idleMs,
      onFollowed: (_progress, idle) => this.followed(file, idle),
      // Rewritten or gone: the next look at the files reads it again, or removes it.
      onReplaced: () => void this.unfollow(file.path),
      onStopped: () => void this.unfollow(file.path),
    };
  }

  /** A followed file's new lines are stored and analyzed (or it went idle): its rows are replaced with what it says now. */
  private followed(file: IndexedFile, idle: boolean): void {
    const trace = this.following.get(file.path);
    if (trace === undefined || this.stopped) return;
    let size = file.size;
    let mtimeMs = file.mtimeMs;
    try {
      ({ size, mtimeMs } = statSync(file.path));
    } catch {
      // Gone: the next look removes it.
    }
    this.writer.replace({ ...file, size, mtimeMs }, this.outcomeOf(trace));
    this.report({ revision: this.status.revision + 1 });
    if (idle) void this.unfollow(file.path);
  }

  private async unfollow(path: string): Promise<void> {
    const trace = this.following.get(path);
    if (trace === undefined) return;
    this.following.delete(path);
    await trace.stop();
  }

  /** How the file reads; null when indexing was stopped before it was read. */
  private async index(file: IndexedFile & { fromDirectory: boolean }): Promise<FileOutcome | null> {
    try {
      const options = { cacheDir: this.options.cacheDir, analysis: this.options.analysis, searchIndex: true, stopped: this.stopping.signal };
      const follow = this.followOptions(file);
      // A small file is read on this thread; a large one, or one to follow, in an engine worker, with a store worker beside it.
      const trace =
        follow === undefined && file.size < DEFAULT_STORE_WORKER_MIN_BYTES
          ? await openTraceHere(file.path, options)
          : await openTrace(file.path, { ...options, ...(follow ? { follow } : {}) });
      // Opened after the file went idle: it is read as it is, like any other.
      const followed = follow !== undefined && !trace.idle && !this.stopped;
      try {
        if (followed) this.following.set(file.path, trace);
        return this.outcomeOf(trace);
      } finally {
        if (!followed) await trace.stop();
      }
    } catch (error) {
      if (error instanceof OpenStopped) return null;
      if (file.fromDirectory && error instanceof TraceFileError && error.code === 'unknown_format') return { state: 'skipped', reason: error.reason };
      const reason = error instanceof TraceFileError ? error.reason : firstLine(error instanceof Error ? error.message : String(error));
      return { state: 'failed', reason };
    }
  }
}
