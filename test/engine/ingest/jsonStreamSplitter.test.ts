/** Framing of JSON values written back to back (pretty-printed spans, whole documents). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { JsonStreamSplitter } from '../../../src-main/engine/ingest/jsonStreamSplitter';
import type { SplitLine } from '../../../src-main/engine/ingest/lineSplitter';

interface Record {
  lineNumber: number;
  text: string | null;
  /** The file's bytes the record is located at. */
  located: string;
}

function split(chunks: Buffer[], streamedArrays?: string[], maxRecordBytes = 1 << 20): Record[] {
  const splitter = new JsonStreamSplitter({ maxRecordBytes, ...(streamedArrays ? { streamedArrays } : {}) });
  const whole = Buffer.concat(chunks);
  const records: Record[] = [];
  const collect = (record: SplitLine): void => {
    records.push({
      lineNumber: record.lineNumber,
      text: record.bytes === null ? null : record.bytes.toString(),
      located: whole.subarray(record.offset, record.offset + record.length).toString(),
    });
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

const value = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
);

describe('JSON stream splitter', () => {
  it('gives back every pretty-printed value, whatever the chunking', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 12 }), (values, cuts) => {
        const text = values.map((v) => JSON.stringify(v, null, 2)).join('\n');
        const records = split(chunked(Buffer.from(text), cuts));
        // Compared as JSON text: fast-check may build objects without a prototype, JSON.parse never does.
        assert.deepEqual(
          records.map((record) => JSON.stringify(JSON.parse(record.text!))),
          values.map((v) => JSON.stringify(v)),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('reports where each record starts', () => {
    const records = split([Buffer.from('{\n  "a": 1\n}\n\n{\n  "b": [\n    2\n  ]\n}\n')]);
    assert.deepEqual(
      records.map((record) => record.lineNumber),
      [1, 5],
    );
  });

  it('cuts a record that never closes at the next top-level value, so the rest still loads', () => {
    const records = split([Buffer.from('{\n  "name": "cut here\n{\n  "name": "whole"\n}\n')]);
    assert.equal(records.length, 2);
    assert.throws(() => JSON.parse(records[0]!.text!));
    assert.deepEqual(JSON.parse(records[1]!.text!), { name: 'whole' });
  });

  it('frames a stray non-JSON line as its own record', () => {
    const records = split([Buffer.from('{"a": 1}\nnot json at all\n{"b": 2}')]);
    assert.deepEqual(
      records.map((record) => record.text),
      ['{"a": 1}', 'not json at all', '{"b": 2}'],
    );
  });
});

describe('JSON stream splitter: streamed arrays', () => {
  const documentWith = (samples: unknown[]) => ({ version: 2, eval: { task: 't', note: 'a "samples": [ in a string' }, samples, reductions: [{ score: 1 }] });

  it('gives each element of a top-level array as a record, located at its own bytes and line, whatever the chunking', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (elements, cuts, pretty) => {
        const text = JSON.stringify(elements, null, pretty ? 2 : undefined);
        const records = split(chunked(Buffer.from(text), cuts), ['']);
        assert.deepEqual(
          records.map((record) => JSON.stringify(JSON.parse(record.text!))),
          elements.map((element) => JSON.stringify(element)),
        );
        for (const record of records) {
          assert.equal(record.located, record.text);
          assert.equal(
            text
              .split('\n')
              .slice(record.lineNumber - 1)
              .join('\n')
              .includes(record.located),
            true,
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it('splits a top-level object at a streamed member: the head with the array empty, each element, then the members after it', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (samples, cuts, pretty) => {
        const text = JSON.stringify(documentWith(samples), null, pretty ? 2 : undefined);
        const records = split(chunked(Buffer.from(text), cuts), ['samples']);
        assert.deepEqual(
          records.map((record) => JSON.parse(record.text!) as unknown),
          [{ ...documentWith([]), reductions: undefined }, ...samples, { reductions: [{ score: 1 }] }].map(
            (value) => JSON.parse(JSON.stringify(value)) as unknown,
          ),
        );
        // The head is located at the document's bytes up to the array's `[`.
        assert.equal(records[0]!.located, text.slice(0, text.indexOf('[', text.indexOf('"samples":')) + 1));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps an object whole when its streamed member is not an array, and leaves out an empty tail', () => {
    assert.deepEqual(
      split([Buffer.from('{"samples": null, "b": 1}\n{"a": 1, "samples": [1, "x"]}')], ['samples']).map((record) => record.text),
      ['{"samples": null, "b": 1}', '{"a": 1,"samples":[]}', '1', '"x"'],
    );
  });

  it('streams a document far over the record size limit, each element within it', () => {
    const elements = Array.from({ length: 2000 }, (_, index) => ({ id: index, text: 'x'.repeat(100) }));
    const records = split([Buffer.from(JSON.stringify(elements, null, 2))], [''], 4096);
    assert.equal(records.length, 2000);
    assert.ok(records.every((record, index) => record.text !== null && (JSON.parse(record.text) as { id: number }).id === index));
  });

  it('cuts an element that never closes at the next top-level value, so the rest still loads', () => {
    const records = split([Buffer.from('[\n  {"a": "cut\n{"whole": true}\n')], ['']);
    assert.equal(records.length, 2);
    assert.throws(() => JSON.parse(records[0]!.text!));
    assert.deepEqual(JSON.parse(records[1]!.text!), { whole: true });
  });
});
