/**
 * The HTTP transport of `loopscope serve` on a real socket on 127.0.0.1, in front of a real API
 * host: what a browser on this machine gets, and what everything else — no token, a rebound DNS
 * name, another origin, a path out of the assets — does not.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TraceSummary } from '../../shared/api';
import { contentSecurityPolicy } from '../../shared/contentSecurityPolicy';
import { MAX_REQUEST_BYTES, startServer, type RunningServer } from '../../src-main/server/httpServer';
import { startTestHost, type TestHost } from '../support/apiHarness';
import { temporaryDir } from '../support/engineHarness';
import { examplesDir, repoRoot } from '../../devkit/repoPaths';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request with exactly this path and these headers (fetch would normalize `..` and refuse to set Host). */
function send(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: { host: `127.0.0.1:${port}`, ...options.headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

describe('HTTP server', () => {
  let t: TestHost;
  let server: RunningServer;
  let trace: TraceSummary;
  const site = temporaryDir('server-site');
  const assets = join(site.path, 'renderer');
  const indexHtml = '<!doctype html><title>Loopscope</title><script type="module" src="./assets/app.js"></script>';

  const api = (method: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
    send(server.port, {
      method: 'POST',
      path: `/${server.token}/api/${method}`,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  before(async () => {
    mkdirSync(join(assets, 'assets'), { recursive: true });
    writeFileSync(join(assets, 'index.html'), indexHtml);
    writeFileSync(join(assets, 'assets', 'app.js'), 'console.log("app");\n');
    writeFileSync(join(assets, 'assets', 'app.css'), 'body { margin: 0 }\n');
    // Beside the assets, not in them: must never be served.
    writeFileSync(join(site.path, 'secret.txt'), 'not for the browser');
    t = startTestHost();
    trace = await t.openSettled(join(examplesDir, 'dangling-call.jsonl'));
    server = await startServer({ apiHost: t.host, assetsDir: assets });
  });
  after(async () => {
    await server.close();
    await t.close();
    site.remove();
  });

  it('listens on 127.0.0.1 with a 32-byte token in the URL', () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/$/);
    assert.equal(server.url, `http://127.0.0.1:${server.port}/${server.token}/`);
    assert.equal(Buffer.from(server.token, 'base64url').length, 32);
  });

  it('serves the page and its assets with their content types under the token', async () => {
    const page = await fetch(server.url);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(await page.text(), indexHtml);
    const script = await fetch(new URL('assets/app.js', server.url));
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    const style = await fetch(new URL('assets/app.css', server.url));
    assert.equal(style.headers.get('content-type'), 'text/css; charset=utf-8');
    const bare = await send(server.port, { path: `/${server.token}` });
    assert.deepEqual([bare.status, bare.headers.location], [308, `/${server.token}/`], 'the page needs its trailing slash for relative URLs');
    assert.equal((await send(server.port, { path: `/${server.token}/assets/missing.js` })).status, 404);
    assert.equal((await send(server.port, { path: `/${server.token}/assets/` })).status, 404, 'no directory listing');
  });

  it('answers 404, with nothing that names Loopscope, without the right token', async () => {
    const wrongToken = `${server.token.slice(0, -1)}${server.token.endsWith('A') ? 'B' : 'A'}`;
    for (const path of [
      '/',
      '/index.html',
      '/assets/app.js',
      '/api/listTraces',
      `/${wrongToken}/`,
      `/${wrongToken}/api/listTraces`,
      `/${server.token.slice(0, 20)}/`,
    ]) {
      const reply = await send(server.port, { path });
      assert.equal(reply.status, 404, path);
      assert.doesNotMatch(reply.body, /loopscope/i, path);
    }
    const post = await send(server.port, {
      method: 'POST',
      path: `/${wrongToken}/api/listTraces`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(post.status, 404);
  });

  it('refuses a Host header that is not 127.0.0.1 or localhost on its port (DNS rebinding)', async () => {
    for (const host of ['evil.example:' + server.port, `127.0.0.1:${server.port + 1}`, '127.0.0.1', `localhost.evil.example:${server.port}`]) {
      const reply = await send(server.port, { path: `/${server.token}/`, headers: { host } });
      assert.equal(reply.status, 403, host);
      const call = await api('listTraces', {}, { host });
      assert.equal(call.status, 403, `${host}: API`);
    }
    assert.equal((await send(server.port, { path: `/${server.token}/`, headers: { host: `localhost:${server.port}` } })).status, 200);
  });

  it('sends no CORS header and refuses another origin', async () => {
    const evil = await api('listTraces', {}, { origin: 'http://evil.example' });
    assert.equal(evil.status, 403);
    assert.equal(evil.headers['access-control-allow-origin'], undefined);
    const preflight = await send(server.port, {
      method: 'OPTIONS',
      path: `/${server.token}/api/listTraces`,
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    const same = await api('listTraces', {}, { origin: `http://127.0.0.1:${server.port}` });
    assert.equal(same.status, 200);
    assert.equal(same.headers['access-control-allow-origin'], undefined);
  });

  it('serves nothing outside its assets directory, however the path is spelled', async () => {
    for (const path of [
      `/${server.token}/../secret.txt`,
      `/${server.token}/assets/../../secret.txt`,
      `/${server.token}/%2e%2e/secret.txt`,
      `/${server.token}/assets/..%2f..%2fsecret.txt`,
      `/${server.token}/assets/%2e%2e%2f%2e%2e%2fsecret.txt`,
      `/${server.token}/..%5csecret.txt`,
      `/${server.token}/%2fetc%2fpasswd`,
      `/${server.token}//etc/passwd`,
      `/${server.token}/assets/app.js%00.html`,
      `/${server.token}/%E0%A4%A`,
    ]) {
      const reply = await send(server.port, { path });
      assert.ok(reply.status === 404 || reply.status === 400, `${path}: ${reply.status}`);
      assert.doesNotMatch(reply.body, /not for the browser|root:/, path);
    }
  });

  it("sends the page's CSP (src-renderer/index.html's, with the frame-ancestors only a header can carry) and nosniff on every response", async () => {
    const html = readFileSync(join(repoRoot, 'src-renderer', 'index.html'), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    assert.equal(contentSecurityPolicy, `${meta}; frame-ancestors 'none'`);
    assert.doesNotMatch(contentSecurityPolicy, /unsafe-inline|unsafe-eval/);
    for (const reply of [await send(server.port, { path: `/${server.token}/` }), await api('listTraces', {}), await send(server.port, { path: '/' })]) {
      assert.equal(reply.headers['content-security-policy'], contentSecurityPolicy);
      assert.equal(reply.headers['x-content-type-options'], 'nosniff');
      assert.equal(reply.headers['referrer-policy'], 'no-referrer', 'the token must not leave in a Referer');
    }
  });

  it('answers API calls with the JSON the host gives, and errors with their codes', async () => {
    const list = await api('listTraces', {});
    assert.equal(list.status, 200);
    assert.equal(list.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(
      (JSON.parse(list.body) as TraceSummary[]).map((summary) => summary.traceId),
      [trace.traceId],
    );
    const runs = await api('runs', { traceId: trace.traceId });
    assert.equal(runs.status, 200);
    assert.equal((JSON.parse(runs.body) as { rows: { status: string }[] }).rows[0]?.status, 'protocol_error');
    const invalid = await api('runs', { traceId: trace.traceId, limit: -1 });
    assert.equal(invalid.status, 400);
    assert.equal((JSON.parse(invalid.body) as { error: { code: string } }).error.code, 'invalid_request');
    const unknownTrace = await api('runs', { traceId: 'nope' });
    assert.deepEqual([unknownTrace.status, (JSON.parse(unknownTrace.body) as { error: { code: string } }).error.code], [404, 'not_found']);
    const refused = await api('openPath', { path: '/etc/passwd' });
    assert.deepEqual([refused.status, (JSON.parse(refused.body) as { error: { code: string } }).error.code], [403, 'not_allowed']);
    const unknownMethod = await api('dropTables', {});
    assert.equal(unknownMethod.status, 404);
  });

  it('takes only JSON POSTs of bounded size', async () => {
    const notJson = await send(server.port, {
      method: 'POST',
      path: `/${server.token}/api/listTraces`,
      headers: { 'content-type': 'application/json' },
      body: '{"unclosed',
    });
    assert.deepEqual([notJson.status, (JSON.parse(notJson.body) as { error: { code: string } }).error.code], [400, 'invalid_request']);
    const form = await send(server.port, { method: 'POST', path: `/${server.token}/api/listTraces`, headers: { 'content-type': 'text/plain' }, body: '{}' });
    assert.equal(form.status, 415, 'a cross-site form or simple request cannot post text/plain');
    const get = await send(server.port, { path: `/${server.token}/api/listTraces` });
    assert.equal(get.status, 400);
    assert.equal(get.headers['allow'], 'POST');
    const huge = await send(server.port, {
      method: 'POST',
      path: `/${server.token}/api/runs`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ traceId: trace.traceId, text: 'x'.repeat(MAX_REQUEST_BYTES) }),
    });
    assert.equal(huge.status, 413);
  });
});
