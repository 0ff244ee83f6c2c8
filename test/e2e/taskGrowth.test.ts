/**
 * Task 4 of issue 15: "where did the context grow most, and what caused it" — answered on the first
 * screen of the growth view, at 1440×900 and at 1024×700, in two actions from the runs list. The
 * session (devkit/uiTraces/growthSession.ts): 112 logged requests of small results, one Read of a
 * large file in request 48, a compaction before request 81.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { openApp, saveScreenshot, serveTraceFile, type ServedTraceFile } from '../../devkit/browser';
import { UserActions } from '../support/userActions';
import { growthSession, growthSessionEvents } from '../../devkit/uiTraces/growthSession';

let served: ServedTraceFile;

before(async () => {
  served = await serveTraceFile(
    'growth-session.jsonl',
    growthSessionEvents()
      .map((event) => JSON.stringify(event))
      .join('\n') + '\n',
  );
});

after(async () => {
  await served?.close();
});

/** The element is inside the viewport: seen without scrolling. */
async function assertOnFirstScreen(page: Page, target: Locator, what: string): Promise<void> {
  const box = await target.boundingBox();
  const viewport = page.viewportSize()!;
  assert.ok(box !== null, `${what} is rendered`);
  assert.ok(
    box.y >= 0 && box.y + box.height <= viewport.height && box.x >= 0 && box.x + box.width <= viewport.width,
    `${what} is on the first screen: ${JSON.stringify(box)} in ${viewport.width}×${viewport.height}`,
  );
}

async function openGrowth(page: Page, actions: UserActions): Promise<void> {
  await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
  await actions.click(page.locator(`[data-testid=run-row][data-run-id="${growthSession.runId}"]`), 'the run');
  await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
  await actions.click(page.locator('[data-testid=run-section-requests]'), 'Requests & growth');
  await page.locator('[data-testid=requests-panel][data-state=ready]').waitFor();
}

describe('task: where did the context grow most, and what caused it', () => {
  for (const [width, height] of [
    [1440, 900],
    [1024, 700],
  ] as const) {
    test(`${width}×${height}: the largest growth turn and its cause are on the first screen, two actions from the runs list`, async () => {
      const app = await openApp(served.browser, served.served.url);
      const { page } = app;
      await page.setViewportSize({ width, height });
      const actions = new UserActions(page);
      await openGrowth(page, actions);
      assert.ok(actions.count <= 2, actions.log.join(', '));

      const top = page.locator('[data-testid=growth-turn]').first();
      assert.equal(await top.getAttribute('data-request-index'), String(growthSession.bigResultRequest - 1));
      const text = await top.innerText();
      assert.match(text, new RegExp(`^Request ${growthSession.bigResultRequest} \\+[\\d.]+k tokens — tool result of Read \\+[\\d.]+k`));
      await assertOnFirstScreen(page, top, 'the largest growth turn');
      await assertOnFirstScreen(page, top.locator('[data-testid=growth-turn-cause]'), 'its cause');
      // Five turns first, ranked by tokens added: each adds less than the one before.
      const turns = page.locator('[data-testid=growth-turn]');
      assert.equal(await turns.count(), 5);
      await assertOnFirstScreen(page, turns.nth(4), 'the fifth turn');
      // The compaction is listed apart, not as a growth.
      const compaction = page.locator('[data-testid=growth-compaction]');
      assert.equal(await compaction.getAttribute('data-request-index'), String(growthSession.compactedBeforeRequest - 1));
      assert.doesNotMatch((await turns.allInnerTexts()).join('\n'), new RegExp(`Request ${growthSession.compactedBeforeRequest} `));

      // The chart fills its pane, and its request numbers never overlap.
      const chart = await page.locator('[data-testid=growth-chart]').boundingBox();
      const pane = await page.locator('[data-testid=requests-panel]').boundingBox();
      assert.ok(chart !== null && pane !== null && chart.width >= pane.width - 60, `chart ${chart?.width} px wide in a ${pane?.width} px pane`);
      const labels = await page
        .locator('[data-testid=growth-x-label]')
        .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect()).map((r) => [r.left, r.right]));
      assert.ok(labels.length >= 8 && labels.length < growthSession.requests, `${labels.length} request numbers`);
      labels.sort((a, b) => a[0]! - b[0]!);
      for (let k = 1; k < labels.length; k += 1)
        assert.ok(labels[k]![0]! >= labels[k - 1]![1]!, `x labels ${k - 1} and ${k} overlap: ${JSON.stringify(labels.slice(k - 1, k + 1))}`);
      // The top turn is labelled on the axis too.
      assert.ok(
        (await page.locator(`[data-testid=growth-bar][data-request-index="${growthSession.bigResultRequest - 1}"] [data-testid=growth-x-label]`).count()) === 1,
        'request 48 is numbered on the x axis',
      );
      await saveScreenshot(page, `task-growth-${width}x${height}`);

      // Its link opens the diff that shows the big result appended.
      await top.getByRole('link').click();
      await page.locator('[data-testid=request-diff][data-state=ready]').waitFor();
      assert.equal(await page.locator('[data-testid=diff-message][data-status=appended][data-role=tool]').count(), 1);
      assert.deepEqual(app.problems, []);
      await page.context().close();
    });
  }

  test('the requests table sorts by Δ tokens, the order in the URL and kept on reload; the arrow only on the sorted column', async () => {
    const app = await openApp(served.browser, served.served.url);
    const { page } = app;
    await openGrowth(page, new UserActions(page));
    const delta = page.locator('[data-testid=requests-sort-delta]');
    const header = page.locator('th', { has: delta });
    assert.equal(await header.getAttribute('aria-sort'), 'none');
    assert.doesNotMatch(await delta.innerText(), /[▲▼]/);

    await delta.click();
    await page.waitForURL((url) => url.hash.endsWith('/requests/sort/delta-desc'));
    // The URL changes before the app renders it (the hashchange event comes a task later): wait for the rendered order.
    await page.locator('th[aria-sort=descending]', { has: delta }).waitFor();
    const first = () => page.locator('[data-testid=request-row]').first();
    assert.equal(await first().getAttribute('data-request-index'), String(growthSession.bigResultRequest - 1));
    assert.equal(await header.getAttribute('aria-sort'), 'descending');
    assert.match(await delta.innerText(), /▼/);
    assert.doesNotMatch(await page.locator('[data-testid=requests-sort-index]').innerText(), /[▲▼]/);

    await page.reload();
    await page.locator('[data-testid=requests-panel][data-state=ready]').waitFor();
    assert.equal(await first().getAttribute('data-request-index'), String(growthSession.bigResultRequest - 1));
    await delta.click();
    await page.waitForURL((url) => url.hash.endsWith('/requests/sort/delta-asc'));
    await page.locator('th[aria-sort=ascending]', { has: delta }).waitFor();
    // Smallest first: the compaction's negative step.
    assert.equal(await first().getAttribute('data-request-index'), String(growthSession.compactedBeforeRequest - 1));
    assert.match(await first().locator('[data-testid=request-delta]').innerText(), /^−[\d,]+$/);
    assert.deepEqual(app.problems, []);
    await page.context().close();
  });
});
