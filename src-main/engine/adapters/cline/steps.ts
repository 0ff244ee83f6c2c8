/**
 * Cline's model steps and the end of its task. A step opens at a `say:"api_req_started"` (or at
 * model content with none before it), collects the messages of the model's response, and closes
 * into one model_response. Cline writes no end of task: it is derived from the task's last message
 * that tells.
 */
import type { EventOf, ToolCall } from '../../../../shared/trace/canonicalEvents';
import { isRecord, type LineRef, type MappedEvent } from '../formatAdapter';
import { modelResponse, runEnd } from '../kit/events';
import { text as textValue, type JsonObject as Json } from '../kit/jsonValues';
import { HeldEvents } from '../kit/stepBuilder';
import { apiErrorOf, count, usageOf } from './records';
import type { ClineCall } from './results';

type Outcome = NonNullable<EventOf<'model_response'>['outcome']>;

export interface Step {
  step: number;
  line: LineRef;
  ts: string;
  typeRaw: string;
  /** Opened by content with no api_req_started before it (Cline deletes an unfinished one when a task resumes). */
  implicit: boolean;
  usage: Json | undefined;
  cost: number | undefined;
  cancelReason: string | undefined;
  streamingFailed: string | undefined;
  apiFailed: string | undefined;
  model: string | undefined;
  provider: string | undefined;
  texts: string[];
  reasoning: string[];
  completion: string | undefined;
  question: string | undefined;
  calls: ClineCall[];
  /** Events of the step's other messages, emitted after its model_response, in order. */
  held: HeldEvents;
  /** A checkpoint, user message or resume was seen: more model content belongs to a new model call. */
  closedForContent: boolean;
  deletedRange: unknown;
}

/** The task's last message that tells how the task ended, so far. */
export type LastWord =
  | { kind: 'open' }
  | { kind: 'completion'; line: LineRef; ts: string; text: string | undefined; typeRaw: string }
  | { kind: 'paused'; status: 'waiting_for_input' | 'waiting_for_approval'; line: LineRef; ts: string; what: string }
  | { kind: 'interrupted'; line: LineRef; ts: string }
  | { kind: 'failed'; line: LineRef; ts: string; text: string }
  | { kind: 'budget'; line: LineRef; ts: string; limit: string; what: string };

/** Step number `step`, opened by `message` (its api_req_started's parsed text is `info`, empty when `implicit`). */
export function newStep(step: number, message: Json, line: LineRef, ts: string, typeRaw: string, implicit: boolean, info: Json): Step {
  const modelInfo = isRecord(message['modelInfo']) ? message['modelInfo'] : {};
  return {
    step,
    line,
    ts,
    typeRaw,
    implicit,
    usage: usageOf(info),
    cost: count(info['cost']),
    cancelReason: textValue(info['cancelReason']),
    streamingFailed: textValue(info['streamingFailedMessage']),
    apiFailed: undefined,
    model: textValue(modelInfo['modelId']),
    provider: textValue(modelInfo['providerId']),
    texts: [],
    reasoning: [],
    completion: undefined,
    question: undefined,
    calls: [],
    held: new HeldEvents(),
    closedForContent: false,
    deletedRange: message['conversationHistoryDeletedRange'],
  };
}

export function stepHasContent(step: Step): boolean {
  return step.texts.length > 0 || step.reasoning.length > 0 || step.calls.length > 0 || step.completion !== undefined || step.question !== undefined;
}

function outcomeOf(step: Step): { outcome: Outcome; incompleteReason?: string } {
  if (step.cancelReason !== undefined) return { outcome: 'incomplete', incompleteReason: step.cancelReason };
  if (step.apiFailed !== undefined) return { outcome: 'incomplete', incompleteReason: 'api_req_failed' };
  // Cline removes an api_req_started that never got its cost when the task resumes: the request did not finish.
  if (step.implicit) return { outcome: 'incomplete', incompleteReason: 'interrupted' };
  if (step.calls.length > 0) return { outcome: 'tool_calls' };
  if (stepHasContent(step)) return { outcome: 'final' };
  return { outcome: 'incomplete', incompleteReason: 'no_response' };
}

/** The model_response a closed step is; `truncated`: the conversation history's deleted range changed with it. */
export function responseOf(step: Step, runId: string, truncated: boolean): EventOf<'model_response'> {
  const { outcome, incompleteReason } = outcomeOf(step);
  const texts = [...step.texts, ...(step.question !== undefined ? [step.question] : []), ...(step.completion !== undefined ? [step.completion] : [])];
  const toolCalls: ToolCall[] = step.calls.map((call) => ({
    call_id: call.callId,
    name: call.name,
    arguments: call.arguments,
    ...(call.asked ? { approval: 'asked' } : {}),
  }));
  const apiFailure = step.streamingFailed ?? step.apiFailed;
  return modelResponse({
    run_id: runId,
    step: step.step,
    ts: step.ts,
    outcome,
    text: texts.length > 0 ? texts.join('\n') : null,
    tool_calls: toolCalls,
    incomplete_reason: incompleteReason,
    usage: step.usage,
    model: step.model,
    provider: step.provider,
    reasoning: step.reasoning.length > 0 ? step.reasoning.join('\n') : undefined,
    completion_result: step.completion !== undefined ? true : undefined,
    api_error: apiFailure !== undefined ? apiErrorOf(apiFailure) : undefined,
    conversation_history_deleted_range: truncated ? step.deletedRange : undefined,
    api_req_started: step.implicit ? 'missing' : undefined,
  });
}

/** The run_end the task's last word tells, at step `steps`; none while the task is open. */
export function derivedEnd(last: LastWord, runId: string, steps: number): MappedEvent | undefined {
  const end = (status: string, reason: string, line: LineRef, ts: string, typeRaw: string, extra: Partial<EventOf<'run_end'>> = {}): MappedEvent => {
    const event = runEnd({ run_id: runId, step: steps, ts, status, reason: `derived: ${reason}`, ...extra });
    return { event, typeRaw, line };
  };
  const at = (line: LineRef): string => `line ${line.lineNumber}`;
  switch (last.kind) {
    case 'completion':
      return end(
        'model_finished',
        `the task's last message is completion_result (${at(last.line)}): attempt_completion, the model presenting its result`,
        last.line,
        last.ts,
        last.typeRaw,
        {
          ...(last.text !== undefined ? { output: last.text } : {}),
        },
      );
    case 'paused':
      return end(
        last.status,
        `the task's last message is ${last.what} (${at(last.line)}), still waiting for the user`,
        last.line,
        last.ts,
        last.what.split(' ')[0]!,
      );
    case 'interrupted':
      return end(
        'interrupted',
        `the task's last message is ask/resume_task (${at(last.line)}): the task was interrupted and not resumed`,
        last.line,
        last.ts,
        'ask/resume_task',
      );
    case 'failed':
      return end(
        'failed',
        `the task's last message is ask/api_req_failed (${at(last.line)}): ${last.text.slice(0, 200)}`,
        last.line,
        last.ts,
        'ask/api_req_failed',
      );
    case 'budget':
      return end(
        'budget_exceeded',
        `${last.what} (${at(last.line)})`,
        last.line,
        last.ts,
        `ask/${last.limit === 'max_requests' ? 'auto_approval_max_req_reached' : 'mistake_limit_reached'}`,
        { limit: last.limit },
      );
    case 'open':
      return undefined;
  }
}
