/**
 * Start-up problems are notices in the page, never a modal: the desktop shell (main.ts) hands a
 * file it could not open to the API host as a notice and loads the page anyway. Here a real API
 * host behind the real HTTP server carries such notices to Chromium: the page loads with them
 * shown as text, opens no dialog, and a dismissed notice stays dismissed after a reload.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { createApiHost, maxNotices, type ApiHost } from '../../src-main/api/apiHost';
import { startServer, type RunningServer } from '../../src-main/server/httpServer';
import { launchBrowser, openApp } from '../../devkit/browser';
import { temporaryDir } from '../support/engineHarness';
import { repoRoot } from '../../devkit/repoPaths';

describe('notices in the page', () => {
  let cache: { path: string; remove: () => void };
  let host: ApiHost;
  let server: RunningServer;
  let browser: Browser;

  before(async () => {
    cache = temporaryDir('notices');
    host = createApiHost({ shell: 'electron', version: '9.9.9', cacheDir: cache.path, canOpenPaths: true });
    server = await startServer({ apiHost: host, assetsDir: join(repoRoot, 'out', 'renderer') });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser.close();
    await server.close();
    await host.close();
    cache.remove();
  });

  it('shows what a launch could not open above the start page, as text, with no dialog, until dismissed', async () => {
    host.notify('Loopscope could not open every file', ['/home/ana/missing.jsonl: no such file', '/home/ana/<img src=x onerror=alert(1)>.jsonl: no such file']);
    const { page, problems, dialogs } = await openApp(browser, server.url);
    const notice = page.getByRole('alert').filter({ hasText: 'Loopscope could not open every file' });
    await notice.waitFor();
    assert.match(await notice.innerText(), /\/home\/ana\/missing\.jsonl: no such file/);
    assert.match(await notice.innerText(), /<img src=x onerror=alert\(1\)>\.jsonl/);
    assert.equal(await notice.locator('img').count(), 0);
    // The page behind it is there and usable.
    await page.locator('[data-testid=start-screen]').waitFor();

    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });
    await page.reload();
    await page.locator('[data-testid=start-screen]').waitFor();
    assert.equal(await page.getByRole('alert').count(), 0, 'a dismissed notice stays dismissed after a reload');
    assert.deepEqual(dialogs, []);
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  it('keeps the latest notices only, so a launch that keeps failing cannot grow the page without end', async () => {
    for (let index = 0; index < maxNotices + 5; index += 1) host.notify(`Problem ${index}`, [`line ${index}`]);
    const { page, problems } = await openApp(browser, server.url);
    await page.getByRole('alert').first().waitFor();
    const titles = await page.getByRole('alert').locator('strong').allInnerTexts();
    assert.equal(titles.length, maxNotices);
    assert.equal(titles[0], 'Problem 5');
    assert.equal(titles.at(-1), `Problem ${maxNotices + 4}`);
    assert.deepEqual(problems, []);
    await page.context().close();
  });
});
