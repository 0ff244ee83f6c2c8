/**
 * OTLP/protobuf trace export requests — the body an OTLP/HTTP exporter posts to `/v1/traces` as
 * `application/x-protobuf`, or a gRPC `TraceService/Export` message — decoded into the object
 * OTLP/JSON carries for the same request: the object one line of an OTLP JSON file holds, which
 * the `otel-otlp` adapter reads (docs/formats/otel.md).
 *
 * Schema: open-telemetry/opentelemetry-proto at commit ac2c4b5d1f3a6079de62f9afec860158ecc8af09
 * (v1.11.0 and 16 commits, 2026-08-18): `collector/trace/v1/trace_service.proto`,
 * `trace/v1/trace.proto`, `resource/v1/resource.proto`, `common/v1/common.proto`. Every field
 * number below is theirs; fields they reserve (ResourceSpans 1000, the pre-1.0
 * `instrumentation_library_spans`; Status 1, the deprecated code) are unknown fields here.
 *
 * Output, per the OTLP/JSON mapping (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding):
 * lowerCamelCase keys; trace and span ids as lowercase hex; 64-bit integers as decimal text;
 * enums as integers; bytes as base64; a non-finite double as `"NaN"`, `"Infinity"` or
 * `"-Infinity"` (the proto3 JSON mapping); a field at its proto3 default omitted, but for the
 * members of AnyValue's oneof, which are kept at their default because a oneof records which
 * member is set. The request's `resourceSpans` is kept even when empty (an empty body decodes to
 * `{ resourceSpans: [] }`), so every decoded request reads as a trace export to readers that look
 * for that array, as the `otel-otlp` adapter's detection does.
 *
 * Wire format (https://protobuf.dev/programming-guides/encoding/), read as protobuf parsers do:
 * unknown fields are skipped, so a newer sender's additions pass; a singular field seen twice
 * keeps its last value and a singular message seen twice is merged; no repeated field of these
 * messages has a numeric element type, so none can arrive packed. The profiling-only
 * `KeyValue.key_strindex` and `AnyValue.string_value_strindex` are read and dropped, as
 * common.proto tells receivers of other signals to do. Groups (wire types 3 and 4) cannot occur in
 * proto3 messages and are rejected, as are the undefined wire types 6 and 7.
 *
 * Hostile input: every read is bounded by the end of the message it is in, so a length can never
 * reach past its parent; AnyValue nesting (the only recursion) stops at 64 levels; every output
 * value comes from input bytes that are consumed once, so memory grows with the body's size. Any
 * failure is an OtlpProtobufError saying what was wrong, at which byte, in which field.
 */

/** A protobuf body that is not a valid ExportTraceServiceRequest: `reason` says where and what. */
export class OtlpProtobufError extends Error {
  constructor(readonly reason: string) {
    super(`not an OTLP/protobuf ExportTraceServiceRequest: ${reason}`);
    this.name = 'OtlpProtobufError';
  }
}

// ---------------------------------------------------------------------------------------------
// OTLP/JSON types: the decoded request

/** An ExportTraceServiceRequest as OTLP/JSON writes it. */
export interface OtlpJsonTraceRequest {
  resourceSpans: OtlpJsonResourceSpans[];
}

export interface OtlpJsonResourceSpans {
  resource?: OtlpJsonResource;
  scopeSpans?: OtlpJsonScopeSpans[];
  schemaUrl?: string;
}

export interface OtlpJsonResource {
  attributes?: OtlpJsonKeyValue[];
  droppedAttributesCount?: number;
  entityRefs?: OtlpJsonEntityRef[];
}

export interface OtlpJsonEntityRef {
  schemaUrl?: string;
  type?: string;
  idKeys?: string[];
  descriptionKeys?: string[];
}

export interface OtlpJsonScopeSpans {
  scope?: OtlpJsonInstrumentationScope;
  spans?: OtlpJsonSpan[];
  schemaUrl?: string;
}

export interface OtlpJsonInstrumentationScope {
  name?: string;
  version?: string;
  attributes?: OtlpJsonKeyValue[];
  droppedAttributesCount?: number;
}

