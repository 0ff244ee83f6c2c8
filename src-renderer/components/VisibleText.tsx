/**
 * Trace text as React text nodes, with the characters a terminal or a text field would hide or
 * misdraw made visible: C0/C1 controls and DEL as escapes, bidirectional overrides and isolates
 * (which can reorder what the reader sees) as `\u202E`-style escapes.
 */
import { memo, type ReactNode } from 'react';

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const invisible = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/g;

const namedEscapes: Readonly<Record<string, string>> = { '\t': '\\t', '\r': '\\r', '\n': '\\n', '\0': '\\0' };

function escapeFor(character: string): string {
  return namedEscapes[character] ?? `\\u${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `text` with every invisible character replaced by its escape: for titles and clipboard-free labels. */
export function visibleText(text: string): string {
  return text.replace(invisible, (character) => escapeFor(character));
}

/**
 * `keepNewlines`: a newline shows its escape and still breaks the line (message text stays
 * readable); otherwise it is an escape like the rest (a raw line has none of its own).
 * `plainNewlines`: a newline only breaks the line, without its escape (long text read as text,
 * such as the unchanged parts of a diff); every other invisible character still shows.
 */
export const VisibleText = memo(function VisibleText({
  text,
  keepNewlines = false,
  plainNewlines = false,
}: {
  text: string;
  keepNewlines?: boolean;
  plainNewlines?: boolean;
}) {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(invisible)) {
    const index = match.index;
    if (plainNewlines && match[0] === '\n') continue;
    if (index > last) parts.push(text.slice(last, index));
    parts.push(
      <span key={index} className="escape">
        {escapeFor(match[0])}
      </span>,
    );
    if (keepNewlines && match[0] === '\n') parts.push('\n');
    last = index + match[0].length;
  }
  if (parts.length === 0) return text;
  if (last < text.length) parts.push(text.slice(last));
  return <>{parts}</>;
});
