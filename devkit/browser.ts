/**
 * The browser end of the end-to-end tests, the UI benchmarks and the screenshot scripts:
 * `loopscope serve` started the way a user starts it (the built CLI, `npm run build` first) and
 * Debian's Chromium driven by playwright-core. Never a downloaded browser: when Chromium is
 * missing the callers fail and say how to install it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoRoot } from './repoPaths';

export const chromiumPath = process.env['LOOPSCOPE_CHROMIUM'] ?? '/usr/bin/chromium';

/** Where the tests' screenshots go (gitignored). */
export const screenshotDir = join(repoRoot, 'test-results');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `Chromium is not at ${chromiumPath}: the browser tests drive Debian's chromium. Install it with "apt-get install -y chromium" (or set LOOPSCOPE_CHROMIUM to a Chromium binary).`,
    );
  }
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

export interface ServedTraces {
  /** `http://127.0.0.1:PORT/<token>/` as `loopscope serve` printed it. */
  url: string;
  stop(): Promise<void>;
}

const servingLine = /Loopscope is serving .* at (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)\s*$/m;

/**
 * `loopscope serve FILE...` with its own cache directory; resolves with the URL it prints. Files
 * are read once (`--no-follow`: a view of fixed content) unless `idleAfterSeconds` has them followed.
 */
/** `pricesFile`: a user price file, given as `--prices` (docs/semantics.md §18). */
export interface ServeOptions {
  idleAfterSeconds?: number;
  pricesFile?: string;
}

export async function serveTraces(files: string[], options: ServeOptions = {}): Promise<ServedTraces> {
  if (!existsSync(join(repoRoot, 'out', 'renderer', 'index.html')) || !existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) {
    throw new Error('The app is not built: run `npm run build` before the browser tests.');
  }
  const cacheDir = mkdtempSync(join(tmpdir(), 'loopscope-e2e-'));
  const follow = options.idleAfterSeconds === undefined ? ['--no-follow'] : ['--idle-after', String(options.idleAfterSeconds)];
  const prices = options.pricesFile === undefined ? [] : ['--prices', options.pricesFile];
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'loopscope.js'), 'serve', ...files, '--cache-dir', cacheDir, ...follow, ...prices], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = async (): Promise<void> => {
    await stopProcess(child);
    rmSync(cacheDir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const match = servingLine.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('exit', (code, signal) => reject(new Error(`loopscope serve exited (${code ?? signal}) before serving:\n${stdout}${stderr}`)));
    });
    return { url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A trace written to a fresh folder, served by `loopscope serve`, with Chromium started: what an end-to-end suite opens. */
export interface ServedTraceFile {
  path: string;
  browser: Browser;
  served: ServedTraces;
  close(): Promise<void>;
}

export async function serveTraceFile(name: string, content: string, options: ServeOptions = {}): Promise<ServedTraceFile> {
  const dir = mkdtempSync(join(tmpdir(), 'loopscope-e2e-'));
  const path = join(dir, name);
  writeFileSync(path, content);
  const served = await serveTraces([path], options);
  const browser = await launchBrowser();
  return {
    path,
    browser,
    served,
    close: async () => {
      await browser.close();
      await served.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export interface AppPage {
  page: Page;
  /** Page errors, failed API calls, console errors and CSP violations seen so far: a test ends by asserting there are none. */
  problems: string[];
  /** Dialogs (alert, confirm, …) the page opened: trace content must never open one. */
  dialogs: string[];
}

/** A fresh page on `url`, watching for what must never happen. */
export async function openApp(browser: Browser, url: string, options: { colorScheme?: 'light' | 'dark'; clipboard?: boolean } = {}): Promise<AppPage> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 860 }, colorScheme: options.colorScheme ?? 'light' });
  if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
  const page = await context.newPage();
  const problems: string[] = [];
  const dialogs: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('response', (response) => {
    if (response.status() >= 400)
      problems.push(`HTTP ${response.status()} for ${response.request().method()} ${new URL(response.url()).pathname.replace(/^\/[^/]+/, '/<token>')}`);
  });
  // Listens before any page script runs (an init script is not subject to the page's CSP).
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) => console.error('CSP violation: ' + event.violatedDirective + ' blocked ' + event.blockedURI));`,
  });
  // Every console error counts (CSP violations, a policy the browser ignores, failed loads, React's
  // warnings logged as errors): a view that logs one is broken even when it looks right.
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  await page.goto(url);
  return { page, problems, dialogs };
}

export function saveScreenshot(page: Page, name: string): Promise<Buffer> {
  mkdirSync(screenshotDir, { recursive: true });
  return page.screenshot({ path: join(screenshotDir, `${name}.png`) });
}

/**
 * A suite's `loopscope serve FILES…` and Chromium, started before its tests and stopped after
 * them; read `served` and `browser` inside the tests.
 */
export function serveForSuite(files: string[]): { readonly served: ServedTraces; readonly browser: Browser } {
  const suite: { served?: ServedTraces; browser?: Browser } = {};
  before(async () => {
    suite.served = await serveTraces(files);
    suite.browser = await launchBrowser();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.served?.stop();
  });
  return {
    get served() {
      if (!suite.served) throw new Error('the suite has not started its server yet');
      return suite.served;
    },
    get browser() {
      if (!suite.browser) throw new Error('the suite has not started its browser yet');
      return suite.browser;
    },
  };
}

/** From the runs list a page shows, opens the run `runId` and waits until its view is ready. */
export async function openRunFromList(page: Page, runId: string): Promise<void> {
  await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
  await page.locator(`[data-testid=run-row][data-run-id="${runId}"]`).click();
  await page.locator(`[data-testid=run-view][data-state=ready][data-run-id="${runId}"]`).waitFor();
}

/**
 * Waits until `expression` (page JavaScript, as text: the tests' TypeScript has no DOM types) is
 * true in the page. Playwright's string waitForFunction compiles its text in the page with `new
 * Function` when it has to poll, which the app's CSP refuses (no unsafe-eval), logging a console
 * error; `page.evaluate` goes through the DevTools protocol, which the CSP does not govern.
 */
export async function waitForPage(page: Page, expression: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting in the page for: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
