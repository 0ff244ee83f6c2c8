/**
 * The desktop shell's security rules (src-main/electron/securityPolicy.ts, applied by
 * windowFactory.ts to every window and the session): what the window may run, where it may go,
 * which links reach the system browser, who may call the API, which permission is granted, and
 * the CSP its files are served with. No Electron binary here: the rules are checked as decisions.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { contentSecurityPolicy, metaContentSecurityPolicy } from '../../shared/contentSecurityPolicy';
import {
  isAllowedExternalUrl,
  isPermissionGranted,
  isTrustedSender,
  navigationDecision,
  newWindowDecision,
  secureWebPreferences,
  secureWindowOptions,
  securityHeadersResponse,
} from '../../src-main/electron/securityPolicy';
import { repoRoot } from '../../devkit/repoPaths';

const rendererPage = new URL('file:///opt/loopscope/out/renderer/index.html');
const preloadPath = '/opt/loopscope/out/preload/index.cjs';

describe('window options', () => {
  const options = secureWindowOptions({ preloadPath, bounds: { x: 10, y: 20, width: 900, height: 700 } });
  const web = options.webPreferences;

  it('isolates the page: context isolation, sandbox, no Node in the page, its workers or frames', () => {
    assert.ok(web);
    assert.equal(web.contextIsolation, true);
    assert.equal(web.sandbox, true);
    assert.equal(web.nodeIntegration, false);
    assert.equal(web.nodeIntegrationInWorker, false);
    assert.equal(web.nodeIntegrationInSubFrames, false);
  });

  it('keeps web security on: same-origin policy, no insecure content, no <webview>, no experimental features', () => {
    assert.ok(web);
    assert.equal(web.webSecurity, true);
    assert.equal(web.allowRunningInsecureContent, false);
    assert.equal(web.webviewTag, false);
    assert.equal(web.experimentalFeatures, false);
  });

  it('never navigates to a dropped file (the renderer opens it through the API)', () => {
    assert.equal(web?.navigateOnDragDrop, false);
  });

  it('loads the preload it was given and the remembered bounds, hidden until painted', () => {
    assert.equal(web?.preload, preloadPath);
    assert.deepEqual([options.x, options.y, options.width, options.height], [10, 20, 900, 700]);
    assert.equal(options.show, false);
  });

  it('has the same secure preferences when there are no remembered bounds', () => {
    const fresh = secureWindowOptions({ preloadPath, bounds: {} });
    assert.deepEqual(fresh.webPreferences, secureWebPreferences(preloadPath));
    assert.equal(fresh.width, 1280);
    assert.equal(fresh.x, undefined);
  });
});

describe('navigation', () => {
  const main = (url: string) => navigationDecision({ url, isMainFrame: true }, rendererPage);

  it('lets the page move between its own routes (query and fragment)', () => {
    assert.equal(main('file:///opt/loopscope/out/renderer/index.html'), 'allow');
    assert.equal(main('file:///opt/loopscope/out/renderer/index.html#/trace/t1/run/3?step=4'), 'allow');
    assert.equal(main('file:///opt/loopscope/out/renderer/index.html?theme=dark'), 'allow');
  });

  it('refuses any other page, file or scheme', () => {
    for (const url of [
      'file:///opt/loopscope/out/renderer/other.html',
      'file:///etc/passwd',
      'file:///opt/loopscope/out/renderer/../../secrets.html',
      'https://example.com/',
      'http://github.com/electron/electron',
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'not a url',
    ]) {
      assert.equal(main(url), 'deny', url);
    }
  });

  it('hands an allow-listed link to the system browser instead of navigating', () => {
    assert.equal(main('https://github.com/electron/electron'), 'open-externally');
  });

  it('refuses every navigation of a subframe, even to the renderer page', () => {
    assert.equal(navigationDecision({ url: rendererPage.href, isMainFrame: false }, rendererPage), 'deny');
    assert.equal(navigationDecision({ url: 'https://github.com/', isMainFrame: false }, rendererPage), 'deny');
  });

  it('never opens a new window: allow-listed links go to the system browser, the rest nowhere', () => {
    assert.equal(newWindowDecision('https://github.com/badlogic/lemmy'), 'open-externally');
    assert.equal(newWindowDecision(rendererPage.href), 'deny');
    assert.equal(newWindowDecision('https://example.com/'), 'deny');
  });
});

describe('external link allow-list', () => {
  it('accepts https links on the listed sites and paths', () => {
    assert.equal(isAllowedExternalUrl('https://github.com/badlogic/lemmy/tree/main/apps/claude-trace'), true);
    assert.equal(isAllowedExternalUrl('https://opentelemetry.io/docs/specs/semconv/gen-ai/'), true);
    assert.equal(isAllowedExternalUrl('https://platform.openai.com/docs/api-reference/responses'), true);
  });

  it('rejects look-alike hosts, other paths, other schemes and credentials', () => {
    for (const url of [
      'https://github.com.evil.example/',
      'https://evil.example/https://github.com/',
      'https://github.com@evil.example/',
      'https://user:pass@github.com/',
      'http://github.com/',
      'file:///home/user/.ssh/id_rsa',
      'https://platform.openai.com/account/api-keys',
      'https://opentelemetry.io/blog/',
      'ssh://github.com/',
    ]) {
      assert.equal(isAllowedExternalUrl(url), false, url);
    }
  });
});

describe('IPC sender check', () => {
  it('accepts the renderer page top frame, whatever its route', () => {
    assert.equal(isTrustedSender({ url: `${rendererPage.href}#/trace/1`, parent: null }, rendererPage), true);
  });

  it('rejects a missing frame, a subframe and any other page', () => {
    const top = { url: rendererPage.href, parent: null };
    assert.equal(isTrustedSender(null, rendererPage), false);
    assert.equal(isTrustedSender(undefined, rendererPage), false);
    assert.equal(isTrustedSender({ url: rendererPage.href, parent: top }, rendererPage), false);
    assert.equal(isTrustedSender({ url: 'https://example.com/', parent: null }, rendererPage), false);
    assert.equal(isTrustedSender({ url: 'file:///tmp/index.html', parent: null }, rendererPage), false);
  });
});

describe('permissions', () => {
  const fromPage = { requestingUrl: rendererPage.href, isMainFrame: true };

  it('denies every permission, from the renderer page too', () => {
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fileSystem', 'hid', 'usb', 'serial', 'unknown']) {
      assert.equal(isPermissionGranted(permission, fromPage, rendererPage), false, permission);
    }
  });

  it('grants only clipboard writes ("copy as JSON"), and only to the renderer page top frame', () => {
    assert.equal(isPermissionGranted('clipboard-sanitized-write', fromPage, rendererPage), true);
    assert.equal(isPermissionGranted('clipboard-sanitized-write', { ...fromPage, isMainFrame: false }, rendererPage), false);
    assert.equal(isPermissionGranted('clipboard-sanitized-write', { requestingUrl: 'https://example.com/', isMainFrame: true }, rendererPage), false);
    assert.equal(isPermissionGranted('clipboard-sanitized-write', { isMainFrame: true }, rendererPage), false);
  });
});

describe('Content-Security-Policy', () => {
  it('is the policy of the renderer page itself (src-renderer/index.html), less what only a header can carry', () => {
    const html = readFileSync(join(repoRoot, 'src-renderer', 'index.html'), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html);
    assert.ok(meta?.[1], 'index.html has a CSP meta tag');
    assert.equal(metaContentSecurityPolicy, meta[1]);
    // Browsers log an error on every load for a frame-ancestors they find in a <meta> tag.
    assert.doesNotMatch(meta[1], /frame-ancestors/);
    assert.equal(contentSecurityPolicy, `${meta[1]}; frame-ancestors 'none'`);
  });

  it('allows no inline code, no eval and nothing from elsewhere', () => {
    const directives = new Map(
      contentSecurityPolicy
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    );
    assert.deepEqual(directives.get('default-src'), ["'none'"]);
    assert.deepEqual(directives.get('script-src'), ["'self'"]);
    assert.deepEqual(directives.get('style-src'), ["'self'"]);
    assert.deepEqual(directives.get('frame-ancestors'), ["'none'"]);
    assert.doesNotMatch(contentSecurityPolicy, /unsafe-(eval|inline)|\*|https?:/);
  });

  it('is set on the renderer files, replacing whatever policy a response carried', () => {
    const answer = securityHeadersResponse(
      'file:///opt/loopscope/out/renderer/assets/index-abc.js',
      { 'content-security-policy': ['default-src *'], 'Content-Type': ['text/javascript'] },
      rendererPage,
    );
    assert.deepEqual(answer, {
      responseHeaders: {
        'Content-Type': ['text/javascript'],
        'Content-Security-Policy': [contentSecurityPolicy],
        'X-Content-Type-Options': ['nosniff'],
      },
    });
  });

  it('answers {} for responses from outside the renderer, so Electron leaves their headers as they came', () => {
    const original = { 'Content-Type': ['text/html'], 'Set-Cookie': ['a=1'] };
    assert.deepEqual(securityHeadersResponse('https://github.com/', original, rendererPage), {});
    assert.deepEqual(securityHeadersResponse('file:///opt/loopscope/out/main/index.js', original, rendererPage), {});
  });
});
