/**
 * What following a file costs (`npx tsx scripts/bench-follow.ts [--steps 1000,10000,50000] [--ui]`):
 * for one running run of N steps (a call and its result each), the time from appending one line to
 * the engine reporting it stored and analyzed, against reading the whole file again — what a viewer
 * without incremental ingest would do for every append. Both measured in this run, on this machine.
 * With `--ui`, also append → the line's row on screen: `loopscope serve` following the file and
 * Debian's Chromium showing the run, as test/e2e/live.test.ts does (which asserts the rows appear,
 * not how fast: timing belongs here).
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { openTrace } from '../src-main/engine/engine';
import { openApp, serveTraceFile } from '../devkit/browser';

const analysis = { window: 6, threshold: 3 };
const appendsPerSize = 7;

const line = (fields: Record<string, unknown>): string => `${JSON.stringify({ run_id: 'live', ...fields })}\n`;
const call = (step: number): string =>
  line({
    type: 'model_response',
    step,
    outcome: 'tool_calls',
    finish_reason: 'tool_calls',
    tool_calls: [{ call_id: `c${step}`, name: 'run_tests', arguments: `{"attempt":${step}}` }],
  });
const result = (step: number): string => line({ type: 'tool_result', step, call_id: `c${step}`, status: 'ok', output: `attempt ${step}: 3 passed, 1 failed` });

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(steps: number, dir: string): Promise<{ steps: number; events: number; reread: number; append: number; worstAppend: number }> {
  const path = join(dir, `live-${steps}.jsonl`);
  const chunks: string[] = [line({ type: 'run_start' })];
  for (let step = 1; step <= steps; step += 1) chunks.push(call(step), result(step));
  writeFileSync(path, chunks.join(''));

  // Reading the whole file again, as the app's ingest does it (with the search index), in a fresh cache.
  const rereadStarted = performance.now();
  await (await openTrace(path, { cacheDir: join(dir, `reread-${steps}`), analysis, searchIndex: true })).stop();
  const reread = performance.now() - rereadStarted;

  let stored: (() => void) | null = null;
  const trace = await openTrace(path, {
    cacheDir: join(dir, `follow-${steps}`),
    analysis,
    searchIndex: true,
    follow: {
      idleMs: 600_000,
      onFollowed: () => stored?.(),
      onReplaced: (reason) => console.error(`unexpected: replaced (${reason})`),
      onStopped: (reason) => console.error(`unexpected: stopped (${reason})`),
    },
  });
  const appends: number[] = [];
  try {
    for (let index = 0; index < appendsPerSize; index += 1) {
      const step = steps + 1 + index;
      const done = new Promise<void>((resolve) => (stored = resolve));
      const started = performance.now();
      appendFileSync(path, index % 2 === 0 ? call(step) : result(step - 1));
      await done;
      appends.push(performance.now() - started);
    }
  } finally {
    await trace.stop();
  }
  return { steps, events: 1 + 2 * steps, reread, append: median(appends), worstAppend: Math.max(...appends) };
}

/** Append → row on screen in the browser, `appendsPerSize` times; the page follows the run's end (`f`). */
async function measureOnScreen(steps: number): Promise<{ events: number; median: number; worst: number }> {
  const chunks: string[] = [line({ type: 'run_start' })];
  for (let step = 1; step <= steps; step += 1) chunks.push(call(step), result(step));
  const served = await serveTraceFile('live.jsonl', chunks.join(''), { idleAfterSeconds: 600 });
  try {
    const { page } = await openApp(served.browser, served.served.url);
    await page.locator('[data-testid=run-row][data-run-id="live"]').click();
    await page.locator('[data-testid=run-view][data-state=ready][data-run-id="live"]').waitFor();
    let events = 1 + 2 * steps;
    const shown = (page: Page, count: number) => page.locator(`[data-testid=timeline][aria-rowcount="${count}"]`).waitFor({ timeout: 60_000 });
    await shown(page, events);
    const appends: number[] = [];
    for (let index = 0; index < appendsPerSize; index += 1) {
      const step = steps + 1 + index;
      const started = performance.now();
      appendFileSync(served.path, index % 2 === 0 ? call(step) : result(step - 1));
      events += 1;
      await shown(page, events);
      appends.push(performance.now() - started);
    }
    return { events: 1 + 2 * steps, median: median(appends), worst: Math.max(...appends) };
  } finally {
    await served.close();
  }
}

const { values } = parseArgs({ options: { steps: { type: 'string', default: '1000,10000,50000' }, ui: { type: 'boolean', default: false } } });
const sizes = values.steps.split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'loopscope-bench-follow-'));
try {
  console.log('one running run; one line appended at a time; append → stored and analyzed, vs the whole file read again');
  console.log('events     | read again | append (median) | append (worst) | append / read again');
  for (const steps of sizes) {
    const m = await measure(steps, dir);
    console.log(
      `${String(m.events).padEnd(10)} | ${`${Math.round(m.reread)} ms`.padEnd(10)} | ${`${Math.round(m.append)} ms`.padEnd(15)} | ${`${Math.round(m.worstAppend)} ms`.padEnd(14)} | ${(m.append / m.reread).toFixed(3)}`,
    );
  }
  if (values.ui) {
    console.log('\nthe same appends through `loopscope serve` and Chromium: append → the row on screen');
    console.log('events     | on screen (median) | on screen (worst)');
    for (const steps of sizes) {
      const m = await measureOnScreen(steps);
      console.log(`${String(m.events).padEnd(10)} | ${`${Math.round(m.median)} ms`.padEnd(18)} | ${Math.round(m.worst)} ms`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
