/**
 * The README's screenshots of the app (docs/images/app-runs.png, docs/images/app-run.png): every
 * bundled example concatenated into one trace, served by `loopscope serve` and shot in headless
 * Chromium. Needs the build (`npm run build`) and Debian's chromium.
 *
 *   npx tsx scripts/screenshot-app.ts
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchBrowser, serveTraces } from '../test/support/browser';

const root = resolve(import.meta.dirname, '..');
const examplesDir = join(root, 'examples');
const imagesDir = join(root, 'docs', 'images');

// One trace with a run per example (their run ids differ), so the table shows every status.
const dir = mkdtempSync(join(tmpdir(), 'loopscope-shot-'));
const trace = join(dir, 'support-agent.jsonl');
const examples = readdirSync(examplesDir).filter((name) => name.endsWith('.jsonl')).sort();
writeFileSync(trace, examples.map((name) => readFileSync(join(examplesDir, name), 'utf8').replace(/\r?\n?$/, '\n')).join(''));

const server = await serveTraces([trace]);
const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 760 }, deviceScaleFactor: 1, colorScheme: 'light' });
  await page.goto(server.url);
  await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
  await page.screenshot({ path: join(imagesDir, 'app-runs.png') });
  console.log('wrote docs/images/app-runs.png');

  await page.locator('[data-testid=run-row][data-run-id="dangling-call"]').click();
  await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
  await page.keyboard.press('n');
  await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
  // No hover highlight left over from the click.
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(imagesDir, 'app-run.png') });
  console.log('wrote docs/images/app-run.png');
} finally {
  await browser.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
