/**
 * `loopscope export FILE --html OUT.html`: the built CLI writes the report, Debian's Chromium opens
 * the file with every network request refused, and a user walks its views — runs, a run's timeline
 * and inspector, the request diff, the growth chart, findings, calls — with no request leaving the
 * file and nothing logged as an error. The file holds no credential unless --no-redact.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, saveScreenshot, waitForPage } from '../../devkit/browser';
import { reportDataElementId } from '../../shared/htmlReport/reportSnapshot';
import { maxReportEvents } from '../../src-main/htmlReport/htmlReportRecorder';
import { example, runCli, type CliResult } from '../support/cli';
import { temporaryDir } from '../support/engineHarness';
import { assertHoldsNone, fakeSecrets } from '../support/fakeSecrets';

const ts = (second: number): string => new Date(Date.UTC(2025, 5, 3, 10, 0, second)).toISOString();
const secret = fakeSecrets.github_token;
const system = { role: 'system', content: 'You find where parcels are. Answer with the city.' };
const user = { role: 'user', content: 'Where are parcels A and B?' };
const before1 = 'Parcel A is in Leipzig, at the depot on Main Street, since Monday morning.';
const after1 = 'Parcel A is in Berlin, at the depot on Main Street, since Monday morning.';
const call = (id: string, q: string) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ q }) } }],
});
const result = (id: string, content: string) => ({ role: 'tool', tool_call_id: id, content });

/** A run whose third request rewrites its first tool result, with a call never answered and a token in a result; and a short second run. */
function traceLines(): string {
  const run_id = 'parcels';
  const events = [
    { type: 'run_start', run_id, ts: ts(0), task: 'Where are parcels A and B?' },
    { type: 'model_request', run_id, step: 1, ts: ts(1), model: 'gpt-4.1', messages: [system, user] },
    { type: 'model_response', run_id, step: 1, ts: ts(2), outcome: 'tool_calls', tool_calls: [{ call_id: 'call_1', name: 'lookup', arguments: '{"q":"A"}' }] },
    { type: 'tool_result', run_id, step: 1, ts: ts(3), call_id: 'call_1', name: 'lookup', status: 'ok', output: `${before1} Courier token ${secret}` },
    { type: 'model_request', run_id, step: 2, ts: ts(4), model: 'gpt-4.1', messages: [system, user, call('call_1', 'A'), result('call_1', before1)] },
    { type: 'model_response', run_id, step: 2, ts: ts(5), outcome: 'tool_calls', tool_calls: [{ call_id: 'call_2', name: 'track', arguments: '{"q":"B"}' }] },
    { type: 'model_request', run_id, step: 3, ts: ts(7), model: 'gpt-4.1', messages: [system, user, call('call_1', 'A'), result('call_1', after1)] },
    { type: 'model_response', run_id, step: 3, ts: ts(8), outcome: 'final', finish_reason: 'stop', text: 'A is in Berlin.' },
    { type: 'run_end', run_id, ts: ts(9), status: 'completed' },
    { type: 'run_start', run_id: 'short', ts: ts(20), task: 'Say hello.' },
    { type: 'model_response', run_id: 'short', step: 1, ts: ts(21), outcome: 'final', finish_reason: 'stop', text: 'Hello.' },
    { type: 'run_end', run_id: 'short', ts: ts(22), status: 'completed' },
  ];
  return events.map((event) => JSON.stringify(event)).join('\n') + '\n';
}

/** The report's data as the page reads it: the gunzipped JSON of its snapshot. */
function embeddedData(html: string): string {
  const match = new RegExp(`<script type="application/octet-stream" id="${reportDataElementId}">([^<]*)</script>`).exec(html);
  assert.ok(match, 'the report holds its data element');
  return gunzipSync(Buffer.from(match[1]!, 'base64')).toString('utf8');
}

interface ReportPage {
  page: Page;
  /** Console errors, page errors and CSP violations. */
  problems: string[];
  /** Every URL the page asked for. */
  requests: string[];
}

