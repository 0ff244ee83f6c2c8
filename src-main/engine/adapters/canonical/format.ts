/**
 * The canonical format adapter: a parsed JSON line → one canonical event, or the reason it is
 * not one. Event types are matched through their accepted aliases; an object with an event type
 * Loopscope does not know is kept as an `unknown` event, never rejected.
 */
import { canonicalEventType, isErrorResult, type CanonicalEvent } from '../../../../shared/trace/canonicalEvents';
import { mayHoldUnsafeIntegers } from '../../../../shared/trace/exactIntegers';
import { CallStartTimes } from '../kit/callLatency';
import { readEvent } from './eventRepair';
import { SUMMARY_CHARS } from '../../bytes/contentHash';
import { outputPreview } from '../../../../shared/toolOutput';
import { resultIdentity } from '../../bytes/resultIdentity';
import { memberPreview, memberValue, scanTopLevel, type TopLevelScan } from '../../bytes/topLevelScan';
import {
  isRecord,
  type AdaptedEvent,
  type EventRepairs,
  type FormatAdapter,
  type LineRef,
  type MappedEvent,
  type RequestShape,
  type ResultDigest,
} from '../formatAdapter';

export interface AdaptedLine {
  ok: true;
  event: AdaptedEvent;
  typeRaw: string;
  requestShape?: RequestShape;
  /** What was wrong in the line's fields and what was made of each (docs/semantics.md §10). */
  repairs?: EventRepairs;
}

export type AdaptResult = AdaptedLine | { ok: false; reason: string };

function describeJsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

export function adaptCanonicalLine(value: unknown): AdaptResult {
  if (!isRecord(value)) return { ok: false, reason: `not an event: the line is ${describeJsonKind(value)}, not an object` };
  const typeRaw = value['type'] ?? value['event'];
  if (typeof typeRaw !== 'string' || typeRaw.trim() === '') {
    return { ok: false, reason: 'not an event: the object has no "type" field' };
  }
  const type = canonicalEventType(typeRaw);
  if (type === undefined) {
    const runId = value['run_id'];
    const step = value['step'];
    const stepId = value['step_id'];
    const ts = value['ts'];
    return {
      ok: true,
      typeRaw,
      event: {
        type: 'unknown',
        type_raw: typeRaw,
        ...(typeof runId === 'string' || typeof runId === 'number' ? { run_id: String(runId) } : {}),
        ...(typeof step === 'number' && Number.isInteger(step) && step >= 0 ? { step } : {}),
        ...(typeof stepId === 'string' || typeof stepId === 'number' ? { step_id: String(stepId) } : {}),
        ...(typeof ts === 'string' || typeof ts === 'number' ? { ts } : {}),
      },
    };
  }
  // The parsed line is ours alone: fold the alias in place rather than copying a large object.
  value['type'] = type;
  const read = readEvent(type, value);
  if (!read.ok) return read;
  return read.repairs === undefined ? { ok: true, event: read.event, typeRaw } : { ok: true, event: read.event, typeRaw, repairs: read.repairs };
}

/**
 * Members a scanned line's event is built without: a model request's content (only counted) and a
 * tool result's output (hashed and previewed from its bytes by the ingester). Everything else is
 * parsed and validated like any event.
 */
const unparsedMembers: Partial<Record<CanonicalEvent['type'], readonly string[]>> = {
  model_request: ['system', 'messages', 'tools'],
  tool_result: ['output'],
};

/**
 * A long line read from its top level (see topLevelScan.ts), its bad fields repaired like any
 * line's. Returns null when the line is of a type whose members are all needed, its skipped
 * members are not of the documented kinds, or it cannot be read even repaired, so that the caller
 * parses it in full and reports exactly what is wrong.
 */
export function adaptScannedLine(bytes: Buffer, scan: TopLevelScan): AdaptedLine | null {
  const typeMember = scan.get('type') ?? scan.get('event');
  const typeRaw = typeMember === undefined ? undefined : memberValue(bytes, typeMember);
  if (typeof typeRaw !== 'string') return null;
  const type = canonicalEventType(typeRaw);
  const skipped = type === undefined ? undefined : unparsedMembers[type];
  if (type === undefined || skipped === undefined) return null;
  const messages = scan.get('messages');
  const tools = scan.get('tools');
  if (type === 'model_request' && ((messages && messages.kind !== 'array') || (tools && tools.kind !== 'array'))) return null;
  const members = [...scan].filter(([key]) => !skipped.includes(key));
  // An integer beyond 2^53 is kept exact by the full parse (decodeLine), not by memberValue.
  if (members.some(([, member]) => member.kind === 'scalar' && mayHoldUnsafeIntegers(bytes.toString('latin1', member.start, member.end)))) return null;
  // fromEntries defines keys as they are written, so a "__proto__" member stays a member instead of replacing the prototype.
  const value: Record<string, unknown> = Object.fromEntries(members.map(([key, member]) => [key, memberValue(bytes, member)]));
  value['type'] = type;
  const read = readEvent(type, value);
  if (!read.ok) return null;
  return {
    ok: true,
    event: read.event,
    typeRaw,
    ...(read.repairs ? { repairs: read.repairs } : {}),
    ...(type === 'model_request' ? { requestShape: { messages: messages?.size ?? null, tools: tools?.size ?? null } } : {}),
  };
}

