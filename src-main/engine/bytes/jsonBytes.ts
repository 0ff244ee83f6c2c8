/** The bytes of JSON's structure, for the scanners that read JSON without parsing it (jsonStreamSplitter, topLevelScan). */
export const NEWLINE = 0x0a;
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

/** JSON's insignificant whitespace: space, tab, line feed, carriage return. */
export function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}
