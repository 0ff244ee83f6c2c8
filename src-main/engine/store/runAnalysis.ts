/**
 * What the analysis of a run (derive/analyzeSource.ts) reads back and writes besides findings:
 * the run's rows as its timeline is assembled from, the call ↔ result states it decides, and which
 * sources are analyzed for which options.
 */
import type Database from 'better-sqlite3';
import type { EventSqlRow, RunSqlRow, ToolCallSqlRow } from './traceWriter';

/** The event fields analysis reads. */
export type TimelineEventSqlRow = Pick<
  EventSqlRow,
  | 'id'
  | 'line'
  | 'type'
  | 'step'
  | 'ts'
  | 'call_id'
  | 'name'
  | 'outcome'
  | 'finish_reason'
  | 'incomplete_reason'
  | 'input_tokens'
  | 'output_tokens'
  | 'cost_usd'
  | 'result_ok'
  | 'error_code'
  | 'error_line'
  | 'result_hash'
  | 'progress'
  | 'summary'
  | 'api_error'
>;

/** The run fields analysis reads. */
export type TimelineRunSqlRow = Pick<
  RunSqlRow,
  | 'id'
  | 'run_id'
  | 'status'
  | 'status_raw'
  | 'end_limit'
  | 'budgets_json'
  | 'started_at'
  | 'ended_at'
  | 'first_line'
  | 'last_line'
  | 'start_event_id'
  | 'end_event_id'
  | 'output_event_id'
>;

export interface CallStateSqlRow {
  event_id: number;
  call_index: number;
  state: string;
  answer_event_id: number | null;
}

/** The statements of one analyzer, prepared once: it runs them for every run of a source. */
export class RunAnalysisRows {
  private readonly selectRun: Database.Statement<[number], TimelineRunSqlRow>;
  private readonly selectEvents: Database.Statement<[number], TimelineEventSqlRow>;
  private readonly selectCalls: Database.Statement<[number], ToolCallSqlRow>;
  private readonly upsertCallState: Database.Statement<unknown[]>;
  private readonly selectCallStates: Database.Statement<[number], CallStateSqlRow>;

  /** `timelineEventTypes`: the event types the timeline is assembled from. */
  constructor(
    private readonly db: Database.Database,
    timelineEventTypes: ReadonlySet<string>,
  ) {
    this.selectRun = db.prepare(
      'SELECT id, run_id, status, status_raw, end_limit, budgets_json, started_at, ended_at, first_line, last_line, start_event_id, end_event_id, output_event_id FROM runs WHERE id = ?',
    );
    this.selectEvents = db.prepare(
      `SELECT id, line, type, step, ts, call_id, name, outcome, finish_reason, incomplete_reason, input_tokens, output_tokens, cost_usd,
              result_ok, error_code, error_line, result_hash, progress, summary, api_error
       FROM events WHERE run_pk = ? AND type IN (${[...timelineEventTypes].map((type) => `'${type}'`).join(', ')})
       ORDER BY id`,
    );
    this.selectCalls = db.prepare('SELECT * FROM tool_calls WHERE run_pk = ? ORDER BY event_id, call_index');
    this.upsertCallState = db.prepare('INSERT OR REPLACE INTO call_states (event_id, call_index, run_pk, state, answer_event_id) VALUES (?, ?, ?, ?, ?)');
    // Through the calls of the run (an index), not call_states' own run_pk (none).
    this.selectCallStates = db.prepare(
      `SELECT cs.event_id, cs.call_index, cs.state, cs.answer_event_id
       FROM tool_calls tc JOIN call_states cs ON cs.event_id = tc.event_id AND cs.call_index = tc.call_index WHERE tc.run_pk = ?`,
    );
  }

  run(runPk: number): TimelineRunSqlRow | undefined {
    return this.selectRun.get(runPk);
  }

  /** The run's events the timeline is assembled from, in order. */
  events(runPk: number): IterableIterator<TimelineEventSqlRow> {
    return this.selectEvents.iterate(runPk);
  }

  /** The run's calls by issuing event. */
  calls(runPk: number): IterableIterator<ToolCallSqlRow> {
    return this.selectCalls.iterate(runPk);
  }

  callStates(runPk: number): IterableIterator<CallStateSqlRow> {
    return this.selectCallStates.iterate(runPk);
  }

  writeCallState(runPk: number, state: CallStateSqlRow): void {
    this.upsertCallState.run([state.event_id, state.call_index, runPk, state.state, state.answer_event_id]);
  }

  /** Records that every run of the source is analyzed for these options. */
  markAnalyzed(sourceId: number, optionsKey: string): void {
    this.db
      .prepare('INSERT OR REPLACE INTO analyses (source_id, options_key, completed_at) VALUES (?, ?, ?)')
      .run(sourceId, optionsKey, new Date().toISOString());
  }
}

/** Whether every run of the source is analyzed for these options. */
export function isAnalyzed(db: Database.Database, sourceId: number, optionsKey: string): boolean {
  return db.prepare('SELECT 1 FROM analyses WHERE source_id = ? AND options_key = ?').get(sourceId, optionsKey) !== undefined;
}
