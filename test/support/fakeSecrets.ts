/**
 * Credentials of every kind the scanner knows, made up and built from pieces at run time, so the
 * repository holds no string a secret scanner would take for a live key. Each has the shape of
 * the real thing (prefix, length, alphabet).
 */
import type { SecretKind } from '../../shared/secrets/secretScanner';

/** `count` characters cycling through `alphabet`: deterministic, mixed case and digits. */
function filler(count: number, alphabet = 'aB3dE5gH7jK9mN1pQ'): string {
  return Array.from({ length: count }, (_, index) => alphabet[(index * 7) % alphabet.length]).join('');
}

export const fakeSecrets: Readonly<Record<Exclude<SecretKind, 'authorization_header' | 'bearer_token' | 'aws_secret_access_key'>, string>> = {
  anthropic_api_key: ['sk', 'ant', 'api03', filler(93)].join('-'),
  openai_api_key: ['sk', 'proj', filler(156)].join('-'),
  google_api_key: 'AI' + 'za' + filler(35),
  aws_access_key_id: 'AK' + 'IA' + filler(16, 'ABCDEFGHJKLMNP234567'),
  github_token: 'gh' + 'p_' + filler(36),
  slack_token: ['xo' + 'xb', '1234567890', '0987654321', filler(24)].join('-'),
  slack_webhook_url: 'https://hooks.' + 'slack.com/services/' + ['T0' + filler(9, 'ABCDEFGH0123456789'), 'B0' + filler(9, 'ABCDEFGH0123456789'), filler(24)].join('/'),
  sendgrid_api_key: ['S' + 'G', filler(22), filler(43)].join('.'),
  stripe_secret_key: 'sk' + '_live_' + filler(24),
  huggingface_token: 'h' + 'f_' + filler(34),
  private_key: ['-----BEGIN RSA PRIVATE KEY-----', ...Array.from({ length: 4 }, (_, row) => filler(64, `MIIEow${row}ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/`)), '-----END RSA PRIVATE KEY-----'].join('\n'),
  jwt: ['ey' + 'JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', 'ey' + 'JzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ', filler(43)].join('.'),
};

/** An AWS secret access key: 40 characters of base64, recognised only when named as one. */
export const fakeAwsSecret = filler(40, 'wJalrXUtnFEMI/K7MDENG+bPxRfiCY');

/** A bearer token of no known provider. */
export const fakeBearer = filler(40, 'abcdefghijklmnopqrstuvwxyz0123456789._-');
