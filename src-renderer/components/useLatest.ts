/**
 * The latest value a component rendered with, for an effect or a callback that must read it but
 * must not run again because it changed: the effect's dependency list then says what triggers it,
 * and the rest is read through the ref. Updated after every render by an effect, so an effect
 * declared after the call (effects run in order) sees this render's value.
 */
import { useEffect, useRef, type RefObject } from 'react';

export function useLatest<T>(value: T): RefObject<T> {
  const latest = useRef(value);
  useEffect(() => {
    latest.current = value;
  });
  return latest;
}
