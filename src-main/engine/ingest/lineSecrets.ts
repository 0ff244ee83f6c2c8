/**
 * Credentials in a line's bytes (shared/secrets/secretScanner.ts): found on the bytes read as
 * latin1, one character a byte, so a span's offsets are byte offsets in the line; credentials are
 * ASCII, and a multi-byte character is never mistaken for part of one.
 */
import { findSecrets, type SecretSpan } from '../../../shared/secrets/secretScanner';

export function findLineSecrets(bytes: Buffer): SecretSpan[] {
  return findSecrets(bytes.toString('latin1'));
}

/** A span's value: ASCII, as every credential is. */
export function secretValue(bytes: Buffer, span: SecretSpan): string {
  return bytes.toString('latin1', span.start, span.end);
}

/** The bytes with each span replaced by the text at its index (UTF-8); every other byte as it was. */
export function replaceLineSecrets(bytes: Buffer, spans: readonly SecretSpan[], replacements: readonly string[]): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  spans.forEach((span, index) => {
    parts.push(bytes.subarray(at, span.start), Buffer.from(replacements[index] ?? '', 'utf8'));
    at = span.end;
  });
  parts.push(bytes.subarray(at));
  return Buffer.concat(parts);
}
