/**
 * Spans: named stretches of a run that a format marks with a begin and an end record (Inspect AI's
 * `span_begin`/`span_end`, each with an `id` and its `parent_id`). The timeline shows each span's
 * begin as a header row and the events inside it indented below, collapsible.
 *
 * A collapsed span hides a contiguous stretch of the run's event list, so the list can still be
 * paged with one index range per collapsed span. The tree is therefore built from log order, and
 * a log that is not well nested is read as the nearest nesting that is:
 * - a begin whose `parent_id` names an open span that is not the innermost one ends the spans
 *   opened inside that parent first (their ends are missing, or they interleave with their
 *   sibling): the new span is a sibling of theirs, not their child;
 * - an end names the span it closes; the spans still open inside it end with it;
 * - an end whose id is not open (never begun, already ended) is an ordinary event;
 * - a span still open when the run's events stop ends at its last event.
 * A begin without a `parent_id` (or naming an unknown span) nests inside the innermost open span.
 * Events outside every span have depth 0.
 */

/** What a span's begin or end record says, as an adapter reads it. */
export interface SpanMarker {
  kind: 'begin' | 'end';
  id: string;
  /** Begin only: the enclosing span's id, when the record names one. */
  parentId?: string | null;
  name?: string;
  type?: string;
}

/** A span as the timeline shows it: its begin event is the header row. */
export interface SpanExtent {
  beginEventId: number;
  /** Position of the begin event in the run (run_index). */
  beginIndex: number;
  /** Position of the span's last event (its end record, or the last event inside it). */
  lastIndex: number;
  /** Spans enclosing it. */
  depth: number;
  name: string | null;
  type: string | null;
  /** Events after the begin up to `lastIndex`: what collapsing hides. */
  events: number;
  /** Of those, the events that are not bookkeeping: what collapsing hides while bookkeeping is folded. */
  visibleEvents: number;
  /** The earliest timestamp of the span: its begin's, or, when that has none, the earliest inside it. */
  startedAt: string | null;
  /** The latest timestamp inside the span (its end record's, when it has one). */
  endedAt: string | null;
}

export interface SpanEvent {
  eventId: number;
  runIndex: number;
  /** Not bookkeeping (shown while bookkeeping is folded). */
  visible: boolean;
  ts: string | null;
  marker?: SpanMarker;
}

interface OpenSpan {
  id: string;
  beginEventId: number;
  beginIndex: number;
  depth: number;
  name: string | null;
  type: string | null;
  /** Events not bookkeeping the run had when the span began (its begin included). */
  visibleBefore: number;
  /**
   * The earliest and latest times of the span's events, except those inside the spans still open
   * within it (each keeps its own and hands them on when it ends): so an event updates one span,
   * not every open one, and a hostile log 100,000 spans deep still loads in linear time.
   */
  earliest: string | null;
  latest: string | null;
}

/** The spans of one run, fed its events in order (see the module comment for the rules). */
export class SpanNesting {
  private readonly open: OpenSpan[] = [];
  /** Where each open span id sits in `open` (an id begun again while open: each of its places). */
  private readonly places = new Map<string, number[]>();
  private lastIndex = -1;
  private visibleSeen = 0;

  /**
   * Takes the run's next event: returns its depth (the spans it is inside; a span's own end
   * record is inside it, its begin is not) and the spans this event ended (to store).
   */
  accept(event: SpanEvent): { depth: number; ended: SpanExtent[] } {
    const { marker } = event;
    const ended: SpanExtent[] = [];
    if (marker?.kind === 'begin') {
      const parent = marker.parentId == null ? undefined : this.places.get(marker.parentId)?.at(-1);
      if (parent !== undefined) ended.push(...this.closeFrom(parent + 1));
      this.count(event);
      const depth = this.open.length;
      this.open.push({
        id: marker.id,
        beginEventId: event.eventId,
        beginIndex: event.runIndex,
        depth,
        name: marker.name ?? null,
        type: marker.type ?? null,
        visibleBefore: this.visibleSeen,
        earliest: event.ts,
        latest: event.ts,
      });
      const places = this.places.get(marker.id);
      if (places === undefined) this.places.set(marker.id, [depth]);
      else places.push(depth);
      return { depth, ended };
    }
    const closing = marker?.kind === 'end' ? this.places.get(marker.id)?.at(-1) : undefined;
    if (closing === undefined) {
      this.count(event);
      return { depth: this.open.length, ended };
    }
    ended.push(...this.closeFrom(closing + 1));
    this.count(event);
    ended.push(...this.closeFrom(closing));
    return { depth: closing + 1, ended };
  }

