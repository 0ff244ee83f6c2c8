/**
 * The start page's filters and order as its URL says them (`#/?status=failed&sort=cost&desc=1`):
 * what is not understood is left out, so a hand-edited link still opens.
 */
import { libraryFilterSchema, librarySortSchema, type LibraryFilter, type LibrarySort } from '../../shared/library/libraryApi';
import type { RouteParams } from '../navigation/route';

/** URL parameter of each filter field. */
export const filterParams = {
  status: 'status',
  findingKind: 'kind',
  format: 'format',
  model: 'model',
  directory: 'dir',
  from: 'from',
  to: 'to',
  text: 'text',
  signature: 'sig',
} as const satisfies Record<keyof LibraryFilter, string>;

export function parseLibraryFilter(params: RouteParams): LibraryFilter {
  const filter: Record<string, string> = {};
  const shape = libraryFilterSchema.shape;
  for (const [field, param] of Object.entries(filterParams) as [keyof LibraryFilter, string][]) {
    const value = params[param];
    if (value === undefined || value === '') continue;
    if (shape[field].safeParse(value).success) filter[field] = value;
  }
  return filter as LibraryFilter;
}

export interface LibraryOrder {
  sort: LibrarySort;
  descending: boolean;
}

/** Newest first unless the URL says otherwise. */
export function parseLibraryOrder(params: RouteParams): LibraryOrder {
  const sort = librarySortSchema.safeParse(params.sort);
  return sort.success ? { sort: sort.data, descending: params.desc === '1' } : { sort: 'started', descending: true };
}

export function isFiltered(filter: LibraryFilter): boolean {
  return Object.values(filter).some((value) => value !== undefined);
}
