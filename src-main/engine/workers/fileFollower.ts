/**
 * Following a trace file while it is written, after the ingest worker's first read of it: waking
 * on the file system's change notices (or a poll), reading what was appended through the same
 * parse state into an append loader, telling a grown file from a replaced or deleted one, ending
 * the ingest once the file has gone idle, and watching a completely read file for a change. What
 * happens is reported as the worker's `followed`, `replaced` and `stopped` messages.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { GrowingFileIngest, IngestProgress } from '../ingest/ingestFile';
import { observeFile, readSoFar, type FileChange, type ReadSoFar } from '../ingest/followedFile';
import { identifyFile, openDatabase, type FileIdentity } from '../store/traceDatabase';
import { TraceLoader } from '../pipeline/traceLoader';
import type { RowBatch } from '../store/traceWriter';
import type { IngestRequest, IngestWorkerMessage } from './workerProtocol';

/** What following a file reports to the engine. */
export type FollowReport = Extract<IngestWorkerMessage, { type: 'followed' | 'replaced' | 'stopped' }>;

/** A followed file's ingest after its bulk load, and where its row batches go (its writer is replaced). */
export interface GrowingIngest {
  ingest: GrowingFileIngest;
  rows: { write: (batch: RowBatch) => void };
}

/**
 * Whether a file had not grown for the idle time when it was opened (an old log): it is read to its
 * end like any finished file, then watched in case it grows again.
 */
export function idleWhenOpened(identity: FileIdentity, follow: { idleMs: number }): boolean {
  return Date.now() - identity.mtimeMs >= follow.idleMs;
}

/**
 * How often a followed file is looked at when nothing says it changed: the file system's change
 * notices (inotify, FSEvents) wake the follow at once, but are not given on every file system
 * (network mounts, some containers), and say nothing of a file replaced at the same path.
 */
const FOLLOW_POLL_MS = 200;

/**
 * Waits for the next look at a followed file: a change notice for it, or the poll interval. A
 * loop writing many small lines wakes it often, and each look stores and re-analyzes the runs the
 * new lines touched; so a look comes no sooner after the last than that last one took (and at
 * least `MIN_LOOK_GAP_MS`): following a busy file uses at most about half of this thread.
 */
const MIN_LOOK_GAP_MS = 100;

class FileWakeups {
  private readonly watcher: FSWatcher | null;
  private wake: (() => void) | null = null;
  /** Ends the wait under way at once (the watch was stopped). */
  private interrupt: (() => void) | null = null;
  /** When the caller's last look started and how long it took (`next` is called when it ends). */
  private lookStartedAt = 0;

  /** `stopped` aborted: every wait ends at once (the caller then sees it aborted and stops looking). */
  constructor(
    path: string,
    private readonly stopped?: AbortSignal,
  ) {
    stopped?.addEventListener('abort', () => this.interrupt?.(), { once: true });
    let watcher: FSWatcher | null = null;
    try {
      watcher = watch(path, { persistent: false }, () => this.wake?.());
      // A watch that fails later (the file deleted) leaves the polling, which reports it.
      watcher.on('error', () => watcher?.close());
    } catch {
      // No notices here: polling alone.
    }
    this.watcher = watcher;
  }

  next(): Promise<void> {
    if (this.stopped?.aborted) return Promise.resolve();
    const lookTook = this.lookStartedAt === 0 ? 0 : performance.now() - this.lookStartedAt;
    const earliest = performance.now() + Math.max(MIN_LOOK_GAP_MS, lookTook);
    return new Promise((resolve) => {
      let timer = setTimeout(() => done(), Math.max(FOLLOW_POLL_MS, earliest - performance.now()));
      const done = (): void => {
        clearTimeout(timer);
        this.wake = null;
        this.interrupt = null;
        this.lookStartedAt = performance.now();
        resolve();
      };
      this.wake = () => {
        clearTimeout(timer);
        timer = setTimeout(done, Math.max(0, earliest - performance.now()));
      };
      this.interrupt = done;
    });
  }

  close(): void {
    this.watcher?.close();
  }
}

/**
 * A followed file's ingest after its bulk load: appended bytes go through the same parse state
 * into an append loader on this thread, beside the readers of the database.
 */
