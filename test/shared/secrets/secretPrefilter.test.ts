/**
 * The credential scanner's prefilter (the literals searched for before the rules run,
 * shared/secrets/secretScanner.ts): it skips only texts in which the rules find nothing, so
 * `findSecrets` answers exactly as the rules alone would — on prose, raw JSON lines, JSON-escaped
 * text, and pieces of every credential and of every literal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { findSecrets, type SecretSpan } from '../../../shared/secrets/secretScanner';
import { fakeAwsSecret, fakeBearer, fakeSecrets } from '../../support/fakeSecrets';

/**
 * The rules' answer without the prefilter: the text after a lead that passes the prefilter and
 * that no rule matches (`AKIA` needs 16 more capitals or digits; the space ends it), and that reads
 * to every check like the start of a text (a space before a token), with the spans moved back.
 */
const lead = 'AKIA ';
function rulesAlone(text: string): SecretSpan[] {
  return findSecrets(lead + text).map((span) => ({ ...span, start: span.start - lead.length, end: span.end - lead.length }));
}

const anchorPieces = [
  'sk-',
  'sk-ant-',
  'AIza',
  'ASIA',
  'Secret_Access_Key',
  'secretaccesskey',
  'SECRET_ACCESS_KEY',
  'ghp_',
  'github_pat_',
  'xoxb-',
  'https://hooks.slack.com/services/',
  'https:\\/\\/hooks.slack.com\\/services\\/',
  'SG.',
  'rk_live_',
  'hf_',
  'Authorization: ',
  '"AUTHORIZATION": "',
  'Bearer ',
  'bearer\t',
  'earer ',
  '-----BEGIN RSA PRIVATE KEY-----',
  '-----END RSA PRIVATE KEY-----',
  'eyJ',
];
/** Credentials recognised only after their name, with it. */
const namedCredentials = [
  `Bearer ${fakeBearer}`,
  `bearer ${fakeBearer}`,
  `Authorization: Basic ${fakeBearer}`,
  `"authorization": "${fakeBearer}"`,
  `AUTHORIZATION=${fakeBearer}`,
  `aws_secret_access_key = ${fakeAwsSecret}`,
  `SecretAccessKey: ${fakeAwsSecret}`,
  `secretaccesskey=${fakeAwsSecret}`,
  `SECRET_ACCESS_KEY=${fakeAwsSecret}`,
];
const separators = [' ', '"', '\\"', '\\n', '\n', ':', '=', '/', '.', '_', '-', 'data":"', '\\u0022'];

/** Texts made of credentials, their pieces, separators, random tokens and random text, raw or as a JSON string. */
const texts = fc
  .tuple(
    fc.array(
      fc.oneof(
        fc.constantFrom(...Object.values(fakeSecrets), ...namedCredentials),
        fc.constantFrom(...anchorPieces),
        fc.constantFrom(...separators),
        fc.stringMatching(/^[A-Za-z0-9_-]{1,48}$/),
        fc.string({ maxLength: 30 }),
      ),
      { maxLength: 6 },
    ),
    fc.boolean(),
  )
  .map(([parts, asJson]) => (asJson ? JSON.stringify({ output: parts.join('') }) : parts.join('')));

describe('secret scanner: the prefilter', () => {
  it('property: findSecrets finds what the rules alone find', () => {
    fc.assert(
      fc.property(texts, (text) => {
        assert.deepEqual(findSecrets(text), rulesAlone(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('the lead used as the reference finds nothing by itself and shifts every credential by its length', () => {
    assert.deepEqual(findSecrets(lead), []);
    for (const value of [...Object.values(fakeSecrets), ...namedCredentials]) {
      const text = `key ${value} end`;
      assert.ok(findSecrets(text).length > 0, value);
      assert.deepEqual(rulesAlone(text), findSecrets(text));
    }
  });
});
