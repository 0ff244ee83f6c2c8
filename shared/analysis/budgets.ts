/**
 * Budgets (docs/semantics.md §5). A budget termination names which limit tripped, its value, the
 * counter and the step — taken from the loop's own terminal event when it says so, otherwise
 * inferred from the budgets the run declared. Budget checks belong *before* actions, so a model
 * call or tool call made after a budget was already used up is reported on its own, as an error,
 * for every limit the run declared.
 *
 * Steps (model calls) and tool calls are counted apart: one turn may issue several calls.
 */
import type { Finding } from '../report';
import { formatCount } from '../formatCount';
import type { Budgets } from '../trace/canonicalEvents';
import { foldSpelling, isOngoingStatus } from '../trace/runStatus';
import { compareTimestamps, millisBetween, timestampText, toIsoTimestamp, type CompactTimestamp } from '../trace/timestamps';
import { finding, runEnding } from './finding';
import { endIndex, issuedCalls, lastResponseUpTo, type ResponseEntry, type RunTimeline, type TimelineEntry } from './timeline';

type LimitName = 'max_turns' | 'max_tool_calls' | 'deadline' | 'max_output_tokens' | 'max_input_tokens' | 'max_cost_usd' | 'max_context_tokens';

/** What each limit counts, and what a message calls it. */
const limitWords: Readonly<Record<LimitName, { unit: string; budget: string }>> = {
  max_turns: { unit: 'model calls', budget: 'the turn budget was used up' },
  max_tool_calls: { unit: 'tool calls', budget: 'the tool-call budget was used up' },
  deadline: { unit: 'ms', budget: 'the deadline had passed' },
  max_output_tokens: { unit: 'output tokens', budget: 'the output-token budget was used up' },
  max_input_tokens: { unit: 'input tokens', budget: 'the input-token budget was used up' },
  max_cost_usd: { unit: 'USD', budget: 'the cost budget was used up' },
  max_context_tokens: { unit: 'input tokens in one model call', budget: 'the context budget was used up' },
};

interface BudgetKey {
  limit: LimitName;
  /** How a time limit is written when not in milliseconds from the run's start: seconds from it, or an absolute time. */
  time?: 's' | 'absolute';
}

/**
 * The names loops declare budgets under (folded to snake_case), canonical name first: when a run
 * declares one limit under two names, the first in this order counts. `max_tokens` is not read:
 * in every model API it caps one response, not a run.
 */
const budgetKeys: Readonly<Record<string, BudgetKey>> = {
  max_turns: { limit: 'max_turns' },
  max_steps: { limit: 'max_turns' },
  max_iterations: { limit: 'max_turns' },
  step_limit: { limit: 'max_turns' },
  turn_limit: { limit: 'max_turns' },
  iteration_limit: { limit: 'max_turns' },
  max_model_calls: { limit: 'max_turns' },
  max_tool_calls: { limit: 'max_tool_calls' },
  tool_call_limit: { limit: 'max_tool_calls' },
  deadline_ms: { limit: 'deadline' },
  deadline: { limit: 'deadline', time: 'absolute' },
  timeout_ms: { limit: 'deadline' },
  // A bare `timeout` or `time_limit` is in seconds, as in the Python loops and eval harnesses that use the name.
  timeout: { limit: 'deadline', time: 's' },
  timeout_s: { limit: 'deadline', time: 's' },
  timeout_seconds: { limit: 'deadline', time: 's' },
  time_limit: { limit: 'deadline', time: 's' },
  max_output_tokens: { limit: 'max_output_tokens' },
  max_completion_tokens: { limit: 'max_output_tokens' },
  output_token_limit: { limit: 'max_output_tokens' },
  max_input_tokens: { limit: 'max_input_tokens' },
  max_prompt_tokens: { limit: 'max_input_tokens' },
  input_token_limit: { limit: 'max_input_tokens' },
  max_cost_usd: { limit: 'max_cost_usd' },
  max_cost: { limit: 'max_cost_usd' },
  cost_limit: { limit: 'max_cost_usd' },
  max_budget_usd: { limit: 'max_cost_usd' },
  max_budget_per_task: { limit: 'max_cost_usd' },
  max_context_tokens: { limit: 'max_context_tokens' },
  context_limit: { limit: 'max_context_tokens' },
  max_context_window: { limit: 'max_context_tokens' },
  max_context_length: { limit: 'max_context_tokens' },
};

