/**
 * OTLP/protobuf trace export requests decoded to OTLP/JSON (src-main/otlp/otlpProtobuf.ts): real
 * spans from the OpenTelemetry JS SDK, serialized by its protobuf and JSON serializers, decode to
 * the same request and read the same through the otel-otlp adapter; hand-built bodies pin the wire
 * format's corners; hostile bodies fail only with OtlpProtobufError.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, createTraceState, trace, type HrTime } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type IdGenerator, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import {
  decodeTraceRequest,
  OtlpProtobufError,
  type OtlpJsonAnyValue,
  type OtlpJsonNonFiniteDouble,
  type OtlpJsonTraceRequest,
} from '../../src-main/otlp/otlpProtobuf';
import { otelOtlpFormat } from '../../src-main/engine/adapters/otel/otlpFormat';
import { temporaryDir } from '../support/engineHarness';
import { detectFile, findingsOf, ingestEvents, runsOf } from '../support/formatTests';

// ---------------------------------------------------------------------------------------------
// A GenAI trace from the OpenTelemetry JS SDK

/** 2026-01-01T00:00:00Z, in seconds. */
const EPOCH_2026 = 1_767_225_600;

/** A time `millis` after the epoch above, with `nanos` more nanoseconds so the sub-microsecond digits are exercised. */
const at = (millis: number, nanos = 0): HrTime => [EPOCH_2026 + Math.floor(millis / 1000), (millis % 1000) * 1_000_000 + nanos];

/** Ids in creation order; the first trace id starts with zero bytes, which the hex must keep. */
function sequentialIds(): IdGenerator {
  let traces = 0;
  let spans = 0;
  return {
    generateTraceId: () => (++traces).toString(16).padStart(32, '0'),
    generateSpanId: () => `5a${(++spans).toString(16).padStart(14, '0')}`,
  };
}

/**
 * The SDK's span API takes only primitive and array attribute values, while OTLP's AnyValue also
 * holds bytes and key-value lists, and both serializers write them: a finished span is given such
 * attributes as the exporter would then see them.
 */
function withAnyValueAttributes(span: ReadableSpan, extra: Record<string, unknown>): ReadableSpan {
  return Object.create(span, { attributes: { value: { ...span.attributes, ...extra }, enumerable: true } });
}

/**
 * An agent invocation with two model calls and a failed tool call between them, and an HTTP server
 * span of another trace continuing a remote parent (trace state, remote flags).
 */
