/**
 * Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-*.json`): one JSON document
 * `{sessionId, projectHash, startTime, lastUpdated, messages[]}` per session, streamed (json-values
 * framing with `messages` streamed: the head, then each message a record anchored to its own bytes).
 *
 * Each `gemini` message is one model call, with its `tokens` and its `toolCalls[]`; a tool call
 * carries its own outcome (`status`) and result (`result[].functionResponse`, matched by id), so
 * the call and its result are written together. `user`, `info`, `error` and `warning` messages
 * are kept as unknown events. The recording has no end marker: a session whose last message is a
 * reply without tool calls was waiting for the next prompt, and its end is derived from that. The
 * newer JSONL recording (`session-*.jsonl`) is a different format, not read here. See
 * docs/formats/gemini-cli.md.
 */
import { isRecord, type Emit, type AdaptedEvent, type DetectionSample, type FormatAdapter, type LineRef } from './formatAdapter';
import { callsIfAny, defined, definedIfAny, modelResponse, runEnd, toolResult, unknownEvent, type AdaptedToolCall } from './kit/events';
import { text, finite, field, fileStem, contentText, textMember, type JsonObject, type PartJoining } from './kit/jsonValues';
import { StepBuilder } from './kit/stepBuilder';

/** Tool-call statuses after which the call is over (the others: validating, scheduled, executing, awaiting_approval). */
const DONE_STATUSES = new Set(['success', 'error', 'cancelled']);

export function runIdFromPath(path: string): string {
  return fileStem(path, /\.json$/i);
}

/** A message's parts are written back to back; a part may be a bare string. */
const GEMINI_PARTS: PartJoining = { separator: '', partText: (part) => (typeof part === 'string' ? part : textMember(part)) };

/** Message content: a string, a part, or a list of parts (`PartListUnion`); undefined for no part at all. */
function messageText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : isRecord(content) ? [content] : [];
  return parts.length === 0 ? undefined : contentText(parts, GEMINI_PARTS);
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
  return (
    responses.find((response) => response['id'] === callId) ?? responses.find((response) => response['name'] === call['name'] && response['id'] === undefined)
  );
}

/**
 * The recording's `tokens`, copied from Gemini's usage metadata: `input` (promptTokenCount) holds
 * `cached` (cachedContentTokenCount); `thoughts` (thoughtsTokenCount) are the reasoning tokens.
 * Gemini counts apart what the canonical usage counts together (`total` = input + output + thoughts
 * + tool): `output` (candidatesTokenCount) leaves the thoughts out, and `input` the prompt of the
 * model's own tool use (`tool`, toolUsePromptTokenCount). So the canonical `output_tokens` is
 * `output` + `thoughts`, the output billed, reasoning included; and `input_tokens`, the whole
 * prompt, is `input` + `tool`.
 */
function usageOf(tokens: JsonObject | undefined): JsonObject | undefined {
  if (tokens === undefined) return undefined;
  return definedIfAny({
    input_tokens: sumOfCounts(finite(tokens['input']), finite(tokens['tool'])),
    output_tokens: sumOfCounts(finite(tokens['output']), finite(tokens['thoughts'])),
    cached_input_tokens: finite(tokens['cached']),
    total_tokens: finite(tokens['total']),
    reasoning_tokens: finite(tokens['thoughts']),
  });
}

/** Two counts of one total; undefined when neither was recorded (a missing part counts as none). */
function sumOfCounts(counted: number | undefined, more: number | undefined): number | undefined {
  return counted === undefined && more === undefined ? undefined : (counted ?? 0) + (more ?? 0);
}

/** What the last message showed, for the end the recording does not write. */
interface LastMessage {
  type: string;
  calls: number;
  awaitingApproval: boolean;
  ts: string | undefined;
  line: LineRef;
}

/** One recording: its head (session id), then its messages one by one, then its derived end. */
class RecordingMapper {
  private readonly steps = new StepBuilder();
  private last: LastMessage | null = null;

  constructor(
    readonly runId: string,
    private readonly emit: Emit,
  ) {}

  private out(event: AdaptedEvent, typeRaw: string, line: LineRef): void {
    this.emit({ event, typeRaw, line });
  }

