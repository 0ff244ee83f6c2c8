/**
 * The inspector's Output and Arguments views on committed fixtures shaped like a Codex rollout and a
 * Claude Code session: outputs decoded (no literal \n, no content-block JSON), exit code and
 * duration as badges, a shell command as its command line, a call with its result beside it, a
 * result naming its call, and the session's first prompt as the run's task.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp, serveTraces, type AppPage, type ServedTraces } from '../../devkit/browser';
import { testFixturesDir } from '../../devkit/repoPaths';

const fixtures = join(testFixturesDir, 'ui');

async function openOnlyRun(page: Page, traceName: string): Promise<void> {
  await page.locator('[data-testid=trace-item] a', { hasText: traceName }).click();
  await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
  await page.locator('[data-testid=run-row]').first().click();
  await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
}

async function inspect(page: Page, row: string) {
  await page.locator(row).click();
  const inspector = page.locator('[data-testid=event-inspector][data-state=ready]');
  await inspector.waitFor();
  return inspector;
}

describe('Output and Arguments in the inspector', () => {
  let served: ServedTraces;
  let browser: Browser;
  let app: AppPage;

  before(async () => {
    served = await serveTraces([join(fixtures, 'codex-kumquat-rollout.jsonl'), join(fixtures, 'claude-code-task-output.jsonl')]);
    browser = await launchBrowser();
    app = await openApp(browser, served.url);
  });

  after(async () => {
    // Stopped before asserting: a failed assertion must not leave the server and browser running.
    await browser?.close();
    await served?.stop();
    assert.deepEqual(app?.problems ?? [], []);
  });

  test('Codex: a failed command shows its decoded output with exit code and duration; its call shows the command and the result beside', async () => {
    const { page } = app;
    await page.goto(served.url);
    await openOnlyRun(page, 'codex-kumquat-rollout.jsonl');
    assert.equal(await page.locator('[data-testid=run-task]').textContent(), 'Task: Find why the kumquat price import drops rows');

    const result = await inspect(page, '[data-testid=timeline-row][data-type=tool_result][data-step="3"]');
    const output = result.locator('[data-testid=event-output]');
    assert.equal(await output.locator('[data-testid=output-exit-code]').textContent(), 'exit code 1');
    assert.equal(await output.locator('[data-testid=output-duration]').textContent(), '4.50 s');
    assert.equal(
      await output.locator('.output-body').textContent(),
      'FAIL src/prices/importer.test.ts\n  ● importPrices › keeps rows after a BOM\n    Expected: 3\n    Received: 2\n',
    );
    assert.equal(await output.locator('.output-gutter').textContent(), '1\n2\n3\n4');
    assert.match((await result.locator('[data-testid=answered-call]').textContent()) ?? '', /Answers the shell call call_A3 issued at step 3/);

    await result.locator('[data-testid=open-call]').click();
    const call = page.locator('[data-testid=event-inspector][data-state=ready]');
    await call.locator('[data-testid=issued-call]').waitFor();
    assert.equal(await call.locator('[data-testid=call-command]').textContent(), '$ npm test -- prices');
    assert.match((await call.locator('[data-testid=arguments-json] .output-body').textContent()) ?? '', /^\{\n {2}"command": \[\n/);
    const beside = call.locator('[data-testid=call-result-output]');
    await beside.waitFor();
    assert.match((await beside.textContent()) ?? '', /Received: 2/);

    // Following the result keeps the step in the URL.
    await call.locator('[data-testid=open-result]').click();
    await page.locator('[data-testid=event-inspector][data-state=ready] [data-testid=event-output]').waitFor();
    assert.match(new URL(page.url()).hash, /\/run\/\d+\/step\/3\/event\/\d+$/);
  });

  test('Claude Code: the prompt after bookkeeping is the task and an input message; a Task result reads as its markdown, not as content-block JSON', async () => {
    const { page } = app;
    await page.goto(served.url);
    await openOnlyRun(page, 'claude-code-task-output.jsonl');
    assert.equal(
      await page.locator('[data-testid=run-task]').textContent(),
      'Task: Audit the pricing module: list each file that parses CSV and say whether it strips a BOM.',
    );
    assert.equal(
      await page.locator('[data-testid=run-task]').getAttribute('title'),
      'Audit the pricing module:\nlist each file that parses CSV and say whether it strips a BOM.',
    );

    const prompt = await inspect(page, '[data-testid=timeline-row][data-lane=input][data-type=unknown]');
    assert.match((await prompt.locator('.inspector-title').textContent()) ?? '', /^Input message \(written as user\)/);
    assert.match((await prompt.locator('[data-testid=event-text]').textContent()) ?? '', /Audit the pricing module/);

    const bash = await inspect(page, '[data-testid=timeline-row][data-type=model_response][data-step="1"]');
    assert.equal(await bash.locator('[data-testid=call-command]').textContent(), "$ grep -rln 'parse(' src/prices");
    await bash.locator('[data-testid=call-result-output]').waitFor();
    assert.equal(await bash.locator('[data-testid=call-result-output] .output-gutter').textContent(), '1\n2\n3');

    const task = await inspect(page, '[data-testid=timeline-row][data-type=tool_result][data-step="2"]');
    const rendered = task.locator('[data-testid=output-text-rendered]');
    assert.equal(await rendered.locator('h6').first().textContent(), 'BOM handling');
    assert.deepEqual(await rendered.locator('li').allTextContents(), [
      'csv.ts strips it in parse',
      'importer.ts does not: it filters before parsing',
      'legacy/loader.ts never sees one',
    ]);
    assert.equal(await rendered.locator('pre.markdown-code').textContent(), "const text = raw.replace(/^\\uFEFF/, '')");
    assert.doesNotMatch((await task.locator('[data-testid=event-output]').textContent()) ?? '', /"type":"text"/);
    await task.locator('[data-testid=show-plain]').click();
    assert.equal(
      await task
        .locator('[data-testid=event-output] .output-body')
        .textContent()
        .then((text) => text?.split('\n')[0]),
      '## BOM handling',
    );
  });
});
