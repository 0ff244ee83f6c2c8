/**
 * Two runs compared in the app (issue 18): from a run's header to the comparison, whose first
 * divergence is where the fixture puts it (devkit/uiTraces/comparedRuns.ts: step 2, another order
 * looked up), with the step only the second run took marked, at 1440×900 and 1024×700, light and dark.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openApp, saveScreenshot, serveTraceFile, type ServedTraceFile } from '../../devkit/browser';
import { comparedRunsTrace } from '../../devkit/uiTraces/comparedRuns';
import { UserActions } from '../support/userActions';

let served: ServedTraceFile;

before(async () => {
  served = await serveTraceFile('compared-runs.jsonl', comparedRunsTrace());
});

after(async () => {
  await served?.close();
});

describe('compare two runs', () => {
  for (const [width, height, colorScheme] of [
    [1440, 900, 'light'],
    [1024, 700, 'dark'],
  ] as const) {
    test(`${width}×${height} ${colorScheme}: from a run to its comparison with another, the first divergence marked at step 2`, async () => {
      const app = await openApp(served.browser, served.served.url, { colorScheme });
      const { page } = app;
      await page.setViewportSize({ width, height });
      const actions = new UserActions(page);
      await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
      await actions.click(page.locator('[data-testid=run-row][data-run-id=before]'), 'the run "before"');
      await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
      await page.locator('[data-testid=compare-with]').selectOption({ label: 'after' });
      await page.locator('[data-testid=compare-view][data-state=ready]').waitFor();
      assert.match(page.url(), /#\/trace\/[^/]+\/compare\/\d+\/\d+$/);

      const rows = page.locator('[data-testid=compare-row]');
      const shape = await rows.evaluateAll((elements) =>
        elements.map((row) => [row.getAttribute('data-op'), row.getAttribute('data-step-a'), row.getAttribute('data-step-b')]),
      );
      assert.deepEqual(shape, [
        ['same', '1', '1'],
        ['changed', '2', '2'],
        ['inserted', '', '3'],
        ['same', '3', '4'],
      ]);
      const divergence = page.locator('[data-testid=compare-row][data-divergence=true]');
      assert.equal(await divergence.getAttribute('data-step-b'), '2');
      assert.match(await divergence.innerText(), /get_order\(\{"order_id":"A-10482"\}\)[\s\S]*get_order\(\{"order_id":"A-10483"\}\)/);
      assert.match(await page.locator('[data-testid=first-divergence]').innerText(), /First divergence at A step 2 \/ B step 2: B does something different\./);
      const steps = page.locator('[data-testid=compare-measure][data-measure=Steps]');
      assert.equal(await steps.locator('[data-testid=compare-delta]').innerText(), '+1');
      // The whole first screen is the comparison: no horizontal scroll at this width.
      const overflow = await page.locator('[data-testid=compare-view]').evaluate((element) => element.scrollWidth - element.clientWidth);
      assert.ok(overflow <= 0, `the comparison scrolls sideways by ${overflow}px`);
      await saveScreenshot(page, `compare-runs-${width}x${height}-${colorScheme}`);

      // What each had seen at the divergence: B's request against A's, in the request diff, which
      // names the other run's request as its left side.
      await page.locator('[data-testid=divergence-requests]').click();
      await page.locator('[data-testid=request-diff][data-state=ready]').waitFor();
      assert.match(await page.locator('[data-testid=diff-compare-with] option:checked').innerText(), /^request 2 of run before \(line \d+\)$/);
      assert.deepEqual(app.problems, []);
      await page.goBack();
      await page.locator('[data-testid=compare-view][data-state=ready]').waitFor();

      // A reload lands on the same comparison; a turn opens its step in its run.
      await page.reload();
      await page.locator('[data-testid=compare-view][data-state=ready]').waitFor();
      await page.locator('[data-testid=compare-row][data-op=inserted] a').click();
      await page.waitForURL(/\/step\/3$/);
      await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
      assert.deepEqual(app.problems, []);
      await page.context().close();
    });
  }
});
