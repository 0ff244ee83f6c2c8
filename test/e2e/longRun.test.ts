/**
 * A run longer than a browser can lay out, in the app: `loopscope serve` on one run of 50,000
 * events (devkit/traceGenerators/longRunTrace.ts), Debian's Chromium. At ~46 px a row, a million rows
 * would be 46M px, past Chromium's ~33.5M px limit on an element's height; the timeline lays out a
 * window of 5,000 rows, moves it as the viewport nears an edge, and offers a slider over the whole
 * run. These tests cross the window's edges.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { generateLongRunTrace, type LongRunStats } from '../../devkit/traceGenerators/longRunTrace';
import { launchBrowser, openApp, serveTraces, waitForPage, type AppPage, type ServedTraces } from '../../devkit/browser';

const events = 50_000;

describe('a run of 50,000 events in the browser', { timeout: 240_000 }, () => {
  let dir: string;
  let stats: LongRunStats;
  let served: ServedTraces;
  let browser: Browser;
  let app: AppPage;
  let runUrl: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'loopscope-long-run-'));
    const path = join(dir, 'long-run.jsonl');
    stats = generateLongRunTrace({ events, seed: 7, outPath: path });
    served = await serveTraces([path]);
    browser = await launchBrowser();
    app = await openApp(browser, served.url);
    await app.page.locator('[data-testid=runs-view][data-state=ready]').waitFor({ timeout: 120_000 });
    await app.page.locator('[data-testid=run-row][data-run-id="long-run"]').click();
    await app.page.locator('[data-testid=run-view][data-state=ready][data-run-id="long-run"]').waitFor();
    runUrl = app.page
      .url()
      .split('#')[1]!
      .replace(/\/step\/.*$/, '');
  });

  after(async () => {
    // Stopped before asserting: a failed assertion must not leave the server and browser running.
    await browser?.close();
    await served?.stop();
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(app?.problems ?? [], []);
  });

  /** Follows an in-app link: the hash changes, the page stays. */
  async function goTo(page: Page, hash: string): Promise<void> {
    await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
  }

  /** The rows inside the timeline's viewport, in order, once every one of them has loaded. */
  async function visibleRows(page: Page): Promise<{ line: number; type: string; top: number }[]> {
    // In-page code as text: the test's TypeScript has no DOM types.
    const inView = `(() => {
      const timeline = document.querySelector('[data-testid=timeline]');
      const view = timeline.getBoundingClientRect();
      // Below the sticky lane header (30 px), at least in part.
      return (element) => { const box = element.getBoundingClientRect(); return box.bottom > view.top + 30 && box.top < view.bottom; };
    })()`;
    await waitForPage(
      page,
      `[...document.querySelectorAll('[data-testid=timeline] .timeline-slot')].filter(${inView}).every((slot) => !slot.querySelector('[aria-busy=true]'))`,
    );
    const read = async () =>
      (
        (await page.evaluate(
          `[...document.querySelectorAll('[data-testid=timeline-row]')].filter(${inView}).map((row) => ({ line: Number(row.dataset.line), type: row.dataset.type, top: row.getBoundingClientRect().top }))`,
        )) as { line: number; type: string; top: number }[]
      ).sort((a, b) => a.top - b.top);
    // Rows are placed by measured heights, and the waterfall above the timeline loads on its own:
    // read until two reads 250 ms apart agree, the layout the user sees once it has settled (at
    // 100 ms a loaded CI machine once gave two equal reads of a window still being laid out).
    let rows = await read();
    for (let attempt = 0; attempt < 40; attempt += 1) {
      await page.waitForTimeout(250);
      const again = await read();
      if (JSON.stringify(again) === JSON.stringify(rows)) break;
      rows = again;
    }
    return rows;
  }

  test('scrolling reaches every row: the window moves near its edge and the rows on screen stay put', async () => {
    const { page } = app;
    await goTo(page, runUrl);
    const scrollToBottom = () =>
      page.evaluate(`(() => { const element = document.querySelector('[data-testid=timeline]'); element.scrollTop = element.scrollHeight; })()`);
    const heights: number[] = [];
    let rows = await visibleRows(page);
    assert.equal(rows[0]?.line, 1);
    // Each scroll to the bottom moves the window on by half of it (2,500 rows): 20 moves, and a few to spare.
    for (let attempt = 0; attempt < 24 && rows.at(-1)?.type !== 'run_end'; attempt += 1) {
      await scrollToBottom();
      // The window moves (or, at the end, does not) a moment after the scroll; let it settle.
      await page.waitForTimeout(400);
      rows = await visibleRows(page);
      heights.push((await page.evaluate(`document.querySelector('[data-testid=timeline]').scrollHeight`)) as number);
      const lines = rows.map((row) => row.line);
      assert.ok(lines.length > 5, `rows on screen after scroll ${attempt}: ${lines.join(', ')}`);
      // One run, one event per line: the rows on screen are consecutive lines, none skipped.
      assert.deepEqual(
        lines,
        lines.map((_, i) => lines[0]! + i),
        `consecutive rows after scroll ${attempt}`,
      );
      if (attempt === 0) {
        // The first scroll went to the bottom of the first window (rows up to 5,000): that is
        // what stays on screen when the window moves on.
        assert.ok(lines[0]! > 4_950 && lines[0]! <= 5_000, `still at the first window's end: line ${lines[0]}`);
      }
    }
    assert.equal(rows.at(-1)?.type, 'run_end', 'the last event of the run is reachable by scrolling');
    assert.equal(rows.at(-1)?.line, stats.lines);
    // A window of 5,000 rows (~230k px), not the run's 50,000 (~2.3M px): what keeps a million-row
    // run far below the browser's limit.
    assert.ok(Math.max(...heights) < 400_000, `the scrolled height is one window's: ${heights.join(', ')} px`);
  });

  test('the position slider spans the whole run: its middle shows the middle, its end the run end', async () => {
    const { page } = app;
    await goTo(page, runUrl);
    const slider = page.locator('[data-testid=timeline-position]');
    for (const fraction of [0.5, 1, 0]) {
      // One event per line: event i (from 0) is on line i + 1.
      const index = Math.floor((stats.lines - 1) * fraction);
      const expectLine = index + 1;
      await slider.fill(String(index));
      await page.waitForTimeout(300);
      const rows = await visibleRows(page);
      const lines = rows.map((row) => row.line);
      assert.ok(lines.includes(expectLine), `slider at ${fraction * 100} %: line ${expectLine} on screen (${lines[0]}–${lines.at(-1)})`);
    }
  });

  test('scrolling on, the next rows are loaded before they come into view', async () => {
    const { page } = app;
    await goTo(page, runUrl);
    // Events come in pages of 100: with row 60 at the top, the rows rendered end before row 100,
    // and four screens further down (of ~10 rows each) are rows of the next page.
    await page.locator('[data-testid=timeline-position]').fill('60');
    const rows = await visibleRows(page);
    assert.ok(rows[0]!.line <= 62 && rows.at(-1)!.line < 100, `rows ${rows[0]?.line}–${rows.at(-1)?.line} on screen`);
    // Four screens down, then the frame that shows them: no row on screen is still loading.
    const shown = (await page.evaluate(`new Promise((resolve) => {
      const timeline = document.querySelector('[data-testid=timeline]');
      timeline.scrollTop += 4 * timeline.clientHeight;
      requestAnimationFrame(() => {
        const view = timeline.getBoundingClientRect();
        const onScreen = [...timeline.querySelectorAll('.timeline-slot')].filter((slot) => {
          const box = slot.getBoundingClientRect();
          return box.bottom > view.top + 30 && box.top < view.bottom;
        });
        resolve({
          loading: onScreen.filter((slot) => slot.querySelector('[aria-busy=true]')).length,
          lines: onScreen.map((slot) => Number(slot.querySelector('[data-testid=timeline-row]')?.dataset.line)).filter((line) => line > 0),
        });
      });
    })`)) as { loading: number; lines: number[] };
    assert.equal(shown.loading, 0, `rows still loading on screen, after lines ${shown.lines.join(', ')}`);
    assert.ok(Math.max(...shown.lines) > 100, `scrolled into the next page: lines ${shown.lines.join(', ')}`);
  });

  test('a step anywhere in the run is one jump away, and j/k go on from it', async () => {
    const { page } = app;
    const selected = (step: number) => page.locator(`[data-testid=timeline-row][data-selected=true][data-step="${step}"]`);
    for (const step of [stats.steps, Math.floor(stats.steps / 2), 3]) {
      await goTo(page, `${runUrl}/step/${step}`);
      await selected(step).waitFor();
      assert.ok(await selected(step).isVisible(), `step ${step} is on screen`);
    }
    await page.keyboard.press('j');
    await selected(4).waitFor();
    await goTo(page, `${runUrl}/step/${stats.rareStep}`);
    await selected(stats.rareStep).waitFor();
    await page.keyboard.press('k');
    await selected(stats.rareStep - 1).waitFor();
  });

  test('a result far into the run still links to its call: calls come with each page of events', async () => {
    const { page } = app;
    await goTo(page, `${runUrl}/step/${stats.steps - 10}`);
    const result = page.locator(`[data-testid=timeline-row][data-type=tool_result][data-step="${stats.steps - 10}"]`).first();
    await result.waitFor();
    await result.locator('[data-testid=link-to-call]').waitFor();
    assert.match((await result.locator('[data-testid=link-to-call]').textContent()) ?? '', /← call (read_file|grep|run_tests|list_dir|edit_file)/);
  });
});
