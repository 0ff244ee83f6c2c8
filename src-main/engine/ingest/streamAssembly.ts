/**
 * Streamed responses: the fragments of one model response, logged as they arrived, joined per call
 * until the stream closes (or the file ends) and the recorder turns them into the step's response.
 */
import { idText, type EventOf } from '../../../shared/trace/canonicalEvents';
import type { EventSqlRow } from '../store/traceWriter';
import type { RunState } from './runState';

export interface StreamedCall {
  callId: string | null;
  name: string | null;
  argumentParts: string[];
}

/** Fragments of one streamed response, joined per call index (parallel calls interleave). */
export interface OpenStream {
  step: number;
  calls: Map<string, StreamedCall>;
  finishReason: string | null;
  /** The response text streamed so far, for search and to match the run's output; kept up to `streamTextChars` characters. */
  textDeltas: string[];
  textChars: number;
  closed: boolean;
  lastEventId: number;
  lastLine: number;
}

/**
 * Adds a fragment to the step's open stream (opened by its first fragment): a call's parts under its
 * index or id, the text up to `streamTextChars` characters, the finish reason that closes it.
 */
export function addStreamFragment(run: RunState, event: EventOf<'stream_fragment'>, row: EventSqlRow, step: number, streamTextChars: number): void {
  let stream = run.openStreams.get(step);
  if (stream === undefined) {
    stream = { step, calls: new Map(), finishReason: null, textDeltas: [], textChars: 0, closed: false, lastEventId: row.id, lastLine: row.line };
    run.openStreams.set(step, stream);
  }
  stream.lastEventId = row.id;
  stream.lastLine = row.line;
  row.call_id = event.call_id === undefined ? null : idText(event.call_id);
  row.name = event.name ?? null;
  if (event.index !== undefined || event.call_id !== undefined || event.arguments_delta !== undefined) {
    const key = event.index !== undefined ? `#${event.index}` : `id:${event.call_id ?? ''}`;
    let call = stream.calls.get(key);
    if (call === undefined) {
      call = { callId: null, name: null, argumentParts: [] };
      stream.calls.set(key, call);
    }
    call.callId ??= event.call_id === undefined ? null : idText(event.call_id);
    call.name ??= event.name ?? null;
    if (event.arguments_delta !== undefined) call.argumentParts.push(event.arguments_delta);
  }
  if (event.text_delta !== undefined && stream.textChars < streamTextChars) {
    stream.textDeltas.push(event.text_delta);
    stream.textChars += event.text_delta.length;
  }
  if (event.finish_reason !== undefined && event.finish_reason !== null) {
    stream.finishReason = event.finish_reason;
    stream.closed = true;
  }
}