/** Words a terminal event may name its limit with that are not declaration names. */
const endLimitWords: Readonly<Record<string, LimitName>> = {
  turns: 'max_turns',
  steps: 'max_turns',
  iterations: 'max_turns',
  tool_calls: 'max_tool_calls',
  time: 'deadline',
  output_tokens: 'max_output_tokens',
  input_tokens: 'max_input_tokens',
  cost: 'max_cost_usd',
  context: 'max_context_tokens',
  context_tokens: 'max_context_tokens',
  context_window: 'max_context_tokens',
  context_length: 'max_context_tokens',
};

function normalizeLimit(raw: string): LimitName | null {
  const folded = foldSpelling(raw);
  const bare = folded.replace(/_(exceeded|exhausted|reached)$/, '');
  return budgetKeys[folded]?.limit ?? budgetKeys[bare]?.limit ?? endLimitWords[bare] ?? null;
}

interface DeclaredLimit {
  limit: LimitName;
  /** The name the run declared it under (`max_steps` for step-capped loops). */
  declaredAs: string;
  /** For the deadline: milliseconds from the run's start. */
  max: number;
}

function declaredLimits(budgets: Budgets, startedAt: string | null): DeclaredLimit[] {
  const byFoldedKey = new Map(Object.entries(budgets).map(([key, value]) => [foldSpelling(key), { key, value }]));
  const limits = new Map<LimitName, DeclaredLimit>();
  for (const [folded, { limit, time }] of Object.entries(budgetKeys)) {
    const declared = byFoldedKey.get(folded);
    if (declared === undefined || limits.has(limit)) continue;
    const { key, value } = declared;
    let max: number | null = null;
    if (time === 'absolute') max = typeof value === 'string' || typeof value === 'number' ? millisBetween(startedAt, toIsoTimestamp(value)) : null;
    else if (typeof value === 'number' && Number.isFinite(value) && value > 0) max = time === 's' ? value * 1000 : value;
    if (max !== null) limits.set(limit, { limit, declaredAs: key, max });
  }
  return [...limits.values()];
}

/** What the loop had seen when it took an action (or at its end). */
interface Counters {
  steps: number;
  executedToolCalls: number;
  outputTokens: number;
  inputTokens: number;
  costUsd: number;
  /** The largest input of one model call. */
  largestInput: number;
  /** The latest timestamp logged so far. */
  latestTs: CompactTimestamp;
}

function used(limit: LimitName, counters: Counters, startedAt: string | null): number | null {
  switch (limit) {
    case 'max_turns':
      return counters.steps;
    case 'max_tool_calls':
      return counters.executedToolCalls;
    case 'deadline':
      return millisBetween(startedAt, timestampText(counters.latestTs));
    case 'max_output_tokens':
      return counters.outputTokens;
    case 'max_input_tokens':
      return counters.inputTokens;
    case 'max_cost_usd':
      return counters.costUsd;
    case 'max_context_tokens':
      return counters.largestInput;
  }
}

function laterTs(a: CompactTimestamp, b: CompactTimestamp): CompactTimestamp {
  if (a === null) return b;
  return b !== null && compareTimestamps(b, a) > 0 ? b : a;
}

/** An action: a model call, or the first sign that a tool call ran. */
interface Action {
  entry: TimelineEntry;
  /** The tool call; null for a model call. */
  tool: { callId: string; name: string } | null;
  /** The counters when the loop decided to take it. */
  known: Counters;
  /** A model call's own input tokens; null for a tool call. */
  inputTokens: number | null;
}

