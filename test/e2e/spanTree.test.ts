/**
 * An Inspect AI sample read as a span tree, served by `loopscope serve` and driven in Chromium:
 * each span's begin is a header row (name, type, event count, time) over its events, indented by
 * depth; its chevron collapses and expands it (mouse and keyboard); the collapsed spans are the
 * URL's (`?collapsed=<begin event ids>`), so a link or a reload reopens the same tree.
 * Fixture: test/fixtures/ui/inspect-spans/spans.json (invented, in Inspect's log shapes): spans
 * init (1 event shown), solvers (7) ⊃ react (6) ⊃ bash (1).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp, openRunFromList, saveScreenshot, serveTraces, waitForPage, type AppPage, type ServedTraces } from '../../devkit/browser';
import { testFixturesDir } from '../../devkit/repoPaths';

const fixture = join(testFixturesDir, 'ui', 'inspect-spans', 'spans.json');
const sample = 'evalSpans1/count-lines/epoch1';
/** Rows of the sample with bookkeeping folded and every span open. */
const openRows = 13;

const rows = (page: Page) => page.locator('[data-testid=timeline-row]');
const header = (page: Page, name: string) =>
  page.locator('[data-testid=span-header]', { has: page.locator('[data-testid=span-name]', { hasText: new RegExp(`^${name}$`) }) });
const hashOf = (page: Page) => new URL(page.url()).hash;

async function ready(page: Page, rowCount: number): Promise<void> {
  await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
  await page
    .locator('[data-testid=timeline]')
    .and(page.locator(`[aria-rowcount="${rowCount}"]`))
    .waitFor();
  // Every row rendered (the list is short enough to render whole): none of a folded span is left.
  await waitForPage(page, `document.querySelectorAll('[data-testid=timeline-row]').length === ${rowCount}`);
}