async function genAiSpans(): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(
      {
        'service.name': 'weather-agent',
        'service.version': '2.4.1',
        'deployment.environment.name': 'staging',
        'telemetry.sdk.language': 'nodejs',
        'process.pid': 4242,
        'host.arch': 'arm64',
      },
      { schemaUrl: 'https://opentelemetry.io/schemas/1.37.0' },
    ),
    idGenerator: sequentialIds(),
    // Small limits so every dropped_* count is written.
    spanLimits: { attributeCountLimit: 24, eventCountLimit: 2, linkCountLimit: 1, attributePerEventCountLimit: 2, attributePerLinkCountLimit: 1 },
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('loopscope.agent', '0.9.0', { schemaUrl: 'https://opentelemetry.io/schemas/1.36.0' });

  const earlierRun = { traceId: 'ee'.repeat(16), spanId: '0f'.repeat(8), traceFlags: 1, isRemote: true, traceState: createTraceState('vendor=agent7,other=x') };
  const root = tracer.startSpan('invoke_agent WeatherAgent', {
    kind: SpanKind.INTERNAL,
    startTime: at(0),
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'WeatherAgent',
      'gen_ai.agent.id': 'agent_7',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
    },
    // The SDK keeps the last links and events past its limits.
    links: [
      { context: { ...earlierRun, spanId: '1f'.repeat(8) } },
      { context: earlierRun, attributes: { 'link.reason': 'follows the previous turn', 'link.turn': 3 } },
    ],
  });
  const inRoot = trace.setSpan(ROOT_CONTEXT, root);

  const chat = tracer.startSpan(
    'chat gpt-4o',
    {
      kind: SpanKind.CLIENT,
      startTime: at(120, 345),
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.request.temperature': 0.2,
        'gen_ai.request.max_tokens': 1024,
        'gen_ai.request.seed': -42,
        'gen_ai.request.stream': false,
        'gen_ai.request.stop_sequences': ['\n\nHuman:', 'END'],
        'gen_ai.response.model': 'gpt-4o-2024-08-06',
        'gen_ai.response.id': 'chatcmpl-9xQ',
        'gen_ai.response.finish_reasons': ['tool_calls'],
        'gen_ai.usage.input_tokens': 1200,
        'gen_ai.usage.output_tokens': 85,
        'server.address': 'api.openai.com',
        'loopscope.test.int_array': [1, -2, 3],
        'loopscope.test.bool_array': [true, false],
        'loopscope.test.double_array': [0.5, 1.25],
        'loopscope.test.beyond_2^53': 2 ** 60,
        'loopscope.test.unicode': 'température ☀️ 東京',
        'loopscope.test.empty': '',
      },
    },
    inRoot,
  );
  chat.addEvent('over the event limit', {}, at(120, 500));
  chat.addEvent('gen_ai.content.prompt', { 'gen_ai.prompt': 'Weather in Paris?', role: 'user', dropped: 'over the per-event limit' }, at(121));
  chat.addEvent('gen_ai.choice', { index: 0, finish_reason: 'tool_calls' }, at(1400, 7));
  chat.end(at(1500, 999));

  const tool = tracer.startSpan(
    'execute_tool get_weather',
    {
      kind: SpanKind.INTERNAL,
      startTime: at(1510),
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'call_weather_1',
        'gen_ai.tool.call.arguments': '{"city":"Paris"}',
      },
    },
    inRoot,
  );
  for (let index = 0; index < 26; index++) tool.setAttribute(`loopscope.test.filler.${index}`, index);
  tool.recordException({ name: 'TimeoutError', message: 'upstream timed out after 5s' }, at(6500));
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'weather service timed out' });
  tool.end(at(6510));

  const answer = tracer.startSpan(
    'chat gpt-4o',
    {
      kind: SpanKind.CLIENT,
      startTime: at(6600),
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.finish_reasons': ['stop'],
        'gen_ai.usage.input_tokens': 1400,
        'gen_ai.usage.output_tokens': 40,
      },
    },
    inRoot,
  );
  answer.setStatus({ code: SpanStatusCode.OK });
  answer.end(at(7100));
  root.setStatus({ code: SpanStatusCode.OK });
  root.end(at(7200));

  const remoteParent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: 1,
    isRemote: true,
    traceState: createTraceState('congo=t61rcWkgMzE'),
  });
  const server = tracer.startSpan(
    'POST /v1/chat/completions',
    { kind: SpanKind.SERVER, startTime: at(8000), attributes: { 'http.request.method': 'POST' } },
    remoteParent,
  );
  server.end(at(8300));

  await provider.forceFlush();
  return exporter.getFinishedSpans().map((span) =>
    span.spanContext().spanId === chat.spanContext().spanId
      ? withAnyValueAttributes(span, {
          'loopscope.test.bytes': new Uint8Array([0, 1, 2, 250, 255]),
          'loopscope.test.kvlist': { provider: 'openai', retry: { attempts: 2, backoff_s: 0.5, gave_up: false }, tags: ['a', 'b'] },
        })
      : span,
  );
}

function serialized(spans: ReadableSpan[]): { protobuf: Uint8Array; json: string } {
  const protobuf = ProtobufTraceSerializer.serializeRequest(spans);
  const json = JsonTraceSerializer.serializeRequest(spans);
  assert.ok(protobuf && json, 'both serializers write the spans');
  return { protobuf, json: new TextDecoder().decode(json) };
}

/** AnyValue's oneof members: set even at their default (a oneof records which member is set), so kept as written. */
const ANY_VALUE_MEMBERS = new Set(['stringValue', 'boolValue', 'intValue', 'doubleValue', 'bytesValue']);

