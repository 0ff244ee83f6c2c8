/**
 * The files a launch asks to open: `loopscope open FILE…` and a file manager's "open with" start
 * the app with paths as arguments, the first launch and any later one handed over to it.
 */
import { isAbsolute, resolve } from 'node:path';

/**
 * The paths in `argv` (Electron's process.argv or a second instance's), made absolute against the
 * launch's working directory. Skipped: the executable, the app path when Electron runs an
 * unpackaged app (`electron <app> FILE…`, `process.defaultApp`), and Chromium's `--switches`,
 * which Electron may add to a second instance's argv.
 */
export function filesFromArgv(argv: readonly string[], launch: { defaultApp: boolean; workingDirectory: string }): string[] {
  return argv
    .slice(launch.defaultApp ? 2 : 1)
    .filter((argument) => argument !== '' && !argument.startsWith('-'))
    .map((argument) => (isAbsolute(argument) ? argument : resolve(launch.workingDirectory, argument)));
}

/** The environment variable `loopscope open` hands `--idle-after` / `--no-follow` over in: milliseconds, or `off`. */
export const idleAfterVariable = 'LOOPSCOPE_IDLE_AFTER_MS';

/** How the app follows files, from the environment it was started with: undefined (the default), a time in ms, or null (read once). */
export function idleAfterFromEnvironment(env: NodeJS.ProcessEnv): number | null | undefined {
  const value = env[idleAfterVariable];
  if (value === undefined || value === '') return undefined;
  if (value === 'off') return null;
  return /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
}
