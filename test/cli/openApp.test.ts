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
import { after, before, describe, it } from 'node:test';
import { desktopAppName, desktopDataFolder, launchDesktop, launchFailureReason } from '../../src-main/cli/desktopLaunch';
import {
  desktopUnavailableReason,
  downloadQuestion,
  electronAfterOffer,
  findElectronBinary,
  openApp,
  type ElectronDownload,
  type ElectronLookup,
} from '../../src-main/cli/openApp';
import { windowReadyLine } from '../../src-main/electron/launchArguments';
import { example } from '../support/cli';
import { temporaryDir } from '../support/engineHarness';
import { repoRoot } from '../../devkit/repoPaths';

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

/**
 * `loopscope open FILE` with `env` added, where the desktop app cannot start: resolves `served`
 * with the URL it prints once stderr says its part (`said`: stdout and stderr are separate pipes).
 */
function openServingFallback(cacheDir: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'loopscope.js'), 'open', example('normal-query'), '--cache-dir', cacheDir], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = once(child, 'exit');
  const served = (said: (stderr: string) => boolean) =>
    new Promise<string>((resolveUrl, reject) => {
      const check = (): void => {
        const match = /(http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/)/.exec(output.stdout);
        if (match?.[1] && said(output.stderr)) resolveUrl(match[1]);
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      void exited.then(() => reject(new Error(`loopscope open exited before printing a URL\nstdout: ${output.stdout}\nstderr: ${output.stderr}`)));
    });
  return { child, output, exited, served };
}

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
    const { child, output, exited, served } = openServingFallback(cache.path, { DISPLAY: ':0', ELECTRON_OVERRIDE_DIST_PATH: emptyDist.path });
    try {
      const url = await served((text) => text.endsWith('\n'));
      // One line: how to get the binary, and no question, as nobody is at a terminal to answer it.
      assert.match(
        output.stderr,
        /^loopscope: The Electron binary is not installed .*`npx install-electron` downloads it\) — serving the UI in your browser instead\.\n$/,
      );
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<title>Loopscope<\/title>/);
    } finally {
      child.kill('SIGINT');
      const [code] = await exited;
      assert.equal(code, 0, `loopscope open ended on SIGINT with ${String(code)}\nstderr: ${output.stderr}`);
    }
  });
});

/** A stand-in Electron executable: a shell script in its own dist folder. */
function standInElectron(script: string): { dist: string; binary: string; remove: () => void } {
  const dist = temporaryDir('electron-dist');
  const binary = join(dist.path, 'electron');
  writeFileSync(binary, `#!/bin/sh\n${script}\n`);
  chmodSync(binary, 0o755);
  return { dist: dist.path, binary, remove: dist.remove };
}

// Chromium's own message where user namespaces are restricted (content/browser/zygote_host/zygote_host_impl_linux.cc).
const noUsableSandbox =
  'FATAL:content/browser/zygote_host/zygote_host_impl_linux.cc:132] No usable sandbox! If you are running on Ubuntu 23.10+ or another Linux distro that has disabled unprivileged user namespaces with AppArmor, see https://chromium.googlesource.com/chromium/src/+/main/docs/security/apparmor-userns-restrictions.md. Otherwise see https://chromium.googlesource.com/chromium/src/+/main/docs/linux/suid_sandbox_development.md for more information on developing with the (older) SUID sandbox. If you want to live dangerously and need an immediate workaround, you can try using --no-sandbox.';

describe('the desktop data folder', () => {
  it('is where Electron keeps app.getPath("userData"): the platform folder and the package name', () => {
    assert.equal(desktopAppName(repoRoot), 'loopscope');
    assert.equal(desktopDataFolder('loopscope', 'linux', {}, '/home/ana'), '/home/ana/.config/loopscope');
    assert.equal(desktopDataFolder('loopscope', 'linux', { XDG_CONFIG_HOME: '/cfg' }, '/home/ana'), '/cfg/loopscope');
    assert.equal(desktopDataFolder('loopscope', 'darwin', {}, '/Users/ana'), '/Users/ana/Library/Application Support/loopscope');
    assert.equal(
      desktopDataFolder('loopscope', 'win32', { APPDATA: 'C:/Users/ana/AppData/Roaming' }, 'C:/Users/ana'),
      join('C:/Users/ana/AppData/Roaming', 'loopscope'),
    );
  });
});

