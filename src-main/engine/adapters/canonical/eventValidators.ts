/**
 * Validates trace lines against the published JSON Schema — `docs/trace-format.schema.json`,
 * generated from the zod schemas in shared/, which stay the single source of truth. The schema is
 * compiled by Ajv ahead of time (`npm run schema`) into one plain function per event type: an
 * order of magnitude faster than interpreting the zod schema on every line, and nothing to compile
 * at start-up. A loop author who checks a log against the published schema gets the same verdict.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { CanonicalEvent } from '../../../../shared/trace/canonicalEvents';
import * as generated from './generated/eventValidators.js';

type EventType = CanonicalEvent['type'];

const validators: Readonly<Record<EventType, ValidateFunction>> = generated;

function describe(error: ErrorObject | undefined): string {
  if (error === undefined) return 'does not match the schema';
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return `${path === '' ? '' : `${path}.`}${missing}: is required`;
  }
  return `${path === '' ? '' : `${path}: `}${error.message ?? 'is invalid'}`;
}

/**
 * On failure, `errors` are the schema's complaints about the first field it rejected (several when
 * the field matches none of a union's branches): what the repair pass (eventRepair.ts) works from.
 */
export type EventValidation = { ok: true; event: CanonicalEvent } | { ok: false; reason: string; errors: readonly ErrorObject[] };

/** Checks `value` against the schema of `type`; `value.type` must already hold the canonical name. */
export function validateEvent(type: EventType, value: Record<string, unknown>): EventValidation {
  const validate = validators[type];
  if (validate(value)) return { ok: true, event: value as CanonicalEvent };
  const errors = validate.errors ?? [];
  return { ok: false, reason: `invalid ${type} event: ${describe(errors[0])}`, errors };
}
