/** Runs every analysis over one run's timeline; the single entry point the engine calls. */
import type { AnalysisOptions, Finding } from '../report';
import { analyzeAfterEnd } from './afterEnd';
import { analyzeApiErrors } from './apiErrors';
import { analyzeBudgets } from './budgets';
import { correlateCalls, type CallResolution } from './callCorrelation';
import { analyzeInvalidArguments } from './invalidArguments';
import { analyzeRepeatedActions } from './repeatedActions';
import { analyzeResponseOutcomes } from './responseOutcomes';
import type { RunTimeline } from './timeline';
import { analyzeToolErrors } from './toolErrors';
import { analyzeUnterminatedRun } from './unterminatedRun';

export interface RunAnalysis {
  findings: Finding[];
  calls: CallResolution[];
}

export function analyzeRun(timeline: RunTimeline, options: AnalysisOptions): RunAnalysis {
  const correlation = correlateCalls(timeline);
  const findings = [
    ...correlation.findings,
    ...analyzeInvalidArguments(timeline),
    ...analyzeResponseOutcomes(timeline),
    ...analyzeApiErrors(timeline),
    ...analyzeToolErrors(timeline, correlation.resolutions),
    ...analyzeRepeatedActions(timeline, correlation.resolutions, options),
    ...analyzeBudgets(timeline),
    ...analyzeUnterminatedRun(timeline),
    ...analyzeAfterEnd(timeline),
  ];
  findings.sort((a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER));
  return { findings, calls: correlation.resolutions };
}
