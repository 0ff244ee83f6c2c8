/** Identity, not security: a one-shot SHA-1, the cheapest strong-enough hash Node offers, cut to 64 bits. */
import { hash } from 'node:crypto';

export function contentHash(data: string | Buffer): string {
  return hash('sha1', data, 'hex').slice(0, 16);
}

/** The same 64 bits as `contentHash`, as two 32-bit halves: for mixing into a number, without a hex string on the way. */
export function contentHashHalves(data: string | Buffer): Int32Array {
  const digest = hash('sha1', data, 'buffer');
  return Int32Array.of(digest.readInt32BE(0), digest.readInt32BE(4));
}

/** Summaries keep this many characters of a value (a preview, not the content). */
export const SUMMARY_CHARS = 200;
