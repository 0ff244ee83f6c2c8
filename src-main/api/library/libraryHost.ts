/**
 * The host's side of the library: starts the library worker for the roots, keeps the status it
 * reports (what the start page polls), and stops it on close. The library's reads go through the
 * query worker, like every other read of the API.
 */
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { LibraryStatus } from '../../../shared/library/libraryApi';
import type { AnalysisOptions } from '../../../shared/report';
import type { UserPrices } from '../../../shared/cost/userPrices';
import { endWorker } from '../../engine';
import { libraryDbPath, openLibraryForReading } from './libraryDatabase';
import { libraryWorkerMessageSchema, type LibraryWorkerData } from './libraryProtocol';

/** The worker holds one trace's facts at a time, and its engine workers ingest: it needs a modest heap. */
const LIBRARY_WORKER_LIMITS = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 16 };

/** How often the roots are looked at again for new, changed and deleted files. */
export const defaultRescanMs = 2000;

export interface LibraryHostOptions {
  roots: readonly string[];
  cacheDir: string;
  analysis: AnalysisOptions;
  userPrices?: UserPrices;
  /** Null: the roots are looked at once. */
  rescanMs?: number | null;
  /** A file written to within this long is followed until it is idle (libraryIndexer.ts); null or absent: every file is read once. */
  followIdleMs?: number | null;
  /** Why indexing stopped, when it could not go on (the library database could not be written). */
  onFailure: (message: string) => void;
}

/** As engine/workers/workerUrl.ts finds the engine's workers: beside this file from source, flat in out/main/ when built. */
function libraryWorkerUrl(): URL {
  const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return new URL(`./libraryWorker.${extension}`, import.meta.url);
}

export class LibraryHost {
  readonly dbPath: string;
  /** Settles once the worker has created (or opened) the library database: queries wait for it. */
  readonly created: Promise<void>;
  private status: LibraryStatus;
  private readonly worker: Worker;
  private readonly stopped: Promise<void>;

  constructor(options: LibraryHostOptions) {
    const roots = options.roots.map((root) => resolve(root));
    this.dbPath = libraryDbPath(options.cacheDir, roots);
    this.status = { roots, state: 'indexing', files: 0, indexed: 0, skipped: 0, failed: 0, failures: [], current: null, revision: 0 };
    const data: LibraryWorkerData = {
      roots,
      libraryDbPath: this.dbPath,
      cacheDir: options.cacheDir,
      analysis: options.analysis,
      userPrices: options.userPrices ?? null,
      rescanMs: options.rescanMs === undefined ? defaultRescanMs : options.rescanMs,
      // Each file's ingest has an engine worker of its own: two keep both cores busy.
      concurrency: 2,
      followIdleMs: options.followIdleMs ?? null,
    };
    this.worker = new Worker(libraryWorkerUrl(), { workerData: data, resourceLimits: LIBRARY_WORKER_LIMITS });
    this.stopped = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    let created = (): void => undefined;
    this.created = new Promise((resolve) => (created = resolve));
    // A worker that ends without reporting (it failed) leaves queries to fail on their own, not to wait forever.
    void this.stopped.then(created);
    // A library indexed before (its database, of this version, is there) answers at once: the
    // reopened start page does not wait for the worker to load the engine and report.
    const existing = openLibraryForReading(this.dbPath);
    if (existing !== undefined) {
      existing.close();
      created();
    }
    this.worker.on('message', (raw: unknown) => {
      const message = libraryWorkerMessageSchema.parse(raw);
      if (message.type === 'status') {
        this.status = message.status;
        created();
      } else if (message.type === 'failed') options.onFailure(message.message);
    });
    this.worker.on('error', (error) => options.onFailure(error.message));
  }

  currentStatus(): LibraryStatus {
    return this.status;
  }

  /** Stops indexing after the files under way; resolves once the worker has ended. */
  async close(): Promise<void> {
    await endWorker(this.worker, () => this.worker.postMessage({ type: 'stop' }));
    await this.stopped;
  }
}