/** Which limits an action breaks: model calls are held to the turn budget, tool calls to the tool-call budget; both to the rest. */
function breaks(declared: DeclaredLimit, action: Action, startedAt: string | null): number | null {
  const isModelCall = action.tool === null;
  if (declared.limit === 'max_turns' && !isModelCall) return null;
  if (declared.limit === 'max_tool_calls' && isModelCall) return null;
  // The context budget bounds each model call's input (a tool call has none): a call sent over it broke it.
  if (declared.limit === 'max_context_tokens') return (action.inputTokens ?? 0) > declared.max ? action.inputTokens : null;
  const counter = used(declared.limit, action.known, startedAt);
  return counter !== null && counter >= declared.max ? counter : null;
}

function afterExhaustionMessage(declared: DeclaredLimit, action: Action, counter: number, later: number): string {
  const { entry, tool } = action;
  const step = entry.step ?? '?';
  const tail = `${later > 0 ? `; ${formatCount(later)} more action${later === 1 ? '' : 's'} followed` : ''}: budget checks must happen before each ${tool === null ? 'call' : 'action'}`;
  if (declared.limit === 'max_context_tokens') {
    return `a model call at step ${step} was sent with ${formatCount(counter)} input tokens, over the context budget (${declared.declaredAs} ${formatCount(declared.max)})${tail}`;
  }
  const actor = tool === null ? `a model call was made at step ${step}` : `tool call ${tool.callId} (${tool.name}) was executed`;
  let amount: string;
  switch (declared.limit) {
    case 'max_turns':
      amount = '';
      break;
    case 'max_tool_calls':
      amount = `; this was tool call ${formatCount(counter + 1)}`;
      break;
    case 'deadline':
      amount = ` ms; ${formatCount(counter)} ms had passed since the run started`;
      break;
    default:
      amount = `; ${formatCount(counter)} ${limitWords[declared.limit].unit} used`;
  }
  return `${actor} after ${limitWords[declared.limit].budget} (${declared.declaredAs} ${formatCount(declared.max)}${amount})${tail}`;
}

interface LimitCheck extends DeclaredLimit {
  used: number;
}

function describeCheck(check: LimitCheck): string {
  return `${formatCount(check.used)} of ${formatCount(check.max)} ${limitWords[check.limit].unit} used (${check.declaredAs})`;
}

/** The first action that crossed a declared limit, and how many more did after it. */
interface Breach {
  declared: DeclaredLimit;
  action: Action;
  counter: number;
  later: number;
}

/** What one walk over the run's entries counted. */
interface ReplayedRun {
  /** For each limit crossed, the first action that crossed it. */
  breaches: Map<LimitName, Breach>;
  /** The counters at the terminal event; null when the run logged none. */
  atEnd: Counters | null;
  /** The counters after the last entry. */
  atLast: Counters;
  lastStepAtEnd: number | null;
  lastStep: number | null;
}

/**
 * Walks the run's entries in order, counting what each limit measures, and checks every model
 * call and every first execution of an issued tool call against the declared limits before it is
 * counted.
 */
