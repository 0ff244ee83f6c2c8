/**
 * A virtualized list over `usePagedRows`: only the rows on screen are in the DOM, and only the
 * pages around them are fetched. Rows not loaded yet show a placeholder of the same height.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, type ReactNode } from 'react';
import type { PagedRows } from '../api/usePagedRows';

export interface PagedListProps<T> {
  rows: PagedRows<T>;
  estimateSize: number;
  renderRow: (row: T, index: number) => ReactNode;
  /** Stable identity of a row, for measurements that follow the row, not its slot. */
  rowKey: (row: T, index: number) => string | number;
  className?: string;
  testId: string;
  label: string;
}

export function PagedList<T>({ rows, estimateSize, renderRow, rowKey, className, testId, label }: PagedListProps<T>) {
  const scrollElement = useRef<HTMLDivElement>(null);
  const count = rows.total ?? 0;
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollElement.current,
    estimateSize: () => estimateSize,
    overscan: 8,
    getItemKey: (index) => {
      const row = rows.rowAt(index);
      return row === undefined ? `slot-${index}` : rowKey(row, index);
    },
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  const { want } = rows;
  useEffect(() => {
    if (count > 0) want(first, last);
  }, [want, first, last, count]);

  return (
    <div ref={scrollElement} className={`paged-list ${className ?? ''}`} data-testid={testId} role="list" aria-label={label}>
      <div className="paged-list-inner" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const row = rows.rowAt(item.index);
          return (
            <div
              key={item.key}
              ref={virtualizer.measureElement}
              data-index={item.index}
              className="paged-list-item"
              role="listitem"
              style={{ transform: `translateY(${item.start}px)` }}
            >
              {row === undefined ? <div className="row-placeholder" aria-busy="true" /> : renderRow(row, item.index)}
            </div>
          );
        })}
      </div>
    </div>
  );
}
