/**
 * The ingest worker: ingests one trace (traceIngest.ts) and reports progress and the outcome to the
 * engine. A file followed as it is written goes on in fileFollower.ts, which reports through the
 * same messages; otherwise the worker ends once the trace is shipped, and its heap with it, while a
 * store worker may still be finishing the last source.
 */
import { parentPort, workerData, type Transferable } from 'node:worker_threads';
import { TraceFileError } from '../store/traceDatabase';
import { IngestStopped, ingestOrReuseCache } from './traceIngest';
import { ingestRequestSchema, ingestStopSchema, type IngestRequest, type IngestWorkerMessage } from './workerProtocol';

function post(message: IngestWorkerMessage, transfer: Transferable[] = []): void {
  parentPort?.postMessage(message, transfer);
}

/** The engine asked this thread to end (ingestStopSchema). */
const stopping = new AbortController();
parentPort?.on('message', (raw: unknown) => {
  ingestStopSchema.parse(raw);
  stopping.abort();
});
// Listening must not keep the thread alive: it ends when its work does, as before.
parentPort?.unref();

async function run(request: IngestRequest): Promise<void> {
  const cached = await ingestOrReuseCache(request, { post, stopping: stopping.signal });
  post(cached.done);
  if (cached.follow === null) return;
  try {
    await cached.follow();
  } catch (error) {
    // Stopped mid-growth by the engine, which is not listening any more.
    if (error instanceof IngestStopped) return;
    post({ type: 'stopped', reason: `following the file stopped: ${error instanceof Error ? error.message : String(error)}` });
  }
}

run(ingestRequestSchema.parse(workerData)).catch((error: unknown) => {
  // The engine that asked is not waiting for an answer.
  if (error instanceof IngestStopped) return;
  if (error instanceof TraceFileError) post({ type: 'failed', code: error.code, message: error.reason });
  else post({ type: 'failed', code: 'internal', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
});
