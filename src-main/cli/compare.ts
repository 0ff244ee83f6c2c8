/**
 * `loopscope compare A B`: two runs side by side (docs/semantics.md §16). A run is named
 * `FILE#RUN_ID`, or just `FILE` when the file holds one top-level run.
 */
import type { UserPrices } from '../../shared/cost/userPrices';
import { existsSync } from 'node:fs';
import type { AnalysisOptions } from '../../shared/report';
import { compareRuns, type CompareReport, type RunToCompare } from '../../shared/compare/compareRuns';
import { openTrace, readReportOutline, readRunToCompare, TraceFileError } from '../engine';

export interface RunReference {
  file: string;
  /** Null: the file's only top-level run. */
  runId: string | null;
}

/**
 * `FILE#RUN_ID` or `FILE`. A path that exists as written is a file even with a `#` in its name;
 * otherwise the text after the last `#` names the run.
 */
export function parseRunReference(text: string): RunReference {
  const hash = text.lastIndexOf('#');
  if (hash <= 0 || existsSync(text)) return { file: text, runId: null };
  return { file: text.slice(0, hash), runId: text.slice(hash + 1) };
}

export class CompareError extends Error {}

/** Up to this many run ids are listed when a file holds several and none was named. */
const LISTED_RUNS = 10;

interface CompareOptions {
  analysis: AnalysisOptions;
  cacheDir: string | undefined;
  /** `--prices FILE` (docs/semantics.md §18). */
  userPrices: UserPrices | undefined;
}

async function runToCompare(reference: RunReference, options: CompareOptions): Promise<RunToCompare> {
  const trace = await openTrace(reference.file, { analysis: options.analysis, ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}) });
  const handle = { ...trace, path: reference.file };
  const outline = readReportOutline(handle, options.analysis);
  let chosen;
  if (reference.runId !== null) {
    chosen = outline.runs.find((run) => run.report.run_id === reference.runId);
    if (chosen === undefined) {
      const known = outline.runs.slice(0, LISTED_RUNS).map((run) => run.report.run_id);
      throw new CompareError(
        `${reference.file} has no run "${reference.runId}"; its runs: ${known.join(', ')}${outline.runs.length > LISTED_RUNS ? ', …' : ''}`,
      );
    }
  } else {
    const topLevel = outline.runs.filter((run) => run.report.parent === undefined);
    if (topLevel.length !== 1) {
      const known = topLevel.slice(0, LISTED_RUNS).map((run) => run.report.run_id);
      throw new CompareError(
        topLevel.length === 0
          ? `${reference.file} holds no run to compare`
          : `${reference.file} holds ${topLevel.length} runs: name one as ${reference.file}#RUN_ID (${known.join(', ')}${topLevel.length > LISTED_RUNS ? ', …' : ''})`,
      );
    }
    chosen = topLevel[0]!;
  }
  const { turns, costUsd } = readRunToCompare(handle, chosen.runPk, options.userPrices);
  return { file: reference.file, report: chosen.report, turns, costUsd };
}

export async function compareReferences(a: RunReference, b: RunReference, options: CompareOptions): Promise<CompareReport> {
  try {
    return compareRuns(await runToCompare(a, options), await runToCompare(b, options));
  } catch (error) {
    if (error instanceof TraceFileError) throw new CompareError(error.message);
    throw error;
  }
}
