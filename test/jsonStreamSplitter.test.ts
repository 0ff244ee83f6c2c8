/** Framing of JSON values written back to back (pretty-printed spans, whole documents). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { JsonStreamSplitter } from '../src-main/engine/ingest/jsonStreamSplitter';
import type { SplitLine } from '../src-main/engine/ingest/lineSplitter';

function split(chunks: Buffer[]): { lineNumber: number; text: string | null }[] {
  const splitter = new JsonStreamSplitter({ maxRecordBytes: 1 << 20 });
  const records: { lineNumber: number; text: string | null }[] = [];
  const collect = (record: SplitLine): void => {
    records.push({ lineNumber: record.lineNumber, text: record.bytes === null ? null : record.bytes.toString() });
  };
  for (const chunk of chunks) splitter.push(chunk, collect);
  splitter.end(collect);
  return records;
}

function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  return [...chunks, bytes.subarray(start)];
}

const value = fc.oneof(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }));

describe('JSON stream splitter', () => {
  it('gives back every pretty-printed value, whatever the chunking', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 12 }), (values, cuts) => {
        const text = values.map((v) => JSON.stringify(v, null, 2)).join('\n');
        const records = split(chunked(Buffer.from(text), cuts));
        // Compared as JSON text: fast-check may build objects without a prototype, JSON.parse never does.
        assert.deepEqual(records.map((record) => JSON.stringify(JSON.parse(record.text!))), values.map((v) => JSON.stringify(v)));
      }),
      { numRuns: 300 },
    );
  });

  it('reports where each record starts', () => {
    const records = split([Buffer.from('{\n  "a": 1\n}\n\n{\n  "b": [\n    2\n  ]\n}\n')]);
    assert.deepEqual(records.map((record) => record.lineNumber), [1, 5]);
  });

  it('cuts a record that never closes at the next top-level value, so the rest still loads', () => {
    const records = split([Buffer.from('{\n  "name": "cut here\n{\n  "name": "whole"\n}\n')]);
    assert.equal(records.length, 2);
    assert.throws(() => JSON.parse(records[0]!.text!));
    assert.deepEqual(JSON.parse(records[1]!.text!), { name: 'whole' });
  });

  it('frames a stray non-JSON line as its own record', () => {
    const records = split([Buffer.from('{"a": 1}\nnot json at all\n{"b": 2}')]);
    assert.deepEqual(records.map((record) => record.text), ['{"a": 1}', 'not json at all', '{"b": 2}']);
  });
});
