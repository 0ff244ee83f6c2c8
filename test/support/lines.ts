/** A file's lines as the line splitter frames them: split at LF, a CR before it kept, a last line without LF counted. */
export function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, newline));
    start = newline + 1;
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines;
}
