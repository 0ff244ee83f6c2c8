import { fnv1a32 } from '../../shared/fnv1a';
import { formatCount } from '../../shared/formatCount';
import { formatDuration } from '../../shared/formatDuration';
import { formatProgress } from '../../shared/formatProgress';

export { formatCount, formatDuration, formatProgress };

export function formatTokens(input: number | null, output: number | null): string {
  if (input === null && output === null) return '—';
  return `${input === null ? '—' : formatCount(input)} / ${output === null ? '—' : formatCount(output)}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** `file` without its directory, for narrow columns (the full path is on hover). */
export function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/**
 * Call colours keep out of the reds around hue 0: red means an error in this UI, and a call that
 * went fine must not look like one.
 */
export const callHueRange = { from: 40, to: 320 } as const;

/** A colour hue for a call id, so a call and its result share a colour across the timeline. */
export function callHue(callId: string): number {
  return callHueRange.from + (fnv1a32(callId) % (callHueRange.to - callHueRange.from));
}

/** `finding_kind` → "finding kind". */
export function humanize(identifier: string): string {
  return identifier.replace(/_/g, ' ');
}

/** A token count in a few characters: 532, 9.8k, 123k, 1.2M (the exact count goes in a title). */
export function formatTokenCount(tokens: number): string {
  const value = Math.round(tokens);
  const magnitude = Math.abs(value);
  if (magnitude < 1000) return String(value);
  if (magnitude < 10_000) return `${(value / 1000).toFixed(1)}k`;
  if (magnitude < 1_000_000) return `${Math.round(value / 1000)}k`;
  return `${(value / 1_000_000).toFixed(1)}M`;
}

/** "message 3" / "messages 3–7", from message numbers as a user counts them (1-based, as logged). */
export function messageSpan(first: number, last: number): string {
  return first === last ? `message ${first}` : `messages ${first}–${last}`;
}
