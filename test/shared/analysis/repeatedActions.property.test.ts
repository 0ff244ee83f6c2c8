/**
 * Repeated actions (shared/analysis/repeatedActions.ts) count a window without building it and
 * keep keys and result identities compactly: the findings are the same as those of the
 * straightforward reference below (a string key and a Set per action, every window sliced and
 * counted anew; an episode reported by the same repeatedActionFinding) on runs of repeated,
 * flapping, progressing and unanswered calls.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { correlateCalls } from '../../../shared/analysis/callCorrelation';
import { analyzeRepeatedActions, repeatedActionFinding, tokensByStep } from '../../../shared/analysis/repeatedActions';
import { responses, type ResultEntry, type RunTimeline, type TimelineCall } from '../../../shared/analysis/timeline';
import type { AnalysisOptions, Finding } from '../../../shared/report';
import { run } from './timelineBuilder';

function referenceRepeatedActions(timeline: RunTimeline, resultOf: ReadonlyMap<string, ResultEntry>, options: AnalysisOptions): Finding[] {
  const seenResults = new Map<string, Set<string>>();
  const actions: { call: TimelineCall; key: string; progress: boolean }[] = [];
  for (const response of responses(timeline)) {
    if (response.outcome !== 'tool_calls') continue;
    for (const call of response.calls) {
      if (call.argsHash === null) continue;
      const key = `${call.name}\u0000${call.argsHash}`;
      const result = resultOf.get(`${call.eventId}:${call.index}`);
      const seen = seenResults.get(key);
      const hash = result?.resultHash ?? null;
      const progress = result?.progress ?? (hash !== null && seen !== undefined && !seen.has(hash));
      if (hash !== null) seenResults.set(key, (seen ?? new Set<string>()).add(hash));
      actions.push({ call, key, progress });
    }
  }
  const stepTokens = tokensByStep(timeline);
  const findings: Finding[] = [];
  const open = new Map<string, { calls: Set<TimelineCall>; firstFiring: TimelineCall }>();
  const close = (episode: { calls: Set<TimelineCall>; firstFiring: TimelineCall }): void => {
    findings.push(repeatedActionFinding(timeline, episode, stepTokens, options));
  };
  actions.forEach((action, index) => {
    const counted = new Map<string, TimelineCall[]>();
    for (const windowed of actions.slice(Math.max(0, index - options.window + 1), index + 1)) {
      if (windowed.progress) counted.clear();
      else counted.set(windowed.key, [...(counted.get(windowed.key) ?? []), windowed.call]);
    }
    const firing = new Set<string>();
    for (const [key, calls] of counted) {
      if (calls.length < options.threshold) continue;
      firing.add(key);
      const episode = open.get(key) ?? { calls: new Set<TimelineCall>(), firstFiring: action.call };
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

/** One turn: a response with one or two calls, each answered now, later, or never. */
const turn = fc.record({
  calls: fc.array(
    fc.record({
      name: fc.constantFrom('read_file', 'search'),
      args: fc.constantFrom({ path: 'a' }, { path: 'b' }, {}),
      invalid: fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
      hash: fc.constantFrom('r1', 'r2', 'r3', null),
      progress: fc.constantFrom(null, null, null, true, false),
      answer: fc.constantFrom('now', 'now', 'now', 'later', 'never'),
    }),
    { minLength: 1, maxLength: 2 },
  ),
  outcome: fc.constantFrom('tool_calls', 'tool_calls', 'tool_calls', 'incomplete'),
  tokens: fc.option(fc.nat(500), { nil: null }),
});

describe('repeated actions: same findings as the straightforward reference', () => {
  it('on random runs, windows and thresholds', () => {
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 40 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 5 }), (turns, window, threshold) => {
        const builder = run({ status: 'failed' });
        const later: { id: string; hash: string | null; progress: boolean | null }[] = [];
        turns.forEach((t, i) => {
          const calls = t.calls.map((c, j) => ({
            id: `c${i}_${j}`,
            name: c.name,
            args: c.args,
            ...(c.invalid ? { argsError: 'not JSON' } : {}),
          }));
          builder.response({ calls, outcome: t.outcome as 'tool_calls', inputTokens: t.tokens, outputTokens: t.tokens });
          for (const ready of later.splice(0)) builder.result(ready.id, { hash: ready.hash, progress: ready.progress });
          t.calls.forEach((c, j) => {
            const answer = { id: `c${i}_${j}`, hash: c.hash, progress: c.progress };
            if (c.answer === 'now') builder.result(answer.id, { hash: answer.hash, progress: answer.progress });
            else if (c.answer === 'later') later.push(answer);
          });
        });
        const timeline = builder.build();
        const options = { window, threshold };
        const { resolutions } = correlateCalls(timeline);
        const resultOf = new Map(
          [...resolutions].flatMap(({ call, resultIndex }) =>
            resultIndex === null ? [] : [[`${call.eventId}:${call.index}`, timeline.entries.resultAt(resultIndex)] as const],
          ),
        );
        assert.deepEqual(analyzeRepeatedActions(timeline, resolutions, options), referenceRepeatedActions(timeline, resultOf, options));
      }),
      { numRuns: 300 },
    );
  });
});
