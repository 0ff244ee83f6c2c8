/**
 * Starting the desktop app from `loopscope open` so that a launch that dies is never silent.
 * Electron runs detached (it outlives the command), with its stdout and stderr appended to a
 * launch log in the app's data folder. The command waits until the app says its window is ready,
 * exits, or a few seconds pass; an exit with a failure is explained from the log (Chromium's
 * sandbox and display errors get their remedies) so that the caller can serve the UI instead.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { windowReadyLine } from '../electron/launchArguments';

/**
 * The folder Electron keeps the app's data in (`app.getPath('userData')`): the platform's
 * application-data folder and the app's name (package.json `productName`, else `name`).
 */
export function desktopDataFolder(appName: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string = homedir()): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', appName);
  if (platform === 'win32') return join(env['APPDATA'] || join(home, 'AppData', 'Roaming'), appName);
  return join(env['XDG_CONFIG_HOME'] || join(home, '.config'), appName);
}

/** The app's name as Electron reads it from the app directory's package.json. */
export function desktopAppName(appDir: string): string {
  const manifest = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as { productName?: unknown; name?: unknown };
  const name = typeof manifest.productName === 'string' ? manifest.productName : manifest.name;
  if (typeof name !== 'string' || name === '') throw new Error(`${appDir}/package.json names no app`);
  return name;
}

/** A launch log larger than this is moved to `launch.log.1` before the next launch appends. */
const launchLogLimitBytes = 4 * 1024 * 1024;

export type LaunchOutcome =
  /** The window loaded the page. */
  | { kind: 'ready' }
  /** Exited with 0 before a window was ready: another Loopscope was running and took the files. */
  | { kind: 'handed-over' }
  /** Neither ready nor gone after the wait: it may still come up (a slow machine), the log says. */
  | { kind: 'starting' }
  /** Exited with a failure (or was killed) before its window was ready; `output` is what it wrote. */
  | { kind: 'failed'; code: number | null; signal: NodeJS.Signals | null; output: string };

export interface DesktopLaunch {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** The launch log; appended to, never truncated (a running app may still be writing to it). */
  logPath: string;
  /** How long to wait for the window or an exit. */
  waitMs: number;
}

function logSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** What this launch wrote to the log: the bytes after `offset` (earlier launches' output is never read again). */
function outputSince(path: string, offset: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const length = Math.max(0, fstatSync(fd).size - offset);
    const bytes = Buffer.alloc(length);
    const read = readSync(fd, bytes, 0, length, offset);
    return bytes.subarray(0, read).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Opens the launch log for appending, after moving a large one aside, and marks where this launch begins. */
function openLaunchLog(path: string, args: readonly string[]): { fd: number; offset: number } {
  mkdirSync(dirname(path), { recursive: true });
  if (logSize(path) > launchLogLimitBytes) renameSync(path, `${path}.1`);
  const fd = openSync(path, 'a');
  writeSync(fd, `\n=== ${new Date().toISOString()} loopscope open ${args.join(' ')}\n`);
  return { fd, offset: logSize(path) };
}

/** Starts Electron detached and waits for its window, its exit or the end of the wait; rejects when it cannot be spawned. */
export async function launchDesktop(launch: DesktopLaunch): Promise<LaunchOutcome> {
  const log = openLaunchLog(launch.logPath, launch.args);
  let child;
  try {
    child = spawn(launch.binary, launch.args, { detached: true, stdio: ['ignore', log.fd, log.fd], env: launch.env });
    await once(child, 'spawn');
  } finally {
    // The child has its own copy of the descriptor.
    closeSync(log.fd);
  }
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.on('exit', (code, signal) => (exit = { code, signal }));
  const readyLine = new RegExp(`^${windowReadyLine}\\b`, 'm');
  const deadline = Date.now() + launch.waitMs;
  try {
    for (;;) {
      const output = outputSince(launch.logPath, log.offset);
      if (readyLine.test(output)) return { kind: 'ready' };
      if (exit !== undefined) {
        return exit.code === 0 ? { kind: 'handed-over' } : { kind: 'failed', code: exit.code, signal: exit.signal, output };
      }
      if (Date.now() >= deadline) return { kind: 'starting' };
      await sleep(50);
    }
  } finally {
    child.unref();
  }
}

/** The last lines a failed launch wrote, for the message (Chromium can be verbose). */
function lastLines(output: string, count: number): string[] {
  return output
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '')
    .slice(-count);
}

/**
 * Why a launch failed, for the user: the exit, what to do about it when the output names a known
 * cause (Chromium's Linux sandbox, no display), and the end of the output.
 */
export function launchFailureReason(outcome: Extract<LaunchOutcome, { kind: 'failed' }>, context: { binary: string; logPath: string }): string {
  const how = outcome.signal !== null ? `was killed by ${outcome.signal}` : `exited with code ${outcome.code}`;
  const output = outcome.output;
  const sandboxHelper = join(dirname(context.binary), 'chrome-sandbox');
  let remedy = '';
  if (/No usable sandbox|SUID sandbox helper|Running as root without --no-sandbox|setuid sandbox|zygote_host_impl/i.test(output)) {
    remedy =
      `Chromium's sandbox could not start. Either give its helper the rights it needs ` +
      `(sudo chown root:root ${sandboxHelper} && sudo chmod 4755 ${sandboxHelper}), ` +
      `or allow unprivileged user namespaces (on Ubuntu 23.10 and later they are restricted by AppArmor), ` +
      `or run \`loopscope open --no-sandbox …\`. --no-sandbox turns the operating-system sandbox off for every ` +
      `process of the app: the page still has no Node.js access, but a flaw in Chromium reached through a hostile ` +
      `trace would no longer be contained. Running as root always needs it.`;
  } else if (/Missing X server|cannot open display|Unable to open X display|platform failed to initialize/i.test(output)) {
    remedy = 'It found no display to open a window on (check DISPLAY or WAYLAND_DISPLAY, or run it under Xvfb).';
  }
  const tail = lastLines(output, 8);
  return [
    `the desktop app ${how} before its window opened.`,
    ...(remedy === '' ? [] : [remedy]),
    ...(tail.length === 0 ? ['It wrote nothing.'] : ['Its last output:', ...tail.map((line) => `  ${line}`)]),
    `Full log: ${context.logPath}`,
  ].join('\n');
}
