/**
 * Single-document JSON formats whose arrays are streamed (OpenHands, Cline, Inspect AI JSON logs,
 * Gemini CLI recordings): a document larger than the record size limit still loads, because each
 * element is a record of its own, and it loads exactly as it does when read with room to spare.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { adapterNamed } from '../../../../src-main/engine/adapters/registry';
import { JsonStreamSplitter } from '../../../../src-main/engine/ingest/jsonStreamSplitter';
import { analyzeFile } from '../../../support/engineHarness';
import { fixtures } from '../../../support/formatTests';

const documents = [
  ['openhands', 'openhands/parallel-calls-finished.json'],
  ['cline', 'cline/task-completed.json'],
  ['inspect-ai', 'inspect-ai/eval-log.json'],
  ['gemini-cli', 'gemini-cli/session-parallel-cancel.json'],
] as const;

/** The largest record the format's framing makes of the file. */
function largestRecord(format: string, path: string): number {
  const splitter = new JsonStreamSplitter({ maxRecordBytes: Number.MAX_SAFE_INTEGER, streamedArrays: adapterNamed(format)?.streamedArrays ?? [] });
  let largest = 0;
  const measure = (record: { bytes: Buffer | null }): void => {
    largest = Math.max(largest, record.bytes?.length ?? 0);
  };
  splitter.push(readFileSync(path), measure);
  splitter.end(measure);
  return largest;
}

describe('streamed single-document formats', () => {
  for (const [format, name] of documents) {
    it(`${format}: a document over the record size limit loads element by element, as it does whole`, async () => {
      const path = join(fixtures, name);
      const limit = largestRecord(format, path);
      assert.ok(limit < statSync(path).size / 1.5, `the largest record (${limit} bytes) is well under the document`);
      const roomy = await analyzeFile(path);
      const tight = await analyzeFile(path, { maxLineBytes: limit });
      assert.equal(tight.report.files[0]?.format, format);
      assert.deepEqual(tight.report.files[0]?.parse_errors, []);
      assert.deepEqual(tight.report, roomy.report);
      assert.ok(tight.report.runs.some((run) => run.steps > 0));
    });
  }
});
