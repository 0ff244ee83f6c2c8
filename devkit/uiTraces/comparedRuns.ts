/**
 * Two runs of one task for comparing (docs/semantics.md §16), canonical JSONL written by code: both
 * search the orders, then `before` looks up order A-10482 and answers; `after` looks up A-10483
 * (the first divergence, at step 2), checks a shipment `before` never did (step 3), then answers.
 * Every call is answered ok; each response records its usage and a cost of $0.001.
 */

export interface ComparedTurn {
  calls: { name: string; args: Record<string, unknown> }[];
  /** Text of a final answer, for a turn without calls. */
  answer?: string;
}

export const beforeTurns: readonly ComparedTurn[] = [
  { calls: [{ name: 'search_orders', args: { query: 'boots' } }] },
  { calls: [{ name: 'get_order', args: { order_id: 'A-10482' } }] },
  { calls: [], answer: 'Your boots ship Wednesday.' },
];

export const afterTurns: readonly ComparedTurn[] = [
  { calls: [{ name: 'search_orders', args: { query: 'boots' } }] },
  { calls: [{ name: 'get_order', args: { order_id: 'A-10483' } }] },
  { calls: [{ name: 'get_shipment', args: { shipment_id: 'SH-88213' } }] },
  { calls: [], answer: 'Your boots ship Wednesday.' },
];

/** A canonical run whose step k issues turns[k - 1]'s calls, as JSONL lines. */
export function comparedRunLines(runId: string, turns: readonly ComparedTurn[], startMs: number): string[] {
  const at = (offsetMs: number): string => new Date(startMs + offsetMs).toISOString();
  const lines: unknown[] = [{ type: 'run_start', run_id: runId, ts: at(0), task: 'Where is my order?' }];
  turns.forEach((turn, index) => {
    const step = index + 1;
    const calls = turn.calls.map((call, k) => ({ call_id: `${runId}-c${step}-${k}`, name: call.name, arguments: JSON.stringify(call.args) }));
    lines.push({
      type: 'model_response',
      run_id: runId,
      step,
      ts: at(step * 1000),
      outcome: calls.length > 0 ? 'tool_calls' : 'final',
      text: turn.answer ?? null,
      tool_calls: calls,
      usage: { input_tokens: 500 * step, output_tokens: 20, cost_usd: 0.001 },
    });
    for (const call of calls)
      lines.push({ type: 'tool_result', run_id: runId, step, ts: at(step * 1000 + 500), call_id: call.call_id, name: call.name, status: 'ok', output: 'ok' });
  });
  lines.push({ type: 'run_end', run_id: runId, ts: at(turns.length * 1000 + 900), status: 'MODEL_FINISHED' });
  return lines.map((line) => JSON.stringify(line));
}

/** Both runs in one trace, `before` first. */
export function comparedRunsTrace(): string {
  return (
    [...comparedRunLines('before', beforeTurns, Date.UTC(2025, 5, 3, 10)), ...comparedRunLines('after', afterTurns, Date.UTC(2025, 5, 3, 11))].join('\n') + '\n'
  );
}
