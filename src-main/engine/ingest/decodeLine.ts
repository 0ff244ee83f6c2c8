/**
 * Turns one line's bytes into a JSON value, or into the reason it is not one. Decoding is strict
 * about what it reports (invalid UTF-8 is replaced *and* reported) and lenient about what it
 * accepts (a BOM, a trailing CR), because the user needs both the data and the truth about it.
 */
import { isUtf8 } from 'node:buffer';

export type DecodedLine =
  | { kind: 'blank' }
  | { kind: 'json'; value: unknown; text: string; invalidUtf8: boolean }
  | { kind: 'invalid'; reason: string; text: string; invalidUtf8: boolean };

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const EXCERPT_CHARS = 160;

export function stripUtf8Bom(bytes: Buffer): Buffer {
  return bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes;
}

function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}

export function decodeLine(bytes: Buffer): DecodedLine {
  if (isBlank(bytes)) return { kind: 'blank' };
  const invalidUtf8 = !isUtf8(bytes);
  const text = bytes.toString('utf8');
  try {
    return { kind: 'json', value: JSON.parse(text), text, invalidUtf8 };
  } catch (error) {
    return { kind: 'invalid', reason: `not valid JSON: ${(error as Error).message}`, text, invalidUtf8 };
  }
}

/** A short, single-line excerpt for diagnostics; control characters are made visible. */
export function excerptOf(text: string): string {
  const cut = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
  // eslint-disable-next-line no-control-regex -- making control characters visible is the point
  return cut.replace(/[\u0000-\u001f\u007f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
