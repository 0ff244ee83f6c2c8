/**
 * A run's model turns with the tool calls each issued, read back for comparing two runs
 * (docs/semantics.md §16): the step, how its response ended, and each call's tool and arguments.
 */
import type Database from 'better-sqlite3';
import type { ComparableCall } from '../../../shared/compare/alignSteps';
import type { TurnToCompare } from '../../../shared/compare/compareRuns';
import { prepared } from './preparedStatements';

interface TurnSqlRow {
  step: number;
  /** The request the step's response answered (docs/semantics.md §9: a response is its own rebuilt request where the format logs none). */
  request_event_id: number | null;
  /** The response's outcome (docs/semantics.md §1); null for a step whose response is missing. */
  outcome: string | null;
}

interface TurnCallSqlRow {
  step: number | null;
  name: string;
  /** Hash of the canonical arguments; null when they were not JSON. */
  args_hash: string | null;
  /** The arguments' start as text (eventRecorder.ts: their first 120 characters). */
  args_summary: string | null;
}

/** The run's steps after step 0 (what came before the first model call), in order. */
function runTurns(db: Database.Database, runPk: number): TurnSqlRow[] {
  return prepared<[number], TurnSqlRow>(
    db,
    `SELECT s.step, e.outcome,
            (SELECT q.event_id FROM requests q WHERE q.run_pk = s.run_pk AND q.event_id <= s.response_event_id
             ORDER BY q.request_index DESC LIMIT 1) AS request_event_id
     FROM steps s LEFT JOIN events e ON e.id = s.response_event_id
     WHERE s.run_pk = ? AND s.step > 0 ORDER BY s.step`,
  ).all(runPk);
}

/** The run's issued tool calls in issue order. */
function runTurnCalls(db: Database.Database, runPk: number): TurnCallSqlRow[] {
  return prepared<[number], TurnCallSqlRow>(
    db,
    'SELECT step, name, args_hash, args_summary FROM tool_calls WHERE run_pk = ? ORDER BY event_id, call_index',
  ).all(runPk);
}

/**
 * The run's turns as a comparison reads them (docs/semantics.md §16): each step's outcome and the
 * calls it issued, a call's identity being the hash of its canonical arguments and its text their
 * kept start.
 */
export function comparableTurns(db: Database.Database, runPk: number): TurnToCompare[] {
  const calls = new Map<number, ComparableCall[]>();
  for (const call of runTurnCalls(db, runPk)) {
    // A call outside any step (issued before the first response) has no turn to belong to.
    if (call.step === null) continue;
    const args = call.args_summary ?? '';
    const ofStep = calls.get(call.step) ?? [];
    ofStep.push({ tool: call.name, args, identity: call.args_hash ?? args });
    calls.set(call.step, ofStep);
  }
  return runTurns(db, runPk).map((turn) => ({
    step: turn.step,
    outcome: turn.outcome ?? 'missing',
    calls: calls.get(turn.step) ?? [],
    requestEventId: turn.request_event_id,
  }));
}
