/**
 * A collapsible JSON tree of an event's original record. Everything is a text node; long strings
 * and long arrays/objects show their head with a "show all" button, so a 1 MiB tool output does
 * not become a 1 MiB DOM on selection.
 */
import { memo, useState } from 'react';
import { formatCount } from './format';
import { VisibleText } from './VisibleText';
import type { RawJson } from '../../shared/trace/exactIntegers';

const stringHead = 2000;
const childrenHead = 100;
/** Levels open at first: the record and its fields; deeper values are one click away. */
const openDepth = 2;

/** `RawJson`: an integer beyond 2^53, kept as its digits (see shared/trace/exactIntegers.ts). */
type Json = null | boolean | number | RawJson | string | Json[] | { [key: string]: Json };

function JsonString({ value }: { value: string }) {
  const [showAll, setShowAll] = useState(false);
  const cut = !showAll && value.length > stringHead;
  return (
    <span className="json-string">
      &quot;
      <VisibleText text={cut ? value.slice(0, stringHead) : value} keepNewlines />
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
  const [open, setOpen] = useState(depth < openDepth);
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

export function JsonTree({ value }: { value: unknown }) {
  return (
    <div className="json-tree" data-testid="json-tree">
      <JsonNode name={null} value={value as Json} depth={0} />
    </div>
  );
}
