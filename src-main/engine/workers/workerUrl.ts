/**
 * Where a worker's entry file is. Running from source (tests, tsx) the entries are the .ts files
 * beside this one; in the build every entry and chunk sits flat in out/main/, so the same relative
 * URL resolves there too (electron.vite.config.ts keeps chunks beside the entries for this).
 */
export type WorkerName = 'ingestWorker' | 'storeWorker';

export function workerUrl(name: WorkerName): URL {
  const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return new URL(`./${name}.${extension}`, import.meta.url);
}
