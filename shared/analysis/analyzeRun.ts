/** Runs every analysis over one run's timeline; the single entry point the engine calls. */
import type { AnalysisOptions, Finding } from '../report';
import { analyzeAfterEnd } from './afterEnd';
import { analyzeApiErrors } from './apiErrors';
import { analyzeBudgets } from './budgets';
import { correlateCalls, type CallResolutions } from './callCorrelation';
import { analyzeInvalidArguments } from './invalidArguments';
import { analyzeRepeatedActions } from './repeatedActions';
import { analyzeResponseOutcomes } from './responseOutcomes';
import type { RunTimeline } from './timeline';
import { analyzeToolErrors } from './toolErrors';
import { analyzeUnterminatedRun } from './unterminatedRun';

export interface RunAnalysis {
  findings: Finding[];
  calls: CallResolutions;
}

export function analyzeRun(timeline: RunTimeline, options: AnalysisOptions): RunAnalysis {
  // The analyses that do not read the call pairing run before it: on a long run each builds
  // sizeable working state (budgets: a name per issued call), which is then gone while the
  // pairing's record of every call is held. Their findings are still listed in the same order.
  const invalidArguments = analyzeInvalidArguments(timeline);
  const responseOutcomes = analyzeResponseOutcomes(timeline);
  const apiErrors = analyzeApiErrors(timeline);
  const budgets = analyzeBudgets(timeline);
  const unterminatedRun = analyzeUnterminatedRun(timeline);
  const afterEnd = analyzeAfterEnd(timeline);
  const correlation = correlateCalls(timeline);
  const findings = [
    ...correlation.findings,
    ...invalidArguments,
    ...responseOutcomes,
    ...apiErrors,
    ...analyzeToolErrors(timeline, correlation.resolutions),
    ...analyzeRepeatedActions(timeline, correlation.resolutions, options),
    ...budgets,
    ...unterminatedRun,
    ...afterEnd,
  ];
  findings.sort((a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER));
  return { findings, calls: correlation.resolutions };
}
