/**
 * Markdown read as text structure — headings, paragraphs, lists, quotes, code blocks, and inside
 * them code spans and bold — for the inspector's rendered view of an output. Only structure is
 * recognised: no links, images or HTML, so nothing the trace says becomes a link or markup.
 */

export type InlinePart = { kind: 'text' | 'code' | 'strong'; text: string };

export type MarkdownBlock =
  | { kind: 'heading'; level: number; parts: InlinePart[] }
  | { kind: 'paragraph'; parts: InlinePart[] }
  | { kind: 'list'; ordered: boolean; items: InlinePart[][] }
  | { kind: 'quote'; parts: InlinePart[] }
  | { kind: 'code'; language: string; text: string }
  | { kind: 'rule' };

/** Code spans and bold; everything else is text as written. */
export function inlineParts(text: string): InlinePart[] {
  const parts: InlinePart[] = [];
  const pattern = /`([^`\n]+)`|\*\*([^*\n]+)\*\*/g;
  let position = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > position) parts.push({ kind: 'text', text: text.slice(position, match.index) });
    parts.push(match[1] !== undefined ? { kind: 'code', text: match[1] } : { kind: 'strong', text: match[2] ?? '' });
    position = match.index + match[0].length;
  }
  if (position < text.length) parts.push({ kind: 'text', text: text.slice(position) });
  return parts;
}

const listItem = /^\s{0,3}([-*+]|\d+[.)])\s+(.*)$/;

export function markdownBlocks(text: string): MarkdownBlock[] {
  const lines = text.split('\n');
  const blocks: MarkdownBlock[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ kind: 'paragraph', parts: inlineParts(paragraph.join('\n')) });
    paragraph = [];
  };
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const fence = /^\s{0,3}(```+|~~~+)\s*(\S*)/.exec(line);
    if (fence !== null) {
      flush();
      const closing = fence[1] ?? '```';
      const body: string[] = [];
      index += 1;
      // An unclosed fence runs to the end, as markdown reads it.
      while (index < lines.length && !(lines[index] ?? '').trimStart().startsWith(closing)) body.push(lines[index++] ?? '');
      blocks.push({ kind: 'code', language: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading !== null) {
      flush();
      blocks.push({ kind: 'heading', level: heading[1]?.length ?? 1, parts: inlineParts(heading[2] ?? '') });
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      blocks.push({ kind: 'rule' });
      continue;
    }
    const item = listItem.exec(line);
    if (item !== null) {
      flush();
      const ordered = /\d/.test(item[1] ?? '');
      const previous = blocks.at(-1);
      const items =
        previous?.kind === 'list' && previous.ordered === ordered && lines[index - 1] !== undefined && listItem.test(lines[index - 1] ?? '')
          ? previous.items
          : null;
      if (items !== null) items.push(inlineParts(item[2] ?? ''));
      else blocks.push({ kind: 'list', ordered, items: [inlineParts(item[2] ?? '')] });
      continue;
    }
    const quote = /^\s{0,3}>\s?(.*)$/.exec(line);
    if (quote !== null) {
      flush();
      blocks.push({ kind: 'quote', parts: inlineParts(quote[1] ?? '') });
      continue;
    }
    if (line.trim() === '') flush();
    else paragraph.push(line);
  }
  flush();
  return blocks;
}
