/**
 * How the request diff view copes with a very long changed message (issue 5): a run whose second
 * request resends a 2 MB tool result with a few words edited, opened with `d` in the app served by
 * `loopscope serve`, in headless Chromium. Prints, per case:
 *
 * - time from the `d` key to the diff on screen (the view's `loopscope:diff-shown` mark), split
 *   into the API's answer (`loopscope:diff-loaded`) and the word diff + render after it;
 * - the longest task on the page's main thread meanwhile, from a Chromium trace (every `RunTask`
 *   of the renderer's main thread), against the 16.7 ms (60 fps) and 50 ms (long task) budgets,
 *   split at the `loopscope:diff-loaded` mark (before: the API's answer arriving and its first
 *   render; after: the word diff and its render), and the `longtask` entries the page observed.
 *
 * Cases: the diff as the API serves it — of a 2 MB multi-line text it sends the changed lines with
 * context; of a single 2 MB line, the changed words with some characters around them
 * (src-main/api/changedText.ts) — and, as a stress test, the same view given the full
 * 2 MB texts (the bench swaps them into the API's answer). Needs the build (`npm run build`) and
 * Debian's chromium.
 *
 *   npx tsx scripts/bench-request-diff.ts [--runs N]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, serveTraces, type ServedTraces } from '../devkit/browser';
import { Prng } from '../devkit/traceGenerators/prng';
import { sentence } from '../devkit/traceGenerators/vocabulary';

const runsArgument = process.argv.indexOf('--runs');
const repetitions = runsArgument === -1 ? 3 : Math.max(1, Number(process.argv[runsArgument + 1]) || 3);
const targetBytes = 2 * 1024 * 1024;

/** About 2 MB of log-like lines, and the same text with a few words replaced. */
function texts(): { before: string; after: string; edits: number } {
  const rng = new Prng('bench-request-diff');
  const lines: string[] = [];
  let size = 0;
  while (size < targetBytes) {
    const line = `${lines.length + 1}: ${sentence(rng, 8, 20)}`;
    lines.push(line);
    size += line.length + 1;
  }
  const before = lines.join('\n');
  // One edit inside the first 64 KiB (what the API sends), the rest spread over the text.
  const positions = [0.01, 0.25, 0.5, 0.75, 0.99].map((fraction) => Math.floor(before.length * fraction));
  let after = before;
  for (const position of positions.reverse()) {
    const start = after.indexOf(' ', position) + 1;
    const end = after.indexOf(' ', start);
    after = `${after.slice(0, start)}EDITED${after.slice(end)}`;
  }
  return { before, after, edits: positions.length };
}

function trace(before: string, after: string): string {
  const run_id = 'long-message';
  const ts = (second: number) => new Date(Date.UTC(2025, 5, 3, 10, 0, second)).toISOString();
  const system = { role: 'system', content: 'You read log files and summarize them.' };
  const user = { role: 'user', content: 'Summarize server.log.' };
  const call = {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"server.log"}' } }],
  };
  const events = [
    { type: 'run_start', run_id, ts: ts(0) },
    {
      type: 'model_request',
      run_id,
      step: 1,
      ts: ts(1),
      model: 'gpt-4.1',
      messages: [system, user, call, { role: 'tool', tool_call_id: 'call_1', content: before }],
    },
    { type: 'model_response', run_id, step: 1, ts: ts(2), outcome: 'final', finish_reason: 'stop', text: 'Mostly routine.' },
    {
      type: 'model_request',
      run_id,
      step: 2,
      ts: ts(3),
      model: 'gpt-4.1',
      messages: [system, user, call, { role: 'tool', tool_call_id: 'call_1', content: after }, { role: 'user', content: 'And the errors?' }],
    },
    { type: 'model_response', run_id, step: 2, ts: ts(4), outcome: 'final', finish_reason: 'stop', text: 'None.' },
    { type: 'run_end', run_id, ts: ts(5), status: 'completed' },
  ];
  return events.map((event) => JSON.stringify(event)).join('\n') + '\n';
}

/** Watches the page's own long tasks from its first script on (an init script is not subject to the page's CSP). */
const observeLongTasks = `
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, duration: entry.duration }); })
    .observe({ type: 'longtask', buffered: true });
`;

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  args?: { name?: string };
}

