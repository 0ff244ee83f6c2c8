/**
 * The ingest worker: opens one trace. It reuses a completed ingest of the unchanged file, or
 * parses the file — shipping row batches to a store worker that writes them on the other core when
 * the file is large, writing them itself when it is small — then reports progress and the outcome
 * to the engine.
 */
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { ensureAnalysis } from '../analysis/analyzeSource';
import { ingestFile, type IngestProgress } from '../ingest/ingestFile';
import { identifyFile, openDatabase, prepareDatabase, TraceFileError, type FileIdentity } from '../store/traceDatabase';
import { TraceLoader } from '../store/traceLoader';
import { chooseFormat, type ChosenFormat } from '../ingest/detectFormat';
import type { FormatAdapter } from '../adapters/formatAdapter';
import { RowBatcher, type RowBatch } from '../store/traceWriter';
import { workerUrl } from './workerUrl';
import {
  ingestRequestSchema,
  storeReplySchema,
  type IngestRequest,
  type IngestWorkerMessage,
  type StoreRequest,
} from './workerProtocol';

/** Batches parsed but not yet written; a few keep both cores busy without growing memory. */
const MAX_BATCHES_IN_FLIGHT = 4;
const FLOW_IN_FLIGHT = 0;
const FLOW_FAILED = 1;
/** The store worker keeps little: row batches in flight and the timelines of runs still open (see engine.ts on heap caps). */
const STORE_WORKER_LIMITS = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16 };

function post(message: IngestWorkerMessage): void {
  parentPort?.postMessage(message);
}

/** Parses on this thread while the store worker writes; resolves once the database is complete and analyzed. */
function ingestThroughStoreWorker(request: IngestRequest, identity: FileIdentity, format: FormatAdapter, dbPath: string, sourceId: number): Promise<void> {
  const flowBuffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const flow = new Int32Array(flowBuffer);
  const store = new Worker(workerUrl('storeWorker'), {
    workerData: { dbPath, sourceId, analysis: request.analysis, flow: flowBuffer },
    resourceLimits: STORE_WORKER_LIMITS,
  });
  const outcome = new Promise<void>((resolve, reject) => {
    store.on('message', (raw: unknown) => {
      const reply = storeReplySchema.parse(raw);
      if (reply.type === 'done') resolve();
      else reject(new Error(`writing the trace database failed: ${reply.message}`));
    });
    store.on('error', reject);
    store.on('exit', (code) => reject(new Error(`the store worker exited with code ${code}`)));
  });
  const send = (message: StoreRequest): void => store.postMessage(message);
  const ship = (batch: RowBatch): void => {
    // Blocking here is the point: this thread only parses, and must not outrun the writer.
    while (Atomics.load(flow, FLOW_IN_FLIGHT) >= MAX_BATCHES_IN_FLIGHT && Atomics.load(flow, FLOW_FAILED) === 0) {
      Atomics.wait(flow, FLOW_IN_FLIGHT, Atomics.load(flow, FLOW_IN_FLIGHT), 1000);
    }
    if (Atomics.load(flow, FLOW_FAILED) !== 0) throw new Error('the store worker failed; see its error');
    Atomics.add(flow, FLOW_IN_FLIGHT, 1);
    send({ type: 'batch', batch });
  };
  try {
    const counters = ingestFile(identity, format, sourceId, new RowBatcher(ship), {
      maxLineBytes: request.maxLineBytes,
      onProgress: (progress: IngestProgress) => post({ type: 'progress', progress }),
    });
    send({ type: 'finish', counters });
  } catch (error) {
    // When the store failed first, its error explains more than the flow-control error it caused here.
    if (Atomics.load(flow, FLOW_FAILED) !== 0) return outcome.finally(() => store.terminate());
    outcome.catch(() => undefined);
    void store.terminate();
    throw error;
  }
  return outcome.finally(() => store.terminate());
}

function ingestOnThisThread(request: IngestRequest, identity: FileIdentity, format: FormatAdapter, dbPath: string, sourceId: number): void {
  const db = openDatabase(dbPath);
  try {
    const loader = new TraceLoader(db, sourceId, request.analysis);
    const counters = ingestFile(identity, format, sourceId, new RowBatcher(loader.write), {
      maxLineBytes: request.maxLineBytes,
      onProgress: (progress: IngestProgress) => post({ type: 'progress', progress }),
    });
    loader.finish(counters);
  } finally {
    db.close();
  }
}

async function openTrace(request: IngestRequest): Promise<Extract<IngestWorkerMessage, { type: 'done' }>> {
  const identity = identifyFile(request.path);
  const prepared = prepareDatabase(identity, request.cacheDir, request.format);
  if (prepared.reusableSourceId !== null) {
    try {
      ensureAnalysis(prepared.db, prepared.reusableSourceId, request.analysis);
    } finally {
      prepared.db.close();
    }
    return { type: 'done', dbPath: prepared.dbPath, sourceId: prepared.reusableSourceId, reused: true };
  }
  let format: ChosenFormat;
  try {
    format = chooseFormat(identity, request.format);
  } catch (error) {
    prepared.db.close();
    throw error;
  }
  const sourceId = Number(
    prepared.db
      .prepare(
        `INSERT INTO sources (path, size, mtime_ms, fingerprint, format, format_reason, ingest_started_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(identity.path, identity.size, identity.mtimeMs, identity.fingerprint, format.adapter.name, format.reason, new Date().toISOString()).lastInsertRowid,
  );
  prepared.db.close();
  if (identity.size >= request.storeWorkerMinBytes) await ingestThroughStoreWorker(request, identity, format.adapter, prepared.dbPath, sourceId);
  else ingestOnThisThread(request, identity, format.adapter, prepared.dbPath, sourceId);
  return { type: 'done', dbPath: prepared.dbPath, sourceId, reused: false };
}

openTrace(ingestRequestSchema.parse(workerData)).then(post, (error: unknown) => {
  if (error instanceof TraceFileError) post({ type: 'failed', code: error.code, message: error.reason });
  else post({ type: 'failed', code: 'internal', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
});
