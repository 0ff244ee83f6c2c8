/**
 * The keyboard's row in a list of rows (runs, calls): none until j/k is pressed, none again when
 * the list changes (`identity`: its filters and sort). j/k and the arrows move it and scroll it
 * into view; Enter opens it.
 */
import { useEffect, useState } from 'react';
import { useShortcuts } from './shortcuts';

export function useKeyboardRow(options: {
  identity: string;
  count: number;
  scrollTo: (index: number) => void;
  open: (index: number | null) => void;
}): number | null {
  const { identity, count, scrollTo, open } = options;
  const [selected, setSelected] = useState<number | null>(null);
  useEffect(() => setSelected(null), [identity]);
  const move = (delta: number) => {
    if (count === 0) return;
    const next = selected === null ? 0 : Math.min(count - 1, Math.max(0, selected + delta));
    setSelected(next);
    scrollTo(next);
  };
  useShortcuts({ j: () => move(1), ArrowDown: () => move(1), k: () => move(-1), ArrowUp: () => move(-1), Enter: () => open(selected) });
  return selected;
}