export interface OtlpJsonSpan {
  /** Lowercase hex. */
  traceId?: string;
  /** Lowercase hex. */
  spanId?: string;
  traceState?: string;
  /** Lowercase hex; absent on a root span. */
  parentSpanId?: string;
  /** W3C trace flags (low 8 bits) and the SpanFlags context bits. */
  flags?: number;
  name?: string;
  /** SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind?: number;
  /** Unix nanoseconds, decimal. */
  startTimeUnixNano?: string;
  /** Unix nanoseconds, decimal. */
  endTimeUnixNano?: string;
  attributes?: OtlpJsonKeyValue[];
  droppedAttributesCount?: number;
  events?: OtlpJsonSpanEvent[];
  droppedEventsCount?: number;
  links?: OtlpJsonSpanLink[];
  droppedLinksCount?: number;
  status?: OtlpJsonStatus;
}

export interface OtlpJsonSpanEvent {
  /** Unix nanoseconds, decimal. */
  timeUnixNano?: string;
  name?: string;
  attributes?: OtlpJsonKeyValue[];
  droppedAttributesCount?: number;
}

export interface OtlpJsonSpanLink {
  /** Lowercase hex. */
  traceId?: string;
  /** Lowercase hex. */
  spanId?: string;
  traceState?: string;
  attributes?: OtlpJsonKeyValue[];
  droppedAttributesCount?: number;
  flags?: number;
}

export interface OtlpJsonStatus {
  message?: string;
  /** StatusCode: 1 OK, 2 ERROR (0, unset, is omitted). */
  code?: number;
}

export interface OtlpJsonKeyValue {
  key?: string;
  value?: OtlpJsonAnyValue;
}

/** The proto3 JSON spelling of the doubles JSON numbers cannot hold. */
export type OtlpJsonNonFiniteDouble = 'NaN' | 'Infinity' | '-Infinity';

/** One member of AnyValue's oneof, or none (an empty value). */
export type OtlpJsonAnyValue =
  | Record<string, never>
  | { stringValue: string }
  | { boolValue: boolean }
  /** int64, decimal. */
  | { intValue: string }
  | { doubleValue: number | OtlpJsonNonFiniteDouble }
  | { arrayValue: OtlpJsonArrayValue }
  | { kvlistValue: OtlpJsonKeyValueList }
  /** Base64. */
  | { bytesValue: string };

export interface OtlpJsonArrayValue {
  values?: OtlpJsonAnyValue[];
}

export interface OtlpJsonKeyValueList {
  values?: OtlpJsonKeyValue[];
}

// ---------------------------------------------------------------------------------------------
// Wire format

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

const WIRE_TYPE_NAMES = ['varint', '64-bit', 'length-delimited', 'group start', 'group end', '32-bit'];

const wireTypeName = (wireType: number): string => WIRE_TYPE_NAMES[wireType] ?? `${wireType} (undefined)`;

const bytesText = (count: number | bigint): string => (BigInt(count) === 1n ? '1 byte' : `${count} bytes`);

/** The element index recorded for a field that is not repeated. */
const SINGULAR = -1;

/** Deeper AnyValues are refused: the limit keeps the recursion that reads them shallow. */
const MAX_ANY_VALUE_DEPTH = 64;

/**
 * Strings as protobuf's JavaScript implementations read them: invalid UTF-8 becomes U+FFFD rather
 * than failing the request, and a leading U+FEFF is part of the string, not a byte order mark.
 */
const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Reads protobuf fields from a body, one message at a time; every failure is an OtlpProtobufError. */
class WireReader {
  /** The next byte to read. */
  private position = 0;
  /** The end of the message being read: no read goes past it. */
  private end: number;
  private fieldNumber = 0;
  private wireType = 0;
  /** Where the current field's tag starts, for error reasons. */
  private fieldStart = 0;
  /** The last varint read, as unsigned low and high 32 bits: kept here rather than returned as a pair, so a read allocates nothing. */
  private varintLow = 0;
  private varintHigh = 0;
  /** The fields entered to reach the current message, with the element index of repeated ones (SINGULAR otherwise), for error reasons. */
  private readonly pathNames: string[] = [];
  private readonly pathIndexes: number[] = [];
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.end = bytes.length;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  hasMoreFields(): boolean {
    return this.position < this.end;
  }

