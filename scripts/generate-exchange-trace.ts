/**
 * Writes the synthetic HTTP exchange log of devkit/traceGenerators/exchangeTrace.ts to a file and
 * prints its counts.
 *
 *   npx tsx scripts/generate-exchange-trace.ts --size 200MB --seed 1 --out bench-data/exchange.jsonl
 */
import { parseArgs } from 'node:util';
import { generateExchangeTrace } from '../devkit/traceGenerators/exchangeTrace';
import { parseSize } from '../devkit/traceGenerators/syntheticTrace';

function main(): void {
  const { values } = parseArgs({ options: { size: { type: 'string', default: '200MB' }, seed: { type: 'string', default: '1' }, out: { type: 'string' } } });
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const outPath = values.out ?? `bench-data/exchange-${values.size}-seed${seed}.jsonl`;
  const stats = generateExchangeTrace({
    targetBytes: parseSize(values.size),
    seed,
    outPath,
    onProgress: (bytes) => process.stderr.write(`\r${(bytes / 1024 ** 2).toFixed(0)} MB…`),
  });
  process.stderr.write('\r');
  console.log(JSON.stringify({ path: outPath, ...stats }, null, 2));
}

main();
