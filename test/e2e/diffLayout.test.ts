/**
 * The request diff's layouts and its broken link, in Chromium on `loopscope serve`: an edited
 * one-line JSON tool result read side by side (pretty-printed, one property a line, the layout in
 * the URL), and a hand-edited diff URL naming a tool result, which gets a page saying what that
 * event is instead of a failed call.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openApp, saveScreenshot, serveTraceFile, type ServedTraceFile } from '../../devkit/browser';
import { editedJsonResult, editedJsonResultEvents } from '../../devkit/uiTraces/editedJsonResult';

let served: ServedTraceFile;

before(async () => {
  served = await serveTraceFile(
    'edited-json.jsonl',
    editedJsonResultEvents()
      .map((event) => JSON.stringify(event))
      .join('\n') + '\n',
  );
});

after(async () => {
  await served?.close();
});

/** The runs list → the run → its requests → the third request's diff (the edited result). */
async function openThirdDiff(page: Page): Promise<string> {
  await page.locator(`[data-testid=run-row][data-run-id="${editedJsonResult.runId}"]`).click();
  await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
  await page.locator('[data-testid=run-section-requests]').click();
  await page.locator('[data-testid=requests-panel][data-state=ready]').waitFor();
  const third = page.locator('[data-testid=request-row][data-request-index="2"]');
  const eventId = (await third.getAttribute('data-event-id'))!;
  await third.click();
  await page.locator(`[data-testid=request-diff][data-state=ready][data-event-id="${eventId}"]`).waitFor();
  return eventId;
}

describe('request diff: side by side, and a link to an event that is not a request', () => {
  test('an edited one-line JSON result reads side by side, property by property; the layout is in the URL and survives a reload', async () => {
    const app = await openApp(served.browser, served.served.url);
    const { page } = app;
    const eventId = await openThirdDiff(page);
    const modified = page.locator('[data-testid=diff-message][data-status=modified]');
    assert.equal(await modified.count(), 1);
    // The word diff is the default; the page says nothing about how it was computed.
    assert.equal(await page.locator('[data-testid=diff-layout-words]').getAttribute('aria-current'), 'true');
    assert.doesNotMatch(await page.locator('[data-testid=request-diff]').innerText(), /worker|Diffed/);

    await page.locator('[data-testid=diff-layout-side-by-side]').click();
    await page.waitForURL((url) => url.hash.endsWith(`/diff/${eventId}/layout/side-by-side`));
    const sideBySide = modified.locator('[data-testid=message-diff][data-state=ready] [data-testid=side-by-side]');
    await sideBySide.waitFor();
    assert.match(await sideBySide.innerText(), /JSON on both sides, pretty-printed/);
    const changed = sideBySide.locator('[data-testid=sbs-row][data-kind=changed]');
    const pairs = await changed.evaluateAll((rows) =>
      rows.map((row) => [row.querySelector('[data-testid=sbs-left]')?.textContent ?? '', row.querySelector('[data-testid=sbs-right]')?.textContent ?? '']),
    );
    assert.deepEqual(pairs, [
      ['  "item": "hiking boots",', '  "item": "trail shoes",'],
      ['  "size": 42,', '  "size": 43,'],
      ['  "shipment": "standard",', '  "shipment": "express",'],
      ['    "shipping": 0', '    "shipping": 12'],
    ]);
    // Only the changed words are marked inside a changed line.
    assert.deepEqual(await changed.nth(2).locator('ins').allInnerTexts(), ['express']);
    assert.deepEqual(await changed.nth(2).locator('del').allInnerTexts(), ['standard']);
    // Unchanged properties stay on their own lines, unmarked.
    assert.match(
      await sideBySide
        .locator('[data-testid=sbs-row][data-kind=same]')
        .allInnerTexts()
        .then((rows) => rows.join('\n')),
      /"note": "and sizes run small"/,
    );
    assert.equal(await page.locator('[data-testid=diff-layout-side-by-side]').getAttribute('aria-current'), 'true');
    await saveScreenshot(page, 'diff-side-by-side');

    await page.reload();
    await page.locator(`[data-testid=request-diff][data-state=ready][data-event-id="${eventId}"]`).waitFor();
    assert.equal(await page.locator('[data-testid=message-diff] [data-testid=side-by-side]').count(), 1);
    // k keeps the layout while moving to the request before; s switches back to the word diff.
    await page.keyboard.press('k');
    await page.waitForURL((url) => /\/diff\/\d+\/layout\/side-by-side$/.test(url.hash) && !url.hash.includes(`/diff/${eventId}/`));
    await page.keyboard.press('s');
    await page.waitForURL((url) => /\/diff\/\d+$/.test(url.hash));
    // The switch follows the URL on the next render: wait for it rather than read it at once.
    await page.locator('[data-testid=diff-layout-words][aria-current=true]').waitFor();
    assert.deepEqual(app.problems, []);
    await page.context().close();
  });

  test('a diff URL edited to name a tool result: a page says what the event is and links to it in its run, with no failed call', async () => {
    const app = await openApp(served.browser, served.served.url);
    const { page } = app;
    await page.locator(`[data-testid=run-row][data-run-id="${editedJsonResult.runId}"]`).click();
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    const result = page.locator('[data-testid=timeline-row][data-type=tool_result]').first();
    const resultId = (await result.getAttribute('data-event-id'))!;
    const runHash = new URL(page.url()).hash;
    const runPk = /\/run\/(\d+)/.exec(runHash)![1];
    await page.goto(new URL(`${runHash.split('/run/')[0]}/run/${runPk}/diff/${resultId}`, page.url()).href.replace(/#.*#/, '#'));
    const notice = page.locator('[data-testid=diff-not-a-request]');
    await notice.waitFor();
    assert.equal(await notice.getAttribute('data-event-type'), 'tool_result');
    assert.match(
      await notice.innerText(),
      new RegExp(`event ${resultId}: a tool result \\(step 1, line 4\\) of run ${editedJsonResult.runId}, not a model request of this run`),
    );
    await saveScreenshot(page, 'diff-not-a-request');
    await notice.locator('[data-testid=not-a-request-event-link]').click();
    await page.waitForURL((url) => url.hash.endsWith(`/run/${runPk}/event/${resultId}`));
    await page.locator(`[data-testid=timeline-row][data-selected=true][data-event-id="${resultId}"]`).waitFor();
    assert.deepEqual(app.problems, []);
    await page.context().close();
  });
});
