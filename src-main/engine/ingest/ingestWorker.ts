/** The ingest worker thread: receives one request, opens the trace, reports progress and the outcome. */
import { parentPort, workerData } from 'node:worker_threads';
import { TraceFileError } from '../store/traceDatabase';
import { openTraceInProcess } from './openTraceInProcess';
import { ingestRequestSchema, type WorkerMessage } from './workerProtocol';

function post(message: WorkerMessage): void {
  parentPort?.postMessage(message);
}

try {
  const request = ingestRequestSchema.parse(workerData);
  const opened = openTraceInProcess(request, (progress) => post({ type: 'progress', progress }));
  post({ type: 'done', ...opened });
} catch (error) {
  if (error instanceof TraceFileError) post({ type: 'failed', code: error.code, message: error.reason });
  else post({ type: 'failed', code: 'internal', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
