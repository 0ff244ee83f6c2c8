/**
 * The engine's only entry: what the API, the CLI, the desktop app and the server use of it. They
 * import this module, never an engine folder (a lint rule keeps it so): opening a trace and its
 * report (engine.ts), the read model of its database (store/readModel.ts), and the few engine parts
 * the API's views run again on demand (mapping a record, reading requests, finding secrets).
 */
export * from './engine';
export * from './store/readModel';
export { defaultCacheDir, identifyFile, openDatabase, type FileIdentity } from './store/traceDatabase';
export { optionsKey } from './derive/analyzeSource';
export { storedRunRequests, type RequestSummary } from './derive/requestAnalysis';
export { hasLoggedRequests, LoggedRequestReader, reconstructedRequest, type CompactionMarker } from './derive/requestHistory';
export { TokenEstimator } from './derive/tokenEstimator';
export { adapterNamed, formatNames } from './adapters/registry';
export type { AdaptedEvent, MappedEvent } from './adapters/formatAdapter';
export { decodeLine } from './bytes/decodeLine';
export { companionDirectories } from './ingest/companionFiles';
export { findLineSecrets, replaceLineSecrets } from './ingest/lineSecrets';
export { endWorker } from './workers/endWorker';