const isProto3Default = (value: unknown): boolean => value === 0 || value === '' || (Array.isArray(value) && value.length === 0);

/**
 * The JSON serializer's request with its departures from the OTLP/JSON mapping undone (the decoder
 * follows the mapping):
 * 1. `intValue` is an int64, which OTLP/JSON writes as a decimal string; the SDK writes a JSON number,
 *    and beyond 2^53 with the digits of the shortest round trip (2^60 as 1152921504606847000, which
 *    a reader taking the digits as an int64 gets wrong): the number is written as the exact integer
 *    it holds, the one the protobuf serializer encodes.
 * 2. OTLP/JSON omits a field at its proto3 default; the SDK writes `droppedAttributesCount: 0`,
 *    `status: {code: 0}`, empty `attributes` / `events` / `links`, … — dropped here, but for the
 *    members of AnyValue's oneof (rule 1's `intValue` included).
 * 3. The SDK writes the resource's schema URL twice: in `ResourceSpans.schemaUrl`, where the proto
 *    has it (and the protobuf serializer writes it), and in `resource.schemaUrl`, which is no field
 *    of Resource: the second copy is dropped (the caller checks it is a copy).
 */
function normalizeSdkJson(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalizeSdkJson);
  if (typeof node !== 'object' || node === null) return node;
  const normalized: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'intValue') normalized[key] = BigInt(value as number).toString();
    else if (ANY_VALUE_MEMBERS.has(key)) normalized[key] = value;
    else if (!isProto3Default(value)) normalized[key] = normalizeSdkJson(value);
  }
  if ('scopeSpans' in normalized && typeof normalized['resource'] === 'object' && normalized['resource'] !== null) {
    const { schemaUrl, ...resource } = normalized['resource'] as Record<string, unknown>;
    assert.equal(schemaUrl, normalized['schemaUrl'], "the resource's schema URL is a copy of ResourceSpans.schemaUrl");
    normalized['resource'] = resource;
  }
  return normalized;
}

/** The attribute `key` of a span's attributes. */
function attribute(request: OtlpJsonTraceRequest, spanName: string, key: string): OtlpJsonAnyValue | undefined {
  const spans = request.resourceSpans.flatMap((resourceSpans) => resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) => scopeSpans.spans ?? []);
  return spans.find((span) => span.name === spanName)?.attributes?.find((keyValue) => keyValue.key === key)?.value;
}

