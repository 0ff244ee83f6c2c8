/**
 * The analysis stage: reads each run of a source back from the store as a compact timeline, runs
 * the pure analyses of shared/analysis, and stores the findings and the call ↔ result states.
 * Findings are stored per set of options (window, threshold), so reopening a trace with the same
 * options reuses them and different options recompute only this stage, never the ingest.
 */
import type Database from 'better-sqlite3';
import { analyzeRun } from '../../../shared/analysis/analyzeRun';
import type { RunTimeline, TimelineCall, TimelineEntry } from '../../../shared/analysis/timeline';
import type { AnalysisOptions } from '../../../shared/report';
import type { ModelOutcome } from '../../../shared/trace/canonicalEvents';
import type { RunStatus } from '../../../shared/trace/runStatus';

export function optionsKey(options: AnalysisOptions): string {
  return `window=${options.window};threshold=${options.threshold}`;
}

interface RunRow {
  id: number;
  run_id: string;
  status: RunStatus;
  status_raw: string;
  end_limit: string | null;
  budgets_json: string | null;
  started_at: string | null;
  ended_at: string | null;
  first_line: number;
  last_line: number;
}

interface EventRow {
  id: number;
  line: number;
  type: string;
  step: number | null;
  ts: string | null;
  call_id: string | null;
  name: string | null;
  outcome: ModelOutcome | null;
  finish_reason: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  result_ok: number | null;
  error_code: string | null;
  result_hash: string | null;
  progress: number | null;
  summary: string | null;
}

interface ToolCallRow {
  id: number;
  event_id: number;
  call_index: number;
  call_id: string;
  name: string;
  step: number | null;
  line: number;
  origin: 'response' | 'stream';
  args_hash: string | null;
  args_error: string | null;
  args_summary: string | null;
}

function toEntry(event: EventRow, calls: TimelineCall[]): TimelineEntry | null {
  const base = { eventId: event.id, line: event.line, step: event.step, ts: event.ts };
  switch (event.type) {
    case 'model_response':
    case 'stream_fragment':
      // A fragment is a response only when it closes a stream that had no model_response line.
      if (event.outcome === null) return null;
      return {
        ...base,
        kind: 'response',
        outcome: event.outcome,
        finishReason: event.finish_reason,
        calls,
        inputTokens: event.input_tokens,
        outputTokens: event.output_tokens,
      };
    case 'tool_call_start':
      return event.call_id === null ? null : { ...base, kind: 'execution', callId: event.call_id };
    case 'tool_result':
      return {
        ...base,
        kind: 'result',
        callId: event.call_id ?? '',
        name: event.name,
        ok: event.result_ok === 1,
        errorCode: event.error_code,
        resultHash: event.result_hash,
        progress: event.progress === null ? null : event.progress === 1,
      };
    case 'tool_call_not_executed':
      return { ...base, kind: 'not_executed', callId: event.call_id ?? '', reason: event.summary };
    case 'run_end':
      return { ...base, kind: 'run_end' };
    default:
      return null;
  }
}

/** Reads runs back as timelines; statements are prepared once per source, not once per run. */
export class RunTimelineReader {
  private readonly selectCalls: Database.Statement<[number], ToolCallRow>;
  private readonly selectEvents: Database.Statement<[number], EventRow>;

  constructor(db: Database.Database) {
    this.selectCalls = db.prepare<[number], ToolCallRow>('SELECT * FROM tool_calls WHERE run_pk = ? ORDER BY event_id, call_index');
    this.selectEvents = db.prepare<[number], EventRow>(
      `SELECT id, line, type, step, ts, call_id, name, outcome, finish_reason, input_tokens, output_tokens,
              result_ok, error_code, result_hash, progress, summary
       FROM events WHERE run_pk = ? AND type IN ('model_response', 'stream_fragment', 'tool_call_start', 'tool_result', 'tool_call_not_executed', 'run_end')
       ORDER BY id`,
    );
  }

  read(run: RunRow, live: boolean): RunTimeline {
    const callsByEvent = new Map<number, TimelineCall[]>();
    for (const row of this.selectCalls.all(run.id)) {
      const list = callsByEvent.get(row.event_id) ?? [];
      list.push({
        callId: row.call_id,
        name: row.name,
        argsHash: row.args_hash,
        argsError: row.args_error,
        argsSummary: row.args_summary,
        origin: row.origin,
        step: row.step,
        line: row.line,
        eventId: row.event_id,
        index: row.call_index,
      });
      callsByEvent.set(row.event_id, list);
    }
    const entries: TimelineEntry[] = [];
    for (const event of this.selectEvents.iterate(run.id)) {
      const entry = toEntry(event, callsByEvent.get(event.id) ?? []);
      if (entry !== null) entries.push(entry);
    }
    return {
      runId: run.run_id,
      status: run.status,
      statusRaw: run.status_raw,
      endLimit: run.end_limit,
      budgets: run.budgets_json === null ? null : (JSON.parse(run.budgets_json) as RunTimeline['budgets']),
      startedAt: run.started_at,
      endedAt: run.ended_at,
      firstLine: run.first_line,
      lastLine: run.last_line,
      entries,
      live,
    };
  }
}

/** Analyzes every run of the source unless findings for these options are already stored. */
export function ensureAnalysis(db: Database.Database, sourceId: number, options: AnalysisOptions): void {
  const key = optionsKey(options);
  const done = db.prepare('SELECT 1 FROM analyses WHERE source_id = ? AND options_key = ?').get(sourceId, key);
  if (done !== undefined) return;
  const runs = db
    .prepare<[number], RunRow>(
      `SELECT id, run_id, status, status_raw, end_limit, budgets_json, started_at, ended_at, first_line, last_line
       FROM runs WHERE source_id = ? ORDER BY first_line`,
    )
    .all(sourceId);
  const insertFinding = db.prepare(
    `INSERT INTO findings (source_id, options_key, run_pk, kind, severity, step, call_id, line, message, details_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const updateCall = db.prepare('UPDATE tool_calls SET state = ?, result_event_id = ? WHERE run_pk = ? AND event_id = ? AND call_index = ?');
  const timelines = new RunTimelineReader(db);
  db.transaction(() => {
    db.prepare('DELETE FROM findings WHERE source_id = ? AND options_key = ?').run(sourceId, key);
    for (const run of runs) {
      const analysis = analyzeRun(timelines.read(run, false), options);
      for (const f of analysis.findings) {
        insertFinding.run(sourceId, key, run.id, f.kind, f.severity, f.step, f.call_id, f.line, f.message, f.details ? JSON.stringify(f.details) : null);
      }
      for (const resolution of analysis.calls) {
        updateCall.run(resolution.state, resolution.answerEventId, run.id, resolution.call.eventId, resolution.call.index);
      }
    }
    db.prepare('INSERT INTO analyses (source_id, options_key, completed_at) VALUES (?, ?, ?)').run(sourceId, key, new Date().toISOString());
  })();
}
