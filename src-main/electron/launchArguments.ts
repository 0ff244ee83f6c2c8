/**
 * The files a launch asks to open: `loopscope open FILE…` and a file manager's "open with" start
 * the app with paths as arguments, the first launch and any later one handed over to it.
 *
 * A later launch hands its files to the running app as `additionalData` of
 * `app.requestSingleInstanceLock`, because the `argv` that reaches the running app's
 * 'second-instance' event is Chromium's re-serialised command line: its switches come first,
 * Electron and Chromium add their own (`--allow-file-access-from-files`,
 * `--original-process-start-time=…`), and the documentation warns that the order may change.
 * The argv is read only when the data is missing (a launch of an older Loopscope).
 */
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';

/** How a launch was started: `process.defaultApp` (Electron running an unpackaged app: `electron <app> FILE…`) and its working directory. */
export interface Launch {
  defaultApp: boolean;
  workingDirectory: string;
}

/** Options of Electron's own launcher that take their value as the next argument (`electron -r module.js app`). */
const optionsWithValue = new Set(['-r', '--require']);

/**
 * The arguments that are not switches, in their order: `-x`, `--name` and `--name=value` are
 * dropped, and so is the value after an option that takes one. A file whose name starts with `-`
 * cannot be opened this way (pass it as `./-name`).
 */
export function positionalArguments(argv: readonly string[]): string[] {
  const positional: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    if (optionsWithValue.has(argument)) index += 1;
    else if (argument !== '' && !argument.startsWith('-')) positional.push(argument);
  }
  return positional;
}

function absolute(path: string, workingDirectory: string): string {
  return isAbsolute(path) ? path : resolve(workingDirectory, path);
}

/**
 * The paths in `argv` (Electron's process.argv, or a second instance's), made absolute against the
 * launch's working directory. Switches are dropped first, wherever they are, then the executable
 * and, when Electron runs the unpackaged app, the app path.
 */
export function filesFromArgv(argv: readonly string[], launch: Launch): string[] {
  return positionalArguments(argv)
    .slice(launch.defaultApp ? 2 : 1)
    .map((path) => absolute(path, launch.workingDirectory));
}

/** What a later launch sends the running app: its files, already absolute. */
export const secondLaunchDataSchema = z.object({
  loopscopeFiles: z.array(z.string().min(1).max(4096)).max(10_000),
});
export type SecondLaunchData = z.infer<typeof secondLaunchDataSchema>;

/** The `additionalData` a launch passes to `app.requestSingleInstanceLock`. */
export function secondLaunchData(argv: readonly string[], launch: Launch): SecondLaunchData {
  return { loopscopeFiles: filesFromArgv(argv, launch) };
}

/**
 * The files a later launch asked for, as the running app's 'second-instance' event receives them:
 * from its `additionalData` when it is Loopscope's, else from its argv.
 */
export function filesFromSecondLaunch(argv: readonly string[], workingDirectory: string, additionalData: unknown, defaultApp: boolean): string[] {
  const data = secondLaunchDataSchema.safeParse(additionalData);
  if (data.success) return data.data.loopscopeFiles.map((path) => absolute(path, workingDirectory));
  return filesFromArgv(argv, { defaultApp, workingDirectory });
}

/** The environment variable `loopscope open` hands `--idle-after` / `--no-follow` over in: milliseconds, or `off`. */
export const idleAfterVariable = 'LOOPSCOPE_IDLE_AFTER_MS';

/** `loopscope open --prices FILE`: the user price file (docs/semantics.md §18), by path. */
export const pricesVariable = 'LOOPSCOPE_PRICES_FILE';

/** How the app follows files, from the environment it was started with: undefined (the default), a time in ms, or null (read once). */
export function idleAfterFromEnvironment(env: NodeJS.ProcessEnv): number | null | undefined {
  const value = env[idleAfterVariable];
  if (value === undefined || value === '') return undefined;
  if (value === 'off') return null;
  return /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
}

/**
 * The line the app prints on stdout once its window has loaded the page: `loopscope open` waits
 * for it (or for an early exit) in the launch log before it says the app started.
 */
export const windowReadyLine = 'loopscope: window ready';
