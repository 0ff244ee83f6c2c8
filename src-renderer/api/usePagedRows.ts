import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useLatest } from '../components/useLatest';
import { errorMessage } from './client';

export interface Page<T> {
  total: number;
  rows: T[];
}

export interface PagedRows<T> {
  /** Rows in the list; null until the first page arrived. */
  total: number | null;
  /** The row at `index` if its page is loaded. */
  rowAt(index: number): T | undefined;
  /** The row at `index`, loading its page if needed (for jumps to rows off screen). */
  load(index: number): Promise<T | undefined>;
  /** Asks for the pages covering [start, end]: what the viewport shows. */
  want(start: number, end: number): void;
  /** Holds a page that came with another answer (a jump's position, read with the rows around it) as if it had been loaded. */
  seed(offset: number, page: Page<T>): void;
  /** Changes whenever a page arrives, and with it this object: whatever reads `rowAt` depends on the object. */
  revision: number;
  /** True when every page held was loaded for the current `refresh`: what is shown is current. */
  fresh: boolean;
  error: string | null;
}

/** Pages kept in memory; the ones farthest from the viewport are dropped first. */
const maxPages = 24;

interface Store<T> {
  identity: string;
  refresh: number;
  pages: Map<number, T[]>;
  /** Pages held from an earlier `refresh`, shown until they are reloaded. */
  stale: Set<number>;
  inFlight: Map<number, Promise<void>>;
  focus: number;
}

/**
 * A long list read page by page around what is on screen: `identity` names the list (trace,
 * filters, sort) and starts over when it changes; `refresh` (a counter) reloads the pages held
 * while keeping them on screen until their new contents arrive, so a table that fills in during
 * an ingest does not flicker.
 */
