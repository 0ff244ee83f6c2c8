/** Lines read back from the trace file by their recorded locations (store/rawLines.ts), on a real ingest of a real file. */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openTrace } from '../../../src-main/engine/engine';
import { RawLineReader } from '../../../src-main/engine/store/rawLines';
import { openDatabase } from '../../../src-main/engine/store/traceDatabase';
import { examplesDir } from '../../../devkit/repoPaths';
import { defaultAnalysis, temporaryDir } from '../../support/engineHarness';

describe('RawLineReader', () => {
  it('reads every line byte for byte, whatever the order and sizes of the lines read before it, and zeroes what a file cut short since leaves unread', async () => {
    const dir = temporaryDir('raw-lines');
    try {
      const file = join(dir.path, 'trace.jsonl');
      // Lines of 200 to 4,700 bytes: on both sides of the size Node.js serves from its shared buffer pool.
      copyFileSync(join(examplesDir, 'repeated-action.jsonl'), file);
      const lines = readFileSync(file).toString('latin1').split('\n');
      const trace = await openTrace(file, { cacheDir: join(dir.path, 'cache'), analysis: defaultAnalysis });
      const db = openDatabase(trace.dbPath, { readonly: true });
      const reader = RawLineReader.open(db, 1)!;
      try {
        const located = db
          .prepare<[], { line: number; byte_offset: number; byte_length: number }>('SELECT line, byte_offset, byte_length FROM events ORDER BY line')
          .all();
        const sizes = new Set(located.map((row) => (row.byte_length > 4096 ? 'large' : 'small')));
        assert.deepEqual([...sizes].sort(), ['large', 'small']);
        // Forward, backward, then largest first: each line read right after lines longer and shorter than it.
        const orders = [located, [...located].reverse(), [...located].sort((a, b) => b.byte_length - a.byte_length)];
        for (const order of orders) {
          for (const row of order) assert.equal(reader.read(row.line, row).bytes.toString('latin1'), lines[row.line - 1], `line ${row.line}`);
        }
        const last = located.at(-1)!;
        const kept = Math.floor(last.byte_length / 2);
        truncateSync(file, last.byte_offset + kept);
        const cut = reader.read(last.line, last).bytes;
        assert.equal(cut.length, last.byte_length);
        assert.equal(cut.subarray(0, kept).toString('latin1'), lines[last.line - 1]!.slice(0, kept));
        assert.ok(cut.subarray(kept).every((byte) => byte === 0));
      } finally {
        reader.close();
        db.close();
      }
    } finally {
      dir.remove();
    }
  });
});
