/**
 * A virtualized list over `usePagedRows`: only the rows on screen are in the DOM, and only the
 * pages around them are fetched. Rows not loaded yet show a placeholder of the same height.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import type { PagedRows } from '../api/usePagedRows';
import { useWindowedVirtualizer } from './useWindowedVirtualizer';

export interface PagedListProps<T> {
  rows: PagedRows<T>;
  estimateSize: number;
  renderRow: (row: T, index: number) => ReactNode;
  className?: string;
  testId: string;
  label: string;
}

export function PagedList<T>({ rows, estimateSize, renderRow, className, testId, label }: PagedListProps<T>) {
  const scrollElement = useRef<HTMLDivElement>(null);
  const count = rows.total ?? 0;
  const { virtualizer, start } = useWindowedVirtualizer({
    count,
    getScrollElement: () => scrollElement.current,
    estimateSize,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const first = start + (items[0]?.index ?? 0);
  const last = start + (items[items.length - 1]?.index ?? 0);
  const { want } = rows;
  useEffect(() => {
    if (count > 0) want(first, last);
  }, [want, first, last, count]);

  return (
    <div ref={scrollElement} className={`paged-list ${className ?? ''}`} data-testid={testId} role="list" aria-label={label}>
      <div className="paged-list-inner" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const index = start + item.index;
          const row = rows.rowAt(index);
          return (
            <div
              key={item.key}
              ref={virtualizer.measureElement}
              data-index={item.index}
              className="paged-list-item"
              role="listitem"
              style={{ transform: `translateY(${item.start}px)` }}
            >
              {row === undefined ? <div className="row-placeholder" aria-busy="true" /> : renderRow(row, index)}
            </div>
          );
        })}
      </div>
    </div>
  );
}
