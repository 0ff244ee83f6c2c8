/**
 * Writes the synthetic HTTP exchange log of devkit/traceGenerators/exchangeTrace.ts to a file and
 * prints its counts.
 *
 *   npx tsx scripts/generate-exchange-trace.ts --size 200MB --seed 1 --out bench-data/exchange.jsonl
 */
import { generateExchangeTrace } from '../devkit/traceGenerators/exchangeTrace';
import { runGeneratorCli } from './lib/generatorCli';

runGeneratorCli('exchange', generateExchangeTrace);
