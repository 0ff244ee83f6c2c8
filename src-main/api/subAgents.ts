/**
 * Sub-agents as the run view shows them: for a parent run, each tool call whose result names a
 * child run (`child_run_id`), with that run summed up or — when it is not in the trace — the file
 * that would hold it and the folders looked in; for a child run, the call that started it (its
 * event, step and what it asked of the sub-agent).
 */
import type Database from 'better-sqlite3';
import type { SubAgentCall } from '../../shared/api';
import { callArgumentsIn, subAgentLabel } from '../../shared/trace/subAgentCall';
import type { RunStatus } from '../../shared/trace/runStatus';
import { millisBetween } from '../../shared/trace/timestamps';
import { adapterNamed } from '../engine/adapters/registry';
import { companionDirectories } from '../engine/ingest/companionFiles';
import { prepared } from '../engine/store/preparedStatements';
import { RawLineReader, type LocationRow } from '../engine/store/rawLines';

/** How many lines after the call's event line may hold its block (a Claude Code message writes one line per block). */
const CALL_LINES = 64;

/**
 * The label of call `callId` issued on `line` of source `sourceId`: read from that line and the
 * lines folded into its event after it (where a merged message's later blocks are), null when
 * none of them can be read or names it.
 */
function callLabel(db: Database.Database, sourceId: number, line: number, callId: string): string | null {
  const locations = prepared<[number, number, number, number, number], LocationRow & { line: number }>(
    db,
    `SELECT line, byte_offset, byte_length FROM events WHERE source_id = ? AND line = ?
     UNION ALL
     SELECT line, byte_offset, byte_length FROM (
       SELECT line, byte_offset, byte_length FROM absorbed_lines WHERE source_id = ? AND line > ? ORDER BY line LIMIT ?)`,
  ).all(sourceId, line, sourceId, line, CALL_LINES);
  let reader: RawLineReader | null = null;
  try {
    reader = RawLineReader.open(db, sourceId);
    if (reader === null) return null;
    for (const location of locations) {
      let record: unknown;
      try {
        record = JSON.parse(reader.read(location.line, location).bytes.toString('utf8'));
      } catch {
        continue;
      }
      const args = callArgumentsIn(record, callId);
      if (args !== undefined) return subAgentLabel(args);
    }
    return null;
  } catch {
    // A changed or missing file: the label is an extra, the run is shown without it.
    return null;
  } finally {
    reader?.close();
  }
}

interface CallSqlRow {
  name: string;
  event_id: number;
  step: number | null;
  line: number;
  source_id: number;
}

/** The call `callId` of run `runPk`: its tool, event, step and label; nulls when the run issued no such call. */
export function startingCall(
  db: Database.Database,
  runPk: number,
  callId: string | null,
): { callName: string | null; callEventId: number | null; callStep: number | null; label: string | null } {
  const call =
    callId === null
      ? undefined
      : prepared<[number, string], CallSqlRow>(
          db,
          'SELECT c.name, c.event_id, c.step, c.line, r.source_id FROM tool_calls c JOIN runs r ON r.id = c.run_pk WHERE c.run_pk = ? AND c.call_id = ? ORDER BY c.id LIMIT 1',
        ).get(runPk, callId);
  if (call === undefined || callId === null) return { callName: null, callEventId: null, callStep: null, label: null };
  return { callName: call.name, callEventId: call.event_id, callStep: call.step, label: callLabel(db, call.source_id, call.line, callId) };
}

interface ChildSqlRow {
  id: number;
  status: string;
  steps: number;
  tool_calls: number;
  started_at: string | null;
  ended_at: string | null;
  errors: number;
  warnings: number;
  infos: number;
  answer: string | null;
}

/**
 * The sub-agents run `runPk` started, in the order of their results. `sources` is the trace's
 * source ids as SQL (a checked list of integers), `optionsKey` the analysis whose findings count.
 */
export function subAgentCalls(db: Database.Database, sources: string, optionsKey: string, run: { id: number; source_id: number }): SubAgentCall[] {
  const results = prepared<[number], { id: number; call_id: string | null; child_run_id: string }>(
    db,
    // +run_pk: through the small index of results that started a run, not all of the run's events.
    `SELECT id, call_id, child_run_id FROM events WHERE +run_pk = ? AND type = 'tool_result' AND child_run_id IS NOT NULL ORDER BY id`,
  ).all(run.id);
  if (results.length === 0) return [];
  const source = prepared<[number], { path: string; format: string }>(db, 'SELECT path, format FROM sources WHERE id = ?').get(run.source_id);
  const adapter = source === undefined ? undefined : adapterNamed(source.format);
  return results.map((result) => {
    const callId = result.call_id ?? '';
    const child = prepared<[{ runId: string; key: string }], ChildSqlRow>(
      db,
      `SELECT r.id, r.status, r.steps, r.tool_calls, r.started_at, r.ended_at,
              (SELECT count(*) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.severity = 'error') AS errors,
              (SELECT count(*) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.severity = 'warning') AS warnings,
              (SELECT count(*) FROM findings f WHERE f.run_pk = r.id AND f.options_key = @key AND f.severity = 'info') AS infos,
              (SELECT e.summary FROM events e WHERE e.run_pk = r.id AND e.type = 'model_response' AND e.outcome = 'final' ORDER BY e.id DESC LIMIT 1) AS answer
       FROM runs r WHERE r.run_id = @runId AND r.source_id IN (${sources}) ORDER BY r.source_id, r.first_line LIMIT 1`,
    ).get({ runId: result.child_run_id, key: optionsKey });
    const label = startingCall(db, run.id, result.call_id).label;
    const common = { callId, resultEventId: result.id, childRunId: result.child_run_id, label };
    if (child !== undefined) {
      return {
        ...common,
        child: {
          runPk: child.id,
          status: child.status as RunStatus,
          steps: child.steps,
          toolCalls: child.tool_calls,
          durationMs: millisBetween(child.started_at, child.ended_at),
          findings: { error: child.errors, warning: child.warnings, info: child.infos },
          answer: child.answer,
        },
        missing: null,
      };
    }
    const lookedIn = adapter === undefined || source === undefined ? [] : companionDirectories(adapter, source.path);
    return { ...common, child: null, missing: { file: adapter?.companionFileOfRun?.(result.child_run_id) ?? null, lookedIn } };
  });
}
