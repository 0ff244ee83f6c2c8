/**
 * Writes the OpenAI Chat Completions exchange log of many short conversations
 * (devkit/traceGenerators/chatTrace.ts) to a file and prints its counts.
 *
 *   npx tsx scripts/generate-chat-trace.ts --size 200MB --seed 1 --out bench-data/chat.jsonl
 */
import { parseArgs } from 'node:util';
import { generateChatTrace } from '../devkit/traceGenerators/chatTrace';
import { parseSize } from '../devkit/traceGenerators/syntheticTrace';

function main(): void {
  const { values } = parseArgs({ options: { size: { type: 'string', default: '200MB' }, seed: { type: 'string', default: '1' }, out: { type: 'string' } } });
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const outPath = values.out ?? `bench-data/chat-${values.size}-seed${seed}.jsonl`;
  const stats = generateChatTrace({
    targetBytes: parseSize(values.size),
    seed,
    outPath,
    onProgress: (bytes) => process.stderr.write(`\r${(bytes / 1024 ** 2).toFixed(0)} MB…`),
  });
  process.stderr.write('\r');
  console.log(JSON.stringify({ path: outPath, ...stats }, null, 2));
}

main();
