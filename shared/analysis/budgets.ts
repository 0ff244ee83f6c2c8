/**
 * Budget terminations (docs/semantics.md §5). Names which limit tripped, its value, the counter and the
 * step — taken from the loop's own terminal event when it says so, otherwise inferred from the
 * budgets the run declared. Budget checks belong *before* actions, so a model call or tool call
 * made after a budget was already used up is reported on its own, as an error.
 *
 * Steps (model calls) and tool calls are counted apart: one turn may issue several calls.
 */
import type { Finding } from '../report';
import { formatCount } from '../formatCount';
import type { Budgets } from '../trace/canonicalEvents';
import { isOngoingStatus } from '../trace/runStatus';
import { millisBetween, toIsoTimestamp } from '../trace/timestamps';
import { finding, runEnding } from './finding';
import { responses, type RunTimeline } from './timeline';

type LimitName = 'max_turns' | 'max_tool_calls' | 'deadline' | 'max_output_tokens' | 'max_cost_usd' | 'max_context_tokens';

interface Counters {
  steps: number;
  executedToolCalls: number;
  outputTokens: number;
  costUsd: number;
  elapsedMs: number | null;
}

interface LimitCheck {
  limit: LimitName;
  /** How the run declared it (`max_steps` for step-capped loops). */
  declaredAs: string;
  max: number;
  used: number;
  unit: string;
}

const limitAliases: Readonly<Record<string, LimitName>> = {
  max_turns: 'max_turns',
  max_steps: 'max_turns',
  turns: 'max_turns',
  steps: 'max_turns',
  max_tool_calls: 'max_tool_calls',
  tool_calls: 'max_tool_calls',
  deadline: 'deadline',
  deadline_ms: 'deadline',
  timeout: 'deadline',
  max_output_tokens: 'max_output_tokens',
  output_tokens: 'max_output_tokens',
  max_cost_usd: 'max_cost_usd',
  cost: 'max_cost_usd',
  max_context_tokens: 'max_context_tokens',
};

function normalizeLimit(raw: string): LimitName | null {
  const folded = raw.trim().toLowerCase().replace(/[\s.-]+/g, '_');
  return limitAliases[folded] ?? limitAliases[folded.replace(/_exceeded$|_exhausted$/, '')] ?? null;
}

function deadlineMs(budgets: Budgets, startedAt: string | null): number | null {
  if (budgets.deadline_ms !== undefined) return budgets.deadline_ms;
  if (budgets.deadline === undefined) return null;
  return millisBetween(startedAt, toIsoTimestamp(budgets.deadline));
}

function limitChecks(budgets: Budgets, counters: Counters, startedAt: string | null): LimitCheck[] {
  const checks: LimitCheck[] = [];
  const turns = budgets.max_turns ?? budgets.max_steps;
  if (turns !== undefined) {
    checks.push({ limit: 'max_turns', declaredAs: budgets.max_turns !== undefined ? 'max_turns' : 'max_steps', max: turns, used: counters.steps, unit: 'model calls' });
  }
  if (budgets.max_tool_calls !== undefined) {
    checks.push({ limit: 'max_tool_calls', declaredAs: 'max_tool_calls', max: budgets.max_tool_calls, used: counters.executedToolCalls, unit: 'tool calls' });
  }
  if (budgets.max_cost_usd !== undefined) {
    checks.push({ limit: 'max_cost_usd', declaredAs: 'max_cost_usd', max: budgets.max_cost_usd, used: counters.costUsd, unit: 'USD' });
  }
  if (budgets.max_output_tokens !== undefined) {
    checks.push({ limit: 'max_output_tokens', declaredAs: 'max_output_tokens', max: budgets.max_output_tokens, used: counters.outputTokens, unit: 'output tokens' });
  }
  const deadline = deadlineMs(budgets, startedAt);
  if (deadline !== null && counters.elapsedMs !== null) {
    checks.push({ limit: 'deadline', declaredAs: budgets.deadline_ms !== undefined ? 'deadline_ms' : 'deadline', max: deadline, used: counters.elapsedMs, unit: 'ms' });
  }
  return checks;
}

function describeCheck(check: LimitCheck): string {
  return `${formatCount(check.used)} of ${formatCount(check.max)} ${check.unit} used (${check.declaredAs})`;
}

