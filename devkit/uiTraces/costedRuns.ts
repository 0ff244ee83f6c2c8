/**
 * A run that delegates to sub-agents, priced three ways (docs/semantics.md §19), canonical JSONL
 * written by code. `lead` answers with a private model (`acme-coder-1`, priced only by a user price
 * file) and once with a model no table knows; it starts `helper`, whose response records its own
 * cost, and `helper` starts `deep`, which records one too. The figures a view must show follow from
 * these numbers alone.
 */

export const costedRuns = {
  /** The user price file's entry for the private model (USD per million tokens). */
  privateModel: { provider: 'acme', model: 'acme-coder-1', input_mtok: 1, output_mtok: 4 },
  /** `lead`'s first response: 1,000 tokens in and 100 out of the private model. */
  leadPricedUsd: (1000 * 1 + 100 * 4) / 1e6,
  /** `lead`'s second response, of a model no price table knows: unpriced, never $0. */
  unknownModel: 'mystery-model-9',
  /** What `helper` and `deep` recorded their responses cost. */
  helperRecordedUsd: 0.25,
  deepRecordedUsd: 0.125,
} as const;

/** The trace, as JSONL lines: `lead`, then `helper`, then `deep`. */
export function costedRunsLines(startMs = Date.UTC(2025, 6, 1, 9)): string[] {
  const at = (offsetMs: number): string => new Date(startMs + offsetMs).toISOString();
  const { privateModel } = costedRuns;
  const lines: object[] = [
    { type: 'run_start', run_id: 'lead', ts: at(0), task: 'Find out why the nightly build fails' },
    {
      type: 'model_response',
      run_id: 'lead',
      step: 1,
      ts: at(1000),
      outcome: 'tool_calls',
      model: privateModel.model,
      provider: privateModel.provider,
      tool_calls: [{ call_id: 'lead-c1', name: 'Task', arguments: JSON.stringify({ description: 'Read the build log' }) }],
      usage: { input_tokens: 1000, output_tokens: 100 },
    },
    { type: 'run_start', run_id: 'helper', ts: at(1100), task: 'Read the build log' },
    {
      type: 'model_response',
      run_id: 'helper',
      step: 1,
      ts: at(1500),
      outcome: 'tool_calls',
      model: 'gpt-4o-2024-08-06',
      tool_calls: [{ call_id: 'helper-c1', name: 'Task', arguments: JSON.stringify({ description: 'Grep the log' }) }],
      usage: { input_tokens: 50, output_tokens: 5, cost_usd: costedRuns.helperRecordedUsd },
    },
    { type: 'run_start', run_id: 'deep', ts: at(1600), task: 'Grep the log' },
    {
      type: 'model_response',
      run_id: 'deep',
      step: 1,
      ts: at(1800),
      outcome: 'final',
      model: 'gpt-4o-2024-08-06',
      text: 'The linker ran out of memory.',
      usage: { input_tokens: 40, output_tokens: 8, cost_usd: costedRuns.deepRecordedUsd },
    },
    { type: 'run_end', run_id: 'deep', ts: at(1900), status: 'MODEL_FINISHED', output: 'The linker ran out of memory.' },
    { type: 'tool_result', run_id: 'helper', step: 1, ts: at(2000), call_id: 'helper-c1', name: 'Task', status: 'ok', output: 'OOM', child_run_id: 'deep' },
    {
      type: 'model_response',
      run_id: 'helper',
      step: 2,
      ts: at(2100),
      outcome: 'final',
      model: 'gpt-4o-2024-08-06',
      text: 'The linker ran out of memory.',
    },
    { type: 'run_end', run_id: 'helper', ts: at(2200), status: 'MODEL_FINISHED', output: 'The linker ran out of memory.' },
    { type: 'tool_result', run_id: 'lead', step: 1, ts: at(2300), call_id: 'lead-c1', name: 'Task', status: 'ok', output: 'OOM', child_run_id: 'helper' },
    {
      type: 'model_response',
      run_id: 'lead',
      step: 2,
      ts: at(3000),
      outcome: 'final',
      model: costedRuns.unknownModel,
      text: 'The nightly build fails because the linker runs out of memory.',
      usage: { input_tokens: 1200, output_tokens: 5 },
    },
    { type: 'run_end', run_id: 'lead', ts: at(3100), status: 'MODEL_FINISHED', output: 'The linker runs out of memory.' },
  ];
  return lines.map((line) => JSON.stringify(line));
}
