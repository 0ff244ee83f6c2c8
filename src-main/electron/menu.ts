/**
 * The application menu as a template (data, no Electron call), so its items and shortcuts are
 * tested; main.ts builds it with `Menu.buildFromTemplate` whenever the recent files change.
 */
import { basename } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  open(): void;
  openRecent(path: string): void;
  clearRecent(): void;
  reload(): void;
}

/** File-dialog filters for File ▸ Open…: every format Loopscope detects, then anything. */
export const openDialogFilters = [
  { name: 'Traces (.jsonl, .ndjson, .json, .traj, .eval)', extensions: ['jsonl', 'ndjson', 'json', 'traj', 'eval'] },
  { name: 'All files', extensions: ['*'] },
];

function recentSubmenu(recentFiles: readonly string[], actions: MenuActions): MenuItemConstructorOptions[] {
  const entries: MenuItemConstructorOptions[] =
    recentFiles.length === 0
      ? [{ label: 'No recent files', enabled: false }]
      : recentFiles.map((path) => ({ label: `${basename(path)} — ${path}`, click: () => actions.openRecent(path) }));
  return [...entries, { type: 'separator' }, { label: 'Clear Recent', enabled: recentFiles.length > 0, click: () => actions.clearRecent() }];
}

const developerToolsItems: MenuItemConstructorOptions[] = [{ role: 'toggleDevTools' }, { type: 'separator' }];
const editMenu: MenuItemConstructorOptions = { role: 'editMenu' };
const windowMenu: MenuItemConstructorOptions = { role: 'windowMenu' };

export function applicationMenuTemplate(options: {
  actions: MenuActions;
  recentFiles: readonly string[];
  platform: NodeJS.Platform;
  /** Developer tools are in the View menu of the dev build only. */
  developerTools: boolean;
}): MenuItemConstructorOptions[] {
  const { actions, recentFiles, platform } = options;
  const isMac = platform === 'darwin';
  const file: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      { label: 'Open…', accelerator: 'CmdOrCtrl+O', click: () => actions.open() },
      { label: 'Open Recent', submenu: recentSubmenu(recentFiles, actions) },
      { type: 'separator' },
      // Re-reads the open traces from their files (a changed file is ingested again), then the page.
      { label: 'Reload', accelerator: 'CmdOrCtrl+R', click: () => actions.reload() },
      { type: 'separator' },
      isMac ? { role: 'close' } : { role: 'quit' },
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      ...(options.developerTools ? developerToolsItems : []),
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };
  // The About panel sits in the app menu on macOS and under Help elsewhere.
  const help: MenuItemConstructorOptions = { role: 'help', submenu: [{ role: 'about' }] };
  const appMenu: MenuItemConstructorOptions = { role: 'appMenu' };
  return isMac ? [appMenu, file, editMenu, view, windowMenu] : [file, editMenu, view, windowMenu, help];
}
