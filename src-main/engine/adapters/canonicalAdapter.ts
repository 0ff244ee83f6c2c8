/**
 * The canonical format adapter: a parsed JSON line → one canonical event, or the reason it is
 * not one. Event types are matched through their accepted aliases; an object with an event type
 * Loopscope does not know is kept as an `unknown` event, never rejected.
 */
import {
  canonicalEventSchema,
  canonicalEventType,
  type CanonicalEvent,
} from '../../../shared/trace/canonicalEvents';

/** An event whose type Loopscope does not model; kept whole and shown as written. */
export interface UnknownEvent {
  type: 'unknown';
  type_raw: string;
  run_id?: string;
  step?: number;
  step_id?: string;
  ts?: string | number;
}

export type AdaptedEvent = CanonicalEvent | UnknownEvent;

export type AdaptResult = { ok: true; event: AdaptedEvent; typeRaw: string } | { ok: false; reason: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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
  const parsed = canonicalEventSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : '';
    return { ok: false, reason: `invalid ${type} event: ${where ? `${where}: ` : ''}${issue?.message ?? 'does not match the schema'}` };
  }
  return { ok: true, event: parsed.data, typeRaw };
}
