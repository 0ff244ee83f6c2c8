/**
 * Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-*.json`): one JSON document
 * `{sessionId, projectHash, startTime, lastUpdated, messages[]}` per session, read whole
 * (json-values framing: the document arrives as one record, so every event is anchored to it).
 *
 * Each `gemini` message is one model call, with its `tokens` and its `toolCalls[]`; a tool call
 * carries its own outcome (`status`) and result (`result[].functionResponse`, matched by id), so
 * the call and its result are written together. `user`, `info`, `error` and `warning` messages
 * are kept as unknown events. The recording has no end marker: a session whose last message is a
 * reply without tool calls was waiting for the next prompt, and its end is derived from that. The
 * newer JSONL recording (`session-*.jsonl`) is a different format, not read here. See
 * docs/formats/gemini-cli.md.
 */
import type { AdaptedEvent } from './canonicalAdapter';
import { isRecord, type DetectionSample, type FormatAdapter, type LineRef, type MappedEvent } from './formatAdapter';
import { text, finite, field, fileStem } from './jsonValues';

type Emit = (mapped: MappedEvent) => void;
type JsonObject = Record<string, unknown>;
/** A type alias, not an interface: canonical tool calls are loose objects (index signature). */
type ToolCall = { call_id: string; name: string; arguments: unknown };

/** Tool-call statuses after which the call is over (the others: validating, scheduled, executing, awaiting_approval). */
const DONE_STATUSES = new Set(['success', 'error', 'cancelled']);

export function runIdFromPath(path: string): string {
  return fileStem(path, /\.json$/i);
}

/** Message content: a string, a part, or a list of parts (`PartListUnion`). */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : isRecord(content) ? [content] : [];
  if (parts.length === 0) return undefined;
  return parts.map((part) => (typeof part === 'string' ? part : isRecord(part) && typeof part['text'] === 'string' ? part['text'] : '')).join('');
}

function isRecording(value: unknown): value is JsonObject {
  return isRecord(value) && typeof value['sessionId'] === 'string' && typeof value['projectHash'] === 'string' && Array.isArray(value['messages']);
}

