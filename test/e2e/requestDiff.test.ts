/**
 * The request diff and the context growth in the browser: `loopscope serve` on a canonical trace,
 * Debian's Chromium, a user's keys and clicks. One run's third request rewrites the result of its
 * first tool call ("Leipzig" became "Berlin"); another run's requests carry no usage (so their
 * input tokens are estimates) and its fifth request appends a very large tool result.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openApp, saveScreenshot, serveTraceFile, type AppPage, type ServedTraceFile } from '../../devkit/browser';

const ts = (second: number): string => new Date(Date.UTC(2025, 5, 3, 10, 0, second)).toISOString();

const system = { role: 'system', content: 'You find where parcels are. Answer with the city.' };
const user = { role: 'user', content: 'Where are parcels A and B?' };
const call = (id: string, q: string) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ q }) } }],
});
const result = (id: string, content: string) => ({ role: 'tool', tool_call_id: id, content });

/** The lookup tool; the third request adds a `depot` parameter to it. */
const lookupTool = (withDepot: boolean) => ({
  type: 'function',
  function: {
    name: 'lookup',
    description: 'Where a parcel is.',
    parameters: { type: 'object', properties: { q: { type: 'string' }, ...(withDepot ? { depot: { type: 'boolean' } } : {}) }, required: ['q'] },
  },
});

const before1 = 'Parcel A is in Leipzig, at the depot on Main Street, since Monday morning.';
const after1 = 'Parcel A is in Berlin, at the depot on Main Street, since Monday morning.';
const result2 = 'Parcel B is in Bonn, out for delivery.';

/** Three logged requests; the third edits the first tool result, changes the tool's schema and the temperature. */
function rewriteRun(): object[] {
  const run_id = 'rewrite';
  return [
    { type: 'run_start', run_id, ts: ts(0), task: 'Where are parcels A and B?' },
    { type: 'model_request', run_id, step: 1, ts: ts(1), model: 'gpt-4.1', params: { temperature: 0 }, tools: [lookupTool(false)], messages: [system, user] },
    {
      type: 'model_response',
      run_id,
      step: 1,
      ts: ts(2),
      outcome: 'tool_calls',
      finish_reason: 'tool_calls',
      tool_calls: [{ call_id: 'call_1', name: 'lookup', arguments: '{"q":"A"}' }],
    },
    { type: 'tool_result', run_id, step: 1, ts: ts(3), call_id: 'call_1', name: 'lookup', status: 'ok', output: before1 },
    {
      type: 'model_request',
      run_id,
      step: 2,
      ts: ts(4),
      model: 'gpt-4.1',
      params: { temperature: 0 },
      tools: [lookupTool(false)],
      messages: [system, user, call('call_1', 'A'), result('call_1', before1)],
    },
    {
      type: 'model_response',
      run_id,
      step: 2,
      ts: ts(5),
      outcome: 'tool_calls',
      finish_reason: 'tool_calls',
      tool_calls: [{ call_id: 'call_2', name: 'lookup', arguments: '{"q":"B"}' }],
    },
    { type: 'tool_result', run_id, step: 2, ts: ts(6), call_id: 'call_2', name: 'lookup', status: 'ok', output: result2 },
    {
      type: 'model_request',
      run_id,
      step: 3,
      ts: ts(7),
      model: 'gpt-4.1',
      params: { temperature: 0.7 },
      tools: [lookupTool(true)],
      messages: [system, user, call('call_1', 'A'), result('call_1', after1), call('call_2', 'B'), result('call_2', result2)],
    },
    { type: 'model_response', run_id, step: 3, ts: ts(8), outcome: 'final', finish_reason: 'stop', text: 'A is in Berlin, B in Bonn.' },
    { type: 'run_end', run_id, ts: ts(9), status: 'completed' },
  ];
}

