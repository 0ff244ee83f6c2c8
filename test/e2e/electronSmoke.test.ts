/**
 * The desktop app itself, started the way a user starts it: the built app in a real Electron
 * binary (playwright-core's Electron support, which finds it as the `electron` package does, so
 * $ELECTRON_OVERRIDE_DIST_PATH points it elsewhere), under Xvfb on Linux when there is no display,
 * with a temporary user-data folder and trace cache. It checks what no test of the parts can:
 * the window's sandbox and Content Security Policy, the preload bridge and an IPC round trip,
 * worker threads and SQLite inside Electron's Node, the diff worker under file://, the navigation
 * guards, a reload, File ▸ Open… (its dialog stubbed in the main process, the menu item clicked),
 * a dropped file, a second launch handing its files over, no error in the page's console across
 * the suite, and a clean exit.
 *
 * Where no Electron binary is installed (these CI machines cannot download one) the suite is
 * skipped with that reason. To run it: `npx install-electron` (or `npm install` with electron's
 * install script allowed), `npm run build`, then
 * `node --import tsx --test test/e2e/electronSmoke.test.ts` (through npm's Node 22).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { findElectronBinary } from '../../src-main/cli/openApp';
import { metaContentSecurityPolicy } from '../../shared/contentSecurityPolicy';
import { temporaryDir } from '../support/engineHarness';
import { examplesDir, repoRoot } from '../../devkit/repoPaths';

const electron = findElectronBinary(process.env);

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

const needsXvfb = process.platform === 'linux' && !process.env['DISPLAY'] && !process.env['WAYLAND_DISPLAY'];

/** Why the smoke test cannot run here, or undefined when it can. */
function skipReason(): string | undefined {
  if ('missing' in electron) return `no Electron binary: ${electron.missing}`;
  if (!existsSync(join(repoRoot, 'out', 'main', 'index.js'))) return 'the app is not built: run `npm run build` first';
  if (needsXvfb && !onPath('Xvfb')) return 'no display and no Xvfb to make one (apt-get install -y xvfb)';
  return undefined;
}

const reason = skipReason();
if (reason !== undefined) process.stdout.write(`electron smoke test skipped: ${reason}\n`);