/** The report opened from its file, every request but the file itself refused. */
async function openReport(browser: Browser, file: string, colorScheme: 'light' | 'dark' = 'light'): Promise<ReportPage> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme });
  const fileUrl = pathToFileURL(file).href;
  const requests: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    return url.split('#')[0] === fileUrl ? route.continue() : route.abort();
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) => console.error('CSP violation: ' + event.violatedDirective + ' blocked ' + event.blockedURI));`,
  });
  await page.goto(fileUrl);
  return { page, problems, requests };
}

describe('loopscope export --html', () => {
  const temporary = temporaryDir('html-report');
  const dir = temporary.path;
  const cacheDir = join(dir, 'cache');
  const trace = join(dir, 'parcels.jsonl');
  const report = join(dir, 'parcels.html');
  let browser: Browser;
  let exported: CliResult;

  before(async () => {
    writeFileSync(trace, traceLines());
    exported = runCli(['export', trace, '--html', report], { cacheDir });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    temporary.remove();
  });

  test('writes one file that holds no credential and says what it wrote', () => {
    assert.equal(exported.status, 0, exported.stderr);
    assert.match(exported.stderr, /wrote .*parcels\.html \(\d+ KiB: 2 runs, 12 events, credentials masked\)/);
    const html = readFileSync(report, 'utf8');
    assertHoldsNone('the report', html, [secret]);
    const data = embeddedData(html);
    assertHoldsNone("the report's data", data, [secret]);
    assert.ok(data.includes('Leipzig') && data.includes('Berlin'), 'the data holds what the run said');
    // Nothing outside the file: no src or href but the inline data: icon.
    assert.doesNotMatch(html, /\ssrc=|<link(?![^>]*href="data:)/);
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/);
  });

  test("walks the runs, a run's timeline and inspector, the diff, the growth chart, findings and calls, offline", async () => {
    const { page, problems, requests } = await openReport(browser, report);
    await page.locator('[data-testid=runs-view][data-state=ready][data-total="2"]').waitFor();
    assert.match(await page.locator('[data-testid=report-banner]').innerText(), /Report, exported .* · read-only · credentials masked/);
    assert.equal(await page.locator('[data-testid=search-input]').count(), 0, 'no search box in a report');

    await page.locator('[data-testid=run-row][data-run-id="parcels"]').click();
    await page.locator('[data-testid=run-view][data-state=ready][data-run-id="parcels"]').waitFor();
    assert.equal((await page.locator('[data-testid=timeline-row]').count()) >= 9, true);

    // The inspector of the tool result: its line, the token masked; revealing it is refused with the reason.
    await page.locator('[data-testid=timeline-row][data-type=tool_result]').first().click();
    const inspector = page.locator('[data-testid=event-inspector][data-state=ready]');
    await inspector.waitFor();
    const rawLine = await inspector.locator('[data-testid=raw-line]').innerText();
    assert.match(rawLine, /Leipzig/);
    assertHoldsNone('the raw line shown', rawLine, [secret]);
    await page.locator('[data-testid=reveal-secrets]').click();
    await page.getByText('exported with credentials masked').waitFor();

    // Stepping with j and k walks the recorded step positions; n goes to the next finding.
    await page.locator('[data-testid=timeline-row][data-type=run_start]').first().click();
    await page.keyboard.press('j');
    await page.waitForURL(/\/step\/1\b/);
    await page.keyboard.press('j');
    await page.waitForURL(/\/step\/2\b/);
    await page.keyboard.press('k');
    await page.waitForURL(/\/step\/1\b/);
    await page.keyboard.press('n');
    await page.locator('[data-testid=event-inspector][data-state=ready] [data-testid=inspector-finding]').first().waitFor();

    // The third request's diff against the second: the rewritten tool result.
    await page.locator('[data-testid=timeline-row][data-type=model_request]').nth(2).click();
    await page.locator('[data-testid=diff-with-previous]').click();
    const diff = page.locator('[data-testid=request-diff][data-state=ready]');
    await diff.waitFor();
    await page.locator('del', { hasText: 'Leipzig' }).first().waitFor();
    await page.locator('ins', { hasText: 'Berlin' }).first().waitFor();
    assert.equal(await page.locator('[data-testid=diff-compare-with]').count(), 0, 'only the previous request is recorded to compare with');
    await saveScreenshot(page, 'html-report-diff');

    await page.goBack();
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    await page.locator('[data-testid=run-section-requests]').click();
    await page.locator('[data-testid=growth-chart]').waitFor();
    assert.equal(await page.locator('[data-testid=request-row]').count(), 3);
    await saveScreenshot(page, 'html-report-growth');

    await page.locator('[data-testid=tab-findings]').click();
    await page.locator('[data-testid=finding-group][data-kind=dangling_call]').waitFor();
    await page.locator('[data-testid=finding-group][data-kind=history_rewrite]').waitFor();

    await page.locator('[data-testid=tab-calls]').click();
    await page.locator('[data-testid=calls-view]').waitFor();
    await page.locator('[data-testid=call-row]').nth(1).waitFor();
    assert.equal(await page.locator('[data-testid=call-row]').count(), 2);
    await page.locator('[data-testid=filter-call-state]').selectOption('dangling');
    await waitForPage(page, "document.querySelectorAll('[data-testid=call-row]').length === 1");
    assert.match(await page.locator('[data-testid=call-row]').innerText(), /track/);
    await page.locator('[data-testid=sort-calls-tool]').click();
    await page.locator('[data-testid=call-row]').first().waitFor();

    // What a report cannot answer is not offered: no text filter.
    await page.locator('[data-testid=tab-runs]').click();
    await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
    assert.equal(await page.locator('[data-testid=filter-text]').count(), 0);

    assert.deepEqual(problems, []);
    const fileUrl = pathToFileURL(report).href;
    assert.deepEqual([...new Set(requests.map((url) => url.split('#')[0]))], [fileUrl], 'the page asked for nothing but its own file');
  });

  test('looks right in the dark at 1024×700', async () => {
    const { page, problems } = await openReport(browser, report, 'dark');
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.locator('[data-testid=run-row][data-run-id="parcels"]').click();
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
    await saveScreenshot(page, 'html-report-run-dark-1024');
    assert.deepEqual(problems, []);
  });

  test('--run holds that run only, and opens on it', async () => {
    const onlyRun = join(dir, 'short.html');
    const exported = runCli(['export', trace, '--html', onlyRun, '--run', 'short'], { cacheDir });
    assert.equal(exported.status, 0, exported.stderr);
    assert.match(exported.stderr, /1 run, 3 events/);
    assert.ok(!embeddedData(readFileSync(onlyRun, 'utf8')).includes('Leipzig'), "the other run's content is not in the file");
    const { page, problems } = await openReport(browser, onlyRun);
    await page.locator('[data-testid=run-view][data-state=ready][data-run-id="short"]').waitFor();
    assert.match(await page.locator('[data-testid=report-banner]').innerText(), /of run short/);
    await page.locator('[data-testid=tab-runs]').click();
    await page.locator('[data-testid=runs-view][data-state=ready][data-total="1"]').waitFor();
    assert.deepEqual(problems, []);
  });

  test('--no-redact keeps credentials, with a warning, and the inspector reveals them', async () => {
    const unredacted = join(dir, 'unredacted.html');
    const exported = runCli(['export', trace, '--html', unredacted, '--no-redact'], { cacheDir });
    assert.equal(exported.status, 0, exported.stderr);
    assert.match(exported.stderr, /warning: --no-redact/);
    const { page, problems } = await openReport(browser, unredacted);
    await page.locator('[data-testid=run-row][data-run-id="parcels"]').click();
    await page.locator('[data-testid=timeline-row][data-type=tool_result]').first().click();
    await page.locator('[data-testid=event-inspector][data-state=ready]').waitFor();
    await page.locator('[data-testid=reveal-secrets]').click();
    await page.locator('[data-testid=raw-line]', { hasText: secret }).waitFor();
    assert.deepEqual(problems, []);
  });

  test('refuses what it cannot make, saying why', () => {
    const noRun = runCli(['export', trace, '--html', join(dir, 'x.html'), '--run', 'nope'], { cacheDir });
    assert.equal(noRun.status, 2);
    assert.match(noRun.stderr, /no run "nope" in the trace \(its runs: parcels, short\)/);
    const directory = runCli(['export', dir, '--html', join(dir, 'y.html')], { cacheDir });
    assert.equal(directory.status, 2);
    assert.match(directory.stderr, /--html makes a report of one trace file/);
    const twoTargets = runCli(['export', trace, '--html', join(dir, 'z.html'), '--otlp', join(dir, 'z.jsonl')], { cacheDir });
    assert.equal(twoTargets.status, 2);
    assert.match(twoTargets.stderr, /one of --otlp/);
  });

  test('refuses a trace too long for a report, naming its longest run; that run alone still exports', () => {
    const long = join(dir, 'long.jsonl');
    const events: object[] = [{ type: 'run_start', run_id: 'long', ts: ts(0) }];
    for (let step = 1; step <= maxReportEvents; step += 1)
      events.push({ type: 'model_response', run_id: 'long', step, ts: ts(1), outcome: 'final', text: `turn ${step}` });
    events.push({ type: 'run_start', run_id: 'brief', ts: ts(2) }, { type: 'run_end', run_id: 'brief', ts: ts(3), status: 'completed' });
    writeFileSync(long, events.map((event) => JSON.stringify(event)).join('\n') + '\n');
    const refused = runCli(['export', long, '--html', join(dir, 'long.html')], { cacheDir });
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /the report would hold 20,003 events, more than 20,000: export one run with --run ID \(the longest: long\)/);
    const brief = runCli(['export', long, '--html', join(dir, 'brief.html'), '--run', 'brief'], { cacheDir });
    assert.equal(brief.status, 0, brief.stderr);
    assert.match(brief.stderr, /1 run, 2 events/);
  });

  test('a typical run stays within the size budget the README states (1 MiB)', () => {
    const typical = join(dir, 'budget.html');
    const exported = runCli(['export', example('budget-exhausted'), '--html', typical], { cacheDir });
    assert.equal(exported.status, 0, exported.stderr);
    assert.ok(readFileSync(typical).length < 1024 * 1024, `the report of examples/budget-exhausted.jsonl is ${readFileSync(typical).length} bytes`);
  });
});
