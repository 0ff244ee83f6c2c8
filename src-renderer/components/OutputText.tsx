/**
 * Text as a tool printed it: monospace, with line numbers, the search's matches marked, and long
 * text cut to its head with "show all" — the gutter and the text are one text node each (plus the
 * marks), so even the whole of a 2 MB output is two nodes, not a node per line.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { matchRanges, type Phrase } from '../../shared/searchMatches';
import { formatCount } from './format';
import { Highlighted } from './Highlighted';

/** What is shown before "show all": enough to read, little enough to lay out at once. */
const headLines = 2000;
const headChars = 200_000;

/** Where the head ends: after `headLines` lines or `headChars` characters, whichever comes first. */
function headEnd(text: string): number {
  let end = 0;
  for (let line = 0; line < headLines; line += 1) {
    const next = text.indexOf('\n', end);
    if (next === -1 || next + 1 > headChars) return Math.min(text.length, headChars);
    end = next + 1;
  }
  return Math.min(end, headChars);
}

function lineCount(text: string): number {
  let count = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < text.length - 1; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}

export function OutputText({ text, phrases, testId, label }: { text: string; phrases: readonly Phrase[]; testId: string; label: string }) {
  const [showAll, setShowAll] = useState(false);
  const end = showAll ? text.length : headEnd(text);
  const shown = text.slice(0, end);
  const ranges = useMemo(() => matchRanges(shown, phrases), [shown, phrases]);
  const gutter = useMemo(() => Array.from({ length: lineCount(shown) }, (_, index) => index + 1).join('\n'), [shown]);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Its first match in view inside the box, without moving the page: which match the page shows is the inspector's choice.
    const container = box.current;
    const mark = container?.querySelector('mark');
    if (!container || !mark) return;
    container.scrollTop = Math.max(0, mark.offsetTop - container.clientHeight / 3);
    container.scrollLeft = Math.max(0, mark.offsetLeft - container.clientWidth / 3);
  }, [ranges]);
  if (text === '') return <p className="muted">(empty)</p>;
  return (
    <>
      <div className="output-text" ref={box} data-testid={testId} data-matches={ranges.length} role="region" aria-label={label} tabIndex={0}>
        <pre className="output-gutter" aria-hidden="true">
          {gutter}
        </pre>
        <pre className="output-body">
          <Highlighted text={shown} ranges={ranges} plainNewlines />
        </pre>
      </div>
      {end < text.length && (
        <p className="muted">
          Showing {formatCount(lineCount(shown))} of {formatCount(lineCount(text))} lines ({formatCount(end)} of {formatCount(text.length)} characters).{' '}
          <button type="button" className="link-button" onClick={() => setShowAll(true)} data-testid="output-show-all">
            show all
          </button>
        </p>
      )}
    </>
  );
}
