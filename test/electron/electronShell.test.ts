/**
 * The desktop shell's behaviour that does not need a window: the menu (items, shortcuts, Open
 * Recent), the recent-files list and window state as files in a real folder, and which files a
 * launch's command line asks to open.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { MenuItemConstructorOptions } from 'electron';
import { filesFromArgv, filesFromSecondLaunch, positionalArguments, secondLaunchData, type Launch } from '../../src-main/electron/launchArguments';
import { applicationMenuTemplate, openDialogFilters, type MenuActions } from '../../src-main/electron/menu';
import { maxRecentFiles, openRecentFiles, withRecentFile } from '../../src-main/electron/recentFiles';
import { readWindowState, restorableBounds, writeWindowState, type WindowState } from '../../src-main/electron/windowState';
import { temporaryDir } from '../support/engineHarness';

let work: { path: string; remove: () => void };

beforeEach(() => {
  work = temporaryDir('electron-shell');
});

afterEach(() => {
  work.remove();
});

function traceFile(name: string): string {
  const path = join(work.path, name);
  writeFileSync(path, '{"type":"run_start","run_id":"r","step":0}\n');
  return path;
}

describe('application menu', () => {
  const calls: string[] = [];
  const actions: MenuActions = {
    open: () => calls.push('open'),
    openRecent: (path) => calls.push(`openRecent ${path}`),
    clearRecent: () => calls.push('clearRecent'),
    reload: () => calls.push('reload'),
  };
  const submenu = (item: MenuItemConstructorOptions | undefined): MenuItemConstructorOptions[] => {
    assert.ok(Array.isArray(item?.submenu), `${item?.label ?? item?.role} has a submenu`);
    return item.submenu;
  };
  const byLabel = (items: MenuItemConstructorOptions[], label: string) => items.find((item) => item.label === label);
  const click = (item: MenuItemConstructorOptions | undefined): void => {
    assert.ok(item?.click, `${item?.label} is clickable`);
    (item.click as () => void)();
  };

  beforeEach(() => {
    calls.length = 0;
  });

  const linuxMenu = (recentFiles: string[]) => applicationMenuTemplate({ actions, recentFiles, platform: 'linux', developerTools: false });

  it('has File ▸ Open… on Ctrl/Cmd+O and File ▸ Reload on Ctrl/Cmd+R', () => {
    const file = submenu(byLabel(linuxMenu([]), 'File'));
    const open = byLabel(file, 'Open…');
    const reload = byLabel(file, 'Reload');
    assert.equal(open?.accelerator, 'CmdOrCtrl+O');
    assert.equal(reload?.accelerator, 'CmdOrCtrl+R');
    click(open);
    click(reload);
    assert.deepEqual(calls, ['open', 'reload']);
  });

  it('lists recent files under Open Recent, each opening its file, then Clear Recent', () => {
    const recent = submenu(byLabel(submenu(byLabel(linuxMenu(['/traces/b.jsonl', '/traces/a.jsonl']), 'File')), 'Open Recent'));
    assert.deepEqual(
      recent.map((item) => item.label ?? item.type),
      ['b.jsonl — /traces/b.jsonl', 'a.jsonl — /traces/a.jsonl', 'separator', 'Clear Recent'],
    );
    click(recent[1]);
    click(recent[3]);
    assert.deepEqual(calls, ['openRecent /traces/a.jsonl', 'clearRecent']);
  });

  it('says there are no recent files, with Clear Recent disabled', () => {
    const recent = submenu(byLabel(submenu(byLabel(linuxMenu([]), 'File')), 'Open Recent'));
    assert.equal(recent[0]?.label, 'No recent files');
    assert.equal(recent[0]?.enabled, false);
    assert.equal(byLabel(recent, 'Clear Recent')?.enabled, false);
  });

  it('has a native About: under Help on Linux and Windows, in the app menu on macOS', () => {
    const help = linuxMenu([]).find((item) => item.role === 'help');
    assert.deepEqual(submenu(help), [{ role: 'about' }]);
    const mac = applicationMenuTemplate({ actions, recentFiles: [], platform: 'darwin', developerTools: false });
    assert.equal(mac[0]?.role, 'appMenu');
    assert.equal(
      mac.find((item) => item.role === 'help'),
      undefined,
    );
  });

  it('offers developer tools only in the dev build, and never claims the page reload shortcut', () => {
    const roles = (developerTools: boolean) =>
      applicationMenuTemplate({ actions, recentFiles: [], platform: 'linux', developerTools })
        .flatMap((item) => (Array.isArray(item.submenu) ? item.submenu : []))
        .map((item) => item.role);
    assert.ok(roles(true).includes('toggleDevTools'));
    assert.ok(!roles(false).includes('toggleDevTools'));
    assert.ok(!roles(true).includes('reload') && !roles(true).includes('forceReload'));
  });

  it('filters the open dialog to the trace extensions, with all files as a fallback', () => {
    assert.deepEqual(openDialogFilters[0]?.extensions, ['jsonl', 'ndjson', 'json', 'traj', 'eval']);
    assert.deepEqual(openDialogFilters[1]?.extensions, ['*']);
  });
});

describe('recent files', () => {
  it('puts the latest file first, once, and keeps at most ten', () => {
    assert.deepEqual(withRecentFile(['/a', '/b', '/c'], '/b'), ['/b', '/a', '/c']);
    const many = Array.from({ length: maxRecentFiles }, (_, i) => `/f${i}`);
    const updated = withRecentFile(many, '/new');
    assert.equal(updated.length, 10);
    assert.equal(updated[0], '/new');
    assert.ok(!updated.includes('/f9'));
  });

  it('persists the list as JSON, tells the menu, and reads it back in a new session', () => {
    const store = join(work.path, 'recent-files.json');
    const heard: string[][] = [];
    const a = traceFile('a.jsonl');
    const b = traceFile('b.jsonl');
    const recent = openRecentFiles(store, (list) => heard.push(list));
    recent.add(a);
    recent.add(b);
    recent.add(a);
    assert.deepEqual(JSON.parse(readFileSync(store, 'utf8')), [a, b]);
    assert.deepEqual(heard, [[a], [b, a], [a, b]]);
    assert.deepEqual(openRecentFiles(store, () => {}).list(), [a, b]);
  });

  it('drops files that no longer exist', () => {
    const store = join(work.path, 'recent-files.json');
    const a = traceFile('a.jsonl');
    const b = traceFile('b.jsonl');
    const recent = openRecentFiles(store, () => {});
    recent.add(a);
    recent.add(b);
    rmSync(a);
    assert.deepEqual(recent.list(), [b]);
    recent.add(b);
    assert.deepEqual(JSON.parse(readFileSync(store, 'utf8')), [b]);
  });

  it('clears the list', () => {
    const store = join(work.path, 'recent-files.json');
    const recent = openRecentFiles(store, () => {});
    recent.add(traceFile('a.jsonl'));
    recent.clear();
    assert.deepEqual(recent.list(), []);
    assert.deepEqual(JSON.parse(readFileSync(store, 'utf8')), []);
  });

  it('starts empty from a missing or damaged file', () => {
    const store = join(work.path, 'recent-files.json');
    assert.deepEqual(openRecentFiles(store, () => {}).list(), []);
    writeFileSync(store, '["/a", 4');
    assert.deepEqual(openRecentFiles(store, () => {}).list(), []);
    writeFileSync(store, '{"files": []}');
    assert.deepEqual(openRecentFiles(store, () => {}).list(), []);
  });
});

describe('window state', () => {
  const laptop = { x: 0, y: 0, width: 1440, height: 875 };
  const external = { x: 1440, y: 0, width: 2560, height: 1415 };
  const state = (bounds: Partial<WindowState>): WindowState => ({ x: 100, y: 80, width: 1200, height: 760, maximized: false, ...bounds });

  it('is written and read back, maximized flag included', () => {
    const file = join(work.path, 'window-state.json');
    writeWindowState(file, state({ maximized: true }));
    assert.deepEqual(readWindowState(file), state({ maximized: true }));
  });

  it('is ignored when missing, not JSON, or not a valid state', () => {
    const file = join(work.path, 'window-state.json');
    assert.equal(readWindowState(file), null);
    for (const text of [
      '{',
      '{"x":1}',
      '{"x":0,"y":0,"width":10,"height":10,"maximized":false}',
      '{"x":"0","y":0,"width":900,"height":700,"maximized":false}',
    ]) {
      writeFileSync(file, text);
      assert.equal(readWindowState(file), null, text);
    }
  });

  it('restores bounds that lie on a connected display', () => {
    assert.deepEqual(restorableBounds(state({}), [laptop]), { x: 100, y: 80, width: 1200, height: 760 });
    assert.deepEqual(restorableBounds(state({ x: 2000 }), [laptop, external]), { x: 2000, y: 80, width: 1200, height: 760 });
  });

  it('keeps a window partly off screen while its top edge can still be grabbed', () => {
    assert.notEqual(restorableBounds(state({ x: 1000 }), [laptop]), null);
  });

  it('ignores bounds on a display that is gone, or with the title bar out of reach', () => {
    assert.equal(restorableBounds(state({ x: 2000 }), [laptop]), null);
    assert.equal(restorableBounds(state({ y: -400 }), [laptop]), null);
    assert.equal(restorableBounds(state({ x: 1400 }), [laptop]), null);
    assert.equal(restorableBounds(state({ y: 850 }), [laptop]), null);
  });
});

describe('files on the command line', () => {
  it('takes the paths after the executable of a packaged app, made absolute', () => {
    assert.deepEqual(filesFromArgv(['/usr/bin/loopscope', 'trace.jsonl', '/data/b.jsonl'], { defaultApp: false, workingDirectory: '/home/ana' }), [
      '/home/ana/trace.jsonl',
      '/data/b.jsonl',
    ]);
  });

  it('skips the app path when Electron runs the unpackaged app (`loopscope open`: electron <appDir> FILE…)', () => {
    assert.deepEqual(filesFromArgv(['/x/electron', '/opt/loopscope', 'run.jsonl'], { defaultApp: true, workingDirectory: '/w' }), ['/w/run.jsonl']);
    assert.deepEqual(filesFromArgv(['/x/electron', '--no-sandbox', '/opt/loopscope', 'run.jsonl'], { defaultApp: true, workingDirectory: '/w' }), [
      '/w/run.jsonl',
    ]);
  });

  it('drops switches before it counts the executable and the app path, wherever the switches are', () => {
    // What the running app's 'second-instance' receives: Chromium's command line, switches first.
    const secondInstance = ['/x/electron', '--allow-file-access-from-files', '--original-process-start-time=13394', '/opt/loopscope', '../t.jsonl'];
    assert.deepEqual(filesFromArgv(secondInstance, { defaultApp: true, workingDirectory: '/w/sub' }), ['/w/t.jsonl']);
    const packaged = ['/usr/bin/loopscope', '--allow-file-access-from-files', '--original-process-start-time=13394', 'a.jsonl'];
    assert.deepEqual(filesFromArgv(packaged, { defaultApp: false, workingDirectory: '/w' }), ['/w/a.jsonl']);
    assert.deepEqual(filesFromArgv(['/x/electron', '--allow-file-access-from-files', '/opt/loopscope'], { defaultApp: true, workingDirectory: '/w' }), []);
  });

  it("skips Electron's `-r MODULE` option with its value (Playwright starts the app as electron -r loader.js …)", () => {
    const playwright = [
      '/x/electron',
      '-r',
      '/pw/lib/server/electron/loader.js',
      '--no-sandbox',
      '--inspect=0',
      '--remote-debugging-port=0',
      '/opt/loopscope',
      'f.jsonl',
    ];
    assert.deepEqual(filesFromArgv(playwright, { defaultApp: true, workingDirectory: '/w' }), ['/w/f.jsonl']);
    assert.deepEqual(positionalArguments(['--require', 'm.js', 'app', '', '-v']), ['app']);
  });
});

describe('a second launch hands its files to the running app', () => {
  const secondLaunch: Launch = { defaultApp: true, workingDirectory: '/home/ana/traces' };
  const secondArgv = ['/x/electron', '/opt/loopscope', 'b.jsonl', '/data/c.jsonl'];

  it('as additionalData: the files, absolute, whatever argv the running app is given', () => {
    // additionalData crosses processes as a JSON-like value.
    const data: unknown = JSON.parse(JSON.stringify(secondLaunchData(secondArgv, secondLaunch)));
    const reordered = ['/x/electron', '--allow-file-access-from-files', '--original-process-start-time=1', '/opt/loopscope', 'b.jsonl', '/data/c.jsonl'];
    const expected = ['/home/ana/traces/b.jsonl', '/data/c.jsonl'];
    assert.deepEqual(filesFromSecondLaunch(reordered, '/elsewhere', data, true), expected);
    // Even an argv that lost its arguments (a launch by another user) does not matter.
    assert.deepEqual(filesFromSecondLaunch(['/x/electron'], '/elsewhere', data, true), expected);
  });

  it("from argv, with switches dropped first, when the data is not Loopscope's (an older launch sends none)", () => {
    const reordered = ['/x/electron', '--allow-file-access-from-files', '--original-process-start-time=1', '/opt/loopscope', 'b.jsonl'];
    for (const data of [undefined, null, {}, { loopscopeFiles: 'b.jsonl' }, { loopscopeFiles: [3] }]) {
      assert.deepEqual(filesFromSecondLaunch(reordered, '/home/ana', data, true), ['/home/ana/b.jsonl'], JSON.stringify(data));
    }
  });

  it('opens nothing when the later launch named no file (it only brings the window forward)', () => {
    assert.deepEqual(secondLaunchData(['/x/electron', '/opt/loopscope'], secondLaunch), { loopscopeFiles: [] });
    assert.deepEqual(filesFromSecondLaunch(['/x/electron', '/opt/loopscope'], '/w', { loopscopeFiles: [] }, true), []);
  });
});