describe('otlpProtobuf: the SDK protobuf serializer against its JSON serializer', () => {
  it('decodes to the JSON request, after the documented normalization', async () => {
    const { protobuf, json } = serialized(await genAiSpans());
    const decoded = decodeTraceRequest(protobuf);
    assert.deepEqual(decoded, normalizeSdkJson(JSON.parse(json)));
    // A body that is a view into a larger buffer (as Node's pooled Buffers are) reads the same.
    const pooled = new Uint8Array(protobuf.length + 7);
    pooled.set(protobuf, 7);
    assert.deepEqual(decodeTraceRequest(pooled.subarray(7)), decoded);

    // What the normalization could hide is also checked as decoded.
    assert.deepEqual(attribute(decoded, 'chat gpt-4o', 'loopscope.test.beyond_2^53'), { intValue: '1152921504606846976' });
    assert.deepEqual(attribute(decoded, 'chat gpt-4o', 'gen_ai.request.seed'), { intValue: '-42' });
    assert.deepEqual(attribute(decoded, 'chat gpt-4o', 'loopscope.test.empty'), { stringValue: '' });
    assert.deepEqual(attribute(decoded, 'chat gpt-4o', 'gen_ai.request.stream'), { boolValue: false });
    assert.deepEqual(attribute(decoded, 'chat gpt-4o', 'loopscope.test.bytes'), { bytesValue: 'AAEC+v8=' });
    const [root, server] = [decoded.resourceSpans[0]?.scopeSpans?.[0]?.spans?.[3], decoded.resourceSpans[0]?.scopeSpans?.[0]?.spans?.[4]];
    assert.equal(root?.name, 'invoke_agent WeatherAgent');
    assert.equal(root?.traceId, '00000000000000000000000000000001');
    assert.equal(root?.parentSpanId, undefined);
    assert.equal(root?.droppedLinksCount, 1);
    assert.deepEqual(root?.links, [
      {
        traceId: 'ee'.repeat(16),
        spanId: '0f'.repeat(8),
        traceState: 'vendor=agent7,other=x',
        attributes: [{ key: 'link.reason', value: { stringValue: 'follows the previous turn' } }],
        droppedAttributesCount: 1,
        flags: 0x301,
      },
    ]);
    const chat = decoded.resourceSpans[0]?.scopeSpans?.[0]?.spans?.[0];
    assert.equal(chat?.droppedEventsCount, 1);
    assert.equal(chat?.events?.[0]?.droppedAttributesCount, 1);
    assert.equal(server?.traceState, 'congo=t61rcWkgMzE');
    assert.equal(server?.flags, 0x301, 'sampled, with a remote parent');
    assert.equal(decoded.resourceSpans[0]?.scopeSpans?.[0]?.spans?.[0]?.startTimeUnixNano, '1767225600120000345');
  });

  it('reads, written as a JSONL line, through the otel-otlp adapter as the JSON serializer line does', async () => {
    const { protobuf, json } = serialized(await genAiSpans());
    const dir = temporaryDir('otlp-protobuf');
    try {
      const decodedPath = join(dir.path, 'decoded.jsonl');
      const sdkPath = join(dir.path, 'sdk-json.jsonl');
      writeFileSync(decodedPath, `${JSON.stringify(decodeTraceRequest(protobuf))}\n`);
      writeFileSync(sdkPath, `${json}\n`);
      // Both lines are claimed by the otel-otlp adapter's detection, then read through the real engine.
      assert.ok(detectFile(otelOtlpFormat, decodedPath));
      assert.ok(detectFile(otelOtlpFormat, sdkPath));
      const eventsQuery =
        'SELECT line, type, type_raw, step, ts, call_id, name, outcome, finish_reason, input_tokens, output_tokens, latency_ms, result_ok, error_code FROM events ORDER BY id';
      const decoded = await ingestEvents(decodedPath, 'otel-otlp', eventsQuery);
      const sdk = await ingestEvents(sdkPath, 'otel-otlp', eventsQuery);
      assert.deepEqual(decoded.report.files[0]?.parse_errors, []);
      assert.deepEqual(runsOf(decoded.report), runsOf(sdk.report));
      assert.deepEqual(findingsOf(decoded.report), findingsOf(sdk.report));
      assert.deepEqual(decoded.events, sdk.events);
      // The comparison is not of two empty reports: the agent run has its two model calls and the failed tool call.
      const agentRun = runsOf(decoded.report).find((run) => run.run_id === '00000000000000000000000000000001');
      assert.deepEqual(agentRun, {
        run_id: '00000000000000000000000000000001',
        status: 'succeeded',
        status_raw: 'OK',
        steps: 2,
        tool_calls: 1,
        tool_results: 1,
        input_tokens: 2600,
        output_tokens: 125,
      });
      assert.ok(findingsOf(decoded.report).some(([kind, call]) => kind === 'tool_error' && call === 'call_weather_1'));
    } finally {
      dir.remove();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Hand-built bodies

function varint(value: bigint | number): number[] {
  let rest = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest === 0n ? low : low | 0x80);
  } while (rest !== 0n);
  return bytes;
}

const tag = (field: number, wireType: number): number[] => varint(field * 8 + wireType);
const varintField = (field: number, value: bigint | number): number[] => [...tag(field, 0), ...varint(value)];
const bytesField = (field: number, bytes: ArrayLike<number>): number[] => [...tag(field, 2), ...varint(bytes.length), ...Array.from(bytes)];
const stringField = (field: number, text: string): number[] => bytesField(field, new TextEncoder().encode(text));

function fixed64Field(field: number, value: bigint): number[] {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, value, true);
  return [...tag(field, 1), ...bytes];
}

function doubleField(field: number, value: number): number[] {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setFloat64(0, value, true);
  return [...tag(field, 1), ...bytes];
}

function fixed32Field(field: number, value: number): number[] {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value, true);
  return [...tag(field, 5), ...bytes];
}

/** A request holding one span of these fields: ResourceSpans.scope_spans (2) → ScopeSpans.spans (2). */
const spanRequest = (...spanFields: number[][]): Uint8Array => Uint8Array.from(bytesField(1, bytesField(2, bytesField(2, spanFields.flat()))));

/** A request holding one span whose one attribute, `k`, has this encoded AnyValue. */
const attributeRequest = (anyValue: number[]): Uint8Array => spanRequest(bytesField(9, [...stringField(1, 'k'), ...bytesField(2, anyValue)]));

const onlySpan = (request: OtlpJsonTraceRequest) => request.resourceSpans[0]?.scopeSpans?.[0]?.spans?.[0];

const decodedAttribute = (anyValue: number[]) => onlySpan(decodeTraceRequest(attributeRequest(anyValue)))?.attributes?.[0]?.value;

/** `levels` AnyValues, each an array holding the next, the innermost a string. */
function nestedArrays(levels: number): number[] {
  let value = stringField(1, 'leaf');
  for (let level = 1; level < levels; level++) value = bytesField(5, bytesField(1, value));
  return value;
}

function assertRejected(body: Uint8Array, reason: RegExp): void {
  assert.throws(
    () => decodeTraceRequest(body),
    (error: unknown) => error instanceof OtlpProtobufError && reason.test(error.reason),
  );
}

describe('otlpProtobuf: the OTLP/JSON mapping', () => {
  it('an empty body is a request without resource spans', () => {
    assert.deepEqual(decodeTraceRequest(new Uint8Array()), { resourceSpans: [] });
  });

  it('ids are lowercase hex, empty ones omitted; times and int64 are decimal text; defaults are omitted', () => {
    const span = onlySpan(
      decodeTraceRequest(
        spanRequest(
          bytesField(1, [0x00, 0x0a, ...Array<number>(13).fill(0), 0xff]),
          bytesField(2, [0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89]),
          bytesField(4, []),
          stringField(5, ''),
          varintField(6, 0),
          fixed64Field(7, 0xffff_ffff_ffff_ffffn),
          fixed64Field(8, 0n),
          varintField(10, 0),
          bytesField(15, varintField(3, 0)),
          fixed32Field(16, 0),
        ),
      ),
    );
    assert.deepEqual(span, {
      traceId: '000a00000000000000000000000000ff',
      spanId: 'abcdef0123456789',
      startTimeUnixNano: '18446744073709551615',
      status: {},
    });
  });

  it("AnyValue members are kept at their default, int64 keeps its sign, doubles JSON cannot hold are spelled as proto3's JSON does", () => {
    assert.deepEqual(decodedAttribute(stringField(1, '')), { stringValue: '' });
    assert.deepEqual(decodedAttribute(varintField(2, 0)), { boolValue: false });
    assert.deepEqual(decodedAttribute(varintField(2, 2n ** 40n)), { boolValue: true });
    assert.deepEqual(decodedAttribute(varintField(3, 0)), { intValue: '0' });
    assert.deepEqual(decodedAttribute(varintField(3, -1)), { intValue: '-1' });
    assert.deepEqual(decodedAttribute(varintField(3, -(2n ** 63n))), { intValue: '-9223372036854775808' });
    assert.deepEqual(decodedAttribute(varintField(3, 2n ** 63n - 1n)), { intValue: '9223372036854775807' });
    assert.deepEqual(decodedAttribute(doubleField(4, 0)), { doubleValue: 0 });
    assert.deepEqual(decodedAttribute(doubleField(4, NaN)), { doubleValue: 'NaN' });
    assert.deepEqual(decodedAttribute(doubleField(4, -Infinity)), { doubleValue: '-Infinity' });
    assert.deepEqual(decodedAttribute(bytesField(7, [])), { bytesValue: '' });
    assert.deepEqual(decodedAttribute(bytesField(5, [])), { arrayValue: {} });
    assert.deepEqual(decodedAttribute(bytesField(6, bytesField(1, stringField(1, 'inner')))), { kvlistValue: { values: [{ key: 'inner' }] } });
    assert.deepEqual(decodedAttribute([]), {});
  });

  it('strings: invalid UTF-8 becomes U+FFFD, a leading U+FEFF is kept', () => {
    assert.deepEqual(decodedAttribute(bytesField(1, [0x61, 0xff, 0x62, 0xc3])), { stringValue: 'a\uFFFDb\uFFFD' });
    assert.deepEqual(decodedAttribute(bytesField(1, [0xef, 0xbb, 0xbf, 0x61])), { stringValue: '\uFEFFa' });
  });

  it('a repeated singular field keeps its last value; a repeated singular message is merged; the last oneof member wins', () => {
    const span = onlySpan(
      decodeTraceRequest(
        spanRequest(
          stringField(5, 'first'),
          stringField(5, 'second'),
          stringField(3, 'state=1'),
          stringField(3, ''),
          bytesField(15, stringField(2, 'boom')),
          bytesField(15, varintField(3, 2)),
          bytesField(9, [
            ...stringField(1, 'list'),
            ...bytesField(2, bytesField(5, bytesField(1, varintField(3, 1)))),
            ...bytesField(2, bytesField(5, bytesField(1, varintField(3, 2)))),
          ]),
          bytesField(9, [...stringField(1, 'switched'), ...bytesField(2, [...stringField(1, 'text'), ...varintField(3, 7)])]),
          bytesField(9, [...stringField(1, 'profiles'), ...bytesField(2, [...stringField(1, 'text'), ...varintField(8, 3)]), ...varintField(3, 4)]),
        ),
      ),
    );
    assert.deepEqual(span, {
      name: 'second',
      status: { message: 'boom', code: 2 },
      attributes: [
        { key: 'list', value: { arrayValue: { values: [{ intValue: '1' }, { intValue: '2' }] } } },
        { key: 'switched', value: { intValue: '7' } },
        // string_value_strindex and key_strindex are the profiles dictionary's: read and dropped.
        { key: 'profiles', value: {} },
      ],
    });
  });

  it('fields it does not know, of every wire type, are skipped', () => {
    const known = [stringField(5, 'span'), varintField(6, 3)];
    const unknown = [varintField(100, 2n ** 63n), fixed64Field(101, 1n), bytesField(102, [1, 2, 3]), fixed32Field(103, 9), bytesField(1000, [0x0a, 0x00])];
    const plain = decodeTraceRequest(spanRequest(...known));
    assert.deepEqual(decodeTraceRequest(Uint8Array.from([...unknown.flat(), ...spanRequest(...unknown, ...known), ...unknown.flat()])), plain);
    assert.deepEqual(plain, { resourceSpans: [{ scopeSpans: [{ spans: [{ name: 'span', kind: 3 }] }] }] });
  });

  it('the resource, its entity refs, the scope and the schema URLs', () => {
    const body = Uint8Array.from(
      bytesField(1, [
        ...bytesField(1, [
          ...bytesField(1, [...stringField(1, 'service.name'), ...bytesField(2, stringField(1, 'svc'))]),
          ...varintField(2, 3),
          ...bytesField(3, [
            ...stringField(1, 'https://schema/e'),
            ...stringField(2, 'service'),
            ...stringField(3, 'service.name'),
            ...stringField(3, 'service.namespace'),
            ...stringField(4, 'service.version'),
          ]),
        ]),
        ...bytesField(2, [
          ...bytesField(1, [...stringField(1, 'scope'), ...stringField(2, '1.0'), ...bytesField(3, stringField(1, 'flag')), ...varintField(4, 1)]),
          ...stringField(3, 'https://schema/scope'),
        ]),
        ...stringField(3, 'https://schema/resource'),
      ]),
    );
    assert.deepEqual(decodeTraceRequest(body), {
      resourceSpans: [
        {
          resource: {
            attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }],
            droppedAttributesCount: 3,
            entityRefs: [
              { schemaUrl: 'https://schema/e', type: 'service', idKeys: ['service.name', 'service.namespace'], descriptionKeys: ['service.version'] },
            ],
          },
          scopeSpans: [
            { scope: { name: 'scope', version: '1.0', attributes: [{ key: 'flag' }], droppedAttributesCount: 1 }, schemaUrl: 'https://schema/scope' },
          ],
          schemaUrl: 'https://schema/resource',
        },
      ],
    });
  });
});

