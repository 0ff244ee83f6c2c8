/**
 * The readers every format adapter uses over unknown JSON values: each returns the value when it
 * has the expected type and `undefined` (or an empty list) otherwise, so an adapter never trusts
 * a field's shape and never writes its own "string or undefined" helper.
 */
import { isRecord } from '../formatAdapter';

export type JsonObject = Record<string, unknown>;

export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A string with at least one character: formats that write "" for "none". */
export function nonEmptyText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A finite number of zero or more: a count (of tokens, say), anything else left out rather than guessed. */
export function nonNegative(value: unknown): number | undefined {
  const number = finite(value);
  return number !== undefined && number >= 0 ? number : undefined;
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

/** The objects of an array (its other elements skipped), or an empty list when `value` is no array. */
export function records(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** The strings of an array (its other elements skipped), or an empty list when `value` is no array. */
export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * How the parts of a message's content become one text. Formats disagree, and each report keeps
 * its format's rule: which parts carry text (a `text` member, only `type: "text"` blocks, bare
 * strings…) and what stands between two of them.
 */
export interface PartJoining {
  /** Written between the texts of two parts that have one. */
  separator: string;
  /** The text a part contributes, or undefined for a part without one (skipped, separator and all). */
  partText: (part: unknown) => string | undefined;
}

/** A part's `text` member when it is a string: the content blocks of most model APIs. */
export function textMember(part: unknown): string | undefined {
  return isRecord(part) && typeof part['text'] === 'string' ? part['text'] : undefined;
}

/** Parts' `text` members written back to back, the rule of APIs that split one text into parts. */
export const ADJACENT_TEXT_PARTS: PartJoining = { separator: '', partText: textMember };

/**
 * Message content that is a string (returned as it is) or a list of parts (their texts joined by
 * `joining`); undefined for anything else, which each caller turns into its own fallback.
 */
export function contentText(content: unknown, joining: PartJoining): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    const text = joining.partText(part);
    if (text !== undefined) texts.push(text);
  }
  return texts.join(joining.separator);
}

/** The file's name without its directory and `suffix` (the whole name when nothing else would remain). */
export function fileStem(path: string, suffix: RegExp): string {
  const name = path.split(/[\\/]/).pop() ?? path;
  return name.replace(suffix, '') || name;
}
