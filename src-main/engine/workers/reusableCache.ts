/**
 * Whether a trace opens straight from its cache database: a completed ingest of the unchanged file
 * and of the companion files it has now, with the search index and the analysis the request asks
 * for. The check is a stat, two 64 KB reads and a few indexed queries, so the engine makes it on
 * its own thread before starting an ingest worker (whose start-up loads the engine's code again);
 * anything to build or compute is left to the worker.
 */
import type { FormatAdapter } from '../adapters/formatAdapter';
import { adapterNamed } from '../adapters/registry';
import { optionsKey } from '../derive/analyzeSource';
import { companionFiles } from '../ingest/companionFiles';
import { isAnalyzed } from '../store/runAnalysis';
import { identifyFile, openReusableDatabase, type CompanionSource, type FileIdentity } from '../store/traceDatabase';
import type { IngestRequest } from './workerProtocol';

/** The companion files a trace read as `adapter`'s format has now, those that can still be read. */
export function companionIdentities(adapter: FormatAdapter | undefined, path: string): FileIdentity[] {
  if (adapter === undefined) return [];
  return companionFiles(adapter, path).flatMap((companion) => {
    try {
      return [identifyFile(companion)];
    } catch {
      // Deleted or unreadable since it was listed: the trace opens without it.
      return [];
    }
  });
}

export interface ReusableCache {
  identity: FileIdentity;
  dbPath: string;
  sourceId: number;
  companions: CompanionSource[];
}

/** The cache that answers `request` as it is, or null when the ingest worker has work to do (or a failure to report). */
export function reusableCache(request: IngestRequest): ReusableCache | null {
  let identity: FileIdentity;
  try {
    identity = identifyFile(request.path);
  } catch {
    // An unreadable file: the worker reports why, as for any ingest.
    return null;
  }
  const opened = openReusableDatabase(identity, request.cacheDir, request.format, request.searchIndex, (format) =>
    companionIdentities(adapterNamed(format), identity.path),
  );
  if (opened === null) return null;
  const { db, dbPath, reusable } = opened;
  try {
    const key = optionsKey(request.analysis);
    const sourceIds = [reusable.sourceId, ...reusable.companions.map((companion) => companion.sourceId)];
    if (!sourceIds.every((sourceId) => isAnalyzed(db, sourceId, key))) return null;
    return { identity, dbPath, sourceId: reusable.sourceId, companions: reusable.companions };
  } finally {
    db.close();
  }
}
