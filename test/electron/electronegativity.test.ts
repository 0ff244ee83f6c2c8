/**
 * The Electronegativity wrapper (scripts/electronegativity.ts) fails the build on a high-severity
 * finding, which the tool itself never does: run over a main process that turns context isolation
 * off, it exits 1 and names the check, the file and the line. (`npm test` runs it over the built app,
 * where it must pass.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { temporaryDir } from '../support/engineHarness';
import { repoRoot } from '../../devkit/repoPaths';

describe('npm run electronegativity', { timeout: 180_000 }, () => {
  const dir = temporaryDir('electronegativity');
  after(() => dir.remove());

  it('exits 1 on a high-severity finding, naming the check, the file and the line', () => {
    writeFileSync(
      join(dir.path, 'main.js'),
      [
        "const { app, BrowserWindow } = require('electron');",
        'app.whenReady().then(() => {',
        '  const window = new BrowserWindow({ webPreferences: { nodeIntegration: true, contextIsolation: false } });',
        "  window.loadURL('https://example.com');",
        '});',
        '',
      ].join('\n'),
    );
    const result = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts', 'electronegativity.ts'), dir.path], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 170_000,
    });
    assert.equal(result.status, 1, `${result.stdout}${result.stderr}`);
    assert.match(
      result.stdout,
      /^HIGH CONTEXT_ISOLATION_JS_CHECK \(FIRM\) main\.js:3:\d+: .*\n {2}const window = new BrowserWindow\(\{ webPreferences: \{ nodeIntegration: true, contextIsolation: false \} \}\);\n {2}→ FAILS THE BUILD$/m,
    );
    assert.match(result.stdout, /: \d+ findings, [1-9]\d* high-severity not reviewed\n$/);
  });
});