/** A private X server for the windows, stopped by its process id after the suite. */
async function startXvfb(): Promise<{ display: string; process: ChildProcess }> {
  for (let number = 90; number < 110; number += 1) {
    if (existsSync(`/tmp/.X11-unix/X${number}`) || existsSync(`/tmp/.X${number}-lock`)) continue;
    const server = spawn('Xvfb', [`:${number}`, '-screen', '0', '1440x900x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && server.exitCode === null) {
      if (existsSync(`/tmp/.X11-unix/X${number}`)) return { display: `:${number}`, process: server };
      await sleep(50);
    }
    server.kill();
  }
  throw new Error('Xvfb did not start on any display from :90 to :109');
}

describe('the desktop app in a real Electron', { skip: reason }, () => {
  const work = temporaryDir('electron-smoke');
  const userData = join(work.path, 'user-data');
  const cacheDir = join(work.path, 'cache');
  const firstTrace = join(examplesDir, 'history-rewrite.jsonl');
  const secondTrace = join(examplesDir, 'dangling-call.jsonl');
  let xvfb: { display: string; process: ChildProcess } | undefined;
  let env: Record<string, string>;
  let app: ElectronApplication;
  let page: Page;
  let stderr = '';
  /** Errors the page logged or threw, from its first load to the end of the suite. */
  const pageErrors: string[] = [];

  before(async () => {
    mkdirSync(userData, { recursive: true });
    if (needsXvfb) xvfb = await startXvfb();
    env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    delete env['ELECTRON_RUN_AS_NODE'];
    env['LOOPSCOPE_CACHE_DIR'] = cacheDir;
    if (xvfb) env['DISPLAY'] = xvfb.display;
    app = await _electron.launch({ args: [`--user-data-dir=${userData}`, repoRoot, firstTrace], env, cwd: repoRoot, timeout: 60_000 });
    app
      .process()
      .stderr?.setEncoding('utf8')
      .on('data', (chunk: string) => (stderr += chunk));
    page = await app.firstWindow();
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => pageErrors.push(`uncaught: ${error.message}`));
    await page.waitForURL(/\/out\/renderer\/index\.html/);
  });

  after(async () => {
    await app?.close().catch(() => undefined);
    xvfb?.process.kill();
    work.remove();
  });

  it('shows the built renderer in a sandboxed, isolated window with only the two-function bridge', async () => {
    assert.equal(new URL(page.url()).pathname, join(repoRoot, 'out', 'renderer', 'index.html'));
    const preferences = await app.evaluate(({ BrowserWindow }) => {
      // What the window's renderer really runs with. Electron has this method but leaves it out of its type declarations.
      const contents = BrowserWindow.getAllWindows()[0]?.webContents as unknown as { getLastWebPreferences(): Electron.WebPreferences | null } | undefined;
      const web = contents?.getLastWebPreferences();
      return { sandbox: web?.sandbox, contextIsolation: web?.contextIsolation, nodeIntegration: web?.nodeIntegration };
    });
    assert.deepEqual(preferences, { sandbox: true, contextIsolation: true, nodeIntegration: false });
    assert.equal(await page.evaluate('typeof window.require'), 'undefined');
    assert.equal(await page.evaluate('typeof process'), 'undefined');
    assert.deepEqual(await page.evaluate('Object.keys(window.loopscope).sort()'), ['call', 'pathForFile']);
  });

  it('carries the Content Security Policy in the page as built', async () => {
    const policy = await page.evaluate(`document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? null`);
    assert.equal(policy, metaContentSecurityPolicy);
  });

  it('answers the page over IPC through the bridge, a failure as a value with its code', async () => {
    const info = (await page.evaluate("window.loopscope.call('appInfo', {})")) as { shell?: string; canOpenPaths?: boolean; version?: string };
    assert.equal(info.shell, 'electron');
    assert.equal(info.canOpenPaths, true);
    assert.equal(info.version, await app.evaluate(({ app: electronApp }) => electronApp.getVersion()));
    const failure = (await page.evaluate("window.loopscope.call('runs', { traceId: 'no-such-trace' })")) as { error?: { code?: string } };
    assert.equal(failure.error?.code, 'not_found');
  });

  it('ingests the trace named on the command line in worker threads with SQLite, and renders its runs', async () => {
    await page.locator('[data-testid=runs-view][data-state=ready]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid=run-row][data-run-id="history-rewrite"]').click();
    await page.locator('[data-testid=run-view][data-state=ready][data-run-id="history-rewrite"]').waitFor();
  });

  it('diffs a rewritten request in the diff worker (a module worker under file://)', async () => {
    const third = page.locator('[data-testid=timeline-row][data-type=model_request]').nth(2);
    await third.click();
    await page.locator('[data-testid=timeline-row][data-selected=true][data-type=model_request]').waitFor();
    await page.keyboard.press('d');
    await page.locator('[data-testid=diff-verdict][data-verdict=rewritten]').waitFor();
    const wordDiff = page.locator('[data-testid=message-diff][data-state=ready]').first();
    await wordDiff.waitFor();
    assert.equal(await wordDiff.getAttribute('data-thread'), 'worker');
  });

  it('refuses navigation to an outside URL and window.open, keeping one window on the renderer', async () => {
    const before = page.url();
    await page.evaluate("window.location.href = 'https://example.com/'");
    await sleep(500);
    assert.equal(page.url(), before);
    assert.equal(await page.evaluate("window.open('https://example.com/') === null"), true);
    await sleep(500);
    assert.equal(app.windows().length, 1);
  });

  it('keeps the route and a working bridge across a reload', async () => {
    const route = new URL(page.url()).hash;
    await page.reload();
    assert.equal(new URL(page.url()).hash, route);
    const info = (await page.evaluate("window.loopscope.call('appInfo', {})")) as { shell?: string };
    assert.equal(info.shell, 'electron');
  });

  it('opens the file chosen in File ▸ Open… (the dialog stubbed in the main process)', async () => {
    const chosen = join(examplesDir, 'budget-exhausted.jsonl');
    // The start page lists the open traces; opening reloads the page, which keeps its route.
    await page.goto(page.url().replace(/#.*$/, '#/'));
    const clicked = await app.evaluate(
      ({ dialog, Menu }, filePaths) => {
        // The stub keeps what the app asked the dialog for, to be read back below.
        const asked: unknown[] = [];
        Object.assign(globalThis, { smokeOpenDialogCalls: asked });
        dialog.showOpenDialog = async (...args: unknown[]) => {
          asked.push(args.at(-1));
          return { canceled: false, filePaths };
        };
        const file = Menu.getApplicationMenu()?.items.find((item) => item.label === 'File');
        const open = file?.submenu?.items.find((item) => item.label === 'Open…' && item.accelerator === 'CmdOrCtrl+O');
        open?.click();
        return open !== undefined;
      },
      [chosen],
    );
    assert.equal(clicked, true, 'File ▸ Open… (CmdOrCtrl+O) is in the application menu');
    await page.locator('[data-testid=start-screen]').getByText('budget-exhausted.jsonl').first().waitFor({ timeout: 30_000 });
    const asked = await app.evaluate(() => (globalThis as { smokeOpenDialogCalls?: unknown[] }).smokeOpenDialogCalls);
    assert.equal(asked?.length, 1, 'the dialog was shown once');
    const options = asked?.[0] as { properties?: string[]; filters?: { extensions: string[] }[] };
    assert.ok(options.properties?.includes('multiSelections'));
    assert.ok(options.filters?.[0]?.extensions.includes('jsonl'), 'the dialog offers trace files first');
  });

  /** The open trace read from `path`, once the app has it (asked through the bridge, as the page asks). */
  async function openTrace(path: string): Promise<{ traceId: string; path: string }> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const traces = (await page.evaluate("window.loopscope.call('listTraces', {})")) as { traceId: string; path: string }[];
      const trace = traces.find((candidate) => candidate.path === path);
      if (trace) return trace;
      if (Date.now() > deadline) throw new Error(`${path} was not opened; open: ${traces.map((candidate) => candidate.path).join(', ')}`);
      await sleep(100);
    }
  }

  /**
   * A file dropped from the desktop reaches the page as a File that Electron knows the path of
   * (`webUtils.getPathForFile`, behind the bridge's pathForFile); the page opens that path over IPC.
   * Playwright cannot drag from the desktop, so the File comes from a file input filled with
   * setInputFiles, which Chromium backs with the file on disk as it does a dragged one, and is
   * dropped with a DataTransfer. A File made in the page has no path: the page says so.
   */
  it('opens a file dropped on the window by its path on disk, and explains a dropped File that has none', async () => {
    const dropTarget = page.locator('div.app').first();
    const madeInPage = await page.evaluateHandle(
      "(() => { const transfer = new DataTransfer(); transfer.items.add(new File(['{}\\n'], 'made-in-page.jsonl')); return transfer; })()",
    );
    await dropTarget.dispatchEvent('drop', { dataTransfer: madeInPage });
    await page.getByRole('alert').filter({ hasText: 'Cannot open made-in-page.jsonl: it has no path on disk.' }).waitFor();

    const dropped = join(examplesDir, 'normal-query.jsonl');
    await page.evaluate(
      "(() => { const input = document.createElement('input'); input.type = 'file'; input.id = 'smoke-drop-source'; document.body.append(input); })()",
    );
    await page.setInputFiles('#smoke-drop-source', dropped);
    const fromDisk = await page.evaluateHandle(
      "(() => { const transfer = new DataTransfer(); transfer.items.add(document.getElementById('smoke-drop-source').files[0]); return transfer; })()",
    );
    assert.equal(await page.evaluate("window.loopscope.pathForFile(document.getElementById('smoke-drop-source').files[0])"), dropped);
    await dropTarget.dispatchEvent('drop', { dataTransfer: fromDisk });
    const opened = await openTrace(dropped);
    await page.waitForURL((url) => url.hash.startsWith(`#/trace/${encodeURIComponent(opened.traceId)}`), { timeout: 30_000 });
    await page.locator('[data-testid=runs-view][data-state=ready]').waitFor({ timeout: 60_000 });
    assert.equal(await page.getByRole('alert').filter({ hasText: 'no path on disk' }).count(), 0, 'the earlier notice is gone');
    await page.evaluate("document.getElementById('smoke-drop-source').remove()");
  });

  it("takes a second launch's files into the first window, with a notice for a missing one and no dialog", async () => {
    const missing = join(work.path, 'not-there.jsonl');
    assert.ok('binary' in electron);
    const second = spawn(electron.binary, [`--user-data-dir=${userData}`, repoRoot, secondTrace, missing], { env, cwd: work.path, stdio: 'ignore' });
    const [code] = (await Promise.race([once(second, 'exit'), sleep(15_000).then(() => ['timeout'])])) as [number | string];
    assert.equal(code, 0, 'the second launch exits at once, with 0');
    await page.goto(page.url().replace(/#.*$/, '#/'));
    await page.locator('[data-testid=start-screen]').getByText('dangling-call.jsonl').first().waitFor({ timeout: 30_000 });
    const notice = page.getByRole('alert').filter({ hasText: 'not-there.jsonl' });
    await notice.waitFor();
    assert.match(await notice.innerText(), /no such file/);
    assert.equal(app.windows().length, 1);
  });

  it('logged no error in the page (no refused resource, failed module script or uncaught exception) and no preload failure', () => {
    assert.deepEqual(pageErrors, []);
    assert.doesNotMatch(stderr, /preload script .* failed|renderer process is gone|failed to load/);
  });

  it('exits with 0 and nothing fatal on stderr when its window closes', async () => {
    const exited = once(app.process(), 'exit');
    await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]?.close());
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0);
    assert.doesNotMatch(stderr, /FATAL|uncaught error|unhandled rejection|failed to start/i);
    writeFileSync(join(work.path, 'stderr.log'), stderr);
  });
});
