/**
 * Cost per step, run, sub-agent and trace in the app (issue 18, docs/semantics.md §19), served with
 * a user price file for the private model of devkit/uiTraces/costedRuns.ts: the runs table, the
 * run's header (its own cost and with its sub-agents rolled up), the sub-agent on the call that
 * started it, each response in the timeline, and the trace's total beside its name — at 1440×900
 * and 1024×700, light and dark.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openApp, saveScreenshot, serveTraceFile, type ServedTraceFile } from '../../devkit/browser';
import { costedRuns, costedRunsLines } from '../../devkit/uiTraces/costedRuns';
import { formatUsd } from '../../shared/formatUsd';
import { temporaryDir } from '../support/engineHarness';
import { UserActions } from '../support/userActions';

const prices = temporaryDir('e2e-prices');
let served: ServedTraceFile;

before(async () => {
  const pricesFile = join(prices.path, 'prices.json');
  writeFileSync(pricesFile, JSON.stringify({ models: [costedRuns.privateModel] }));
  served = await serveTraceFile('costed-runs.jsonl', `${costedRunsLines().join('\n')}\n`, { pricesFile });
});

after(async () => {
  await served?.close();
  prices.remove();
});

const rolledUp = costedRuns.leadPricedUsd + costedRuns.helperRecordedUsd + costedRuns.deepRecordedUsd;

describe('cost in a trace', () => {
  for (const [width, height, colorScheme] of [
    [1440, 900, 'light'],
    [1024, 700, 'dark'],
  ] as const) {
    test(`${width}×${height} ${colorScheme}: each response, run, sub-agent and the trace priced; the unknown model says so`, async () => {
      const app = await openApp(served.browser, served.served.url, { colorScheme });
      const { page } = app;
      await page.setViewportSize({ width, height });
      const actions = new UserActions(page);
      await page.locator('[data-testid=runs-view][data-state=ready]').waitFor();

      // The trace's total is the rolled-up cost of its root run; "+?" marks the unpriced response.
      assert.equal(await page.locator('[data-testid=trace-cost]').innerText(), `${formatUsd(rolledUp)} +?`);
      const leadRow = page.locator('[data-testid=run-row][data-run-id=lead]');
      assert.match(await leadRow.innerText(), new RegExp(`\\${formatUsd(costedRuns.leadPricedUsd)} \\+\\?`));
      assert.match(
        await page.locator('[data-testid=run-row][data-run-id=helper]').innerText(),
        new RegExp(`\\${formatUsd(costedRuns.helperRecordedUsd)}(?! \\+)`),
      );

      await actions.click(leadRow, 'the run "lead"');
      await page.locator('[data-testid=run-view][data-state=ready]').waitFor();
      assert.equal(await page.locator('[data-testid=run-cost]').innerText(), `${formatUsd(costedRuns.leadPricedUsd)} +?`);
      assert.equal(await page.locator('[data-testid=run-cost-with-subagents]').innerText(), `${formatUsd(rolledUp)} +?`);
      assert.match((await page.locator('[data-testid=run-cost]').getAttribute('title')) ?? '', /1 response has no price/);

      // Each response in the timeline: the priced one's figure, the unknown model's "no price".
      const responses = page.locator('[data-testid=event-chip].type-model_response');
      assert.match(await responses.nth(0).innerText(), new RegExp(`\\${formatUsd(costedRuns.leadPricedUsd)}`));
      assert.match(await responses.nth(1).innerText(), /no price/);
      // The sub-agent on the call that started it: its cost with the sub-agent it started in turn.
      assert.equal(
        await page.locator('[data-testid=subagent-summary][data-call-id=lead-c1] [data-testid=subagent-cost]').innerText(),
        formatUsd(costedRuns.helperRecordedUsd + costedRuns.deepRecordedUsd),
      );
      await saveScreenshot(page, `cost-run-${width}x${height}-${colorScheme}`);

      // The inspector says where a response's figure came from, and why the other has none.
      await actions.click(responses.nth(1), 'the unknown model’s response');
      const fields = page.locator('[data-testid=normalized-fields]');
      await fields.waitFor();
      assert.match(await fields.innerText(), new RegExp(`no price: model "${costedRuns.unknownModel}" is not in the price table`));
      assert.deepEqual(app.problems, []);
      await page.context().close();
    });
  }
});
