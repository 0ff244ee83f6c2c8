/**
 * The library worker: owns the library database's writes, indexing the files under the roots on
 * its own thread (each file's ingest in an engine worker of its own), so neither the caller's event
 * loop nor the queries ever wait for it. Reports where it is after each file.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openLibraryForWriting } from './libraryDatabase';
import { LibraryIndexer } from './libraryIndexer';
import { libraryStopSchema, libraryWorkerDataSchema, type LibraryWorkerMessage } from './libraryProtocol';

function post(message: LibraryWorkerMessage): void {
  parentPort?.postMessage(message);
}

const data = libraryWorkerDataSchema.parse(workerData);
const db = openLibraryForWriting(data.libraryDbPath);
const indexer = new LibraryIndexer(db, { ...data, onStatus: (status) => post({ type: 'status', status }) });

parentPort?.on('message', (raw: unknown) => {
  libraryStopSchema.parse(raw);
  void indexer.stop().then(() => {
    db.close();
    post({ type: 'stopped' });
    parentPort?.close();
  });
});

indexer.start().catch((error: unknown) => {
  post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
});
