/**
 * A vertical virtualizer (@tanstack/react-virtual) over a list that may be longer than a browser
 * can lay out: Chromium refuses an element taller than ~33.5M px (Firefox ~17.9M), and a million
 * 46 px rows need 46M. The virtualizer is given a window of the list — at most `windowRows` rows,
 * ~230k px — and the window moves when the viewport nears one of its edges, with the rows on screen
 * kept exactly where they were (anchored by their measured position). Jumps to any row
 * (`scrollToIndex`) move the window first. Lists within one window behave as before: the window is
 * the whole list. The window is small because the virtualizer's work grows with it: every
 * measured row (rows have their own heights) re-places the rows after it, to the window's end —
 * with 20,000 rows, scrolling the million-event run had tasks of 50–200 ms; with 5,000, none
 * over 50 ms (scripts/bench-ui.ts).
 */
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useLatest } from './useLatest';
import { whenIdle } from './whenIdle';

export const windowRows = 5_000;
/** How close (in rows) to an edge of the window the viewport may come before the window moves. */
const edgeRows = 500;
/** How long a moved window waits for its scroll to land before it watches its edges again. */
const settleMs = 1_000;

export interface WindowedVirtualizer {
  virtualizer: Virtualizer<HTMLDivElement, Element>;
  /** List index of the window's first row: a virtual item's list index is `start + item.index`. */
  start: number;
  /** Rows in the window. */
  size: number;
  /** Scrolls to a row of the whole list, moving the window to it first if needed. */
  scrollToIndex: (index: number, align: 'start' | 'auto') => void;
  /**
   * The list indexes of the first and last rows rendered now, read from the virtualizer when
   * called, not from a render; null while a moved window's scroll has not landed (its rows are
   * those of the old scroll position, never shown).
   */
  currentRange: () => { first: number; last: number } | null;
}

/**
 * A row's height from its ResizeObserver entry only. The default also reads `offsetHeight` when a
 * row is mounted, which forces a layout in the middle of React's commit, once per row when each
 * measurement re-renders the list (a page of rows arriving, a jump: tens of milliseconds). The
 * observer reports every row it is given once laid out, before that frame is painted, so the rows
 * are placed by their real heights all the same; until then a row keeps its known or estimated one.
 */
function measureWithoutLayout(element: Element, entry: ResizeObserverEntry | undefined, instance: Virtualizer<HTMLDivElement, Element>): number {
  const box = entry?.borderBoxSize[0];
  if (box !== undefined) return Math.round(box.blockSize);
  const index = instance.indexFromElement(element);
  return instance.itemSizeCache.get(instance.options.getItemKey(index)) ?? instance.options.estimateSize(index);
}

/** The window's first row for a wish: as close to it as the list allows, so the window is full. */
const clampWindowStart = (index: number, count: number) => Math.max(0, Math.min(index, count - windowRows));

/**
 * Rows rendered beyond each edge of the viewport while a jump lands, instead of `overscan`: a jump
 * renders every row anew, and each overscan row costs its render, style and layout before the
 * frame that shows the rows jumped to (12 of them made the jump to an event 15–20 ms slower,
 * scripts/bench-ui.ts). The overscan comes back once that frame is painted and the page is idle.
 */
const landingOverscan = 2;

/** Runs `then` once the page is idle after the next frame, unless the returned function cancels it first. */
function afterNextFrameWhenIdle(then: () => void): () => void {
  let cancelIdle: (() => void) | null = null;
  const frame = window.requestAnimationFrame(() => {
    cancelIdle = whenIdle(then, 500);
  });
  return () => {
    window.cancelAnimationFrame(frame);
    cancelIdle?.();
  };
}

