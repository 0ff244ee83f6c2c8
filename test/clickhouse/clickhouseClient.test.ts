/**
 * The ClickHouse client's values arrive exactly (src-main/clickhouse/clickhouseClient.ts), against a
 * real clickhouse-server (18.16, where its text formats parse some doubles an ULP off): rows of
 * random values — doubles of every kind (-0, subnormals, the largest), strings of every character,
 * NULLs, arrays, 64-bit integers — inserted as RowBinary and read back byte for byte (a double's
 * eight bytes, a string's UTF-8), and as the readers read them (JSONEachRow, whose printing of a
 * Float64 is exact too). Values written into SQL by `sql` come back as the same double or string.
 */
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startClickHouseCluster, type ClickHouseCluster } from '../../devkit/clickhouse/cluster';
import {
  ClickHouseClient,
  ClickHouseError,
  constantSql,
  encodeRowBinary,
  identifier,
  joinSql,
  sql,
  type ColumnSpec,
} from '../../src-main/clickhouse/clickhouseClient';

const database = 'loopscope_client';
let cluster: ClickHouseCluster;
let client: ClickHouseClient;
/** A seed per run of the tests, said in every failure so it can be run again. */
const seed = Date.now() % 2 ** 31;

before(async () => {
  cluster = await startClickHouseCluster({ shards: 1, database });
  client = new ClickHouseClient({ url: cluster.url });
});

after(async () => {
  await cluster?.stop();
});

/** A double's eight bytes, little-endian, as hex in capitals: what `hex(reinterpretAsString(x))` says, but for its trailing zero bytes, which it drops. */
function bitsOf(value: number): string {
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleLE(value);
  return bytes.toString('hex').toUpperCase();
}

/** ClickHouse's hex of a double's bytes with the zero bytes it drops put back. */
function padBits(hex: string): string {
  return hex.padEnd(16, '0');
}

const hexOfText = (text: string): string => Buffer.from(text, 'utf8').toString('hex').toUpperCase();

/** Doubles the parsers get wrong, and the edges: -0, the smallest subnormal and normal, the largest, near them. */
const awkwardDoubles = [
  6.678998267815595,
  0.1 + 0.2,
  1e-300,
  123456789.12345679,
  -0,
  0,
  5e-324,
  -5e-324,
  2.2250738585072014e-308,
  2.225073858507201e-308,
  1.7976931348623157e308,
  -1.7976931348623157e308,
  Number.MAX_SAFE_INTEGER,
  Number.EPSILON,
  1e21,
  1e20,
  123456789012345680000,
  2 ** 64,
  2 ** 63,
  -(2 ** 63),
];

const doubles = fc.double({ noNaN: true, noDefaultInfinity: true });
/** Text of every kind: whole graphemes (emoji, combining marks), any code point, and the characters escaping breaks on. */
const texts = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({
    unit: fc.constantFrom('\\', "'", '"', '\n', '\r', '\t', '\0', '\u0001', '\u007f', '\u2028', '€', '😀', 'e\u0301', '\ufeff', 'a'),
    maxLength: 12,
  }),
);

const columns: readonly ColumnSpec[] = [
  ['id', 'UInt32'],
  ['f', 'Float64'],
  ['nf', 'Nullable(Float64)'],
  ['af', 'Array(Float64)'],
  ['s', 'String'],
  ['ns', 'Nullable(String)'],
  ['a', 'Array(String)'],
  ['u64', 'UInt64'],
  ['i64', 'Int64'],
  ['ni64', 'Nullable(Int64)'],
  ['u8', 'UInt8'],
  ['u16', 'UInt16'],
  ['dt', 'DateTime'],
];

interface Row {
  id: number;
  f: number;
  nf: number | null;
  af: number[];
  s: string;
  ns: string | null;
  a: string[];
  u64: number;
  i64: number;
  ni64: number | null;
  u8: number;
  u16: number;
  dt: number;
}

const rowsArbitrary = fc.record({
  f: doubles,
  nf: fc.option(doubles, { nil: null }),
  af: fc.array(doubles, { maxLength: 4 }),
  s: texts,
  ns: fc.option(texts, { nil: null }),
  a: fc.array(texts, { maxLength: 3 }),
  u64: fc.maxSafeNat(),
  i64: fc.maxSafeInteger(),
  ni64: fc.option(fc.maxSafeInteger(), { nil: null }),
  u8: fc.integer({ min: 0, max: 255 }),
  u16: fc.integer({ min: 0, max: 65535 }),
  dt: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
});

