/**
 * Ending a worker thread that uses SQLite. Never `worker.terminate()` first: better-sqlite3 is a
 * node-addon-api module, and a thread terminated while it is inside one of its calls (a query, a
 * write, or the module's own set-up while the thread is still starting) can abort the whole
 * process ("FATAL ERROR: Error::New napi_get_last_error_info"; the class of nodejs/node-addon-api#902).
 * So the worker is asked to end (`ask`): it closes its connections between two calls and its
 * thread ends on its own. Only one that has not ended after `graceMs` (stuck in a loop) is
 * terminated.
 */
import type { Worker } from 'node:worker_threads';

/** How long a worker asked to end may take: its current step (a chunk, a batch, a query) finishes first. */
export const WORKER_END_GRACE_MS = 10_000;

export async function endWorker(worker: Worker, ask: () => void, graceMs = WORKER_END_GRACE_MS): Promise<void> {
  // threadId is -1 once the thread has ended.
  if (worker.threadId === -1) return;
  // Only its exit: an 'error' it reports on the way out is its owner's to handle.
  const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  ask();
  const overdue = setTimeout(() => void worker.terminate(), graceMs);
  try {
    await ended;
  } finally {
    clearTimeout(overdue);
  }
}
