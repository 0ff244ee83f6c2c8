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
