/**
 * A Claude Code session as it really looks: five steps drowned in 389 bookkeeping lines (hook and
 * bash progress, file-history snapshots, a stop-hook summary), served by `loopscope serve` and
 * read in Chromium. The timeline's first screen must show the model and the tools, say what it
 * folded away, keep "show all" in the URL, stay in line order, and tie the waterfall to its rows.
 * Fixture: test/fixtures/ui/claude-code-noise/ (invented, in Claude Code 2.1's shapes).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp, openRunFromList, saveScreenshot, serveTraces, type AppPage, type ServedTraces } from '../../devkit/browser';
import { testFixturesDir } from '../../devkit/repoPaths';

const session = '5d0c9e61-2b7a-4f3e-8a10-c4e2b7d9f015';
const fixture = join(testFixturesDir, 'ui', 'claude-code-noise', `${session}.jsonl`);
/** Hook progress 184, bash progress 200, snapshots 4, the stop hook's summary 1. */
const bookkeeping = 389;

function hashOf(page: Page): string {
  return new URL(page.url()).hash;
}

const rows = (page: Page) => page.locator('[data-testid=timeline-row]');
const selectedRow = (page: Page) => page.locator('[data-testid=timeline-row][data-selected=true]');

/**
 * The bars a waterfall lane's canvas draws in a theme colour (a CSS custom property), read from its
 * pixels along the middle of each track: each bar's centre in page coordinates, and its opacity
 * (bars are toned down to 85 %, 217 of 255, unless highlighted).
 */
async function barsDrawn(page: Page, kind: 'model' | 'tool', colourProperty: string): Promise<{ x: number; y: number; alpha: number }[]> {
  return (await page.evaluate(`(() => {
    const canvas = document.querySelector('[data-testid=waterfall-canvas][data-kind=${kind}]');
    const hex = getComputedStyle(canvas).getPropertyValue('${colourProperty}').trim();
    const want = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const box = canvas.getBoundingClientRect();
    const scale = box.width / canvas.width;
    const bars = [];
    // The canvas overhangs its lane by 3 CSS px; tracks are 12 px apart, bars 9 px high.
    for (let track = 0; track < Number(canvas.dataset.tracks); track += 1) {
      const y = Math.round((3 + track * 12 + 4.5) / scale);
      let runStart = -1;
      for (let x = 0; x <= canvas.width; x += 1) {
        const at = (y * canvas.width + x) * 4;
        const matches = x < canvas.width && pixels[at + 3] > 0 && want.every((channel, i) => Math.abs(pixels[at + i] - channel) <= 6);
        if (matches && runStart < 0) runStart = x;
        if (!matches && runStart >= 0) {
          const middle = Math.floor((runStart + x - 1) / 2);
          bars.push({ x: box.left + (middle + 0.5) * scale, y: box.top + (y + 0.5) * scale, alpha: pixels[(y * canvas.width + middle) * 4 + 3] });
          runStart = -1;
        }
      }
    }
    return bars;
  })()`)) as { x: number; y: number; alpha: number }[];
}

/** The rows whose top is inside the timeline's viewport: the first screen. */
async function rowsOnScreen(page: Page): Promise<{ index: number; lane: string; type: string; text: string; line: number; calls: number }[]> {
  return page.locator('[data-testid=timeline]').evaluate((timeline) => {
    const view = timeline.getBoundingClientRect();
    return [...timeline.querySelectorAll('[data-testid=timeline-row]')]
      .filter((row) => {
        const box = row.getBoundingClientRect();
        return box.top >= view.top && box.top < view.bottom;
      })
      .map((row) => ({
        index: Number(row.parentElement?.getAttribute('aria-rowindex')),
        lane: row.getAttribute('data-lane') ?? '',
        type: row.getAttribute('data-type') ?? '',
        text: row.textContent ?? '',
        line: Number(row.getAttribute('data-line')),
        calls: row.querySelectorAll('[data-testid=call-chip]').length,
      }));
  });
}

