/**
 * The store worker: the single writer of a large source's database during ingest (see
 * TraceLoader). It writes the row batches the ingest worker ships through its port while the ingest
 * worker parses the next ones on the other core, then finishes the source (indexes, analyses).
 * Flow control is a shared counter of batches in flight, so parsing never runs ahead of writing by
 * more than a few batches and memory stays flat. The engine starts it, and its outcome goes to the
 * engine too: the ingest worker may have ended by then.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../store/traceDatabase';
import { TraceLoader } from '../pipeline/traceLoader';
import { FLOW_FAILED, FLOW_IN_FLIGHT, storeRequestSchema, storeWorkerDataSchema, type StoreReply } from './workerProtocol';

const { dbPath, sourceId, analysis, flow: flowBuffer, port } = storeWorkerDataSchema.parse(workerData);
const flow = new Int32Array(flowBuffer);
const db = openDatabase(dbPath);
const loader = new TraceLoader(db, sourceId, analysis);

function reply(message: StoreReply): void {
  port.postMessage(message);
  parentPort?.postMessage(message);
}

port.on('message', (raw: unknown) => {
  try {
    const request = storeRequestSchema.parse(raw);
    if (request.type === 'batch') {
      loader.write(request.batch);
      Atomics.sub(flow, FLOW_IN_FLIGHT, 1);
      Atomics.notify(flow, FLOW_IN_FLIGHT);
      return;
    }
    if (request.type === 'abandon') {
      db.close();
      port.close();
      return;
    }
    if (request.complete) loader.finish(request.counters);
    else loader.checkpoint(request.counters, request.ingested);
    db.close();
    reply({ type: 'done' });
  } catch (error) {
    Atomics.store(flow, FLOW_FAILED, 1);
    Atomics.notify(flow, FLOW_IN_FLIGHT);
    reply({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
