/**
 * The credential scanner (shared/secrets/secretScanner.ts): every kind found where it is written —
 * in plain text, inside a raw JSON line (escaped newlines, escaped quotes and slashes), after a
 * JSON escape — with exact offsets; what looks like a key but is not (hashes, UUIDs, base64,
 * `sk-` and "Bearer" in prose) left alone; masks that never hold the value.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { findSecrets, maskSecrets, maskSecretsDeep, replaceSecrets, secretKinds, type SecretKind } from '../../../shared/secrets/secretScanner';
import { fakeAwsSecret, fakeBearer, fakeSecrets } from '../../support/fakeSecrets';

const providerKeys = Object.entries(fakeSecrets) as [SecretKind, string][];

/** The values found in `text`, with their kinds. */
function found(text: string): [SecretKind, string][] {
  return findSecrets(text).map((span) => [span.kind, text.slice(span.start, span.end)]);
}

describe('secret scanner: what it finds', () => {
  for (const [kind, value] of providerKeys) {
    it(`${kind}: in prose, and as a JSON string value of a raw line`, () => {
      assert.deepEqual(found(`the loop logged ${value} by mistake`), [[kind, value]]);
      const line = JSON.stringify({ type: 'tool_result', output: { note: `token=${value}` } });
      // A private key's newlines are the two characters \n in the raw line: its span is the key as JSON text.
      assert.deepEqual(found(line), [[kind, JSON.stringify(value).slice(1, -1)]]);
    });
  }

  it('finds a key right after a JSON escape (\\n, \\u0022), not only after a space', () => {
    const key = fakeSecrets.anthropic_api_key;
    assert.deepEqual(found(String.raw`"first line\n${key}"`), [['anthropic_api_key', key]]);
    assert.deepEqual(found(String.raw`"\u0022${key}\u0022"`), [['anthropic_api_key', key]]);
  });

  it('an Authorization header: the credential after the scheme, named by provider when it is a known key', () => {
    assert.deepEqual(found(`{"headers":{"Authorization":"Bearer ${fakeBearer}"}}`), [['authorization_header', fakeBearer]]);
    assert.deepEqual(found(`{"authorization": "Bearer ${fakeSecrets.openai_api_key}"}`), [['openai_api_key', fakeSecrets.openai_api_key]]);
    assert.deepEqual(found(`curl -H "Authorization: token ${fakeSecrets.github_token}"`), [['github_token', fakeSecrets.github_token]]);
    assert.deepEqual(found(String.raw`{"cmd":"curl -H \"AUTHORIZATION: Basic dXNlcjpwYXNzd29yZA==\""}`), [['authorization_header', 'dXNlcjpwYXNzd29yZA==']]);
  });

  it('a bare bearer token, and an AWS secret key only where it is named', () => {
    assert.deepEqual(found(`sent Bearer ${fakeBearer} upstream`), [['bearer_token', fakeBearer]]);
    assert.deepEqual(found(`{"aws_secret_access_key": "${fakeAwsSecret}"}`), [['aws_secret_access_key', fakeAwsSecret]]);
    assert.deepEqual(found(String.raw`{\"SecretAccessKey\":\"${fakeAwsSecret}\"}`), [['aws_secret_access_key', fakeAwsSecret]]);
    assert.deepEqual(found(`AWS_SECRET_ACCESS_KEY=${fakeAwsSecret}`), [['aws_secret_access_key', fakeAwsSecret]]);
    assert.deepEqual(found(`the same 40 characters unnamed: ${fakeAwsSecret}`), []);
  });

  it('a Slack webhook written with JSON-escaped slashes', () => {
    const escaped = fakeSecrets.slack_webhook_url.replaceAll('/', '\\/');
    assert.deepEqual(found(`{"url":"${escaped}"}`), [['slack_webhook_url', escaped]]);
  });

  it('a private key with real newlines (a decoded string) and one cut before its END line', () => {
    assert.deepEqual(found(`key:\n${fakeSecrets.private_key}\nnext`), [['private_key', fakeSecrets.private_key]]);
    const cut = fakeSecrets.private_key.slice(0, 120);
    assert.deepEqual(found(JSON.stringify({ pem: cut })), [['private_key', JSON.stringify(cut).slice(1, -1)]]);
  });

  it('several credentials in one text: in order, none overlapping', () => {
    const text = providerKeys.map(([, value]) => value).join(' and ');
    const spans = findSecrets(text);
    assert.deepEqual(
      spans.map((span) => span.kind),
      providerKeys.map(([kind]) => kind),
    );
    for (let i = 1; i < spans.length; i += 1) assert.ok(spans[i]!.start >= spans[i - 1]!.end);
  });
});