describe('starting Electron and watching the launch', () => {
  let work: { path: string; remove: () => void };
  before(() => {
    work = temporaryDir('launch');
  });
  after(() => work.remove());

  const launchWith = (binary: string, waitMs = 20_000) => ({
    binary,
    args: ['/opt/loopscope', '/t/a.jsonl'],
    env: process.env,
    logPath: join(work.path, 'data', 'launch.log'),
    waitMs,
  });

  it('is ready once the app prints that its window is ready, and keeps its output in the launch log', async () => {
    const electron = standInElectron(`echo "gpu init"; echo "${windowReadyLine} (process $$)"; sleep 2`);
    try {
      assert.deepEqual(await launchDesktop(launchWith(electron.binary)), { kind: 'ready' });
      const log = readFileSync(join(work.path, 'data', 'launch.log'), 'utf8');
      assert.match(log, /=== \S+ loopscope open \/opt\/loopscope \/t\/a\.jsonl\ngpu init\n/);
    } finally {
      electron.remove();
    }
  });

  it('says the files were handed over when the launch exits with 0 before a window (another Loopscope runs)', async () => {
    const electron = standInElectron('exit 0');
    try {
      assert.deepEqual(await launchDesktop(launchWith(electron.binary)), { kind: 'handed-over' });
    } finally {
      electron.remove();
    }
  });

  it('is still starting when neither happens within the wait', async () => {
    const electron = standInElectron('sleep 3');
    try {
      assert.deepEqual(await launchDesktop(launchWith(electron.binary, 300)), { kind: 'starting' });
    } finally {
      electron.remove();
    }
  });

  it("fails with the exit code and only this launch's output, and appends to the log of earlier launches", async () => {
    const electron = standInElectron(`echo '${noUsableSandbox}' >&2; exit 133`);
    try {
      const outcome = await launchDesktop(launchWith(electron.binary));
      assert.equal(outcome.kind, 'failed');
      assert.ok(outcome.kind === 'failed');
      assert.equal(outcome.code, 133);
      assert.equal(outcome.output, `${noUsableSandbox}\n`);
      const log = readFileSync(join(work.path, 'data', 'launch.log'), 'utf8');
      assert.match(log, /gpu init[\s\S]*No usable sandbox/, 'earlier launches stay in the log');
    } finally {
      electron.remove();
    }
  });
});

describe('why a launch failed', () => {
  const context = { binary: '/opt/electron/electron', logPath: '/home/ana/.config/loopscope/launch.log' };

  it("names the sandbox remedies and the risk of --no-sandbox when Chromium's sandbox could not start", () => {
    const reason = launchFailureReason({ kind: 'failed', code: 133, signal: null, output: `${noUsableSandbox}\n` }, context);
    assert.match(reason, /^the desktop app exited with code 133 before its window opened\./);
    assert.match(reason, /sudo chown root:root \/opt\/electron\/chrome-sandbox && sudo chmod 4755 \/opt\/electron\/chrome-sandbox/);
    assert.match(reason, /user namespaces/);
    assert.match(reason, /loopscope open --no-sandbox/);
    assert.match(reason, /would no longer be contained/);
    assert.match(reason, /Its last output:\n {2}FATAL:content\/browser\/zygote_host/);
    assert.match(reason, /Full log: \/home\/ana\/\.config\/loopscope\/launch\.log$/);
  });

  it('recognises the SUID helper message too', () => {
    const suid =
      "[1:1:FATAL:setuid_sandbox_host.cc(163)] The SUID sandbox helper binary was found, but is not configured correctly. Rather than run without sandboxing I'm aborting now. You need to make sure that /opt/electron/chrome-sandbox is owned by root and has mode 4755.";
    assert.match(
      launchFailureReason({ kind: 'failed', code: null, signal: 'SIGTRAP', output: suid }, context),
      /^the desktop app was killed by SIGTRAP[\s\S]*sudo chmod 4755/,
    );
  });

  it('says there is no display when the window could not open on one', () => {
    const reason = launchFailureReason(
      {
        kind: 'failed',
        code: 1,
        signal: null,
        output: '[9:9:ERROR:ozone_platform_x11.cc(247)] Missing X server or $DISPLAY\n[9:9:ERROR:env.cc(257)] The platform failed to initialize.  Exiting.\n',
      },
      context,
    );
    assert.match(reason, /no display/);
    assert.doesNotMatch(reason, /sandbox/);
  });

  it('shows the last lines of an unknown failure, or says it wrote nothing', () => {
    const many = Array.from({ length: 20 }, (_, index) => `line ${index}`).join('\n');
    const reason = launchFailureReason({ kind: 'failed', code: 1, signal: null, output: many }, context);
    assert.match(reason, /line 12\n {2}line 13/);
    assert.doesNotMatch(reason, /line 11\b/);
    assert.match(launchFailureReason({ kind: 'failed', code: 1, signal: null, output: '' }, context), /It wrote nothing\./);
  });
});

