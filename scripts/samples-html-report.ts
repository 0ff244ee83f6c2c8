/**
 * Acceptance of HTML reports over the real trace files in ../shared/samples (not shipped, so a
 * script, not a test): each sample under 3 MB is exported with the built CLI (`npm run build`
 * first), opened from disk in Debian's chromium with every request refused, and walked — its first
 * run, the first timeline rows, steps with j/k and findings with n/p, the requests and a diff, the findings, the
 * calls, the parse errors. Prints a line per sample (size, runs, events); fails on a console or
 * page error, a request other than the file, or a view that could not load.
 *
 *   npx tsx scripts/samples-html-report.ts [DIR]     (default ../shared/samples)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../devkit/browser';
import { repoRoot } from '../devkit/repoPaths';

const samplesDir = resolve(process.argv[2] ?? join(repoRoot, '..', 'shared', 'samples'));
const maxBytes = 3_000_000;

function traceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return traceFiles(path);
    return !entry.name.endsWith('.md') && statSync(path).size <= maxBytes ? [path] : [];
  });
}

/** What went wrong walking the report at `file`, empty when nothing did. */
async function walk(browser: Browser, file: string): Promise<string[]> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const fileUrl = pathToFileURL(file).href;
  const problems: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.split('#')[0] === fileUrl) return route.continue();
    problems.push(`asked for ${url}`);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text().slice(0, 200)}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message.slice(0, 200)}`));
  try {
    await page.goto(fileUrl);
    await page.locator('[data-testid=runs-view][data-state=ready]').waitFor({ timeout: 15_000 });
    await page.locator('[data-testid=run-row]').first().click();
    await page.locator('[data-testid=run-view][data-state=ready]').waitFor({ timeout: 15_000 });
    const rows = Math.min(await page.locator('[data-testid=timeline-row]').count(), 6);
    for (let row = 0; row < rows; row += 1) await page.locator('[data-testid=timeline-row]').nth(row).click();
    for (const key of ['j', 'j', 'k', 'n', 'n', 'p']) await page.keyboard.press(key);
    await page.locator('[data-testid=run-section-requests]').click();
    await page.locator('[data-testid=requests-panel][data-state=ready]').waitFor({ timeout: 15_000 });
    if ((await page.locator('[data-testid=request-row]').count()) > 1) {
      await page.locator('[data-testid=request-row]').nth(1).locator('a').first().click();
      await page.locator('[data-testid=request-diff][data-state=ready]').waitFor({ timeout: 15_000 });
    }
    for (const tab of ['findings', 'calls', 'parse-errors']) {
      await page.locator(`[data-testid=tab-${tab}]`).click();
      await page.waitForTimeout(300);
      for (const failure of await page.locator('[data-testid=error]').allInnerTexts()) problems.push(`${tab}: ${failure.replace(/\s+/g, ' ')}`);
    }
  } catch (error) {
    problems.push((error as Error).message.split('\n')[0]!);
  } finally {
    await context.close();
  }
  return problems;
}

const dir = mkdtempSync(join(tmpdir(), 'loopscope-report-samples-'));
const browser = await launchBrowser();
let failed = 0;
try {
  for (const sample of traceFiles(samplesDir)) {
    const report = join(dir, `${basename(sample)}.html`);
    const exported = spawnSync(
      process.execPath,
      [join(repoRoot, 'bin', 'loopscope.js'), 'export', sample, '--html', report, '--cache-dir', join(dir, 'cache')],
      {
        encoding: 'utf8',
      },
    );
    const said = exported.stderr.trim().split('\n').at(-1) ?? '';
    const problems = exported.status === 0 ? await walk(browser, report) : [`export failed: ${said}`];
    if (problems.length > 0) failed += 1;
    console.log(
      `${problems.length === 0 ? 'ok  ' : 'FAIL'} ${basename(sample)}: ${said.replace(/^loopscope: wrote \S+ /, '')}${problems.map((problem) => `\n     ${problem}`).join('')}`,
    );
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
if (failed > 0) {
  console.error(`${failed} report(s) failed`);
  process.exitCode = 1;
}