  /** Reads a field's tag and returns its number; its wire type is kept to check the read that follows. */
  nextField(): number {
    this.fieldStart = this.position;
    this.readVarint();
    if (this.varintHigh !== 0) this.fail('a field tag wider than 32 bits', this.fieldStart);
    this.fieldNumber = this.varintLow >>> 3;
    this.wireType = this.varintLow & 7;
    if (this.fieldNumber === 0) this.fail('field number 0, which protobuf does not allow', this.fieldStart);
    if (this.wireType !== WIRE_VARINT && this.wireType !== WIRE_I64 && this.wireType !== WIRE_LEN && this.wireType !== WIRE_I32) {
      this.fail(`field ${this.fieldNumber} has wire type ${wireTypeName(this.wireType)}, which proto3 messages do not use`, this.fieldStart);
    }
    return this.fieldNumber;
  }

  /** Skips the current field (one this decoder does not know), whatever its wire type. */
  skipField(): void {
    switch (this.wireType) {
      case WIRE_VARINT:
        this.readVarint();
        return;
      case WIRE_I64:
        this.advance(8);
        return;
      case WIRE_LEN:
        this.advance(this.readLength());
        return;
      default:
        this.advance(4);
    }
  }

  /** Enters the current field's message: reads stay within it until leaveMessage is given the returned enclosing end. */
  enterMessage(name: string, index: number): number {
    this.expectWireType(WIRE_LEN);
    const length = this.readLength();
    const enclosingEnd = this.end;
    this.end = this.position + length;
    this.pathNames.push(name);
    this.pathIndexes.push(index);
    return enclosingEnd;
  }

  leaveMessage(enclosingEnd: number): void {
    this.end = enclosingEnd;
    this.pathNames.pop();
    this.pathIndexes.pop();
  }

  readString(): string {
    return utf8.decode(this.readBytes());
  }

  /** A view into the body, not a copy. */
  readBytes(): Uint8Array {
    this.expectWireType(WIRE_LEN);
    const length = this.readLength();
    const start = this.position;
    this.position += length;
    return this.bytes.subarray(start, this.position);
  }

  readFixed64(): bigint {
    this.expectWireType(WIRE_I64);
    const start = this.advance(8);
    return this.view.getBigUint64(start, true);
  }

  readDouble(): number {
    this.expectWireType(WIRE_I64);
    const start = this.advance(8);
    return this.view.getFloat64(start, true);
  }

  readFixed32(): number {
    this.expectWireType(WIRE_I32);
    const start = this.advance(4);
    return this.view.getUint32(start, true);
  }

  /** A uint32: protobuf keeps the low 32 bits of a wider varint. */
  readUint32(): number {
    this.expectWireType(WIRE_VARINT);
    this.readVarint();
    return this.varintLow;
  }

  /** An int32 or enum: the low 32 bits, signed (a negative one is sent as a 10-byte varint). */
  readInt32(): number {
    return this.readUint32() | 0;
  }

  readInt64(): bigint {
    this.expectWireType(WIRE_VARINT);
    this.readVarint();
    return BigInt.asIntN(64, this.varintAsBigInt());
  }

  readBool(): boolean {
    this.expectWireType(WIRE_VARINT);
    this.readVarint();
    return this.varintLow !== 0 || this.varintHigh !== 0;
  }

  /** Throws the OtlpProtobufError for `what`, found at byte `at`, with the fields that lead there. */
  fail(what: string, at: number = this.position): never {
    throw new OtlpProtobufError(`${what} (byte ${at} of ${this.bytes.length}, in ${this.describePath()})`);
  }

