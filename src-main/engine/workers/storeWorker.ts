/**
 * The store worker: the single writer of a large trace's database during ingest (see
 * TraceLoader). It writes the row batches the ingest worker ships while the ingest worker parses
 * the next ones on the other core. Flow control is a shared counter of batches in flight, so
 * parsing never runs ahead of writing by more than a few batches and memory stays flat.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../store/traceDatabase';
import { TraceLoader } from '../pipeline/traceLoader';
import { storeRequestSchema, storeWorkerDataSchema, type StoreReply } from './workerProtocol';

const { dbPath, sourceId, analysis, flow: flowBuffer } = storeWorkerDataSchema.parse(workerData);
const flow = new Int32Array(flowBuffer);
const db = openDatabase(dbPath);
const loader = new TraceLoader(db, sourceId, analysis);

function reply(message: StoreReply): void {
  parentPort?.postMessage(message);
}

parentPort?.on('message', (raw: unknown) => {
  try {
    const request = storeRequestSchema.parse(raw);
    if (request.type === 'batch') {
      loader.write(request.batch);
      Atomics.sub(flow, 0, 1);
      Atomics.notify(flow, 0);
      return;
    }
    if (request.complete) loader.finish(request.counters);
    else loader.checkpoint(request.counters, request.ingested);
    db.close();
    reply({ type: 'done' });
  } catch (error) {
    Atomics.store(flow, 1, 1);
    Atomics.notify(flow, 0);
    reply({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
