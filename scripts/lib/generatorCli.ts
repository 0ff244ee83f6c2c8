/**
 * The command line every trace generator script shares: `--size`, `--seed`, `--out`, progress on
 * stderr, the generated trace's counts as JSON on stdout.
 */
import { parseArgs } from 'node:util';
import { parseSize, type GenerateStats } from '../../devkit/traceGenerators/syntheticTrace';

type Generate = (options: { targetBytes: number; seed: number; outPath: string; onProgress?: (bytes: number) => void }) => GenerateStats;

export function runGeneratorCli(kind: string, generate: Generate): void {
  const { values } = parseArgs({ options: { size: { type: 'string', default: '200MB' }, seed: { type: 'string', default: '1' }, out: { type: 'string' } } });
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const outPath = values.out ?? `bench-data/${kind}-${values.size}-seed${seed}.jsonl`;
  const stats = generate({
    targetBytes: parseSize(values.size),
    seed,
    outPath,
    onProgress: (bytes) => process.stderr.write(`\r${(bytes / 1024 ** 2).toFixed(0)} MB…`),
  });
  process.stderr.write('\r');
  console.log(JSON.stringify({ path: outPath, ...stats }, null, 2));
}