  message(message: JsonObject, line: LineRef): void {
    const runId = this.runId;
    const type = text(message['type']) ?? '(no type)';
    const ts = text(message['timestamp']);
    if (type !== 'gemini') {
      this.out(unknownEvent(type, { run_id: runId, step: this.steps.stepSoFar, ts }), type, line);
      this.last = { type, calls: 0, awaitingApproval: false, ts, line };
      return;
    }
    const step = this.steps.next();
    const toolCalls = Array.isArray(message['toolCalls']) ? message['toolCalls'].filter(isRecord) : [];
    const calls: AdaptedToolCall[] = toolCalls.map((call, index) => ({
      call_id: text(call['id']) ?? `${runId}:step${step}:${index}`,
      name: text(call['name']) ?? '(unnamed)',
      arguments: call['args'],
    }));
    const thoughts = Array.isArray(message['thoughts']) ? message['thoughts'].length : 0;
    this.out(
      modelResponse({
        run_id: runId,
        step,
        ts,
        text: messageText(message['content']) ?? null,
        tool_calls: callsIfAny(calls),
        usage: usageOf(field(message, 'tokens')),
        model: text(message['model']),
        // Gemini CLI's model calls go to Google's Gemini (the recording names no provider).
        provider: 'google',
        response_id: text(message['id']),
        thoughts: thoughts > 0 ? thoughts : undefined,
      }),
      'gemini',
      line,
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
      this.out(
        toolResult({
          run_id: runId,
          step,
          ts: text(call['timestamp']),
          call_id: callId,
          name,
          status: status === undefined ? undefined : status === 'success' ? 'ok' : 'error',
          output: body !== undefined && 'output' in body ? body['output'] : (body ?? call['result']),
          error: failed ? defined({ code: status === 'cancelled' ? 'cancelled' : undefined, message: text(errorText) }) : undefined,
        }),
        'toolCall',
        line,
      );
    });
    this.last = { type, calls: calls.length, awaitingApproval, ts, line };
  }

  /** The recording writes no end: derive it from the last message when it shows what the CLI was waiting for. */
  close(): void {
    const last = this.last;
    if (last?.type !== 'gemini') return;
    const end = (status: string, reason: string) => runEnd({ run_id: this.runId, step: this.steps.step, ts: last.ts, status, reason });
    if (last.calls === 0) {
      const reason =
        'derived: the last message is a model reply without tool calls, so the CLI was waiting for the next prompt; Gemini CLI records no end of session';
      this.out(end('waiting_for_input', reason), 'gemini', last.line);
    } else if (last.awaitingApproval) {
      const reason = 'derived: the last message has a tool call with status awaiting_approval and no result; Gemini CLI records no end of session';
      this.out(end('waiting_for_approval', reason), 'toolCall', last.line);
    }
  }
}

export const geminiCliFormat: FormatAdapter = {
  name: 'gemini-cli',
  framing: 'json-values',
  streamedArrays: ['messages'],
  detect(sample: DetectionSample) {
    const first = sample.framedValues[0];
    if (first !== undefined) {
      return isRecording(first)
        ? `Gemini CLI chat recording: one document {sessionId, projectHash, messages[]} with ${(first['messages'] as unknown[]).length} messages`
        : null;
    }
    // The newer JSONL recording starts with a one-line metadata record: not this format.
    if (isRecord(sample.values[0]) && 'sessionId' in sample.values[0]) return null;
    if (headLooksLikeRecording(sample.head)) return 'Gemini CLI chat recording: the document opens with sessionId, projectHash and messages[]';
    return null;
  },
  createMapper({ path }) {
    const fileRunId = runIdFromPath(path);
    let documents = 0;
    let recording: RecordingMapper | null = null;
    return {
      map(value, line, emit) {
        if (isRecording(value)) {
          // A recording's head (its messages follow, streamed one by one); a second one in the file is a run of its own.
          recording?.close();
          documents += 1;
          recording = new RecordingMapper((text(value['sessionId']) || fileRunId) + (documents > 1 ? `#${documents}` : ''), emit);
          return undefined;
        }
        if (recording === null) return { reason: 'not a Gemini CLI chat recording: expected {sessionId, projectHash, messages[]}' };
        if (!isRecord(value)) return { reason: 'a message of the recording that is not an object' };
        if (typeof value['type'] === 'string') recording.message(value, line);
        // Members written after `messages` arrive as an object of their own: kept, not modelled.
        else emit({ event: unknownEvent('recording (members after messages)', { run_id: recording.runId }), typeRaw: 'recording', line });
        return undefined;
      },
      finish() {
        recording?.close();
      },
    };
  },
};
