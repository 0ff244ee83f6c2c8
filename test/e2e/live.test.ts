/**
 * A trace followed while a loop writes it, end to end: `loopscope serve` follows the file (its
 * default), Debian's Chromium shows it, and the test appends to the file on disk the way a running
 * loop does. Waits are on what the page shows, each bounded; how long new lines took to appear is
 * printed, not asserted (timing belongs in benchmarks).
 */
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openApp, serveTraceFile, waitForPage, type AppPage, type ServedTraceFile } from '../../devkit/browser';

const line = (fields: Record<string, unknown>): string => `${JSON.stringify({ run_id: 'live', ...fields })}\n`;
const call = (step: number): string =>
  line({
    type: 'model_response',
    step,
    outcome: 'tool_calls',
    finish_reason: 'tool_calls',
    tool_calls: [{ call_id: `c${step}`, name: 'run_tests', arguments: `{"attempt":${step}}` }],
  });
const result = (step: number): string => line({ type: 'tool_result', step, call_id: `c${step}`, status: 'ok', output: `attempt ${step}: 3 passed` });

/** Steps 1..n, each a call and its result, then the next call still waiting for its result. */
function runSoFar(steps: number): string {
  let text = line({ type: 'run_start', task: 'make the tests pass' });
  for (let step = 1; step <= steps; step += 1) text += call(step) + result(step);
  return text + call(steps + 1);
}

describe('a trace file followed while it is written', { timeout: 120_000 }, () => {
  let served: ServedTraceFile;
  let path: string;
  let app: AppPage;
  // Lines in the file so far: run_start, 40 steps of call + result, the 41st call.
  let lines = 1 + 40 * 2 + 1;

  before(async () => {
    served = await serveTraceFile('live.jsonl', runSoFar(40), { idleAfterSeconds: 120 });
    path = served.path;
    app = await openApp(served.browser, served.served.url);
  });

  after(async () => {
    // Stopped before asserting: a failed assertion must not leave the server and browser running.
    await served?.close();
    assert.deepEqual(app?.problems ?? [], [], 'the page reported problems');
  });

  const timeline = (page: Page) => page.locator('[data-testid=timeline]');
  const scrollTop = (page: Page) => page.evaluate(`document.querySelector('[data-testid=timeline]').scrollTop`) as Promise<number>;

  /** Appends to the file and waits until the timeline holds `events` rows; returns how long that took. */
  async function appendAndWait(page: Page, text: string, events: number): Promise<number> {
    const started = performance.now();
    appendFileSync(path, text);
    lines += text.split('\n').length - 1;
    await timeline(page)
      .and(page.locator(`[aria-rowcount="${events}"]`))
      .waitFor({ timeout: 10_000 });
    return performance.now() - started;
  }

  test('the run is running with its last call pending; new lines appear where they are written, the view stays where the user is', async () => {
    const { page } = app;
    // The only trace served: the app opens on it.
    await page.locator('[data-testid=follow-status][data-follow-state=following]').waitFor();
    await page.locator('[data-testid=run-row][data-run-id="live"][data-status=running]').click();
    await page.locator('[data-testid=run-view][data-state=ready][data-run-id="live"]').waitFor();
    assert.equal(await page.locator('[data-testid=run-header] [data-testid=run-status]').getAttribute('data-status'), 'running');
    await page.evaluate(`(() => { const element = document.querySelector('[data-testid=timeline]'); element.scrollTop = element.scrollHeight; })()`);
    const pending = timeline(page).locator('[data-testid=timeline-row][data-line="82"] [data-testid=call-chip][data-call-state=pending]');
    await pending.waitFor();
    assert.equal(await pending.locator('[data-testid=call-waiting]').innerText(), 'waiting for its result', 'not marked as a call without a result');
    assert.equal(await page.locator('[data-testid=status-raw]').innerText(), 'still being written: no terminal event yet');
    assert.equal(
      await page.locator('[data-testid=run-findings] [data-testid=finding-marker]').count(),
      0,
      'a call waiting for its result is not a dangling call',
    );

    // The user reads somewhere in the middle; the loop writes on.
    await page.evaluate(`document.querySelector('[data-testid=timeline]').scrollTop = 600`);
    await waitForPage(page, `document.querySelector('[data-testid=timeline]').scrollTop === 600`);
    const took = await appendAndWait(page, result(41) + call(42), 84);
    console.log(`appended lines shown in the timeline after ${Math.round(took)} ms`);
    assert.equal(await scrollTop(page), 600, 'the view kept its place');
    await page.evaluate(`(() => { const element = document.querySelector('[data-testid=timeline]'); element.scrollTop = element.scrollHeight; })()`);
    await timeline(page).locator('[data-testid=timeline-row][data-line="82"] [data-testid=call-chip][data-call-state=ok]').waitFor();
    await timeline(page).locator('[data-testid=timeline-row][data-line="84"] [data-testid=call-chip][data-call-state=pending]').waitFor();
    await page.evaluate(`document.querySelector('[data-testid=timeline]').scrollTop = 0`);
  });

  test('in follow mode (f) the last event stays in view as lines are appended; the run ends with its run_end', async () => {
    const { page } = app;
    await page.keyboard.press('f');
    await page.locator('[data-testid=follow-toggle][aria-pressed=true]').waitFor();
    await appendAndWait(page, result(42) + call(43), 86);
    const last = timeline(page).locator(`[data-testid=timeline-row][data-line="${lines}"]`);
    await last.waitFor();
    const [row, view] = await Promise.all([last.boundingBox(), timeline(page).boundingBox()]);
    assert.ok(row && view && row.y + row.height <= view.y + view.height + 1 && row.y >= view.y, 'the last event is on screen');

    await appendAndWait(page, result(43) + line({ type: 'run_end', status: 'MODEL_FINISHED' }), 88);
    await page.locator('[data-testid=run-header] [data-testid=run-status][data-status=model_finished]').waitFor();
  });

  test('a file truncated under the viewer is read again from the start, and the page says so', async () => {
    const { page } = app;
    writeFileSync(path, runSoFar(1));
    await page
      .locator('[data-testid=trace-notice]', { hasText: /read again from the start at .*: it was truncated from \d+ to \d+ bytes/ })
      .waitFor({ timeout: 10_000 });
    await page.locator('[data-testid=tab-runs]').click();
    await page.locator('[data-testid=run-row][data-run-id="live"][data-status=running]').waitFor({ timeout: 10_000 });
  });
});