/** Six logged requests without usage; the fifth appends a result of some 40 KB. */
function growthRun(): object[] {
  const run_id = 'growth';
  const events: object[] = [{ type: 'run_start', run_id, ts: ts(20), task: 'Summarize the log files.' }];
  const messages: object[] = [
    { role: 'system', content: 'You read log files and summarize them.' },
    { role: 'user', content: 'Summarize the log files.' },
  ];
  const big = Array.from({ length: 600 }, (_, index) => `line ${index}: request served in ${(index * 37) % 1000} ms by worker ${index % 7}`).join('\n');
  let second = 21;
  for (let step = 1; step <= 6; step += 1) {
    events.push({ type: 'model_request', run_id, step, ts: ts(second++), model: 'gpt-4.1', messages: [...messages] });
    if (step === 6) {
      events.push({ type: 'model_response', run_id, step, ts: ts(second++), outcome: 'final', finish_reason: 'stop', text: 'The logs show steady latency.' });
      break;
    }
    const id = `read_${step}`;
    events.push({
      type: 'model_response',
      run_id,
      step,
      ts: ts(second++),
      outcome: 'tool_calls',
      finish_reason: 'tool_calls',
      tool_calls: [{ call_id: id, name: 'read_file', arguments: `{"path":"log-${step}.txt"}` }],
    });
    const output = step === 4 ? big : `log-${step}.txt holds ${step * 3} lines, all of them routine.`;
    events.push({ type: 'tool_result', run_id, step, ts: ts(second++), call_id: id, name: 'read_file', status: 'ok', output });
    messages.push(
      { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: `{"path":"log-${step}.txt"}` } }] },
      { role: 'tool', tool_call_id: id, content: output },
    );
  }
  events.push({ type: 'run_end', run_id, ts: ts(second), status: 'completed' });
  return events;
}

/** No model_request lines: each request is rebuilt from the task, the responses and the results before it. */
function rebuiltRun(): object[] {
  const run_id = 'rebuilt';
  const lookup = (step: number, q: string) => ({
    type: 'model_response',
    run_id,
    step,
    ts: ts(50 + step * 3),
    outcome: 'tool_calls',
    finish_reason: 'tool_calls',
    tool_calls: [{ call_id: `r${step}`, name: 'lookup', arguments: JSON.stringify({ q }) }],
  });
  return [
    { type: 'run_start', run_id, ts: ts(50), task: 'Where are parcels C and D?' },
    lookup(1, 'C'),
    { type: 'tool_result', run_id, step: 1, ts: ts(54), call_id: 'r1', name: 'lookup', status: 'ok', output: 'Parcel C is in Essen.' },
    lookup(2, 'D'),
    { type: 'tool_result', run_id, step: 2, ts: ts(57), call_id: 'r2', name: 'lookup', status: 'ok', output: 'Parcel D is in Kiel.' },
    { type: 'model_response', run_id, step: 3, ts: ts(59), outcome: 'final', finish_reason: 'stop', text: 'C is in Essen, D in Kiel.' },
    { type: 'run_end', run_id, ts: ts(60), status: 'completed' },
  ];
}

/** Two requests whose tool result was replaced by an unrelated text: too many changes for a word diff. */
function unrelatedRun(): object[] {
  const run_id = 'unrelated';
  const words = (prefix: string) => Array.from({ length: 7000 }, (_, index) => `${prefix}${index}`).join(' ');
  const first = [system, user, call('call_u', 'A'), result('call_u', words('alpha'))];
  return [
    { type: 'run_start', run_id, ts: ts(70) },
    { type: 'model_request', run_id, step: 1, ts: ts(71), model: 'gpt-4.1', messages: first },
    { type: 'model_response', run_id, step: 1, ts: ts(72), outcome: 'final', finish_reason: 'stop', text: 'Noted.' },
    { type: 'model_request', run_id, step: 2, ts: ts(73), model: 'gpt-4.1', messages: [system, user, call('call_u', 'A'), result('call_u', words('omega'))] },
    { type: 'model_response', run_id, step: 2, ts: ts(74), outcome: 'final', finish_reason: 'stop', text: 'Noted again.' },
    { type: 'run_end', run_id, ts: ts(75), status: 'completed' },
  ];
}

function hashOf(page: Page): string {
  return new URL(page.url()).hash;
}

async function openRun(page: Page, runId: string): Promise<void> {
  await page.locator(`[data-testid=run-row][data-run-id="${runId}"]`).click();
  await page.locator(`[data-testid=run-view][data-state=ready][data-run-id="${runId}"]`).waitFor();
}

/** Clicks a timeline row and waits until the cursor is on it. */
async function selectRow(page: Page, selector: string, nth: number): Promise<string> {
  const row = page.locator(`[data-testid=timeline-row]${selector}`).nth(nth);
  const eventId = await row.getAttribute('data-event-id');
  assert.ok(eventId !== null);
  await row.click();
  await page.locator(`[data-testid=timeline-row][data-selected=true][data-event-id="${eventId}"]`).waitFor();
  return eventId;
}

