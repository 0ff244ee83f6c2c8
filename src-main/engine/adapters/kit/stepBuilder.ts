/**
 * A run's steps as a format adapter numbers them: step n is the run's n-th model call (1-based,
 * docs/semantics.md), and a tool call belongs to the step whose response issued it, however late
 * its result is written. One per run.
 */
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
