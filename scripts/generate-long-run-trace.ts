/**
 * Writes the one-run trace of devkit/traceGenerators/longRunTrace.ts to a file and prints its counts.
 *
 *   npx tsx scripts/generate-long-run-trace.ts --events 1000000 --out bench-data/long-run.jsonl
 */
import { parseArgs } from 'node:util';
import { generateLongRunTrace } from '../devkit/traceGenerators/longRunTrace';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: 'bench-data/long-run.jsonl' },
  },
});
const stats = generateLongRunTrace({ events: Number(values.events), seed: Number(values.seed), outPath: values.out });
console.log(JSON.stringify(stats));
