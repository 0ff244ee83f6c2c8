/**
 * Writes the synthetic canonical trace of devkit/traceGenerators/syntheticTrace.ts to a file and
 * prints its counts.
 *
 *   npx tsx scripts/generate-synthetic-trace.ts --size 200MB --seed 1 --out bench-data/trace.jsonl
 */
import { generateSyntheticTrace } from '../devkit/traceGenerators/syntheticTrace';
import { runGeneratorCli } from './lib/generatorCli';

runGeneratorCli('synthetic', generateSyntheticTrace);
