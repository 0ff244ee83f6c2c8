/**
 * A span's header row in the timeline (shared/trace/spanTree.ts): a chevron that collapses or
 * expands the span, its name and type, how many rows it holds and how long it lasted. The events
 * inside it are indented by their depth (`spanIndent`). Collapsed spans are kept in the URL
 * (`?collapsed=<begin event ids>`), so a link reopens the same tree.
 */
import type { CSSProperties, MouseEvent } from 'react';
import type { EventRow } from '../../shared/api';
import { formatCount, formatDuration } from '../components/format';
import { VisibleText, visibleText } from '../components/VisibleText';
import '../styles/span-tree.css';

type Span = NonNullable<EventRow['span']>;

/** The collapsed spans with `spanEventId` collapsed or expanded: ascending, as the route keeps them. */
export function toggledSpans(collapsed: readonly number[], spanEventId: number): number[] {
  return collapsed.includes(spanEventId) ? collapsed.filter((id) => id !== spanEventId) : [...collapsed, spanEventId].toSorted((a, b) => a - b);
}

/** The indentation of a row `depth` spans deep (a number computed here, never trace text). */
export function spanIndent(depth: number): CSSProperties | undefined {
  return depth === 0 ? undefined : ({ '--span-depth': Math.min(depth, 12) } as CSSProperties);
}

export function SpanHeader({ span, depth, onToggle }: { span: Span; depth: number; onToggle: () => void }) {
  const label = span.name ?? span.type ?? 'span';
  const rows = `${formatCount(span.events)} ${span.events === 1 ? 'event' : 'events'}`;
  return (
    <div className="span-header" style={spanIndent(depth)} data-testid="span-header" data-collapsed={span.collapsed} data-events={span.events}>
      {span.events === 0 ? (
        // Nothing inside to fold: no control that does nothing.
        <span className="span-toggle span-toggle-empty" aria-hidden="true" />
      ) : (
        <button
          type="button"
          className="span-toggle"
          aria-expanded={!span.collapsed}
          aria-label={`${span.collapsed ? 'Expand' : 'Collapse'} span ${visibleText(label)} (${rows})`}
          title={span.collapsed ? `Show the ${rows} inside this span` : `Hide the ${rows} inside this span`}
          data-testid="span-toggle"
          onClick={(event: MouseEvent) => {
            // The row selects its event on click; the chevron only folds.
            event.stopPropagation();
            onToggle();
          }}
        >
          {span.collapsed ? '▸' : '▾'}
        </button>
      )}
      <span className="span-name" data-testid="span-name" title={visibleText(label)}>
        <VisibleText text={label} />
      </span>
      {span.type !== null && span.type !== span.name && (
        <span className="span-type muted">
          <VisibleText text={span.type} />
        </span>
      )}
      <span className="span-count muted" data-testid="span-count">
        {rows}
      </span>
      {span.durationMs !== null && <span className="span-duration muted">{formatDuration(span.durationMs)}</span>}
    </div>
  );
}