describe('otlpProtobuf: bodies that are not requests', () => {
  it('a varint cut off, a length past the end of the body or of its message', () => {
    assertRejected(Uint8Array.from([0x0a, 0x80]), /varint cut off by the end of the body \(byte 1 of 2, in ExportTraceServiceRequest\)/);
    assertRejected(Uint8Array.from([0x0a, 0x05, 0x00]), /a length of 5 bytes where the body has 1 byte left \(byte 1 of 3, in ExportTraceServiceRequest\)/);
    // The span's name claims 10 bytes: the body has them, the span does not.
    assertRejected(
      Uint8Array.from([...spanRequest([0x2a, 0x0a]), ...Array<number>(10).fill(0)]),
      /a length of 10 bytes where the message has 0 bytes left .*in resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\)/,
    );
    assertRejected(spanRequest([...tag(7, 1), 1, 2, 3]), /8 bytes expected where the message has 3 bytes left/);
    assertRejected(Uint8Array.from(bytesField(1, varint(2n ** 40n))), /a field tag wider than 32 bits/);
  });

  it('a wire type that does not match the field, a group, an undefined wire type, field number 0', () => {
    assertRejected(
      Uint8Array.from([0x08, 0x01]),
      /field 1 has wire type varint where its type is length-delimited \(byte 0 of 2, in ExportTraceServiceRequest\)/,
    );
    assertRejected(
      spanRequest(varintField(5, 1)),
      /field 5 has wire type varint where its type is length-delimited .*in resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\)/,
    );
    assertRejected(spanRequest(fixed32Field(7, 1)), /field 7 has wire type 32-bit where its type is 64-bit/);
    assertRejected(spanRequest(fixed64Field(16, 1n)), /field 16 has wire type 64-bit where its type is 32-bit/);
    assertRejected(spanRequest(bytesField(6, [1])), /field 6 has wire type length-delimited where its type is varint/);
    assertRejected(attributeRequest(varintField(5, 1)), /in resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.attributes\[0\]\.value\)/);
    assertRejected(spanRequest([...tag(100, 3), ...tag(100, 4)]), /field 100 has wire type group start, which proto3 messages do not use/);
    assertRejected(Uint8Array.from(tag(3, 6)), /field 3 has wire type 6 \(undefined\), which proto3 messages do not use/);
    assertRejected(Uint8Array.from([0x02, 0x00]), /field number 0/);
  });

  it('a varint longer than 10 bytes, or beyond 64 bits', () => {
    assertRejected(spanRequest([...tag(6, 0), ...Array<number>(10).fill(0x80), 0x00]), /a varint longer than 10 bytes/);
    assertRejected(spanRequest([...tag(6, 0), ...Array<number>(9).fill(0xff), 0x02]), /a varint that overflows 64 bits/);
    assert.equal(
      onlySpan(decodeTraceRequest(spanRequest([...tag(6, 0), ...Array<number>(9).fill(0x80), 0x01])))?.kind,
      undefined,
      'bit 63 alone: an int32 of 0',
    );
  });

  it('AnyValues nest 64 levels deep, not 65', () => {
    let deepest = decodedAttribute(nestedArrays(64));
    for (let level = 1; level < 64; level++) deepest = deepest && 'arrayValue' in deepest ? deepest.arrayValue.values?.[0] : undefined;
    assert.deepEqual(deepest, { stringValue: 'leaf' });
    assertRejected(attributeRequest(nestedArrays(65)), /AnyValue nested deeper than 64 levels/);
    assertRejected(attributeRequest(nestedArrays(1000)), /AnyValue nested deeper than 64 levels/);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

/** Decodes `body`; an error other than OtlpProtobufError fails the property. */
function decodesOrRejects(body: Uint8Array): void {
  try {
    decodeTraceRequest(body);
  } catch (error) {
    if (!(error instanceof OtlpProtobufError)) throw error;
  }
}

/** A double as proto3 JSON writes it: a number, or the name of one JSON numbers cannot hold. */
function expectedDouble(double: number): number | OtlpJsonNonFiniteDouble {
  if (Number.isNaN(double)) return 'NaN';
  if (double === Infinity) return 'Infinity';
  if (double === -Infinity) return '-Infinity';
  return double;
}

type AnyValueCase = { encoded: number[]; json: OtlpJsonAnyValue };

const anyValueCase: fc.Arbitrary<AnyValueCase> = fc.letrec<{ value: AnyValueCase }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ unit: 'grapheme' }).map((text) => ({ encoded: stringField(1, text), json: { stringValue: text } })),
    fc.boolean().map((flag) => ({ encoded: varintField(2, flag ? 1 : 0), json: { boolValue: flag } })),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((int) => ({ encoded: varintField(3, int), json: { intValue: int.toString() } })),
    fc.double().map((double) => ({ encoded: doubleField(4, double), json: { doubleValue: expectedDouble(double) } })),
    fc.uint8Array({ maxLength: 12 }).map((bytes) => ({ encoded: bytesField(7, bytes), json: { bytesValue: Buffer.from(bytes).toString('base64') } })),
    fc.array(tie('value'), { maxLength: 4 }).map((items) => ({
      encoded: bytesField(
        5,
        items.flatMap((item) => bytesField(1, item.encoded)),
      ),
      json: { arrayValue: items.length === 0 ? {} : { values: items.map((item) => item.json) } },
    })),
    fc.array(fc.tuple(fc.string({ minLength: 1 }), tie('value')), { maxLength: 4 }).map((entries) => ({
      encoded: bytesField(
        6,
        entries.flatMap(([key, item]) => bytesField(1, [...stringField(1, key), ...bytesField(2, item.encoded)])),
      ),
      json: { kvlistValue: entries.length === 0 ? {} : { values: entries.map(([key, item]) => ({ key, value: item.json })) } },
    })),
  ),
})).value;