export function analyzeBudgets(timeline: RunTimeline): Finding[] {
  const findings: Finding[] = [];
  const budgets = timeline.budgets ?? {};
  const maxTurns = budgets.max_turns ?? budgets.max_steps;
  const maxToolCalls = budgets.max_tool_calls;
  const executed = new Set<string>();
  // Only calls a model response issued count against the budget; an orphan result is not a call.
  const issued = new Set(responses(timeline).flatMap((response) => response.calls.map((call) => call.callId)));
  const counters: Counters = { steps: 0, executedToolCalls: 0, outputTokens: 0, costUsd: 0, elapsedMs: millisBetween(timeline.startedAt, timeline.endedAt) };
  let lastStep: number | null = null;

  for (const entry of timeline.entries) {
    if (entry.step !== null) lastStep = Math.max(lastStep ?? 0, entry.step);
    if (entry.kind === 'response') {
      counters.steps += 1;
      counters.outputTokens += entry.outputTokens ?? 0;
      counters.costUsd += entry.costUsd ?? 0;
      if (maxTurns !== undefined && counters.steps === maxTurns + 1) {
        findings.push(
          finding(timeline, 'budget_exceeded', {
            severity: 'error',
            step: entry.step,
            line: entry.line,
            message: `a model call was made at step ${entry.step ?? '?'} after the turn budget was used up (${budgets.max_turns !== undefined ? 'max_turns' : 'max_steps'} ${maxTurns}): budget checks must happen before each call`,
            details: { limit: 'max_turns', max: maxTurns, used: counters.steps, after_exhaustion: true },
          }),
        );
      }
    }
    if ((entry.kind === 'execution' || entry.kind === 'result') && issued.has(entry.callId) && !executed.has(entry.callId)) {
      executed.add(entry.callId);
      counters.executedToolCalls += 1;
      if (maxToolCalls !== undefined && counters.executedToolCalls === maxToolCalls + 1) {
        findings.push(
          finding(timeline, 'budget_exceeded', {
            severity: 'error',
            step: entry.step,
            callId: entry.callId,
            line: entry.line,
            message: `tool call ${entry.callId} was executed after the tool-call budget was used up (max_tool_calls ${maxToolCalls}; this was tool call ${counters.executedToolCalls}): budget checks must happen before each action`,
            details: { limit: 'max_tool_calls', max: maxToolCalls, used: counters.executedToolCalls, after_exhaustion: true },
          }),
        );
      }
    }
  }

  const checks = limitChecks(budgets, counters, timeline.startedAt);
  const reached = checks.filter((check) => check.used >= check.max);
  const responseList = responses(timeline);
  const lastResponse = responseList.at(-1);
  const endLine = timeline.entries.findLast((entry) => entry.kind === 'run_end')?.line ?? timeline.lastLine;

  if (timeline.status === 'budget_exceeded') {
    const named = timeline.endLimit !== null ? normalizeLimit(timeline.endLimit) : null;
    // A limit the loop named but the run never declared has no counter to show; never borrow another's.
    const check = timeline.endLimit !== null ? checks.find((c) => c.limit === named) : reached[0];
    const raw = timeline.statusRaw !== '' ? ` (${timeline.statusRaw})` : '';
    const limitName = named ?? check?.limit ?? null;
    const what =
      check !== undefined
        ? `the run was stopped by its ${check.limit} budget: ${describeCheck(check)}`
        : `the run ended with status budget_exceeded${timeline.endLimit !== null ? ` on ${timeline.endLimit}` : ''}; no declared budget shows the counter`;
    findings.push(
      finding(timeline, 'budget_exceeded', {
        severity: 'warning',
        step: lastStep,
        line: endLine,
        message: `${what}, at step ${lastStep ?? '?'}${raw}`,
        details: { limit: limitName, limit_raw: timeline.endLimit, max: check?.max ?? null, used: check?.used ?? null, inferred: false },
      }),
    );
    return findings;
  }

  // Inferred: a declared cap reached with no final answer (docs/semantics.md §5: max_steps=8, hitCap). A
  // refusal is a terminal state of its own, and a paused or still-running run has not ended yet.
  const notCutOff =
    lastResponse?.outcome === 'final' ||
    timeline.status === 'succeeded' ||
    timeline.status === 'model_finished' ||
    lastResponse?.outcome === 'refusal' ||
    timeline.status === 'refused' ||
    isOngoingStatus(timeline.status);
  const trippedCap = reached[0];
  if (!notCutOff && trippedCap !== undefined) {
    findings.push(
      finding(timeline, 'budget_exceeded', {
        severity: 'warning',
        step: lastStep,
        line: endLine,
        message: `the run hit its ${trippedCap.limit} budget without a final answer: ${describeCheck(trippedCap)}, the last step (${lastStep ?? '?'}) being ${lastResponse?.outcome === 'tool_calls' ? 'a tool call' : `a ${lastResponse?.outcome ?? 'missing'} response`}; ${runEnding(timeline, lastStep)}`,
        details: { limit: trippedCap.limit, max: trippedCap.max, used: trippedCap.used, inferred: true },
      }),
    );
  }
  return findings;
}
