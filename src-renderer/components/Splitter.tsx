/**
 * The divider between the timeline and the event inspector: drag it (pointer) or, focused, move it
 * with ← / → (Shift for bigger steps, Home / End for the limits). The inspector's width is
 * remembered across runs and sessions (localStorage); the timeline keeps a usable minimum, so a
 * width remembered on a wide window never squeezes it on a narrow one (CSS clamps the track).
 */
import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { clampInspectorWidth, defaultInspectorWidth, dividerWidth, inspectorWidthLimits, parseStoredWidth } from './splitterWidth';
import '../styles/layout.css';

const storageKey = 'loopscope.inspectorWidth';
const keyStep = 16;
const bigKeyStep = 96;

function storedWidth(): number | null {
  try {
    return parseStoredWidth(window.localStorage.getItem(storageKey));
  } catch {
    // Storage can be unavailable (a locked-down profile): the default width then.
    return null;
  }
}

/** The inspector's width in px (null until the user chooses one) and a setter that remembers it. */
export function useInspectorWidth(): [number | null, (width: number) => void] {
  const [width, setWidth] = useState<number | null>(storedWidth);
  const remember = useCallback((next: number) => {
    setWidth(next);
    try {
      window.localStorage.setItem(storageKey, String(Math.round(next)));
    } catch {
      // Not remembered, still applied.
    }
  }, []);
  return [width, remember];
}

/** The grid columns of a run body with the inspector open: timeline, divider, inspector (CSS keeps the limits as the window resizes). */
export function inspectorColumns(width: number | null): string {
  const { min, timelineMin, defaultShare, defaultMax } = inspectorWidthLimits;
  const wanted = width === null ? `min(${defaultMax}px, ${defaultShare * 100}%)` : `${Math.round(width)}px`;
  return `minmax(0, 1fr) ${dividerWidth}px clamp(${min}px, ${wanted}, max(${min}px, calc(100% - ${timelineMin + dividerWidth}px)))`;
}

export function Splitter({ width, onChange }: { width: number | null; onChange: (width: number) => void }) {
  // Where the drag started: the width follows the pointer's travel, so grabbing the divider does not make it jump.
  const dragging = useRef<{ startX: number; startWidth: number } | null>(null);
  const element = useRef<HTMLDivElement>(null);
  // The run body's width: what the stored width is clamped to, as CSS does (inspectorColumns).
  const [containerWidth, setContainerWidth] = useState(() => window.innerWidth);
  useEffect(() => {
    const container = element.current?.parentElement;
    if (!container) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setContainerWidth(entry.contentRect.width);
    });
    observer.observe(container);
    return () => observer.disconnect();
  }, []);
  const shown = width === null ? defaultInspectorWidth(containerWidth) : clampInspectorWidth(width, containerWidth);
  const set = (next: number) => onChange(clampInspectorWidth(next, containerWidth));

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    event.preventDefault();
    event.currentTarget.setPointerCapture(event.pointerId);
    event.currentTarget.focus();
    dragging.current = { startX: event.clientX, startWidth: shown };
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    const drag = dragging.current;
    if (drag) set(drag.startWidth + drag.startX - event.clientX);
  };
  const stop = () => {
    dragging.current = null;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const step = event.shiftKey ? bigKeyStep : keyStep;
    // The divider moves with the key: ← widens the inspector (it is on the right).
    if (event.key === 'ArrowLeft') set(shown + step);
    else if (event.key === 'ArrowRight') set(shown - step);
    else if (event.key === 'Home') set(Number.POSITIVE_INFINITY);
    else if (event.key === 'End') set(0);
    else return;
    event.preventDefault();
    event.stopPropagation();
  };
  return (
    <div
      ref={element}
      className="splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the event inspector"
      aria-valuenow={Math.round(shown)}
      aria-valuemin={inspectorWidthLimits.min}
      aria-valuemax={Math.round(clampInspectorWidth(Number.POSITIVE_INFINITY, containerWidth))}
      aria-valuetext={`inspector ${Math.round(shown)} px wide`}
      tabIndex={0}
      title="Drag, or focus and press ← / →, to resize the inspector"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={stop}
      onPointerCancel={stop}
      onKeyDown={onKeyDown}
      data-testid="splitter"
    />
  );
}
