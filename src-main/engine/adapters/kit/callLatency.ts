/**
 * A call's latency measured from timestamps, for the formats whose record of a call's start and
 * record of its result are each written as it happens (docs/semantics.md §11). Each adapter decides
 * whether its timestamps mean that; none measures from the response that issued a call.
 */
import type { Id } from '../../../../shared/trace/canonicalEvents';
import { millisBetween, toIsoTimestamp } from '../../../../shared/trace/timestamps';

type Timestamp = string | number | undefined;

/** Milliseconds from a call's start to its result; nothing when either is untimed or the result is timed first (out of order, not a measurement). */
export function millisFromStartToResult(startTs: Timestamp, resultTs: Timestamp): number | undefined {
  const latency = millisBetween(toIsoTimestamp(startTs), toIsoTimestamp(resultTs));
  return latency !== null && latency >= 0 ? latency : undefined;
}

/** The start times of a file's calls still waiting for their result, by run and call id. */
export class CallStartTimes {
  private readonly startedAt = new Map<string, Timestamp>();

  started(runId: Id | undefined, callId: Id, ts: Timestamp): void {
    if (ts !== undefined) this.startedAt.set(this.key(runId, callId), ts);
  }

  /** The latency of the call this result answers, measured from its start; the call is forgotten. */
  latencyOf(runId: Id | undefined, callId: Id, resultTs: Timestamp): number | undefined {
    const key = this.key(runId, callId);
    const startTs = this.startedAt.get(key);
    this.startedAt.delete(key);
    return millisFromStartToResult(startTs, resultTs);
  }

  private key(runId: Id | undefined, callId: Id): string {
    return `${runId ?? ''}\u0000${callId}`;
  }
}
