/**
 * Terminal states (docs/semantics.md §2). Loops spell them many ways; Loopscope normalizes the spelling
 * and always keeps the original string next to it, so nothing the loop said is lost.
 */
import { z } from 'zod';

export const runStatusSchema = z.enum([
  'succeeded',
  'model_finished',
  'budget_exceeded',
  'protocol_error',
  'refused',
  'failed',
  'cancelled',
  'waiting_for_input',
  'waiting_for_approval',
  'unterminated',
  /**
   * No terminal event yet in a file Loopscope is following while it is written (a loop running
   * now); it becomes `unterminated` once the file has been idle for the configured time.
   */
  'running',
  'unknown',
]);
export type RunStatus = z.infer<typeof runStatusSchema>;

const statusSpellings: Readonly<Record<string, RunStatus>> = {
  succeeded: 'succeeded',
  success: 'succeeded',
  successful: 'succeeded',
  completed: 'succeeded',
  complete: 'succeeded',
  ok: 'succeeded',
  // OpenTelemetry's status of a span that ended without an error.
  unset: 'succeeded',
  done: 'succeeded',
  model_finished: 'model_finished',
  submitted: 'model_finished',
  task_complete: 'model_finished',
  finished: 'model_finished',
  final: 'model_finished',
  budget_exceeded: 'budget_exceeded',
  // SWE-agent and mini-swe-agent exit statuses.
  exit_cost: 'budget_exceeded',
  exit_context: 'budget_exceeded',
  exit_total_execution_time: 'budget_exceeded',
  limits_exceeded: 'budget_exceeded',
  // Inspect AI sample limits.
  message_limit: 'budget_exceeded',
  token_limit: 'budget_exceeded',
  time_limit: 'budget_exceeded',
  working_limit: 'budget_exceeded',
  cost_limit: 'budget_exceeded',
  context_limit: 'budget_exceeded',
  custom_limit: 'budget_exceeded',
  operator_limit: 'cancelled',
  time_exceeded: 'budget_exceeded',
  budget_exhausted: 'budget_exceeded',
  max_turns_exceeded: 'budget_exceeded',
  max_steps_exceeded: 'budget_exceeded',
  max_tool_calls_exceeded: 'budget_exceeded',
  deadline_exceeded: 'budget_exceeded',
  hit_cap: 'budget_exceeded',
  protocol_error: 'protocol_error',
  refused: 'refused',
  refusal: 'refused',
  rejected: 'refused',
  failed: 'failed',
  exit_format: 'failed',
  exit_error: 'failed',
  exit_api: 'failed',
  exit_environment_error: 'failed',
  exit_command_timeout: 'failed',
  exit_command: 'failed',
  exit_forfeit: 'failed',
  failure: 'failed',
  error: 'failed',
  errored: 'failed',
  cancelled: 'cancelled',
  canceled: 'cancelled',
  aborted: 'cancelled',
  interrupted: 'cancelled',
  user_interruption: 'cancelled',
  stopped: 'cancelled',
  waiting_for_input: 'waiting_for_input',
  awaiting_user_input: 'waiting_for_input',
  paused: 'waiting_for_input',
  awaiting_user_confirmation: 'waiting_for_approval',
  waiting_for_approval: 'waiting_for_approval',
};

/** `MODEL_FINISHED`, `model-finished`, `Model Finished`, `maxTurns` and `Max turns exceeded` all fold to snake_case. */
export function foldSpelling(raw: string): string {
  return raw
    .trim()
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s.-]+/g, '_');
}

/**
 * A status that is an exception's class name (`InternalServerError`, `KeyError`, `TimeoutException`):
 * loops that stop on an exception write its name as their exit status, so the run failed.
 */
function exceptionStatus(raw: string): RunStatus {
  return /^[A-Z][A-Za-z0-9]*(Error|Exception)$/.test(raw.trim()) ? 'failed' : 'unknown';
}

export interface TerminalStatusInput {
  status?: string | undefined;
  hitCap?: boolean | undefined;
  output?: unknown;
}

export interface NormalizedStatus {
  status: RunStatus;
  /** What the loop wrote, e.g. `BUDGET_EXCEEDED` or `hitCap:true`. */
  raw: string;
}

/** `submitted (exit_cost)`, `submitted (RuntimeError)`: an automatic ending after a limit or error (SWE-agent) is that limit or error. */
const QUALIFIED_STATUS = /^[^()]+\(([^()]+)\)\s*$/;

/** Normalizes a run_end event's status; `hitCap` (step-capped loops, docs/semantics.md §2) counts when no status string is given. */
export function normalizeTerminalStatus(input: TerminalStatusInput): NormalizedStatus {
  if (input.status !== undefined && input.status.trim() !== '') {
    // A status with parentheses is never a spelling as a whole: only its qualifier can be read.
    const spelling = QUALIFIED_STATUS.exec(input.status)?.[1] ?? input.status;
    return { status: statusSpellings[foldSpelling(spelling)] ?? exceptionStatus(spelling), raw: input.status };
  }
  if (input.hitCap === true) return { status: 'budget_exceeded', raw: 'hitCap:true' };
  if (input.hitCap === false) {
    const hasOutput = input.output !== undefined && input.output !== null && input.output !== '';
    return { status: hasOutput ? 'succeeded' : 'failed', raw: 'hitCap:false' };
  }
  return { status: 'unknown', raw: '' };
}

/**
 * Paused states (docs/semantics.md §2): not finished, so unanswered calls are pending, not
 * dangling; an event of the loop logged after a pause is its resumption, not an event after the end.
 */
export function isPausedStatus(status: RunStatus): boolean {
  return status === 'waiting_for_input' || status === 'waiting_for_approval';
}

/** A run that has not ended yet — still being written, or paused: its unanswered calls are pending (docs/semantics.md §4). */
export function isOngoingStatus(status: RunStatus): boolean {
  return status === 'running' || isPausedStatus(status);
}

/** The run says it finished its task: the claim an incomplete answer must not carry (docs/semantics.md §1). */
export function claimsSuccess(status: RunStatus): boolean {
  return status === 'succeeded' || status === 'model_finished';
}
