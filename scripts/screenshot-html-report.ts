/**
 * The README's screenshot of an HTML report (docs/images/html-report.png): examples/dangling-call.jsonl
 * exported with the built CLI (`npm run build` first), opened from its file in Debian's chromium
 * with every request refused, its run shown with the dangling call in the inspector. Also writes
 * the same view at 1024×700 in the dark to test-results/, to look at.
 *
 *   npx tsx scripts/screenshot-html-report.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchBrowser, screenshotDir } from '../devkit/browser';
import { examplesDir, repoRoot } from '../devkit/repoPaths';

const dir = mkdtempSync(join(tmpdir(), 'loopscope-report-shot-'));
const report = join(dir, 'dangling-call.html');
const exported = spawnSync(
  process.execPath,
  [join(repoRoot, 'bin', 'loopscope.js'), 'export', join(examplesDir, 'dangling-call.jsonl'), '--html', report, '--cache-dir', join(dir, 'cache')],
  {
    encoding: 'utf8',
  },
);
if (exported.status !== 0) throw new Error(`export failed: ${exported.stderr}`);
process.stdout.write(exported.stderr);

const browser = await launchBrowser();
try {
  const shots = [
    { width: 1440, height: 900, colorScheme: 'light', path: join(repoRoot, 'docs', 'images', 'html-report.png') },
    { width: 1024, height: 700, colorScheme: 'dark', path: join(screenshotDir, 'html-report-dark-1024x700.png') },
  ] as const;
  mkdirSync(screenshotDir, { recursive: true });
  for (const shot of shots) {
    const context = await browser.newContext({ viewport: { width: shot.width, height: shot.height }, colorScheme: shot.colorScheme, deviceScaleFactor: 1 });
    await context.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
    const page = await context.newPage();
    await page.goto(pathToFileURL(report).href);
    await page.locator('[data-testid=run-row]').first().click();
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    await page.keyboard.press('n');
    await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
    await page.mouse.move(0, 0);
    await page.screenshot({ path: shot.path });
    console.log(`wrote ${shot.path}`);
    await context.close();
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
