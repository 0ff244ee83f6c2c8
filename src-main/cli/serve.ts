/**
 * The UI served to a browser: an API host for the files (no opening of other paths) behind the
 * HTTP server, with the built renderer as its pages. Used by `loopscope serve`, and by
 * `loopscope open` where the desktop app cannot start.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { version } from '../../package.json';
import { createApiHost } from '../api/apiHost';
import { readUserPrices } from '../api/userPricesFile';
import { startServer, type RunningServer } from '../server/httpServer';

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
  /** The user price file (docs/semantics.md §18), checked before anything starts. */
  pricesFile?: string;
}

export interface ServingFiles {
  /** `http://127.0.0.1:PORT/<token>/`. */
  url: string;
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
  const what = options.libraryRoots?.length ? `a library of ${options.libraryRoots.join(', ')}` : `${files.length} file${files.length === 1 ? '' : 's'}`;
  process.stdout.write(`Loopscope is serving ${what} at ${serving.url}\n`);
  await interrupted;
  await serving.close();
}

/** Starts serving and opens the files (ingest goes on in the background; the page shows its progress). */
export async function serveFiles(files: readonly string[], options: ServeOptions): Promise<ServingFiles> {
  if (!existsSync(join(rendererDir, 'index.html'))) throw new Error(`the UI is not built (${rendererDir} has no index.html); run \`npm run build\` first`);
  const apiHost = createApiHost({
    shell: 'browser',
    version,
    canOpenPaths: false,
    ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
    ...(options.idleAfterMs !== undefined ? { idleAfterMs: options.idleAfterMs } : {}),
    ...(options.libraryRoots !== undefined && options.libraryRoots.length > 0 ? { library: { roots: options.libraryRoots } } : {}),
    ...(options.pricesFile !== undefined ? { userPrices: readUserPrices(options.pricesFile) } : {}),
  });
  let server: RunningServer | undefined;
  try {
    // Listening first: opening the files (a reopened trace's reads of its cache) then overlaps the page's loading.
    server = await startServer({ apiHost, assetsDir: rendererDir, ...(options.port !== undefined ? { port: options.port } : {}) });
    for (const file of files) await apiHost.open(file);
  } catch (error) {
    await server?.close();
    await apiHost.close();
    throw error;
  }
  const listening = server;
  return {
    url: listening.url,
    close: async () => {
      await listening.close();
      await apiHost.close();
    },
  };
}