describe('a Claude Code session full of bookkeeping, in the timeline', () => {
  let browser: Browser;
  let server: ServedTraces;
  let app: AppPage;
  let runUrl: string;

  before(async () => {
    browser = await launchBrowser();
    server = await serveTraces([fixture]);
    app = await openApp(browser, server.url);
    await app.page.setViewportSize({ width: 1440, height: 900 });
    await openRunFromList(app.page, session);
    runUrl = app.page.url();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('the first screen shows the prompt, model calls, tool calls and results, and says how much bookkeeping it hides', async () => {
    const { page } = app;
    await saveScreenshot(page, 'timeline-noise-first-screen');
    const onScreen = await rowsOnScreen(page);
    const lanes = new Set(onScreen.map((row) => row.lane));
    for (const lane of ['input', 'model', 'result']) assert.ok(lanes.has(lane), `no ${lane} row on the first screen: ${JSON.stringify(onScreen)}`);
    assert.ok(
      onScreen.some((row) => row.calls > 0),
      'no tool call on the first screen',
    );
    // Not even the run's start, anchored to the first record that names the session (a hook's progress line), says "progress".
    assert.deepEqual(
      onScreen.filter((row) => /progress|file-history-snapshot|stop_hook_summary/.test(row.text)),
      [],
    );
    // The user's prompt (line 5) follows the run's start directly: the 40 prompt-hook lines and the snapshots between are folded.
    assert.deepEqual(
      onScreen.slice(0, 3).map((row) => row.line),
      [2, 5, 47],
    );
    assert.equal(await rows(page).count(), 13);
    const bar = page.locator('[data-testid=bookkeeping-bar]');
    assert.equal((await bar.textContent())?.replace(/\s+/g, ' '), `${bookkeeping} bookkeeping events hidden · Show all events`);
    assert.deepEqual(app.problems, []);
  });

  test('"Show all events" lists every line in line order and puts ?all=1 in the URL; "Hide bookkeeping" folds them away again', async () => {
    const { page } = app;
    await page.goto(runUrl);
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    await page.locator('[data-testid=bookkeeping-toggle]').click();
    await page.locator('[data-testid=bookkeeping-bar][data-show-all=true]').waitFor();
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    assert.match(hashOf(page), /\?all=1$/);
    assert.match((await page.locator('[data-testid=bookkeeping-bar]').textContent()) ?? '', /Showing all events, 389 bookkeeping events included/);
    // Scrolled through, every row comes in line order (the derived run_end last, on its anchor line).
    const timeline = page.locator('[data-testid=timeline]');
    assert.equal(await timeline.getAttribute('aria-rowcount'), String(13 + bookkeeping));
    const first = await rowsOnScreen(page);
    assert.ok(
      first.some((row) => row.text.includes('progress/hook_progress')),
      'bookkeeping rows are listed',
    );
    // Every row, read as the virtualized list renders it: the rows rendered so far, then the last of them
    // scrolled into view and the next one waited for, until the end of the run.
    const lineAt = new Map<number, number>();
    const lastIndex = 13 + bookkeeping + 1;
    for (;;) {
      const rendered = await page.locator('.timeline-slot:has([data-testid=timeline-row])').evaluateAll((slots) =>
        slots.map((slot) => ({
          index: Number(slot.getAttribute('aria-rowindex')),
          type: slot.firstElementChild?.getAttribute('data-type') ?? '',
          line: Number(slot.firstElementChild?.getAttribute('data-line')),
        })),
      );
      for (const row of rendered) if (row.type !== 'run_end') lineAt.set(row.index, row.line);
      const furthest = Math.max(...rendered.map((row) => row.index));
      if (furthest >= lastIndex) break;
      await page.locator(`.timeline-slot[aria-rowindex="${furthest}"]`).scrollIntoViewIfNeeded();
      await page.locator(`.timeline-slot[aria-rowindex="${furthest + 1}"] [data-testid=timeline-row]`).waitFor();
    }
    assert.equal(lineAt.size, 13 + bookkeeping - 1);
    const lines = [...lineAt].sort(([a], [b]) => a - b).map(([, line]) => line);
    const outOfOrder = lines.filter((line, index) => index > 0 && line < lines[index - 1]!);
    assert.deepEqual(outOfOrder, []);
    // A reload keeps the choice: it is the URL's.
    await page.reload();
    await page.locator('[data-testid=bookkeeping-bar][data-show-all=true]').waitFor();
    await page.locator('[data-testid=bookkeeping-toggle]').click();
    await page.locator('[data-testid=bookkeeping-bar][data-show-all=false]').waitFor();
    assert.doesNotMatch(hashOf(page), /all=1/);
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    assert.equal(await rows(page).count(), 13);
    assert.deepEqual(app.problems, []);
  });

  test('j steps over the rows shown: each step opens on its first row that is not bookkeeping', async () => {
    const { page } = app;
    await page.goto(runUrl);
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    // Before the first model call: the run's start, not the snapshot on line 1.
    await page.keyboard.press('j');
    await page.locator('[data-testid=timeline-row][data-selected=true][data-step="0"]').waitFor();
    assert.equal(await selectedRow(page).getAttribute('data-type'), 'run_start');
    await page.keyboard.press('j');
    await page.locator('[data-testid=timeline-row][data-selected=true][data-step="1"]').waitFor();
    assert.equal(await selectedRow(page).getAttribute('data-type'), 'model_response');
    await page.keyboard.press('j');
    await page.locator('[data-testid=timeline-row][data-selected=true][data-step="2"]').waitFor();
    assert.equal(await selectedRow(page).getAttribute('data-type'), 'model_response');
    assert.deepEqual(app.problems, []);
  });

  test('a link to a hidden bookkeeping event opens it with every event shown', async () => {
    const { page } = app;
    // Find a progress event's id with everything shown, then follow a link to it without ?all=1.
    await page.goto(`${runUrl}?all=1`);
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    const progress = page.locator('[data-testid=timeline-row][data-type=unknown]', { hasText: 'progress/hook_progress' }).first();
    const eventId = await progress.getAttribute('data-event-id');
    assert.ok(eventId);
    await page.goto(`${runUrl}/event/${eventId}`);
    await page.locator(`[data-testid=timeline-row][data-selected=true][data-event-id="${eventId}"]`).waitFor();
    assert.match(hashOf(page), new RegExp(`/event/${eventId}\\?all=1$`));
    await page.locator(`[data-testid=event-inspector][data-event-id="${eventId}"]`).waitFor();
    assert.deepEqual(app.problems, []);
  });

  test('the waterfall draws each model and tool call; a bar selects its row and the selected row lights its bar', async () => {
    const { page } = app;
    await page.goto(runUrl);
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    await page.locator('[data-testid=waterfall][data-state=ready]').waitFor();
    const canvas = (kind: 'model' | 'tool') => page.locator(`[data-testid=waterfall-canvas][data-kind=${kind}]`);
    assert.equal(await canvas('model').getAttribute('data-bars'), '5');
    assert.equal(await canvas('tool').getAttribute('data-bars'), '5');
    // What is drawn, read from the canvas's pixels: five model bars, four tool bars and the failed one.
    const model = await barsDrawn(page, 'model', '--accent');
    const tools = await barsDrawn(page, 'tool', '--ok');
    const failed = await barsDrawn(page, 'tool', '--error');
    assert.equal(model.length, 5, `model bars drawn: ${JSON.stringify(model)}`);
    assert.equal(tools.length + failed.length, 5, `tool bars drawn: ${JSON.stringify([...tools, ...failed])}`);
    // Read and Grep ran in parallel: side by side, on two tracks.
    assert.equal(new Set([...tools, ...failed].map((bar) => bar.y)).size, 2, `tool tracks: ${JSON.stringify([...tools, ...failed])}`);
    assert.equal(await canvas('tool').getAttribute('data-tracks'), '2');

    // The failed test run's bar names itself when hovered and opens its result when clicked.
    assert.equal(failed.length, 1);
    const bar = failed[0]!;
    assert.equal(bar.alpha < 255, true, 'a bar not selected is toned down');
    await page.mouse.move(bar.x, bar.y);
    assert.match((await canvas('tool').getAttribute('title')) ?? '', /· failed$/);
    await page.mouse.click(bar.x, bar.y);
    await selectedRow(page).waitFor();
    const eventId = await selectedRow(page).getAttribute('data-event-id');
    assert.match(hashOf(page), new RegExp(`/event/${eventId}$`));
    assert.equal(await selectedRow(page).getAttribute('data-type'), 'tool_result');
    assert.equal(await selectedRow(page).locator('.chip-error').count(), 1);
    await page.locator(`[data-testid=waterfall-canvas][data-kind=tool][data-selected-event-id="${eventId}"]`).waitFor();
    const [lit] = await barsDrawn(page, 'tool', '--error');
    assert.equal(lit?.alpha, 255, 'the selected bar is drawn in full colour');

    // Selecting a model call's row lights its bar, and only its.
    const response = page.locator('[data-testid=timeline-row][data-type=model_response][data-step="4"]');
    const responseId = await response.getAttribute('data-event-id');
    await response.click();
    await page.locator(`[data-testid=waterfall-canvas][data-kind=model][data-selected-event-id="${responseId}"]`).waitFor();
    assert.equal(await canvas('tool').getAttribute('data-selected-event-id'), '');
    assert.deepEqual(
      (await barsDrawn(page, 'model', '--accent')).map((drawn) => drawn.alpha).sort((a, b) => a - b),
      [217, 217, 217, 217, 255],
      'one model bar in full colour',
    );
    await saveScreenshot(page, 'timeline-noise-waterfall');
    assert.deepEqual(app.problems, []);
  });
});