describe("an Inspect sample's spans as a collapsible tree", () => {
  let browser: Browser;
  let server: ServedTraces;
  let app: AppPage;
  let runUrl: string;

  before(async () => {
    browser = await launchBrowser();
    server = await serveTraces([fixture]);
    app = await openApp(browser, server.url);
    await app.page.setViewportSize({ width: 1440, height: 900 });
    await openRunFromList(app.page, sample);
    runUrl = app.page.url().replace(/\?.*$/, '');
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('each span is a header with its name, type and event count, and its events are indented below it', async () => {
    const { page } = app;
    await ready(page, openRows);
    await saveScreenshot(page, 'span-tree-open');
    const headers = await page
      .locator('[data-testid=span-header]')
      .evaluateAll((elements) => elements.map((element) => [...element.children].map((part) => part.textContent ?? '').join(' | ')));
    // Chevron | name | type (when it is not the name) | rows inside | time from begin to end.
    assert.deepEqual(headers, [
      '▾ | init | 1 event',
      '▾ | solvers | 7 events | 2.20 s',
      '▾ | react | solver | 6 events | 2.10 s',
      '▾ | bash | tool | 1 event | 500 ms',
    ]);
    // The tool's result sits three spans deep (solvers ⊃ react ⊃ bash); the score after them is outside every span.
    assert.equal(await page.locator('[data-testid=timeline-row][data-type=tool_result]').getAttribute('data-span-depth'), '3');
    assert.equal(await page.locator('[data-testid=timeline-row]', { hasText: 'event/score' }).getAttribute('data-span-depth'), null);
    assert.deepEqual(app.problems, []);
  });

  test('the chevron collapses a span (its rows leave the list, the URL says so) and expands it again, by mouse and by keyboard', async () => {
    const { page } = app;
    await page.goto(runUrl);
    await ready(page, openRows);
    const solvers = header(page, 'solvers');
    const toggle = solvers.locator('[data-testid=span-toggle]');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    await toggle.click();
    await ready(page, openRows - 7);
    const spanId = await page.locator('[data-testid=timeline-row]', { has: solvers }).getAttribute('data-event-id');
    assert.match(hashOf(page), new RegExp(`\\?collapsed=${spanId}$`));
    assert.equal(await header(page, 'solvers').locator('[data-testid=span-toggle]').getAttribute('aria-expanded'), 'false');
    // The spans inside are gone with their rows; what follows the span is still listed.
    assert.equal(await header(page, 'react').count(), 0);
    assert.equal(await rows(page).filter({ hasText: 'event/score' }).count(), 1);
    await saveScreenshot(page, 'span-tree-collapsed');
    // The fold is a navigation: Back opens the span again, Forward folds it.
    await page.goBack();
    await ready(page, openRows);
    await page.goForward();
    await ready(page, openRows - 7);

    // Keyboard: focus the chevron and press Enter: the span opens again, and the URL drops it.
    await header(page, 'solvers').locator('[data-testid=span-toggle]').focus();
    await page.keyboard.press('Enter');
    await ready(page, openRows);
    assert.doesNotMatch(hashOf(page), /collapsed/);
    // Space folds it again; the inspector did not open (the chevron does not select its row).
    await header(page, 'solvers').locator('[data-testid=span-toggle]').focus();
    await page.keyboard.press(' ');
    await ready(page, openRows - 7);
    assert.equal(await page.locator('[data-testid=event-inspector]').count(), 0);
    assert.deepEqual(app.problems, []);
  });

  test('a link with collapsed spans reopens the same tree, with or without bookkeeping, and survives a reload', async () => {
    const { page } = app;
    await page.goto(runUrl);
    await ready(page, openRows);
    const reactId = await page.locator('[data-testid=timeline-row]', { has: header(page, 'react') }).getAttribute('data-event-id');
    await page.goto(`${runUrl}?collapsed=${reactId}`);
    await ready(page, openRows - 6);
    assert.equal(await header(page, 'react').getAttribute('data-collapsed'), 'true');
    assert.equal(await rows(page).filter({ hasText: 'tool_result' }).count(), 0);
    await page.reload();
    await ready(page, openRows - 6);
    // Showing every event keeps the span collapsed; it then hides its bookkeeping and its end too.
    await page.locator('[data-testid=bookkeeping-toggle]').click();
    await page.locator('[data-testid=bookkeeping-bar][data-show-all=true]').waitFor();
    assert.match(hashOf(page), new RegExp(`\\?all=1&collapsed=${reactId}$`));
    await ready(page, 22 - 10);
    assert.equal(await header(page, 'react').locator('[data-testid=span-count]').textContent(), '10 events');
    assert.deepEqual(app.problems, []);
  });

  test('a link to an event inside a collapsed span opens it, with the cursor on the span header', async () => {
    const { page } = app;
    await page.goto(runUrl);
    await ready(page, openRows);
    const resultId = await page.locator('[data-testid=timeline-row][data-type=tool_result]').getAttribute('data-event-id');
    const solversId = await page.locator('[data-testid=timeline-row]', { has: header(page, 'solvers') }).getAttribute('data-event-id');
    await page.goto(`${runUrl}/event/${resultId}?collapsed=${solversId}`);
    await page.locator(`[data-testid=event-inspector][data-event-id="${resultId}"]`).waitFor();
    await page.locator(`[data-testid=timeline-row][data-selected=true][data-event-id="${solversId}"]`).waitFor();
    assert.deepEqual(app.problems, []);
  });

  test('j walks the steps: onto their rows inside an open span, onto the span header when it is collapsed', async () => {
    const { page } = app;
    await page.goto(runUrl);
    await ready(page, openRows);
    const selected = page.locator('[data-testid=timeline-row][data-selected=true]');
    await page.keyboard.press('j');
    await page.locator('[data-testid=timeline-row][data-selected=true][data-step="0"]').waitFor();
    await page.keyboard.press('j');
    await page.locator('[data-testid=timeline-row][data-selected=true][data-step="1"]').waitFor();
    assert.equal(await selected.getAttribute('data-type'), 'model_request');
    assert.equal(await selected.getAttribute('data-span-depth'), '2');
    await header(page, 'solvers').locator('[data-testid=span-toggle]').click();
    await ready(page, openRows - 7);
    await page.keyboard.press('j');
    await page.waitForURL(/\/step\/2\?collapsed=\d+$/);
    await page.locator('[data-testid=timeline-row][data-selected=true]', { has: header(page, 'solvers') }).waitFor();
    assert.deepEqual(app.problems, []);
  });
});
