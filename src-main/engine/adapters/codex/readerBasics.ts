/**
 * What the three Codex readers and the loop assembler share: where an event comes from, the
 * reader's contract, Codex's token usage and tool errors, the run id a file gives when its records
 * name none, and the end of an aborted turn.
 */
import { basename } from 'node:path';
import type { EventOf, Usage } from '../../../../shared/trace/canonicalEvents';
import { normalizeTerminalStatus } from '../../../../shared/trace/runStatus';
import { isRecord, type LineRef, type MapFailure } from '../formatAdapter';
import { finite } from '../kit/jsonValues';

/** The line an event comes from, its raw type and time. */
export interface Source {
  line: LineRef;
  typeRaw: string;
  /** Undefined when the line has no time or an empty one. */
  ts: string | undefined;
}

export type RunStart = EventOf<'run_start'>;
export type RunEnd = EventOf<'run_end'>;
export type RunConfig = NonNullable<RunStart['config']>;

/** What a tool output says went wrong; undefined for a call that succeeded. */
export type ToolError = { code?: string; message?: string };

/** One shape's reader: maps each line of the file to events through its loop assembler. */
export interface Reader {
  map(value: unknown, line: LineRef): MapFailure | undefined;
  finish(): void;
}

/** The first line of a text, cut at `max` characters: an error message drawn from a tool's output. */
export function firstLine(text: string, max = 200): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * Codex's usage keys and their canonical names. Codex copies OpenAI's counts: `input_tokens`
 * includes the cached ones, `output_tokens` the reasoning ones (`reasoning_output_tokens`).
 */
const usageKeys = [
  ['input_tokens', 'input_tokens'],
  ['cached_input_tokens', 'cached_input_tokens'],
  ['output_tokens', 'output_tokens'],
  ['reasoning_output_tokens', 'reasoning_tokens'],
  ['total_tokens', 'total_tokens'],
] as const;

/** Codex token usage (`last_token_usage`, `turn.completed.usage`, old flat `token_count`) as written, under canonical names. */
export function codexUsage(raw: unknown): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  const usage: Usage = {};
  for (const [key, canonical] of usageKeys) {
    const value = finite(raw[key]);
    if (value !== undefined && value >= 0) usage[canonical] = value;
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** The provider of a Codex session that names none: Codex's default, OpenAI. */
export const DEFAULT_CODEX_PROVIDER = 'openai';

/** The file name without `.jsonl`; for a rollout, the session uuid at its end. */
export function fallbackRunId(path: string): string {
  const name = basename(path);
  const uuid = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl?$/i.exec(name);
  if (uuid?.[1]) return uuid[1];
  return name.replace(/\.jsonl?$/i, '') || 'codex';
}

/**
 * The run's end written for a `turn_aborted` record: the reason is the status when it names a
 * cancellation (`interrupted`…), `aborted` otherwise.
 */
export function turnAbortedEnd(reason: string): Pick<RunEnd, 'status' | 'reason'> {
  const status = normalizeTerminalStatus({ status: reason }).status === 'cancelled' ? reason : 'aborted';
  return { status, reason: `turn_aborted: ${reason}` };
}