  private describePath(): string {
    if (this.pathNames.length === 0) return 'ExportTraceServiceRequest';
    return this.pathNames.map((name, depth) => (this.pathIndexes[depth] === SINGULAR ? name : `${name}[${this.pathIndexes[depth]}]`)).join('.');
  }

  private expectWireType(expected: number): void {
    if (this.wireType !== expected) {
      this.fail(`field ${this.fieldNumber} has wire type ${wireTypeName(this.wireType)} where its type is ${wireTypeName(expected)}`, this.fieldStart);
    }
  }

  /** Moves past `count` bytes of the current message and returns where they start. */
  private advance(count: number): number {
    const start = this.position;
    if (count > this.end - start) this.fail(`${bytesText(count)} expected where the ${this.enclosure()} has ${bytesText(this.end - start)} left`, start);
    this.position += count;
    return start;
  }

  private readLength(): number {
    const start = this.position;
    this.readVarint();
    const left = this.end - this.position;
    if (this.varintHigh !== 0 || this.varintLow > left) {
      this.fail(`a length of ${bytesText(this.varintAsBigInt())} where the ${this.enclosure()} has ${bytesText(left)} left`, start);
    }
    return this.varintLow;
  }

  private enclosure(): string {
    return this.pathNames.length === 0 ? 'body' : 'message';
  }

  private varintAsBigInt(): bigint {
    return (BigInt(this.varintHigh) << 32n) | BigInt(this.varintLow);
  }

  /** Reads a varint of at most 10 bytes into varintLow and varintHigh; one that overflows 64 bits is refused. */
  private readVarint(): void {
    const start = this.position;
    let low = 0;
    let high = 0;
    for (let index = 0; index < 10; index++) {
      if (this.position >= this.end) this.fail(`a varint cut off by the end of the ${this.enclosure()}`, start);
      const byte = this.bytes[this.position++]!;
      const payload = byte & 0x7f;
      if (index < 4) {
        low |= payload << (7 * index);
      } else if (index === 4) {
        // Bits 28 to 34: four for the low half, three for the high one.
        low |= payload << 28;
        high = payload >>> 4;
      } else if (index < 9) {
        high |= payload << (7 * index - 32);
      } else {
        if (payload > 1) this.fail('a varint that overflows 64 bits', start);
        high |= payload << 31;
      }
      if (byte < 0x80) {
        this.varintLow = low >>> 0;
        this.varintHigh = high >>> 0;
        return;
      }
    }
    this.fail('a varint longer than 10 bytes', start);
  }
}

// ---------------------------------------------------------------------------------------------
// Messages

/**
 * Sets a field, or removes it when `value` is undefined (the field's proto3 default, which JSON
 * omits): a later occurrence of a field replaces an earlier one, even with the default.
 */
function setOrOmit<Message extends object, Key extends keyof Message>(message: Message, key: Key, value: Message[Key] | undefined): void {
  if (value === undefined) Reflect.deleteProperty(message, key);
  else message[key] = value;
}

const nonEmpty = (text: string): string | undefined => (text === '' ? undefined : text);
const nonZero = (count: number): number | undefined => (count === 0 ? undefined : count);
const nonEmptyHex = (bytes: Uint8Array): string | undefined => (bytes.length === 0 ? undefined : bufferOf(bytes).toString('hex'));
const nonZeroNanos = (nanos: bigint): string | undefined => (nanos === 0n ? undefined : nanos.toString());

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function jsonDouble(value: number): number | OtlpJsonNonFiniteDouble {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return value;
}

/** Reads the current field's message and appends it to a repeated field's elements. */
function appendMessage<Message>(reader: WireReader, name: string, elements: Message[] | undefined, read: (reader: WireReader) => Message): Message[] {
  const list = elements ?? [];
  const enclosingEnd = reader.enterMessage(name, list.length);
  list.push(read(reader));
  reader.leaveMessage(enclosingEnd);
  return list;
}

