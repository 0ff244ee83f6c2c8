/**
 * The trace's views other than the runs table, each loaded with its code when first shown: the
 * page a trace opens on (the runs table) then downloads and parses only its own code. Once the
 * runs are on screen, `preloadViews` fetches the rest while the page is idle, so that opening a
 * run or a diff later does not wait for its code.
 */
import { lazy } from 'react';
import { whenIdle } from '../components/whenIdle';

const loaders = {
  run: () => import('./RunView'),
  diff: () => import('./RequestDiffView'),
  compare: () => import('./CompareView'),
  calls: () => import('./CallsView'),
  findings: () => import('./FindingsView'),
  search: () => import('./SearchView'),
  parseErrors: () => import('./ParseErrorsView'),
};

export const RunView = lazy(() => loaders.run().then((module) => ({ default: module.RunView })));
export const RequestDiffView = lazy(() => loaders.diff().then((module) => ({ default: module.RequestDiffView })));
export const CompareView = lazy(() => loaders.compare().then((module) => ({ default: module.CompareView })));
export const CallsView = lazy(() => loaders.calls().then((module) => ({ default: module.CallsView })));
export const FindingsView = lazy(() => loaders.findings().then((module) => ({ default: module.FindingsView })));
export const SearchView = lazy(() => loaders.search().then((module) => ({ default: module.SearchView })));
export const ParseErrorsView = lazy(() => loaders.parseErrors().then((module) => ({ default: module.ParseErrorsView })));

let preloading = false;

/** Fetches every view's code once the page is idle (the browser caches each module: `lazy` then finds it loaded). */
export function preloadViews(): void {
  if (preloading) return;
  preloading = true;
  const load = (): void => {
    // A failed fetch is retried, and reported, when the view is shown.
    for (const loader of Object.values(loaders)) loader().catch(() => undefined);
  };
  whenIdle(load, 2000);
}
