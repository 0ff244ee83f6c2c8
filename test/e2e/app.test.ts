/**
 * The UI end to end: `loopscope serve` on the bundled examples, Debian's Chromium, a user's keys and
 * clicks. Every wait is on a readiness signal the app exposes (`data-state="ready"`, the selected
 * row, the URL), never on time.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp, saveScreenshot, serveTraces, type AppPage, type ServedTraces } from '../../devkit/browser';
import { example } from '../support/cli';
import { examplesDir } from '../../devkit/repoPaths';

interface ExpectedReport {
  runs: { run_id: string; status: string; status_raw: string; steps: number }[];
  findings: { kind: string; severity: string; run_id: string; step: number | null }[];
  parse_error_lines: number[];
}

function expected(name: string): ExpectedReport {
  return JSON.parse(readFileSync(join(examplesDir, 'expected', `${name}.json`), 'utf8')) as ExpectedReport;
}

/** Line `line` (1-based) of a file as written, without its line break. */
function fileLine(path: string, line: number): string {
  const text = readFileSync(path, 'utf8').split('\n')[line - 1];
  assert.ok(text !== undefined, `${path} has no line ${line}`);
  return text.replace(/\r$/, '');
}

const served = [
  'dangling-call',
  'broken-lines',
  'budget-exhausted',
  'repeated-action',
  'interleaved-runs',
  'normal-query',
  'tool-after-budget',
  'latency-sources',
];

async function openTrace(app: AppPage, url: string, name: string): Promise<void> {
  await app.page.goto(url);
  await app.page.locator('[data-testid=trace-item] a', { hasText: `${name}.jsonl` }).click();
  await app.page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
}

async function openRun(page: Page, runId: string): Promise<void> {
  await page.locator(`[data-testid=run-row][data-run-id="${runId}"]`).click();
  await page.locator(`[data-testid=run-view][data-state=ready][data-run-id="${runId}"]`).waitFor();
}

function hashOf(page: Page): string {
  return new URL(page.url()).hash;
}

function selectedRow(page: Page) {
  return page.locator('[data-testid=timeline-row][data-selected=true]');
}