/** Reads the current field's message into a singular field, merged with what an earlier occurrence set. */
function mergeMessage<Message>(
  reader: WireReader,
  name: string,
  previous: Message | undefined,
  read: (reader: WireReader, previous: Message | undefined) => Message,
): Message {
  const enclosingEnd = reader.enterMessage(name, SINGULAR);
  const message = read(reader, previous);
  reader.leaveMessage(enclosingEnd);
  return message;
}

/** Appends a repeated string field's element. */
function appendString(reader: WireReader, elements: string[] | undefined): string[] {
  const list = elements ?? [];
  list.push(reader.readString());
  return list;
}

function readAnyValue(reader: WireReader, previous: OtlpJsonAnyValue | undefined, depth: number): OtlpJsonAnyValue {
  if (depth > MAX_ANY_VALUE_DEPTH) reader.fail(`AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH} levels`);
  // The oneof's last member read wins; a message member read again merges into itself.
  let value: OtlpJsonAnyValue = previous ?? {};
  while (reader.hasMoreFields()) {
    switch (reader.nextField()) {
      case 1:
        value = { stringValue: reader.readString() };
        break;
      case 2:
        value = { boolValue: reader.readBool() };
        break;
      case 3:
        value = { intValue: reader.readInt64().toString() };
        break;
      case 4:
        value = { doubleValue: jsonDouble(reader.readDouble()) };
        break;
      case 5: {
        const merged = 'arrayValue' in value ? value.arrayValue : undefined;
        value = { arrayValue: mergeMessage(reader, 'arrayValue', merged, (inner, previousArray) => readArrayValue(inner, previousArray, depth)) };
        break;
      }
      case 6: {
        const merged = 'kvlistValue' in value ? value.kvlistValue : undefined;
        value = { kvlistValue: mergeMessage(reader, 'kvlistValue', merged, (inner, previousList) => readKeyValueList(inner, previousList, depth)) };
        break;
      }
      case 7:
        value = { bytesValue: bufferOf(reader.readBytes()).toString('base64') };
        break;
      case 8:
        // string_value_strindex points into a profiles dictionary that trace requests do not have.
        reader.readInt32();
        value = {};
        break;
      default:
        reader.skipField();
    }
  }
  return value;
}

function readArrayValue(reader: WireReader, previous: OtlpJsonArrayValue | undefined, depth: number): OtlpJsonArrayValue {
  const array = previous ?? {};
  while (reader.hasMoreFields()) {
    if (reader.nextField() === 1) array.values = appendMessage(reader, 'values', array.values, (inner) => readAnyValue(inner, undefined, depth + 1));
    else reader.skipField();
  }
  return array;
}

function readKeyValueList(reader: WireReader, previous: OtlpJsonKeyValueList | undefined, depth: number): OtlpJsonKeyValueList {
  const list = previous ?? {};
  while (reader.hasMoreFields()) {
    if (reader.nextField() === 1) list.values = appendMessage(reader, 'values', list.values, (inner) => readKeyValue(inner, depth + 1));
    else reader.skipField();
  }
  return list;
}

/** A KeyValue whose value is at AnyValue nesting level `depth` (1 for an attribute). */
function readKeyValue(reader: WireReader, depth: number): OtlpJsonKeyValue {
  const keyValue: OtlpJsonKeyValue = {};
  while (reader.hasMoreFields()) {
    switch (reader.nextField()) {
      case 1:
        setOrOmit(keyValue, 'key', nonEmpty(reader.readString()));
        break;
      case 2:
        keyValue.value = mergeMessage(reader, 'value', keyValue.value, (inner, previous) => readAnyValue(inner, previous, depth));
        break;
      case 3:
        // key_strindex points into a profiles dictionary that trace requests do not have.
        reader.readInt32();
        break;
      default:
        reader.skipField();
    }
  }
  return keyValue;
}

const readAttribute = (reader: WireReader): OtlpJsonKeyValue => readKeyValue(reader, 1);

