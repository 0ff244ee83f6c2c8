/** Two runs side by side (`compareRuns`, docs/semantics.md §16), of one trace or of two. */
import { basename } from 'node:path';
import type Database from 'better-sqlite3';
import { compareRuns, type RunToCompare } from '../../../shared/compare/compareRuns';
import type { RunStatus } from '../../../shared/trace/runStatus';
import { millisBetween } from '../../../shared/trace/timestamps';
import { comparableTurns } from '../../engine';
import { runCost } from './cost';
import { runInScope } from './runs';
import type { TraceScope } from './scope';

function runToCompare(db: Database.Database, scope: TraceScope, runPk: number): RunToCompare {
  const row = runInScope(db, scope, runPk);
  return {
    file: basename(row.file),
    report: {
      run_id: row.run_id,
      file: basename(row.file),
      status: row.status as RunStatus,
      status_raw: row.status_raw,
      steps: row.steps,
      tool_calls: row.tool_calls,
      tool_results: row.tool_results,
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
      started_at: row.started_at,
      ended_at: row.ended_at,
      duration_ms: millisBetween(row.started_at, row.ended_at),
      first_line: row.first_line,
      last_line: row.last_line,
      findings: { error: row.errors, warning: row.warnings, info: row.infos },
    },
    turns: comparableTurns(db, runPk),
    costUsd: runCost(db, scope, runPk).usd,
  };
}

export interface RunInTrace {
  db: Database.Database;
  scope: TraceScope;
  runPk: number;
}

export function compareTwoRuns(a: RunInTrace, b: RunInTrace): ReturnType<typeof compareRuns> {
  return compareRuns(runToCompare(a.db, a.scope, a.runPk), runToCompare(b.db, b.scope, b.runPk));
}
