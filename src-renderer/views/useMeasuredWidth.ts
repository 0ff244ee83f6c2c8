import { useEffect, useRef, useState, type RefObject } from 'react';

/**
 * The width of an element in CSS pixels, kept current with a ResizeObserver (the window, a
 * splitter or a scrollbar changes it); null until measured. A chart drawn at this width fills its
 * pane at 1024 px and at 2560 px alike, with text at its real size instead of a scaled viewBox.
 */
export function useMeasuredWidth<T extends Element>(): [RefObject<T | null>, number | null] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState<number | null>(null);
  useEffect(() => {
    const element = ref.current;
    if (element === null) return;
    const observer = new ResizeObserver((entries) => {
      const measured = Math.floor(entries[0]?.contentRect.width ?? 0);
      if (measured > 0) setWidth(measured);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}
