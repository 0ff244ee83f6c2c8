/**
 * Screenshots of the growth view and the side-by-side request diff at 1440×900 and 1024×700, light
 * and dark (docs/images/growth-*.png, diff-side-by-side-*.png), from the traces the e2e tests
 * open (devkit/uiTraces/): a 112-request session with one large tool result and a compaction, and
 * an edited one-line JSON tool result. Needs the build (`npm run build`) and Debian's chromium.
 *
 *   npx tsx scripts/screenshot-views.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { editedJsonResult, editedJsonResultEvents } from '../devkit/uiTraces/editedJsonResult';
import { growthSession, growthSessionEvents } from '../devkit/uiTraces/growthSession';
import { launchBrowser, serveTraces } from '../devkit/browser';
import { repoRoot } from '../devkit/repoPaths';

const root = repoRoot;
const imagesDir = join(root, 'docs', 'images');
const fixturesDir = join(root, 'test', 'fixtures', 'ui');
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

/** Opens the view to shoot from the runs list of a freshly loaded page. */
type Shoot = (page: Page) => Promise<void>;

async function openRun(page: Page, runId: string): Promise<void> {
  await page.locator(`[data-testid=run-row][data-run-id="${runId}"]`).click();
  await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
}

async function openGrowth(page: Page, runId: string): Promise<void> {
  await openRun(page, runId);
  await page.locator('[data-testid=run-section-requests]').click();
  await page.locator('[data-testid=requests-panel][data-state=ready]').waitFor();
}

const taskSession = '7c1d2e9a-4b3f-4e8a-9d21-5f6a7b8c9d0e';
const views: [view: string, file: string, shoot: Shoot][] = [
  [
    'run',
    join(fixturesDir, 'task-subagent', `${taskSession}.jsonl`),
    async (page) => {
      await openRun(page, taskSession);
      const result = page.locator('[data-testid=timeline-row][data-type=tool_result]').first();
      await result.click();
      await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
    },
  ],
  [
    'calls',
    join(fixturesDir, 'codex-rollout-durations.jsonl'),
    async (page) => {
      await page.locator('[data-testid=tab-calls]').click();
      await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
      await page.locator('[data-testid=sort-calls-latency]').click();
      await page.locator('[data-testid=calls-list] [role=columnheader][aria-sort=descending]').waitFor();
      await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
    },
  ],
  ['growth', write('growth-session.jsonl', growthSessionEvents()), (page) => openGrowth(page, growthSession.runId)],
  [
    'diff',
    write('edited-json.jsonl', editedJsonResultEvents()),
    async (page) => {
      await openGrowth(page, editedJsonResult.runId);
      await page.locator('[data-testid=request-row][data-request-index="2"]').click();
      await page.locator('[data-testid=diff-layout-side-by-side]').click();
      await page.locator('[data-testid=request-diff][data-state=ready] [data-testid=side-by-side]').waitFor();
    },
  ],
];

const browser = await launchBrowser();
try {
  for (const [view, file, shoot] of views) {
    const server = await serveTraces([file]);
    try {
      for (const colorScheme of ['light', 'dark'] as const) {
        for (const [width, height] of sizes) {
          const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1, colorScheme });
          await page.goto(server.url);
          await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
          await shoot(page);
          // No hover highlight left over from the last click.
          await page.mouse.move(0, 0);
          const path = join(imagesDir, `${view}-${colorScheme}-${width}x${height}.png`);
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
