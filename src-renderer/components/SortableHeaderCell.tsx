/**
 * The header cell of a sortable grid (runs, calls): a button that asks the table to sort by its
 * column, with an arrow only while the rows are sorted by it. The sorting itself is the server's;
 * this cell only reports the column's state (`aria-sort`) and the click.
 */
import type { ReactNode } from 'react';

/** What the cell reads of a table column (TanStack's row-sorting feature). */
interface SortableColumn {
  getIsSorted(): false | 'asc' | 'desc';
  getToggleSortingHandler(): ((event: unknown) => void) | undefined;
}

export function SortableHeaderCell(props: {
  column: SortableColumn;
  /** The column's class in the grid. */
  className: string;
  /** False for a column the server cannot sort by: its header is plain text. */
  sortable: boolean;
  testId: string;
  /** The button's tooltip. */
  title?: string;
  /** The header's label. */
  children: ReactNode;
}) {
  const { column, className, sortable, testId, title, children } = props;
  const sorted = column.getIsSorted();
  return (
    <div
      role="columnheader"
      className={`grid-cell ${className}`}
      // Only on a column that sorts: `none` there says it could, absent says it cannot (the same to the accessibility tree).
      aria-sort={sortable ? (sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none') : undefined}
    >
      {sortable ? (
        <button type="button" className="sort-button" onClick={column.getToggleSortingHandler()} data-testid={testId} title={title}>
          {children}
          <span className="sort-indicator">{sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}</span>
        </button>
      ) : (
        children
      )}
    </div>
  );
}
