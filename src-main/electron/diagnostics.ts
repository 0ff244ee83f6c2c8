/**
 * What goes wrong inside the desktop app, written where someone can read it: stderr, which
 * `loopscope open` keeps in the launch log. The paths no test here can reach (the preload, the
 * renderer process, the page's own errors, the module diff worker under file://, which falls back
 * to the page silently) fail visibly this way instead of leaving a blank or quietly slower window.
 */
import type { App, WebContents } from 'electron';

export type DiagnosticLog = (line: string) => void;

/** One line on stderr, timestamped and marked as Loopscope's among Chromium's own output. */
export const stderrLog: DiagnosticLog = (line) => {
  process.stderr.write(`[${new Date().toISOString()}] loopscope: ${line}\n`);
};

/** Chromium's net error for a load cancelled by another navigation (a reload, a route change): not a failure. */
const loadAborted = -3;

/** The events of one web contents that mean something broke: each is logged with what Electron says about it. */
export function logWebContentsProblems(contents: Pick<WebContents, 'on'>, log: DiagnosticLog): void {
  contents.on('preload-error', (_event, preloadPath, error) => {
    log(`the preload script ${preloadPath} failed: ${error.stack ?? error.message}`);
  });
  contents.on('render-process-gone', (_event, details) => {
    log(`the page's renderer process is gone (${details.reason}, exit code ${details.exitCode})`);
  });
  contents.on('did-fail-load', (_event, errorCode, errorDescription, validatedURL, isMainFrame) => {
    if (errorCode === loadAborted) return;
    log(`${isMainFrame ? 'the page' : 'a frame'} failed to load ${validatedURL}: ${errorDescription} (${errorCode})`);
  });
  contents.on('console-message', (event) => {
    if (event.level !== 'error') return;
    log(`console error in the page: ${event.message} (${event.sourceId}:${event.lineNumber})`);
  });
}

/** Helper processes (GPU, utility, zygote) that die: the renderer's own death is logged per web contents. */
export function logChildProcessProblems(app: Pick<App, 'on'>, log: DiagnosticLog): void {
  app.on('child-process-gone', (_event, details) => {
    if (details.reason === 'clean-exit') return;
    log(`the ${details.name ?? details.type} process is gone (${details.reason}, exit code ${details.exitCode})`);
  });
}
