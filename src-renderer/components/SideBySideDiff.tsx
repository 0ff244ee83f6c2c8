/**
 * Two columns of numbered lines (diff/sideBySide.ts): removed and changed lines on the left,
 * added and changed lines on the right, the changed words marked inside a changed line, unchanged
 * stretches folded behind a button. Trace text is rendered as text nodes only.
 */
import { useState } from 'react';
import type { LineSegment, SideLine, SideRow } from '../diff/sideBySide';
import { formatCount } from './format';
import { VisibleText } from './VisibleText';
import '../styles/diff.css';

/** Rows drawn at first; the rest on demand (a 20k-line file stays responsive). */
const firstRows = 1500;

export function SideBySideDiff({ rows, json }: { rows: readonly SideRow[]; json: boolean }) {
  const [limit, setLimit] = useState(firstRows);
  const shown = rows.slice(0, limit);
  return (
    <div className="sbs-diff" data-testid="side-by-side">
      {json && <div className="sbs-note muted">JSON on both sides, pretty-printed.</div>}
      <div className="sbs-grid" role="table" aria-label="Before and after, line by line">
        <div className="sbs-row sbs-head" role="row">
          <span role="columnheader" className="sbs-number" />
          <span role="columnheader" className="sbs-text muted">
            Before
          </span>
          <span role="columnheader" className="sbs-number" />
          <span role="columnheader" className="sbs-text muted">
            After
          </span>
        </div>
        {shown.map((row, index) => (row.kind === 'fold' ? <Fold key={index} rows={row.rows} /> : <Row key={index} row={row} />))}
      </div>
      {rows.length > limit && (
        <button type="button" className="link-button" onClick={() => setLimit((current) => current + 5000)}>
          Show more lines ({formatCount(rows.length - limit)} not shown yet)
        </button>
      )}
    </div>
  );
}

function Fold({ rows }: { rows: readonly SideRow[] }) {
  const [open, setOpen] = useState(false);
  if (open) return rows.map((row, index) => (row.kind === 'fold' ? null : <Row key={index} row={row} />));
  return (
    <div className="sbs-row sbs-fold-row" role="row">
      <span role="cell" className="sbs-fold-cell">
        <button type="button" className="diff-fold" onClick={() => setOpen(true)} data-testid="sbs-fold" title="Show the unchanged lines">
          ⋯ {formatCount(rows.length)} unchanged line{rows.length === 1 ? '' : 's'} ⋯
        </button>
      </span>
    </div>
  );
}

function Row({ row }: { row: Exclude<SideRow, { kind: 'fold' }> }) {
  return (
    <div className={`sbs-row sbs-${row.kind}`} role="row" data-testid="sbs-row" data-kind={row.kind}>
      <Cells line={row.left} side="left" />
      <Cells line={row.right} side="right" />
    </div>
  );
}

function Cells({ line, side }: { line: SideLine | null; side: 'left' | 'right' }) {
  if (line === null) {
    return (
      <>
        <span role="cell" className={`sbs-number sbs-empty sbs-${side}`} />
        <span role="cell" className={`sbs-text sbs-empty sbs-${side}`} />
      </>
    );
  }
  return (
    <>
      <span role="cell" className={`sbs-number sbs-${side}`}>
        {line.number}
      </span>
      <span role="cell" className={`sbs-text sbs-${side}`} data-testid={`sbs-${side}`}>
        {line.segments.map((segment, index) => (
          <Segment key={index} segment={segment} side={side} />
        ))}
      </span>
    </>
  );
}

function Segment({ segment, side }: { segment: LineSegment; side: 'left' | 'right' }) {
  if (!segment.changed) return <VisibleText text={segment.text} />;
  return side === 'left' ? (
    <del className="diff-del">
      <VisibleText text={segment.text} />
    </del>
  ) : (
    <ins className="diff-ins">
      <VisibleText text={segment.text} />
    </ins>
  );
}
