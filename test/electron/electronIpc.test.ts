/**
 * The desktop app's one IPC channel as main.ts answers it, in front of a real API host (its
 * workers, a real cache folder): only the renderer page's top frame is served, a message must be
 * `{method, request}`, and every failure comes back as an `{error: {code, message}}` value.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiErrorSchema, apiMethods } from '../../shared/api';
import { createApiHost, type ApiHost } from '../../src-main/api/apiHost';
import { answerApiMessage } from '../../src-main/electron/ipc';
import { temporaryDir } from '../support/engineHarness';
import { examplesDir } from '../../devkit/repoPaths';

const rendererPage = new URL('file:///opt/loopscope/out/renderer/index.html');
const rendererTop = { url: `${rendererPage.href}#/traces`, parent: null };

let cache: { path: string; remove: () => void };
let host: ApiHost;

before(() => {
  cache = temporaryDir('electron-ipc');
  host = createApiHost({ shell: 'electron', version: '9.9.9', cacheDir: cache.path, canOpenPaths: true });
});

after(async () => {
  await host.close();
  cache.remove();
});

const send = (message: unknown, frame: { url: string; parent: unknown } | null = rendererTop) => answerApiMessage(host, frame, message, rendererPage);

function errorCode(reply: unknown): string {
  const parsed = apiErrorSchema.strict().safeParse(reply);
  assert.ok(parsed.success, `expected an {error} value, got ${JSON.stringify(reply)}`);
  return parsed.data.error.code;
}

async function openTraceCount(): Promise<number> {
  return apiMethods.listTraces.response.parse(await send({ method: 'listTraces', request: {} })).length;
}

describe('IPC: the API channel', () => {
  it('answers the renderer page with the API response', async () => {
    const reply = await send({ method: 'appInfo', request: {} });
    assert.deepEqual(reply, { version: '9.9.9', shell: 'electron', canOpenPaths: true });
  });

  it('refuses a subframe, another page or an unknown sender, without calling the API', async () => {
    const path = join(examplesDir, 'normal-query.jsonl');
    const intruders = [
      { url: rendererPage.href, parent: rendererTop },
      { url: 'https://example.com/', parent: null },
      { url: 'file:///tmp/evil.html', parent: null },
      null,
    ];
    for (const frame of intruders) {
      assert.equal(errorCode(await send({ method: 'openPath', request: { path } }, frame)), 'not_allowed', JSON.stringify(frame));
    }
    assert.equal(await openTraceCount(), 0);
  });

  it('rejects a message that is not {method, request} as invalid_request', async () => {
    for (const message of [null, 'appInfo', { request: {} }, { method: '' }, { method: 'x'.repeat(65), request: {} }]) {
      assert.equal(errorCode(await send(message)), 'invalid_request', JSON.stringify(message));
    }
  });

  it('passes the API host failures on as values: unknown method, bad request, unknown trace', async () => {
    assert.equal(errorCode(await send({ method: 'shutdown', request: {} })), 'not_found');
    assert.equal(errorCode(await send({ method: 'openPath', request: { path: 42 } })), 'invalid_request');
    assert.equal(errorCode(await send({ method: 'runs', request: { traceId: 'nope' } })), 'not_found');
  });

  it('opens a dropped file by path for the renderer (the desktop app may)', async () => {
    const path = join(examplesDir, 'normal-query.jsonl');
    const summary = apiMethods.openPath.response.parse(await send({ method: 'openPath', request: { path } }));
    assert.equal(summary.path, path);
    assert.equal(await openTraceCount(), 1);
  });
});