function headLooksLikeRecording(head: string): boolean {
  return /^\s*\{\s*"sessionId"\s*:\s*"[^"]*"\s*,\s*"projectHash"\s*:\s*"[^"]*"/.test(head) && /"messages"\s*:\s*\[/.test(head);
}

/** The call's own functionResponse: a result may also hold the responses of the calls made beside it. */
function functionResponse(call: JsonObject, callId: string): JsonObject | undefined {
  const result = call['result'];
  const parts = Array.isArray(result) ? result : isRecord(result) ? [result] : [];
  const responses = parts.map((part) => field(part, 'functionResponse')).filter((response): response is JsonObject => response !== undefined);
  return responses.find((response) => response['id'] === callId) ?? responses.find((response) => response['name'] === call['name'] && response['id'] === undefined);
}

function usageOf(tokens: JsonObject | undefined): JsonObject | undefined {
  if (tokens === undefined) return undefined;
  const input = finite(tokens['input']);
  const output = finite(tokens['output']);
  const cached = finite(tokens['cached']);
  const total = finite(tokens['total']);
  const thoughts = finite(tokens['thoughts']);
  const result = {
    ...(input !== undefined ? { input_tokens: input } : {}),
    ...(output !== undefined ? { output_tokens: output } : {}),
    ...(cached !== undefined ? { cached_input_tokens: cached } : {}),
    ...(total !== undefined ? { total_tokens: total } : {}),
    ...(thoughts !== undefined ? { reasoning_tokens: thoughts } : {}),
  };
  return Object.keys(result).length > 0 ? result : undefined;
}

function mapRecording(doc: JsonObject, runId: string, line: LineRef, emit: Emit): void {
  const out = (event: AdaptedEvent, typeRaw: string): void => emit({ event, typeRaw, line });
  let step = 0;
  let last: { type: string; calls: number; awaitingApproval: boolean; ts: string | undefined } | null = null;
  for (const message of doc['messages'] as unknown[]) {
    if (!isRecord(message)) {
      out({ type: 'unknown', type_raw: 'message (not an object)', run_id: runId }, 'message');
      continue;
    }
    const type = text(message['type']) ?? '(no type)';
    const ts = text(message['timestamp']);
    if (type !== 'gemini') {
      out({ type: 'unknown', type_raw: type, run_id: runId, ...(step > 0 ? { step } : {}), ...(ts !== undefined ? { ts } : {}) }, type);
      last = { type, calls: 0, awaitingApproval: false, ts };
      continue;
    }
    step += 1;
    const toolCalls = Array.isArray(message['toolCalls']) ? message['toolCalls'].filter(isRecord) : [];
    const calls: ToolCall[] = toolCalls.map((call, index) => ({
      call_id: text(call['id']) ?? `${runId}:step${step}:${index}`,
      name: text(call['name']) ?? '(unnamed)',
      arguments: call['args'],
    }));
    const usage = usageOf(field(message, 'tokens'));
    const thoughts = Array.isArray(message['thoughts']) ? message['thoughts'].length : 0;
    out(
      {
        type: 'model_response',
        run_id: runId,
        step,
        ...(ts !== undefined ? { ts } : {}),
        text: contentText(message['content']) ?? null,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
        ...(usage !== undefined ? { usage } : {}),
        ...(text(message['model']) !== undefined ? { model: text(message['model']) } : {}),
        ...(text(message['id']) !== undefined ? { response_id: text(message['id']) } : {}),
        ...(thoughts > 0 ? { thoughts } : {}),
      },
      'gemini',
    );
    let awaitingApproval = false;
    toolCalls.forEach((call, index) => {
      const { call_id: callId, name } = calls[index]!;
      const status = text(call['status']);
      const response = functionResponse(call, callId);
      if (response === undefined && (status === undefined || !DONE_STATUSES.has(status))) {
        // Still validating, scheduled, executing or awaiting approval when the session was saved: no result.
        if (status === 'awaiting_approval') awaitingApproval = true;
        return;
      }
      const body = field(response, 'response');
      const errorText = body?.['error'];
      const failed = status !== undefined ? status !== 'success' : errorText !== undefined;
      const resultTs = text(call['timestamp']);
      out(
        {
          type: 'tool_result',
          run_id: runId,
          step,
          ...(resultTs !== undefined ? { ts: resultTs } : {}),
          call_id: callId,
          name,
          ...(status !== undefined ? { status: status === 'success' ? 'ok' : 'error' } : {}),
          output: body !== undefined && 'output' in body ? body['output'] : (body ?? call['result']),
          ...(failed
            ? { error: { ...(status === 'cancelled' ? { code: 'cancelled' } : {}), ...(typeof errorText === 'string' ? { message: errorText } : {}) } }
            : {}),
        },
        'toolCall',
      );
    });
    last = { type, calls: calls.length, awaitingApproval, ts };
  }
  if (last?.type !== 'gemini') return;
  // The recording writes no end: derive it from the last message when it shows what the CLI was waiting for.
  if (last.calls === 0) {
    out(
      {
        type: 'run_end',
        run_id: runId,
        step,
        ...(last.ts !== undefined ? { ts: last.ts } : {}),
        status: 'waiting_for_input',
        reason: 'derived: the last message is a model reply without tool calls, so the CLI was waiting for the next prompt; Gemini CLI records no end of session',
      },
      'gemini',
    );
  } else if (last.awaitingApproval) {
    out(
      {
        type: 'run_end',
        run_id: runId,
        step,
        ...(last.ts !== undefined ? { ts: last.ts } : {}),
        status: 'waiting_for_approval',
        reason: 'derived: the last message has a tool call with status awaiting_approval and no result; Gemini CLI records no end of session',
      },
      'toolCall',
    );
  }
}

export const geminiCliFormat: FormatAdapter = {
  name: 'gemini-cli',
  framing: 'json-values',
  detect(sample: DetectionSample) {
    const first = sample.framedValues[0];
    if (first !== undefined) {
      return isRecording(first) ? `Gemini CLI chat recording: one document {sessionId, projectHash, messages[]} with ${(first['messages'] as unknown[]).length} messages` : null;
    }
    // The newer JSONL recording starts with a one-line metadata record: not this format.
    if (isRecord(sample.values[0]) && 'sessionId' in sample.values[0]) return null;
    if (headLooksLikeRecording(sample.head)) return 'Gemini CLI chat recording: the document opens with sessionId, projectHash and messages[]';
    return null;
  },
  createMapper({ path }) {
    const fileRunId = runIdFromPath(path);
    let documents = 0;
    return {
      map(value, line, emit) {
        if (!isRecording(value)) return { reason: 'not a Gemini CLI chat recording: expected {sessionId, projectHash, messages[]}' };
        documents += 1;
        const runId = (text(value['sessionId']) || fileRunId) + (documents > 1 ? `#${documents}` : '');
        mapRecording(value, runId, line, emit);
        return undefined;
      },
      finish() {},
    };
  },
};
