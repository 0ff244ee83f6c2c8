/** What both HTTP listeners on 127.0.0.1 (the UI's server and the OTLP receiver) read of a request the same way. */
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';

/**
 * The request body, or null when it is larger than `limit` bytes (by its Content-Length, or as it
 * arrives). A body too large is still read to its end (and dropped): a reply sent while the client
 * is still sending would be lost to the connection reset that closing an unread socket causes.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolveBody, rejectBody) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(request.headers['content-length'] ?? 0) > limit;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      tooLarge ||= size > limit;
      if (!tooLarge) chunks.push(chunk);
    });
    request.on('end', () => resolveBody(tooLarge ? null : Buffer.concat(chunks)));
    request.on('error', rejectBody);
  });
}

/** A secret compared in constant time, so the time an answer takes tells nothing of it. */
export function secretMatches(candidate: string, secret: string): boolean {
  const given = Buffer.from(candidate);
  const expected = Buffer.from(secret);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
