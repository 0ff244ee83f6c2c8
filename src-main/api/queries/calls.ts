/** The Calls list and per-tool latency (`calls`, `callLatency`), and the API row of a stored call. */
import type { CallRow } from '../../../shared/api';
import { latencyByTool } from '../../../shared/latencyStats';
import { callLatencySamples, callPage, type CallListSqlRow } from '../../engine';
import type { Query } from './scope';

export function toCallRow(row: CallListSqlRow): CallRow {
  return {
    runPk: row.run_pk,
    runId: row.run_id,
    eventId: row.event_id,
    callIndex: row.call_index,
    callId: row.call_id,
    name: row.name,
    step: row.step,
    line: row.line,
    argsSummary: row.args_summary,
    argsError: row.args_error,
    state: row.state,
    answerEventId: row.answer_event_id,
    errorCode: row.error_code,
    errorLine: row.error_line,
    // A call marked not executed has no latency: nothing ran.
    latencyMs: row.answer_type === 'tool_result' ? row.answer_latency_ms : null,
  };
}

export const calls: Query<'calls'> = (db, scope, request) => {
  const page = callPage(db, {
    sourceIds: scope.sourceIds,
    runPk: request.runPk,
    name: request.name,
    state: request.state,
    text: request.text,
    sort: request.sort ?? 'position',
    descending: request.descending ?? false,
    limit: request.limit,
    offset: request.offset,
  });
  // The tool names are of the whole scope (trace or run), for a filter that offers every tool.
  return { total: page.total, offset: request.offset, rows: page.rows.map(toCallRow), names: page.names };
};

export const callLatency: Query<'callLatency'> = (db, scope, request) => {
  const samples = callLatencySamples(db, scope.sourceIds, request.runPk);
  const tools = latencyByTool(samples.map((sample) => ({ name: sample.name, latencyMs: sample.latency_ms })));
  return { tools, runs: new Set(samples.map((sample) => sample.run_pk)).size };
};