/**
 * A tool result's identity taken from the line as written (two identical results of one tool are
 * written identically): a hash of its status, output and error bytes without their volatile fields
 * (resultIdentity), and the start of its output, with no output re-serialized — a long one is never
 * even parsed.
 */
function digestWrittenResult(bytes: Buffer, scan: TopLevelScan, isError: boolean): ResultDigest {
  const output = scan.get('output');
  const error = scan.get('error');
  const written = (member: typeof output): Buffer => (member === undefined ? Buffer.alloc(0) : bytes.subarray(member.start, member.end));
  return {
    hash: resultIdentity(isError, written(output), written(error)),
    // The start as written, read like any output (one line, content blocks as their text) as far as the start allows.
    preview: output === undefined ? '' : outputPreview(memberPreview(bytes, output, SUMMARY_CHARS + 1), SUMMARY_CHARS + 1),
    chars: output === undefined ? 0 : output.end - output.start,
  };
}

function mapped(adapted: AdaptedLine, line: LineRef, bytes: Buffer, scan: TopLevelScan | null): MappedEvent {
  const { event } = adapted;
  return {
    event,
    typeRaw: adapted.typeRaw,
    line,
    ...(adapted.requestShape ? { requestShape: adapted.requestShape } : {}),
    ...(adapted.repairs ? { repairs: adapted.repairs } : {}),
    ...(event.type === 'tool_result' ? { resultDigest: digestWrittenResult(bytes, scan ?? scanTopLevel(bytes), isErrorResult(event)) } : {}),
  };
}

/**
 * A tool_result that logs no latency_ms takes the time since its call's tool_call_start: the
 * format writes each when it happens (docs/semantics.md §11). Without a tool_call_start the
 * latency is not recorded; the response that issued the call is no start.
 */
function timeCalls(starts: CallStartTimes, event: AdaptedEvent): void {
  if (event.type === 'tool_call_start') starts.started(event.run_id, event.call_id, event.ts);
  else if (event.type === 'tool_result') {
    const sinceStart = starts.latencyOf(event.run_id, event.call_id, event.ts);
    if (event.latency_ms === undefined && sinceStart !== undefined) event.latency_ms = sinceStart;
  }
}

function typeOf(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  const raw = value['type'] ?? value['event'];
  return typeof raw === 'string' ? raw : undefined;
}

/** How many of `values` are Loopscope events, and the first few event types among them; null for none. */
function canonicalRecords(values: readonly unknown[]): { count: number; names: string } | null {
  const canonical = values.map(typeOf).filter((type) => type !== undefined && canonicalEventType(type) !== undefined);
  if (canonical.length === 0) return null;
  return { count: canonical.length, names: [...new Set(canonical.map((type) => canonicalEventType(type!)))].slice(0, 4).join(', ') };
}

/** The first bytes of a JSON array of Loopscope events too large to be whole in the detection sample. */
const ARRAY_HEAD = new RegExp(`^\\s*\\[\\s*\\{\\s*"(?:type|event)"\\s*:\\s*"(?:${['run_start', 'model_request', 'model_response'].join('|')})"`);

/** Loopscope's own format (docs/trace-format.md). */
export const canonicalFormat: FormatAdapter = {
  name: 'loopscope',
  detect(sample) {
    // Checked last (registry.ts), so one Loopscope event among the first records is enough: the
    // rest may be broken lines, which then get their own parse errors.
    const found = canonicalRecords(sample.values);
    return found === null ? null : `${found.count} of the first ${sample.values.length} records are Loopscope events (${found.names})`;
  },
  createMapper() {
    const starts = new CallStartTimes();
    return {
      map(value, line, emit, bytes) {
        const adapted = adaptCanonicalLine(value);
        if (!adapted.ok) return { reason: adapted.reason };
        timeCalls(starts, adapted.event);
        emit(mapped(adapted, line, bytes, null));
        return undefined;
      },
      mapScanned(bytes, scan, line, emit) {
        const adapted = adaptScannedLine(bytes, scan);
        if (adapted === null) return false;
        timeCalls(starts, adapted.event);
        emit(mapped(adapted, line, bytes, scan));
        return true;
      },
      finish() {},
    };
  },
};

/**
 * Loopscope events written as one JSON document — an array of events, or events pretty-printed
 * one after another — rather than one a line: what a script that dumps its log with
 * `JSON.stringify(events, null, 2)` writes. Read as JSON values (the array's elements one by one),
 * each event anchored to the line its value starts on.
 */
export const canonicalDocumentFormat: FormatAdapter = {
  name: 'loopscope-json',
  framing: 'json-values',
  streamedArrays: [''],
  detect(sample) {
    // A file with Loopscope events one a line is the line format's.
    if (canonicalRecords(sample.values) !== null) return null;
    const document = sample.framedValues[0];
    if (Array.isArray(document)) {
      const found = canonicalRecords(document.slice(0, 20));
      return found === null
        ? null
        : `a JSON array of ${document.length} records, ${found.count} of the first ${Math.min(20, document.length)} Loopscope events (${found.names})`;
    }
    const found = canonicalRecords(sample.framedValues);
    if (found !== null)
      return `${found.count} of the first ${sample.framedValues.length} JSON values are Loopscope events (${found.names}), written across lines`;
    return sample.framedValues.length === 0 && ARRAY_HEAD.test(sample.head) ? 'a JSON array of Loopscope events (from its first bytes)' : null;
  },
  createMapper: canonicalFormat.createMapper,
};
