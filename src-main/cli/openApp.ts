/**
 * `loopscope open FILE…`: starts the desktop app on the files. Where it cannot run (the Electron
 * binary was never downloaded, there is no display, or it dies before its window opens: see
 * desktopLaunch.ts), the same UI is served to the browser instead, and the user is told why. A
 * user at a terminal whose only missing piece is the Electron binary is offered its download first.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { fileURLToPath } from 'node:url';
import { identifyFile } from '../engine';
import { desktopAppName, desktopDataFolder, launchDesktop, launchFailureReason, type DesktopLaunch, type LaunchOutcome } from './desktopLaunch';
import { serveUntilInterrupted, type ServeOptions } from './serve';
import { idleAfterVariable, pricesVariable } from '../electron/launchArguments';
import { otlpVariable } from '../otlp/receivedTraces';

export type ElectronLookup = { binary: string } | { missing: string };

/**
 * Where the Electron executable is, the way the `electron` package finds it (its path.txt under
 * dist/, or $ELECTRON_OVERRIDE_DIST_PATH), without `require('electron')`: that starts a download
 * when the binary is missing, which must not happen behind a user's command.
 */
export function findElectronBinary(env: NodeJS.ProcessEnv): ElectronLookup {
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return { missing: 'The electron package is not installed (run `npm install`)' };
  }
  let executable: string | undefined;
  try {
    executable = readFileSync(join(packageDir, 'path.txt'), 'utf8');
  } catch {
    executable = undefined;
  }
  const overrideDir = env['ELECTRON_OVERRIDE_DIST_PATH'];
  const distDir = overrideDir || join(packageDir, 'dist');
  const binary = join(distDir, executable ?? 'electron');
  if ((executable === undefined && !overrideDir) || !existsSync(binary)) {
    return { missing: `The Electron binary is not installed (${distDir} has no Electron executable; \`npx install-electron\` downloads it)` };
  }
  return { binary };
}

