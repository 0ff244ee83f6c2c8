/**
 * Credentials in the browser UI: `loopscope serve` on a trace with one of every kind, Debian's
 * Chromium. The inspector shows them masked, no text or attribute of the page holds one, "Copy as
 * JSON" copies the masked record; "Reveal secrets" shows that event as written, and moving to
 * another event masks again. Waits are on the app's readiness signals, never on time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openApp, saveScreenshot, serveTraceFile, type ServedTraceFile } from '../../devkit/browser';
import { assertHoldsNone, fakeSecrets, secretTrace } from '../support/fakeSecrets';

const trace = secretTrace();

/** Everything the page holds: its text and its markup (attributes, titles, hidden elements). */
async function pageContent(page: Page): Promise<string> {
  return String(await page.evaluate('`${document.body.innerText}\\n${document.documentElement.outerHTML}`'));
}

describe('credentials in the browser UI', () => {
  let served: ServedTraceFile;

  before(async () => {
    served = await serveTraceFile('leaky.jsonl', trace.text);
  });

  after(async () => {
    await served?.close();
  });

  test('the inspector masks them, the page holds none, Copy as JSON copies the mask; Reveal secrets shows this event as written', async () => {
    const app = await openApp(served.browser, served.served.url, { clipboard: true });
    const { page } = app;
    // The only trace served opens at once.
    await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
    await page.locator('[data-testid=run-row][data-run-id="leaky-run"]').click();
    await page.locator('[data-testid=run-view][data-state=ready][data-run-id="leaky-run"]').waitFor();
    await page.locator('[data-testid=timeline-row][data-line="5"]').click();
    const inspector = page.locator('[data-testid=event-inspector][data-state=ready]');
    await inspector.waitFor();

    const rawLine = page.locator('[data-testid=raw-line]');
    assert.match(await rawLine.innerText(), /"AWS_ACCESS_KEY_ID":"AKIA…•••• \[aws key id masked\]"/);
    assert.match(await page.locator('[data-testid=json-tree]').innerText(), /name: "http_get"/);
    assert.equal(await page.locator('[data-testid=inspector-finding][data-kind=secret_in_trace]').count(), 3);
    assertHoldsNone('the page', await pageContent(page), trace.written);
    await page.locator('[data-testid=copy-json]').click();
    await page.locator('[data-testid=event-inspector] [role=status]', { hasText: 'Copied' }).waitFor();
    const copied = String(await page.evaluate('navigator.clipboard.readText()'));
    assert.match(copied, /AKIA…•••• \[aws key id masked\]/);
    assertHoldsNone('the copied JSON', copied, trace.written);

    // The other views the trace's text reaches: findings (their messages), parse errors (excerpts).
    const eventUrl = page.url();
    const traceUrl = eventUrl.replace(/\/run\/.*$/, '');
    await page.goto(`${traceUrl}/findings`);
    await page.locator('[data-testid=finding-item][data-kind=secret_in_trace]').first().waitFor();
    assertHoldsNone('the findings view', await pageContent(page), trace.written);
    await page.goto(`${traceUrl}/parse-errors`);
    await page.locator('[data-testid=parse-errors-view][data-state=ready]').waitFor();
    assert.match(await page.locator('[data-testid=parse-errors-view]').innerText(), /sk_live_…•••• \[stripe key masked\]/);
    assertHoldsNone('the parse errors view', await pageContent(page), trace.written);
    await page.goto(eventUrl);
    await inspector.waitFor();

    await page.locator('[data-testid=reveal-secrets]').click();
    await page.locator('[data-testid=raw-line]', { hasText: fakeSecrets.aws_access_key_id }).waitFor();
    assert.equal(await page.locator('[data-testid=reveal-secrets]').getAttribute('aria-pressed'), 'true');
    await page.locator('[data-testid=copy-json]').click();
    const revealed = String(await page.evaluate('navigator.clipboard.readText()'));
    assert.match(revealed, new RegExp(fakeSecrets.aws_access_key_id));
    await saveScreenshot(page, 'event-inspector-secrets-revealed');

    // Another event is masked; back on this one, so is it, until revealed again.
    const shown = await page.locator('[data-testid=event-inspector]').getAttribute('data-event-id');
    await page.locator('[data-testid=timeline-row][data-line="8"]').click();
    await page.locator(`[data-testid=event-inspector][data-state=ready]:not([data-event-id="${shown}"])`).waitFor();
    assert.match(await rawLine.innerText(), /hooks\.slack\.com\/…•••• \[slack webhook masked\]/);
    await page.locator('[data-testid=timeline-row][data-line="5"]').click();
    await page.locator('[data-testid=raw-line]', { hasText: 'AKIA…•••• [aws key id masked]' }).waitFor();
    assertHoldsNone('the page after moving away and back', await pageContent(page), trace.written);
    assert.deepEqual(app.problems, []);
    assert.deepEqual(app.dialogs, []);
  });
});
