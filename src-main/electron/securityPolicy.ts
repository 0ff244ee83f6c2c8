/**
 * The security rules of the desktop shell as plain decisions: what a window is allowed to do, where
 * it may navigate, which links leave for the system browser, who may call the API, which
 * permission is granted. Only Electron's types are imported, so tests check every rule without an
 * Electron binary; windowFactory.ts and ipc.ts apply them.
 */
import type { BrowserWindowConstructorOptions, HeadersReceivedResponse, Rectangle, WebPreferences } from 'electron';

import { contentSecurityPolicy } from '../../shared/contentSecurityPolicy';

/**
 * Sites a link in the app may open in the system browser: the code host and the documentation
 * of the trace formats Loopscope reads. Matched by scheme, host and path prefix.
 */
export const externalLinkAllowList: readonly string[] = [
  'https://github.com/',
  'https://docs.anthropic.com/',
  'https://platform.openai.com/docs/',
  'https://opentelemetry.io/docs/',
  'https://inspect.aisi.org.uk/',
];

export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    experimentalFeatures: false,
    // A file dropped on the window is opened by the renderer through the API, never navigated to.
    navigateOnDragDrop: false,
    safeDialogs: true,
  };
}

export function secureWindowOptions(options: { preloadPath: string; bounds: Partial<Rectangle> }): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 800,
    ...options.bounds,
    minWidth: 640,
    minHeight: 400,
    title: 'Loopscope',
    // Shown once the page has painted, so the window never flashes blank.
    show: false,
    webPreferences: secureWebPreferences(options.preloadPath),
  };
}

/** True when `url` is the renderer page itself (query and fragment ignored: they are the app's routes). */
export function isRendererPage(url: string, rendererPage: URL): boolean {
  const parsed = URL.parse(url);
  if (!parsed) return false;
  parsed.search = '';
  parsed.hash = '';
  return parsed.href === rendererPage.href;
}

/** True for the renderer page and the files beside it (its scripts, styles, images). */
export function isRendererResource(url: string, rendererPage: URL): boolean {
  const parsed = URL.parse(url);
  if (!parsed || parsed.protocol !== rendererPage.protocol || parsed.host !== rendererPage.host) return false;
  return parsed.pathname.startsWith(new URL('./', rendererPage).pathname);
}

/** Whether a link may be handed to the system browser: https, no credentials, on the allow-list. */
export function isAllowedExternalUrl(url: string): boolean {
  const parsed = URL.parse(url);
  if (!parsed || parsed.protocol !== 'https:' || parsed.username !== '' || parsed.password !== '') return false;
  return externalLinkAllowList.some((entry) => {
    const allowed = new URL(entry);
    return parsed.host === allowed.host && parsed.pathname.startsWith(allowed.pathname);
  });
}

/**
 * What to do when a frame tries to go to `url` (a link, `location`, a redirect): the top frame may
 * move within the renderer page (its routes); an allow-listed link goes to the system browser;
 * anything else, and any navigation of a subframe (the page has none), is refused.
 */
export function navigationDecision(target: { url: string; isMainFrame: boolean }, rendererPage: URL): 'allow' | 'open-externally' | 'deny' {
  if (!target.isMainFrame) return 'deny';
  if (isRendererPage(target.url, rendererPage)) return 'allow';
  return isAllowedExternalUrl(target.url) ? 'open-externally' : 'deny';
}

/** `window.open` and `target=_blank` never open an app window: an allow-listed link goes to the system browser. */
export function newWindowDecision(url: string): 'open-externally' | 'deny' {
  return isAllowedExternalUrl(url) ? 'open-externally' : 'deny';
}

/** The frame an IPC message came from, as Electron describes it (WebFrameMain). */
export interface SenderFrame {
  readonly url: string;
  readonly parent: unknown;
}

/** Only the renderer page's top frame may call the API; never a subframe, never another page. */
export function isTrustedSender(frame: SenderFrame | null | undefined, rendererPage: URL): boolean {
  return frame !== null && frame !== undefined && frame.parent === null && isRendererPage(frame.url, rendererPage);
}

/**
 * Every permission is refused except writing to the clipboard from the renderer page's top frame:
 * "copy as JSON" uses `navigator.clipboard.writeText`, which Electron gates behind
 * `clipboard-sanitized-write`. Reading the clipboard, media, notifications, … are all denied.
 */
export function isPermissionGranted(permission: string, request: { requestingUrl?: string | undefined; isMainFrame: boolean }, rendererPage: URL): boolean {
  return (
    permission === 'clipboard-sanitized-write' &&
    request.isMainFrame &&
    request.requestingUrl !== undefined &&
    isRendererPage(request.requestingUrl, rendererPage)
  );
}

/**
 * How the session answers a response's headers: the renderer's files get the CSP (replacing any
 * the response carried) and nosniff; any other response is answered `{}`, which tells Electron to
 * leave its headers as they came (an answer with `responseHeaders` would replace them).
 */
export function securityHeadersResponse(url: string, headers: Record<string, string[]>, rendererPage: URL): HeadersReceivedResponse {
  if (!isRendererResource(url, rendererPage)) return {};
  const replaced = new Set(['content-security-policy', 'x-content-type-options']);
  const kept = Object.entries(headers).filter(([name]) => !replaced.has(name.toLowerCase()));
  return { responseHeaders: { ...Object.fromEntries(kept), 'Content-Security-Policy': [contentSecurityPolicy], 'X-Content-Type-Options': ['nosniff'] } };
}
