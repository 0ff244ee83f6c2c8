/**
 * ClickHouse over its HTTP interface (docs/clickhouse.md): the one way Loopscope talks to it.
 *
 * The versions Debian ships (18.16) have no server-side query parameters (`{name:Type}` came in
 * 19.x), so values are bound here instead: every value reaches the SQL text only through
 * `sql`…``, which writes it as a ClickHouse literal with its quotes and backslashes escaped, and
 * every identifier through `identifier`, which accepts only plain names. No SQL is ever built by
 * concatenating a string that came from a user or a trace.
 */
import { Buffer } from 'node:buffer';

export type SqlValue = string | number | boolean | null | readonly SqlValue[];

/** SQL text whose values are already written as literals: made only by `sql`, `identifier`, `joinSql` and `constantSql`. */
export class BoundSql {
  constructor(readonly text: string) {}
}

/** SQL text written in this codebase (a column type, a sort expression): never anything read from input. */
export function constantSql(text: string): BoundSql {
  return new BoundSql(text);
}

/** A ClickHouse string literal: backslash and quote escaped, control characters as escapes, so any text is one literal. */
function stringLiteral(value: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what this escapes
  const escaped = value.replace(/[\\'\u0000-\u001f]/g, (character) => {
    if (character === '\\') return '\\\\';
    if (character === "'") return "\\'";
    return `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
  return `'${escaped}'`;
}

/** The smallest normal double: 18.16 parses every finite literal from here up exactly, but takes a smaller one (subnormal) for a syntax error. */
const MIN_NORMAL = 2.2250738585072014e-308;

/**
 * A number as ClickHouse reads it back as the same double: JavaScript's shortest text, which 18.16
 * parses exactly as a literal (not so as a string: `toFloat64('…')`, like JSONEachRow, is off by an
 * ULP for some doubles); -0 with its sign (`String(-0)` is `0`); a subnormal, which 18.16 cannot
 * read as a literal, as its eight bytes reinterpreted.
 */
function numberLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
  if (Object.is(value, -0)) return '-0.';
  if (value !== 0 && Math.abs(value) < MIN_NORMAL) {
    const bytes = Buffer.alloc(8);
    bytes.writeDoubleLE(value);
    return `reinterpretAsFloat64(unhex('${bytes.toString('hex')}'))`;
  }
  return String(value);
}

function literal(value: SqlValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') return numberLiteral(value);
  return `[${value.map(literal).join(', ')}]`;
}

/** `sql\`SELECT … WHERE x = ${value}\``: values become literals; a nested BoundSql is spliced as it is. */
export function sql(strings: TemplateStringsArray, ...values: (SqlValue | BoundSql)[]): BoundSql {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += value instanceof BoundSql ? value.text : literal(value);
    text += strings[index + 1] ?? '';
  });
  return new BoundSql(text);
}

/** A database or table name: letters, digits and underscores only, back-quoted. */
export function identifier(name: string): BoundSql {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new ClickHouseError(`not a plain ClickHouse name: "${name}" (letters, digits and _ only)`);
  return new BoundSql(`\`${name}\``);
}

/** Joins bound pieces with a separator (a list of conditions, columns, values). */
export function joinSql(parts: readonly BoundSql[], separator: string): BoundSql {
  return new BoundSql(parts.map((part) => part.text).join(separator));
}

export class ClickHouseError extends Error {}

export interface ClickHouseConnection {
  /** http://host:port of the server's HTTP interface. */
  url: string;
  user?: string;
  password?: string;
}

/** Settings every request carries: 64-bit integers as JSON numbers (our counts fit in 2^53), and inserts into a Distributed table written through to the shards before the answer. */
const requestSettings = { output_format_json_quote_64bit_integers: '0', insert_distributed_sync: '1' };

export class ClickHouseClient {
  private readonly base: URL;
  private readonly headers: Record<string, string>;

  constructor(connection: ClickHouseConnection) {
    this.base = new URL(connection.url);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:')
      throw new ClickHouseError(`not an HTTP URL of a ClickHouse server: ${connection.url}`);
    this.headers = {};
    if (connection.user !== undefined) this.headers['X-ClickHouse-User'] = connection.user;
    if (connection.password !== undefined) this.headers['X-ClickHouse-Key'] = connection.password;
  }

  /** Where it talks to, without credentials: for messages. */
  get address(): string {
    return `${this.base.protocol}//${this.base.host}`;
  }

  private async post(body: string | Buffer, query?: string): Promise<string> {
    const url = new URL(this.base);
    url.pathname = '/';
    for (const [key, value] of Object.entries(requestSettings)) url.searchParams.set(key, value);
    if (query !== undefined) url.searchParams.set('query', query);
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { ...this.headers, 'Content-Type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream' },
        body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ClickHouseError(`ClickHouse at ${this.address} cannot be reached: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    const text = await response.text();
    if (!response.ok) throw new ClickHouseError(`ClickHouse at ${this.address} answered ${response.status}: ${text.trim().slice(0, 2000)}`);
    return text;
  }

  /** Runs a statement that returns nothing (DDL, ALTER). */
  async execute(statement: BoundSql): Promise<void> {
    await this.post(statement.text);
  }

  /** Runs a SELECT; its rows as objects (JSONEachRow). */
  async query<Row>(select: BoundSql): Promise<Row[]> {
    const text = await this.post(`${select.text}\nFORMAT JSONEachRow`);
    return text
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as Row);
  }

  /**
   * Inserts rows (objects keyed by column) into a table in one request, as RowBinary: every value
   * is written as the bytes ClickHouse stores (`encodeRowBinary` below), so a Float64 arrives as the very
   * double — 18.16's text formats (JSONEachRow, TSV, VALUES) parse about 3% of doubles an ULP off.
   * `columns` are the table's (name and type, clickhouseSchema.ts): every row must have each, with
   * a value of its type.
   */
  async insertRowBinary(table: BoundSql, columns: readonly ColumnSpec[], rows: readonly object[]): Promise<void> {
    if (rows.length === 0) return;
    const body = encodeRowBinary(columns, rows, table.text);
    const names = joinSql(
      columns.map(([name]) => identifier(name)),
      ', ',
    );
    await this.post(body, `INSERT INTO ${table.text} (${names.text}) FORMAT RowBinary`);
  }
}

/** A column: its name and ClickHouse type, as clickhouseSchema.ts declares them. */
export type ColumnSpec = readonly [name: string, type: string];

/**
 * RowBinary (ClickHouse's native row format, little-endian): integers in their width, Float64 as its
 * eight IEEE bytes, String as a LEB128 length and its UTF-8 bytes, Nullable(T) as a byte (1: NULL,
 * nothing follows; 0: T follows), Array(T) as a LEB128 count and its elements, DateTime as UInt32
 * seconds. Only these types: any other is refused, as is a value not of its column's type.
 */
class RowBinaryWriter {
  private buffer = Buffer.allocUnsafe(1 << 16);
  length = 0;

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  byte(value: number): void {
    this.room(1);
    this.buffer[this.length++] = value;
  }

  varint(value: number): void {
    let rest = value;
    while (rest >= 0x80) {
      this.byte((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    this.byte(rest);
  }

  unsigned(value: number, bytes: 1 | 2 | 4): void {
    this.room(bytes);
    this.length = this.buffer.writeUIntLE(value, this.length, bytes);
  }

  signed(value: number, bytes: 1 | 2 | 4): void {
    this.room(bytes);
    this.length = this.buffer.writeIntLE(value, this.length, bytes);
  }

  /** A 64-bit integer from a safe integer: its low and high 32 bits (two's complement when negative). */
  int64(value: number): void {
    this.room(8);
    const low = ((value % 0x1_0000_0000) + 0x1_0000_0000) % 0x1_0000_0000;
    this.length = this.buffer.writeUInt32LE(low, this.length);
    this.length = this.buffer.writeInt32LE(Math.floor(value / 0x1_0000_0000), this.length);
  }

  float64(value: number): void {
    this.room(8);
    this.length = this.buffer.writeDoubleLE(value, this.length);
  }

  string(value: string): void {
    const bytes = Buffer.byteLength(value, 'utf8');
    this.varint(bytes);
    this.room(bytes);
    this.length += this.buffer.write(value, this.length, bytes, 'utf8');
  }

  result(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/** Writes one value of a column; throws a message naming what is wrong with it. */
type ValueEncoder = (writer: RowBinaryWriter, value: unknown) => void;

class RowBinaryValueError extends Error {}

const integerRanges = {
  UInt8: [0, 0xff, 1],
  UInt16: [0, 0xffff, 2],
  UInt32: [0, 0xffff_ffff, 4],
  Int8: [-0x80, 0x7f, 1],
  Int16: [-0x8000, 0x7fff, 2],
  Int32: [-0x8000_0000, 0x7fff_ffff, 4],
  DateTime: [0, 0xffff_ffff, 4],
} as const;

function describeValue(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `the ${typeof value} ${String(value)}`;
  if (value === null) return 'NULL';
  if (value === undefined) return 'nothing';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

function valueEncoder(type: string): ValueEncoder {
  const inner = /^(Nullable|Array)\((.+)\)$/.exec(type);
  if (inner?.[1] === 'Nullable') {
    const encode = valueEncoder(inner[2]!);
    return (writer, value) => {
      if (value === null) return writer.byte(1);
      writer.byte(0);
      encode(writer, value);
    };
  }
  if (inner?.[1] === 'Array') {
    const encode = valueEncoder(inner[2]!);
    return (writer, value) => {
      if (!Array.isArray(value)) throw new RowBinaryValueError(`${describeValue(value)} is not an array`);
      writer.varint(value.length);
      for (const item of value) encode(writer, item);
    };
  }
  if (type === 'String')
    return (writer, value) => {
      if (typeof value !== 'string') throw new RowBinaryValueError(`${describeValue(value)} is not a string`);
      // A lone surrogate has no UTF-8: it would arrive as U+FFFD, another text.
      if (!value.isWellFormed()) throw new RowBinaryValueError(`${describeValue(value)} has a lone surrogate, which UTF-8 cannot hold`);
      writer.string(value);
    };
  if (type === 'Float64')
    return (writer, value) => {
      if (typeof value !== 'number') throw new RowBinaryValueError(`${describeValue(value)} is not a number`);
      writer.float64(value);
    };
  if (type === 'UInt64' || type === 'Int64') {
    const min = type === 'UInt64' ? 0 : Number.MIN_SAFE_INTEGER;
    return (writer, value) => {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
        throw new RowBinaryValueError(`${describeValue(value)} is not an integer a ${type} holds exactly (${min} to 2^53-1)`);
      writer.int64(value);
    };
  }
  const range = (integerRanges as Record<string, readonly [number, number, 1 | 2 | 4]>)[type];
  if (range !== undefined) {
    const [min, max, bytes] = range;
    return (writer, value) => {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
        throw new RowBinaryValueError(`${describeValue(value)} is not a ${type} (an integer from ${min} to ${max})`);
      if (min < 0) writer.signed(value, bytes);
      else writer.unsigned(value, bytes);
    };
  }
  throw new ClickHouseError(`cannot write a ${type} column as RowBinary: only (U)Int8-64, Float64, String, DateTime, Nullable(…) and Array(…)`);
}

/** The RowBinary body of `rows` in the columns' order; `table` names the table in messages. */
export function encodeRowBinary(columns: readonly ColumnSpec[], rows: readonly object[], table = 'the table'): Buffer {
  const encoders = columns.map(([name, type]) => {
    try {
      return valueEncoder(type);
    } catch (error) {
      throw new ClickHouseError(`${table}, column ${name}: ${(error as Error).message}`);
    }
  });
  const writer = new RowBinaryWriter();
  rows.forEach((row, index) => {
    const record = row as Record<string, unknown>;
    columns.forEach(([name, type], column) => {
      const value = record[name];
      try {
        if (value === undefined) throw new RowBinaryValueError(Object.hasOwn(record, name) ? 'it is undefined' : 'the row has no such column');
        encoders[column]!(writer, value);
      } catch (error) {
        if (!(error instanceof RowBinaryValueError)) throw error;
        throw new ClickHouseError(`cannot insert row ${index} into ${table}: column ${name} (${type}): ${error.message}`);
      }
    });
  });
  return writer.result();
}
