/**
 * Task 3 of issue 15: in a Codex rollout, find the slowest tool call — in at most two actions.
 * `loopscope serve` on a committed rollout of 130 shell calls whose outputs record their duration
 * (`metadata.duration_seconds`, test/fixtures/ui/codex-rollout-durations.jsonl), in Debian's Chromium.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openApp, saveScreenshot, serveForSuite } from '../../devkit/browser';
import { UserActions } from '../support/userActions';
import { testFixturesDir } from '../../devkit/repoPaths';

const fixture = join(testFixturesDir, 'ui', 'codex-rollout-durations.jsonl');

describe('task: the slowest tool call of a Codex rollout', { timeout: 120_000 }, () => {
  const suite = serveForSuite([fixture]);

  for (const [size, colorScheme] of [
    [{ width: 1440, height: 900 }, 'light'],
    [{ width: 1024, height: 700 }, 'dark'],
  ] as const) {
    test(`two actions put it first: its tool, duration and command on screen (${size.width}×${size.height}, ${colorScheme})`, async () => {
      const app = await openApp(suite.browser, suite.served.url, { colorScheme });
      const { page } = app;
      await page.setViewportSize(size);
      await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
      const user = new UserActions(page);
      await user.click(page.locator('[data-testid=tab-calls]'), 'the Calls tab');
      await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
      await user.click(page.locator('[data-testid=sort-calls-latency]'), 'the Latency column header');
      await page.waitForURL(/sort=latency&desc=1/);
      // The URL changes a task before the app renders it: wait for the rendered sort, then its rows.
      await page.locator('[role=columnheader][aria-sort=descending]', { has: page.locator('[data-testid=sort-calls-latency]') }).waitFor();
      await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
      assert.ok(user.count <= 2, user.log.join(', '));

      const header = page.locator('[role=columnheader]', { has: page.locator('[data-testid=sort-calls-latency]') });
      assert.equal(await header.getAttribute('aria-sort'), 'descending');
      const first = page.locator('[data-testid=call-row]').first();
      assert.equal(await first.getAttribute('data-tool'), 'shell');
      assert.equal(await first.locator('.numeric').innerText(), '48.2 s');
      // The command as a command, its start visible in the cell, the whole arguments in its tooltip.
      const command = first.locator('[data-testid=call-arguments]');
      assert.equal(await command.innerText(), '$ cargo test --workspace --all-features');
      assert.match((await command.getAttribute('title')) ?? '', /"command": \["bash", "-lc", "cargo test --workspace --all-features"\]/);
      const clipped = await command.evaluate(
        (element) => element.parentElement !== null && element.parentElement.scrollWidth > element.parentElement.clientWidth,
      );
      if (size.width >= 1440) assert.equal(clipped, false, 'the whole command fits at 1440 px');
      const box = await first.boundingBox();
      assert.ok(box !== null && box.y + box.height <= size.height, 'the slowest call is on the first screen');
      // The next is slower than none after it.
      const latencies = await page.locator('[data-testid=call-row] .numeric').allInnerTexts();
      assert.equal(latencies[1], '12.5 s');

      // Above the rows, the tool's distribution ends at the same call.
      const shell = page.locator('[data-testid=tool-latency][data-tool=shell]');
      assert.match(await shell.innerText(), /130\s+\S.*48\.2 s/s);
      await saveScreenshot(page, `task-slowest-call-${size.width}-${colorScheme}`);
      assert.deepEqual(app.problems, []);
      await page.context().close();
    });
  }

  test('the sort is in the URL: a reload keeps it, a third click goes back to log order', async () => {
    const app = await openApp(suite.browser, suite.served.url);
    const { page } = app;
    await page.locator('[data-testid=tab-calls]').click();
    await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
    await page.locator('[data-testid=sort-calls-latency]').click();
    await page.waitForURL(/sort=latency&desc=1/);
    await page.reload();
    await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
    assert.equal(await page.locator('[data-testid=call-row]').first().locator('.numeric').innerText(), '48.2 s');

    await page.locator('[data-testid=sort-calls-latency]').click();
    await page.waitForURL(/sort=latency$/);
    await page.locator('[role=columnheader][aria-sort=ascending]', { has: page.locator('[data-testid=sort-calls-latency]') }).waitFor();
    await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
    const ascending = await page.locator('[data-testid=call-row] .numeric').first().innerText();
    assert.notEqual(ascending, '48.2 s');
    await page.locator('[data-testid=sort-calls-latency]').click();
    await page.waitForURL((url) => !url.hash.includes('sort='));
    await page.locator('[role=columnheader][aria-sort=none]', { has: page.locator('[data-testid=sort-calls-latency]') }).waitFor();
    await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
    assert.equal(await page.locator('[role=columnheader][aria-sort=descending], [role=columnheader][aria-sort=ascending]').count(), 0);
    assert.equal(await page.locator('[data-testid=call-row]').first().locator('[role=cell]').first().innerText(), '1');

    // A tool in the distribution filters the list to its calls.
    await page.locator('[data-testid=tool-latency-filter]', { hasText: 'shell' }).click();
    await page.waitForURL(/tool=shell/);
    assert.equal(await page.locator('[data-testid=tool-latency-filter]', { hasText: 'shell' }).getAttribute('aria-pressed'), 'true');
    assert.deepEqual(app.problems, []);
    await page.context().close();
  });
});
