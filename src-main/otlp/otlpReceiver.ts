/**
 * The OTLP/HTTP trace receiver of `loopscope serve --otlp` (docs/otlp.md): a loop instrumented with
 * OpenTelemetry points its exporter at it (`OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318`) and
 * its spans become a trace like any other. Each accepted export request is appended to one file,
 * as one line of OTLP JSON (the format the `otel-otlp` adapter reads), before it is answered: what
 * was acknowledged is on disk.
 *
 * - `POST /v1/traces` only (404 elsewhere, 405 for another method), bound to 127.0.0.1.
 * - `application/json` (OTLP/JSON) or `application/x-protobuf` (decoded by otlpProtobuf.ts into the
 *   same JSON); another content type is 415. `Content-Encoding: gzip` is accepted.
 * - A body over the limit (20 MiB, as the OpenTelemetry Collector's default) is 413 (read to its
 *   end and dropped, so the answer reaches the exporter), a gzip body by its decompressed size too; one that is not an OTLP trace request is 400
 *   with the reason. With a token, a request without `Authorization: Bearer <token>` is 401.
 * - A request sent by a browser page (it has an `Origin` header) is 403, and no CORS header is ever
 *   sent: a web page cannot post spans into it.
 * - A span received again (the same trace id, span id and end time: an exporter's retry) is left out
 *   of what is appended; a request with nothing new appends nothing. Earlier versions of a span
 *   (sent open, then again ended) are kept: the adapter keeps the most complete.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { readBody, secretMatches } from '../server/requestParts';
import { decodeTraceRequest, OtlpProtobufError } from './otlpProtobuf';

/** As httpServer.ts: `node:http` through `require` keeps Node's lazy exports (undici) from loading. */
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');
const gunzipAsync = promisify(gunzip);

/** The OTLP/HTTP port every exporter defaults to. */
export const DEFAULT_OTLP_PORT = 4318;
/** The OpenTelemetry Collector's default limit for a request body. */
export const MAX_OTLP_BODY_BYTES = 20 * 1024 * 1024;
/** Span keys remembered to drop a span received again; the oldest are forgotten beyond this. */
const MAX_REMEMBERED_SPANS = 1_000_000;

export interface OtlpReceiverOptions {
  /** The file each accepted request is appended to (created with its directory). */
  file: string;
  /** Absent: 4318 when free, else a free port. 0: a free port. */
  port?: number;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  maxBodyBytes?: number;
}