describe('otlpProtobuf: properties', () => {
  it('random bytes decode or are rejected with an OtlpProtobufError', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), decodesOrRejects), { numRuns: 5000 });
  });

  it('every truncation of a real request decodes or is rejected with an OtlpProtobufError', async () => {
    const { protobuf } = serialized(await genAiSpans());
    let rejected = 0;
    for (let length = 0; length < protobuf.length; length++) {
      try {
        decodeTraceRequest(protobuf.subarray(0, length));
      } catch (error) {
        assert.ok(error instanceof OtlpProtobufError, `cut at ${length}: ${String(error)}`);
        rejected++;
      }
    }
    assert.ok(rejected > protobuf.length / 2, 'most cuts land inside a message');
  });

  it('a real request with bytes overwritten decodes or is rejected with an OtlpProtobufError', async () => {
    const { protobuf } = serialized(await genAiSpans());
    const edits = fc.array(fc.tuple(fc.nat({ max: protobuf.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(edits, (overwrites) => {
        const body = Uint8Array.from(protobuf);
        for (const [index, byte] of overwrites) body[index] = byte;
        decodesOrRejects(body);
      }),
      { numRuns: 1500 },
    );
  });

  it('random AnyValue trees decode to their OTLP/JSON form', () => {
    fc.assert(
      fc.property(anyValueCase, ({ encoded, json }) => {
        assert.deepEqual(decodedAttribute(encoded), json);
      }),
      { numRuns: 1000 },
    );
  });
});
