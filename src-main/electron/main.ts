/**
 * The Electron shell: one sandboxed window showing the renderer page, the API host behind the one
 * IPC channel, and the desktop's ways to open a trace — File ▸ Open…, Open Recent, paths on the
 * command line or handed over by a second launch, a file dropped on the window (the renderer asks
 * through the API). No engine work runs here: the API host ingests and queries in worker threads.
 * Paths are resolved against this file as built (out/main/index.js).
 *
 * Nothing here stops the start with a modal dialog: a problem found before the page loads is a
 * notice the page shows, and every failure is also written to stderr (diagnostics.ts), which
 * `loopscope open` keeps in the launch log.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, Menu, screen, session } from 'electron';
import { apiMethods } from '../../shared/api';
import { toApiError } from '../api/apiError';
import { createApiHost, type ApiHost } from '../api/apiHost';
import { logChildProcessProblems, logWebContentsProblems, stderrLog } from './diagnostics';
import { registerApiChannel } from './ipc';
import {
  filesFromArgv,
  filesFromSecondLaunch,
  idleAfterFromEnvironment,
  pricesVariable,
  secondLaunchData,
  windowReadyLine,
  type Launch,
} from './launchArguments';
import { readUserPrices } from '../api/userPricesFile';
import { defaultCacheDir } from '../engine';
import { startOtlpReceiver } from '../otlp/otlpReceiver';
import { otlpSettingSchema, otlpVariable, receivedTracesDir, receivedTracesFile, type OtlpSetting } from '../otlp/receivedTraces';
import type { UserPrices } from '../../shared/cost/userPrices';
import { applicationMenuTemplate, openDialogFilters } from './menu';
import { openRecentFiles, type RecentFiles } from './recentFiles';
import { createMainWindow, guardWebContents, hardenSession } from './windowFactory';
import { readWindowState, restorableBounds, writeWindowState } from './windowState';

const preloadPath = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));

/** The only page the window may show: the built renderer, or the dev server under `electron-vite dev`. */
const devServerUrl = import.meta.env.DEV ? process.env.ELECTRON_RENDERER_URL : undefined;
const rendererPage = new URL(devServerUrl ?? '../renderer/index.html', import.meta.url);

interface Shell {
  host: ApiHost;
  window: BrowserWindow;
  recentFiles: RecentFiles;
}

let shell: Shell | undefined;

/** Files asked for before the window exists: the command line, an early second launch, macOS "open with". */
const filesBeforeStart: string[] = [];

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Problems for the page to show as one notice (and for the log); the page learns of it when it next loads. */
function reportProblems(host: ApiHost, title: string, problems: string[]): void {
  if (problems.length === 0) return;
  for (const problem of problems) stderrLog(`${title}: ${problem}`);
  host.notify(title, problems);
}

/** Opens each existing file in the API host; the ones that fail are reported together. */
async function openTraces(host: ApiHost, paths: string[]): Promise<void> {
  const problems: string[] = [];
  for (const path of paths) {
    if (!isFile(path)) {
      problems.push(`${path}: no such file`);
      continue;
    }
    await host.open(path).catch((error: unknown) => problems.push(toApiError(error).error.message));
  }
  reportProblems(host, 'Loopscope could not open every file', problems);
}

/**
 * Makes the page show the traces as they are now. The API has no way to tell the page that the
 * traces changed, so a loaded page is reloaded: it asks for the trace list again and keeps its
 * route. A page not loaded yet asks anyway once it is (and reloading it would abort its load).
 */
function refreshPage(window: BrowserWindow): void {
  const contents = window.webContents;
  if (contents.getURL() !== '' && !contents.isLoadingMainFrame()) contents.reload();
}

/**
 * Opens paths into the running window (before it exists, they wait for the start): a directory
 * joins the library (docs/semantics.md §19), a file opens as a trace.
 */
async function openIntoWindow(paths: string[]): Promise<void> {
  if (!shell) {
    filesBeforeStart.push(...paths);
    return;
  }
  if (paths.length === 0) return;
  const { host, window } = shell;
  const directories = paths.filter(isDirectory);
  if (directories.length > 0) {
    await host
      .addLibraryRoots(directories)
      .catch((error: unknown) => reportProblems(host, 'Loopscope could not add to the library', [toApiError(error).error.message]));
  }
  await openTraces(
    host,
    paths.filter((path) => !isDirectory(path)),
  );
  refreshPage(window);
}

