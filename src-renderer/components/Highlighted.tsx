/** Text with ranges marked: text nodes and `<mark>` elements, never markup from the trace. */
import type { ReactNode } from 'react';
import { VisibleText } from './VisibleText';

/** `text` with the [start, end) `ranges` marked; newlines shown as VisibleText's options say. */
export function Highlighted({
  text,
  ranges,
  plainNewlines = false,
  keepNewlines = false,
}: {
  text: string;
  ranges: readonly (readonly [number, number])[];
  plainNewlines?: boolean;
  keepNewlines?: boolean;
}) {
  const parts: ReactNode[] = [];
  let position = 0;
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const from = Math.max(start, position);
    const to = Math.min(end, text.length);
    if (to <= from) continue;
    if (from > position)
      parts.push(<VisibleText key={`t${position}`} text={text.slice(position, from)} plainNewlines={plainNewlines} keepNewlines={keepNewlines} />);
    parts.push(
      <mark key={`m${from}`} className="search-match">
        <VisibleText text={text.slice(from, to)} plainNewlines={plainNewlines} keepNewlines={keepNewlines} />
      </mark>,
    );
    position = to;
  }
  if (position < text.length)
    parts.push(<VisibleText key={`t${position}`} text={text.slice(position)} plainNewlines={plainNewlines} keepNewlines={keepNewlines} />);
  return <>{parts}</>;
}
