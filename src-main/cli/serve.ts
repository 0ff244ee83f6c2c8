/**
 * The UI served to a browser: an API host for the files (no opening of other paths) behind the
 * HTTP server, with the built renderer as its pages. Used by `loopscope serve`, and by
 * `loopscope open` where the desktop app cannot start.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { version } from '../../package.json';
import { createApiHost } from '../api/apiHost';
import { readUserPrices } from '../api/userPricesFile';
import { defaultCacheDir } from '../engine';
import { startOtlpReceiver, type RunningOtlpReceiver } from '../otlp/otlpReceiver';
import { receivedTracesDir, receivedTracesFile, type OtlpSetting } from '../otlp/receivedTraces';
import { startServer, type RunningServer } from '../server/httpServer';
import { clickHouseLibraryName, type ClickHouseLibraryLocation } from '../clickhouse/clickhouseLocation';

/** The built renderer, beside out/main/ where this file is bundled. */
const rendererDir = fileURLToPath(new URL('../renderer/', import.meta.url));

export interface ServeOptions {
  cacheDir?: string;
  /** 0 or absent: a free port. */
  port?: number;
  /** How long a followed file may not grow before its open runs are unterminated; null: files are read once (see ApiHostOptions). */
  idleAfterMs?: number | null;
  /** The directories to keep as a library (docs/semantics.md §19); absent: none. */
  libraryRoots?: readonly string[];
  /** A library loaded into ClickHouse (`--library clickhouse://…`, docs/clickhouse.md): the start page reads it instead of indexing directories. */
  clickHouseLibrary?: ClickHouseLibraryLocation;
  /** The user price file (docs/semantics.md §18), checked before anything starts. */
  pricesFile?: string;
  /** Receive OTLP/HTTP traces too (src-main/otlp/otlpReceiver.ts): appended under the cache, kept in the library. */
  otlp?: OtlpSetting;
}

export interface ServingFiles {
  /** `http://127.0.0.1:PORT/<token>/`. */
  url: string;
  /** Where OTLP/HTTP traces are received (`--otlp`), and the file they are kept in. */
  otlp: { endpoint: string; file: string } | null;
  close(): Promise<void>;
}

/** Why serving could not start, for the user (a port already taken). */
export class ServeError extends Error {}

function untilInterrupted(): Promise<void> {
  return new Promise((resolveSignal) => {
    process.once('SIGINT', () => resolveSignal());
    process.once('SIGTERM', () => resolveSignal());
  });
}

/**
 * Serves the files, prints where, and keeps serving until SIGINT/SIGTERM, then closes. Used by
 * `loopscope serve` and by `loopscope open` where the desktop app cannot start.
 */
export async function serveUntilInterrupted(files: readonly string[], options: ServeOptions): Promise<void> {
  // Listening for the signals before the URL is printed: one sent as soon as it is read (a script
  // that only wanted to see serving start) must close cleanly, not meet the default action.
  const interrupted = untilInterrupted();
  let serving;
  try {
    serving = await serveFiles(files, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new ServeError(`port ${options.port} is already in use; choose another with --port, or leave it out for a free one`);
    throw error;
  }
  const what = [
    ...(files.length > 0 || (!options.libraryRoots?.length && options.clickHouseLibrary === undefined && options.otlp === undefined)
      ? [`${files.length} file${files.length === 1 ? '' : 's'}`]
      : []),
    ...(options.clickHouseLibrary !== undefined
      ? [`the library in ${clickHouseLibraryName(options.clickHouseLibrary)}`]
      : options.libraryRoots?.length
        ? [`a library of ${options.libraryRoots.join(', ')}`]
        : []),
    ...(options.otlp !== undefined ? ['the traces it receives'] : []),
  ].join(' and ');
  process.stdout.write(`Loopscope is serving ${what} at ${serving.url}\n`);
  if (serving.otlp !== null)
    process.stdout.write(
      `Receiving OpenTelemetry traces at ${serving.otlp.endpoint}/v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT=${serving.otlp.endpoint}), kept in ${serving.otlp.file}\n`,
    );
  await interrupted;
  await serving.close();
}

async function receiveOtlp(file: string, otlp: NonNullable<ServeOptions['otlp']>): Promise<RunningOtlpReceiver> {
  try {
    return await startOtlpReceiver({ file, ...otlp });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new ServeError(`OTLP port ${otlp.port} is already in use; choose another with --otlp PORT, or leave the port out`);
    throw error;
  }
}

/** Starts serving and opens the files (ingest goes on in the background; the page shows its progress). */
export async function serveFiles(files: readonly string[], options: ServeOptions): Promise<ServingFiles> {
  if (!existsSync(join(rendererDir, 'index.html'))) throw new Error(`the UI is not built (${rendererDir} has no index.html); run \`npm run build\` first`);
  // Received traces are a directory of the library: a run appears there once its spans are written.
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const receivedDir = options.otlp === undefined ? null : receivedTracesDir(cacheDir);
  if (receivedDir !== null) mkdirSync(receivedDir, { recursive: true });
  const libraryRoots = [...(options.libraryRoots ?? []), ...(receivedDir === null ? [] : [receivedDir])];
  const apiHost = createApiHost({
    shell: 'browser',
    version,
    canOpenPaths: false,
    ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
    ...(options.idleAfterMs !== undefined ? { idleAfterMs: options.idleAfterMs } : {}),
    ...(libraryRoots.length > 0 ? { library: { roots: libraryRoots } } : {}),
    ...(options.clickHouseLibrary !== undefined ? { clickHouseLibrary: options.clickHouseLibrary } : {}),
    ...(options.pricesFile !== undefined ? { userPrices: readUserPrices(options.pricesFile) } : {}),
  });
  let server: RunningServer | undefined;
  let receiver: RunningOtlpReceiver | undefined;
  try {
    // Listening first: opening the files (a reopened trace's reads of its cache) then overlaps the page's loading.
    server = await startServer({ apiHost, assetsDir: rendererDir, ...(options.port !== undefined ? { port: options.port } : {}) });
    if (receivedDir !== null && options.otlp !== undefined) receiver = await receiveOtlp(receivedTracesFile(cacheDir), options.otlp);
    for (const file of files) await apiHost.open(file);
  } catch (error) {
    await receiver?.close();
    await server?.close();
    await apiHost.close();
    throw error;
  }
  const listening = server;
  const receiving = receiver;
  return {
    url: listening.url,
    otlp: receiving === undefined ? null : { endpoint: receiving.endpoint, file: receiving.file },
    close: async () => {
      await receiving?.close();
      await listening.close();
      await apiHost.close();
    },
  };
}
