/**
 * Issue 15, task 5: search for a word seen in a tool output, open the hit, see the word highlighted,
 * go to the next match. On a committed fixture shaped like a Codex rollout (outputs written as
 * `{"output": …, "metadata": …}` JSON strings, one as Exit code / Wall time headers), where the word
 * sits in three tool outputs; every action is counted.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp, serveTraces, type AppPage, type ServedTraces } from '../../devkit/browser';
import { UserActions } from '../support/userActions';
import { testFixturesDir } from '../../devkit/repoPaths';

const fixture = join(testFixturesDir, 'ui', 'codex-kumquat-rollout.jsonl');

function hashOf(app: AppPage): string {
  return decodeURIComponent(new URL(app.page.url()).hash);
}

describe('task 5: search a word from a tool output, see it highlighted, go to the next match', () => {
  let served: ServedTraces;
  let browser: Browser;
  let app: AppPage;

  before(async () => {
    served = await serveTraces([fixture]);
    browser = await launchBrowser();
    app = await openApp(browser, served.url);
    await app.page.locator('[data-testid=runs-view][data-state=ready]').waitFor();
  });

  after(async () => {
    await browser?.close();
    await served?.stop();
  });

  test('hits in trace order naming tool and step; the opened output marks the word; Enter and the button go on to the next match', async () => {
    const { page } = app;
    const user = new UserActions(page);
    await user.type(page.locator('[data-testid=search-input]'), 'kumquat', 'the search box');
    await user.press('Enter');
    await page.locator('[data-testid=search-view][data-state=ready][data-query=kumquat]').waitFor();

    // In the order the trace has them: the task first, then the three outputs by step, each naming its tool.
    const places = await page.locator('[data-testid=search-hit] .search-hit-where').allTextContents();
    const outputHits = places.filter((place) => place.includes('tool result'));
    assert.deepEqual(
      outputHits.map((place) => place.replace(/ · line \d+.*$/, '')),
      ['step 1 · tool result · shell', 'step 2 · tool result · shell', 'step 4 · tool result · shell'],
    );
    assert.ok(places.indexOf(outputHits[0]!) > 0, "the run's task, which names the word too, comes before the outputs");

    await user.click(page.locator('[data-testid=search-hit]', { hasText: 'step 1 · tool result' }), 'the step 1 output hit');
    const inspector = page.locator('[data-testid=event-inspector][data-state=ready]');
    await inspector.waitFor();
    assert.match(hashOf(app), /\/step\/1\/event\/\d+\?q=kumquat$/, 'the query stays in the URL');
    // The decoded output, its real line breaks as lines, the word marked in it and in the record's JSON.
    const output = inspector.locator('[data-testid=event-output] [data-testid=output-text]');
    assert.equal(await output.locator('mark').first().textContent(), 'kumquat');
    assert.equal(await output.locator('.output-gutter').textContent(), '1\n2');
    assert.doesNotMatch((await output.locator('.output-body').textContent()) ?? '', /\\n/);
    assert.ok((await inspector.locator('[data-testid=json-tree] mark', { hasText: 'kumquat' }).count()) > 0, 'the JSON view marks it too');
    const firstPosition = await inspector.locator('[data-testid=search-match-position]').textContent();
    const firstEvent = await inspector.getAttribute('data-event-id');

    await user.press('Enter', 'Enter (next match)');
    await page.locator(`[data-testid=event-inspector][data-state=ready]:not([data-event-id="${firstEvent}"])`).waitFor();
    assert.match(hashOf(app), /\/step\/2\/event\/\d+\?q=kumquat$/);
    const second = page.locator('[data-testid=event-inspector][data-state=ready] [data-testid=event-output] [data-testid=output-text]');
    assert.equal(await second.locator('mark').first().textContent(), 'kumquat');
    assert.notEqual(await page.locator('[data-testid=search-match-position]').textContent(), firstPosition);

    const secondEvent = await page.locator('[data-testid=event-inspector]').getAttribute('data-event-id');
    await user.click(page.locator('[data-testid=next-match]'), 'Next match');
    await page.locator(`[data-testid=event-inspector][data-state=ready]:not([data-event-id="${secondEvent}"])`).waitFor();
    assert.match(hashOf(app), /\/step\/4\/event\/\d+\?q=kumquat$/);
    // The shell tool's headers are read off: the marked word sits in the output proper, exit code as a badge.
    const third = page.locator('[data-testid=event-inspector][data-state=ready] [data-testid=event-output]');
    assert.equal(await third.locator('[data-testid=output-text] mark').first().textContent(), 'kumquat');
    assert.equal(await third.locator('[data-testid=output-exit-code]').textContent(), 'exit code 0');
    assert.doesNotMatch((await third.locator('.output-body').textContent()) ?? '', /Wall time/);

    assert.equal(user.count, 5, user.log.join('; '));
    assert.deepEqual(app.problems, []);
  });
});
