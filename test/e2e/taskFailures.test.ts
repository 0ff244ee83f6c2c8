/**
 * Task 1 of issue 15: in a long Claude Code session, which tool calls failed and why — in at most
 * two actions from the run. `loopscope serve` on a committed session of 120 steps with bookkeeping
 * lines (hook and bash progress, file-history snapshots) and six failed Bash/Edit/Read/Grep calls
 * (test/fixtures/ui/claude-code-failures.jsonl), in Debian's Chromium.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openApp, saveScreenshot, serveForSuite, type AppPage } from '../../devkit/browser';
import { UserActions } from '../support/userActions';
import { testFixturesDir } from '../../devkit/repoPaths';

const fixture = join(testFixturesDir, 'ui', 'claude-code-failures.jsonl');

/** What the session's failed calls say, in step order: the first line of each error output. */
const failures = [
  { step: '7', tool: 'Bash', line: "ls: cannot access 'src/legacy': No such file or directory" },
  { step: '19', tool: 'Edit', line: 'File has not been read yet. Read it first before writing to it.' },
  { step: '33', tool: 'Read', line: 'File does not exist. Current working directory: /home/dev/shop' },
  { step: '58', tool: 'Bash', line: 'FAILED tests/test_cart.py::test_discount_rounding - AssertionError: assert 90.0 == 85.5' },
  { step: '84', tool: 'Bash', line: 'npm error Missing script: "typecheck"' },
  { step: '101', tool: 'Grep', line: 'Invalid regex: missing ) at position 14' },
];

describe('task: which tool calls failed, and why', { timeout: 120_000 }, () => {
  const suite = serveForSuite([fixture]);

  /** The app on the session's run view: where the task starts. */
  async function openRun(size: { width: number; height: number }): Promise<AppPage> {
    const app = await openApp(suite.browser, suite.served.url);
    await app.page.setViewportSize(size);
    await app.page.locator('[data-testid=run-row]').first().click();
    await app.page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    return app;
  }

  for (const size of [
    { width: 1440, height: 900 },
    { width: 1024, height: 700 },
  ]) {
    test(`from the run, two actions show every failed call with the first line of its error (${size.width}×${size.height})`, async () => {
      const app = await openRun(size);
      const { page } = app;
      const user = new UserActions(page);
      await user.click(page.locator('[data-testid=tab-calls]'), 'the Calls tab');
      await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
      await user.click(page.locator('[data-testid=sort-calls-result]'), 'the Result column header');
      await page.waitForURL(/sort=state/);
      await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
      assert.ok(user.count <= 2, user.log.join(', '));

      const rows = page.locator('[data-testid=call-row]');
      const shown = await rows.evaluateAll((elements) =>
        elements
          .map((row) => ({
            top: row.getBoundingClientRect().top,
            state: row.getAttribute('data-call-state'),
            tool: row.getAttribute('data-tool'),
            step: row.querySelector('[role=cell]')?.textContent ?? '',
            line: row.querySelector('[data-testid=call-error-line]')?.textContent?.trim() ?? null,
            lineTitle: row.querySelector('[data-testid=call-error-line]')?.getAttribute('title') ?? null,
            bottom: row.getBoundingClientRect().bottom,
          }))
          .sort((a, b) => a.top - b.top),
      );
      const failed = shown.slice(0, failures.length);
      assert.deepEqual(
        failed.map((row) => ({ step: row.step, tool: row.tool, line: row.lineTitle })),
        failures,
      );
      assert.ok(failed.every((row) => row.state === 'error'));
      // The rest answered fine: every failed call is in the first rows, none further down.
      assert.equal(shown[failures.length]?.state, 'ok');
      // On screen without scrolling, and the words are there (cut with an ellipsis when long, whole in the tooltip).
      const viewport = page.viewportSize()!;
      assert.ok(
        failed.every((row) => row.bottom <= viewport.height),
        'every failed call is on the first screen',
      );
      for (const [index, row] of failed.entries()) assert.ok(failures[index]!.line.startsWith(row.line!.slice(0, 20)), row.line!);
      await saveScreenshot(page, `task-failures-${size.width}`);
      assert.deepEqual(app.problems, []);
      await page.context().close();
    });
  }

  test('the finding and the result chip say why too, and the text filter finds a call by its error', async () => {
    const app = await openRun({ width: 1440, height: 900 });
    const { page } = app;
    await page.locator('[data-testid=tab-findings]').click();
    // A trace whose findings are all info shows them open; otherwise the group is opened.
    const toggle = page.locator('[data-testid=finding-group][data-kind=tool_error] .group-toggle').first();
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    await page
      .getByText("Bash (toolu_00000000000000000007, step 7) returned an error: ls: cannot access 'src/legacy': No such file or directory")
      .first()
      .waitFor();

    await page.locator('[data-testid=tab-calls]').click();
    await page.locator('[data-testid=filter-calls-text]').fill('missing script');
    await page.waitForURL(/text=missing\+script|text=missing%20script/);
    await page.locator('[data-testid=calls-view][data-state=ready][data-total="1"]').waitFor();
    assert.equal(await page.locator('[data-testid=call-row]').getAttribute('data-tool'), 'Bash');

    // The row opens its call in the run, with its step; the result's chip under it names the error.
    await page.locator('[data-testid=call-row]').click();
    await page.waitForURL(/\/run\/\d+\/step\/84\/event\/\d+$/);
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    await page.locator('[data-testid=event-chip].chip-error', { hasText: 'npm error Missing script: "typecheck"' }).first().waitFor();
    assert.deepEqual(app.problems, []);
    await page.context().close();
  });

  test('j/k move through the calls and Enter opens the selected one', async () => {
    const app = await openRun({ width: 1440, height: 900 });
    const { page } = app;
    await page.locator('[data-testid=tab-calls]').click();
    await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
    await page.locator('[data-testid=call-row]').first().waitFor();
    for (const key of ['j', 'j', 'j', 'k']) await page.keyboard.press(key);
    const selected = page.locator('[data-testid=call-row][aria-selected=true]');
    assert.equal(await selected.count(), 1);
    const step = await selected.locator('[role=cell]').first().innerText();
    assert.equal(step, '2');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/run\/\d+\/step\/2\/event\/\d+$/);
    await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
    assert.deepEqual(app.problems, []);
    await page.context().close();
  });
});
