/**
 * The HTTP transport of `loopscope serve`: the built renderer and the API, to a browser on this
 * machine only.
 *
 * - Bound to 127.0.0.1; a random port unless one is asked for.
 * - An unguessable token (32 random bytes) is the first path segment of every request; anything
 *   without it is a bare 404, so nothing on this machine learns the server is Loopscope.
 * - The Host header must name 127.0.0.1 or localhost with this port (403 otherwise): a page whose
 *   domain was rebound to 127.0.0.1 sends its own name. A cross-origin Origin header is refused too.
 * - No CORS header is ever sent, so another origin's page cannot read an answer.
 * - Every response carries the page's strict CSP (the one in src-renderer/index.html), nosniff and
 *   no-referrer (the token must not leak into a Referer).
 * - `POST /<token>/api/<method>` with a JSON body calls the API host; `GET /<token>/…` serves files
 *   from the assets directory only (no path traversal, no directory listing).
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { extname, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import type { ApiErrorCode } from '../../shared/api';
import { contentSecurityPolicy } from '../../shared/contentSecurityPolicy';
import type { ApiHost } from '../api/apiHost';
import { toApiError } from '../api/apiError';
import { readBody, secretMatches } from './requestParts';

/**
 * `node:http` through `require`: imported as an ES module it gets a facade that reads every export,
 * and the lazy ones (`WebSocket`, …) load Node's bundled undici — 55–100 ms of every `loopscope`
 * start (Node 22.23), against ~5 ms required.
 */
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

export interface ServerOptions {
  apiHost: ApiHost;
  /** The built renderer (out/renderer): the only files served. */
  assetsDir: string;
  /** 0 or absent: a free port chosen by the system. */
  port?: number;
}

export interface RunningServer {
  /** `http://127.0.0.1:PORT/<token>/`: the page, token included. */
  url: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

/** API requests are small JSON objects; anything larger is refused before it is read. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const statusOf: Readonly<Record<ApiErrorCode, number>> = {
  invalid_request: 400,
  not_allowed: 403,
  not_found: 404,
  not_ready: 409,
  trace_file: 422,
  internal: 500,
  unavailable: 503,
};

const securityHeaders: Readonly<Record<string, string>> = {
  'Content-Security-Policy': contentSecurityPolicy,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  // The token is in every URL: nothing is kept by caches.
  'Cache-Control': 'no-store',
};

const API_METHOD_NAME = /^[A-Za-z]{1,64}$/;

function sendText(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

function sendApiError(response: ServerResponse, code: ApiErrorCode, message: string, headers: Record<string, string> = {}): void {
  sendJson(response, statusOf[code], { error: { code, message } }, headers);
}

/** One API call: a JSON POST to `…/api/<method>`, answered by the API host with JSON. */
async function serveApi(apiHost: ApiHost, request: IncomingMessage, response: ServerResponse, method: string): Promise<void> {
  if (!API_METHOD_NAME.test(method)) return sendApiError(response, 'not_found', 'no such API method');
  if (request.method !== 'POST') return sendApiError(response, 'invalid_request', 'API methods are called with POST', { Allow: 'POST' });
  const contentType = (request.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
  if (contentType !== 'application/json') {
    return sendJson(response, 415, { error: { code: 'invalid_request', message: 'the request body must be JSON (Content-Type: application/json)' } });
  }
  const body = await readBody(request, MAX_REQUEST_BYTES);
  if (body === null) return sendJson(response, 413, { error: { code: 'invalid_request', message: `the request is larger than ${MAX_REQUEST_BYTES} bytes` } });
  let parsed: unknown;
  try {
    parsed = body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
  } catch {
    return sendApiError(response, 'invalid_request', `${method}: the request body is not JSON`);
  }
  try {
    sendJson(response, 200, await apiHost.call(method, parsed));
  } catch (error) {
    const { error: failure } = toApiError(error);
    sendApiError(response, failure.code, failure.message);
  }
}

/** A file under the assets directory, or a 404: `..`, encoded or not, and links out of it are refused. */
async function serveAsset(assetsRoot: string, request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return sendText(response, 405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
  let relativePath: string;
  try {
    relativePath = decodeURIComponent(path === '' ? 'index.html' : path);
  } catch {
    return sendText(response, 404, 'Not Found');
  }
  const segments = relativePath.split('/');
  if (relativePath.includes('\0') || relativePath.includes('\\') || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    return sendText(response, 404, 'Not Found');
  }
  let file: string;
  try {
    file = await realpath(resolve(assetsRoot, ...segments));
    if (!file.startsWith(assetsRoot + sep) || !(await stat(file)).isFile()) return sendText(response, 404, 'Not Found');
  } catch {
    return sendText(response, 404, 'Not Found');
  }
  const size = (await stat(file)).size;
  response.writeHead(200, { 'Content-Type': contentTypes[extname(file).toLowerCase()] ?? 'application/octet-stream', 'Content-Length': size });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  await pipeline(createReadStream(file), response);
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const token = randomBytes(32).toString('base64url');
  const assetsRoot = await realpath(resolve(options.assetsDir));
  let port = 0;
  const allowedHosts = (): Set<string> => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const allowedOrigins = (): Set<string> => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    for (const [name, value] of Object.entries(securityHeaders)) response.setHeader(name, value);
    if (!allowedHosts().has(request.headers.host ?? '')) return sendText(response, 403, 'Forbidden');
    const origin = request.headers.origin;
    if (origin !== undefined && !allowedOrigins().has(origin)) return sendText(response, 403, 'Forbidden');
    const pathname = (request.url ?? '/').split('?', 1)[0] ?? '/';
    const [, firstSegment = '', ...rest] = pathname.split('/');
    if (!secretMatches(firstSegment, token)) return sendText(response, 404, 'Not Found');
    // The page's relative URLs (assets, api/…) need the trailing slash.
    if (rest.length === 0) return sendText(response, 308, 'Permanent Redirect', { Location: `/${token}/` });
    const path = rest.join('/');
    if (rest[0] === 'api') return serveApi(options.apiHost, request, response, rest.slice(1).join('/'));
    return serveAsset(assetsRoot, request, response, path);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const { error: failure } = toApiError(error);
      sendApiError(response, 'internal', failure.message);
    });
  });
  await new Promise<void>((resolveListening, rejectListening) => {
    server.once('error', rejectListening);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', rejectListening);
      resolveListening();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/${token}/`,
    token,
    port,
    close: () =>
      new Promise<void>((resolveClosed, rejectClosed) => {
        server.close((error) => (error ? rejectClosed(error) : resolveClosed()));
        server.closeAllConnections();
      }),
  };
}
