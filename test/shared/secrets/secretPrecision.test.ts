/**
 * The scanner's precision and recall measured (docs/semantics.md §14): random base64 and
 * base64url blobs — in free text, and under the keys of fields that are opaque by definition
 * (encrypted reasoning, thinking signatures, base64 images) — yield no credential; real-shaped
 * fake keys of every kind, in the same places a trace writes them, are all found; and each
 * finding's confidence says whether it is an error or a warning.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findSecrets, githubChecksum, secretKinds, type SecretKind } from '../../../shared/secrets/secretScanner';
import { fakeAwsSecret, fakeBearer, fakeSecrets } from '../../support/fakeSecrets';

/** A deterministic generator (mulberry32), so a failure names a blob that can be made again. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const base64Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const base64UrlAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function randomBlob(random: () => number, length: number, alphabet: string): string {
  let blob = '';
  for (let index = 0; index < length; index += 1) blob += alphabet[Math.floor(random() * alphabet.length)];
  return blob;
}

/** Where a trace holds an encoded blob: the places an opaque value is written, and free text. */
const blobPlaces: readonly ((blob: string) => string)[] = [
  (blob) => JSON.stringify({ type: 'reasoning', summary: [], encrypted_content: `gAAAAA${blob}` }),
  (blob) => JSON.stringify({ type: 'thinking', thinking: 'Let me check.', signature: blob }),
  (blob) => JSON.stringify({ thoughtSignature: blob, text: 'ok' }),
  (blob) => JSON.stringify({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: blob } }),
  (blob) => JSON.stringify({ type: 'input_image', image_url: `data:image/jpeg;base64,${blob}` }),
  (blob) => JSON.stringify({ type: 'tool_result', output: `the file holds ${blob} and nothing else` }),
  (blob) => `plain log text ${blob}`,
  // A blob inside a JSON string inside a JSON string (a tool result that logged a request).
  (blob) => JSON.stringify({ output: JSON.stringify({ content: [{ type: 'redacted_thinking', data: blob }] }) }),
];

describe('secret scanner precision: random base64 yields nothing', () => {
  it('2,000 random blobs of 16 to 4,096 characters, base64 and base64url, in every place a trace writes one', () => {
    const random = seededRandom(23);
    const hits: string[] = [];
    let blobs = 0;
    for (let index = 0; index < 2000; index += 1) {
      const length = 16 + Math.floor(random() * 4080);
      const blob = randomBlob(random, length, index % 2 === 0 ? base64Alphabet : base64UrlAlphabet);
      const text = blobPlaces[index % blobPlaces.length]!(blob);
      blobs += 1;
      for (const span of findSecrets(text)) hits.push(`${span.kind} in blob ${index}: ${text.slice(span.start, span.start + 24)}`);
    }
    assert.equal(blobs, 2000);
    assert.deepEqual(hits, []);
  });

  it('a key-shaped fragment planted inside a blob, or inside an opaque value, is not a key', () => {
    const random = seededRandom(7);
    for (const value of [fakeSecrets.huggingface_token, fakeSecrets.google_api_key, fakeSecrets.openai_api_key]) {
      const blob = `${randomBlob(random, 40, base64UrlAlphabet)}-${value}_${randomBlob(random, 40, base64UrlAlphabet)}`;
      assert.deepEqual(findSecrets(JSON.stringify({ encrypted_content: blob })), []);
      assert.deepEqual(findSecrets(`blob: ${blob}`), []);
      assert.deepEqual(findSecrets(JSON.stringify({ signature: `ab+${value}` })), [], 'near the start of a signature');
    }
  });
});

/** Every kind, as a trace writes it (named where a kind is only found named). */
const everyKind: readonly [SecretKind, string, string][] = [
  ...(Object.entries(fakeSecrets) as [SecretKind, string][]).map(([kind, value]): [SecretKind, string, string] => [kind, value, value]),
  ['aws_secret_access_key', fakeAwsSecret, `aws_secret_access_key=${fakeAwsSecret}`],
  ['authorization_header', fakeBearer, `Authorization: Bearer ${fakeBearer}`],
  ['bearer_token', fakeBearer, `sent Bearer ${fakeBearer}`],
];

describe('secret scanner recall: real-shaped fake keys are all found', () => {
  it('every kind, as a JSON value, in free text, and as the whole value of a "data" field', () => {
    assert.deepEqual(new Set(everyKind.map(([kind]) => kind)), new Set(secretKinds));
    let found = 0;
    for (const [kind, value, written] of everyKind) {
      for (const text of [JSON.stringify({ output: written }), `log: ${written} (end)`, JSON.stringify({ data: written })]) {
        const spans = findSecrets(text);
        const escaped = JSON.stringify(value).slice(1, -1);
        assert.ok(
          spans.some((span) => span.kind === kind && [value, escaped].includes(text.slice(span.start, span.end)) && span.confidence === 'high'),
          `${kind} in ${text.slice(0, 50)}: ${JSON.stringify(spans)}`,
        );
        found += 1;
      }
    }
    assert.equal(found, everyKind.length * 3);
  });
});

describe('secret scanner confidence', () => {
  const confidenceOf = (text: string): string[] => findSecrets(text).map((span) => `${span.kind}:${span.confidence}`);

  it('a generic header or bearer value with a placeholder word or few distinct characters is low confidence', () => {
    assert.deepEqual(confidenceOf(`headers: { Authorization: 'Bearer invalidtoken123' }`), ['authorization_header:low']);
    assert.deepEqual(confidenceOf('curl -H "Authorization: Bearer test-token-2024"'), ['authorization_header:low']);
    assert.deepEqual(confidenceOf('Bearer aaaaaaaa1111111122222222'), ['bearer_token:low']);
    assert.deepEqual(confidenceOf('{"Authorization":"Bearer abc123abc123abc123"}'), ['authorization_header:low']);
  });

  it('a random header or bearer value, and a provider key behind a header, are high confidence', () => {
    assert.deepEqual(confidenceOf(`Authorization: Bearer ${fakeBearer}`), ['authorization_header:high']);
    assert.deepEqual(confidenceOf(`Authorization: Bearer ${fakeSecrets.anthropic_api_key}`), ['anthropic_api_key:high']);
  });

  it('a GitHub token whose checksum fails is low confidence; with its checksum, high', () => {
    const good = fakeSecrets.github_token;
    const body = good.slice(4, 34);
    assert.equal(good.slice(34), githubChecksum(body));
    const flipped = `ghp_${body}${good.slice(34, 39)}${good.endsWith('0') ? '1' : '0'}`;
    assert.deepEqual(confidenceOf(`token ${good}`), ['github_token:high']);
    assert.deepEqual(confidenceOf(`token ${flipped}`), ['github_token:low']);
  });

  it('GitHub checksum: base62 of the CRC32 of the 30 random characters, padded to six', () => {
    // CRC32("123456789") is 0xCBF43926, the standard check value; in base62, 3jZRME.
    assert.equal(githubChecksum('123456789'), '3jZRME');
    assert.equal(githubChecksum(''), '000000', 'CRC32 of nothing is 0, padded');
  });
});