describe('loopscope open with an Electron binary and a display', () => {
  it('starts Electron detached on the app folder with the absolute file paths and the cache folder, and says the app is open', async () => {
    const config = temporaryDir('xdg-config');
    const cache = temporaryDir('open-cache');
    const record = join(config.path, 'started-with');
    // Records what it was started with (written whole so that it is never read half-written), then says its window is ready.
    const electron = standInElectron(
      `{ printf '%s\\n' "$@"; echo "cache=$LOOPSCOPE_CACHE_DIR"; echo "run-as-node=\${ELECTRON_RUN_AS_NODE-unset}"; } > '${record}.partial' && mv '${record}.partial' '${record}'\necho "${windowReadyLine} (process $$)"`,
    );
    try {
      const result = spawnSync(process.execPath, [join(repoRoot, 'bin', 'loopscope.js'), 'open', example('normal-query'), '--cache-dir', cache.path], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: electron.dist, DISPLAY: ':99', ELECTRON_RUN_AS_NODE: '1', XDG_CONFIG_HOME: config.path },
        timeout: 60_000,
      });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stderr, 'loopscope: the desktop app is open.\n');
      const [appDir, ...rest] = readFileSync(record, 'utf8').trimEnd().split('\n');
      assert.deepEqual(rest, [resolve(repoRoot, example('normal-query')), `cache=${cache.path}`, 'run-as-node=unset']);
      // The app folder is the package whose main is the built Electron main process.
      assert.equal(resolve(appDir ?? ''), resolve(repoRoot));
      assert.equal((JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { main: string }).main, 'out/main/index.js');
      assert.match(readFileSync(join(config.path, 'loopscope', 'launch.log'), 'utf8'), new RegExp(`${windowReadyLine} \\(process \\d+\\)`));
    } finally {
      electron.remove();
      cache.remove();
      config.remove();
    }
  });

  it('passes --no-sandbox to Electron before the app folder', () => {
    const config = temporaryDir('xdg-config');
    const record = join(config.path, 'started-with');
    const electron = standInElectron(`printf '%s\\n' "$@" > '${record}'\necho "${windowReadyLine}"`);
    try {
      const result = spawnSync(process.execPath, [join(repoRoot, 'bin', 'loopscope.js'), 'open', '--no-sandbox'], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: electron.dist, DISPLAY: ':99', XDG_CONFIG_HOME: config.path },
        timeout: 60_000,
      });
      assert.equal(result.status, 0, result.stderr);
      assert.deepEqual(
        readFileSync(record, 'utf8')
          .trimEnd()
          .split('\n')
          .map((argument) => (argument === '--no-sandbox' ? argument : resolve(argument))),
        ['--no-sandbox', resolve(repoRoot)],
      );
    } finally {
      electron.remove();
      config.remove();
    }
  });

  it('explains a launch that dies before its window, keeps its output in the log, and serves the UI instead', async () => {
    const config = temporaryDir('xdg-config');
    const cache = temporaryDir('open-cache');
    const electron = standInElectron(`echo '${noUsableSandbox}' >&2; exit 133`);
    const { child, output, exited, served } = openServingFallback(cache.path, {
      DISPLAY: ':0',
      ELECTRON_OVERRIDE_DIST_PATH: electron.dist,
      XDG_CONFIG_HOME: config.path,
    });
    try {
      const url = await served((text) => text.includes('instead.\n'));
      const stderr = output.stderr;
      assert.match(stderr, /^loopscope: the desktop app exited with code 133 before its window opened\./);
      assert.match(stderr, /chrome-sandbox[\s\S]*--no-sandbox/);
      const logPath = join(config.path, 'loopscope', 'launch.log');
      assert.match(stderr, new RegExp(`Full log: ${logPath.replace(/[.]/g, '\\.')} — serving the UI in your browser instead\\.\\n$`));
      assert.match(readFileSync(logPath, 'utf8'), /No usable sandbox/);
      assert.equal((await fetch(url)).status, 200);
    } finally {
      child.kill('SIGINT');
      await exited;
      electron.remove();
      cache.remove();
      config.remove();
    }
  });
});

