/**
 * Layout that fits and severity that tells the truth (issue 15 items 8, 9, 12 and its broken
 * states), in Chromium at 1024 × 700 on `loopscope serve`: ids and paths cut in the middle with the
 * full value on hover, badges and numbers never clipped, a warnings-only run not red, a sort arrow
 * only when sorted, identical findings grouped, a draggable and remembered splitter, and an unknown
 * trace id showing an error instead of the previous trace.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchBrowser, openApp, saveScreenshot, serveTraces, waitForPage, type AppPage, type ServedTraces } from '../../devkit/browser';
import { repoRoot } from '../../devkit/repoPaths';

const fixture = join(repoRoot, 'test', 'fixtures', 'ui', 'severity-and-repeats.jsonl');
const sessionName = '3b8e0f4d-6a2c-4e91-b7d5-0c9f1e2a4d68';
const prefix = 'session-2f6c1e8a-5b7d-4c1e-9a3f-0d4b8e7c6a15-northwind-order-support';
/** A trace of one run: its id is the same on every call and finding. */
const oneRun = join(repoRoot, 'examples', 'dangling-call.jsonl');

async function openTrace(app: AppPage, url: string, fileName: string): Promise<void> {
  await app.page.goto(url);
  await app.page.locator('[data-testid=trace-item] a', { hasText: fileName }).click();
  await app.page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
}

async function box(locator: Locator): Promise<{ left: number; right: number; width: number }> {
  const found = await locator.boundingBox();
  assert.ok(found, 'the element is laid out');
  return { left: found.x, right: found.x + found.width, width: found.width };
}

/** Whether the element's text is shown whole: not cut by its own box nor by any ancestor's up to `within`. */
async function shownWhole(element: Locator, within: Locator): Promise<boolean> {
  const inner = await box(element);
  const outer = await box(within);
  const clipped = await element.evaluate((node) => node.scrollWidth > node.clientWidth + 1);
  return !clipped && inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5;
}