export interface RunningOtlpReceiver {
  /** `http://127.0.0.1:PORT`: what OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
  endpoint: string;
  port: number;
  file: string;
  close(): Promise<void>;
}

/** A request refused, with its HTTP status and the reason given in the answer. */
class Refused extends Error {
  constructor(
    readonly status: number,
    reason: string,
  ) {
    super(reason);
  }
}

interface OtlpSpan {
  traceId?: unknown;
  spanId?: unknown;
  endTimeUnixNano?: unknown;
}

interface OtlpTraceRequest {
  resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The request's shape, as far as this receiver reads it; what is inside each span is the adapter's to read. */
function asTraceRequest(value: unknown): OtlpTraceRequest {
  if (!isRecord(value)) throw new Refused(400, 'the body is not an OTLP trace export request (a JSON object)');
  const resourceSpans = value['resourceSpans'];
  if (resourceSpans === undefined) return value;
  if (!Array.isArray(resourceSpans)) throw new Refused(400, '"resourceSpans" is not an array');
  for (const [index, resource] of resourceSpans.entries()) {
    if (!isRecord(resource)) throw new Refused(400, `resourceSpans[${index}] is not an object`);
    const scopeSpans = resource['scopeSpans'];
    if (scopeSpans === undefined) continue;
    if (!Array.isArray(scopeSpans)) throw new Refused(400, `resourceSpans[${index}].scopeSpans is not an array`);
    for (const [at, scope] of scopeSpans.entries()) {
      if (!isRecord(scope)) throw new Refused(400, `resourceSpans[${index}].scopeSpans[${at}] is not an object`);
      const spans = scope['spans'];
      if (spans !== undefined && !(Array.isArray(spans) && spans.every(isRecord)))
        throw new Refused(400, `resourceSpans[${index}].scopeSpans[${at}].spans is not an array of objects`);
    }
  }
  return value;
}

function mediaType(request: IncomingMessage): string {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

async function decoded(request: IncomingMessage, body: Buffer, limit: number): Promise<Buffer> {
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return body;
  if (encoding !== 'gzip') throw new Refused(415, `content encoding "${encoding}" is not supported (gzip or none)`);
  try {
    return await gunzipAsync(body, { maxOutputLength: limit });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new Refused(413, `the body is over the limit of ${limit} bytes once decompressed`);
    throw new Refused(400, `the gzip body cannot be decompressed: ${(error as Error).message}`);
  }
}

function parseTraceRequest(type: string, body: Buffer): OtlpTraceRequest {
  if (type === 'application/x-protobuf') {
    try {
      return decodeTraceRequest(body) as OtlpTraceRequest;
    } catch (error) {
      if (error instanceof OtlpProtobufError) throw new Refused(400, `not an OTLP protobuf trace request: ${error.reason}`);
      throw error;
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new Refused(400, `the body is not JSON: ${(error as Error).message}`);
  }
  return asTraceRequest(json);
}

/** Spans already appended, by trace id, span id and end time; the oldest forgotten beyond the bound. */
class SeenSpans {
  private readonly keys = new Set<string>();

  /** The request without the spans seen before (and without a scope or resource left empty); null when nothing is new. */
  keepNew(request: OtlpTraceRequest): OtlpTraceRequest | null {
    let kept = 0;
    const resourceSpans = (request.resourceSpans ?? []).flatMap((resource) => {
      const scopeSpans = (resource.scopeSpans ?? []).flatMap((scope) => {
        const spans = (scope.spans ?? []).filter((span) => this.isNew(span));
        kept += spans.length;
        return spans.length === 0 ? [] : [{ ...scope, spans }];
      });
      return scopeSpans.length === 0 ? [] : [{ ...resource, scopeSpans }];
    });
    return kept === 0 ? null : { ...request, resourceSpans };
  }

  private isNew(span: OtlpSpan): boolean {
    const key = `${String(span.traceId)}/${String(span.spanId)}/${String(span.endTimeUnixNano)}`;
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > MAX_REMEMBERED_SPANS) this.keys.delete(this.keys.values().next().value!);
    return true;
  }
}

function answer(response: ServerResponse, status: number, type: string, body: string | Buffer): void {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'x-content-type-options': 'nosniff' });
  response.end(body);
}

/** OTLP/HTTP answers a failure with a Status message; in JSON its `message` is what a user reads in the exporter's log. */
function refuse(response: ServerResponse, refused: Refused): void {
  if (refused.status === 405) response.setHeader('allow', 'POST');
  answer(response, refused.status, 'application/json', JSON.stringify({ code: refused.status, message: refused.message }));
}

export async function startOtlpReceiver(options: OtlpReceiverOptions): Promise<RunningOtlpReceiver> {
  const limit = options.maxBodyBytes ?? MAX_OTLP_BODY_BYTES;
  await mkdir(dirname(options.file), { recursive: true });
  const seen = new SeenSpans();
  // Appends one after another, in the order requests were accepted.
  let appended: Promise<void> = Promise.resolve();
  const append = (line: string): Promise<void> => {
    const next = appended.then(() => appendFile(options.file, line));
    appended = next.catch(() => undefined);
    return next;
  };

  async function receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/v1/traces') throw new Refused(404, `no ${path}: traces are received at /v1/traces`);
    if (request.method !== 'POST') throw new Refused(405, `${request.method} is not allowed: send traces with POST`);
    if (request.headers.origin !== undefined) throw new Refused(403, 'requests from web pages are not accepted');
    if (options.token !== undefined && !secretMatches(request.headers.authorization ?? '', `Bearer ${options.token}`))
      throw new Refused(401, 'a bearer token is required (Authorization: Bearer <token>)');
    const type = mediaType(request);
    if (type !== 'application/json' && type !== 'application/x-protobuf')
      throw new Refused(415, `content type "${type}" is not OTLP: send application/json or application/x-protobuf`);
    const sent = await readBody(request, limit);
    if (sent === null) throw new Refused(413, `the body is over the limit of ${limit} bytes`);
    const body = await decoded(request, sent, limit);
    const fresh = seen.keepNew(parseTraceRequest(type, body));
    if (fresh !== null) await append(`${JSON.stringify(fresh)}\n`);
    // The ExportTraceServiceResponse with no partial success: `{}` in JSON, no bytes in protobuf.
    if (type === 'application/json') answer(response, 200, 'application/json', '{}');
    else answer(response, 200, 'application/x-protobuf', Buffer.alloc(0));
  }

  const server = createServer((request, response) => {
    receive(request, response).catch((error: unknown) => {
      const refused = error instanceof Refused ? error : new Refused(500, `the request could not be stored: ${(error as Error).message}`);
      // A body refused before it was read (a wrong path, method, token or type) is not read: the connection closes after the answer.
      if (!request.complete) response.setHeader('connection', 'close');
      refuse(response, refused);
      if (!request.complete) request.resume();
    });
  });
  const listen = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  if (options.port === undefined) {
    await listen(DEFAULT_OTLP_PORT).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') throw error;
      await listen(0);
    });
  } else {
    await listen(options.port);
  }
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    file: options.file,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await appended;
    },
  };
}
