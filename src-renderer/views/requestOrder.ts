/**
 * The requests table's order (the URL's `/sort/<column>-<asc|desc>`, route.ts): by request number,
 * by the tokens the request added (Δ), or by its input tokens. A request without a count (no
 * usage recorded, no estimate) sorts last either way; ties keep the run's order.
 */
import type { RequestSort } from '../navigation/route';

export interface SortableRequest {
  index: number;
  inputTokens: number | null;
}

export function sortRequests<T extends SortableRequest>(requests: readonly T[], sort: RequestSort | null, deltaOf: (request: T) => number | null): T[] {
  if (sort === null) return [...requests].sort((a, b) => a.index - b.index);
  const value = (request: T): number | null => (sort.column === 'index' ? request.index : sort.column === 'delta' ? deltaOf(request) : request.inputTokens);
  const sign = sort.descending ? -1 : 1;
  return [...requests].sort((a, b) => {
    const [x, y] = [value(a), value(b)];
    if (x === null || y === null) return x === y ? a.index - b.index : x === null ? 1 : -1;
    return sign * (x - y) || a.index - b.index;
  });
}

/**
 * The order after a click on `column`'s header: a column not sorted yet starts largest first
 * (Δ and input: the biggest is what one looks for) or in request order (#); a sorted one flips.
 */
export function nextRequestSort(current: RequestSort | null, column: RequestSort['column']): RequestSort | null {
  const active = current ?? { column: 'index', descending: false };
  if (active.column === column) {
    const flipped = { column, descending: !active.descending };
    // Request order ascending is the default: the URL carries no sort for it.
    return column === 'index' && !flipped.descending ? null : flipped;
  }
  return column === 'index' ? null : { column, descending: true };
}
