/**
 * A directory of traces to open as a library (docs/semantics.md §18), canonical JSONL written by
 * code: an eval sweep of order lookups where three runs in three files fail the same way
 * (`get_order` answers `ORDER_NOT_FOUND` for a different order each time: one failure signature),
 * one run stopped by its tool-call budget, the two runs of comparedRuns.ts in two files of another
 * directory, and a note that is no trace. Each run is in its own file; their days differ, so the
 * over-time chart has more than one bar.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterTurns, beforeTurns, comparedRunLines } from './comparedRuns';

export const libraryFixture = {
  /** Runs whose `get_order` call fails with ORDER_NOT_FOUND, each in its own file under `sweep/`. */
  notFoundRuns: ['sample-1', 'sample-2', 'sample-3'],
  budgetRun: 'sample-4',
  /** The budget run's model, and a price for it in a user price file (USD per million tokens). */
  privateModel: { provider: 'acme', model: 'acme-coder-1', input_mtok: 1, output_mtok: 4 },
  /** The two runs of comparedRuns.ts, in `ab/before.jsonl` and `ab/after.jsonl`. */
  comparedRuns: ['before', 'after'],
  /** Every run of the library. */
  runs: 6,
  /** Trace files (the note is not one). */
  traceFiles: 6,
} as const;

/** A run that looks an order up, is told it does not exist, and says so. */
function notFoundRun(runId: string, orderId: string, startMs: number): string[] {
  const at = (offsetMs: number): string => new Date(startMs + offsetMs).toISOString();
  return [
    { type: 'run_start', run_id: runId, ts: at(0), task: `Where is order ${orderId}?`, config: { provider: 'openai', model: 'gpt-4o-2024-08-06' } },
    {
      type: 'model_response',
      run_id: runId,
      step: 1,
      ts: at(1000),
      outcome: 'tool_calls',
      model: 'gpt-4o-2024-08-06',
      tool_calls: [{ call_id: `${runId}-c1`, name: 'get_order', arguments: JSON.stringify({ order_id: orderId }) }],
      usage: { input_tokens: 800, output_tokens: 30 },
    },
    {
      type: 'tool_result',
      run_id: runId,
      step: 1,
      ts: at(1400),
      call_id: `${runId}-c1`,
      name: 'get_order',
      status: 'error',
      error: { code: 'ORDER_NOT_FOUND', message: `order ${orderId} not found` },
      latency_ms: 400,
    },
    {
      type: 'model_response',
      run_id: runId,
      step: 2,
      ts: at(2500),
      outcome: 'final',
      model: 'gpt-4o-2024-08-06',
      text: `I could not find order ${orderId}.`,
      usage: { input_tokens: 900, output_tokens: 20 },
    },
    { type: 'run_end', run_id: runId, ts: at(2600), status: 'MODEL_FINISHED', output: `I could not find order ${orderId}.` },
  ].map((line) => JSON.stringify(line));
}

/**
 * A run of a private model (`acme-coder-1`, in no price table) allowed one tool call that makes
 * two, the second after its budget ran out, and is stopped.
 */
function budgetRun(runId: string, startMs: number): string[] {
  const at = (offsetMs: number): string => new Date(startMs + offsetMs).toISOString();
  const lines: object[] = [{ type: 'run_start', run_id: runId, ts: at(0), task: 'List my orders', config: { budgets: { max_tool_calls: 1 } } }];
  for (const step of [1, 2]) {
    lines.push({
      type: 'model_response',
      run_id: runId,
      step,
      ts: at(step * 1000),
      outcome: 'tool_calls',
      model: 'acme-coder-1',
      provider: 'acme',
      tool_calls: [{ call_id: `${runId}-c${step}`, name: 'search_orders', arguments: JSON.stringify({ page: step }) }],
      usage: { input_tokens: 400 * step, output_tokens: 25 },
    });
    lines.push({
      type: 'tool_result',
      run_id: runId,
      step,
      ts: at(step * 1000 + 300),
      call_id: `${runId}-c${step}`,
      name: 'search_orders',
      status: 'ok',
      output: '[]',
    });
  }
  lines.push({ type: 'run_end', run_id: runId, ts: at(3000), status: 'BUDGET_EXCEEDED', reason: 'max_tool_calls' });
  return lines.map((line) => JSON.stringify(line));
}

/** Writes the library under `root` (created if missing). */
export function writeLibraryFixture(root: string): void {
  const day = (n: number): number => Date.UTC(2025, 5, n, 9);
  mkdirSync(join(root, 'sweep'), { recursive: true });
  mkdirSync(join(root, 'ab'), { recursive: true });
  libraryFixture.notFoundRuns.forEach((runId, index) =>
    writeFileSync(join(root, 'sweep', `${runId}.jsonl`), `${notFoundRun(runId, `A-1048${index}`, day(1 + index)).join('\n')}\n`),
  );
  writeFileSync(join(root, 'sweep', `${libraryFixture.budgetRun}.jsonl`), `${budgetRun(libraryFixture.budgetRun, day(4)).join('\n')}\n`);
  writeFileSync(join(root, 'ab', 'before.jsonl'), `${comparedRunLines('before', beforeTurns, day(5)).join('\n')}\n`);
  writeFileSync(join(root, 'ab', 'after.jsonl'), `${comparedRunLines('after', afterTurns, day(6)).join('\n')}\n`);
  writeFileSync(join(root, 'sweep', 'notes.json'), '{"about": "eval sweep of 2025-06"}\n');
}

/** A run to append to a library file while it is open: one answer, no calls. */
export function appendedRunLines(runId: string): string {
  const at = (offsetMs: number): string => new Date(Date.UTC(2025, 5, 7, 9) + offsetMs).toISOString();
  return (
    [
      { type: 'run_start', run_id: runId, ts: at(0), task: 'Hello?' },
      { type: 'model_response', run_id: runId, step: 1, ts: at(1000), outcome: 'final', text: 'Hello!', usage: { input_tokens: 100, output_tokens: 5 } },
      { type: 'run_end', run_id: runId, ts: at(1100), status: 'MODEL_FINISHED', output: 'Hello!' },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n') + '\n'
  );
}
