/**
 * `loopscope open`: whether the desktop app can start (an Electron binary and a display), how it
 * is started (checked with a stand-in executable, as no Electron binary can be downloaded here),
 * and the fallback a user gets on this machine: the reason, then the UI served to the browser at
 * a URL that answers. The end-to-end parts need `npm run build`.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { desktopUnavailableReason, findElectronBinary } from '../src-main/cli/openApp';
import { example, repoRoot } from './support/cli';
import { temporaryDir } from './support/engineHarness';

const installed = { binary: '/opt/electron/electron' };
const notInstalled = { missing: 'The Electron binary is not installed (/x/node_modules/electron/dist has no Electron executable)' };

describe('can the desktop app start?', () => {
  it('no: the Electron binary is missing, whatever the display', () => {
    assert.equal(desktopUnavailableReason(notInstalled, 'linux', { DISPLAY: ':0' }), notInstalled.missing);
    assert.equal(desktopUnavailableReason(notInstalled, 'darwin', {}), notInstalled.missing);
  });

  it('no: on Linux without DISPLAY or WAYLAND_DISPLAY', () => {
    assert.match(desktopUnavailableReason(installed, 'linux', {}) ?? '', /no display.*DISPLAY.*WAYLAND_DISPLAY/);
    assert.match(desktopUnavailableReason(installed, 'linux', { DISPLAY: '' }) ?? '', /no display/);
  });

  it('yes: the binary and an X11 or Wayland display are there', () => {
    assert.equal(desktopUnavailableReason(installed, 'linux', { DISPLAY: ':0' }), null);
    assert.equal(desktopUnavailableReason(installed, 'linux', { WAYLAND_DISPLAY: 'wayland-0' }), null);
  });

  it('yes: macOS and Windows always have a display', () => {
    assert.equal(desktopUnavailableReason(installed, 'darwin', {}), null);
    assert.equal(desktopUnavailableReason(installed, 'win32', {}), null);
  });
});

describe('finding the Electron binary', () => {
  it('finds the binary the electron package downloaded, or says it is missing (as on this machine)', () => {
    const packageDir = join(repoRoot, 'node_modules', 'electron');
    const lookup = findElectronBinary({});
    if (existsSync(join(packageDir, 'path.txt'))) {
      const executable = readFileSync(join(packageDir, 'path.txt'), 'utf8');
      assert.deepEqual(lookup, { binary: join(packageDir, 'dist', executable) });
    } else {
      assert.ok('missing' in lookup);
      assert.match(lookup.missing, /Electron binary is not installed .*node_modules\/electron\/dist/);
    }
  });

  it('finds the executable in $ELECTRON_OVERRIDE_DIST_PATH, as the electron package does', () => {
    const dist = temporaryDir('electron-dist');
    try {
      const executable = join(dist.path, 'electron');
      writeFileSync(executable, '#!/bin/sh\n');
      chmodSync(executable, 0o755);
      assert.deepEqual(findElectronBinary({ ELECTRON_OVERRIDE_DIST_PATH: dist.path }), { binary: executable });
    } finally {
      dist.remove();
    }
  });

  it('reports an override directory without an executable as missing', () => {
    const dist = temporaryDir('electron-dist');
    try {
      const lookup = findElectronBinary({ ELECTRON_OVERRIDE_DIST_PATH: dist.path });
      assert.ok('missing' in lookup);
      assert.match(lookup.missing, new RegExp(dist.path));
    } finally {
      dist.remove();
    }
  });
});

describe('loopscope open without an Electron binary', () => {
  let cache: { path: string; remove: () => void };
  // An empty Electron folder: the binary is missing whether or not this machine downloaded one.
  let emptyDist: { path: string; remove: () => void };

  before(() => {
    cache = temporaryDir('open-cache');
    emptyDist = temporaryDir('electron-dist');
  });

  after(() => {
    cache.remove();
    emptyDist.remove();
  });

  it('says why, serves the UI instead, and the printed URL answers', async () => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'loopscope.js'), 'open', example('normal-query'), '--cache-dir', cache.path], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: '1', DISPLAY: ':0', ELECTRON_OVERRIDE_DIST_PATH: emptyDist.path },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = once(child, 'exit');
    try {
      // stdout and stderr are separate pipes: wait until both have said their part.
      const url = await new Promise<string>((resolveUrl, reject) => {
        const check = (): void => {
          const match = /(http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/)/.exec(stdout);
          if (match?.[1] && stderr.endsWith('\n')) resolveUrl(match[1]);
        };
        child.stdout.on('data', check);
        child.stderr.on('data', check);
        void exited.then(() => reject(new Error(`loopscope open exited before printing a URL\nstdout: ${stdout}\nstderr: ${stderr}`)));
      });
      assert.match(stderr, /^loopscope: The Electron binary is not installed .*serving the UI in your browser instead\.\n$/);
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<title>Loopscope<\/title>/);
    } finally {
      child.kill('SIGINT');
      const [code] = await exited;
      assert.equal(code, 0, `loopscope open ended on SIGINT with ${String(code)}\nstderr: ${stderr}`);
    }
  });
});

describe('loopscope open with an Electron binary and a display', () => {
  it('starts Electron detached on the app folder with the absolute file paths and the cache folder', async () => {
    const dist = temporaryDir('electron-dist');
    const cache = temporaryDir('open-cache');
    try {
      // Records what it was started with, written whole so that it is never read half-written.
      const executable = join(dist.path, 'electron');
      const record = join(dist.path, 'started-with');
      writeFileSync(
        executable,
        `#!/bin/sh\n{ printf '%s\\n' "$@"; echo "cache=$LOOPSCOPE_CACHE_DIR"; echo "run-as-node=\${ELECTRON_RUN_AS_NODE-unset}"; } > '${record}.partial' && mv '${record}.partial' '${record}'\n`,
      );
      chmodSync(executable, 0o755);
      const result = spawnSync(process.execPath, [join(repoRoot, 'bin', 'loopscope.js'), 'open', example('normal-query'), '--cache-dir', cache.path], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: dist.path, DISPLAY: ':99', ELECTRON_RUN_AS_NODE: '1' },
        timeout: 60_000,
      });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stderr, '');
      while (!existsSync(record)) await sleep(20);
      const [appDir, ...rest] = readFileSync(record, 'utf8').trimEnd().split('\n');
      assert.deepEqual(rest, [resolve(repoRoot, example('normal-query')), `cache=${cache.path}`, 'run-as-node=unset']);
      // The app folder is the package whose main is the built Electron main process.
      assert.equal(resolve(appDir ?? ''), resolve(repoRoot));
      assert.equal((JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { main: string }).main, 'out/main/index.js');
    } finally {
      dist.remove();
      cache.remove();
    }
  });
});
