/**
 * Typed builders of canonical events for the format adapters. An adapter passes every field it
 * may have, `undefined` for those it has not; the builder leaves those out, so an event carries
 * only what the source wrote (as the trace format says) without a conditional spread per field.
 * The event's keys keep the order the adapter wrote them in, after `type`: stored events and
 * reports are compared byte for byte, so an adapter's key order is part of its output.
 */
import type { CanonicalEventType, EventOf } from '../../../../shared/trace/canonicalEvents';
import type { UnknownEvent } from '../formatAdapter';

/**
 * A tool call as an adapter builds it: its id is always text (the adapter derives one when the
 * source has none), so it keys maps and names derived ids. A type alias, not an interface, so that
 * it stays assignable to the canonical call, a loose object with an index signature.
 */
export type AdaptedToolCall = { call_id: string; name: string; arguments: unknown };

/** An event's fields other than `type`, each optional one also accepting `undefined`. */
export type EventFields<E> = { [K in keyof E as K extends 'type' ? never : K]: E[K] };

/** The defined members of `fields`, in order, written into `into` (an event starts with its `type`): no intermediate object on the hot path. */
function withoutUndefined(fields: object, into: Record<string, unknown> = {}): Record<string, unknown> {
  for (const key in fields) {
    const value = (fields as Record<string, unknown>)[key];
    if (value !== undefined) into[key] = value;
  }
  return into;
}

function build<T extends CanonicalEventType>(type: T, fields: EventFields<EventOf<T>>): EventOf<T> {
  return withoutUndefined(fields, { type }) as EventOf<T>;
}

export const runStart = (fields: EventFields<EventOf<'run_start'>>): EventOf<'run_start'> => build('run_start', fields);
export const modelRequest = (fields: EventFields<EventOf<'model_request'>>): EventOf<'model_request'> => build('model_request', fields);
export const modelResponse = (fields: EventFields<EventOf<'model_response'>>): EventOf<'model_response'> => build('model_response', fields);
export const toolCallStart = (fields: EventFields<EventOf<'tool_call_start'>>): EventOf<'tool_call_start'> => build('tool_call_start', fields);
export const toolResult = (fields: EventFields<EventOf<'tool_result'>>): EventOf<'tool_result'> => build('tool_result', fields);
export const toolCallNotExecuted = (fields: EventFields<EventOf<'tool_call_not_executed'>>): EventOf<'tool_call_not_executed'> =>
  build('tool_call_not_executed', fields);
export const runEnd = (fields: EventFields<EventOf<'run_end'>>): EventOf<'run_end'> => build('run_end', fields);

/** A record Loopscope does not model, kept under its own type name. */
export function unknownEvent(typeRaw: string, fields: EventFields<Omit<UnknownEvent, 'type_raw'>>): UnknownEvent {
  return { type: 'unknown', type_raw: typeRaw, ...withoutUndefined(fields) };
}

/** The fields that are defined, in the order written: a nested member such as `error`. */
export function defined<F extends object>(fields: F): Partial<F> {
  return withoutUndefined(fields) as Partial<F>;
}

/** The fields that are defined, or undefined when none is: a nested member such as `usage`, left out rather than written empty. */
export function definedIfAny<F extends object>(fields: F): Partial<F> | undefined {
  const kept = withoutUndefined(fields);
  return Object.keys(kept).length > 0 ? (kept as Partial<F>) : undefined;
}

/** The calls, or undefined for none: `tool_calls` is left out of a response that made no call. */
export function callsIfAny(calls: AdaptedToolCall[]): AdaptedToolCall[] | undefined {
  return calls.length > 0 ? calls : undefined;
}