function replayCounters(timeline: RunTimeline, declared: readonly DeclaredLimit[], end: number): ReplayedRun {
  // Only calls a model response issued count against the budget; an orphan result is not a call.
  // Each issued call_id's tool name (the latest call's) until the call first runs: a call_id
  // leaves at its first execution, so what is left is the calls not executed yet.
  const notExecuted = new Map<string, string>();
  const calls = issuedCalls(timeline);
  for (let at = 0; at < calls.length; at += 1) notExecuted.set(calls.callId(at), calls.name(at));
  /**
   * The counters right after the response that issued each call not executed yet: a call with no
   * logged start ran no earlier. Read only at a call's first execution, so it leaves then.
   */
  const atIssue = new Map<string, Counters>();
  const counters: Counters = { steps: 0, executedToolCalls: 0, outputTokens: 0, inputTokens: 0, costUsd: 0, largestInput: 0, latestTs: null };
  const breaches = new Map<LimitName, Breach>();
  let atEnd: Counters | null = null;
  let lastStep: number | null = null;
  let lastStepAtEnd: number | null = null;

  const check = (action: Action): void => {
    for (const limit of declared) {
      const counter = breaks(limit, action, timeline.startedAt);
      if (counter === null) continue;
      const breach = breaches.get(limit.limit);
      if (breach === undefined) breaches.set(limit.limit, { declared: limit, action, counter, later: 0 });
      else breach.later += 1;
    }
  };

  let index = -1;
  for (const entry of timeline.entries) {
    index += 1;
    if (entry.step !== null) lastStep = Math.max(lastStep ?? 0, entry.step);
    if (entry.kind === 'response') {
      // The call was sent after everything logged before it; its own timestamp is when it returned.
      check({ entry, tool: null, known: { ...counters }, inputTokens: entry.inputTokens });
      counters.steps += 1;
      counters.outputTokens += entry.outputTokens ?? 0;
      counters.inputTokens += entry.inputTokens ?? 0;
      counters.largestInput = Math.max(counters.largestInput, entry.inputTokens ?? 0);
      counters.costUsd += entry.costUsd ?? 0;
      counters.latestTs = laterTs(counters.latestTs, entry.ts);
      const issuedAt = { ...counters };
      for (const call of entry.calls) atIssue.set(call.callId, issuedAt);
    } else {
      counters.latestTs = laterTs(counters.latestTs, entry.ts);
      const callId = entry.kind === 'execution' || entry.kind === 'result' ? entry.callId : null;
      const name = callId === null ? undefined : notExecuted.get(callId);
      if (callId !== null && name !== undefined) {
        const tool = { callId, name };
        notExecuted.delete(callId);
        // A logged start is when the call ran; a result alone shows only that it ran after it was issued.
        const seen = entry.kind === 'execution' ? counters : (atIssue.get(tool.callId) ?? counters);
        atIssue.delete(tool.callId);
        check({ entry, tool, known: { ...seen, executedToolCalls: counters.executedToolCalls }, inputTokens: null });
        counters.executedToolCalls += 1;
      }
    }
    if (index === end) {
      atEnd = { ...counters };
      lastStepAtEnd = lastStep;
    }
  }
  return { breaches, atEnd, atLast: counters, lastStepAtEnd, lastStep };
}

/** One error per limit some action was taken after, at the first such action. */
function afterExhaustionFindings(timeline: RunTimeline, breaches: ReadonlyMap<LimitName, Breach>): Finding[] {
  return [...breaches.values()].map(({ declared: limit, action, counter, later }) =>
    finding(timeline, 'budget_exceeded', {
      severity: 'error',
      step: action.entry.step,
      callId: action.tool?.callId ?? null,
      line: action.entry.line,
      message: afterExhaustionMessage(limit, action, counter, later),
      details: {
        limit: limit.limit,
        max: limit.max,
        used: limit.limit === 'max_turns' || limit.limit === 'max_tool_calls' ? counter + 1 : counter,
        after_exhaustion: true,
      },
    }),
  );
}

/** Where and how the run ended, as the verdict on the end reads it. */
interface RunEnd {
  checks: LimitCheck[];
  reached: LimitCheck[];
  stepAtEnd: number | null;
  endLine: number;
  lastResponse: ResponseEntry | undefined;
}

