/**
 * Repeated actions without progress (docs/semantics.md §6). At every tool call, the last
 * `window` tool calls are walked in order: a call whose result made progress clears all counts,
 * any other call counts toward its (tool name, canonical arguments) key, and a key reaching
 * `threshold` fires. Consecutive firings of one key are one episode, reported once with every
 * call involved and what the repetition cost.
 *
 * Progress comes from observable state only: the loop's explicit `progress` flag when it logs
 * one, otherwise a result the action has never returned before in the run. Result identities
 * are computed at ingest without volatile fields (timestamps, request ids: §6), so a retry storm
 * whose errors differ only by those is no progress; and a result equal to any earlier one of
 * the same action (A, B, A, B: flapping) brings nothing new, so it is no progress either. A first
 * occurrence has nothing to differ from, so it is not progress; a call without a result is not
 * progress either.
 */
import type { AnalysisOptions, Finding } from '../report';
import { formatCount } from '../formatCount';
import { finding } from './finding';
import { responses, type ResultEntry, type RunTimeline, type TimelineCall } from './timeline';

interface Action {
  call: TimelineCall;
  key: string;
  progress: boolean;
}

interface Episode {
  key: string;
  calls: Set<TimelineCall>;
  firstFiring: TimelineCall;
}

function actionsOf(timeline: RunTimeline, resultOf: ReadonlyMap<TimelineCall, ResultEntry>): Action[] {
  // Every result identity each action has returned so far in the run (§6: new result = progress).
  const seenResults = new Map<string, Set<string>>();
  const actions: Action[] = [];
  for (const response of responses(timeline)) {
    if (response.outcome !== 'tool_calls') continue;
    for (const call of response.calls) {
      if (call.argsHash === null) continue;
      const key = `${call.name}\u0000${call.argsHash}`;
      const result = resultOf.get(call);
      const seen = seenResults.get(key);
      const hash = result?.resultHash ?? null;
      let progress: boolean;
      if (result?.progress !== null && result?.progress !== undefined) progress = result.progress;
      else progress = hash !== null && seen !== undefined && !seen.has(hash);
      if (hash !== null) seenResults.set(key, (seen ?? new Set<string>()).add(hash));
      actions.push({ call, key, progress });
    }
  }
  return actions;
}

/** The calls counted toward each key in one window, after the last progress reset. */
function countWindow(window: readonly Action[]): Map<string, TimelineCall[]> {
  const counted = new Map<string, TimelineCall[]>();
  for (const action of window) {
    if (action.progress) {
      counted.clear();
      continue;
    }
    const calls = counted.get(action.key) ?? [];
    calls.push(action.call);
    counted.set(action.key, calls);
  }
  return counted;
}

export function analyzeRepeatedActions(timeline: RunTimeline, resultOf: ReadonlyMap<TimelineCall, ResultEntry>, options: AnalysisOptions): Finding[] {
  const actions = actionsOf(timeline, resultOf);
  const tokensByStep = new Map<number, number>();
  for (const response of responses(timeline)) {
    if (response.step === null) continue;
    const tokens = (response.inputTokens ?? 0) + (response.outputTokens ?? 0);
    if (response.inputTokens !== null || response.outputTokens !== null) tokensByStep.set(response.step, (tokensByStep.get(response.step) ?? 0) + tokens);
  }
  const findings: Finding[] = [];
  const open = new Map<string, Episode>();

  const close = (episode: Episode): void => {
    // In log order: an episode starts with the calls of one window, in order, and every later
    // firing can only add the call just taken.
    const calls = [...episode.calls];
    const steps = [...new Set(calls.map((call) => call.step).filter((step): step is number => step !== null))];
    const knownTokens = steps.filter((step) => tokensByStep.has(step));
    const tokens = knownTokens.length > 0 ? knownTokens.reduce((sum, step) => sum + (tokensByStep.get(step) ?? 0), 0) : null;
    const first = episode.firstFiring;
    const cost = `${calls.length} tool calls over ${steps.length} turns${tokens !== null ? ` and ${formatCount(tokens)} tokens` : ''}`;
    findings.push(
      finding(timeline, 'repeated_action', {
        severity: 'warning',
        step: first.step,
        callId: first.callId,
        line: first.line,
        message: `${first.name}(${first.argsSummary ?? ''}) was repeated ${calls.length} times with the same arguments and no progress (threshold ${options.threshold} in a window of ${options.window} tool calls); the repetition cost ${cost}`,
        details: {
          name: first.name,
          arguments: first.argsSummary,
          calls: calls.map((call) => ({ call_id: call.callId, step: call.step, line: call.line })),
          window: options.window,
          threshold: options.threshold,
          tool_calls: calls.length,
          turns: steps.length,
          tokens,
        },
      }),
    );
  };

  actions.forEach((action, index) => {
    const window = actions.slice(Math.max(0, index - options.window + 1), index + 1);
    const firing = new Set<string>();
    for (const [key, calls] of countWindow(window)) {
      if (calls.length < options.threshold) continue;
      firing.add(key);
      const episode = open.get(key) ?? { key, calls: new Set<TimelineCall>(), firstFiring: action.call };
      for (const call of calls) episode.calls.add(call);
      open.set(key, episode);
    }
    for (const [key, episode] of open) {
      if (firing.has(key)) continue;
      close(episode);
      open.delete(key);
    }
  });
  for (const episode of open.values()) close(episode);
  return findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}
