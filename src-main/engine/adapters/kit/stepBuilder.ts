/**
 * A run's steps as a format adapter builds them.
 *
 * Numbering (StepBuilder): step n is the run's n-th model call (1-based, docs/semantics.md), and a
 * tool call belongs to the step whose response issued it, however late its result is written.
 *
 * Ordering (HeldEvents): many formats write a model response over several records (one line per
 * content block, a UI message per tool, a span per call), and the loop starts running the tools,
 * or writes other records, before the response's last record. The model_response is emitted once
 * it is complete, anchored to its first record, so every event of the run written after that
 * record and before the response is complete is held, and released right after the
 * model_response in the order held. A run's events then stay in line order, and a response always
 * precedes the results of the calls it issued (the ingester pairs a result with the call its
 * step's response named).
 */
import type { Emit, MappedEvent } from '../formatAdapter';
import type { AdaptedToolCall } from './events';

export class StepBuilder {
  private current = 0;
  private readonly issuedBy = new Map<string, { step: number; name: string }>();

  /** The step of the latest model call; 0 before the first. */
  get step(): number {
    return this.current;
  }

  /** The latest step for an event between model calls, undefined before the first (the event then names none). */
  get stepSoFar(): number | undefined {
    return this.current > 0 ? this.current : undefined;
  }

  /** Begins the step of the next model call and returns its number. */
  next(): number {
    this.current += 1;
    return this.current;
  }

  /** Records the calls the current step's response issued, for their results. */
  issued(calls: readonly AdaptedToolCall[]): void {
    for (const call of calls) this.issuedBy.set(call.call_id, { step: this.current, name: call.name });
  }

  /** The step that issued the call; the current step for a call no response issued. */
  stepOf(callId: string): number {
    return this.issuedBy.get(callId)?.step ?? this.current;
  }

  /** The calls issued so far, in the order issued, each with its step. */
  *issuedCalls(): IterableIterator<[callId: string, step: number]> {
    for (const [callId, { step }] of this.issuedBy) yield [callId, step];
  }

  /** The name the issuing response gave the call, undefined for a call no response issued. */
  nameOf(callId: string): string | undefined {
    return this.issuedBy.get(callId)?.name;
  }
}

/** The events held behind one model response still being assembled (see the ordering rule above). */
export class HeldEvents {
  private held: MappedEvent[] = [];

  /** Holds the event until the response is emitted. */
  hold(mapped: MappedEvent): void {
    this.held.push(mapped);
  }

  /** Emits the completed response, then the events held behind it in the order held; returns those events and holds none after. */
  emitAfter(response: MappedEvent, emit: Emit): readonly MappedEvent[] {
    const released = this.held;
    this.held = [];
    emit(response);
    for (const mapped of released) emit(mapped);
    return released;
  }
}

/** Emits the event now when no response is being assembled, else holds it behind that response. */
export function emitOrHold(behind: HeldEvents | undefined, mapped: MappedEvent, emit: Emit): void {
  if (behind === undefined) emit(mapped);
  else behind.hold(mapped);
}