interface MainThreadTasks {
  /** Every task's duration (ms), longest first. */
  all: number[];
  /**
   * The longest task that ended before the view's `loopscope:diff-loaded` mark (set once the view
   * rendered the API's answer): the answer's arrival, its JSON, its validation and that render.
   */
  beforeAnswer: number;
  /** The longest task from that mark on: the word diffs' round trip to the worker and their render. */
  afterAnswer: number;
}

/** The tasks the renderer's main thread ran (`RunTask`), split at the view's `loopscope:diff-loaded` mark. */
function mainThreadTasks(traceJson: Buffer): MainThreadTasks {
  const parsed = JSON.parse(traceJson.toString('utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const mainThreads = new Set(
    events
      .filter((event) => event.ph === 'M' && event.name === 'thread_name' && event.args?.name === 'CrRendererMain')
      .map((event) => `${event.pid}:${event.tid}`),
  );
  const tasks = events.filter((event) => event.ph === 'X' && event.name === 'RunTask' && mainThreads.has(`${event.pid}:${event.tid}`));
  const loaded = events.find((event) => event.name === 'loopscope:diff-loaded')?.ts ?? Number.POSITIVE_INFINITY;
  const longest = (selected: TraceEvent[]) => Math.max(0, ...selected.map((event) => (event.dur ?? 0) / 1000));
  return {
    all: tasks.map((event) => (event.dur ?? 0) / 1000).sort((a, b) => b - a),
    beforeAnswer: longest(tasks.filter((event) => event.ts + (event.dur ?? 0) <= loaded)),
    afterAnswer: longest(tasks.filter((event) => event.ts + (event.dur ?? 0) > loaded)),
  };
}

interface Measurement {
  toShown: number;
  apiAnswer: number;
  diffAndRender: number;
  longestTask: number;
  longestBeforeAnswer: number;
  longestAfterAnswer: number;
  over16: number;
  over50: number;
  longTasks: number;
  method: string;
  thread: string;
  ins: number;
  /** Size of the API's answer as the page received it (before a swap); 0 when the browser does not say. */
  answerBytes: number;
}

async function measure(browser: Browser, page: Page, requestRow: string): Promise<Measurement> {
  // The run view, the second request selected (its inspector loaded), nothing else going on.
  await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
  await page.locator(requestRow).click();
  await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
  await page.evaluate('performance.clearMarks(); performance.clearMeasures(); window.__longTasks.length = 0;');
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing'] });
  const pressed = await page.evaluate(() => performance.now());
  await page.keyboard.press('d');
  await page.locator('[data-testid=request-diff][data-state=ready]').waitFor({ timeout: 120_000 });
  // Two frames later: what was shown has been painted.
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
  const traceJson = await browser.stopTracing();
  if (process.env['BENCH_DIFF_TRACE_DIR']) writeFileSync(join(process.env['BENCH_DIFF_TRACE_DIR'], `trace-${Date.now()}.json`), traceJson);
  const tasks = mainThreadTasks(traceJson);
  // Page code as strings: tsx would wrap a function's inner arrows in a helper the page lacks.
  const figures = (await page.evaluate(`(() => {
    const mark = (name) => performance.getEntriesByName(name, 'mark').at(-1)?.startTime ?? Number.NaN;
    const diff = document.querySelector('[data-testid=message-diff]');
    return {
      loaded: mark('loopscope:diff-loaded'),
      shown: mark('loopscope:diff-shown'),
      longTasks: window.__longTasks.length,
      method: diff?.getAttribute('data-method') ?? diff?.getAttribute('data-state') ?? 'none',
      thread: diff?.getAttribute('data-thread') ?? '—',
      ins: diff?.querySelectorAll('ins').length ?? 0,
      answerBytes: performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/api/requestDiff')).at(-1)?.decodedBodySize ?? 0,
    };
  })()`)) as { loaded: number; shown: number; longTasks: number; method: string; thread: string; ins: number; answerBytes: number };
  // Back to the run for the next repetition.
  await page.keyboard.press('Escape');
  return {
    toShown: figures.shown - pressed,
    apiAnswer: figures.loaded - pressed,
    diffAndRender: figures.shown - figures.loaded,
    longestTask: tasks.all[0] ?? 0,
    longestBeforeAnswer: tasks.beforeAnswer,
    longestAfterAnswer: tasks.afterAnswer,
    over16: tasks.all.filter((duration) => duration > 1000 / 60).length,
    over50: tasks.all.filter((duration) => duration > 50).length,
    longTasks: figures.longTasks,
    method: figures.method,
    thread: figures.thread,
    ins: figures.ins,
    answerBytes: figures.answerBytes,
  };
}

type Swap = ((body: Record<string, unknown>) => void) | null;

/** Replaces the modified message's texts in the API's answer (the API cuts them at 64 KiB). */
function swapTexts(before: string, after: string): Swap {
  return (body) => {
    const changes = body['changes'] as { status: string; previousText: string | null; nextText: string | null }[];
    const modified = changes.find((change) => change.status === 'modified');
    if (!modified) throw new Error('the API found no modified message to swap the texts of');
    modified.previousText = before;
    modified.nextText = after;
  };
}

const format = (ms: number) => `${ms.toFixed(1)} ms`;
const budgets = (ms: number) => `${ms <= 1000 / 60 ? 'within' : 'over'} 16.7 ms, ${ms <= 50 ? 'within' : 'over'} 50 ms`;

async function main(): Promise<void> {
  const { before, after, edits } = texts();
  const dir = mkdtempSync(join(tmpdir(), 'loopscope-bench-diff-'));
  const multiLine = join(dir, 'long-message.jsonl');
  writeFileSync(multiLine, trace(before, after));
  const singleLine = join(dir, 'long-line.jsonl');
  writeFileSync(singleLine, trace(before.replaceAll('\n', ' '), after.replaceAll('\n', ' ')));
  console.log(
    `Request diff benchmark: one tool result of ${(before.length / 1024 / 1024).toFixed(2)} MB (${before.split('\n').length} lines) with ${edits} words edited, ${repetitions} runs per case.`,
  );
  const servers = { multiLine: await serveTraces([multiLine]), singleLine: await serveTraces([singleLine]) };
  const browser = await launchBrowser();
  const cases: { name: string; server: ServedTraces; swap: Swap }[] = [
    { name: 'as served: 2 MB multi-line text (the API sends the changed lines with context)', server: servers.multiLine, swap: null },
    { name: 'as served: one 2 MB line (the API sends the changed words with context)', server: servers.singleLine, swap: null },
    { name: 'stress: the full 2 MB texts forced into the answer, multi-line', server: servers.multiLine, swap: swapTexts(before, after) },
  ];
  try {
    for (const { name, server, swap } of cases) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      await page.addInitScript({ content: observeLongTasks });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      if (swap) {
        await page.route('**/api/requestDiff', async (route) => {
          const response = await route.fetch();
          const body = (await response.json()) as Record<string, unknown>;
          swap(body);
          await route.fulfill({ response, body: JSON.stringify(body) });
        });
      }
      await page.goto(server.url);
      await page.locator('[data-testid=run-row]').first().click();
      const results: Measurement[] = [];
      for (let run = 0; run < repetitions; run += 1) results.push(await measure(browser, page, '[data-testid=timeline-row][data-type=model_request] >> nth=1'));
      await context.close();
      if (errors.length > 0) throw new Error(`the page failed: ${errors.join('; ')}`);
      console.log(
        `\n${name} — API answer ${(results[0]!.answerBytes / 1024).toFixed(0)} KiB${swap ? ' (after the swap)' : ''} (${results[0]!.method}, in the ${results[0]!.thread === 'worker' ? 'diff worker' : results[0]!.thread}, ${results[0]!.ins} insertions shown)`,
      );
      results.forEach((result, run) => {
        console.log(
          `  run ${run + 1}${run === 0 ? ' (cold worker)' : ''}: d → diff shown ${format(result.toShown)} (API answer ${format(result.apiAnswer)}, word diff + render ${format(result.diffAndRender)}); ` +
            `longest main-thread task ${format(result.longestTask)} — ${budgets(result.longestTask)} ` +
            `(up to the answer's first render — fetch, JSON, validation, the view: ${format(result.longestBeforeAnswer)}; ` +
            `after it — the word diff's round trip to the worker and its render: ${format(result.longestAfterAnswer)}, ${budgets(result.longestAfterAnswer)}); ` +
            `tasks over 16.7 ms: ${result.over16}, over 50 ms: ${result.over50}; page longtask entries: ${result.longTasks}`,
        );
      });
    }
  } finally {
    await browser.close();
    await servers.multiLine.stop();
    await servers.singleLine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
