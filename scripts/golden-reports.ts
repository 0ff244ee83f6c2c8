/**
 * The golden comparison: shows that a change left every report as it was, byte for byte. Run it
 * before and after a change (each time on a built checkout) and compare the two folders.
 *
 *   npm run build && npx tsx scripts/golden-reports.ts OUT [--samples DIR]
 *   npx tsx scripts/golden-reports.ts --compare BEFORE AFTER
 *
 * Writing: for every example (examples/*.jsonl), every file under test/fixtures/, a trace
 * generated with a fixed seed and size (devkit/traceGenerators/syntheticTrace.ts, written to
 * bench-data/golden/), and every sample
 * (../shared/samples, or --samples DIR, when it exists; SOURCES.md and the like left out), the
 * built CLI's `loopscope analyze FILE --json --fail-on never` goes to OUT/NAME.json, and its stderr
 * with its exit code (`rc=N`) to OUT/NAME.err; each file gets a cache of its own, whose path reads
 * CACHE in the output, and the checkout's own path reads REPO (so two clones compare equal). NAME is the file's path with `/` written `__` (`examples__dangling-call.jsonl`,
 * `samples__codex-rollout__….jsonl`, `generated__synthetic-2MB-seed1.jsonl`). With the samples,
 * `npm run samples -- DIR`'s output and exit code go to OUT/npm-run-samples.txt.
 *
 * Comparing: lists every file that differs between the folders or is in one only; exits 1 when
 * there is one, 0 when the folders are identical.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { generateSyntheticTrace } from '../devkit/traceGenerators/syntheticTrace';
import { repoRoot } from '../devkit/repoPaths';

const cliPath = join(repoRoot, 'bin', 'loopscope.js');
/** The CLI needs Node.js 22: the project's own (the `node` dev dependency) when tsx runs on an older one. */
const projectNode = join(repoRoot, 'node_modules', '.bin', 'node');
const cliNode = existsSync(projectNode) ? projectNode : process.execPath;
/**
 * Small enough to analyze in seconds, large enough for every scenario the generator mixes in.
 * Written at the same path in every checkout, relative to it, as the report names its file.
 */
const generatedTrace = { targetBytes: 2 * 1024 ** 2, seed: 1, path: join('bench-data', 'golden', 'synthetic-2MB-seed1.jsonl') };
/** Two CLIs at a time: each runs an ingest worker beside its main thread. */
const parallelRuns = 2;

interface TraceInput {
  /** The file to analyze, as given to the CLI (relative to the repository when inside it). */
  path: string;
  /** The output files' name, without .json / .err. */
  name: string;
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory)
    .sort()
    .flatMap((entry) => {
      const path = join(directory, entry);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    });
}

const outputName = (path: string): string => path.replaceAll('/', '__');

function repositoryInputs(): TraceInput[] {
  const examples = readdirSync(join(repoRoot, 'examples'))
    .filter((entry) => entry.endsWith('.jsonl'))
    .sort()
    .map((entry) => join('examples', entry));
  const fixtures = filesUnder(join(repoRoot, 'test', 'fixtures')).map((path) => relative(repoRoot, path));
  return [...examples, ...fixtures].map((path) => ({ path, name: outputName(path) }));
}

/** Given relative to the checkout, as the reports name them: two checkouts at the same depth compare equal. */
function sampleInputs(samplesDir: string): TraceInput[] {
  return filesUnder(samplesDir)
    .filter((path) => !path.endsWith('.md'))
    .map((path) => ({ path: relative(repoRoot, path), name: outputName(join('samples', relative(samplesDir, path))) }));
}

/**
 * The CLI's output with the paths that differ between checkouts and runs written CACHE and REPO:
 * a sub-agent file is read as its session, which the report names by its absolute path.
 */
function checkoutIndependent(output: string, cacheDir: string): string {
  return output.replaceAll(cacheDir, 'CACHE').replaceAll(repoRoot, 'REPO');
}

