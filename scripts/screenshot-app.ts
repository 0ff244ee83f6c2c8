/**
 * The README's screenshots of the app (docs/images/app-runs.png, app-run.png, app-diff.png,
 * app-growth.png, app-live.png, app-library.png): every bundled example concatenated into one trace, and for the growth chart a
 * generated Claude Code-like run with one 40 KB tool result, served by `loopscope serve` and shot
 * in headless Chromium. Needs the build (`npm run build`) and Debian's chromium.
 *
 *   npx tsx scripts/screenshot-app.ts
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser, serveTraces } from '../devkit/browser';
import { repoRoot } from '../devkit/repoPaths';

const root = repoRoot;
const examplesDir = join(root, 'examples');
const imagesDir = join(root, 'docs', 'images');

// One trace with a run per example (their run ids differ), so the table shows every status.
const dir = mkdtempSync(join(tmpdir(), 'loopscope-shot-'));
const trace = join(dir, 'support-agent.jsonl');
// Only the canonical examples: one in another format (its expected report names it) would not read as part of this trace.
const isCanonical = (name: string): boolean =>
  (JSON.parse(readFileSync(join(examplesDir, 'expected', name.replace(/\.jsonl$/, '.json')), 'utf8')) as { format?: string }).format === undefined;
const examples = readdirSync(examplesDir)
  .filter((name) => name.endsWith('.jsonl') && isCanonical(name))
  .sort();
writeFileSync(trace, examples.map((name) => readFileSync(join(examplesDir, name), 'utf8').replace(/\r?\n?$/, '\n')).join(''));

const server = await serveTraces([trace]);
const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 760 }, deviceScaleFactor: 1, colorScheme: 'light' });
  await page.goto(server.url);
  await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
  await page.screenshot({ path: join(imagesDir, 'app-runs.png') });
  console.log('wrote docs/images/app-runs.png');

  await page.locator('[data-testid=run-row][data-run-id="dangling-call"]').click();
  await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
  await page.keyboard.press('n');
  await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
  // No hover highlight left over from the click.
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(imagesDir, 'app-run.png') });
  console.log('wrote docs/images/app-run.png');
} finally {
  await browser.close();
  await server.stop();
}

/** Serves one trace and opens its first run in a fresh page. */
async function shootFirstRun(file: string, height: number, shoot: (page: Page) => Promise<void>, serve: { idleAfterSeconds?: number } = {}): Promise<void> {
  const served = await serveTraces([file], serve);
  const chromium = await launchBrowser();
  try {
    const page = await chromium.newPage({ viewport: { width: 1440, height }, deviceScaleFactor: 1, colorScheme: 'light' });
    await page.goto(served.url);
    await page.locator('[data-testid=run-row]').first().click();
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    await shoot(page);
    await page.mouse.move(0, 0);
  } finally {
    await chromium.close();
    await served.stop();
  }
}

// The third request of history-rewrite, reached with `d`: a context trimmer edited an earlier result.
await shootFirstRun(join(examplesDir, 'history-rewrite.jsonl'), 900, async (page) => {
  const third = page.locator('[data-testid=timeline-row][data-type=model_request]').nth(2);
  const eventId = await third.getAttribute('data-event-id');
  await third.click();
  await page.locator(`[data-testid=timeline-row][data-selected=true][data-event-id="${eventId}"]`).waitFor();
  await page.keyboard.press('d');
  await page.locator('[data-testid=request-diff][data-state=ready]').waitFor();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(imagesDir, 'app-diff.png') });
  console.log('wrote docs/images/app-diff.png');
});