describe('RowBinary inserts', () => {
  it('store every value exactly, and the JSON the readers read gives it back', async () => {
    const table = sql`${identifier(database)}.${identifier('exact_values')}`;
    // The column types are this test's constants.
    const typed = constantSql(columns.map(([name, type]) => `\`${name}\` ${type}`).join(', '));
    await client.execute(sql`CREATE TABLE ${table} (${typed}) ENGINE = MergeTree() ORDER BY id`);
    const sampled = fc.sample(rowsArbitrary, { numRuns: 4000, seed });
    const rows: Row[] = sampled.map((row, index) => ({ id: index, ...row }));
    // The awkward doubles in every float column, and the edges of the integers.
    awkwardDoubles.forEach((value, index) => {
      Object.assign(rows[index]!, { f: value, nf: value, af: [value, -value] });
    });
    Object.assign(rows[0]!, { u64: Number.MAX_SAFE_INTEGER, i64: Number.MIN_SAFE_INTEGER, u8: 255, u16: 65535, dt: 2 ** 32 - 1, s: '', a: [] });
    Object.assign(rows[1]!, { i64: -1, ni64: Number.MAX_SAFE_INTEGER, s: 'it\'s a \\ "test"\n\0\u0001 😀 e\u0301', ns: '' });
    for (let from = 0; from < rows.length; from += 1500) await client.insertRowBinary(table, columns, rows.slice(from, from + 1500));

    const stored = await client.query<{
      id: number;
      f_bits: string;
      nf_bits: string | null;
      af_bits: string[];
      s_hex: string;
      ns_hex: string | null;
      a_hex: string[];
      u64_text: string;
      i64_text: string;
      ni64_text: string | null;
      u8: number;
      u16: number;
      dt_seconds: number;
    }>(
      sql`SELECT id, hex(reinterpretAsString(f)) AS f_bits, if(isNull(nf), NULL, hex(reinterpretAsString(assumeNotNull(nf)))) AS nf_bits,
                 arrayMap(x -> hex(reinterpretAsString(x)), af) AS af_bits, hex(s) AS s_hex, if(isNull(ns), NULL, hex(assumeNotNull(ns))) AS ns_hex,
                 arrayMap(x -> hex(x), a) AS a_hex, toString(u64) AS u64_text, toString(i64) AS i64_text, toString(ni64) AS ni64_text,
                 u8, u16, toUInt32(dt) AS dt_seconds
          FROM ${table} ORDER BY id`,
    );
    assert.equal(stored.length, rows.length);
    const failures: string[] = [];
    stored.forEach((got, index) => {
      const row = rows[index]!;
      const expected = {
        id: row.id,
        f_bits: bitsOf(row.f),
        nf_bits: row.nf === null ? null : bitsOf(row.nf),
        af_bits: row.af.map(bitsOf),
        s_hex: hexOfText(row.s),
        ns_hex: row.ns === null ? null : hexOfText(row.ns),
        a_hex: row.a.map(hexOfText),
        u64_text: String(row.u64),
        i64_text: String(row.i64),
        ni64_text: row.ni64 === null ? null : String(row.ni64),
        u8: row.u8,
        u16: row.u16,
        dt_seconds: row.dt,
      };
      const actual = {
        ...got,
        f_bits: padBits(got.f_bits),
        nf_bits: got.nf_bits === null ? null : padBits(got.nf_bits),
        af_bits: got.af_bits.map(padBits),
      };
      try {
        assert.deepEqual(actual, expected);
      } catch {
        failures.push(`row ${index} (${JSON.stringify(row)}): ${JSON.stringify(actual)}`);
      }
    });
    assert.deepEqual(failures.slice(0, 5), [], `seed ${seed}: ${failures.length} rows differ`);

    // As the readers read them: JSONEachRow prints a Float64 as its shortest text, and a string whole.
    const read = await client.query<Row>(sql`SELECT * FROM ${table} ORDER BY id`);
    const different = read.flatMap((got, index) => {
      const row = rows[index]!;
      const same =
        Object.is(got.f, row.f) &&
        (got.nf === null ? row.nf === null : Object.is(got.nf, row.nf)) &&
        got.af.length === row.af.length &&
        got.af.every((value, at) => Object.is(value, row.af[at])) &&
        got.s === row.s &&
        got.ns === row.ns &&
        JSON.stringify(got.a) === JSON.stringify(row.a);
      return same ? [] : [`row ${index}: wrote ${JSON.stringify([row.f, row.nf, row.af, row.s, row.ns, row.a])}, read ${JSON.stringify(got)}`];
    });
    assert.deepEqual(different.slice(0, 5), [], `seed ${seed}: ${different.length} rows read otherwise`);
    // toString(Float64) is the same shortest text.
    const printed = await client.query<{ id: number; f_text: string }>(sql`SELECT id, toString(f) AS f_text FROM ${table} ORDER BY id`);
    const otherText = printed.filter((got) => !Object.is(Number(got.f_text), rows[got.id]!.f));
    assert.deepEqual(otherText.slice(0, 5), [], `seed ${seed}`);
  });

  it('refuses a type it cannot write, a missing column, and a value not of its column’s type, saying which', () => {
    const message = (run: () => unknown): string => {
      try {
        run();
      } catch (error) {
        assert.ok(error instanceof ClickHouseError, String(error));
        return error.message;
      }
      assert.fail('no error');
    };
    assert.match(
      message(() => encodeRowBinary([['x', 'Float32']], [{ x: 1 }], 't')),
      /t, column x: cannot write a Float32 column as RowBinary/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'Decimal(10, 2)']], [{ x: 1 }], 't')),
      /Decimal/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'String']], [{}], 't')),
      /row 0 into t: column x \(String\): the row has no such column/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'String']], [{ x: 1 }], 't')),
      /the number 1 is not a string/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'String']], [{ x: null }], 't')),
      /NULL is not a string/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'String']], [{ x: '\ud800' }], 't')),
      /lone surrogate/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'Float64']], [{ x: '1.5' }], 't')),
      /not a number/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'UInt64']], [{ x: 2 ** 53 }], 't')),
      /not an integer a UInt64 holds exactly/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'UInt64']], [{ x: -1 }], 't')),
      /UInt64/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'UInt32']], [{ x: 1.5 }], 't')),
      /not a UInt32/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'UInt8']], [{ x: 256 }], 't')),
      /not a UInt8/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'Array(String)']], [{ x: 'a' }], 't')),
      /is not an array/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'Array(String)']], [{ x: ['a', 2] }], 't')),
      /the number 2 is not a string/,
    );
    assert.match(
      message(() => encodeRowBinary([['x', 'Nullable(UInt32)']], [{ x: 1 }, { x: undefined }], 't')),
      /row 1 into t: column x \(Nullable\(UInt32\)\): it is undefined/,
    );
  });

  it('writes the bytes RowBinary is: LEB128 lengths, little-endian numbers, a NULL byte', () => {
    const body = encodeRowBinary(
      [
        ['s', 'String'],
        ['n', 'Nullable(UInt16)'],
        ['a', 'Array(Int64)'],
        ['f', 'Float64'],
      ],
      [
        { s: 'é'.repeat(100), n: null, a: [-2], f: -0 },
        { s: '', n: 258, a: [], f: 1 },
      ],
    );
    const expected = Buffer.concat([
      Buffer.from([200, 1]),
      Buffer.from('é'.repeat(100), 'utf8'),
      Buffer.from([1]),
      Buffer.from([1, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
      Buffer.from([0, 0, 0, 0, 0, 0, 0, 0x80]),
      Buffer.from([0]),
      Buffer.from([0, 2, 1]),
      Buffer.from([0]),
      Buffer.from([0, 0, 0, 0, 0, 0, 0xf0, 0x3f]),
    ]);
    assert.deepEqual(body, expected);
  });
});

