/**
 * Reads a canonical event whose schema rejects some of its fields (docs/semantics.md §10): one bad
 * field must not cost the whole event. Runs only after validation failed — a valid line pays
 * nothing for it — and works from the validator's own complaint, one field at a time, so the
 * published schema stays the only definition of what is valid. Each bad field is coerced when its
 * meaning is unambiguous (a number written as a string, the word true or false), else ignored (the
 * raw line keeps it), and either way said; a tool call without a usable `call_id` is kept and
 * named by the ingester. Only a field that makes the event meaningless — the `call_id` of a tool
 * result, the `run_id` of any event — still makes the line a parse error.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import type { CanonicalEvent } from '../../../../shared/trace/canonicalEvents';
import { excerptOf } from '../../bytes/decodeLine';
import { validateEvent } from './eventValidators';
import { isRecord, type EventRepairs } from '../formatAdapter';

export type EventReading = { ok: true; event: CanonicalEvent; repairs?: EventRepairs } | { ok: false; reason: string };

/**
 * Top-level fields that place the event: a bad one leaves its run, or the call a result answers,
 * unknown — guessing either would invent a pairing the data does not show. Null (how JSON writers
 * spell "none") and the empty string name nothing, as if the field were left out.
 */
const PLACING_FIELDS = new Set(['run_id', 'call_id']);

/** A number written in decimal digits (a sign, a fraction, an exponent); anything looser (`"1,000"`, `"100 tokens"`, `"0x10"`) is a guess. */
const NUMBER_TEXT = /^\s*[-+]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*$/;

/** Checks `value` against the schema of `type`, repairing it in place when it fails; `value.type` must hold the canonical name. */
export function readEvent(type: CanonicalEvent['type'], value: Record<string, unknown>): EventReading {
  const validated = validateEvent(type, value);
  if (validated.ok) return validated;
  return repairEvent(type, value, validated.errors);
}

/** How a value is named in a diagnostic. */
function describeValue(value: unknown): string {
  if (typeof value === 'string') return value === '' ? 'the empty string' : `the string ${excerptOf(JSON.stringify(value))}`;
  if (Array.isArray(value)) return 'an array';
  if (isRecord(value)) return 'an object';
  return String(value);
}

/** `/tool_calls/0/name` → `tool_calls[0].name`, as a user finds it in the line. */
function fieldName(segments: readonly string[]): string {
  return segments.map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');
}