async function showOpenDialog(window: BrowserWindow): Promise<string[]> {
  const result = await dialog.showOpenDialog(window, {
    title: 'Open traces',
    properties: ['openFile', 'multiSelections'],
    filters: openDialogFilters,
  });
  return result.canceled ? [] : result.filePaths;
}

/** File ▸ Reload: every open trace is read again from its file (a changed file is re-ingested), then the page. */
async function reloadTraces({ host, window }: Shell): Promise<void> {
  const traces = apiMethods.listTraces.response.parse(await host.call('listTraces', {}));
  const problems: string[] = [];
  for (const trace of traces) {
    await host.call('reload', { traceId: trace.traceId }).catch((error: unknown) => problems.push(toApiError(error).error.message));
  }
  reportProblems(host, 'Loopscope could not reload every trace', problems);
  refreshPage(window);
}

function focusWindow(window: BrowserWindow): void {
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

function installMenu(): void {
  if (!shell) return;
  const current = shell;
  const report = (error: unknown) => {
    reportProblems(current.host, 'Loopscope', [toApiError(error).error.message]);
    refreshPage(current.window);
  };
  const template = applicationMenuTemplate({
    actions: {
      open: () => void showOpenDialog(current.window).then(openIntoWindow).catch(report),
      openRecent: (path) => void openIntoWindow([path]).catch(report),
      clearRecent: () => current.recentFiles.clear(),
      reload: () => void reloadTraces(current).catch(report),
    },
    recentFiles: current.recentFiles.list(),
    platform: process.platform,
    developerTools: import.meta.env.DEV,
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

/** The window where it was last closed, when that place is still on a connected display. */
function createWindow(stateFile: string): BrowserWindow {
  const saved = readWindowState(stateFile);
  const bounds =
    saved &&
    restorableBounds(
      saved,
      screen.getAllDisplays().map((display) => display.workArea),
    );
  const window = createMainWindow({ preloadPath, bounds: bounds ?? {}, maximized: saved?.maximized ?? false });
  window.on('close', () => {
    try {
      writeWindowState(stateFile, { ...window.getNormalBounds(), maximized: window.isMaximized() });
    } catch (error) {
      console.error('Loopscope could not remember the window state:', error);
    }
  });
  return window;
}

async function start(): Promise<void> {
  await app.whenReady();
  app.setAboutPanelOptions({
    applicationName: 'Loopscope',
    applicationVersion: app.getVersion(),
    copyright: 'MIT License',
    credits: 'A debugger for agent-loop traces.',
  });
  hardenSession(session.defaultSession, rendererPage, { contentSecurityPolicyHeader: !import.meta.env.DEV });
  const userData = app.getPath('userData');
  const recentFiles = openRecentFiles(join(userData, 'recent-files.json'), installMenu);
  const window = createWindow(join(userData, 'window-state.json'));
  // Directories the app was started on are its library (docs/semantics.md §18); files open as traces.
  const launchPaths = filesBeforeStart.splice(0);
  const otlp = otlpSetting();
  const cacheDir = defaultCacheDir();
  if (otlp !== null) mkdirSync(receivedTracesDir(cacheDir), { recursive: true });
  const libraryRoots = [...launchPaths.filter(isDirectory), ...(otlp === null ? [] : [receivedTracesDir(cacheDir)])];
  const host = createApiHost({
    shell: 'electron',
    version: app.getVersion(),
    canOpenPaths: true,
    openDialog: () => showOpenDialog(window),
    recentFiles,
    ...followSetting(),
    ...(libraryRoots.length > 0 ? { library: { roots: libraryRoots } } : {}),
    ...pricesSetting(),
  });
  registerApiChannel(ipcMain, host, rendererPage);
  shell = { host, window, recentFiles };
  if (otlp !== null) await receiveOtlp(host, receivedTracesFile(cacheDir), otlp);
  installMenu();
  // Opening only starts each ingest (and notes what failed), so the page loads at once and shows both.
  await openTraces(
    host,
    launchPaths.filter((path) => !isDirectory(path)),
  );
  await window.loadURL(rendererPage.href);
  process.stdout.write(`${windowReadyLine} (process ${process.pid})\n`);
}

/** `loopscope open --otlp [PORT]`, handed over by the CLI as JSON; null when not asked for. */
function otlpSetting(): OtlpSetting | null {
  const value = process.env[otlpVariable];
  if (value === undefined || value === '') return null;
  try {
    return otlpSettingSchema.parse(JSON.parse(value));
  } catch (error) {
    stderrLog(`the --otlp setting could not be read: ${(error as Error).message}`);
    return null;
  }
}

/** Receives OTLP traces into `file` (a directory of the library) until the app quits; a port that cannot be had is a notice. */
async function receiveOtlp(host: ApiHost, file: string, otlp: OtlpSetting): Promise<void> {
  try {
    const receiver = await startOtlpReceiver({ file, ...otlp });
    app.once('will-quit', () => void receiver.close());
    process.stdout.write(`Receiving OpenTelemetry traces at ${receiver.endpoint}/v1/traces, kept in ${receiver.file}\n`);
  } catch (error) {
    reportProblems(host, 'Loopscope could not receive OpenTelemetry traces', [(error as Error).message]);
  }
}

/** `loopscope open --prices FILE`, checked by the CLI before the app started. */
function pricesSetting(): { userPrices?: UserPrices } {
  const path = process.env[pricesVariable];
  if (path === undefined || path === '') return {};
  try {
    return { userPrices: readUserPrices(path) };
  } catch (error) {
    stderrLog(`the price file could not be read: ${(error as Error).message}`);
    return {};
  }
}

/** `loopscope open --idle-after S` or `--no-follow`, when the app was started with one. */
function followSetting(): { idleAfterMs?: number | null } {
  const idleAfterMs = idleAfterFromEnvironment(process.env);
  return idleAfterMs === undefined ? {} : { idleAfterMs };
}

/** The API host's workers and databases are closed before the app exits. */
function closeHostBeforeQuit(): void {
  let closing: Promise<void> | undefined;
  app.on('will-quit', (event) => {
    if (!shell || closing) return;
    event.preventDefault();
    closing = shell.host
      .close()
      .catch((error: unknown) => console.error('Loopscope could not close its traces:', error))
      .finally(() => app.quit());
  });
}

/**
 * `--user-data-dir=DIR` keeps everything the app stores (recent files, window state, Chromium's
 * profile) in DIR, and makes DIR the single-instance scope: a test, or a second profile, runs
 * beside the user's own app. Must be set before the lock is asked for and before 'ready'.
 */
function useUserDataDirSwitch(): void {
  const userDataDir = app.commandLine.getSwitchValue('user-data-dir');
  if (userDataDir !== '') app.setPath('userData', resolve(userDataDir));
}

/** A failure nobody catches is logged instead of Electron's default: a modal dialog. */
function logUncaughtErrors(): void {
  process.on('uncaughtException', (error) => stderrLog(`uncaught error in the main process: ${error.stack ?? error.message}`));
  process.on('unhandledRejection', (reason) =>
    stderrLog(`unhandled rejection in the main process: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`),
  );
}

logUncaughtErrors();
useUserDataDirSwitch();
// Every renderer sandboxed, whatever its window options say (must precede 'ready').
app.enableSandbox();

const launch: Launch = { defaultApp: process.defaultApp === true, workingDirectory: process.cwd() };
// A later launch hands its files over as data: the argv the running app would see is reordered (launchArguments.ts).
if (app.requestSingleInstanceLock(secondLaunchData(process.argv, launch))) {
  filesBeforeStart.push(...filesFromArgv(process.argv, launch));
  app.on('web-contents-created', (_event, contents) => {
    guardWebContents(contents, rendererPage);
    logWebContentsProblems(contents, stderrLog);
  });
  logChildProcessProblems(app, stderrLog);
  app.on('second-instance', (_event, argv, workingDirectory, additionalData) => {
    void openIntoWindow(filesFromSecondLaunch(argv, workingDirectory, additionalData, launch.defaultApp));
    if (shell && !shell.window.isDestroyed()) focusWindow(shell.window);
  });
  // macOS hands files opened from Finder or dropped on the Dock icon to the running app.
  app.on('open-file', (event, path) => {
    event.preventDefault();
    void openIntoWindow([path]);
  });
  app.on('window-all-closed', () => app.quit());
  closeHostBeforeQuit();
  start().catch((error: unknown) => {
    stderrLog(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    app.exit(1);
  });
} else {
  // Another Loopscope is running: it received this launch's files through 'second-instance'.
  app.quit();
}