/** Why the desktop app cannot start here, or null when it can. */
export function desktopUnavailableReason(electron: ElectronLookup, platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string | null {
  if ('missing' in electron) return electron.missing;
  // macOS and Windows always have a display; elsewhere a window needs an X11 or Wayland session.
  if (platform !== 'darwin' && platform !== 'win32' && !env['DISPLAY'] && !env['WAYLAND_DISPLAY']) {
    return 'There is no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set)';
  }
  return null;
}

/**
 * The app directory (its package.json names out/main/index.js as main), found from this file as
 * built into out/main/. Electron is started on the directory rather than on index.js so that the
 * app has its own name, version and user-data folder (recent files, window state).
 */
const appDir = fileURLToPath(new URL('../../', import.meta.url));

/** How long `loopscope open` waits for the window (or an early exit) before it leaves the app starting. */
const launchWaitMs = 10_000;

export interface OpenAppOptions extends ServeOptions {
  /** Start Electron with `--no-sandbox` (the escape hatch where Chromium's sandbox cannot start; see launchFailureReason). */
  noSandbox?: boolean;
}

/** The environment and arguments Electron is started with. */
function electronLaunch(binary: string, files: string[], options: OpenAppOptions): DesktopLaunch {
  const env = { ...process.env };
  // A shell that sets ELECTRON_RUN_AS_NODE would make Electron behave as plain Node.
  delete env['ELECTRON_RUN_AS_NODE'];
  // The app's engine reads its cache folder from the environment, as the CLI's does by default.
  if (options.cacheDir !== undefined) env['LOOPSCOPE_CACHE_DIR'] = options.cacheDir;
  if (options.idleAfterMs !== undefined) env[idleAfterVariable] = options.idleAfterMs === null ? 'off' : String(options.idleAfterMs);
  if (options.pricesFile !== undefined) env[pricesVariable] = resolve(options.pricesFile);
  if (options.otlp !== undefined) env[otlpVariable] = JSON.stringify(options.otlp);
  const logPath = join(desktopDataFolder(desktopAppName(appDir), process.platform, process.env), 'launch.log');
  const args = [...(options.noSandbox ? ['--no-sandbox'] : []), appDir, ...files];
  return { binary, args, env, logPath, waitMs: launchWaitMs };
}

/** What offering the Electron download needs from the terminal and the machine (injected, so that the decision is tested). */
export interface ElectronDownload {
  /** Whether there is a user to ask: stdin and stderr are terminals. */
  interactive: boolean;
  /** Asks the question and resolves the answer typed. */
  ask(question: string): Promise<string>;
  /** Downloads the binary (`npx install-electron`); resolves whether that succeeded. */
  install(): Promise<boolean>;
  /** Where the binary is, looked for again after the download. */
  lookup(): ElectronLookup;
}

export const downloadQuestion = 'Download Electron now with `npx install-electron`? [y/N] ';

/**
 * The Electron binary to launch: the one found, or, when it is missing and the user says yes at
 * the terminal, the one `npx install-electron` downloads. Anything else (no terminal, no, a failed
 * download) leaves it missing, with the reason the caller reports before serving the UI instead.
 */
export async function electronAfterOffer(found: ElectronLookup, download: ElectronDownload): Promise<ElectronLookup> {
  if ('binary' in found || !download.interactive) return found;
  const answer = await download.ask(`loopscope: ${found.missing}.\n${downloadQuestion}`);
  if (!/^\s*y(es)?\s*$/i.test(answer)) return found;
  if (!(await download.install())) return { missing: `${found.missing}, and \`npx install-electron\` did not succeed` };
  return download.lookup();
}

/**
 * The download through this process's terminal. `npx` runs in the app directory, so that it finds
 * the electron package's own `install-electron` there (`--no`: never a package of that name from
 * the registry instead).
 */
function terminalDownload(): ElectronDownload {
  return {
    interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
    ask: async (question) => {
      const terminal = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await terminal.question(question);
      } catch (error) {
        // Ctrl+C at the question (readline takes it from the terminal) ends the command, as it does anywhere else.
        if ((error as Error).name === 'AbortError') {
          process.stderr.write('\n');
          process.exit(130);
        }
        throw error;
      } finally {
        terminal.close();
      }
    },
    install: () =>
      new Promise((resolveInstall) => {
        const child = spawn('npx', ['--no', 'install-electron'], { cwd: appDir, stdio: 'inherit', shell: process.platform === 'win32' });
        child.on('error', () => resolveInstall(false));
        child.on('exit', (code) => resolveInstall(code === 0));
      }),
    lookup: () => findElectronBinary(process.env),
  };
}

export async function openApp(files: string[], options: OpenAppOptions, download: ElectronDownload = terminalDownload()): Promise<number> {
  // Every file is checked before anything starts, so a typo fails fast with its reason.
  const paths = files.map((file) => identifyFile(file).path);
  const roots = (options.libraryRoots ?? []).map((root) => resolve(root));
  const found = findElectronBinary(process.env);
  // The download is offered only where the binary is all that is missing: without a display it would not help.
  const worthDownloading = 'missing' in found && desktopUnavailableReason({ binary: '' }, process.platform, process.env) === null;
  const electron = worthDownloading ? await electronAfterOffer(found, download) : found;
  let reason = desktopUnavailableReason(electron, process.platform, process.env);
  if (reason === null && 'binary' in electron) {
    // The app keeps the directories among its arguments as its library (electron/main.ts).
    const launch = electronLaunch(electron.binary, [...paths, ...roots.filter((root) => !paths.includes(root))], options);
    try {
      const outcome = await launchDesktop(launch);
      if (outcome.kind !== 'failed') {
        process.stderr.write(`loopscope: ${launchMessage(outcome, launch.logPath)}\n`);
        return 0;
      }
      reason = launchFailureReason(outcome, { binary: electron.binary, logPath: launch.logPath });
    } catch (error) {
      reason = `Electron could not be started (${(error as Error).message})`;
    }
  }
  process.stderr.write(`loopscope: ${reason} — serving the UI in your browser instead.\n`);
  await serveUntilInterrupted(paths, options);
  return 0;
}

function launchMessage(outcome: Exclude<LaunchOutcome, { kind: 'failed' }>, logPath: string): string {
  if (outcome.kind === 'ready') return 'the desktop app is open.';
  if (outcome.kind === 'handed-over') return 'Loopscope was already running: its window opens the files.';
  return `the desktop app is still starting; if no window appears, its log says why: ${logPath}`;
}
