/**
 * Sub-agents as the run view shows them: for a parent run, each tool call whose result names a
 * child run (`child_run_id`), with that run summed up or — when it is not in the trace — the file
 * that would hold it and the folders looked in; for a child run, the call that started it (its
 * event, step and what it asked of the sub-agent).
 */
import type Database from 'better-sqlite3';
import type { Cost, SubAgentCall } from '../../shared/api';
import { callArgumentsIn, subAgentLabel } from '../../shared/trace/subAgentCall';
import type { RunStatus } from '../../shared/trace/runStatus';
import { millisBetween } from '../../shared/trace/timestamps';
import { adapterNamed, callOfRun, childRunResults, companionDirectories, RawLineReader, recordsFrom, sourcePathAndFormat, subAgentRun } from '../engine';
import type { TraceScope } from './queries/scope';

/** How many lines after the call's event line may hold its block (a Claude Code message writes one line per block). */
const CALL_LINES = 64;

/**
 * The label of call `callId` issued on `line` of source `sourceId`: read from that line and the
 * lines folded into its event after it (where a merged message's later blocks are), null when
 * none of them can be read or names it.
 */
function callLabel(db: Database.Database, sourceId: number, line: number, callId: string): string | null {
  const locations = recordsFrom(db, sourceId, line, CALL_LINES);
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

/** The call `callId` of run `runPk`: its tool, event, step and label; nulls when the run issued no such call. */
export function startingCall(
  db: Database.Database,
  runPk: number,
  callId: string | null,
): { callName: string | null; callEventId: number | null; callStep: number | null; label: string | null } {
  const call = callId === null ? undefined : callOfRun(db, runPk, callId);
  if (call === undefined || callId === null) return { callName: null, callEventId: null, callStep: null, label: null };
  return { callName: call.name, callEventId: call.event_id, callStep: call.step, label: callLabel(db, call.source_id, call.line, callId) };
}

/**
 * The sub-agents run `run` started, in the order of their results; their findings counted for the
 * scope's analysis, their cost with their own sub-agents' (`rolledUpCost`).
 */
export function subAgentCalls(
  db: Database.Database,
  scope: TraceScope,
  run: { id: number; source_id: number },
  rolledUpCost: (childRunPk: number) => Cost,
): SubAgentCall[] {
  const results = childRunResults(db, run.id);
  if (results.length === 0) return [];
  const source = sourcePathAndFormat(db, run.source_id);
  const adapter = source === undefined ? undefined : adapterNamed(source.format);
  return results.map((result) => {
    const callId = result.call_id ?? '';
    const child = subAgentRun(db, scope.sourceIds, scope.optionsKey, result.child_run_id);
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
          cost: rolledUpCost(child.id),
          answer: child.answer,
        },
        missing: null,
      };
    }
    const lookedIn = adapter === undefined || source === undefined ? [] : companionDirectories(adapter, source.path);
    return { ...common, child: null, missing: { file: adapter?.companionFileOfRun?.(result.child_run_id) ?? null, lookedIn } };
  });
}
