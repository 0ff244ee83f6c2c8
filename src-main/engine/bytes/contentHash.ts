/** Identity, not security: a one-shot SHA-1, the cheapest strong-enough hash Node offers, cut to 64 bits. */
import { hash } from 'node:crypto';

export function contentHash(data: string | Buffer): string {
  return hash('sha1', data, 'hex').slice(0, 16);
}

/** Summaries keep this many characters of a value (a preview, not the content). */
export const SUMMARY_CHARS = 200;