describe('the browser UI served by loopscope serve', () => {
  let browser: Browser;
  let server: ServedTraces;
  const pages: AppPage[] = [];

  before(async () => {
    browser = await launchBrowser();
    server = await serveTraces(served.map(example));
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function newApp(options: { colorScheme?: 'light' | 'dark'; clipboard?: boolean } = {}): Promise<AppPage> {
    const app = await openApp(browser, server.url, options);
    pages.push(app);
    return app;
  }

  /** What must hold after every test: no page error, failed request, CSP violation or dialog. */
  function assertClean(app: AppPage): void {
    assert.deepEqual(app.problems, [], 'the page reported problems');
    assert.deepEqual(app.dialogs, [], 'the page opened dialogs');
  }

  test('the start screen lists the served traces; each opens on its runs with the expected statuses', async () => {
    const app = await newApp();
    // Ready, not just shown: the list of traces arrives after the screen.
    await app.page.locator('[data-testid=start-screen][data-state=ready]').waitFor();
    assert.equal(await app.page.locator('[data-testid=trace-item]').count(), served.length);
    await saveScreenshot(app.page, 'start-screen');
    for (const name of served) {
      await openTrace(app, server.url, name);
      const rows = app.page.locator('[data-testid=run-row]');
      const shown = await rows.evaluateAll((elements) =>
        elements.map((element) => ({
          runId: element.getAttribute('data-run-id'),
          status: element.getAttribute('data-status'),
          statusTitle: element.querySelector('[data-testid=run-status]')?.getAttribute('title') ?? '',
          standsOut: element.classList.contains('row-error'),
        })),
      );
      const report = expected(name);
      assert.deepEqual(
        shown.map(({ runId, status }) => ({ runId, status })),
        report.runs.map((run) => ({ runId: run.run_id, status: run.status })),
        `${name}: runs and statuses`,
      );
      for (const [index, run] of report.runs.entries()) {
        assert.ok(shown[index]?.statusTitle.includes(run.status_raw), `${name}: the raw status ${run.status_raw} is on hover`);
        const hasError = report.findings.some((finding) => finding.run_id === run.run_id && finding.severity === 'error');
        if (hasError) assert.ok(shown[index]?.standsOut, `${name}: ${run.run_id} has an error finding and stands out`);
      }
    }
    await openTrace(app, server.url, 'interleaved-runs');
    await saveScreenshot(app.page, 'runs-table');
    assertClean(app);
  });

  test('opening a trace asks for its runs together with its summary, not a round trip later', async () => {
    const app = await newApp();
    await app.page.locator('[data-testid=start-screen][data-state=ready]').waitFor();
    // The summary's answer is held until the runs are asked for: a page that asks for them only
    // once the summary arrived waits the whole grace time here and the test fails.
    let runsAsked = (): void => undefined;
    const runsSeen = new Promise<'runs first'>((resolve) => (runsAsked = () => resolve('runs first')));
    const order: Promise<'runs first' | 'summary first'>[] = [];
    await app.page.route('**/api/runs', (route) => {
      runsAsked();
      return route.continue();
    });
    await app.page.route('**/api/trace', async (route) => {
      const graceMs = 5000;
      const first = Promise.race([runsSeen, new Promise<'summary first'>((resolve) => setTimeout(() => resolve('summary first'), graceMs))]);
      order.push(first);
      await first;
      return route.continue();
    });
    await app.page.locator('[data-testid=trace-item] a', { hasText: 'interleaved-runs.jsonl' }).click();
    await app.page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
    assert.equal(await order[0], 'runs first');
    assert.deepEqual(
      await app.page.locator('[data-testid=run-row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id'))),
      expected('interleaved-runs').runs.map((run) => run.run_id),
      'the runs asked for early are the ones shown',
    );
    assertClean(app);
  });

  test('the run with a dangling call: n reaches the finding, the call is marked unanswered', async () => {
    const app = await newApp();
    await openTrace(app, server.url, 'dangling-call');
    await openRun(app.page, 'dangling-call');
    await app.page.keyboard.press('n');
    const active = app.page.locator('[data-testid=timeline] [data-testid=finding-marker][data-active=true]');
    await active.waitFor();
    assert.equal(await active.getAttribute('data-kind'), 'dangling_call');
    // The finding's step is selected and its event is open in the inspector.
    const selected = selectedRow(app.page);
    await selected.waitFor();
    assert.equal(await selected.getAttribute('data-step'), '1');
    const eventId = await selected.getAttribute('data-event-id');
    await app.page.locator(`[data-testid=event-inspector][data-event-id="${eventId}"][data-state=ready]`).waitFor();
    assert.equal(await app.page.locator('[data-testid=inspector-finding]').getAttribute('data-kind'), 'dangling_call');
    // The dangling call is visibly unlinked; its sibling links to its result.
    const dangling = selected.locator('[data-testid=call-chip][data-call-state=dangling]');
    assert.equal(await dangling.locator('[data-testid=call-unlinked]').innerText(), 'no result');
    assert.equal(await selected.locator('[data-testid=call-chip][data-call-state=ok] [data-testid=link-to-result]').count(), 1);
    assert.match(await app.page.locator('[data-testid=budget]').first().innerText(), /\d+\/\d+/);
    await saveScreenshot(app.page, 'run-dangling-call');
    assertClean(app);
  });

  test('a link to an event further down a run opens with that event on screen, however tall the rows above it', async () => {
    const first = await newApp();
    await openTrace(first, server.url, 'repeated-action');
    await openRun(first.page, expected('repeated-action').runs[0]!.run_id);
    const [, traceId, runPk] = /^#\/trace\/([^/]+)\/run\/(\d+)/.exec(hashOf(first.page))!;
    const response = await fetch(`${server.url}api/runEvents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ traceId: decodeURIComponent(traceId!), runPk: Number(runPk), offset: 0, limit: 100 }),
    });
    const events = ((await response.json()) as { rows: { eventId: number; line: number }[] }).rows;
    assert.ok(events.length >= 20, `${events.length} events`);
    // Opened from the link (a new page): the rows come with the event's position, unmeasured, and
    // rows taller than estimated put an event the estimate had on screen below it.
    for (const event of events.slice(Math.floor(events.length / 3))) {
      const app = await newApp();
      await app.page.goto(`${server.url}#/trace/${traceId}/run/${runPk}/event/${event.eventId}`);
      const row = selectedRow(app.page);
      await row.waitFor();
      await app.page.locator(`[data-testid=event-inspector][data-event-id="${event.eventId}"][data-state=ready]`).waitFor();
      // The list places the row once the rows above it are measured, a frame or two after they
      // render: on a busy machine that can come after the inspector. Give it five seconds to get there
      // (two were not always enough on a busy 2-core machine).
      await app.page
        .waitForFunction(
          `(() => {
            const row = document.querySelector('[data-testid=timeline-row][data-selected=true]')?.getBoundingClientRect();
            const view = document.querySelector('[data-testid=timeline]')?.getBoundingClientRect();
            return row !== undefined && view !== undefined && row.top >= view.top && row.bottom <= view.bottom + 1;
          })()`,
          undefined,
          { timeout: 5000 },
        )
        .catch(() => undefined);
      const [box, view] = await Promise.all([row.boundingBox(), app.page.locator('[data-testid=timeline]').boundingBox()]);
      assert.ok(
        // A pixel of slack: rows are laid out at fractions of a pixel, the scroll offset in whole ones.
        box && view && box.y >= view.y && box.y + box.height <= view.y + view.height + 1,
        `line ${event.line} on screen: row at ${box?.y} to ${box && box.y + box.height}, the timeline's viewport ${view?.y} to ${view && view.y + view.height}`,
      );
      assertClean(app);
      await app.page.context().close();
    }
  });

  test('j/k step through a run, Enter opens the step, Esc goes back', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'budget-exhausted');
    await openRun(page, 'budget-exhausted');
    const steps = [
      ...new Set(await page.locator('[data-testid=step-header]').evaluateAll((elements) => elements.map((element) => element.getAttribute('data-step')))),
    ];
    assert.ok(steps.length >= expected('budget-exhausted').runs[0]!.steps, `every step has a header: ${steps.join(', ')}`);
    for (const step of steps) {
      await page.keyboard.press('j');
      await page.locator(`[data-testid=timeline-row][data-selected=true][data-step="${step}"]`).waitFor();
      assert.match(hashOf(page), new RegExp(`/step/${step}$`));
    }
    // Past the last step, j stays there; k walks back.
    await page.keyboard.press('j');
    for (const step of steps.slice(0, -1).reverse()) {
      await page.keyboard.press('k');
      await page.locator(`[data-testid=timeline-row][data-selected=true][data-step="${step}"]`).waitFor();
    }
    await page.keyboard.press('ArrowDown');
    await page.locator(`[data-testid=timeline-row][data-selected=true][data-step="${steps[1]}"]`).waitFor();
    await page.keyboard.press('Enter');
    const eventId = await selectedRow(page).getAttribute('data-event-id');
    await page.locator(`[data-testid=event-inspector][data-event-id="${eventId}"][data-state=ready]`).waitFor();
    // With the inspector open, j moves it along.
    await page.keyboard.press('j');
    await page.locator(`[data-testid=timeline-row][data-selected=true][data-step="${steps[2]}"]`).waitFor();
    const nextEventId = await selectedRow(page).getAttribute('data-event-id');
    await page.locator(`[data-testid=event-inspector][data-event-id="${nextEventId}"][data-state=ready]`).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('[data-testid=event-inspector]').waitFor({ state: 'detached' });
    assert.equal(await selectedRow(page).getAttribute('data-event-id'), nextEventId, 'closing the inspector keeps the cursor');
    await page.keyboard.press('Escape');
    await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
    assertClean(app);
  });

  test('an event shows its JSON tree and its raw line with file and line number, copies as JSON; a reload lands on it again', async () => {
    const app = await newApp({ clipboard: true });
    const { page } = app;
    await openTrace(app, server.url, 'dangling-call');
    await openRun(page, 'dangling-call');
    await page.locator('[data-testid=timeline-row][data-line="5"]').click();
    const inspector = page.locator('[data-testid=event-inspector][data-state=ready]');
    await inspector.waitFor();
    assert.equal(await page.locator('[data-testid=raw-line-location]').innerText(), 'dangling-call.jsonl:5');
    assert.equal(await page.locator('[data-testid=raw-line]').innerText(), fileLine(join(examplesDir, 'dangling-call.jsonl'), 5));
    assert.match(await page.locator('[data-testid=json-tree]').innerText(), /"in_transit"/);
    assert.match(await page.locator('[data-testid=normalized-fields]').innerText(), /get_shipment/);
    await page.locator('[data-testid=copy-json]').click();
    await page.locator('[data-testid=event-inspector] [role=status]', { hasText: 'Copied' }).waitFor();
    const copied = String(await page.evaluate('navigator.clipboard.readText()'));
    assert.deepEqual(JSON.parse(copied), JSON.parse(fileLine(join(examplesDir, 'dangling-call.jsonl'), 5)));
    await saveScreenshot(page, 'event-inspector');
    const hash = hashOf(page);
    assert.match(hash, /\/event\/\d+$/);
    await page.reload();
    await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
    assert.equal(hashOf(page), hash);
    assert.equal(await page.locator('[data-testid=raw-line-location]').innerText(), 'dangling-call.jsonl:5');
    assert.equal(await selectedRow(page).getAttribute('data-line'), '5');
    assertClean(app);
  });

  test('Ctrl+F searches the trace: a known string is found and its hit opens the event', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'dangling-call');
    await page.keyboard.press('Control+f');
    assert.ok(
      await page.locator('[data-testid=search-input]').evaluate((input) => input === input.ownerDocument.activeElement),
      'the search box has the focus',
    );
    await page.keyboard.type('Leipzig');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=search-view][data-state=ready][data-query="Leipzig"]').waitFor();
    const hit = page.locator('[data-testid=search-hit]').first();
    assert.match(await hit.locator('mark').first().innerText(), /^leipzig$/i);
    await saveScreenshot(page, 'search');
    await hit.click();
    await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
    assert.match(await page.locator('[data-testid=raw-line]').innerText(), /Leipzig/);
    assertClean(app);
  });

  test('a trace with broken lines lists exactly those under parse errors, with their raw lines', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'broken-lines');
    await page.locator('[data-testid=tab-parse-errors]').click();
    await page.locator('[data-testid=parse-errors-view][data-state=ready]').waitFor();
    const lines = await page.locator('[data-testid=parse-error-row]').evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-line'))));
    assert.deepEqual(lines, expected('broken-lines').parse_error_lines);
    const first = page.locator('[data-testid=parse-error-row]').first();
    await first.locator('[data-testid=raw-line-toggle]').click();
    await first.locator('[data-testid=raw-line]').waitFor();
    assert.equal(await first.locator('[data-testid=raw-line]').innerText(), fileLine(join(examplesDir, 'broken-lines.jsonl'), lines[0]!));
    await saveScreenshot(page, 'parse-errors');
    assertClean(app);
  });

  test('findings: an error finding is two clicks from the runs list; repeated calls side by side', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'dangling-call');
    await page.locator('[data-testid=tab-findings]').click();
    await page.locator('[data-testid=findings-view][data-state=ready]').waitFor();
    await page.locator('[data-testid=finding-group][data-severity=error][data-kind=dangling_call] [data-testid=finding-link]').first().click();
    await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
    assert.equal(await page.locator('[data-testid=inspector-finding]').getAttribute('data-kind'), 'dangling_call');

    await openTrace(app, server.url, 'repeated-action');
    await page.locator('[data-testid=tab-findings]').click();
    const group = page.locator('[data-testid=finding-group][data-kind=repeated_action]');
    await group.waitFor();
    const calls = group.locator('[data-testid=repeated-call]');
    await calls.first().waitFor();
    assert.ok((await calls.count()) >= 3, 'at least the threshold of repeated calls');
    const titles = await calls.evaluateAll((elements) => elements.map((element) => element.querySelector('.repeated-call-title')?.textContent ?? ''));
    assert.ok(
      titles.every((title) => title.includes('get_shipment')),
      titles.join(' | '),
    );
    await group.locator('[data-testid=repeated-call] .result-preview').first().waitFor();
    await saveScreenshot(page, 'findings');
    assertClean(app);
  });

  test('calls: filtering by state shows the dangling call', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'dangling-call');
    await page.locator('[data-testid=tab-calls]').click();
    await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
    assert.equal(await page.locator('[data-testid=call-row]').count(), 2);
    await page.locator('[data-testid=filter-call-state]').selectOption('dangling');
    await page.waitForURL(/state=dangling/);
    await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
    const states = await page.locator('[data-testid=call-row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-call-state')));
    assert.deepEqual(states, ['dangling']);
    await saveScreenshot(page, 'calls');
    assertClean(app);
  });

  test('calls: a latency the trace does not record reads "not recorded", never 0 ms', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'latency-sources');
    await page.locator('[data-testid=tab-calls]').click();
    await page.locator('[data-testid=calls-view][data-state=ready]').waitFor();
    const latencies = await page.locator('[data-testid=call-row] .numeric').allInnerTexts();
    assert.deepEqual(latencies, ['287 ms', '1.23 s', 'not recorded']);
    // The row opens the response that issued the call: it records no latency either, and says so.
    await page.locator('[data-testid=call-row]').last().click();
    await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
    const latencyField = page.locator('[data-testid=normalized-fields] .field', { has: page.locator('dt', { hasText: /^latency$/ }) });
    assert.equal(await latencyField.locator('dd').innerText(), 'not recorded');
    assertClean(app);
  });

  test('runs can be filtered and sorted, and the URL keeps the filter', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'interleaved-runs');
    await page.locator('[data-testid=filter-text]').fill('run-b');
    await page.waitForURL(/text=run-b/);
    await page.locator('[data-testid=runs-view][data-state=ready][data-total="1"]').waitFor();
    assert.equal(await page.locator('[data-testid=run-row]').getAttribute('data-run-id'), 'run-b');
    await page.locator('[data-testid=filter-text]').fill('');
    await page.locator('[data-testid=runs-view][data-state=ready][data-total="2"]').waitFor();
    await page.locator('[data-testid=sort-run]').click();
    await page.waitForURL(/desc=1/);
    // The URL changes a task before the app renders it: wait for the rendered sort, then its rows.
    await page.locator('[role=columnheader][aria-sort=descending]', { has: page.locator('[data-testid=sort-run]') }).waitFor();
    await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
    const order = await page.locator('[data-testid=run-row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id')));
    assert.deepEqual(order, ['run-b', 'run-a']);
    assertClean(app);
  });

  test('? lists every shortcut; Esc closes the list without leaving the view', async () => {
    const app = await newApp();
    const { page } = app;
    await openTrace(app, server.url, 'normal-query');
    await openRun(page, 'normal-query');
    const hash = hashOf(page);
    await page.keyboard.press('?');
    const dialog = page.locator('[data-testid=shortcuts-dialog]');
    await dialog.waitFor();
    const text = await dialog.innerText();
    for (const action of [
      'Next step',
      'Previous step',
      'Next finding',
      'Previous finding',
      'Open the selected event',
      'Back',
      'Search',
      'Diff the selected request',
    ]) {
      assert.ok(text.includes(action), `the list names "${action}"`);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(hashOf(page), hash);
    assertClean(app);
  });

  test('the dark theme follows the system', async () => {
    const app = await newApp({ colorScheme: 'dark' });
    const { page } = app;
    await openTrace(app, server.url, 'tool-after-budget');
    await openRun(page, 'tool-after-budget');
    const background = String(await page.evaluate('getComputedStyle(document.body).backgroundColor'));
    const [red = 255, green = 255, blue = 255] = (background.match(/\d+/g) ?? []).map(Number);
    assert.ok(red + green + blue < 150, `a dark background, got ${background}`);
    assert.match(await page.locator('[data-testid=budget][data-exceeded=true]').first().innerText(), /budget exceeded/);
    await saveScreenshot(page, 'run-dark');
    assertClean(app);
  });
});