export class TraceFollower {
  private readonly db: ReturnType<typeof openDatabase>;
  private readonly loader: TraceLoader;
  private known: ReadSoFar;

  /** Takes over `file`'s rows from its bulk load (their writes go to the append loader from now on). */
  constructor(
    analysis: IngestRequest['analysis'],
    dbPath: string,
    sourceId: number,
    private readonly file: GrowingIngest,
    identity: FileIdentity,
  ) {
    this.db = openDatabase(dbPath);
    this.loader = new TraceLoader(this.db, sourceId, analysis, 'append');
    file.rows.write = this.loader.write;
    this.known = readSoFar(identity.path, identity);
  }

  /** The identity of what was read so far. */
  get ingested(): FileIdentity {
    return this.known.ingested;
  }

  observe(): FileChange {
    return observeFile(this.ingested.path, this.known);
  }

  /** Reads the file up to `size`, then stores and analyzes it as it now stands, its open runs running. */
  async grow(size: number): Promise<IngestProgress> {
    await this.file.ingest.readTo(size);
    const progress = this.file.ingest.checkpoint();
    this.loader.checkpoint(progress, this.identifyRead());
    return progress;
  }

  /** The file has not grown for the idle time: its ingest ends as a whole read would, open runs unterminated, and the database reusable. */
  finish(): IngestProgress {
    const progress = this.file.ingest.finish();
    this.loader.finish(progress, this.identifyRead());
    return progress;
  }

  private identifyRead(): FileIdentity {
    const ingested = identifyFile(this.ingested.path, this.file.ingest.offset);
    if (ingested === null) throw new Error('the file shrank while it was being read');
    this.known = { ...this.known, ingested };
    return ingested;
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Follows the file while it grows: new lines are ingested as they come. Once it has not grown for
 * `idleMs` its ingest is finished, and it is watched as a completed file. Following ends, reporting
 * nothing, when `stopped` is aborted (the trace was closed).
 */
export async function followFile(idleMs: number, follower: TraceFollower, report: (message: FollowReport) => void, stopped: AbortSignal): Promise<void> {
  let grewAt = follower.ingested.mtimeMs;
  const wakeups = new FileWakeups(follower.ingested.path, stopped);
  try {
    for (;;) {
      await wakeups.next();
      if (stopped.aborted) return;
      const change = follower.observe();
      if (change.kind === 'replaced') return report({ type: 'replaced', reason: change.reason });
      if (change.kind === 'deleted') return report({ type: 'stopped', reason: change.reason });
      if (change.kind === 'grown') {
        report({ type: 'followed', progress: await follower.grow(change.size), idle: false });
        grewAt = Date.now();
      } else if (Date.now() - grewAt >= idleMs) {
        report({ type: 'followed', progress: follower.finish(), idle: true });
        break;
      }
    }
  } finally {
    wakeups.close();
    follower.close();
  }
  await watchCompletedFile(follower.ingested, report, { grewReason: `it grew again after ${Math.round(idleMs / 1000)} s without growing`, stopped });
}

/**
 * A completely read file has no parse state to go on with: when it changes, it is read again from
 * the start (and followed from then on, as a file being written). Watching ends, reporting
 * nothing, when `stopped` is aborted (a trace reopened from its cache is watched on the engine's
 * thread, without a worker to terminate).
 */
export async function watchCompletedFile(
  identity: FileIdentity,
  report: (message: FollowReport) => void,
  { grewReason = 'it grew since it was last read to its end', stopped }: { grewReason?: string; stopped?: AbortSignal } = {},
): Promise<void> {
  const known = readSoFar(identity.path, identity);
  const wakeups = new FileWakeups(identity.path, stopped);
  try {
    for (;;) {
      await wakeups.next();
      if (stopped?.aborted) return;
      const change = observeFile(identity.path, known);
      if (change.kind === 'grown') return report({ type: 'replaced', reason: grewReason });
      if (change.kind === 'replaced') return report({ type: 'replaced', reason: change.reason });
      if (change.kind === 'deleted') return report({ type: 'stopped', reason: change.reason });
    }
  } finally {
    wakeups.close();
  }
}
