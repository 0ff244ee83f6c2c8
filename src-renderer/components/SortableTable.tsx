/**
 * A small table sorted in the page (a chart's numbers, a tool list): every column header is a
 * button, the order is said by `aria-sort`, and a second click reverses it. For tables the server
 * sorts and pages (runs, calls), see SortableHeaderCell.
 */
import { useState, type ReactNode } from 'react';

export interface SortableColumn<T> {
  id: string;
  header: string;
  /** What the column sorts by; null sorts last either way. */
  sortValue: (row: T) => number | string | null;
  cell: (row: T) => ReactNode;
  numeric?: boolean;
}

function compare(a: number | string | null, b: number | string | null): number {
  if (a === null || b === null) return a === null ? (b === null ? 0 : 1) : -1;
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
}

export function SortableTable<T>(props: {
  rows: readonly T[];
  columns: readonly SortableColumn<T>[];
  rowKey: (row: T) => string;
  caption: string;
  testId: string;
  /** The order the rows come in is this column's, descending (counts: the largest first). */
  initialSort?: { id: string; descending: boolean };
  onRowClick?: (row: T) => void;
}) {
  const { rows, columns, rowKey, caption, testId, initialSort, onRowClick } = props;
  const [sort, setSort] = useState<{ id: string; descending: boolean } | null>(initialSort ?? null);
  const column = columns.find((candidate) => candidate.id === sort?.id);
  const sorted =
    column === undefined || sort === null
      ? rows
      : rows.toSorted((a, b) => {
          const order = compare(column.sortValue(a), column.sortValue(b));
          // Nulls stay last whichever way the column is sorted.
          const aNull = column.sortValue(a) === null;
          const bNull = column.sortValue(b) === null;
          if (aNull || bNull) return order;
          return sort.descending ? -order : order;
        });
  return (
    <table className="sortable-table" data-testid={testId}>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {columns.map((one) => {
            const active = sort?.id === one.id;
            return (
              <th
                key={one.id}
                scope="col"
                className={one.numeric ? 'numeric' : undefined}
                aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'}
              >
                <button
                  type="button"
                  className="sort-button"
                  data-testid={`${testId}-sort-${one.id}`}
                  onClick={() => setSort(active ? { id: one.id, descending: !sort.descending } : { id: one.id, descending: one.numeric === true })}
                >
                  {one.header}
                  <span className="sort-indicator">{active ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
                </button>
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {sorted.map((row) => (
          <tr key={rowKey(row)} className={onRowClick ? 'clickable-row' : undefined} onClick={onRowClick ? () => onRowClick(row) : undefined}>
            {columns.map((one) => (
              <td key={one.id} className={one.numeric ? 'numeric' : undefined}>
                {one.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