/**
 * For a describe block: one trace written from `events` in a temporary folder, served by
 * `loopscope serve`, and a browser; both stopped after the block.
 */
function serveEvents(name: string, events: () => object[]): { browser: () => Browser; server: () => ServedTraces; tracePath: () => string } {
  let dir = '';
  let browser: Browser | undefined;
  let server: ServedTraces | undefined;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'loopscope-e2e-'));
    writeFileSync(
      join(dir, name),
      events()
        .map((event) => JSON.stringify(event))
        .join('\n') + '\n',
    );
    browser = await launchBrowser();
    server = await serveTraces([join(dir, name)]);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return { browser: () => browser!, server: () => server!, tracePath: () => join(dir, name) };
}

describe('trace content is text, never markup', () => {
  const runId = '<img src=x onerror=alert(1)>';
  /** What a web page a tool fetched can hold: links and frames, terminal colours, a reversed file name. */
  const hostilePage =
    'report\u202Efdp.exe <a href="javascript:alert(7)">click me</a> <iframe src="https://example.com/frame"></iframe> ' +
    '\u001b[31mred alert\u001b[0m <img src="https://example.com/pixel.gif"> <link rel=stylesheet href="https://example.com/x.css">';
  const served = serveEvents('hostile.jsonl', () => [
    { type: 'run_start', run_id: runId, ts: '2025-06-03T10:00:00.000Z', task: '<script>alert(2)</script> \u202Egnp.exe\u202C and a\u0007bell' },
    { type: 'model_request', run_id: runId, step: 1, ts: '2025-06-03T10:00:00.100Z', messages: [{ role: 'user', content: '<script>alert(3)</script>' }] },
    {
      type: 'model_response',
      run_id: runId,
      step: 1,
      ts: '2025-06-03T10:00:01.000Z',
      outcome: 'tool_calls',
      finish_reason: 'tool_calls',
      tool_calls: [{ call_id: 'call_1', name: '<img src=x onerror=alert(4)>', arguments: '{"q":"<script>alert(5)</script>"}' }],
    },
    {
      type: 'tool_result',
      run_id: runId,
      step: 1,
      ts: '2025-06-03T10:00:02.000Z',
      call_id: 'call_1',
      name: '<img src=x onerror=alert(4)>',
      status: 'ok',
      output: '<img src=x onerror=alert(6)>',
    },
    {
      type: 'tool_result',
      run_id: runId,
      step: 1,
      ts: '2025-06-03T10:00:02.500Z',
      call_id: 'call_2',
      name: 'fetch_page',
      status: 'ok',
      output: `${hostilePage} ${'A'.repeat(20_000)}`,
    },
    { type: 'run_end', run_id: runId, ts: '2025-06-03T10:00:03.000Z', status: 'MODEL_FINISHED' },
  ]);

  test('HTML in run ids, tasks, tool names and results shows as text: no element, no script, no dialog', async () => {
    const app = await openApp(served.browser(), served.server().url);
    const { page } = app;
    // Every request and every navigation stays on the server the app came from.
    const origin = new URL(served.server().url).origin;
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(origin)) elsewhere.push(`request ${request.url()}`);
    });
    page.on('framenavigated', (frame) => {
      if (!frame.url().startsWith(origin)) elsewhere.push(`navigation ${frame.url()}`);
    });
    // One trace served: the app goes straight to its runs.
    await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
    const row = page.locator('[data-testid=run-row]');
    assert.equal(await row.getAttribute('data-run-id'), runId);
    // textContent: the id is cut in the middle into two flex parts, which innerText separates with a line break.
    assert.equal(await row.locator('.run-id').textContent(), runId);
    const idTitle = (await row.locator('.run-id [data-testid=middle-ellipsis]').getAttribute('title')) ?? '';
    assert.ok(idTitle.startsWith(`${runId}\nlines `), `the full id is on hover, as text: ${idTitle}`);
    await row.click();
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    assert.match(await page.locator('.run-task').innerText(), /<script>alert\(2\)<\/script>/);
    // The bidi override and the bell are shown as escapes, not obeyed.
    assert.match(await page.locator('.run-task').innerText(), /\\u202E/);
    assert.match(await page.locator('.run-task').innerText(), /\\u0007/);
    await page.locator('[data-testid=timeline-row][data-type=tool_result]').first().click();
    await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
    assert.equal(await page.locator('[data-testid=raw-line]').innerText(), fileLine(served.tracePath(), 4));
    assert.equal(await page.locator('img').count(), 0, 'no <img> element was created');
    assert.equal(await page.locator('script').count(), 1, 'only the app bundle is a script');

    // The fetched page: shown as written, its controls made visible, nothing of it alive.
    const fetched = page.locator('[data-testid=timeline-row][data-type=tool_result]').nth(1);
    const shown = await fetched.innerText();
    assert.match(shown, /<a href="javascript:alert\(7\)">click me<\/a> <iframe src="https:\/\/example\.com\/frame">/);
    assert.match(shown, /\\u001B\[31mred alert\\u001B\[0m/i, 'the ANSI escapes are shown, not obeyed');
    assert.match(shown, /report\\u202Efdp\.exe/i, 'the bidi override is shown, the name not reversed');
    await fetched.getByText('click me', { exact: false }).click();
    await fetched.click();
    await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
    assert.equal(await page.locator('iframe').count(), 0, 'no <iframe> element was created');
    assert.equal(await page.locator('a[href^="javascript:"]').count(), 0, 'no javascript: link was created');
    assert.equal(await page.locator('link[href^="https:"]').count(), 0, 'no stylesheet was linked');
    // 20,000 characters without a break: wrapped or cut, never widening the page.
    assert.ok(
      Number(await page.evaluate('document.documentElement.scrollWidth')) <= Number(await page.evaluate('window.innerWidth')),
      'a long unbroken string does not widen the page',
    );
    assert.deepEqual(elsewhere, [], 'nothing was loaded from, or navigated to, anywhere else');
    assert.deepEqual(app.dialogs, []);
    assert.deepEqual(app.problems, []);
    await saveScreenshot(page, 'hostile-trace');
  });
});