/** A run of read/list/search calls whose usage is recorded, one read returning 40 KB: the turn the chart names. */
function growthRun(): string {
  const ts = (second: number) => new Date(Date.UTC(2025, 5, 3, 10, 0, second)).toISOString();
  const events: object[] = [{ type: 'run_start', run_id: 'fix-checkout-test', ts: ts(0), task: 'Why does the checkout test fail? Fix it.' }];
  let input = 2400;
  for (let step = 1; step <= 14; step++) {
    const big = step === 6;
    const name = big ? 'read_file' : ['list_dir', 'search_code', 'read_file'][step % 3]!;
    events.push({
      type: 'model_response',
      run_id: 'fix-checkout-test',
      step,
      ts: ts(step * 4),
      outcome: 'tool_calls',
      finish_reason: 'tool_calls',
      tool_calls: [{ call_id: `c${step}`, name, arguments: JSON.stringify({ path: big ? 'fixtures/orders.json' : `src/checkout/${step}.ts` }) }],
      usage: { input_tokens: input, cached_input_tokens: Math.max(0, input - 400), output_tokens: 60 + step * 3 },
    });
    const output = big ? 'x'.repeat(40_000) : `line of ${name} output `.repeat(40 + step * 5);
    events.push({ type: 'tool_result', run_id: 'fix-checkout-test', step, ts: ts(step * 4 + 2), call_id: `c${step}`, name, output });
    input += Math.ceil(output.length / 4) + 80;
  }
  events.push({
    type: 'model_response',
    run_id: 'fix-checkout-test',
    step: 15,
    ts: ts(70),
    outcome: 'final',
    finish_reason: 'stop',
    text: 'Fixed: the fixture had a stale currency.',
    usage: { input_tokens: input, output_tokens: 40 },
  });
  events.push({ type: 'run_end', run_id: 'fix-checkout-test', ts: ts(71), status: 'completed' });
  return events.map((event) => JSON.stringify(event)).join('\n') + '\n';
}

const growthTrace = join(dir, 'fix-checkout-test.jsonl');
writeFileSync(growthTrace, growthRun());
await shootFirstRun(growthTrace, 900, async (page) => {
  await page.locator('[data-testid=run-section-requests]').click();
  await page.locator('[data-testid=requests-panel][data-state=ready]').waitFor();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(imagesDir, 'app-growth.png') });
  console.log('wrote docs/images/app-growth.png');
});
// A loop still running: its file followed, a line appended while the run is shown, Follow new events on.
const liveTrace = join(dir, 'deploy-agent.jsonl');
const liveLine = (fields: object, second: number): string =>
  `${JSON.stringify({ run_id: 'deploy-staging', ts: new Date(Date.now() - 60_000 + second * 1000).toISOString(), ...fields })}\n`;
const liveStep = (step: number, name: string, args: object, output: string): string =>
  liveLine(
    {
      type: 'model_response',
      step,
      outcome: 'tool_calls',
      finish_reason: 'tool_calls',
      tool_calls: [{ call_id: `c${step}`, name, arguments: JSON.stringify(args) }],
    },
    step * 3,
  ) + liveLine({ type: 'tool_result', step, call_id: `c${step}`, name, status: 'ok', output }, step * 3 + 1);
writeFileSync(
  liveTrace,
  liveLine({ type: 'run_start', task: 'Deploy the release branch to staging and check it is healthy.' }, 0) +
    liveStep(1, 'git_status', {}, 'On branch release/2.4, clean') +
    liveStep(2, 'run_tests', { suite: 'unit' }, '412 passed') +
    liveStep(3, 'build_image', { tag: 'api:2.4.0' }, 'built api:2.4.0 (182 MB)'),
);
await shootFirstRun(
  liveTrace,
  620,
  async (page) => {
    await page.keyboard.press('f');
    writeFileSync(
      liveTrace,
      liveLine(
        {
          type: 'model_response',
          step: 4,
          outcome: 'tool_calls',
          finish_reason: 'tool_calls',
          tool_calls: [{ call_id: 'c4', name: 'deploy', arguments: '{"env":"staging","image":"api:2.4.0"}' }],
        },
        12,
      ),
      { flag: 'a' },
    );
    await page.locator('[data-testid=timeline-row][data-line="8"] [data-testid=call-chip][data-call-state=pending]').waitFor();
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(imagesDir, 'app-live.png') });
    console.log('wrote docs/images/app-live.png');
  },
  { idleAfterSeconds: 600 },
);
// The bundled examples as a library: the start page of `loopscope serve examples/`.
const library = await serveTraces([examplesDir]);
const libraryBrowser = await launchBrowser();
try {
  const page = await libraryBrowser.newPage({ viewport: { width: 1440, height: 1180 }, deviceScaleFactor: 1, colorScheme: 'light' });
  await page.goto(library.url);
  await page.locator('[data-testid=library-status][data-state=idle]').waitFor({ timeout: 120_000 });
  await page.locator('[data-testid=library-aggregates][data-state=ready]').waitFor();
  await page.locator('[data-testid=library-signatures][data-state=ready]').waitFor();
  await page.locator('[data-testid=library-run]').first().waitFor();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(imagesDir, 'app-library.png') });
  console.log('wrote docs/images/app-library.png');
} finally {
  await libraryBrowser.close();
  await library.stop();
}

rmSync(dir, { recursive: true, force: true });
