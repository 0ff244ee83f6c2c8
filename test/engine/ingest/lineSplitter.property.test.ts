/**
 * Properties of the byte-level line splitter and of ingest as a whole: chunk boundaries never
 * change the lines, and garbage never aborts an ingest — every non-blank line ends up as an event
 * or a parse error.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { LineSplitter, type SplitLine } from '../../../src-main/engine/ingest/lineSplitter';
import { analyzeFile, temporaryDir } from '../../support/engineHarness';

interface CopiedLine {
  lineNumber: number;
  offset: number;
  length: number;
  bytes: string | null;
}

function splitAll(chunks: Buffer[], maxLineBytes: number): CopiedLine[] {
  const splitter = new LineSplitter({ maxLineBytes });
  const lines: CopiedLine[] = [];
  const collect = (line: SplitLine): void => {
    lines.push({ lineNumber: line.lineNumber, offset: line.offset, length: line.length, bytes: line.bytes === null ? null : line.bytes.toString('hex') });
  };
  for (const chunk of chunks) splitter.push(chunk, collect);
  splitter.end(collect);
  return lines;
}

/** Bytes rich in what matters to a splitter: newlines, carriage returns and multi-byte characters. */
const traceLikeBytes = fc
  .array(fc.oneof(fc.constantFrom('\n', '\r\n', '\r', 'é', '😀', '{"a":1}', ' '), fc.string({ maxLength: 12 })), { maxLength: 60 })
  .map((parts) => Buffer.from(parts.join('')));

function cutAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

describe('line splitter', () => {
  it('yields the same lines for any split of the input into chunks', () => {
    fc.assert(
      fc.property(traceLikeBytes, fc.array(fc.nat(), { maxLength: 20 }), fc.integer({ min: 4, max: 64 }), (bytes, cuts, maxLineBytes) => {
        assert.deepEqual(splitAll(cutAt(bytes, cuts), maxLineBytes), splitAll([bytes], maxLineBytes));
      }),
      { numRuns: 500 },
    );
  });

  it('accounts for every byte: offsets and lengths tile the input', () => {
    fc.assert(
      fc.property(traceLikeBytes, (bytes) => {
        const lines = splitAll([bytes], 1 << 20);
        let expectedOffset = 0;
        for (const line of lines) {
          assert.equal(line.offset, expectedOffset);
          expectedOffset += line.length + 1;
        }
        assert.ok(expectedOffset === bytes.length + 1 || expectedOffset === bytes.length, 'the last line ends at the end of the input');
      }),
    );
  });

  it('reports an oversized line with its full length but keeps only its head', () => {
    const lines = splitAll([Buffer.from(`short\n${'y'.repeat(1000)}\nafter`)], 100);
    assert.deepEqual(
      lines.map((line) => [line.lineNumber, line.length, line.bytes === null]),
      [
        [1, 5, false],
        [2, 1000, true],
        [3, 5, false],
      ],
    );
  });
});

describe('ingest of arbitrary garbage', () => {
  const dir = temporaryDir('fuzz');
  after(() => dir.remove());
  const validEvent = fc.constantFrom(
    '{"type":"run_start","run_id":"r"}',
    '{"type":"model_response","run_id":"r","outcome":"tool_calls","finish_reason":"tool_calls","tool_calls":[{"call_id":"c1","name":"t","arguments":"{}"}]}',
    '{"type":"tool_result","run_id":"r","call_id":"c1","status":"ok","output":"x"}',
    '{"type":"run_end","run_id":"r","status":"succeeded"}',
  );
  const garbage = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('[1]', 'null', '{"no_type":1}', '{"type":"tool_result"}', '{'));

  it('never aborts, and every non-blank line becomes an event or a parse error', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(validEvent, garbage), { minLength: 1, maxLength: 30 }), async (lines) => {
        const path = join(dir.path, `garbage-${++runs}.jsonl`);
        // One Loopscope event makes the file recognisable; a file of garbage alone is refused as a whole (test/engine/adapters/formats.test.ts).
        const text = ['{"type":"run_start","run_id":"r"}', ...lines.map((line) => line.replace(/[\r\n]/g, ' '))].join('\n');
        writeFileSync(path, text);
        const { report } = await analyzeFile(path);
        const file = report.files[0]!;
        const nonBlank = text.split('\n').filter((line) => line.trim() !== '').length;
        const rejected = file.parse_errors.filter((error) => !error.loaded).length;
        assert.equal(file.events + rejected, nonBlank);
      }),
      { numRuns: 25 },
    );
  });
});
