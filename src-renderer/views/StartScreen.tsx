import { useEffect, useState } from 'react';
import type { ApiResponse, TraceSummary } from '../../shared/api';
import { useApi } from '../api/ApiContext';
import { errorMessage } from '../api/client';
import { useQuery, type QueryState } from '../api/useQuery';
import { formatBytes } from '../components/format';
import { Empty, Failure, Loading } from '../components/States';
import { VisibleText } from '../components/VisibleText';
import { formatRoute, routes, type RouteParams } from '../navigation/route';
import { LibraryView } from './LibraryView';
import { navigate } from '../navigation/useRoute';

/**
 * The page a link without a trace lands on. Going straight to the only trace is done once, when
 * the app starts here: coming back to this screen later must show the list, not bounce.
 */
let startedHere = true;
window.addEventListener('hashchange', () => (startedHere = false), { once: true });

/** How often the library's indexing is asked about: often while it indexes, less when it only looks for new files. */
const STATUS_POLL_MS = { indexing: 1000, idle: 2000 } as const;

/** The library's status, asked again and again: its revision tells the views when to reload. Null: there is no library. */
function useLibraryStatus(): QueryState<ApiResponse<'libraryStatus'>> {
  const [tick, setTick] = useState(0);
  const status = useQuery(`libraryStatus:${tick}`, (api) => api.libraryStatus({}));
  const current = status.data;
  useEffect(() => {
    if (status.status === 'loading' || current === null) return;
    const timer = window.setTimeout(() => setTick((value) => value + 1), STATUS_POLL_MS[current?.state ?? 'idle']);
    return () => window.clearTimeout(timer);
  }, [status.status, current]);
  return status;
}

/** `info` null: the app's facts are still loading; the open traces are asked for meanwhile, and shown with them. */
export function StartScreen({ info, params }: { info: ApiResponse<'appInfo'> | null; params: RouteParams }) {
  const traces = useQuery('listTraces', (api) => api.listTraces({}));
  const library = useLibraryStatus();
  const libraryStatus = library.data ?? null;
  // With a library the start page is the library: the one trace opened besides it is not jumped to.
  const onlyTrace = traces.status === 'ready' && traces.data.length === 1 && library.status === 'ready' && libraryStatus === null ? traces.data[0] : undefined;

  useEffect(() => {
    if (onlyTrace && startedHere) {
      startedHere = false;
      navigate(routes.trace(onlyTrace.traceId), { replace: true });
    }
  }, [onlyTrace]);

  const shown = traces.status === 'ready' && info !== null && library.data !== undefined;
  useEffect(() => {
    if (shown) document.body.dataset.ready = 'true';
  }, [shown]);

  if (info === null) return <Loading what="Loopscope" />;
  const hasLibrary = libraryStatus !== null;
  return (
    <main className={`start ${hasLibrary ? 'start-library' : ''}`} data-testid="start-screen" data-state={traces.status}>
      <header className="start-header">
        <h1>Loopscope</h1>
        <p className="muted">A debugger for agent-loop traces · version {info.version}</p>
      </header>
      {info.shell === 'electron' && <DesktopOpen />}
      {library.status === 'error' && <Failure what="the library" error={library.error} />}
      {libraryStatus !== null && <LibraryView status={libraryStatus} params={params} />}
      {(!hasLibrary || (traces.status === 'ready' && traces.data.length > 0)) && (
        <section>
          <h2>Open traces</h2>
          {traces.status === 'loading' && <Loading what="the open traces" />}
          {traces.status === 'error' && <Failure what="the open traces" error={traces.error} />}
          {traces.status === 'ready' && traces.data.length === 0 && (
            <Empty title="No trace is open.">
              {info.shell === 'electron' ? (
                <>Choose “Open…”, pick a recent file, or drop a trace file on this window.</>
              ) : (
                <>
                  Start the server with the files to inspect: <code>loopscope serve FILE…</code>
                </>
              )}
            </Empty>
          )}
          {traces.status === 'ready' && traces.data.length > 0 && <TraceList traces={traces.data} />}
        </section>
      )}
      {info.shell === 'electron' && <RecentFiles />}
    </main>
  );
}

function TraceList({ traces }: { traces: TraceSummary[] }) {
  return (
    <ul className="trace-list">
      {traces.map((trace) => (
        <li key={trace.traceId} data-testid="trace-item">
          <a href={formatRoute(routes.trace(trace.traceId))} title={trace.path}>
            <VisibleText text={trace.name} />
          </a>{' '}
          <span className="muted">
            {trace.format ?? 'format not detected yet'} · {formatBytes(trace.progress.totalBytes)} ·{' '}
            {trace.state === 'failed' ? 'could not be read' : trace.state}
          </span>
          {trace.error !== null && (
            <div className="inline-error">
              <VisibleText text={trace.error} />
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}

function DesktopOpen() {
  const api = useApi();
  const [error, setError] = useState<string | null>(null);
  const open = () => {
    setError(null);
    api.openDialog({}).then(
      (opened) => {
        const first = opened[0];
        if (first) navigate(routes.trace(first.traceId));
      },
      (failure: unknown) => setError(errorMessage(failure)),
    );
  };
  return (
    <section className="open-actions">
      <button type="button" className="primary" onClick={open} data-testid="open-dialog">
        Open…
      </button>
      <span className="muted">or drop a trace file (.jsonl, .json, .log) on this window</span>
      {error !== null && (
        <div className="inline-error" role="alert">
          {error}
        </div>
      )}
    </section>
  );
}

function RecentFiles() {
  const api = useApi();
  const recent = useQuery('recentFiles', (client) => client.recentFiles({}));
  const [error, setError] = useState<string | null>(null);
  if (recent.status !== 'ready' || recent.data.length === 0) return null;
  const open = (path: string) => {
    setError(null);
    api.openPath({ path }).then(
      (trace) => navigate(routes.trace(trace.traceId)),
      (failure: unknown) => setError(errorMessage(failure)),
    );
  };
  return (
    <section>
      <h2>Recent files</h2>
      {error !== null && (
        <div className="inline-error" role="alert">
          {error}
        </div>
      )}
      <ul className="trace-list">
        {recent.data.map((path) => (
          <li key={path}>
            <button type="button" className="link-button" onClick={() => open(path)} title={path}>
              <VisibleText text={path} />
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