describe('a run with many findings of one kind', () => {
  const runId = 'three-unanswered';
  const served = serveEvents('many.jsonl', () => {
    const calls = [1, 2, 3].map((n) => ({ call_id: `call_${n}`, name: 'lookup', arguments: `{"n":${n}}` }));
    return [
      { type: 'run_start', run_id: runId, ts: '2025-06-03T10:00:00.000Z' },
      { type: 'model_response', run_id: runId, step: 1, ts: '2025-06-03T10:00:01.000Z', outcome: 'tool_calls', finish_reason: 'tool_calls', tool_calls: calls },
      { type: 'run_end', run_id: runId, ts: '2025-06-03T10:00:03.000Z', status: 'completed' },
    ];
  });

  test('the header shows one marker per kind with its count, and the marker walks that kind', async () => {
    const { page } = await openApp(served.browser(), served.server().url);
    await page.locator('[data-testid=run-row]').click();
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    const kinds = page.locator('[data-testid=run-findings] [data-testid=finding-kind]');
    assert.deepEqual(await kinds.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-kind'))), ['dangling_call']);
    assert.match(await kinds.first().innerText(), /dangling call\s*×3/);
    await page.keyboard.press('n');
    await page.locator('[data-testid=run-findings]', { hasText: '1 of 3' }).waitFor();
    await kinds.first().locator('[data-testid=finding-marker]').click();
    await page.locator('[data-testid=run-findings]', { hasText: '2 of 3' }).waitFor();
  });
});
