/**
 * Opens a trace into its cache database on the calling thread: reuses a completed ingest of the
 * unchanged file, else ingests it, then makes sure the analysis for these options is stored.
 * The engine calls this inside the ingest worker; tests may call it directly.
 */
import { ensureAnalysis } from '../analysis/analyzeSource';
import { identifyFile, prepareDatabase } from '../store/traceDatabase';
import { ingestFile, type IngestProgress } from './ingestFile';
import type { IngestRequest } from './workerProtocol';

export interface OpenedTrace {
  dbPath: string;
  sourceId: number;
  reused: boolean;
}

export function openTraceInProcess(request: IngestRequest, onProgress?: (progress: IngestProgress) => void): OpenedTrace {
  const identity = identifyFile(request.path);
  const prepared = prepareDatabase(identity, request.cacheDir);
  try {
    const sourceId =
      prepared.reusableSourceId ??
      ingestFile(prepared.db, identity, { maxLineBytes: request.maxLineBytes, ...(onProgress ? { onProgress } : {}) });
    ensureAnalysis(prepared.db, sourceId, request.analysis);
    return { dbPath: prepared.dbPath, sourceId, reused: prepared.reusableSourceId !== null };
  } finally {
    prepared.db.close();
  }
}
