/**
 * A directory opened as a library (issue 18): `loopscope serve DIR` in Chromium, the start page
 * showing what every trace's runs add up to and the runs themselves; a filter and a signature's
 * drill-down narrowing them; two runs of two files picked and compared, the first divergence where
 * the fixture puts it; a run appended to a file while the page is open showing up in it. At
 * 1440×900 light and 1024×700 dark.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp, saveScreenshot, serveTraces, type ServedTraces } from '../../devkit/browser';
import { appendedRunLines, libraryFixture, writeLibraryFixture } from '../../devkit/uiTraces/libraryFixture';
import { UserActions } from '../support/userActions';

const root = mkdtempSync(join(tmpdir(), 'loopscope-library-e2e-'));
let served: ServedTraces;
let browser: Browser;

before(async () => {
  writeLibraryFixture(root);
  served = await serveTraces([root]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await served?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function shownRunIds(page: Page): Promise<string[]> {
  return (await page.locator('[data-testid=library-run]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id') ?? ''))).toSorted();
}

/** The runs table once it shows `expected` runs (sorted), waiting up to 30 s: the filters reload it. */
async function runIdsBecome(page: Page, expected: readonly string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  let shown: string[] = [];
  while (Date.now() < deadline) {
    shown = await shownRunIds(page);
    if (JSON.stringify(shown) === JSON.stringify([...expected].toSorted())) return;
    await page.waitForTimeout(100);
  }
  assert.deepEqual(shown, [...expected].toSorted());
}

async function openLibrary(colorScheme: 'light' | 'dark', width: number, height: number): Promise<Page> {
  const { page } = await openApp(browser, served.url, { colorScheme });
  await page.setViewportSize({ width, height });
  await page.locator('[data-testid=library-status][data-state=idle]').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid=library-aggregates][data-state=ready]').waitFor();
  await runIdsBecome(page, ['after', 'before', ...libraryFixture.notFoundRuns, libraryFixture.budgetRun]);
  return page;
}

describe('a directory as a library', () => {
  for (const [width, height, colorScheme] of [
    [1440, 900, 'light'],
    [1024, 700, 'dark'],
  ] as const) {
    test(`${width}×${height} ${colorScheme}: the start page adds the runs of every trace up; a filter and a signature narrow them`, async () => {
      const page = await openLibrary(colorScheme, width, height);
      const actions = new UserActions(page);
      assert.match(await page.locator('[data-testid=library-totals]').innerText(), /6 runs in 6 traces/);
      assert.match(await page.locator('[data-testid=library-status]').innerText(), /6 trace files \(1 other files are not traces\)/);
      // Every chart is also a table: the status chart's numbers, sorted by a header click.
      assert.equal(await page.locator('[data-testid=chart-status] [data-testid=bar-chart] canvas').count(), 1);
      await actions.click(page.locator('[data-testid=chart-status-toggle]'), 'the status chart\'s "Table"');
      const statusTable = page.locator('[data-testid=chart-status-table]');
      assert.deepEqual(await statusTable.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.textContent)), [
        'model finished583 %',
        'budget exceeded117 %',
      ]);
      await actions.click(page.locator('[data-testid=chart-status-table-sort-runs]'), 'the Runs header');
      assert.equal(await statusTable.locator('th[aria-sort=ascending]').count(), 1);
      assert.match((await statusTable.locator('tbody tr').first().textContent()) ?? '', /budget exceeded/);
      await saveScreenshot(page, `library-${width}x${height}-${colorScheme}`);

      // A filter narrows the runs and every aggregate, and lives in the URL.
      await page.locator('[data-testid=library-filter-status]').selectOption('budget_exceeded');
      await runIdsBecome(page, [libraryFixture.budgetRun]);
      assert.match(page.url(), /#\/\?status=budget_exceeded$/);
      await page.locator('[data-testid=library-aggregates][data-runs="1"]').waitFor();
      await actions.click(page.locator('[data-testid=library-clear-filters]'), '"Clear filters"');
      await runIdsBecome(page, ['after', 'before', ...libraryFixture.notFoundRuns, libraryFixture.budgetRun]);

      // The failure shared by three runs is one signature; its drill-down shows those runs.
      const signature = page.locator('[data-testid=signature-table] tbody tr', { hasText: 'ORDER_NOT_FOUND' });
      assert.match((await signature.innerText()).replace(/\s+/g, ' '), /^3 50 % 3 tool error get_order ORDER_NOT_FOUND: order A-<n> not found/);
      await actions.click(signature.locator('[data-testid=signature-runs]'), 'the signature\'s "3 runs"');
      await runIdsBecome(page, libraryFixture.notFoundRuns);
      assert.match(page.url(), /[?&]sig=[0-9a-f]{16}/);
      await page.close();
    });
  }

  test('two runs of two files picked in the table open side by side, diverging at step 2', async () => {
    const page = await openLibrary('light', 1440, 900);
    const actions = new UserActions(page);
    await actions.click(page.locator('[data-testid=library-run][data-run-id=before] [data-testid=library-pick]'), 'the pick box of "before"');
    await actions.click(page.locator('[data-testid=library-run][data-run-id=after] [data-testid=library-pick]'), 'the pick box of "after"');
    await actions.click(page.locator('[data-testid=library-compare]'), '"Compare"');
    await page.locator('[data-testid=compare-view][data-state=ready]').waitFor({ timeout: 30_000 });
    assert.match(page.url(), /#\/trace\/[^/]+\/compare\/\d+\/trace\/[^/]+\/\d+$/);
    const divergence = page.locator('[data-testid=compare-row][data-divergence=true]');
    // Picked "before" first, then "after": A is before, B is after.
    assert.equal(await divergence.getAttribute('data-step-b'), '2');
    assert.match(await page.locator('[data-testid=first-divergence]').innerText(), /First divergence at A step 2 \/ B step 2/);

    // What each had seen there, read from the two files: the same history, so B chose differently.
    await actions.click(page.locator('[data-testid=divergence-requests]'), '"What each had seen"');
    await page.locator('[data-testid=request-diff][data-state=ready]').waitFor({ timeout: 30_000 });
    assert.match(page.url(), /\/against\/\d+\/against-trace\/[^/]+$/);
    assert.match(await page.locator('[data-testid=diff-compare-with] option:checked').innerText(), /^request 2 of run before in before\.jsonl \(line \d+\)$/);
    assert.match(
      await page.locator('[data-testid=request-diff]').innerText(),
      /Extends request 2 of run before in before\.jsonl: \+0 messages — the same history/,
    );
    await page.close();
  });

  test('a run appended to a file while the library is open shows up', async () => {
    const page = await openLibrary('light', 1440, 900);
    appendFileSync(join(root, 'sweep', `${libraryFixture.budgetRun}.jsonl`), appendedRunLines('appended-while-open'));
    await runIdsBecome(page, ['after', 'before', ...libraryFixture.notFoundRuns, libraryFixture.budgetRun, 'appended-while-open']);
    assert.match(await page.locator('[data-testid=library-totals]').innerText(), /7 runs in 6 traces/);
    await page.close();
  });
});
