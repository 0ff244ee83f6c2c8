/**
 * Throughput of `JsonStreamSplitter` (the byte loop that frames every JSON-values format) against
 * the same class at a git revision, side by side, so that a restructuring of its loop can be
 * checked for speed. The baseline is `git show REV:src-main/engine/ingest/jsonStreamSplitter.ts`
 * written to a temporary directory, its relative imports pointed back at the working tree.
 *
 * Inputs, generated from a fixed seed, one per path through the loop:
 * - `pretty`: pretty-printed objects back to back (the OpenTelemetry console exporter);
 * - `jsonl`: the same objects one per line;
 * - `streamed-member`: one object whose `samples` array is streamed (an Inspect log);
 * - `streamed-array`: one top-level array, streamed (an OpenHands event list).
 * Each input is measured in a process of its own, where each repetition runs both implementations,
 * in alternating order, over the whole input pushed in 1 MiB chunks like the ingest. The report
 * gives the median MB per CPU second of each, and the median of new ÷ old over the repetitions
 * (each ratio from two passes run one after the other, so that a change in the machine's load
 * between repetitions cancels out). Both must emit the same records (checked on every pass).
 *
 *   npx tsx scripts/bench-json-splitter.ts [--baseline REV] [--size MB] [--repetitions N] [--input NAME]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { JsonStreamSplitter, type JsonStreamSplitterOptions } from '../src-main/engine/ingest/jsonStreamSplitter';
import type { SplitLine } from '../src-main/engine/ingest/lineSplitter';
import { Prng } from '../devkit/traceGenerators/prng';
import { codeLines, paragraph, sentence } from '../devkit/traceGenerators/vocabulary';
import { repoRoot } from '../devkit/repoPaths';

const SPLITTER_PATH = 'src-main/engine/ingest/jsonStreamSplitter.ts';
const CHUNK_BYTES = 1 << 20;
const MB = 1024 * 1024;

type Splitter = Pick<JsonStreamSplitter, 'push' | 'end'>;
type SplitterClass = new (options: JsonStreamSplitterOptions) => Splitter;

interface Input {
  name: string;
  bytes: Buffer;
  options: JsonStreamSplitterOptions;
}

const { values: args } = parseArgs({
  options: {
    baseline: { type: 'string', default: 'HEAD' },
    size: { type: 'string', default: '16' },
    repetitions: { type: 'string', default: '7' },
    input: { type: 'string' },
  },
});

/** The splitter at `revision`, loaded from a temporary copy whose relative imports resolve in the working tree. */
async function loadBaseline(revision: string): Promise<{ splitter: SplitterClass; cleanup: () => void }> {
  const source = execFileSync('git', ['show', `${revision}:${SPLITTER_PATH}`], { cwd: repoRoot, encoding: 'utf8' });
  const sourceDir = dirname(join(repoRoot, SPLITTER_PATH));
  const rewritten = source.replace(/from '(\.{1,2}\/[^']+)'/g, (_match, path: string) => `from '${resolve(sourceDir, path)}'`);
  const dir = mkdtempSync(join(tmpdir(), 'loopscope-splitter-baseline-'));
  // An ES module like the working tree's copy: compiled as CommonJS, its imported constants would be read through getters.
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  const file = join(dir, 'jsonStreamSplitter.ts');
  writeFileSync(file, rewritten);
  const module = (await import(pathToFileURL(file).href)) as { JsonStreamSplitter: SplitterClass };
  return { splitter: module.JsonStreamSplitter, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A span-like record with the text a trace is mostly made of: prose, code, escapes, non-ASCII. */
function record(rng: Prng, index: number): Record<string, unknown> {
  return {
    name: rng.pick(['chat gpt-4.1', 'execute_tool read_file', 'invoke_agent coder']),
    context: { trace_id: rng.hex(32), span_id: rng.hex(16) },
    start_time: `2026-01-0${1 + (index % 9)}T10:00:00.${String(index % 1000).padStart(3, '0')}Z`,
    attributes: {
      'gen_ai.usage.input_tokens': rng.int(100, 90_000),
      'gen_ai.request.model': 'gpt-4.1',
      'gen_ai.prompt': [{ role: 'user', content: `${paragraph(rng, rng.int(1, 6))} « ${sentence(rng)} » — "quoted" \\ path` }],
      'gen_ai.completion': [{ role: 'assistant', content: rng.chance(0.5) ? codeLines(rng, rng.int(5, 60)) : paragraph(rng, rng.int(1, 4)) }],
      flags: [true, false, null, rng.int(0, 9), 1.5],
    },
  };
}

function records(seed: string, targetBytes: number, write: (value: Record<string, unknown>) => string): Buffer {
  const rng = new Prng(seed);
  const parts: string[] = [];
  let length = 0;
  for (let index = 0; length < targetBytes; index += 1) {
    const text = write(record(rng, index));
    parts.push(text);
    length += Buffer.byteLength(text);
  }
  return Buffer.from(parts.join(''));
}

const inputNames = ['pretty', 'jsonl', 'streamed-member', 'streamed-array'] as const;
type InputName = (typeof inputNames)[number];

function generateInput(name: InputName, targetBytes: number): Input {
  const options = { maxRecordBytes: 64 * MB };
  const elements = (): string =>
    records(name, targetBytes, (value) => `${JSON.stringify(value, null, 2)},\n`)
      .toString()
      .replace(/,\n$/, '');
  switch (name) {
    case 'pretty':
      return { name, bytes: records(name, targetBytes, (value) => `${JSON.stringify(value, null, 2)}\n`), options };
    case 'jsonl':
      return { name, bytes: records(name, targetBytes, (value) => `${JSON.stringify(value)}\n`), options };
    case 'streamed-member':
      return {
        name,
        bytes: Buffer.from(`{"version":2,"eval":{"task":"bench"},"samples":[\n${elements()}\n],"reductions":[{"scorer":"match"}]}\n`),
        options: { ...options, streamedArrays: ['samples'] },
      };
    case 'streamed-array':
      return { name, bytes: Buffer.from(`[\n${elements()}\n]\n`), options: { ...options, streamedArrays: [''] } };
  }
}

/**
 * One pass over the input; returns the CPU seconds it took — steadier than wall time
 * on a machine other work shares — and a digest of the records to compare implementations by.
 */
function run(splitter: SplitterClass, input: Input): { seconds: number; digest: string } {
  let count = 0;
  let sum = 0;
  const emit = (split: SplitLine): void => {
    count += 1;
    sum = (sum + split.offset * 31 + split.length * 7 + split.lineNumber + (split.bytes?.length ?? -1)) % 2_147_483_647;
  };
  const started = process.cpuUsage();
  const instance = new splitter(input.options);
  for (let start = 0; start < input.bytes.length; start += CHUNK_BYTES) instance.push(input.bytes.subarray(start, start + CHUNK_BYTES), emit);
  instance.end(emit);
  const used = process.cpuUsage(started);
  const seconds = (used.user + used.system) / 1e6;
  return { seconds, digest: `${count}:${sum}` };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Measures one input, in this process, and prints its row of the report. */
async function measureInput(name: InputName, targetBytes: number, repetitions: number): Promise<void> {
  const input = generateInput(name, targetBytes);
  const baseline = await loadBaseline(args.baseline!);
  try {
    const implementations = { old: baseline.splitter, new: JsonStreamSplitter as SplitterClass };
    const speeds: Record<'old' | 'new', number[]> = { old: [], new: [] };
    const ratios: number[] = [];
    let digest: string | undefined;
    // A warm-up pass each, then the measured ones, alternating which goes first.
    for (let repetition = -1; repetition < repetitions; repetition += 1) {
      const order = repetition % 2 === 0 ? (['old', 'new'] as const) : (['new', 'old'] as const);
      for (const which of order) {
        const result = run(implementations[which], input);
        digest ??= result.digest;
        if (result.digest !== digest) throw new Error(`${name}: the ${which} implementation emitted different records (${result.digest} vs ${digest})`);
        if (repetition >= 0) speeds[which].push(input.bytes.length / MB / result.seconds);
      }
      if (repetition >= 0) ratios.push(speeds.new.at(-1)! / speeds.old.at(-1)!);
    }
    const records = digest!.split(':')[0]!;
    console.log(
      `${name.padEnd(16)} ${(input.bytes.length / MB).toFixed(1).padStart(6)} ${records.padStart(8)} ${median(speeds.old).toFixed(1).padStart(9)} ${median(speeds.new).toFixed(1).padStart(9)} ${median(ratios).toFixed(3).padStart(8)}`,
    );
  } finally {
    baseline.cleanup();
  }
}

/**
 * Each input in a process of its own: in one process, the type feedback V8 gathered on one input
 * shapes the code the next input runs, and not equally for both implementations.
 */
function measureEachInput(repetitions: number): void {
  console.log(`JsonStreamSplitter: working tree (new) vs ${args.baseline} (old); ${repetitions} repetitions, ${CHUNK_BYTES / MB} MiB chunks`);
  console.log(
    `${'input'.padEnd(16)} ${'MB'.padStart(6)} ${'records'.padStart(8)} ${'old MB/s'.padStart(9)} ${'new MB/s'.padStart(9)} ${'new/old'.padStart(8)}`,
  );
  const ratios: number[] = [];
  for (const name of inputNames) {
    const row = execFileSync(
      process.execPath,
      [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        '--baseline',
        args.baseline!,
        '--size',
        args.size!,
        '--repetitions',
        String(repetitions),
        '--input',
        name,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    );
    process.stdout.write(row);
    ratios.push(Number(row.trim().split(/\s+/).at(-1)));
  }
  console.log(`lowest new/old: ${Math.min(...ratios).toFixed(3)}`);
}

const repetitions = Math.max(1, Number(args.repetitions) || 7);
if (args.input === undefined) measureEachInput(repetitions);
else {
  if (!(inputNames as readonly string[]).includes(args.input)) throw new Error(`--input: one of ${inputNames.join(', ')}`);
  await measureInput(args.input as InputName, Math.max(1, Number(args.size) || 16) * MB, repetitions);
}
