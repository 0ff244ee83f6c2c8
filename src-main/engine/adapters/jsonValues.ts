/**
 * Small pure readers over unknown JSON values, shared by the format adapters: each returns the
 * value when it has the expected type and `undefined` (or an empty list) otherwise.
 */
import { isRecord } from './formatAdapter';

type JsonObject = Record<string, unknown>;

export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A finite number greater than zero. */
export function positive(value: unknown): number | undefined {
  const number = finite(value);
  return number !== undefined && number > 0 ? number : undefined;
}

/** The object held under `key`, when `value` is an object and the member is one too. */
export function field(value: unknown, key: string): JsonObject | undefined {
  if (!isRecord(value)) return undefined;
  const member = value[key];
  return isRecord(member) ? member : undefined;
}

/** The array held under `key`, or an empty list. */
export function list(value: unknown, key: string): unknown[] {
  if (!isRecord(value)) return [];
  const member = value[key];
  return Array.isArray(member) ? member : [];
}

/** Message content that is a string or a list of parts: the parts' `text` joined (parts without one count as ''). */
export function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content.map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : '')).join('');
}

/** The file's name without its directory and `suffix` (the whole name when nothing else would remain). */
export function fileStem(path: string, suffix: RegExp): string {
  const name = path.split(/[\\/]/).pop() ?? path;
  return name.replace(suffix, '') || name;
}
