import { useEffect, useState } from 'react';
import { useLatest } from '../components/useLatest';
import type { DiffLayout } from '../navigation/route';
import { diffInBackground, type BackgroundDiffResult } from './backgroundDiff';

export interface TextDiffJob {
  key: string;
  previous: string;
  next: string;
  /** Diff line by line first (JSON). */
  preferLines?: boolean;
}

export type TextDiffState = BackgroundDiffResult | { kind: 'failed'; message: string };

/**
 * The diffs a view needs, run in the diff worker, each as a word diff or side by side (`layout`).
 * `identity` names the set of jobs (the pair of requests and the layout): when it changes, the
 * diffs still waiting are cancelled and the new ones start. `done` says every job has its result.
 */
export function useTextDiffs(
  identity: string | null,
  jobs: readonly TextDiffJob[],
  layout: DiffLayout = 'words',
): { results: ReadonlyMap<string, TextDiffState>; done: boolean } {
  const [state, setState] = useState<{ identity: string | null; results: Map<string, TextDiffState> }>({ identity: null, results: new Map() });
  // `identity` stands for the jobs and the layout: a new array of the same jobs starts nothing.
  const latest = useLatest({ jobs, layout });

  useEffect(() => {
    if (identity === null) return;
    let active = true;
    setState({ identity, results: new Map() });
    const wanted = latest.current;
    const running = wanted.jobs.map((job) => {
      const diff = diffInBackground(job.previous, job.next, { preferLines: job.preferLines ?? false, layout: wanted.layout });
      diff.result.then(
        (result) =>
          active && setState((previous) => (previous.identity === identity ? { identity, results: new Map(previous.results).set(job.key, result) } : previous)),
        (error: unknown) =>
          active &&
          setState((previous) =>
            previous.identity === identity
              ? {
                  identity,
                  results: new Map(previous.results).set(job.key, { kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
                }
              : previous,
          ),
      );
      return diff;
    });
    return () => {
      active = false;
      for (const diff of running) diff.cancel();
    };
  }, [identity, latest]);

  const results = state.identity === identity ? state.results : new Map<string, TextDiffState>();
  return { results, done: identity !== null && state.identity === identity && jobs.every((job) => results.has(job.key)) };
}