export function useWindowedVirtualizer(options: {
  count: number;
  getScrollElement: () => HTMLDivElement | null;
  estimateSize: number;
  overscan: number;
}): WindowedVirtualizer {
  const { count, estimateSize } = options;
  const [requestedStart, setRequestedStart] = useState(0);
  const start = clampWindowStart(requestedStart, count);
  const size = Math.min(windowRows, count - start);
  // A jump (scrollToIndex) is landing: the viewport's rows first, the overscan after (landingOverscan).
  const [landing, setLanding] = useState(false);
  const virtualizer = useVirtualizer<HTMLDivElement, Element>({
    count: size,
    getScrollElement: options.getScrollElement,
    estimateSize: () => estimateSize,
    overscan: landing ? Math.min(landingOverscan, options.overscan) : options.overscan,
    // A row's key is its place in the list: sizes measured stay with it when the window moves, and
    // the function stays the same between renders — a new one makes the virtualizer recompute
    // every position in the window on each render.
    getItemKey: useCallback((index: number) => start + index, [start]),
    measureElement: measureWithoutLayout,
  });

  // What to restore once the window has moved: a row and where it was (or is to be) on screen.
  const pending = useRef<{ index: number; delta: number; align: 'start' | 'auto' | 'end' | null } | null>(null);
  // Where the scroll is headed after the window moved: until it gets there, the virtual items
  // describe the old scroll position and say nothing about the edges. Given up after a while, in
  // case the scroll never lands exactly (the user scrolled meanwhile).
  const settling = useRef<{ offset: number; until: number; index: number; align: 'start' | 'auto' | 'end' | null } | null>(null);
  useLayoutEffect(() => {
    const target = pending.current;
    if (target === null || target.index < start || target.index >= start + size) return;
    pending.current = null;
    const index = target.index - start;
    const offset =
      target.align !== null ? virtualizer.getOffsetForIndex(index, target.align)?.[0] : (virtualizer.measurementsCache[index]?.start ?? 0) + target.delta;
    if (offset === undefined) return;
    settling.current = { offset, until: performance.now() + settleMs, index, align: target.align };
    if (target.align !== null) virtualizer.scrollToIndex(index, { align: target.align });
    else virtualizer.scrollToOffset(offset);
  }, [start, size, virtualizer]);

  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  const offset = virtualizer.scrollOffset ?? 0;
  // `items` is a new array on every render; `first` and `last` say when the window's edges matter.
  const latestItems = useLatest(items);
  useEffect(() => {
    const items = latestItems.current;
    if (settling.current !== null) {
      if (Math.abs(offset - settling.current.offset) > estimateSize && performance.now() < settling.current.until) return;
      const landed = settling.current;
      settling.current = null;
      // The jump was aimed with estimated heights; the rows it reached are measured now (near the
      // list's end, taller rows move the end itself). Aim once more, from what is known.
      if (landed.align !== null && landed.index < size) virtualizer.scrollToIndex(landed.index, { align: landed.align });
    }
    if (items.length === 0 || pending.current !== null) return;
    const nearEnd = last >= size - edgeRows && start + size < count;
    const nearStart = first < edgeRows && start > 0;
    if (!nearEnd && !nearStart) return;
    const anchor = items.find((item) => item.end > offset) ?? items[0]!;
    pending.current = { index: start + anchor.index, delta: offset - anchor.start, align: null };
    setRequestedStart(clampWindowStart(start + anchor.index - windowRows / 2, count));
  }, [first, last, start, size, count, offset, estimateSize, virtualizer, latestItems]);

  // Asked for the last row, the list stays scrolled to its end while the rows around it are
  // loaded and measured (taller than estimated, they push the end down), until the user scrolls
  // a screen away from it.
  const pinnedToEnd = useRef(false);
  const total = virtualizer.getTotalSize();
  useEffect(() => {
    // Not while the window moves: the offset still describes the old scroll position.
    if (!pinnedToEnd.current || pending.current !== null || settling.current !== null || start + size < count) return;
    const viewport = virtualizer.scrollRect?.height ?? 0;
    const end = total - viewport;
    if (offset < end - viewport) pinnedToEnd.current = false;
    else if (offset < end - 1) virtualizer.scrollToIndex(size - 1, { align: 'end' });
  }, [total, offset, start, size, count, virtualizer]);

  // The scroll a jump wrote is handled (its rows rendered) before the next frame's callbacks: the
  // frame after that one shows them, and the overscan can follow.
  useEffect(() => (landing ? afterNextFrameWhenIdle(() => setLanding(false)) : undefined), [landing]);

  const scrollToIndex = (index: number, asked: 'start' | 'auto') => {
    setLanding(true);
    // The last row cannot be at the top: asked for, it is the end of the list.
    pinnedToEnd.current = index === count - 1;
    const align = pinnedToEnd.current ? 'end' : asked;
    if (index >= start && index < start + size) {
      virtualizer.scrollToIndex(index - start, { align });
      return;
    }
    pending.current = { index, delta: 0, align };
    setRequestedStart(clampWindowStart(index - windowRows / 2, count));
  };
  const currentRange = () => {
    const target = settling.current;
    const offsetNow = virtualizer.scrollOffset ?? 0;
    if (pending.current !== null || (target !== null && Math.abs(offsetNow - target.offset) > estimateSize && performance.now() < target.until)) return null;
    const rendered = virtualizer.getVirtualItems();
    if (rendered.length === 0) return null;
    return { first: start + rendered[0]!.index, last: start + rendered[rendered.length - 1]!.index };
  };
  return { virtualizer, start, size, scrollToIndex, currentRange };
}
