/**
 * Benchmark baseline: stream a JSONL file, split it into lines and JSON.parse each line, nothing
 * else. Run directly by Node 22 (type stripping; no loader, no local imports) so that only the
 * work being measured runs in the process. Prints one JSON object with the counts.
 *
 *   node scripts/lib/baselineParse.ts <file.jsonl>
 */
import { createReadStream } from 'node:fs';

interface BaselineResult {
  bytes: number;
  lines: number;
  parsed: number;
  parseErrors: number;
  seconds: number;
}

async function parseFile(path: string): Promise<BaselineResult> {
  const started = performance.now();
  let bytes = 0;
  let lines = 0;
  let parsed = 0;
  let parseErrors = 0;
  let carry: Buffer[] = [];

  const parseLine = (text: string): void => {
    lines++;
    if (text.trim() === '') return;
    try {
      JSON.parse(text);
      parsed++;
    } catch {
      parseErrors++;
    }
  };

  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    let start = 0;
    let newline = chunk.indexOf(10);
    while (newline !== -1) {
      if (carry.length > 0) {
        carry.push(chunk.subarray(start, newline));
        parseLine(Buffer.concat(carry).toString('utf8'));
        carry = [];
      } else {
        parseLine(chunk.toString('utf8', start, newline));
      }
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) carry.push(chunk.subarray(start));
  }
  if (carry.length > 0) parseLine(Buffer.concat(carry).toString('utf8'));
  return { bytes, lines, parsed, parseErrors, seconds: (performance.now() - started) / 1000 };
}

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node scripts/lib/baselineParse.ts <file.jsonl>\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(await parseFile(file))}\n`);
