/**
 * The one place Loopscope creates windows and applies securityPolicy.ts to Electron: the window's
 * options, navigation and new-window guards on every web contents, and the session's permission
 * and header rules.
 */
import { BrowserWindow, shell, type Rectangle, type Session, type WebContents } from 'electron';
import { isPermissionGranted, navigationDecision, newWindowDecision, secureWindowOptions, securityHeadersResponse } from './securityPolicy';

function openExternally(url: string): void {
  shell.openExternal(url).catch((error: unknown) => console.error(`Loopscope could not open ${url}:`, error));
}

/**
 * Navigation and new-window guards. Applied from `app.on('web-contents-created')`, so they cover
 * every web contents the app ever has, not only the windows made here.
 */
export function guardWebContents(contents: WebContents, rendererPage: URL): void {
  const guardNavigation = (event: Electron.Event<{ url: string; isMainFrame: boolean }>): void => {
    const decision = navigationDecision(event, rendererPage);
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'open-externally') openExternally(event.url);
  };
  contents.on('will-frame-navigate', guardNavigation);
  contents.on('will-redirect', guardNavigation);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (newWindowDecision(url) === 'open-externally') openExternally(url);
    return { action: 'deny' };
  });
}

/**
 * Permission requests and checks answered by the policy (everything denied but clipboard writes
 * from the renderer page). With `contentSecurityPolicyHeader`, the renderer's files are also
 * served with the CSP header; the dev server's page needs inline scripts, so `electron-vite dev`
 * keeps only its relaxed `<meta>` policy.
 */
export function hardenSession(session: Session, rendererPage: URL, options: { contentSecurityPolicyHeader: boolean }): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) => callback(isPermissionGranted(permission, details, rendererPage)));
  session.setPermissionCheckHandler((_contents, permission, _origin, details) => isPermissionGranted(permission, details, rendererPage));
  if (options.contentSecurityPolicyHeader) {
    session.webRequest.onHeadersReceived((details, callback) => callback(securityHeadersResponse(details.url, details.responseHeaders ?? {}, rendererPage)));
  }
}

/** The app window: secure options, shown when painted, at the remembered place when there is one. */
export function createMainWindow(options: { preloadPath: string; bounds: Partial<Rectangle>; maximized: boolean }): BrowserWindow {
  const window = new BrowserWindow(secureWindowOptions(options));
  window.once('ready-to-show', () => {
    if (options.maximized) window.maximize();
    window.show();
  });
  return window;
}