describe('values written into SQL by sql``', () => {
  it('come back as the same double, -0 and subnormals too', async () => {
    const values = [...awkwardDoubles, ...fc.sample(doubles, { numRuns: 5000, seed })];
    const failures: string[] = [];
    for (let from = 0; from < values.length; from += 250) {
      const chunk = values.slice(from, from + 250);
      const selected = joinSql(
        chunk.map((value, index) => sql`hex(reinterpretAsString(toFloat64(${value}))) AS ${identifier(`b${index}`)}, ${value} AS ${identifier(`v${index}`)}`),
        ', ',
      );
      const [row] = await client.query<Record<string, string | number>>(sql`SELECT ${selected}`);
      chunk.forEach((value, index) => {
        const bits = padBits(String(row![`b${index}`]));
        if (bits !== bitsOf(value)) failures.push(`${value}: ${bits}, not ${bitsOf(value)}`);
        const read = row![`v${index}`];
        // An integer literal past 2^64 or a subnormal is read as a double; any number prints back as itself.
        if (!Object.is(Number(read), value)) failures.push(`${value} read back as ${read}`);
      });
    }
    assert.deepEqual(failures.slice(0, 5), [], `seed ${seed}: ${failures.length} differ`);
  });

  it('come back as the same string, whatever its characters', async () => {
    const values = fc.sample(texts, { numRuns: 2000, seed });
    for (let from = 0; from < values.length; from += 200) {
      const chunk = values.slice(from, from + 200);
      const selected = joinSql(
        chunk.map((value, index) => sql`hex(${value}) AS ${identifier(`h${index}`)}`),
        ', ',
      );
      const [row] = await client.query<Record<string, string>>(sql`SELECT ${selected}`);
      chunk.forEach((value, index) => assert.equal(row![`h${index}`], hexOfText(value), `seed ${seed}: ${JSON.stringify(value)}`));
    }
  });
});