/** Runs the CLI on one file; resolves once its report and stderr are written. */
function analyzeInto(input: TraceInput, outDir: string, cacheRoot: string): Promise<void> {
  const cacheDir = join(cacheRoot, input.name);
  const args = [cliPath, 'analyze', input.path, '--json', '--fail-on', 'never', '--cache-dir', cacheDir];
  return new Promise((done, fail) => {
    const child = spawn(cliNode, args, { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1' } });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', fail);
    child.on('close', (code, signal) => {
      const exit = code ?? signal;
      writeFileSync(join(outDir, `${input.name}.json`), checkoutIndependent(Buffer.concat(stdout).toString('utf8'), cacheDir));
      writeFileSync(join(outDir, `${input.name}.err`), `${checkoutIndependent(Buffer.concat(stderr).toString('utf8'), cacheDir)}rc=${exit}\n`);
      done();
    });
  });
}

async function analyzeAll(inputs: readonly TraceInput[], outDir: string, cacheRoot: string): Promise<void> {
  let next = 0;
  const runner = async (): Promise<void> => {
    while (next < inputs.length) {
      const input = inputs[next++];
      if (input !== undefined) await analyzeInto(input, outDir, cacheRoot);
    }
  };
  await Promise.all(Array.from({ length: parallelRuns }, runner));
}

/** `npm run samples -- DIR`: stdout, stderr and exit code in one file. */
function runSamplesScript(samplesDir: string, outDir: string): void {
  const result = spawnSync('npm', ['run', '-s', 'samples', '--', samplesDir], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  writeFileSync(join(outDir, 'npm-run-samples.txt'), `${result.stdout}--- stderr\n${result.stderr}rc=${result.status ?? result.signal}\n`);
}

async function writeGolden(outDir: string, samplesDir: string): Promise<void> {
  if (!existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) throw new Error('the CLI is not built: run `npm run build` first');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const caches = mkdtempSync(join(tmpdir(), 'loopscope-golden-caches-'));
  try {
    generateSyntheticTrace({ targetBytes: generatedTrace.targetBytes, seed: generatedTrace.seed, outPath: join(repoRoot, generatedTrace.path) });
    const hasSamples = existsSync(samplesDir);
    const inputs = [
      ...repositoryInputs(),
      { path: generatedTrace.path, name: outputName(join('generated', basename(generatedTrace.path))) },
      ...(hasSamples ? sampleInputs(samplesDir) : []),
    ];
    await analyzeAll(inputs, outDir, caches);
    if (hasSamples) runSamplesScript(samplesDir, outDir);
    console.log(
      `${inputs.length} reports in ${outDir}${hasSamples ? ` (with the samples in ${samplesDir}, and npm run samples)` : ` (no samples: ${samplesDir} does not exist)`}`,
    );
  } finally {
    rmSync(caches, { recursive: true, force: true });
  }
}

/** The files that differ between the two folders, or are in one only. */
function compareGolden(before: string, after: string): number {
  const names = [...new Set([...readdirSync(before), ...readdirSync(after)])].sort();
  const differing: string[] = [];
  for (const name of names) {
    const a = join(before, name);
    const b = join(after, name);
    if (!existsSync(a)) differing.push(`${name}: only in ${after}`);
    else if (!existsSync(b)) differing.push(`${name}: only in ${before}`);
    else if (!readFileSync(a).equals(readFileSync(b))) differing.push(`${name}: differs`);
  }
  for (const line of differing) console.log(line);
  console.log(differing.length === 0 ? `identical: ${names.length} files` : `${differing.length} of ${names.length} files differ`);
  return differing.length === 0 ? 0 : 1;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      compare: { type: 'boolean', default: false },
      samples: { type: 'string', default: join(repoRoot, '..', 'shared', 'samples') },
    },
  });
  if (values.compare) {
    const [before, after] = positionals;
    if (positionals.length !== 2 || before === undefined || after === undefined) throw new Error('--compare needs two folders: BEFORE AFTER');
    return compareGolden(before, after);
  }
  const [outDir] = positionals;
  if (positionals.length !== 1 || outDir === undefined) throw new Error('usage: golden-reports.ts OUT [--samples DIR] | --compare BEFORE AFTER');
  await writeGolden(resolve(outDir), resolve(values.samples));
  return 0;
}

process.exitCode = await main().catch((error: unknown) => {
  console.error(`golden-reports: ${error instanceof Error ? error.message : String(error)}`);
  return 2;
});