describe('secret scanner: what it leaves alone', () => {
  const ordinary = [
    'sha256:' + 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    'request 123e4567-e89b-12d3-a456-426614174000 done',
    'image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'a task-based risk-free desk-top setup with the sk-learn toolkit',
    'ask-me-anything and disk-usage-summary-for-the-whole-cluster',
    'the bearer of bad news; Bearer token required; Authorization header missing',
    'set "Authorization": "Bearer YOUR_API_TOKEN" before calling',
    'Authorization: <token>',
    'call_HwLb1o5b4yx98eB9tvgLG0jg and toolu_01A09q90qw90lq917835lq9 are call ids',
    'git commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904',
    '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----',
    'eyJhbGciOiJIUzI1NiJ9 is only a header',
  ];
  for (const text of ordinary) {
    it(`no credential in: ${text.slice(0, 60)}`, () => assert.deepEqual(found(text), []));
  }

  it('a key glued to other letters is not one (a longer identifier that merely contains the prefix)', () => {
    assert.deepEqual(found(`x${fakeSecrets.github_token}`), []);
    assert.deepEqual(found(`${fakeSecrets.aws_access_key_id}X`), []);
  });
});

describe('masks', () => {
  it('name the kind and the public prefix, never any of the value past it', () => {
    for (const [kind, value] of providerKeys) {
      const masked = maskSecrets(`before ${value} after`);
      const middle = value.slice(value.length / 2, value.length / 2 + 8);
      assert.ok(!masked.includes(middle), `${kind}: nothing of the value past its prefix in ${masked}`);
      assert.match(masked, /^before .*•••• \[[a-z ]+ masked\] after$/);
      assert.deepEqual(findSecrets(masked), [], `${kind}: a mask is not found again`);
    }
    assert.equal(maskSecrets(`x ${fakeSecrets.anthropic_api_key}`), 'x sk-ant-…•••• [anthropic key masked]');
  });

  it('keep a JSON line valid JSON, with everything else as it was', () => {
    const record = { type: 'run_start', config: { api_key: fakeSecrets.anthropic_api_key, pem: fakeSecrets.private_key, url: fakeSecrets.slack_webhook_url } };
    const masked = JSON.parse(maskSecrets(JSON.stringify(record))) as typeof record;
    assert.equal(masked.type, 'run_start');
    assert.deepEqual(Object.keys(masked.config), ['api_key', 'pem', 'url']);
    assert.equal(masked.config.api_key, 'sk-ant-…•••• [anthropic key masked]');
    assert.equal(masked.config.pem, '-----BEGIN RSA PRIVATE KEY…•••• [private key masked]');
  });

  it('maskSecretsDeep masks strings and keys at any depth and returns untouched values as they are', () => {
    const clean = { a: [1, 'two', { three: null }] };
    assert.equal(maskSecretsDeep(clean), clean);
    const dirty = { rows: [{ summary: `uses ${fakeSecrets.huggingface_token}` }], [fakeSecrets.github_token]: 1 };
    const masked = maskSecretsDeep(dirty);
    assert.deepEqual(masked, { rows: [{ summary: 'uses hf_…•••• [hugging face token masked]' }], 'ghp_…•••• [github token masked]': 1 });
    assert.ok(JSON.stringify(dirty).includes(fakeSecrets.github_token), 'the input is not changed');
  });

  it('property: replacing the spans found changes nothing outside them, and every kind is one the scanner declares', () => {
    const pieces = fc.oneof(
      fc.constantFrom(...providerKeys.map(([, value]) => value), fakeBearer, fakeAwsSecret),
      fc.string({ maxLength: 40 }),
      fc.constantFrom(' ', '"', '\\n', ':', 'Bearer ', '"authorization": "', 'aws_secret_access_key=', 'sk-', 'eyJ', '-----BEGIN '),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        const spans = findSecrets(text);
        const marked = replaceSecrets(text, () => '\u0000', spans);
        const outside = text
          .split('')
          .filter((_, index) => !spans.some((span) => index >= span.start && index < span.end))
          .join('');
        assert.equal(marked.replaceAll('\u0000', ''), outside);
        for (const span of spans) assert.ok(secretKinds.includes(span.kind) && span.end > span.start);
      }),
      { numRuns: 300 },
    );
  });
});