/** A download offer whose answers and install are scripted; it records the questions and installs. */
function scriptedDownload(options: { interactive: boolean; answer: string; install?: () => boolean; lookup?: () => ElectronLookup }) {
  const questions: string[] = [];
  let installs = 0;
  const download: ElectronDownload = {
    interactive: options.interactive,
    ask: async (question) => {
      questions.push(question);
      return options.answer;
    },
    install: async () => {
      installs += 1;
      return options.install?.() ?? true;
    },
    lookup: options.lookup ?? (() => notInstalled),
  };
  return { download, questions, installs: () => installs };
}

describe('offering the Electron download when the binary is missing', () => {
  it('asks nothing and downloads nothing when the binary is there', async () => {
    const offer = scriptedDownload({ interactive: true, answer: 'y' });
    assert.deepEqual(await electronAfterOffer(installed, offer.download), installed);
    assert.deepEqual(offer.questions, []);
    assert.equal(offer.installs(), 0);
  });

  it('asks nothing without a terminal: the binary stays missing, with the hint', async () => {
    const offer = scriptedDownload({ interactive: false, answer: 'y' });
    assert.deepEqual(await electronAfterOffer(notInstalled, offer.download), notInstalled);
    assert.deepEqual(offer.questions, []);
    assert.equal(offer.installs(), 0);
  });

  for (const answer of ['n', '', 'no', 'maybe']) {
    it(`downloads nothing when the answer is ${JSON.stringify(answer)} (the default is no)`, async () => {
      const offer = scriptedDownload({ interactive: true, answer });
      assert.deepEqual(await electronAfterOffer(notInstalled, offer.download), notInstalled);
      assert.equal(offer.questions.length, 1);
      assert.equal(offer.installs(), 0);
    });
  }

  it('asks why and whether to download, then finds the binary the download put there', async () => {
    const offer = scriptedDownload({ interactive: true, answer: 'Y', lookup: () => installed });
    assert.deepEqual(await electronAfterOffer(notInstalled, offer.download), installed);
    assert.deepEqual(offer.questions, [`loopscope: ${notInstalled.missing}.\n${downloadQuestion}`]);
    assert.equal(downloadQuestion, 'Download Electron now with `npx install-electron`? [y/N] ');
    assert.equal(offer.installs(), 1);
  });

  it('stays missing, saying the download failed, when `npx install-electron` does not succeed', async () => {
    const offer = scriptedDownload({ interactive: true, answer: 'yes', install: () => false, lookup: () => installed });
    const lookup = await electronAfterOffer(notInstalled, offer.download);
    assert.ok('missing' in lookup);
    assert.match(lookup.missing, /not installed .*`npx install-electron` did not succeed$/);
  });
});

describe('loopscope open when the user downloads Electron at the prompt', () => {
  const changed = ['DISPLAY', 'ELECTRON_OVERRIDE_DIST_PATH', 'XDG_CONFIG_HOME'] as const;
  const saved = Object.fromEntries(changed.map((name) => [name, process.env[name]]));
  let dist: { path: string; remove: () => void };
  let config: { path: string; remove: () => void };
  let cache: { path: string; remove: () => void };

  before(() => {
    dist = temporaryDir('electron-dist');
    config = temporaryDir('xdg-config');
    cache = temporaryDir('open-cache');
    // openApp reads the machine's settings from the environment, as the CLI does.
    process.env['DISPLAY'] = ':99';
    process.env['ELECTRON_OVERRIDE_DIST_PATH'] = dist.path;
    process.env['XDG_CONFIG_HOME'] = config.path;
  });

  after(() => {
    for (const name of changed) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    dist.remove();
    config.remove();
    cache.remove();
  });

  it('starts the desktop app on the files with the binary the download wrote', async () => {
    const record = join(config.path, 'started-with');
    // The download writes an executable where findElectronBinary looks; it records its arguments and says its window is ready.
    const install = () => {
      const binary = join(dist.path, 'electron');
      writeFileSync(binary, `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}'\necho "${windowReadyLine}"\n`);
      chmodSync(binary, 0o755);
      return true;
    };
    assert.ok('missing' in findElectronBinary(process.env), 'the binary is missing before the download');
    const offer = scriptedDownload({ interactive: true, answer: 'y', install, lookup: () => findElectronBinary(process.env) });
    const trace = resolve(repoRoot, example('normal-query'));
    assert.equal(await openApp([trace], { cacheDir: cache.path }, offer.download), 0);
    assert.equal(offer.questions.length, 1);
    assert.equal(offer.installs(), 1);
    const [appDir, ...files] = readFileSync(record, 'utf8').trimEnd().split('\n');
    assert.equal(resolve(appDir ?? ''), resolve(repoRoot));
    assert.deepEqual(files, [trace]);
  });
});
