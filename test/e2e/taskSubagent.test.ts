/**
 * Issue 15, task 2: open the sub-agent a Task call started — from the Task call itself. On a
 * recent Claude Code session with a `subagents/` folder (test/fixtures/ui/task-subagent: three
 * Task calls amid hook, bash and agent progress lines; two sub-agent transcripts, the third's
 * missing), through `loopscope serve` and Chromium, counting the user's actions.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp, serveTraces, type AppPage, type ServedTraces } from '../../devkit/browser';
import { temporaryDir } from '../support/engineHarness';
import { UserActions } from '../support/userActions';
import { repoRoot } from '../../devkit/repoPaths';

const session = '7c1d2e9a-4b3f-4e8a-9d21-5f6a7b8c9d0e';
const fixtureDir = join(repoRoot, 'test', 'fixtures', 'ui', 'task-subagent');
const roundingCall = 'toolu_01TaskRoundingSearch';
const auditCall = 'toolu_01TaskTestAudit';
const changelogCall = 'toolu_01TaskChangelog';

describe('task 2: a sub-agent one click from its Task call', { timeout: 120_000 }, () => {
  let served: ServedTraces;
  let browser: Browser;

  before(async () => {
    served = await serveTraces([join(fixtureDir, `${session}.jsonl`)]);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await served?.stop();
  });

  async function openRuns(): Promise<AppPage> {
    const app = await openApp(browser, served.url);
    await app.page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
    return app;
  }

  function runView(page: Page, runId: string) {
    return page.locator(`[data-testid=run-view][data-state=ready][data-run-id="${runId}"]`);
  }

  test("from the runs list, the session's Task call opens its sub-agent, whose header names the parent and whose answer is on screen", async () => {
    const app = await openRuns();
    const { page } = app;
    const user = new UserActions(page);
    await user.click(page.locator(`[data-testid=run-row][data-run-id="${session}"]`), 'the session in the runs list');
    await runView(page, session).waitFor();

    const taskCall = page.locator(`[data-testid=call-chip][data-call-id="${roundingCall}"]`);
    await assert.doesNotReject(taskCall.waitFor(), 'the Task call is on the first screen of the run');
    assert.match(await taskCall.innerText(), /Map rounding code \(Explore\)/);
    assert.match(await taskCall.locator('[data-testid=subagent-summary]').innerText(), /Model finished[\s\S]*3 steps[\s\S]*2 tool calls/i);
    await user.click(taskCall.getByRole('link', { name: 'Open sub-agent run ↳' }), 'Open sub-agent run on the Task call');

    const child = runView(page, `${session}/agent-a51c0de`);
    await child.waitFor();
    const origin = await child.locator('[data-testid=subagent-origin]').innerText();
    assert.match(origin, new RegExp(`Sub-agent of ${session} · started by Task call ${roundingCall} at step 1 · Map rounding code \\(Explore\\)`));
    // The sub-agent's answer: its last model response, in the timeline.
    await assert.doesNotReject(child.getByText('src/ledger/total.ts:42 rounds each line with Math.round', { exact: false }).first().waitFor());
    assert.ok(user.count <= 2, `opened in ${user.count} actions: ${user.log.join(', ')}`);
    assert.deepEqual(app.problems, []);
  });

  test('the child header links back to the Task call, and the result chip opens the sub-agent too', async () => {
    const app = await openRuns();
    const { page } = app;
    await page.locator(`[data-testid=run-row][data-run-id="${session}/agent-b62e1f0"]`).click();
    const child = runView(page, `${session}/agent-b62e1f0`);
    await child.waitFor();
    await child.locator('[data-testid=starting-call-link]').click();
    await runView(page, session).waitFor();
    // The call's model response is selected and open in the inspector.
    const selected = page.locator('[data-testid=timeline-row][data-selected=true]');
    await assert.doesNotReject(selected.locator(`[data-testid=call-chip][data-call-id="${auditCall}"]`).waitFor());
    assert.match(page.url(), /\/event\/\d+/);
    const inspector = page.locator('[data-testid=inspector-subagents]');
    await assert.doesNotReject(inspector.waitFor());
    assert.match(await inspector.innerText(), /Audit rounding tests \(general-purpose\)/);

    // The result chip of the same call: its own link to the sub-agent.
    const resultRow = page.locator('[data-testid=timeline-row][data-type=tool_result]').filter({ hasText: 'Only test/ledger.test.ts covers totals' });
    await resultRow.getByRole('link', { name: 'Open sub-agent run ↳' }).click();
    await child.waitFor();
    assert.deepEqual(app.problems, []);
  });

  test("a Task call's summary expands to the sub-agent's answer and first steps, without leaving the parent", async () => {
    const app = await openRuns();
    const { page } = app;
    await page.locator(`[data-testid=run-row][data-run-id="${session}"]`).click();
    await runView(page, session).waitFor();
    const summary = page.locator(`[data-testid=call-chip][data-call-id="${auditCall}"] [data-testid=subagent-summary]`);
    const toggle = summary.locator('[data-testid=subagent-expand]');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    const preview = summary.locator('[data-testid=subagent-preview]');
    await assert.doesNotReject(preview.getByText('Glob', { exact: false }).first().waitFor());
    assert.match(await preview.innerText(), /Answer: Only test\/ledger\.test\.ts covers totals/);
    await runView(page, session).waitFor();
    assert.deepEqual(app.problems, []);
  });

  test('a Task result naming a sub-agent whose transcript is missing says so, and where it looked', async () => {
    const app = await openRuns();
    const { page } = app;
    await page.locator(`[data-testid=run-row][data-run-id="${session}"]`).click();
    await runView(page, session).waitFor();
    const note = page.locator(`[data-testid=call-chip][data-call-id="${changelogCall}"] [data-testid=subagent-missing]`);
    await note.waitFor();
    assert.equal(await note.innerText(), `sub-agent transcript agent-c73a2b1.jsonl not found; looked in ${join(fixtureDir, session, 'subagents')}`);
    assert.equal(await page.locator(`[data-testid=call-chip][data-call-id="${changelogCall}"] [data-testid=open-subagent]`).count(), 0);
    assert.deepEqual(app.problems, []);
  });

  test("the Calls list of a session with sub-agents names each call's run, the sub-agent's own id kept whole", async () => {
    const app = await openRuns();
    const { page } = app;
    await page.locator('[data-testid=tab-calls]').click();
    await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
    await page.locator('[data-testid=calls-list] [role=columnheader]', { hasText: 'Run' }).waitFor();
    const tails = new Set(await page.locator('[data-testid=call-row] .col-run .middle-ellipsis-tail').allTextContents());
    assert.ok(tails.has('/agent-a51c0de') && tails.has('/agent-b62e1f0'), `run cells end with the sub-agents' ids: ${[...tails].join(', ')}`);
    assert.deepEqual(app.problems, []);
  });

  test('the runs list tells the two sub-agents apart and puts them under their session', async () => {
    const app = await openRuns();
    const { page } = app;
    const ids = await page.locator('[data-testid=run-row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id')));
    assert.deepEqual(ids, [session, `${session}/agent-a51c0de`, `${session}/agent-b62e1f0`]);
    const names = await page.locator('[data-testid=child-run-name]').allInnerTexts();
    assert.deepEqual(names, ['↳ agent-a51c0de · Map rounding code (Explore)', '↳ agent-b62e1f0 · Audit rounding tests (general-purpose)']);
    assert.deepEqual(app.problems, []);
  });
});

describe('a sub-agent transcript served alone', { timeout: 120_000 }, () => {
  let browser: Browser;
  let lone: ReturnType<typeof temporaryDir>;

  before(async () => {
    browser = await launchBrowser();
    lone = temporaryDir('lone-subagent');
  });

  after(async () => {
    await browser?.close();
    lone?.remove();
  });

  test('with its session beside it, the session opens with it: the sub-agent is a child row linked to its Task call', async () => {
    const served = await serveTraces([join(fixtureDir, session, 'subagents', 'agent-b62e1f0.jsonl')]);
    try {
      const app = await openApp(browser, served.url);
      await app.page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
      const ids = await app.page.locator('[data-testid=run-row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id')));
      assert.deepEqual(ids, [session, `${session}/agent-a51c0de`, `${session}/agent-b62e1f0`]);
      await app.page.locator(`[data-testid=run-row][data-run-id="${session}/agent-b62e1f0"]`).click();
      const origin = app.page.locator('[data-testid=run-view][data-state=ready] [data-testid=subagent-origin]');
      assert.match(await origin.innerText(), new RegExp(`started by Task call ${auditCall} at step 1`));
      assert.deepEqual(app.problems, []);
    } finally {
      await served.stop();
    }
  });

  test('without its session, it opens as the sub-agent of a session that is not open', async () => {
    const folder = join(lone.path, session, 'subagents');
    mkdirSync(folder, { recursive: true });
    copyFileSync(join(fixtureDir, session, 'subagents', 'agent-a51c0de.jsonl'), join(folder, 'agent-a51c0de.jsonl'));
    const served = await serveTraces([join(folder, 'agent-a51c0de.jsonl')]);
    try {
      const app = await openApp(browser, served.url);
      await app.page.locator(`[data-testid=run-row][data-run-id="${session}/agent-a51c0de"]`).click();
      const origin = app.page.locator('[data-testid=run-view][data-state=ready] [data-testid=subagent-origin]');
      assert.equal(
        await origin.innerText(),
        `Sub-agent a51c0de of session ${session} — its session's transcript is not open (it was not found beside this file)`,
      );
      assert.deepEqual(app.problems, []);
    } finally {
      await served.stop();
    }
  });
});
