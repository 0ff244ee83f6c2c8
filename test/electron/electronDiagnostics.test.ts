/**
 * The desktop app's diagnostics: each Electron event that means something broke becomes one log
 * line naming what broke. The events are emitted with the names and argument shapes of Electron's
 * own type declarations (checked against electron.d.ts here, as no Electron binary runs on CI).
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import type { App, WebContents } from 'electron';
import { logChildProcessProblems, logWebContentsProblems } from '../../src-main/electron/diagnostics';

const electronTypes = readFileSync(createRequire(import.meta.url).resolve('electron/electron.d.ts'), 'utf8');

/** The listener signature electron.d.ts declares for `event` on the class `owner`. */
function declaredListener(owner: 'App' | 'WebContents', event: string): string {
  const classStart = electronTypes.indexOf(owner === 'App' ? 'interface App extends NodeJS.EventEmitter' : 'class WebContents extends NodeEventEmitter');
  assert.ok(classStart >= 0, `electron.d.ts declares ${owner}`);
  const at = electronTypes.indexOf(`on(event: '${event}', listener: (`, classStart);
  assert.ok(at >= 0, `electron.d.ts declares ${owner}.on('${event}')`);
  return electronTypes.slice(at, electronTypes.indexOf(') => void): this;', at));
}

function webContentsStandIn(): { contents: EventEmitter; lines: string[] } {
  const contents = new EventEmitter();
  const lines: string[] = [];
  logWebContentsProblems(contents as unknown as Pick<WebContents, 'on'>, (line) => lines.push(line));
  return { contents, lines };
}

describe('web contents diagnostics', () => {
  it('logs a preload script that threw, with its path and stack', () => {
    assert.match(declaredListener('WebContents', 'preload-error'), /preloadPath: string,\s*error: Error/);
    const { contents, lines } = webContentsStandIn();
    contents.emit('preload-error', {}, '/opt/loopscope/out/preload/index.cjs', new Error('contextBridge is not defined'));
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', /^the preload script \/opt\/loopscope\/out\/preload\/index\.cjs failed: Error: contextBridge is not defined/);
  });

  it('logs a renderer process that is gone, with the reason and exit code', () => {
    assert.match(declaredListener('WebContents', 'render-process-gone'), /details: RenderProcessGoneDetails/);
    const { contents, lines } = webContentsStandIn();
    contents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
    assert.deepEqual(lines, ["the page's renderer process is gone (crashed, exit code 139)"]);
  });

  it('logs a failed load with its URL and Chromium error, but not a load aborted by a reload', () => {
    assert.match(
      declaredListener('WebContents', 'did-fail-load'),
      /errorCode: number,\s*errorDescription: string,\s*validatedURL: string,\s*isMainFrame: boolean/,
    );
    const { contents, lines } = webContentsStandIn();
    contents.emit('did-fail-load', {}, -6, 'ERR_FILE_NOT_FOUND', 'file:///opt/loopscope/out/renderer/index.html', true, 1, 1);
    contents.emit('did-fail-load', {}, -3, 'ERR_ABORTED', 'file:///opt/loopscope/out/renderer/index.html', true, 1, 1);
    assert.deepEqual(lines, ['the page failed to load file:///opt/loopscope/out/renderer/index.html: ERR_FILE_NOT_FOUND (-6)']);
  });

  it("logs the page's console errors with their source, and nothing below error", () => {
    // Electron 45 hands the details as the event object; the positional arguments are deprecated.
    assert.match(declaredListener('WebContents', 'console-message'), /details: Event<WebContentsConsoleMessageEventParams>/);
    assert.match(electronTypes, /interface WebContentsConsoleMessageEventParams \{[^}]*level: \('info' \| 'warning' \| 'error' \| 'debug'\)/);
    const { contents, lines } = webContentsStandIn();
    const worker = "Refused to load the script 'blob:file:///x' because it violates the following Content Security Policy directive";
    contents.emit('console-message', { level: 'error', message: worker, lineNumber: 12, sourceId: 'file:///opt/loopscope/out/renderer/assets/index.js' });
    contents.emit('console-message', { level: 'warning', message: 'slow', lineNumber: 1, sourceId: 'x' });
    contents.emit('console-message', { level: 'info', message: 'hello', lineNumber: 1, sourceId: 'x' });
    assert.deepEqual(lines, [`console error in the page: ${worker} (file:///opt/loopscope/out/renderer/assets/index.js:12)`]);
  });
});

describe('helper process diagnostics', () => {
  it('logs a helper process that died, by its name or type, and not one that exited cleanly', () => {
    assert.match(declaredListener('App', 'child-process-gone'), /details: Details/);
    const app = new EventEmitter();
    const lines: string[] = [];
    logChildProcessProblems(app as unknown as Pick<App, 'on'>, (line) => lines.push(line));
    app.emit('child-process-gone', {}, { type: 'GPU', reason: 'crashed', exitCode: 133 });
    app.emit('child-process-gone', {}, { type: 'Utility', name: 'Network Service', reason: 'killed', exitCode: 9 });
    app.emit('child-process-gone', {}, { type: 'Utility', name: 'Audio Service', reason: 'clean-exit', exitCode: 0 });
    assert.deepEqual(lines, ['the GPU process is gone (crashed, exit code 133)', 'the Network Service process is gone (killed, exit code 9)']);
  });
});