function pathSegments(instancePath: string): string[] {
  return instancePath === ''
    ? []
    : instancePath
        .slice(1)
        .split('/')
        .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const ARTICLES: Record<string, string> = { integer: 'an integer', object: 'an object', array: 'an array' };

/** What the schema wanted of the field, from its complaints about it. */
function expectation(errors: readonly ErrorObject[]): string {
  const first = errors[0]!;
  switch (first.keyword) {
    case 'enum':
      return `not one of ${(first.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
      return `which ${first.message ?? 'is out of range'}`;
    default: {
      // A union's branches each say what they wanted: a type, or (an id's) a string that is not empty.
      const kinds = errors.flatMap((error) => {
        if (error.keyword === 'minLength') return ['non-empty string'];
        return error.keyword === 'type' ? [(error.params as { type: string | string[] }).type].flat() : [];
      });
      const wanted = [...new Set(kinds)].map((kind) => ARTICLES[kind] ?? `a ${kind}`);
      return wanted.length === 0 ? 'which the schema does not accept' : `not ${wanted.join(' or ')}`;
    }
  }
}

/** The number a string field holds, when it is written as a number and nothing else. */
function numberFrom(text: string): number | undefined {
  return NUMBER_TEXT.test(text) ? Number(text) : undefined;
}

/** The boolean a string field holds, when it is the word true or false (`"True"` is Python's `str(True)`); `"yes"` or `"1"` is a guess. */
function booleanFrom(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  return word === 'true' ? true : word === 'false' ? false : undefined;
}

function wantsType(errors: readonly ErrorObject[], kind: 'number' | 'integer' | 'boolean'): boolean {
  return errors.some((error) => error.keyword === 'type' && [(error.params as { type: string | string[] }).type].flat().includes(kind));
}

function isUsableId(value: unknown): value is string | number {
  return typeof value === 'number' || (typeof value === 'string' && value !== '');
}

/**
 * Names a result's own `call_id` is also written under (OpenAI's tool message, Anthropic's
 * tool_result block). A bare `id` is not one: on a result it may be the event's own id.
 */
const RESULT_CALL_ID_ALIASES = ['tool_call_id', 'tool_use_id'] as const;

/**
 * Keeps every tool call of a response that is an object. A call written in a provider's shape
 * (`{id, function: {name, arguments}}`, `{id, name, input}`) is read from it: those members name
 * the call's own id, name and arguments, no guess. A call still without a usable `call_id` is kept
 * for the ingester to name, one without a name as `(unnamed)`. Done for the whole list at once, so
 * a response of many id-less calls is repaired in one pass.
 */
function repairToolCalls(calls: unknown[], repairs: EventRepairs): unknown[] {
  const kept: Record<string, unknown>[] = [];
  calls.forEach((call, written) => {
    const at = `tool_calls[${written}]`;
    if (!isRecord(call)) {
      repairs.diagnostics.push(`"${at}" is ${describeValue(call)}, not a tool call: ignored`);
      return;
    }
    const callId = call['call_id'];
    const said = (member: string): string => `"${at}.${member}" is ${call[member] === undefined ? 'missing' : describeValue(call[member])}`;
    const fn = isRecord(call['function']) ? call['function'] : undefined;
    if (!isUsableId(callId) && isUsableId(call['id'])) {
      repairs.diagnostics.push(`${said('call_id')}: its "id" (${excerptOf(String(call['id']))}) is read as the call_id`);
      call['call_id'] = call['id'];
    } else if (!isUsableId(callId)) {
      repairs.callsWithoutId.set(kept.length, said('call_id'));
      call['call_id'] = kept.length;
    }
    if (typeof call['name'] !== 'string' && typeof fn?.['name'] === 'string') {
      repairs.diagnostics.push(`${said('name')}: its "function.name" (${excerptOf(fn['name'])}) is read as the name`);
      call['name'] = fn['name'];
    } else if (typeof call['name'] !== 'string') {
      repairs.diagnostics.push(`${said('name')}: the call is kept as "(unnamed)"`);
      call['name'] = '(unnamed)';
    }
    const args = fn?.['arguments'] ?? call['input'];
    if (call['arguments'] === undefined && args !== undefined) {
      repairs.diagnostics.push(
        `"${at}.arguments" is missing: its "${fn?.['arguments'] === undefined ? 'input' : 'function.arguments'}" is read as the arguments`,
      );
      call['arguments'] = args;
    }
    kept.push(call);
  });
  return kept;
}

/** Why an event cannot be read without a field it needs. */
function missingReason(type: CanonicalEvent['type'], key: string, written: string): string {
  const consequence = key === 'run_id' ? 'so the run it belongs to is unknown' : key === 'call_id' ? 'so it cannot be paired with a call' : 'which it needs';
  return `invalid ${type} event: ${written}, ${consequence}`;
}

function repairEvent(type: CanonicalEvent['type'], value: Record<string, unknown>, firstErrors: readonly ErrorObject[]): EventReading {
  const repairs: EventRepairs = { diagnostics: [], callsWithoutId: new Map() };
  /** What each removed top-level field held, for the reason when the event turns out to need it. */
  const removed = new Map<string, unknown>();
  /** Fields coerced so far: what was written and where its diagnostic is, since a coerced value the schema still rejects is ignored after all. */
  const coerced = new Map<string, { written: unknown; diagnostic: number }>();
  let errors = firstErrors;
  const toolCalls = value['tool_calls'];
  if (type === 'model_response' && Array.isArray(toolCalls)) {
    value['tool_calls'] = repairToolCalls(toolCalls, repairs);
    const validated = validateEvent(type, value);
    if (validated.ok) return { ok: true, event: validated.event, repairs };
    errors = validated.errors;
  }
  // Each turn fixes the field the schema complains about first: coerced once, else removed (or, for a
  // result's error, kept as text), so no field comes back and the loop ends.
  for (;;) {
    const first = errors[0];
    if (first === undefined) return { ok: false, reason: `invalid ${type} event: does not match the schema` };
    // A union's other branches complain about the field's parent (an error object that is not text either): not this field's business.
    const fieldErrors = errors.filter((error) => error.instancePath === first.instancePath);
    const segments = pathSegments(first.instancePath);
    const key = segments.at(-1);
    if (first.keyword === 'required' || key === undefined) {
      const missing = (first.params as { missingProperty?: string }).missingProperty ?? '';
      const alias = missing === 'call_id' && first.instancePath === '' ? RESULT_CALL_ID_ALIASES.find((name) => isUsableId(value[name])) : undefined;
      if (alias !== undefined) {
        const was = removed.has(missing) ? describeValue(removed.get(missing)) : 'missing';
        repairs.diagnostics.push(`"call_id" is ${was}: its "${alias}" (${excerptOf(String(value[alias]))}) is read as the call_id`);
        value['call_id'] = value[alias];
        const validated = validateEvent(type, value);
        if (validated.ok) return { ok: true, event: validated.event, repairs };
        errors = validated.errors;
        continue;
      }
      return {
        ok: false,
        reason: missingReason(type, missing, removed.has(missing) ? `its "${missing}" is ${describeValue(removed.get(missing))}` : `it has no "${missing}"`),
      };
    }
    let container: unknown = value;
    for (const segment of segments.slice(0, -1)) container = (container as Record<string, unknown>)[segment];
    const parent = container as Record<string, unknown>;
    const field = fieldName(segments);
    const current = parent[key];
    if (segments.length === 1 && PLACING_FIELDS.has(key) && current !== null && current !== '') {
      return { ok: false, reason: missingReason(type, key, `"${key}" is ${describeValue(current)}, ${expectation(fieldErrors)}`) };
    }
    const earlier = coerced.get(field);
    const number = typeof current === 'string' && (wantsType(fieldErrors, 'number') || wantsType(fieldErrors, 'integer')) ? numberFrom(current) : undefined;
    const flag = typeof current === 'string' && wantsType(fieldErrors, 'boolean') ? booleanFrom(current) : undefined;
    if (earlier === undefined && (number !== undefined || flag !== undefined)) {
      parent[key] = number ?? flag;
      coerced.set(field, { written: current, diagnostic: repairs.diagnostics.length });
      repairs.diagnostics.push(
        `"${field}" is ${describeValue(current)}: read as ${number === undefined ? `the boolean ${String(flag)}` : `the number ${String(number)}`}`,
      );
    } else if (type === 'tool_result' && field === 'error' && current !== false && current !== null) {
      // A result that says it failed stays an error: dropping `error` would read it as ok.
      parent[key] = JSON.stringify(current);
      repairs.diagnostics.push(
        `"error" is ${describeValue(current)}, ${expectation(fieldErrors)}: kept as the text ${excerptOf(JSON.stringify(parent[key]))}, so the result is still an error`,
      );
    } else {
      delete parent[key];
      if (segments.length === 1) removed.set(key, current);
      const ignored = `"${field}" is ${describeValue(earlier?.written ?? current)}, ${expectation(fieldErrors)}: ignored`;
      if (earlier !== undefined) repairs.diagnostics[earlier.diagnostic] = ignored;
      // null is how JSON writers spell "none": the same as leaving the field out, nothing to say.
      else if (current !== null) repairs.diagnostics.push(ignored);
    }
    const validated = validateEvent(type, value);
    if (validated.ok) return { ok: true, event: validated.event, repairs };
    errors = validated.errors;
  }
}
