/** Steps read back: stepping through a run one step at a time. Steps are written by `TraceStore` (traceWriter.ts). */
import type Database from 'better-sqlite3';
import { prepared } from './preparedStatements';

/** The run's step `step` (`at`), or the nearest one after or before it. */
export function nearestStep(
  db: Database.Database,
  runPk: number,
  step: number,
  direction: 'at' | 'after' | 'before',
): { step: number; first_line: number } | undefined {
  const comparison = { at: '= @step ORDER BY step', after: '> @step ORDER BY step', before: '< @step ORDER BY step DESC' }[direction];
  return prepared<[{ runPk: number; step: number }], { step: number; first_line: number }>(
    db,
    `SELECT step, first_line FROM steps WHERE run_pk = @runPk AND step ${comparison} LIMIT 1`,
  ).get({
    runPk,
    step,
  });
}
