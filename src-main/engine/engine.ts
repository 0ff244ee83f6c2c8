/**
 * The engine's public face, shared by the CLI, the desktop app and the HTTP server: open a trace
 * (ingest and analysis run in a worker thread, never on the caller's event loop) and read its
 * report. Nothing is computed in two places: every consumer goes through these functions.
 */
import { Worker } from 'node:worker_threads';
import type { AnalysisOptions, AnalyzeReport } from '../../shared/report';
import type { IngestProgress } from './ingest/ingestFile';
import { workerMessageSchema, type IngestRequest } from './ingest/workerProtocol';
import { buildReport } from './report/buildReport';
import { defaultCacheDir, openDatabase, TraceFileError, type TraceFileErrorCode } from './store/traceDatabase';

export { TraceFileError } from './store/traceDatabase';
export type { IngestProgress } from './ingest/ingestFile';

/** Lines longer than this are reported and skipped instead of being loaded whole. */
export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;

export interface OpenTraceOptions {
  cacheDir?: string;
  maxLineBytes?: number;
  analysis: AnalysisOptions;
  onProgress?: (progress: IngestProgress) => void;
}

export interface TraceHandle {
  path: string;
  dbPath: string;
  sourceId: number;
  /** True when an earlier ingest of the unchanged file was reused. */
  reused: boolean;
}

/** Source builds run the worker from TypeScript (tests, tsx); bundles run the built file beside this one. */
function ingestWorkerUrl(): URL {
  return import.meta.url.endsWith('.ts')
    ? new URL('./ingest/ingestWorker.ts', import.meta.url)
    : new URL('./ingestWorker.js', import.meta.url);
}

export function openTrace(path: string, options: OpenTraceOptions): Promise<TraceHandle> {
  const request: IngestRequest = {
    path,
    cacheDir: options.cacheDir ?? defaultCacheDir(),
    maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    analysis: options.analysis,
  };
  return new Promise((resolve, reject) => {
    const worker = new Worker(ingestWorkerUrl(), { workerData: request });
    let settled = false;
    const settle = (action: () => void): void => {
      if (settled) return;
      settled = true;
      action();
    };
    worker.on('message', (raw: unknown) => {
      const message = workerMessageSchema.parse(raw);
      if (message.type === 'progress') options.onProgress?.(message.progress);
      else if (message.type === 'done') settle(() => resolve({ path, dbPath: message.dbPath, sourceId: message.sourceId, reused: message.reused }));
      else if (message.code === 'internal') settle(() => reject(new Error(`ingest of ${path} failed: ${message.message}`)));
      else settle(() => reject(new TraceFileError(message.code as TraceFileErrorCode, path, message.message)));
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => settle(() => reject(new Error(`ingest worker for ${path} exited with code ${code} before finishing`))));
  });
}

export function readReport(trace: TraceHandle, options: AnalysisOptions): AnalyzeReport {
  const db = openDatabase(trace.dbPath, { readonly: true });
  try {
    return buildReport(db, trace.sourceId, options, trace.path);
  } finally {
    db.close();
  }
}
