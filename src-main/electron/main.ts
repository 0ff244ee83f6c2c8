/**
 * The Electron shell: one sandboxed window showing the renderer page, nothing else reachable.
 * Paths are resolved against this file as built (out/main/index.js).
 */
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, ipcMain, session } from 'electron';
import { ipcChannels } from '../../shared/api';

const preloadPath = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));

/** The only page the window may show: the built renderer, or the dev server under `electron-vite dev`. */
const devServerUrl = import.meta.env.DEV ? process.env.ELECTRON_RENDERER_URL : undefined;
const rendererPage = new URL(devServerUrl ?? '../renderer/index.html', import.meta.url);

/** True when `url` is the renderer page itself (query and fragment ignored). */
function isRendererPage(url: string): boolean {
  const parsed = URL.parse(url);
  if (!parsed) return false;
  parsed.search = '';
  parsed.hash = '';
  return parsed.href === rendererPage.href;
}

function createWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 800,
    title: 'Loopscope',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  window.webContents.on('will-navigate', (event) => {
    if (!isRendererPage(event.url)) event.preventDefault();
  });
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  return window;
}

let mainWindow: BrowserWindow | undefined;

async function start(): Promise<void> {
  await app.whenReady();
  session.defaultSession.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  ipcMain.handle(ipcChannels.version, (event) => {
    if (!event.senderFrame || !isRendererPage(event.senderFrame.url)) {
      throw new Error(`${ipcChannels.version}: sender is not the Loopscope renderer`);
    }
    return app.getVersion();
  });
  mainWindow = createWindow();
  await mainWindow.loadURL(rendererPage.href);
}

if (app.requestSingleInstanceLock()) {
  app.on('second-instance', () => {
    if (!mainWindow || mainWindow.isDestroyed()) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on('window-all-closed', () => app.quit());
  start().catch((error: unknown) => {
    console.error('Loopscope failed to start:', error);
    app.exit(1);
  });
} else {
  app.quit();
}
