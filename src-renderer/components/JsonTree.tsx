/**
 * A collapsible JSON tree of an event's original record. Everything is a text node; long strings
 * and long arrays/objects show their head with a "show all" button, so a 1 MiB tool output does
 * not become a 1 MiB DOM on selection.
 */
import { createContext, memo, useContext, useMemo, useState } from 'react';
import { formatCount } from './format';
import { Highlighted } from './Highlighted';
import { VisibleText } from './VisibleText';
import { matchRanges, type Phrase } from '../../shared/searchMatches';
import type { RawJson } from '../../shared/trace/exactIntegers';

/** The search's words to mark in string values (none: nothing marked). */
const HighlightContext = createContext<readonly Phrase[]>([]);

/** Strings looked into to decide whether a collapsed value holds a match: a bound for huge records. */
const matchSearchBudget = 5000;

/** Whether a string inside `value` matches, so that its node opens to show it. */
function holdsMatch(value: Json, phrases: readonly Phrase[]): boolean {
  let budget = matchSearchBudget;
  const visit = (item: Json): boolean => {
    if (budget-- <= 0) return false;
    if (typeof item === 'string') return matchRanges(item, phrases).length > 0;
    if (item === null || typeof item !== 'object' || JSON.isRawJSON(item)) return false;
    return (Array.isArray(item) ? item : Object.values(item)).some(visit);
  };
  return visit(value);
}

const stringHead = 2000;
const childrenHead = 100;
/** Levels open at first: the record and its fields; deeper values are one click away. */
const openDepth = 2;

/** `RawJson`: an integer beyond 2^53, kept as its digits (see shared/trace/exactIntegers.ts). */
type Json = null | boolean | number | RawJson | string | Json[] | { [key: string]: Json };

function JsonString({ value }: { value: string }) {
  const phrases = useContext(HighlightContext);
  const [showAll, setShowAll] = useState(false);
  const cut = !showAll && value.length > stringHead;
  const shown = cut ? value.slice(0, stringHead) : value;
  const ranges = useMemo(() => matchRanges(shown, phrases), [shown, phrases]);
  return (
    <span className="json-string">
      &quot;
      {ranges.length > 0 ? <Highlighted text={shown} ranges={ranges} keepNewlines /> : <VisibleText text={shown} keepNewlines />}
      {cut && '…'}&quot;
      {cut && (
        <button type="button" className="link-button show-all" onClick={() => setShowAll(true)}>
          show all ({formatCount(value.length)} characters)
        </button>
      )}
    </span>
  );
}

function JsonLeaf({ value }: { value: Json }) {
  if (value === null) return <span className="json-null">null</span>;
  if (typeof value === 'string') return <JsonString value={value} />;
  if (typeof value === 'number') return <span className="json-number">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="json-boolean">{String(value)}</span>;
  if (JSON.isRawJSON(value)) return <span className="json-number">{value.rawJSON}</span>;
  return null;
}

const JsonNode = memo(function JsonNode({ name, value, depth }: { name: string | null; value: Json; depth: number }) {
  const container = value !== null && typeof value === 'object' && !JSON.isRawJSON(value);
  const phrases = useContext(HighlightContext);
  // A value holding a search match opens, so the match is on screen.
  const [open, setOpen] = useState(() => depth < openDepth || (container && phrases.length > 0 && holdsMatch(value, phrases)));
  const [showAll, setShowAll] = useState(false);
  const label =
    name === null ? null : (
      <span className="json-key">
        <VisibleText text={name} />
        {': '}
      </span>
    );
  if (!container) {
    return (
      <div className="json-row">
        {label}
        <JsonLeaf value={value} />
      </div>
    );
  }
  const entries: [string, Json][] = Array.isArray(value) ? value.map((item, index) => [String(index), item]) : Object.entries(value);
  const [openBracket, closeBracket] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  const size = Array.isArray(value) ? `${formatCount(entries.length)} items` : `${formatCount(entries.length)} keys`;
  const shown = showAll ? entries : entries.slice(0, childrenHead);
  return (
    <div className="json-row">
      <button type="button" className="json-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? '▾' : '▸'}
      </button>
      {label}
      {openBracket}
      {!open && (
        <span className="json-summary">
          {' '}
          {size} {closeBracket}
        </span>
      )}
      {open && (
        <>
          <div className="json-children">
            {shown.map(([key, item]) => (
              <JsonNode key={key} name={key} value={item} depth={depth + 1} />
            ))}
            {shown.length < entries.length && (
              <button type="button" className="link-button show-all" onClick={() => setShowAll(true)}>
                show all ({size})
              </button>
            )}
          </div>
          {closeBracket}
        </>
      )}
    </div>
  );
});

export function JsonTree({ value, highlight = [] }: { value: unknown; highlight?: readonly Phrase[] }) {
  return (
    <HighlightContext.Provider value={highlight}>
      <div className="json-tree" data-testid="json-tree">
        <JsonNode name={null} value={value as Json} depth={0} />
      </div>
    </HighlightContext.Provider>
  );
}