  /** The spans still open, as far as they reach now (stored again when they grow or end). */
  openSpans(): SpanExtent[] {
    const extents: SpanExtent[] = [];
    let inner: { earliest: string | null; latest: string | null } = { earliest: null, latest: null };
    for (const span of this.open.toReversed()) {
      inner = { earliest: earlier(span.earliest, inner.earliest), latest: later(span.latest, inner.latest) };
      extents.push(this.extentOf(span, inner));
    }
    return extents.reverse();
  }

  private count(event: SpanEvent): void {
    this.lastIndex = event.runIndex;
    if (event.visible) this.visibleSeen += 1;
    const innermost = this.open.at(-1);
    if (innermost === undefined || event.ts === null) return;
    // A begin may have no time of its own (Inspect stamps a sample's first events with the eval's start, which is dropped): its first event's then.
    innermost.earliest = earlier(innermost.earliest, event.ts);
    innermost.latest = later(innermost.latest, event.ts);
  }

  /** Ends the open spans from `depth` inward, innermost first, each handing its times to the span around it. */
  private closeFrom(depth: number): SpanExtent[] {
    const ended: SpanExtent[] = [];
    while (this.open.length > depth) {
      const span = this.open.pop()!;
      this.places.get(span.id)?.pop();
      if (this.places.get(span.id)?.length === 0) this.places.delete(span.id);
      const outer = this.open.at(-1);
      if (outer !== undefined) {
        outer.earliest = earlier(outer.earliest, span.earliest);
        outer.latest = later(outer.latest, span.latest);
      }
      ended.push(this.extentOf(span, span));
    }
    return ended;
  }

  private extentOf(span: OpenSpan, times: { earliest: string | null; latest: string | null }): SpanExtent {
    return {
      beginEventId: span.beginEventId,
      beginIndex: span.beginIndex,
      lastIndex: this.lastIndex,
      depth: span.depth,
      name: span.name,
      type: span.type,
      events: this.lastIndex - span.beginIndex,
      visibleEvents: this.visibleSeen - span.visibleBefore,
      startedAt: times.earliest,
      endedAt: times.latest,
    };
  }
}

function earlier(a: string | null, b: string | null): string | null {
  return a === null ? b : b === null || a <= b ? a : b;
}

function later(a: string | null, b: string | null): string | null {
  return a === null ? b : b === null || a >= b ? a : b;
}

/**
 * What collapsed spans hide from a run's event list: inclusive ranges of positions (run_index, or
 * visible_index while bookkeeping is folded), each the events after a collapsed span's header.
 * Ranges are merged (a span collapsed inside a collapsed one adds nothing), sorted, disjoint.
 */
export type HiddenRange = readonly [first: number, last: number];

export function mergeRanges(ranges: readonly HiddenRange[]): HiddenRange[] {
  const sorted = ranges.filter(([first, last]) => last >= first).toSorted((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [first, last] of sorted) {
    const previous = merged.at(-1);
    if (previous !== undefined && first <= previous[1] + 1) previous[1] = Math.max(previous[1], last);
    else merged.push([first, last]);
  }
  return merged;
}

/**
 * Where the event at `position` is in the list without the hidden ranges (merged): an event inside
 * a collapsed span is at that span's header, the position just before its range.
 */
export function shownIndexOf(position: number, hidden: readonly HiddenRange[]): number {
  let before = 0;
  for (const [first, last] of hidden) {
    if (position < first) break;
    if (position <= last) return first - 1 - before;
    before += last - first + 1;
  }
  return position - before;
}

/** The position of the `shown`-th event of the list without the hidden ranges (merged). */
export function positionOfShown(shown: number, hidden: readonly HiddenRange[]): number {
  let position = shown;
  for (const [first, last] of hidden) {
    if (position < first) break;
    position += last - first + 1;
  }
  return position;
}

/** How many positions the hidden ranges (merged) leave out. */
export function hiddenCount(hidden: readonly HiddenRange[]): number {
  return hidden.reduce((sum, [first, last]) => sum + last - first + 1, 0);
}
