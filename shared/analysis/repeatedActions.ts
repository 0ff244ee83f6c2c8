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
import type { CallResolutions } from './callCorrelation';
import { responses, type RunTimeline, type TimelineCall } from './timeline';

/**
 * The run's actions in issue order, as parallel lists: a long run takes hundreds of thousands,
 * so no object per action, and each list is sized once (grown by push, a list that long leaves
 * its outgrown copies in memory until the analysis ends). An action's key is a number standing
 * for its (tool name, arguments); `progress` is 1 for an action whose result made progress.
 */
interface Actions {
  /** Positions among the run's calls (issuedCalls). */
  calls: Int32Array;
  keys: Int32Array;
  progress: Uint8Array;
}

/** The result identities one key has returned so far: most return one, kept as is. */
type SeenResults = string | Set<string> | null;

/** Calls by position. */
interface Episode {
  calls: Set<number>;
  firstFiring: number;
}

function hasSeen(seen: SeenResults, hash: string): boolean {
  return typeof seen === 'string' ? seen === hash : seen !== null && seen.has(hash);
}

function withSeen(seen: SeenResults, hash: string): SeenResults {
  if (seen === null) return hash;
  if (typeof seen === 'string') return seen === hash ? seen : new Set([seen, hash]);
  return seen.add(hash);
}

/** The calls of `tool_calls` responses with parsed arguments, with whether each made progress. */
function actionsOf(timeline: RunTimeline, resolutions: CallResolutions): Actions {
  // Keys by tool name, then by arguments hash (strings the calls already hold: no key built per
  // call), and every result identity each key has returned so far (§6: new result = progress).
  const keysByName = new Map<string, Map<string, number>>();
  const seenByKey: SeenResults[] = [];
  const { entries } = timeline;
  const { calls } = entries;
  const actions: Actions = { calls: new Int32Array(calls.length), keys: new Int32Array(calls.length), progress: new Uint8Array(calls.length) };
  let count = 0;
  for (let response = 0; response < entries.length; response += 1) {
    if (entries.kind(response) !== 'response' || entries.outcome(response) !== 'tool_calls') continue;
    for (let call = entries.callsFrom(response); call < entries.callsTo(response); call += 1) {
      const argsHash = calls.argsHash(call);
      if (argsHash === null) continue;
      const resultIndex = resolutions.resultIndex(call);
      const result = resultIndex === null ? null : entries.resultAt(resultIndex);
      const name = calls.name(call);
      let byArgs = keysByName.get(name);
      if (byArgs === undefined) keysByName.set(name, (byArgs = new Map()));
      let key = byArgs.get(argsHash);
      if (key === undefined) byArgs.set(argsHash, (key = seenByKey.push(null) - 1));
      const seen = seenByKey[key]!;
      const hash = result?.resultHash ?? null;
      let progress: boolean;
      if (result?.progress !== null && result?.progress !== undefined) progress = result.progress;
      else progress = hash !== null && seen !== null && !hasSeen(seen, hash);
      if (hash !== null) seenByKey[key] = withSeen(seen, hash);
      actions.calls[count] = call;
      actions.keys[count] = key;
      actions.progress[count] = progress ? 1 : 0;
      count += 1;
    }
  }
  // Calls whose arguments did not parse are no actions: the lists end at the last action.
  return { calls: actions.calls.subarray(0, count), keys: actions.keys.subarray(0, count), progress: actions.progress.subarray(0, count) };
}

/**
 * The keys counted at least `threshold` times in the window of actions [start, end), after the
 * last progress reset, with their calls in order. Counting reuses `counts`: the window moves one
 * action at a time over the whole run, and a key seldom reaches the threshold.
 */
function firingKeys(actions: Actions, start: number, end: number, threshold: number, counts: Map<number, number>): Map<number, number[]> {
  let from = start;
  for (let index = end - 1; index >= start; index -= 1) {
    if (actions.progress[index]) {
      from = index + 1;
      break;
    }
  }
  counts.clear();
  for (let index = from; index < end; index += 1) {
    const key = actions.keys[index]!;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const firing = new Map<number, number[]>();
  for (const [key, count] of counts) {
    if (count < threshold) continue;
    const calls: number[] = [];
    for (let index = from; index < end; index += 1) if (actions.keys[index] === key) calls.push(actions.calls[index]!);
    firing.set(key, calls);
  }
  return firing;
}

/** Tokens (input + output) the run's responses recorded, by step; steps with no recorded usage are absent. */
export function tokensByStep(timeline: RunTimeline): Map<number, number> {
  const byStep = new Map<number, number>();
  for (const response of responses(timeline)) {
    if (response.step === null || (response.inputTokens === null && response.outputTokens === null)) continue;
    byStep.set(response.step, (byStep.get(response.step) ?? 0) + (response.inputTokens ?? 0) + (response.outputTokens ?? 0));
  }
  return byStep;
}

/** The finding of one episode: every call it involved, in log order, and what the repetition cost. */
export function repeatedActionFinding(
  timeline: RunTimeline,
  episode: { calls: Iterable<TimelineCall>; firstFiring: TimelineCall },
  stepTokens: ReadonlyMap<number, number>,
  options: AnalysisOptions,
): Finding {
  const calls = [...episode.calls];
  const steps = [...new Set(calls.map((call) => call.step).filter((step): step is number => step !== null))];
  const knownTokens = steps.filter((step) => stepTokens.has(step));
  const tokens = knownTokens.length > 0 ? knownTokens.reduce((sum, step) => sum + (stepTokens.get(step) ?? 0), 0) : null;
  const first = episode.firstFiring;
  const cost = `${calls.length} tool calls over ${steps.length} turns${tokens !== null ? ` and ${formatCount(tokens)} tokens` : ''}`;
  return finding(timeline, 'repeated_action', {
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
  });
}

export function analyzeRepeatedActions(timeline: RunTimeline, resolutions: CallResolutions, options: AnalysisOptions): Finding[] {
  const actions = actionsOf(timeline, resolutions);
  // Counted only once an episode is reported: a long run has hundreds of thousands of steps, and most runs repeat nothing.
  let stepTokens: Map<number, number> | undefined;
  const findings: Finding[] = [];
  const open = new Map<number, Episode>();
  // In log order: an episode starts with the calls of one window, in order, and every later firing
  // can only add the call just taken.
  const close = (episode: Episode): void => {
    stepTokens ??= tokensByStep(timeline);
    const { calls } = timeline.entries;
    findings.push(
      repeatedActionFinding(
        timeline,
        { calls: [...episode.calls].map((call) => calls.at(call)), firstFiring: calls.at(episode.firstFiring) },
        stepTokens,
        options,
      ),
    );
  };

  const counts = new Map<number, number>();
  actions.calls.forEach((call, index) => {
    const firing = firingKeys(actions, Math.max(0, index - options.window + 1), index + 1, options.threshold, counts);
    for (const [key, calls] of firing) {
      const episode = open.get(key) ?? { calls: new Set<number>(), firstFiring: call };
      for (const counted of calls) episode.calls.add(counted);
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
