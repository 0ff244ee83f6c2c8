/**
 * Screenshots of the growth view and the side-by-side request diff at 1440×900 and 1024×700, light
 * and dark (docs/images/growth-*.png, diff-side-by-side-*.png), from the e2e fixtures
 * (test/fixtures/ui/): a 112-request session with one large tool result and a compaction, and an
 * edited one-line JSON tool result. Needs the build (`npm run build`) and Debian's chromium.
 *
 *   npx tsx scripts/screenshot-growth-diff.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { editedJsonResult, editedJsonResultEvents } from '../test/fixtures/ui/editedJsonResult';
import { growthSession, growthSessionEvents } from '../test/fixtures/ui/growthSession';
import { launchBrowser, serveTraces } from '../test/support/browser';

const imagesDir = join(resolve(import.meta.dirname, '..'), 'docs', 'images');
const dir = mkdtempSync(join(tmpdir(), 'loopscope-shot-'));
const write = (name: string, events: object[]): string => {
  const path = join(dir, name);
  writeFileSync(path, events.map((event) => JSON.stringify(event)).join('\n') + '\n');
  return path;
};
const sizes = [
  [1440, 900],
  [1024, 700],
] as const;

const browser = await launchBrowser();
try {
  for (const [file, runId, shoot] of [
    [write('growth-session.jsonl', growthSessionEvents()), growthSession.runId, 'growth'],
    [write('edited-json.jsonl', editedJsonResultEvents()), editedJsonResult.runId, 'diff-side-by-side'],
  ] as const) {
    const server = await serveTraces([file]);
    try {
      for (const colorScheme of ['light', 'dark'] as const) {
        for (const [width, height] of sizes) {
          const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1, colorScheme });
          await page.goto(server.url);
          await page.locator(`[data-testid=run-row][data-run-id="${runId}"]`).click();
          await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
          await page.locator('[data-testid=run-section-requests]').click();
          await page.locator('[data-testid=requests-panel][data-state=ready]').waitFor();
          if (shoot === 'diff-side-by-side') {
            await page.locator('[data-testid=request-row][data-request-index="2"]').click();
            await page.locator('[data-testid=diff-layout-side-by-side]').click();
            await page.locator('[data-testid=request-diff][data-state=ready] [data-testid=side-by-side]').waitFor();
          }
          const path = join(imagesDir, `${shoot}-${colorScheme}-${width}x${height}.png`);
          await page.screenshot({ path });
          console.log(`wrote ${path}`);
          await page.close();
        }
      }
    } finally {
      await server.stop();
    }
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
