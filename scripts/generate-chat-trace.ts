/**
 * Writes the OpenAI Chat Completions exchange log of many short conversations
 * (devkit/traceGenerators/chatTrace.ts) to a file and prints its counts.
 *
 *   npx tsx scripts/generate-chat-trace.ts --size 200MB --seed 1 --out bench-data/chat.jsonl
 */
import { generateChatTrace } from '../devkit/traceGenerators/chatTrace';
import { runGeneratorCli } from './lib/generatorCli';

runGeneratorCli('chat', generateChatTrace);
