/**
 * The OTLP/HTTP receiver (src-main/otlp/otlpReceiver.ts) on a real port of 127.0.0.1: spans sent by
 * the OpenTelemetry JS SDK's own exporters (OTLP/HTTP JSON and protobuf) are appended to the file as
 * OTLP JSON lines; a span sent twice is kept once; bad requests get their HTTP status and leave
 * what was accepted before them as it was.
 */
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { emitSmallAgentTrace, smallAgentSpans } from '../../devkit/otel/smallAgentTrace';
import { startOtlpReceiver, type RunningOtlpReceiver } from '../../src-main/otlp/otlpReceiver';
import { temporaryDir } from '../support/engineHarness';

const dir = temporaryDir('otlp-receiver');

function lines(file: string): { resourceSpans: { scopeSpans: { spans: { name: string; spanId: string }[] }[] }[] }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ReturnType<typeof lines>[number]);
}

const spanNames = (file: string): string[] =>
  lines(file).flatMap((request) => request.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => span.name))));

async function post(receiver: RunningOtlpReceiver, init: RequestInit & { path?: string }): Promise<{ status: number; body: string }> {
  const response = await fetch(`${receiver.endpoint}${init.path ?? '/v1/traces'}`, init);
  return { status: response.status, body: await response.text() };
}

after(() => dir.remove());

describe('the OTLP receiver', () => {
  let receiver: RunningOtlpReceiver;
  const file = join(dir.path, 'received', 'received.jsonl');

  before(async () => {
    receiver = await startOtlpReceiver({ file, port: 0, maxBodyBytes: 64 * 1024 });
  });
  after(() => receiver.close());

  it('appends what the SDK’s OTLP/HTTP JSON and protobuf exporters send, one request a line', async () => {
    await emitSmallAgentTrace(new JsonExporter({ url: `${receiver.endpoint}/v1/traces` }), 'json-agent');
    await emitSmallAgentTrace(new ProtobufExporter({ url: `${receiver.endpoint}/v1/traces` }), 'proto-agent');
    const names = spanNames(file);
    for (const agent of ['json-agent', 'proto-agent'])
      for (const name of ['chat gpt-4o', 'execute_tool get_order', `invoke_agent ${agent}`]) assert.ok(names.includes(name), `${name} received (${agent})`);
    assert.equal(names.length, 6);
  });

  it('keeps a span sent twice once, and appends nothing for a request with nothing new', async () => {
    const body = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(await smallAgentSpans('retried'))!);
    const before = lines(file).length;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const sent = await post(receiver, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      assert.deepEqual(sent, { status: 200, body: '{}' });
    }
    assert.equal(lines(file).length, before + 1);
    assert.equal(spanNames(file).filter((name) => name === 'invoke_agent retried').length, 1);
  });

  it('refuses what is not an OTLP trace request with the right status, and loses nothing accepted', async () => {
    const kept = readFileSync(file, 'utf8');
    const json = { 'content-type': 'application/json' };
    const cases: [string, RequestInit & { path?: string }, number][] = [
      ['another path', { method: 'POST', path: '/v1/metrics', headers: json, body: '{}' }, 404],
      ['another method', { method: 'GET' }, 405],
      ['another content type', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }, 415],
      ['an unknown encoding', { method: 'POST', headers: { ...json, 'content-encoding': 'br' }, body: '{}' }, 415],
      ['not JSON', { method: 'POST', headers: json, body: '{"resourceSpans": [' }, 400],
      ['JSON that is not a request', { method: 'POST', headers: json, body: '[1, 2]' }, 400],
      ['resourceSpans that are not a list', { method: 'POST', headers: json, body: '{"resourceSpans": 3}' }, 400],
      [
        'protobuf that is not a request',
        { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: new Uint8Array([0x0a, 0xff, 0x01]) },
        400,
      ],
      ['a body over the limit', { method: 'POST', headers: json, body: `{"x":"${'a'.repeat(70 * 1024)}"}` }, 413],
      [
        'a gzip body over the limit once decompressed',
        { method: 'POST', headers: { ...json, 'content-encoding': 'gzip' }, body: gzipSync(`{"x":"${'a'.repeat(200 * 1024)}"}`) },
        413,
      ],
      ['a request from a web page', { method: 'POST', headers: { ...json, origin: 'https://example.com' }, body: '{}' }, 403],
    ];
    for (const [what, init, status] of cases) {
      const answer = await post(receiver, init);
      assert.equal(answer.status, status, `${what}: ${answer.body}`);
      if (status !== 405) assert.ok((JSON.parse(answer.body) as { message: string }).message.length > 0, `${what} says why`);
    }
    assert.equal(readFileSync(file, 'utf8'), kept);
    // A gzip body within the limit is accepted.
    const body = JsonTraceSerializer.serializeRequest(await smallAgentSpans('zipped'))!;
    const zipped = await post(receiver, { method: 'POST', headers: { ...json, 'content-encoding': 'gzip' }, body: gzipSync(body) });
    assert.equal(zipped.status, 200);
    assert.ok(spanNames(file).includes('invoke_agent zipped'));
  });
});

describe('an OTLP receiver with a token', () => {
  it('answers 401 without the bearer token, and accepts the exporter that sends it', async () => {
    const file = join(dir.path, 'tokened.jsonl');
    const receiver = await startOtlpReceiver({ file, port: 0, token: 's3cret-token' });
    try {
      const without = await post(receiver, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(without.status, 401);
      const wrong = await post(receiver, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer nope' }, body: '{}' });
      assert.equal(wrong.status, 401);
      await emitSmallAgentTrace(
        new ProtobufExporter({ url: `${receiver.endpoint}/v1/traces`, headers: { authorization: 'Bearer s3cret-token' } }),
        'with-token',
      );
      assert.ok(spanNames(file).includes('invoke_agent with-token'));
    } finally {
      await receiver.close();
    }
  });
});

describe('the receiver’s port', () => {
  it('takes 4318 when free and another free port when not; a port asked for and taken is an error', async () => {
    const first = await startOtlpReceiver({ file: join(dir.path, 'first.jsonl') });
    const second = await startOtlpReceiver({ file: join(dir.path, 'second.jsonl') });
    try {
      assert.notEqual(first.port, second.port);
      // Whichever holds 4318 (one of them, unless another program does), a receiver asking for it fails.
      const holder = [first, second].find((receiver) => receiver.port === 4318);
      if (holder !== undefined) await assert.rejects(startOtlpReceiver({ file: join(dir.path, 'third.jsonl'), port: 4318 }), { code: 'EADDRINUSE' });
      await assert.rejects(startOtlpReceiver({ file: join(dir.path, 'third.jsonl'), port: first.port }), { code: 'EADDRINUSE' });
    } finally {
      await first.close();
      await second.close();
    }
  });
});
