/**
 * `loopscope open FILE…`: starts the desktop app on the files. Where it cannot run (the Electron
 * binary was never downloaded, or there is no display), the same UI is served to the browser
 * instead, and the user is told why.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { identifyFile } from '../engine/store/traceDatabase';
import { serveUntilInterrupted, type ServeOptions } from './serve';
import { idleAfterVariable } from '../electron/launchArguments';

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

/** Starts Electron detached from this process; rejects when it cannot be started at all. */
async function startElectron(binary: string, files: string[], options: ServeOptions): Promise<void> {
  const env = { ...process.env };
  // A shell that sets ELECTRON_RUN_AS_NODE would make Electron behave as plain Node.
  delete env['ELECTRON_RUN_AS_NODE'];
  // The app's engine reads its cache folder from the environment, as the CLI's does by default.
  if (options.cacheDir !== undefined) env['LOOPSCOPE_CACHE_DIR'] = options.cacheDir;
  if (options.idleAfterMs !== undefined) env[idleAfterVariable] = options.idleAfterMs === null ? 'off' : String(options.idleAfterMs);
  const child = spawn(binary, [appDir, ...files], { detached: true, stdio: 'ignore', env });
  await once(child, 'spawn');
  child.unref();
}

export async function openApp(files: string[], options: ServeOptions): Promise<number> {
  // Every file is checked before anything starts, so a typo fails fast with its reason.
  const paths = files.map((file) => identifyFile(file).path);
  const electron = findElectronBinary(process.env);
  let reason = desktopUnavailableReason(electron, process.platform, process.env);
  if (reason === null && 'binary' in electron) {
    try {
      await startElectron(electron.binary, paths, options);
      return 0;
    } catch (error) {
      reason = `Electron could not be started (${(error as Error).message})`;
    }
  }
  process.stderr.write(`loopscope: ${reason} — serving the UI in your browser instead.\n`);
  await serveUntilInterrupted(paths, options);
  return 0;
}
