import { useCallback, useState, type DragEvent, type ReactNode } from 'react';
import type { ApiResponse, LoopscopeApi } from '../shared/api';
import { ApiContext, ReportContext, useApi } from './api/ApiContext';
import { errorMessage } from './api/client';
import { useQuery } from './api/useQuery';
import { Notices } from './components/Notices';
import { ShortcutsDialog } from './components/ShortcutsDialog';
import { Failure } from './components/States';
import { ShowShortcutsContext, useShortcuts } from './keyboard/shortcuts';
import { routes } from './navigation/route';
import { navigate, useRoute } from './navigation/useRoute';
import { StartScreen } from './views/StartScreen';
import { TraceView } from './views/TraceView';

/** The app over `api`: the desktop app's or the server's (main.tsx), or a report's recorded answers (report/reportMain.tsx). */
export function App({ api }: { api: LoopscopeApi }) {
  return (
    <ApiContext.Provider value={api}>
      <AppShell />
    </ApiContext.Provider>
  );
}

type AppInfo = ApiResponse<'appInfo'>;

function AppShell() {
  const route = useRoute();
  const appInfo = useQuery('appInfo', (api) => api.appInfo({}));
  const [showShortcuts, setShowShortcuts] = useState(false);
  const [dropError, setDropError] = useState<string | null>(null);
  const closeShortcuts = useCallback(() => setShowShortcuts(false), []);
  const openShortcuts = useCallback(() => setShowShortcuts(true), []);
  useShortcuts({ '?': openShortcuts });

  if (appInfo.status === 'error') return <Failure what="Loopscope" error={appInfo.error} onRetry={() => window.location.reload()} />;
  // The views load alongside the app's facts, not after them: a trace's views do not need them, and
  // the start screen asks for the open traces meanwhile (it goes straight to the only one).
  const info = appInfo.status === 'ready' ? appInfo.data : null;

  return (
    <ShowShortcutsContext.Provider value={openShortcuts}>
      <ReportContext.Provider value={info?.report}>
        <DropTarget info={info} onError={setDropError}>
          <Notices />
          {dropError !== null && (
            <div className="banner banner-error" role="alert">
              {dropError}{' '}
              <button type="button" className="link-button" onClick={() => setDropError(null)}>
                Dismiss
              </button>
            </div>
          )}
          {route.view === 'start' ? <StartScreen info={info} params={route.params} /> : <TraceView route={route} />}
          {showShortcuts && <ShortcutsDialog onClose={closeShortcuts} />}
        </DropTarget>
      </ReportContext.Provider>
    </ShowShortcutsContext.Provider>
  );
}

/**
 * Dropping a file on the window opens it (desktop app); in the browser, says how to open one. Until
 * the app's facts arrive (`info` null) a drop is taken and ignored: whether paths can be opened is
 * not known yet.
 */
function DropTarget({ info, onError, children }: { info: AppInfo | null; onError: (message: string | null) => void; children: ReactNode }) {
  const api = useApi();
  const [over, setOver] = useState(false);

  const onDragOver = (event: DragEvent) => {
    if (!event.dataTransfer.types.includes('Files')) return;
    event.preventDefault();
    setOver(true);
  };
  const onDrop = (event: DragEvent) => {
    if (!event.dataTransfer.types.includes('Files')) return;
    event.preventDefault();
    setOver(false);
    const file = event.dataTransfer.files[0];
    if (!file || info === null) return;
    const path = info.canOpenPaths ? (window.loopscope?.pathForFile(file) ?? null) : null;
    if (path === null) {
      onError(
        info.canOpenPaths
          ? `Cannot open ${file.name}: it has no path on disk.`
          : `To open ${file.name} here, run \`loopscope serve ${file.name}\` (the browser cannot hand a dropped file to the server), or use the desktop app.`,
      );
      return;
    }
    onError(null);
    api.openPath({ path }).then(
      (trace) => navigate(routes.trace(trace.traceId)),
      (error: unknown) => onError(errorMessage(error)),
    );
  };
  return (
    <div className={`app ${over ? 'app-drop-over' : ''}`} onDragOver={onDragOver} onDragLeave={() => setOver(false)} onDrop={onDrop}>
      {children}
    </div>
  );
}