/** The warning for a run whose loop says a budget stopped it: which limit, and whether the trace shows it reached. */
function stoppedByBudgetFinding(timeline: RunTimeline, { checks, reached, stepAtEnd, endLine }: RunEnd): Finding {
  const named = timeline.endLimit !== null ? normalizeLimit(timeline.endLimit) : null;
  // A limit the loop named but the run never declared has no counter to show; never borrow another's.
  // Unnamed, it is the limit reached, or the only one declared (whose counter may fall short of it).
  const stopped = timeline.endLimit !== null ? checks.find((c) => c.limit === named) : (reached[0] ?? (checks.length === 1 ? checks[0] : undefined));
  const raw = timeline.statusRaw !== '' ? ` (${timeline.statusRaw})` : '';
  const limitName = named ?? stopped?.limit ?? null;
  const below = stopped !== undefined && stopped.used < stopped.max;
  const what =
    stopped !== undefined
      ? `the run was stopped by its ${stopped.limit} budget: ${describeCheck(stopped)}`
      : `the run ended with status budget_exceeded${timeline.endLimit !== null ? ` on ${timeline.endLimit}` : ''}; no declared budget shows the counter`;
  const belowNote = below
    ? `; the recorded counter is below the limit, so the trace does not show the limit being reached (the loop may have counted something it did not log, or stopped before an action that would have crossed it)`
    : '';
  return finding(timeline, 'budget_exceeded', {
    severity: 'warning',
    step: stepAtEnd,
    line: endLine,
    message: `${what}, at step ${stepAtEnd ?? '?'}${raw}${belowNote}`,
    details: {
      limit: limitName,
      limit_raw: timeline.endLimit,
      max: stopped?.max ?? null,
      used: stopped?.used ?? null,
      below_limit: stopped === undefined ? null : below,
      inferred: false,
    },
  });
}

/**
 * Inferred: a declared cap reached with no final answer (docs/semantics.md §5: max_steps=8, hitCap). A
 * refusal is a terminal state of its own, and a paused or still-running run has not ended yet.
 */
function cutOffAtCapFinding(timeline: RunTimeline, { reached, stepAtEnd, endLine, lastResponse }: RunEnd): Finding | null {
  const notCutOff =
    lastResponse?.outcome === 'final' ||
    timeline.status === 'succeeded' ||
    timeline.status === 'model_finished' ||
    lastResponse?.outcome === 'refusal' ||
    timeline.status === 'refused' ||
    isOngoingStatus(timeline.status);
  const trippedCap = reached[0];
  if (notCutOff || trippedCap === undefined) return null;
  return finding(timeline, 'budget_exceeded', {
    severity: 'warning',
    step: stepAtEnd,
    line: endLine,
    message: `the run hit its ${trippedCap.limit} budget without a final answer: ${describeCheck(trippedCap)}, the last step (${stepAtEnd ?? '?'}) being ${lastResponse?.outcome === 'tool_calls' ? 'a tool call' : `a ${lastResponse?.outcome ?? 'missing'} response`}; ${runEnding(timeline, stepAtEnd)}`,
    details: { limit: trippedCap.limit, max: trippedCap.max, used: trippedCap.used, inferred: true },
  });
}

export function analyzeBudgets(timeline: RunTimeline): Finding[] {
  const declared = declaredLimits(timeline.budgets ?? {}, timeline.startedAt);
  const end = endIndex(timeline);
  const replayed = replayCounters(timeline, declared, end);
  const findings = afterExhaustionFindings(timeline, replayed.breaches);

  // The verdict on the end counts what was logged up to the terminal event (docs/semantics.md §3).
  // With no timestamp on any of these events, the run's own end time (its requests' included) stands for the clock.
  const final: Counters = { ...(replayed.atEnd ?? replayed.atLast) };
  final.latestTs ??= timeline.endedAt;
  const checks: LimitCheck[] = declared.flatMap((limit) => {
    const counter = used(limit.limit, final, timeline.startedAt);
    return counter === null ? [] : [{ ...limit, used: counter }];
  });
  const runEnd: RunEnd = {
    checks,
    reached: checks.filter((c) => c.used >= c.max),
    stepAtEnd: end >= 0 ? replayed.lastStepAtEnd : replayed.lastStep,
    endLine: end >= 0 ? timeline.entries.line(end) : timeline.lastLine,
    lastResponse: lastResponseUpTo(timeline, end >= 0 ? end : timeline.entries.length - 1),
  };

  if (timeline.status === 'budget_exceeded') return [...findings, stoppedByBudgetFinding(timeline, runEnd)];
  const cutOff = cutOffAtCapFinding(timeline, runEnd);
  return cutOff === null ? findings : [...findings, cutOff];
}
