/**
 * Renders `loopscope analyze` on a bundled example, in colour, as the README's screenshot
 * (docs/images/analyze.png): the terminal output is turned into HTML and shot in headless
 * Chromium. Needs the build (`npm run build`) and Debian's chromium.
 *
 *   npx tsx scripts/screenshot-analyze.ts [example ...]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { repoRoot } from '../devkit/repoPaths';

const root = repoRoot;
const examples =
  process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['examples/budget-exhausted.jsonl', 'examples/dangling-call.jsonl', 'examples/broken-lines.jsonl'];
const colors: Record<string, string> = {
  '1': 'font-weight:bold;color:#fff',
  '2': 'color:#8a8f98',
  '31': 'color:#ff6b6b',
  '33': 'color:#f7c948',
  '36': 'color:#5ccfe6',
};

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The few SGR codes the CLI emits, as spans. */
function ansiToHtml(text: string): string {
  let open = false;
  // eslint-disable-next-line no-control-regex -- ANSI escape sequences are the input
  return escapeHtml(text).replace(/\u001b\[(\d+)m/g, (_, code: string) => {
    const close = open ? '</span>' : '';
    open = code !== '0';
    return code === '0' ? close : `${close}<span style="${colors[code] ?? ''}">`;
  });
}

const cache = mkdtempSync(join(tmpdir(), 'loopscope-shot-'));
const run = spawnSync(process.execPath, ['bin/loopscope.js', 'analyze', ...examples, '--cache-dir', cache], {
  cwd: root,
  encoding: 'utf8',
  env: { ...process.env, FORCE_COLOR: '1' },
});
rmSync(cache, { recursive: true, force: true });
const prompt = `<span style="color:#5ccfe6">$</span> loopscope analyze ${escapeHtml(examples.join(' '))}\n`;
const html = `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#1e2127"><pre style="margin:0;padding:18px 22px;font:13px/1.45 'DejaVu Sans Mono',monospace;color:#d7dae0;white-space:pre-wrap;width:1380px">${prompt}${ansiToHtml(run.stdout)}</pre></body>`;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
const page = await browser.newPage({ viewport: { width: 1500, height: 400 }, deviceScaleFactor: 1 });
await page.setContent(html);
await page.locator('pre').screenshot({ path: join(root, 'docs', 'images', 'analyze.png') });
await browser.close();
console.log('wrote docs/images/analyze.png');
