/**
 * A real API host (engine worker threads, SQLite files in a fresh cache directory, the query
 * worker) for tests, with a way to wait until a trace has been read: the host reports every
 * change of a trace's summary, so tests wait for that signal instead of sleeping.
 */
import type { TraceSummary } from '../../shared/api';
import { createApiHost, type ApiHost, type ApiHostOptions } from '../../src-main/api/apiHost';
import { temporaryDir } from './engineHarness';

export interface TestHost {
  host: ApiHost;
  cacheDir: string;
  /** Opens a file and resolves once it is ready or failed. */
  openSettled(path: string): Promise<TraceSummary>;
  /** Resolves once the trace is no longer ingesting (at once if it is not). */
  settled(traceId: string): Promise<TraceSummary>;
  close(): Promise<void>;
}

/** Files are read once unless the test asks for them to be followed (`idleAfterMs`), as `loopscope serve --no-follow` does. */
export function startTestHost(options: Partial<ApiHostOptions> = {}): TestHost {
  const cache = temporaryDir('api-cache');
  const waiting = new Map<string, ((summary: TraceSummary) => void)[]>();
  const host = createApiHost({
    shell: 'browser',
    version: '0.0.0-test',
    canOpenPaths: false,
    cacheDir: cache.path,
    idleAfterMs: null,
    ...options,
    onTraceUpdate: (summary) => {
      options.onTraceUpdate?.(summary);
      if (summary.state === 'ingesting') return;
      const resolvers = waiting.get(summary.traceId) ?? [];
      waiting.delete(summary.traceId);
      for (const resolve of resolvers) resolve(summary);
    },
  });
  const settled = async (traceId: string): Promise<TraceSummary> => {
    const pending = new Promise<TraceSummary>((resolve) => waiting.set(traceId, [...(waiting.get(traceId) ?? []), resolve]));
    const now = (await host.call('trace', { traceId })) as TraceSummary;
    return now.state === 'ingesting' ? pending : now;
  };
  return {
    host,
    cacheDir: cache.path,
    settled,
    openSettled: async (path) => settled((await host.open(path)).traceId),
    close: async () => {
      await host.close();
      cache.remove();
    },
  };
}

/** The ApiError code and message a call rejected with (fails when it did not reject). */
export async function callFailure(host: ApiHost, method: string, request: unknown): Promise<{ code: string; message: string }> {
  try {
    await host.call(method, request);
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  }
  throw new Error(`${method} did not fail`);
}
