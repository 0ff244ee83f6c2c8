/**
 * Cline's calls matched to their results. Cline writes no tool call ids, so a call's result is the
 * `[<tool> …] Result:` block that the next api_req_started's request carries for it, in order (what
 * the model was actually sent), else the UI's own evidence: an error message, an interruption, a
 * command's output.
 */
import { millisFromStartToResult } from '../kit/callLatency';
import type { Emit, LineRef } from '../formatAdapter';
import { defined, toolResult, unknownEvent } from '../kit/events';
import type { CallRequest } from './records';

/** A call of a model step, from its message until its result is emitted. */
export interface ClineCall extends CallRequest {
  callId: string;
  /** An `ask` (waiting for approval) rather than a `say` (approved, running). */
  asked: boolean;
  step: number;
  line: LineRef;
  ts: string;
  outputs: string[];
  outputLine: LineRef | undefined;
  outputTs: string | undefined;
  error: { text: string; line: LineRef; ts: string } | undefined;
}

interface ResultBlock {
  name: string;
  body: string;
}

/** Tools that are not calls in Loopscope's sense (the model talking to the user): their results are the user's answers. */
const conversationalTools = new Set([
  'attempt_completion',
  'ask_followup_question',
  'plan_mode_respond',
  'act_mode_respond',
  'new_task',
  'condense',
  'summarize_task',
  'report_bug',
  'load_mcp_documentation',
  'focus_chain',
  'use_subagents',
]);

const RESULT_HEADER = /^\[([a-z_]+)(?: [^\n]*)?\] Result:[^\S\n]*$/gm;

/** The `[<tool> for '…'] Result:` blocks of a request's text, in order. */
export function resultBlocks(request: string): ResultBlock[] {
  const headers = [...request.matchAll(RESULT_HEADER)];
  return headers.map((match, index) => {
    const start = match.index + match[0].length;
    const end = headers[index + 1]?.index ?? request.length;
    let body = request.slice(start, end);
    // What Cline appends after the last result: the editor's state, a resumption notice.
    for (const marker of ['<environment_details>', '[TASK RESUMPTION]']) {
      const at = body.indexOf(marker);
      if (at !== -1) body = body.slice(0, at);
    }
    return { name: match[1]!, body: body.trim() };
  });
}

function blockOutcome(body: string): { ok: true } | { ok: false; code: string | undefined; message: string } {
  if (body.startsWith('The tool execution failed with the following error:')) {
    const inner = /<error>\s*([\s\S]*?)\s*<\/error>/.exec(body);
    return { ok: false, code: undefined, message: (inner?.[1] ?? body).slice(0, 1000) };
  }
  if (body.startsWith('The user denied this operation')) return { ok: false, code: 'denied', message: body.slice(0, 1000) };
  return { ok: true };
}

/**
 * Cline runs a step's calls one after another and writes each call's message as it starts (or
 * asks for approval), so a call answered by the next request's result block ends where its error
 * message, else the next call's message, else that request is written (docs/semantics.md §11). A
 * task interrupted in between was idle for an unknown time: the call's latency is not recorded.
 */
function sequentialCallLatency(startTs: string, endTs: string, interruptedTs: string | undefined): number | undefined {
  const interruptedInBetween =
    interruptedTs !== undefined && millisFromStartToResult(startTs, interruptedTs) !== undefined && millisFromStartToResult(interruptedTs, endTs) !== undefined;
  return interruptedInBetween ? undefined : millisFromStartToResult(startTs, endTs);
}

/** The calls of closed steps, until a request, the UI or the end of the file answers them. */
export class CallResults {
  private readonly runId: string;
  /** Calls of closed steps, waiting for the next request to carry their results. */
  private awaiting: ClineCall[] = [];
  /** The task was interrupted (resume_task) since the awaiting calls were made. */
  private interrupted: { line: LineRef; ts: string } | null = null;

  constructor(runId: string) {
    this.runId = runId;
  }

  /** A closed step's calls: the next request answers them. */
  await(calls: readonly ClineCall[]): void {
    this.awaiting.push(...calls);
  }

  /** The task was interrupted: calls the next request does not answer failed. */
  interrupt(line: LineRef, ts: string): void {
    this.interrupted ??= { line, ts };
  }

