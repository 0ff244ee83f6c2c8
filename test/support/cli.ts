/**
 * Runs the built CLI (`bin/loopscope.js` → out/main/cli.js, so `npm run build` first) as a child
 * process, the way a user or CI does, with its own cache directory.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeReportSchema, type AnalyzeReport } from '../../shared/report';
import { examplesDir, repoRoot } from '../../devkit/repoPaths';

export function example(name: string): string {
  return join('examples', `${name}.jsonl`);
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `loopscope ...args` with cwd the repo root; `process.execPath` is the Node that runs the tests (22+). */
export function runCli(args: string[], options: { cacheDir: string }): CliResult {
  const result = spawnSync(process.execPath, [join(repoRoot, 'bin', 'loopscope.js'), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, LOOPSCOPE_CACHE_DIR: options.cacheDir, NO_COLOR: '1' },
    timeout: 60_000,
    // The --json report of a generated trace runs to megabytes.
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `loopscope analyze --json ...args`, stdout parsed (it must be exactly one report document). */
export function analyzeJson(args: string[], options: { cacheDir: string }): { result: CliResult; report: AnalyzeReport } {
  const result = runCli(['analyze', '--json', ...args], options);
  const report = analyzeReportSchema.parse(JSON.parse(result.stdout));
  return { result, report };
}

/** Copies an example trace into `dir` so a test may change it. */
export function copyExample(name: string, dir: string): string {
  const target = join(dir, `${name}.jsonl`);
  copyFileSync(join(examplesDir, `${name}.jsonl`), target);
  return target;
}