export function usePagedRows<T>(
  identity: string,
  refresh: number,
  fetchPage: (offset: number, limit: number) => Promise<Page<T>>,
  pageSize: number,
): PagedRows<T> {
  const fetchRef = useLatest(fetchPage);
  const store = useRef<Store<T>>({ identity: '', refresh, pages: new Map(), stale: new Set(), inFlight: new Map(), focus: 0 });
  const [revision, setRevision] = useState(0);
  const [loaded, setLoaded] = useState<{ identity: string; refresh: number; total: number; fresh: boolean } | null>(null);
  const [failure, setFailure] = useState<{ identity: string; message: string } | null>(null);

  const fetchInto = useCallback(
    (pageIndex: number): Promise<void> => {
      const state = store.current;
      const running = state.inFlight.get(pageIndex);
      if (running) return running;
      const requestedFor = state.refresh;
      const settle = (): boolean => {
        if (state.inFlight.get(pageIndex) === promise) state.inFlight.delete(pageIndex);
        return store.current === state && state.refresh === requestedFor;
      };
      const promise: Promise<void> = fetchRef.current(pageIndex * pageSize, pageSize).then(
        (page) => {
          if (!settle()) return;
          state.pages.set(pageIndex, page.rows);
          state.stale.delete(pageIndex);
          evictFarPages(state, state.focus);
          setLoaded({ identity: state.identity, refresh: state.refresh, total: page.total, fresh: state.stale.size === 0 && state.inFlight.size === 0 });
          setFailure(null);
          setRevision((value) => value + 1);
        },
        (error: unknown) => {
          if (settle()) setFailure({ identity: state.identity, message: errorMessage(error) });
        },
      );
      state.inFlight.set(pageIndex, promise);
      return promise;
    },
    [fetchRef, pageSize],
  );

  useEffect(() => {
    const state = store.current;
    if (state.identity !== identity) {
      // A new list: forget everything and read its first page.
      store.current = { identity, refresh, pages: new Map(), stale: new Set(), inFlight: new Map(), focus: 0 };
      void fetchInto(0);
    } else if (state.refresh !== refresh) {
      // Same list, new contents: reload what is held, showing the old rows until then.
      state.refresh = refresh;
      const held = state.pages.size > 0 ? [...state.pages.keys()] : [0];
      for (const pageIndex of held) state.stale.add(pageIndex);
      // A request already running asked for the old contents: ask again.
      state.inFlight.clear();
      for (const pageIndex of held) void fetchInto(pageIndex);
    }
  }, [identity, refresh, fetchInto]);

  const want = useCallback(
    (start: number, end: number) => {
      const state = store.current;
      const first = Math.max(0, Math.floor(start / pageSize));
      const last = Math.max(first, Math.floor(Math.max(start, end) / pageSize));
      state.focus = first;
      for (let pageIndex = first; pageIndex <= last; pageIndex += 1) {
        if (!state.pages.has(pageIndex)) void fetchInto(pageIndex);
      }
    },
    [fetchInto, pageSize],
  );

  const seed = useCallback(
    (offset: number, page: Page<T>) => {
      const state = store.current;
      // Another list's page, or one not on this list's page boundaries, is not one of its pages.
      if (state.identity !== identity || offset % pageSize !== 0) return;
      const pageIndex = offset / pageSize;
      state.pages.set(pageIndex, page.rows);
      state.stale.delete(pageIndex);
      state.focus = pageIndex;
      evictFarPages(state, pageIndex);
      setLoaded({ identity, refresh: state.refresh, total: page.total, fresh: state.stale.size === 0 && state.inFlight.size === 0 });
      setRevision((value) => value + 1);
    },
    [identity, pageSize],
  );

  // Until the effect above has run, the store may still hold the previous list: show none of it.
  const rowAt = useCallback(
    (index: number): T | undefined =>
      store.current.identity === identity ? store.current.pages.get(Math.floor(index / pageSize))?.[index % pageSize] : undefined,
    [identity, pageSize],
  );

  const load = useCallback(
    async (index: number): Promise<T | undefined> => {
      const pageIndex = Math.floor(index / pageSize);
      if (!store.current.pages.has(pageIndex)) await fetchInto(pageIndex);
      return rowAt(index);
    },
    [fetchInto, pageSize, rowAt],
  );

  const current = loaded?.identity === identity ? loaded : null;
  const total = current?.total ?? null;
  const fresh = current !== null && current.refresh === refresh && current.fresh;
  const error = failure?.identity === identity ? failure.message : null;
  return useMemo(() => ({ total, rowAt, load, want, seed, revision, fresh, error }), [total, rowAt, load, want, seed, revision, fresh, error]);
}

function evictFarPages<T>(state: Store<T>, focus: number): void {
  if (state.pages.size <= maxPages) return;
  const byDistance = [...state.pages.keys()].sort((a, b) => Math.abs(b - focus) - Math.abs(a - focus));
  for (const pageIndex of byDistance.slice(0, state.pages.size - maxPages)) {
    state.pages.delete(pageIndex);
    state.stale.delete(pageIndex);
  }
}

/**
 * The rows of a paged list that a virtualized table shows, `first` to `last`: asks for their pages
 * and gives each loaded one, made into the table's row by `toRow` (a function defined once, outside
 * the component). The table is given only these as its data: it never holds the whole list.
 */
export function useShownRows<T, Row>(rows: PagedRows<T>, first: number, last: number, toRow: (index: number, item: T) => Row): Row[] {
  const count = rows.total ?? 0;
  const { want } = rows;
  useEffect(() => {
    if (count > 0) want(first, last);
  }, [want, first, last, count]);
  // On `rows`, not `rows.rowAt`: the function stays the same when a page arrives, the object does not.
  return useMemo(() => {
    const shown: Row[] = [];
    for (let index = first; index <= last && index < (rows.total ?? 0); index += 1) {
      const item = rows.rowAt(index);
      if (item !== undefined) shown.push(toRow(index, item));
    }
    return shown;
  }, [rows, first, last, toRow]);
}