  /** The last call still waiting for its result. */
  latest(): ClineCall | undefined {
    return this.awaiting[this.awaiting.length - 1];
  }

  /** The calls made since the last request are answered by this request's result blocks, in order; `step` is the step it closes. */
  resolveWithRequest(request: string, line: LineRef, ts: string, step: number, emit: Emit): void {
    const calls = this.awaiting;
    this.awaiting = [];
    const interrupted = this.interrupted;
    this.interrupted = null;
    let next = 0;
    for (const block of request === '' ? [] : resultBlocks(request)) {
      const matches = (call: ClineCall): boolean => (call.headers.length === 0 ? !conversationalTools.has(block.name) : call.headers.includes(block.name));
      const at = calls.findIndex((call, index) => index >= next && matches(call));
      if (at === -1) {
        if (!conversationalTools.has(block.name)) {
          const typeRaw = `request/${block.name} result (no UI message for its call)`;
          emit({ event: unknownEvent(typeRaw, { run_id: this.runId, step, ts }), typeRaw, line });
        }
        continue;
      }
      for (const skipped of calls.slice(next, at)) this.resolveFromUi(skipped, interrupted ?? undefined, emit);
      next = at + 1;
      const call = calls[at]!;
      const outcome = blockOutcome(block.body);
      const latency = sequentialCallLatency(call.ts, call.error?.ts ?? calls[at + 1]?.ts ?? ts, interrupted?.ts);
      const event = toolResult({
        run_id: this.runId,
        step: call.step,
        ts,
        call_id: call.callId,
        name: call.name,
        status: outcome.ok ? 'ok' : 'error',
        output: block.body,
        error: outcome.ok ? undefined : defined({ code: outcome.code, message: outcome.message }),
        latency_ms: latency,
        result_of: `request/${block.name}`,
      });
      emit({ event, typeRaw: `say/api_req_started/${block.name} result`, line });
    }
    for (const call of calls.slice(next)) this.resolveFromUi(call, interrupted ?? undefined, emit);
  }

  /** End of the file: calls with no later request get what the UI shows; while the task waits for approval, an asked call with no evidence stays pending. */
  resolveAtEnd(waitingForApproval: boolean, emit: Emit): void {
    const calls = this.awaiting;
    this.awaiting = [];
    const interrupted = this.interrupted ?? undefined;
    for (const call of calls) {
      if (waitingForApproval && call.asked && call.error === undefined && call.outputs.length === 0) continue;
      this.resolveFromUi(call, interrupted, emit);
    }
  }

  /**
   * A call with no result block: what the UI shows of its outcome — an error message, an
   * interruption, a command's output. With none of these it stays unanswered.
   */
  private resolveFromUi(call: ClineCall, interrupted: { line: LineRef; ts: string } | undefined, emit: Emit): void {
    const base = { run_id: this.runId, step: call.step, call_id: call.callId, name: call.name, result_of: 'ui' };
    if (call.error !== undefined) {
      // The error message is written when the call fails. An interruption's time is when the
      // task was resumed and a command's output's is its first chunk: neither ends the call.
      const latency = millisFromStartToResult(call.ts, call.error.ts);
      const event = toolResult({
        ...base,
        ts: call.error.ts,
        status: 'error',
        output: call.error.text,
        error: { message: call.error.text.slice(0, 1000) },
        latency_ms: latency,
      });
      emit({ event, typeRaw: 'say/error', line: call.error.line });
    } else if (interrupted !== undefined) {
      const event = toolResult({
        ...base,
        ts: interrupted.ts,
        status: 'error',
        error: {
          code: 'interrupted',
          message: 'the task was interrupted before this call’s result reached the model; Cline tells the model to assume it failed',
        },
      });
      emit({ event, typeRaw: 'ask/resume_task', line: interrupted.line });
    } else if (call.outputs.length > 0 && call.outputLine !== undefined) {
      const event = toolResult({ ...base, ts: call.outputTs ?? call.ts, status: 'ok', output: call.outputs.join('\n') });
      emit({ event, typeRaw: 'ask/command_output', line: call.outputLine });
    }
  }
}