function readEntityRef(reader: WireReader): OtlpJsonEntityRef {
  const entityRef: OtlpJsonEntityRef = {};
  while (reader.hasMoreFields()) {
    switch (reader.nextField()) {
      case 1:
        setOrOmit(entityRef, 'schemaUrl', nonEmpty(reader.readString()));
        break;
      case 2:
        setOrOmit(entityRef, 'type', nonEmpty(reader.readString()));
        break;
      case 3:
        entityRef.idKeys = appendString(reader, entityRef.idKeys);
        break;
      case 4:
        entityRef.descriptionKeys = appendString(reader, entityRef.descriptionKeys);
        break;
      default:
        reader.skipField();
    }
  }
  return entityRef;
}

function readResource(reader: WireReader, previous: OtlpJsonResource | undefined): OtlpJsonResource {
  const resource = previous ?? {};
  while (reader.hasMoreFields()) {
    switch (reader.nextField()) {
      case 1:
        resource.attributes = appendMessage(reader, 'attributes', resource.attributes, readAttribute);
        break;
      case 2:
        setOrOmit(resource, 'droppedAttributesCount', nonZero(reader.readUint32()));
        break;
      case 3:
        resource.entityRefs = appendMessage(reader, 'entityRefs', resource.entityRefs, readEntityRef);
        break;
      default:
        reader.skipField();
    }
  }
  return resource;
}

function readInstrumentationScope(reader: WireReader, previous: OtlpJsonInstrumentationScope | undefined): OtlpJsonInstrumentationScope {
  const scope = previous ?? {};
  while (reader.hasMoreFields()) {
    switch (reader.nextField()) {
      case 1:
        setOrOmit(scope, 'name', nonEmpty(reader.readString()));
        break;
      case 2:
        setOrOmit(scope, 'version', nonEmpty(reader.readString()));
        break;
      case 3:
        scope.attributes = appendMessage(reader, 'attributes', scope.attributes, readAttribute);
        break;
      case 4:
        setOrOmit(scope, 'droppedAttributesCount', nonZero(reader.readUint32()));
        break;
      default:
        reader.skipField();
    }
  }
  return scope;
}

function readStatus(reader: WireReader, previous: OtlpJsonStatus | undefined): OtlpJsonStatus {
  const status = previous ?? {};
  while (reader.hasMoreFields()) {
    switch (reader.nextField()) {
      case 2:
        setOrOmit(status, 'message', nonEmpty(reader.readString()));
        break;
      case 3:
        setOrOmit(status, 'code', nonZero(reader.readInt32()));
        break;
      default:
        reader.skipField();
    }
  }
  return status;
}

function readSpanEvent(reader: WireReader): OtlpJsonSpanEvent {
  const event: OtlpJsonSpanEvent = {};
  while (reader.hasMoreFields()) {
    switch (reader.nextField()) {
      case 1:
        setOrOmit(event, 'timeUnixNano', nonZeroNanos(reader.readFixed64()));
        break;
      case 2:
        setOrOmit(event, 'name', nonEmpty(reader.readString()));
        break;
      case 3:
        event.attributes = appendMessage(reader, 'attributes', event.attributes, readAttribute);
        break;
      case 4:
        setOrOmit(event, 'droppedAttributesCount', nonZero(reader.readUint32()));
        break;
      default:
        reader.skipField();
    }
  }
  return event;
}

function readSpanLink(reader: WireReader): OtlpJsonSpanLink {
  const link: OtlpJsonSpanLink = {};
  while (reader.hasMoreFields()) {
    switch (reader.nextField()) {
      case 1:
        setOrOmit(link, 'traceId', nonEmptyHex(reader.readBytes()));
        break;
      case 2:
        setOrOmit(link, 'spanId', nonEmptyHex(reader.readBytes()));
        break;
      case 3:
        setOrOmit(link, 'traceState', nonEmpty(reader.readString()));
        break;
      case 4:
        link.attributes = appendMessage(reader, 'attributes', link.attributes, readAttribute);
        break;
      case 5:
        setOrOmit(link, 'droppedAttributesCount', nonZero(reader.readUint32()));
        break;
      case 6:
        setOrOmit(link, 'flags', nonZero(reader.readFixed32()));
        break;
      default:
        reader.skipField();
    }
  }
  return link;
}

