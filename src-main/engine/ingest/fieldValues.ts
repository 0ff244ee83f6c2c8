/**
 * How an event's fields become column values: text cut to summary length, call arguments parsed
 * the way a loop must before executing them, sizes counted as text, and a tool result's digest.
 * Pure functions of one value each, called once per event or call.
 */
import { SUMMARY_CHARS } from '../bytes/contentHash';
import { resultIdentity } from '../bytes/resultIdentity';
import { MAX_NESTING_DEPTH } from '../bytes/decodeLine';
import { nestsDeeperThan } from '../bytes/topLevelScan';
import type { ResultDigest } from '../adapters/formatAdapter';
import { isErrorResult, type EventOf } from '../../../shared/trace/canonicalEvents';
import { outputPreview } from '../../../shared/toolOutput';

export function truncate(text: string, max = SUMMARY_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function argumentsText(args: unknown): string {
  if (args === undefined) return '{}';
  return typeof args === 'string' ? args : JSON.stringify(args);
}

/** Parses call arguments the way a loop must before executing: a JSON string or an object. */
export function parseArguments(args: unknown): { value: unknown } | { error: string } {
  if (args === undefined || args === null) return { value: {} };
  if (typeof args !== 'string') return { value: args };
  if (args.trim() === '') return { value: {} };
  if (args.length > 2 * MAX_NESTING_DEPTH && nestsDeeperThan(Buffer.from(args), MAX_NESTING_DEPTH)) {
    return { error: `arguments are nested more than ${MAX_NESTING_DEPTH.toLocaleString('en-US')} levels deep: ${truncate(args, 80)}` };
  }
  try {
    return { value: JSON.parse(args) as unknown };
  } catch (error) {
    return { error: `arguments are not valid JSON (${(error as Error).message}): ${truncate(args, 80)}` };
  }
}

/** Arguments as searched: parsed when they are JSON text, as written otherwise. */
export function argumentsValue(args: unknown): unknown {
  const parsed = parseArguments(args);
  return 'value' in parsed ? parsed.value : args;
}

export function sumOptional(total: number | null, value: number | undefined): number | null {
  if (value === undefined) return total;
  return (total ?? 0) + value;
}

/** Characters of a value as text: a string as it is, anything else as JSON. */
export function textLength(value: unknown): number {
  if (typeof value === 'string') return value.length;
  return value === undefined ? 0 : (JSON.stringify(value)?.length ?? 0);
}

/**
 * A result's identity for the repeated-action analysis: a hash of its status, output and error
 * without their volatile fields (resultIdentity). Results of one tool serialize their keys in one
 * order, so plain JSON text tells them apart.
 */
export function digestFromEvent(event: EventOf<'tool_result'>): ResultDigest {
  const output = JSON.stringify(event.output ?? null);
  return {
    hash: resultIdentity(isErrorResult(event), output, JSON.stringify(event.error ?? null)),
    // Decoded (Codex's output JSON, content blocks) and on one line: a summary never shows a literal \n.
    preview: outputPreview(event.output, SUMMARY_CHARS + 1),
    chars: typeof event.output === 'string' ? event.output.length : event.output === undefined ? 0 : output.length,
  };
}