function readyDiff(page: Page, eventId: string) {
  return page.locator(`[data-testid=request-diff][data-state=ready][data-event-id="${eventId}"]`);
}

describe('request diff and context growth in the browser', () => {
  let served: ServedTraceFile;
  const opened: AppPage[] = [];

  before(async () => {
    served = await serveTraceFile(
      'requests.jsonl',
      [...rewriteRun(), ...growthRun(), ...rebuiltRun(), ...unrelatedRun()].map((event) => JSON.stringify(event)).join('\n') + '\n',
    );
  });

  after(async () => {
    await served?.close();
  });

  async function newApp(): Promise<AppPage> {
    const app = await openApp(served.browser, served.served.url);
    opened.push(app);
    // One trace served: the app goes straight to its runs.
    await app.page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
    return app;
  }

  function assertClean(app: AppPage): void {
    assert.deepEqual(app.problems, [], 'the page reported problems (page errors, failed requests, CSP violations)');
    assert.deepEqual(app.dialogs, [], 'the page opened dialogs');
  }

  test('d on the third request: history rewritten at message 4 (edited), the changed words highlighted; k goes to the append-only pair', async () => {
    const app = await newApp();
    const { page } = app;
    await openRun(page, 'rewrite');
    const third = await selectRow(page, '[data-type=model_request]', 2);
    await page.keyboard.press('d');
    await page.waitForURL((url) => url.hash.endsWith(`/diff/${third}`));
    const view = readyDiff(page, third);
    await view.waitFor();

    const verdict = page.locator('[data-testid=diff-verdict]');
    assert.equal(await verdict.getAttribute('data-verdict'), 'rewritten');
    assert.equal(await verdict.getAttribute('data-kind'), 'edited');
    // The system message is message 1 as logged, so the edited tool result (index 2 of the history) is message 4.
    assert.equal(await verdict.getAttribute('data-first-difference'), '2');
    assert.equal(await verdict.getAttribute('data-message-number'), '4');
    assert.match(await verdict.innerText(), /History rewritten at message 4: edited/);
    assert.match(await page.locator('[data-testid=diff-cache-note]').innerText(), /caching.*message 4/);

    // The edited message, diffed word by word (in the worker): the new word inserted, the old one deleted.
    const modified = page.locator('[data-testid=diff-message][data-status=modified]');
    assert.equal(await modified.count(), 1);
    assert.equal(await modified.getAttribute('data-index'), '2');
    const wordDiff = modified.locator('[data-testid=message-diff][data-state=ready]');
    assert.equal(await wordDiff.getAttribute('data-thread'), 'worker', 'the word diff ran in the diff worker');
    const inserted = (await wordDiff.locator('ins').allInnerTexts()).join(' ');
    const deleted = (await wordDiff.locator('del').allInnerTexts()).join(' ');
    assert.match(inserted, /Berlin/);
    assert.doesNotMatch(inserted, /Leipzig|depot/);
    assert.match(deleted, /Leipzig/);
    assert.doesNotMatch(deleted, /Berlin|depot/);
    // The unchanged words stay plain text around them.
    assert.match(await wordDiff.innerText(), /Parcel A is in\s*Leipzig\s*Berlin, at the depot on Main Street/);

    // Unchanged messages collapse to one line; the two new ones are listed as appended.
    const runs = await page.locator('[data-testid=diff-run]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-status')));
    assert.deepEqual(runs, ['unchanged', 'modified', 'appended']);
    assert.match(await page.locator('[data-testid=diff-run][data-status=unchanged]').innerText(), /messages 2–3 unchanged, ≈\d+ tokens/);
    // The tool's schema changed too: the cached prefix is lost from the first token.
    assert.deepEqual(await page.locator('[data-testid=diff-finding]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-kind'))), [
      'history_rewrite',
      'system_or_tools_changed',
    ]);

    // The tool's new parameter, in a JSON diff of its two definitions; the temperature in the parameters table.
    const toolChange = page.locator('[data-testid=tool-change][data-change=changed]');
    assert.match(await toolChange.innerText(), /lookup: parameter schema changed/);
    const toolDiff = toolChange.locator('[data-testid=tool-diff][data-state=ready]');
    assert.match((await toolDiff.locator('ins').allInnerTexts()).join(' '), /"depot"/);
    assert.equal(await toolDiff.locator('del').count(), 0, 'nothing was taken out of the schema');
    await toolChange.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'request-diff-tools');
    const temperature = page.locator('[data-testid=param-change][data-key=temperature]');
    assert.deepEqual([await temperature.locator('del').innerText(), await temperature.locator('ins').innerText()], ['0', '0.7']);
    await saveScreenshot(page, 'request-diff-rewritten');

    // k: the request before it, which only appends the call and its result.
    await page.keyboard.press('k');
    await page.waitForURL((url) => /\/diff\/\d+$/.test(url.hash) && !url.hash.endsWith(`/diff/${third}`));
    const secondId = hashOf(page).split('/').at(-1)!;
    await readyDiff(page, secondId).waitFor();
    assert.equal(await verdict.getAttribute('data-verdict'), 'extends');
    assert.match(await verdict.innerText(), /Extends the previous request: \+2 messages \(messages 3–4\)/);
    assert.equal(await page.locator('[data-testid=diff-message][data-status=modified]').count(), 0);
    assert.equal(await page.locator('ins, del').count(), 0, 'nothing is highlighted as changed in an append-only pair');

    // Esc goes back to the run, on the request.
    await page.keyboard.press('Escape');
    await page.locator(`[data-testid=timeline-row][data-selected=true][data-event-id="${secondId}"]`).waitFor();
    assertClean(app);
  });

  test('the inspector of a request has "Diff with previous"; picking the first request as the left side extends it', async () => {
    const app = await newApp();
    const { page } = app;
    await openRun(page, 'rewrite');
    const first = await selectRow(page, '[data-type=model_request]', 0);
    const third = await selectRow(page, '[data-type=model_request]', 2);
    await page.locator(`[data-testid=event-inspector][data-event-id="${third}"][data-state=ready]`).waitFor();
    await page.locator('[data-testid=diff-with-previous]').click();
    await readyDiff(page, third).waitFor();
    assert.equal(await page.locator('[data-testid=diff-verdict]').getAttribute('data-verdict'), 'rewritten');
    await page.locator('[data-testid=diff-compare-with]').selectOption(first);
    await page.waitForURL((url) => url.hash.endsWith(`/diff/${third}/against/${first}`));
    await page.locator(`[data-testid=request-diff][data-state=ready][data-event-id="${third}"][data-previous-event-id="${first}"]`).waitFor();
    // Against the first request, the edited result is simply new: an append-only pair.
    assert.equal(await page.locator('[data-testid=diff-verdict]').getAttribute('data-verdict'), 'extends');
    assert.match(await page.locator('[data-testid=diff-verdict]').innerText(), /Extends request 1: \+4 messages/);
    assertClean(app);
  });

  test('d on a tool result opens the nearest request at or before it, and says so', async () => {
    const app = await newApp();
    const { page } = app;
    await openRun(page, 'rewrite');
    const second = await page.locator('[data-testid=timeline-row][data-type=model_request]').nth(1).getAttribute('data-event-id');
    await selectRow(page, '[data-type=tool_result]', 1);
    await page.keyboard.press('d');
    await readyDiff(page, second!).waitFor();
    assert.match(await page.locator('[data-testid=diff-from-note]').innerText(), /tool result on line 7.*nearest request at or before it \(line 5\)/);
    assert.equal(await page.locator('[data-testid=diff-verdict]').getAttribute('data-verdict'), 'extends');
    assertClean(app);
  });

  test('a run that logs no requests: the response stands for its request, rebuilt from the events, and the view says so', async () => {
    const app = await newApp();
    const { page } = app;
    await openRun(page, 'rebuilt');
    const response = await selectRow(page, '[data-type=model_response]', 1);
    await page.locator(`[data-testid=event-inspector][data-event-id="${response}"][data-state=ready]`).waitFor();
    const action = page.locator('[data-testid=diff-with-previous]');
    await action.waitFor();
    assert.match(await page.locator('.inspector-actions').innerText(), /Diff with previous request — reconstructed/);
    await page.keyboard.press('d');
    await readyDiff(page, response).waitFor();
    assert.match(await page.locator('[data-testid=reconstructed-note]').innerText(), /rebuilt from the trace's events/);
    assert.equal(await page.locator('[data-testid=diff-verdict]').getAttribute('data-verdict'), 'extends');
    assert.ok(
      (await page.locator('[data-testid=diff-message][data-status=appended]').count()) >= 1,
      'the first response and its result are new in the second request',
    );
    await saveScreenshot(page, 'request-diff-reconstructed');
    assertClean(app);
  });

  test('a message replaced by an unrelated text: jsdiff gives up, both sides are shown side by side with the reason', async () => {
    const app = await newApp();
    const { page } = app;
    await openRun(page, 'unrelated');
    const second = await selectRow(page, '[data-type=model_request]', 1);
    await page.keyboard.press('d');
    await readyDiff(page, second).waitFor({ timeout: 60_000 });
    const modified = page.locator('[data-testid=diff-message][data-status=modified]');
    assert.equal(await modified.count(), 1);
    const diff = modified.locator('[data-testid=message-diff]');
    assert.equal(await diff.getAttribute('data-state'), 'gave-up');
    assert.match(
      await diff.locator('[data-testid=diff-gave-up-reason]').innerText(),
      /^Too many changes to diff word by word(: more than 5,000 word edits| within 1,500 ms)/,
    );
    assert.equal(await diff.locator('ins, del').count(), 0);
    assert.match(await diff.locator('.side-previous').innerText(), /alpha0 alpha1 alpha2/);
    assert.match(await diff.locator('.side-next').innerText(), /omega0 omega1 omega2/);
    assertClean(app);
  });

  test('the growth section: estimated input marked, the largest growth named with its cause, fit in words; a bar opens its diff', async () => {
    const app = await newApp();
    const { page } = app;
    await openRun(page, 'growth');
    await page.locator('[data-testid=run-section-requests]').click();
    const panel = page.locator('[data-testid=requests-panel][data-state=ready]');
    await panel.waitFor();

    const bars = page.locator('[data-testid=growth-bar]');
    assert.equal(await bars.count(), 6);
    assert.deepEqual(
      await bars.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-estimated'))),
      Array(6).fill('true'),
      'no usage recorded: every count is an estimate',
    );
    assert.match(await page.locator('[data-testid=legend-estimated]').innerText(), /estimated \(o200k tokenizer\)/);
    // Estimated bars are drawn with the hatch pattern, not the solid fill.
    assert.match(String(await page.evaluate("getComputedStyle(document.querySelector('[data-testid=growth-bar] .bar-input')).fill")), /^url\("?#hatch-/);
    const inputCells = await page.locator('[data-testid=request-input-tokens]').allInnerTexts();
    assert.equal(inputCells.length, 6);
    assert.ok(
      inputCells.every((cell) => /^[\d,]+ est\.$/.test(cell.trim())),
      inputCells.join(' | '),
    );

    // The fifth request (index 4) carries the 40 KB result: the largest growth, ranked first and marked in the chart.
    assert.equal(await bars.nth(4).getAttribute('data-rank'), '1');
    const largest = page.locator('[data-testid=growth-turn]').first();
    assert.equal(await largest.getAttribute('data-request-index'), '4');
    assert.match(await largest.innerText(), /^Request 5 \+[\d.]+k tokens est\. — tool result of read_file \+[\d.]+k/);
    // One huge step in six requests: no steady step, so S and T are only the best fit, and nothing
    // claims the total grows with the square of the turns.
    const fitLine = page.locator('[data-testid=growth-fit]');
    assert.equal(await fitLine.getAttribute('data-shape'), 'irregular');
    const fit = await fitLine.innerText();
    assert.match(fit, /This run does not grow by a steady step: .*\(Best fit: S ≈ -?[\d.,k]+, T ≈ -?[\d.,k]+/s);
    assert.doesNotMatch(fit, /square/);
    await saveScreenshot(page, 'request-growth');

    // A bar opens that request's diff: an append-only pair adding the big result.
    const fifth = await page.locator('[data-testid=request-row][data-request-index="4"]').getAttribute('data-event-id');
    await bars.nth(4).click();
    await readyDiff(page, fifth!).waitFor();
    assert.equal(await page.locator('[data-testid=diff-verdict]').getAttribute('data-verdict'), 'extends');
    assert.equal(await page.locator('[data-testid=diff-message][data-status=appended][data-role=tool]').count(), 1);
    assertClean(app);
  });
});
