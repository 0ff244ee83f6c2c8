/**
 * Starting a store worker for the ingest worker, on the engine's thread: the store outlives the
 * ingest (which ends once it has shipped a trace's last batch, so its heap is gone while the store
 * finishes and analyzes the source), so the thread that outlives both owns it.
 */
import { Worker } from 'node:worker_threads';
import { endWorker } from './endWorker';
import { workerUrl } from './workerUrl';
import { FLOW_FAILED, storeReplySchema, type StoreWorkerData } from './workerProtocol';

/**
 * The store worker's heap cap is a safety net, not a budget: what it keeps is the timeline of each
 * run still open, which for one run of a million events is ~250 MB (see engine.ts on heap caps).
 */
const STORE_WORKER_LIMITS = { maxOldGenerationSizeMb: 1024, maxYoungGenerationSizeMb: 16 };

export interface StoreWorker {
  /** Resolves once the source is stored (and analyzed, when complete) and the thread has ended; rejects with why it was not. */
  readonly stored: Promise<void>;
  /** Whether the store has failed: its reply, which says why, may still be on its way. */
  failed(): boolean;
  /** Resolves once the thread has ended, however it ended; one still writing is let finish first (see endWorker.ts). */
  end(): Promise<void>;
}

export function startStoreWorker(data: StoreWorkerData): StoreWorker {
  const worker = new Worker(workerUrl('storeWorker'), { workerData: data, transferList: [data.port], resourceLimits: STORE_WORKER_LIMITS });
  const flow = new Int32Array(data.flow);
  const stored = new Promise<void>((resolve, reject) => {
    let done = false;
    worker.on('message', (raw: unknown) => {
      const reply = storeReplySchema.parse(raw);
      if (reply.type === 'failed') return reject(new Error(`writing the trace database failed: ${reply.message}`));
      // Its database is closed; ending the thread now gives its heap back before the open resolves.
      done = true;
      void worker.terminate();
    });
    worker.on('error', reject);
    worker.on('exit', (code) => (done ? resolve() : reject(new Error(`the store worker exited with code ${code}`))));
  });
  return {
    stored,
    failed: () => Atomics.load(flow, FLOW_FAILED) !== 0,
    // It ends when it is done, failed, or abandoned by the ingest worker, whose port it listens on.
    end: () => endWorker(worker, () => undefined),
  };
}
