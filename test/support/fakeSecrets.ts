/**
 * Credentials of every kind the scanner knows, made up and built from pieces at run time, so the
 * repository holds no string a secret scanner would take for a live key. Each has the shape of
 * the real thing (prefix, length, alphabet).
 */
import assert from 'node:assert/strict';
import { githubChecksum, type SecretKind } from '../../shared/secrets/secretScanner';

/** `count` characters cycling through `alphabet`: deterministic, mixed case and digits. */
function filler(count: number, alphabet = 'aB3dE5gH7jK9mN1pQ'): string {
  return Array.from({ length: count }, (_, index) => alphabet[(index * 7) % alphabet.length]).join('');
}

export const fakeSecrets: Readonly<Record<Exclude<SecretKind, 'authorization_header' | 'bearer_token' | 'aws_secret_access_key'>, string>> = {
  anthropic_api_key: ['sk', 'ant', 'api03', filler(93)].join('-'),
  openai_api_key: ['sk', 'proj', filler(156)].join('-'),
  google_api_key: 'AI' + 'za' + filler(35),
  aws_access_key_id: 'AK' + 'IA' + filler(16, 'ABCDEFGHJKLMNP234567'),
  // 30 random characters and the 6 of their checksum, as GitHub issues them.
  github_token: 'gh' + 'p_' + filler(30) + githubChecksum(filler(30)),
  slack_token: ['xo' + 'xb', '1234567890', '0987654321', filler(24)].join('-'),
  slack_webhook_url:
    'https://hooks.' + 'slack.com/services/' + ['T0' + filler(9, 'ABCDEFGH0123456789'), 'B0' + filler(9, 'ABCDEFGH0123456789'), filler(24)].join('/'),
  sendgrid_api_key: ['S' + 'G', filler(22), filler(43)].join('.'),
  stripe_secret_key: 'sk' + '_live_' + filler(24),
  huggingface_token: 'h' + 'f_' + filler(34),
  private_key: [
    '-----BEGIN RSA PRIVATE KEY-----',
    ...Array.from({ length: 4 }, (_, row) => filler(64, `MIIEow${row}ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/`)),
    '-----END RSA PRIVATE KEY-----',
  ].join('\n'),
  jwt: ['ey' + 'JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', 'ey' + 'JzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ', filler(43)].join('.'),
};

/** An AWS secret access key: 40 characters of base64, recognised only when named as one. */
export const fakeAwsSecret = filler(40, 'wJalrXUtnFEMI/K7MDENG+bPxRfiCY');

/** A bearer token of no known provider. */
export const fakeBearer = filler(40, 'abcdefghijklmnopqrstuvwxyz0123456789._-');

/** A canonical trace with a credential of every kind, on every kind of line ingest reads differently. */
export interface SecretTrace {
  text: string;
  /** Every credential in it, as written in the file (JSON-escaped where it is inside a string). */
  written: string[];
  /** The line of the one that is on a line that is not JSON. */
  parseErrorLine: number;
}

export function secretTrace(): SecretTrace {
  const s = fakeSecrets;
  const run = 'leaky-run';
  const escaped = (value: string): string => JSON.stringify(value).slice(1, -1);
  const lines: string[] = [
    JSON.stringify({
      type: 'run_start',
      run_id: run,
      ts: '2025-06-04T09:00:00.000Z',
      config: { provider: 'anthropic', api_key: s.anthropic_api_key },
      task: 'Deploy the fix',
    }),
    JSON.stringify({
      type: 'model_request',
      run_id: run,
      step: 1,
      messages: [{ role: 'user', content: `Use ${s.openai_api_key} and this key:\n${s.private_key}` }],
    }),
    JSON.stringify({
      type: 'model_response',
      run_id: run,
      step: 1,
      outcome: 'tool_calls',
      finish_reason: 'tool_calls',
      text: `Calling the maps API with ${s.google_api_key}`,
      tool_calls: [{ call_id: 'call_1', name: 'http_get', arguments: JSON.stringify({ url: 'https://api.example.com', token: s.github_token }) }],
    }),
    JSON.stringify({
      type: 'tool_call_start',
      run_id: run,
      step: 1,
      call_id: 'call_1',
      name: 'http_get',
      arguments: { slack: s.slack_token, mail: s.sendgrid_api_key },
    }),
    JSON.stringify({
      type: 'tool_result',
      run_id: run,
      step: 1,
      call_id: 'call_1',
      name: 'http_get',
      status: 'ok',
      output: { env: { AWS_ACCESS_KEY_ID: s.aws_access_key_id, aws_secret_access_key: fakeAwsSecret }, headers: { Authorization: `Bearer ${fakeBearer}` } },
    }),
    `oops, a crash dump: STRIPE=${s.stripe_secret_key} (not JSON)`,
    // Over 8 KB: read from its top level only (topLevelScan), its output previewed from its bytes.
    JSON.stringify({
      type: 'tool_result',
      run_id: run,
      step: 1,
      call_id: 'call_2',
      name: 'read_file',
      status: 'ok',
      output: `HF_TOKEN=${s.huggingface_token}\n${'log line\n'.repeat(1200)}session=${s.jwt}`,
    }),
    JSON.stringify({ type: 'model_response', run_id: run, step: 2, outcome: 'final', finish_reason: 'stop', text: `Posted to ${s.slack_webhook_url}` }),
    JSON.stringify({ type: 'run_end', run_id: run, status: 'MODEL_FINISHED', output: `Done; used ${s.stripe_secret_key}` }),
  ];
  const written = [
    s.anthropic_api_key,
    s.openai_api_key,
    escaped(s.private_key),
    s.google_api_key,
    s.github_token,
    s.slack_token,
    s.sendgrid_api_key,
    s.aws_access_key_id,
    fakeAwsSecret,
    fakeBearer,
    s.stripe_secret_key,
    s.huggingface_token,
    s.jwt,
    s.slack_webhook_url,
    s.stripe_secret_key,
  ];
  return { text: `${lines.join('\n')}\n`, written, parseErrorLine: 6 };
}

/** The pieces of a credential a leak would show: the whole of it, and a stretch from its middle. */
function leakedPieces(value: string): string[] {
  return [value, value.slice(value.length / 2, value.length / 2 + 10)];
}

/** Fails when `text` (output, a file's bytes) holds any of `secrets`, whole or in part. */
export function assertHoldsNone(what: string, text: string | Buffer, secrets: readonly string[]): void {
  for (const secret of secrets) {
    for (const piece of leakedPieces(secret)) assert.ok(!text.includes(piece), `${what} holds ${piece.slice(0, 12)}…`);
  }
}