function readSpan(reader: WireReader): OtlpJsonSpan {
  const span: OtlpJsonSpan = {};
  while (reader.hasMoreFields()) {
    switch (reader.nextField()) {
      case 1:
        setOrOmit(span, 'traceId', nonEmptyHex(reader.readBytes()));
        break;
      case 2:
        setOrOmit(span, 'spanId', nonEmptyHex(reader.readBytes()));
        break;
      case 3:
        setOrOmit(span, 'traceState', nonEmpty(reader.readString()));
        break;
      case 4:
        setOrOmit(span, 'parentSpanId', nonEmptyHex(reader.readBytes()));
        break;
      case 5:
        setOrOmit(span, 'name', nonEmpty(reader.readString()));
        break;
      case 6:
        setOrOmit(span, 'kind', nonZero(reader.readInt32()));
        break;
      case 7:
        setOrOmit(span, 'startTimeUnixNano', nonZeroNanos(reader.readFixed64()));
        break;
      case 8:
        setOrOmit(span, 'endTimeUnixNano', nonZeroNanos(reader.readFixed64()));
        break;
      case 9:
        span.attributes = appendMessage(reader, 'attributes', span.attributes, readAttribute);
        break;
      case 10:
        setOrOmit(span, 'droppedAttributesCount', nonZero(reader.readUint32()));
        break;
      case 11:
        span.events = appendMessage(reader, 'events', span.events, readSpanEvent);
        break;
      case 12:
        setOrOmit(span, 'droppedEventsCount', nonZero(reader.readUint32()));
        break;
      case 13:
        span.links = appendMessage(reader, 'links', span.links, readSpanLink);
        break;
      case 14:
        setOrOmit(span, 'droppedLinksCount', nonZero(reader.readUint32()));
        break;
      case 15:
        span.status = mergeMessage(reader, 'status', span.status, readStatus);
        break;
      case 16:
        setOrOmit(span, 'flags', nonZero(reader.readFixed32()));
        break;
      default:
        reader.skipField();
    }
  }
  return span;
}

function readScopeSpans(reader: WireReader): OtlpJsonScopeSpans {
  const scopeSpans: OtlpJsonScopeSpans = {};
  while (reader.hasMoreFields()) {
    switch (reader.nextField()) {
      case 1:
        scopeSpans.scope = mergeMessage(reader, 'scope', scopeSpans.scope, readInstrumentationScope);
        break;
      case 2:
        scopeSpans.spans = appendMessage(reader, 'spans', scopeSpans.spans, readSpan);
        break;
      case 3:
        setOrOmit(scopeSpans, 'schemaUrl', nonEmpty(reader.readString()));
        break;
      default:
        reader.skipField();
    }
  }
  return scopeSpans;
}

function readResourceSpans(reader: WireReader): OtlpJsonResourceSpans {
  const resourceSpans: OtlpJsonResourceSpans = {};
  while (reader.hasMoreFields()) {
    switch (reader.nextField()) {
      case 1:
        resourceSpans.resource = mergeMessage(reader, 'resource', resourceSpans.resource, readResource);
        break;
      case 2:
        resourceSpans.scopeSpans = appendMessage(reader, 'scopeSpans', resourceSpans.scopeSpans, readScopeSpans);
        break;
      case 3:
        setOrOmit(resourceSpans, 'schemaUrl', nonEmpty(reader.readString()));
        break;
      default:
        reader.skipField();
    }
  }
  return resourceSpans;
}

/** The request as OTLP/JSON would have carried it (the object one line of an OTLP JSON file holds). */
export function decodeTraceRequest(body: Uint8Array): OtlpJsonTraceRequest {
  const reader = new WireReader(body);
  const request: OtlpJsonTraceRequest = { resourceSpans: [] };
  while (reader.hasMoreFields()) {
    if (reader.nextField() === 1) request.resourceSpans = appendMessage(reader, 'resourceSpans', request.resourceSpans, readResourceSpans);
    else reader.skipField();
  }
  return request;
}
