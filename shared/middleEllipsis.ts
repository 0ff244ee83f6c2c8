/**
 * Where to cut a long value so that what tells rows apart stays visible. A file path's end (its
 * file name) and an id's tail are what differ between rows (`…/subagents/agent-a1.jsonl`,
 * `…-sidechain-7f3e`); cutting at the end, as CSS does, leaves only the prefix they share. The
 * value is split into a head, which gives way (CSS ellipsis) when the cell is narrow, and a tail
 * that is always shown; a path's directory gives way before its file name. Counted in code points, so a surrogate pair or an emoji is never split.
 */

export interface EllipsisParts {
  head: string;
  tail: string;
}

/** How long an id's last segment (after `/`, `:` or `#`) may be to be kept whole: a sub-agent's `…/sidechain-3`, a span's `…:tool-7`. */
const maxSegmentChars = 24;

/** An id: its last segment when the id has one and it is short, else its last `tailChars` characters. */
export function idParts(id: string, tailChars = 10): EllipsisParts {
  const separator = Math.max(id.lastIndexOf('/'), id.lastIndexOf(':'), id.lastIndexOf('#'));
  if (separator > 0 && Array.from(id.slice(separator)).length <= maxSegmentChars) return { head: id.slice(0, separator), tail: id.slice(separator) };
  const chars = Array.from(id);
  const cut = Math.max(0, chars.length - Math.max(0, tailChars));
  return { head: chars.slice(0, cut).join(''), tail: chars.slice(cut).join('') };
}

/**
 * A path: its directory (which gives way first) and its file name (with the separator before it),
 * which a narrow cell then cuts as an id (`idParts`), keeping its end and extension.
 */
export function pathParts(path: string): EllipsisParts {
  const lastSeparator = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return { head: path.slice(0, Math.max(0, lastSeparator)), tail: path.slice(Math.max(0, lastSeparator)) };
}