describe('layout and severity at 1024 × 700', () => {
  let browser: Browser;
  let server: ServedTraces;
  let sessionDir: string;

  before(async () => {
    // A Claude Code session with its sub-agent folder, in a deep folder: the File column's paths share a long prefix.
    sessionDir = join(mkdtempSync(join(tmpdir(), 'loopscope-layout-')), 'projects', '-home-someone-work-a-rather-long-project-folder-name', 'sessions');
    mkdirSync(sessionDir, { recursive: true });
    const source = join(repoRoot, 'test', 'fixtures', 'formats', 'claude-code');
    cpSync(join(source, `${sessionName}.jsonl`), join(sessionDir, `${sessionName}.jsonl`));
    cpSync(join(source, sessionName), join(sessionDir, sessionName), { recursive: true });
    browser = await launchBrowser();
    server = await serveTraces([fixture, join(sessionDir, `${sessionName}.jsonl`), oneRun]);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(join(sessionDir, '..', '..', '..'), { recursive: true, force: true });
  });

  async function newApp(colorScheme: 'light' | 'dark' = 'light'): Promise<AppPage> {
    const app = await openApp(browser, server.url, { colorScheme });
    await app.page.setViewportSize({ width: 1024, height: 700 });
    return app;
  }

  function row(page: Page, suffix: string): Locator {
    return page.locator(`[data-testid=run-row][data-run-id="${prefix}/${suffix}"]`);
  }

  test('a page load logs no console error, CSP or otherwise', async () => {
    const app = await newApp();
    await app.page.locator('[data-testid=start-screen][data-state=ready]').waitFor();
    await openTrace(app, server.url, 'severity-and-repeats.jsonl');
    await app.page.reload();
    await app.page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
    assert.deepEqual(app.problems, []);
  });

  test('runs: a warnings-only run is striped as a warning, not red; ids keep their distinct tails; badges and numbers are not clipped', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const app = await newApp(scheme);
      const { page } = app;
      await openTrace(app, server.url, 'severity-and-repeats.jsonl');
      const stripe = (locator: Locator) =>
        locator.evaluate((element) => ({
          classes: [...element.classList],
          shadow: element.ownerDocument.defaultView?.getComputedStyle(element).boxShadow ?? '',
        }));
      // A theme colour as the browser computes it, to compare with the stripe's.
      const colour = (variable: string) =>
        page.locator('body').evaluate((body, name) => {
          const probe = body.ownerDocument.createElement('span');
          probe.style.color = `var(${name})`;
          body.append(probe);
          const value = body.ownerDocument.defaultView?.getComputedStyle(probe).color ?? '';
          probe.remove();
          return value;
        }, variable);
      const [error, warning] = [await colour('--error'), await colour('--warning')];
      const failing = await stripe(row(page, 'retry-loop'));
      const warned = await stripe(row(page, 'never-ends'));
      const clean = await stripe(row(page, 'clean'));
      assert.ok(failing.classes.includes('row-error') && failing.shadow.includes(error), `${scheme}: the run with error findings is red`);
      assert.ok(!warned.classes.includes('row-error') && !warned.shadow.includes(error), `${scheme}: the warnings-only run is not red`);
      assert.ok(warned.shadow.includes(warning), `${scheme}: the warnings-only run has the warning colour`);
      assert.equal(clean.shadow, 'none', `${scheme}: a clean run has no stripe`);

      // The three ids share a 70-character prefix: what tells them apart is their end, shown whole.
      for (const suffix of ['retry-loop', 'never-ends', 'clean']) {
        const cell = row(page, suffix).locator('.col-run');
        const tail = cell.locator('.middle-ellipsis-tail');
        assert.equal(await tail.innerText(), `/${suffix}`);
        assert.ok(await shownWhole(tail, cell), `${suffix}: the id's tail is visible`);
        assert.ok((await cell.locator('[data-testid=middle-ellipsis]').getAttribute('title'))?.startsWith(`${prefix}/${suffix}`), 'the full id is on hover');
        for (const selector of ['[data-testid=run-status]', '.col-number:nth-child(5) span', '.col-number:nth-child(6) span']) {
          const target = row(page, suffix).locator(selector);
          assert.ok(await shownWhole(target, target.locator('xpath=ancestor::div[@role="cell"]')), `${suffix}: ${selector} is not clipped`);
        }
      }
      await saveScreenshot(page, `layout-runs-1024-${scheme}`);
      assert.deepEqual(app.problems, []);
    }
  });

  test('runs: no sort arrow while rows are in file order; the sorted column alone shows one', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'severity-and-repeats.jsonl');
    const arrows = () => page.locator('[role=columnheader] .sort-indicator').allInnerTexts();
    assert.deepEqual(
      (await arrows()).filter((text) => text.trim() !== ''),
      [],
      'no arrow in file order',
    );
    assert.equal(await page.locator('[role=columnheader][aria-sort=ascending], [role=columnheader][aria-sort=descending]').count(), 0);
    assert.match(await page.locator('[data-testid=runs-total]').innerText(), /3 runs, in file order/);
    await page.locator('[data-testid=sort-tokens]').click();
    await page.waitForURL(/sort=tokens/);
    await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
    const sorted = page.locator('[role=columnheader][aria-sort=descending]');
    assert.equal(await sorted.count(), 1);
    assert.match(await sorted.innerText(), /Tokens in \/ out\s*▼/);
    assert.deepEqual(
      (await arrows()).filter((text) => text.trim() !== '').map((text) => text.trim()),
      ['▼'],
    );
    assert.doesNotMatch(await page.locator('[data-testid=runs-total]').innerText(), /file order/);
    assert.deepEqual(app.problems, []);
  });

  test('runs: in a trace of several files, the File column keeps each file name whole and the full path on hover', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, `${sessionName}.jsonl`);
    const files = page.locator('[data-testid=run-row] .col-file');
    assert.ok((await files.count()) >= 2, 'the session and its sub-agent are listed');
    const ends = new Set<string>();
    for (const cell of await files.all()) {
      const parts = cell.locator('[data-testid=middle-ellipsis]');
      const title = (await parts.getAttribute('title')) ?? '';
      const path = title.split('\n')[0] ?? '';
      assert.ok(path.startsWith(sessionDir) && path.endsWith('.jsonl'), `the full path is on hover: ${title}`);
      assert.match(title, /\nclaude-code$/, 'and the format');
      // The file name's end is shown whole; the directory is what gave way.
      const end = parts.locator('.middle-ellipsis-tail');
      ends.add(await end.innerText());
      assert.ok(path.endsWith(await end.innerText()));
      assert.match(await end.innerText(), /\.jsonl$/);
      assert.ok(await shownWhole(end, cell), 'the end of the file name is visible');
      const directory = parts.locator('.middle-ellipsis-directory');
      const name = parts.locator('.middle-ellipsis-head:not(.middle-ellipsis-directory)');
      assert.ok((await box(directory)).width < (await box(name)).width, 'the directory gives way before the file name');
    }
    assert.equal(ends.size, 2, 'the session file and the sub-agent file tell apart');
    await saveScreenshot(page, 'layout-runs-files-1024');
    assert.deepEqual(app.problems, []);
  });

  test('calls and findings of a one-run trace show step and line, not the run id repeated on every row', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'dangling-call.jsonl');
    await page.locator('[data-testid=tab-calls]').click();
    await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
    // One run: no Run column (it would say the same on every row); step is a column of its own.
    await page.locator('[data-testid=call-row]').first().waitFor();
    assert.deepEqual(
      await page
        .locator('[data-testid=calls-list] [role=columnheader]')
        .allInnerTexts()
        .then((texts) => texts.map((text) => text.replace(/[▲▼]/g, '').trim())),
      ['Step', 'Tool', 'Arguments', 'Result', 'Latency'],
    );
    await page.locator('[data-testid=tab-findings]').click();
    await page.locator('[data-testid=findings-view][data-state=ready]').waitFor();
    const links = page.locator('[data-testid=finding-link]');
    await links.first().waitFor();
    await waitForPage(page, "document.querySelectorAll('[data-testid=finding-link] [data-testid=middle-ellipsis]').length === 0");
    for (const text of await links.allInnerTexts()) assert.match(text, /^step \d+ · line \d+$/);
    // Several runs, but every call in one of them: the Run column would still say the same on every
    // row (test/e2e/taskSubagent.test.ts has calls in three runs, and the column).
    await openTrace(app, server.url, 'severity-and-repeats.jsonl');
    await page.locator('[data-testid=tab-calls]').click();
    await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
    await page.locator('[data-testid=call-row]').first().waitFor();
    assert.equal(await page.locator('[data-testid=calls-list] [role=columnheader]', { hasText: 'Run' }).count(), 0);
    assert.deepEqual(app.problems, []);
  });

  test('findings: identical findings are one line with their count; expanding lists every occurrence with its step and line', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'severity-and-repeats.jsonl');
    await page.locator('[data-testid=tab-findings]').click();
    await page.locator('[data-testid=findings-view][data-state=ready]').waitFor();
    const group = page.locator('[data-testid=finding-group][data-kind=invalid_arguments]');
    const template = group.locator('[data-testid=finding-template]');
    await template.waitFor();
    assert.equal(await template.count(), 1, 'six identical findings are one line');
    assert.equal(await template.getAttribute('data-count'), '6');
    const toggle = template.locator('button.template-toggle');
    assert.match(await toggle.innerText(), /^▸ 6× call get_order has invalid arguments: arguments are not valid JSON/);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await group.locator('[data-testid=finding-item]').count(), 0, 'occurrences are folded');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    const items = template.locator('[data-testid=finding-item]');
    await items.nth(5).waitFor();
    assert.equal(await items.count(), 6);
    const wheres = await template.locator('.run-step-line-where').allInnerTexts();
    assert.deepEqual(
      wheres.map((text) => text.replace(/ · line \d+/, '').trim()),
      [1, 2, 3, 4, 5, 6].map((step) => `· step ${step}`),
    );
    // The run id gives way; the step and the line are shown whole.
    for (const link of await template.locator('[data-testid=finding-link]').all()) assert.ok(await shownWhole(link.locator('.run-step-line-where'), link));
    // Each occurrence keeps its own message (its own call id).
    const messages = await template.locator('.finding-message').allInnerTexts();
    assert.equal(new Set(messages).size, 6);
    // A finding without twins is listed as itself, not as a group of one.
    const lone = page.locator('[data-testid=finding-group][data-kind=unterminated_run]');
    assert.equal(await lone.locator('[data-testid=finding-template]').count(), 0);
    assert.equal(await lone.locator('[data-testid=finding-item]').count(), 1);
    await saveScreenshot(page, 'layout-findings-1024');
    assert.deepEqual(app.problems, []);
  });

  test('run: the splitter resizes the inspector by pointer and keys, keeps the timeline usable, and is remembered', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'severity-and-repeats.jsonl');
    await row(page, 'retry-loop').click();
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    await page.locator('[data-testid=timeline-row]').nth(1).click();
    await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
    const splitter = page.locator('[role=separator][data-testid=splitter]');
    const inspector = page.locator('[data-testid=event-inspector]');
    const timeline = page.locator('.run-body > :first-child');
    const before = (await box(inspector)).width;
    assert.equal(Number(await splitter.getAttribute('aria-valuenow')), Math.round(before));

    // Until dragged, the inspector takes 40 % of the run body at 1024 px: the lanes keep the rest.
    assert.ok(Math.abs(before - 1024 * 0.4) <= 8, `the default width is 40 %: ${before}`);
    // Drag 100 px to the left: the inspector widens by as much.
    const handle = await box(splitter);
    const y = 400;
    await page.mouse.move(handle.left + 3, y);
    await page.mouse.down();
    await page.mouse.move(handle.left - 50, y, { steps: 4 });
    await page.mouse.move(handle.left - 97, y, { steps: 4 });
    await page.mouse.up();
    const dragged = (await box(inspector)).width;
    assert.ok(Math.abs(dragged - (before + 100)) <= 4, `dragged to ${dragged}, from ${before}`);
    assert.equal(Number(await splitter.getAttribute('aria-valuenow')), Math.round(dragged));

    // Keys on the focused separator: ← widens, → narrows.
    await splitter.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    const keyed = (await box(inspector)).width;
    assert.ok(Math.abs(keyed - (dragged - 32)) <= 2, `two → narrowed it by 32 px: ${keyed}`);

    // As far left as it goes: the timeline keeps its minimum.
    await page.keyboard.press('Home');
    assert.ok((await box(timeline)).width >= 470, 'the timeline keeps a usable width');

    // Remembered: a reload (and another run) opens with the same width.
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    const remembered = (await box(inspector)).width;
    await page.reload();
    await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
    assert.ok(Math.abs((await box(inspector)).width - remembered) <= 1, 'the width survives a reload');
    await saveScreenshot(page, 'layout-run-splitter-1024');
    assert.deepEqual(app.problems, []);
  });

  test('an unknown trace id, reached in the app, shows an error, not the previous trace', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'severity-and-repeats.jsonl');
    await page.evaluate("window.location.hash = '#/trace/no-such-trace'");
    const error = page.locator('[data-testid=error]');
    await error.waitFor();
    assert.match(await error.innerText(), /Could not load this trace/);
    // The hint comes from the ApiCallError's code (not_found), so the client kept the API's code.
    assert.match(await error.locator('.state-hint').innerText(), /no longer open/);
    assert.equal(await page.locator('[data-testid=runs-view]').count(), 0, "the previous trace's runs are gone");
    assert.equal(await page.locator('[data-testid=run-row]').count(), 0);
    assert.doesNotMatch(await page.locator('.top-bar').innerText(), /severity-and-repeats/);
    // The 404 that says so is expected: exactly it, the one of the runs table's first page (asked for
    // with the summary, views/runsQuery.ts) and the console lines Chromium logs for them, nothing else.
    const expected = (problem: string) =>
      problem === 'HTTP 404 for POST /<token>/api/trace' ||
      problem === 'HTTP 404 for POST /<token>/api/runs' ||
      /^console error: Failed to load resource: .* 404/.test(problem);
    assert.ok(app.problems.some(expected), `the API answered 404: ${app.problems.join('; ')}`);
    assert.deepEqual(
      app.problems.filter((problem) => !expected(problem)),
      [],
    );
  });
});
