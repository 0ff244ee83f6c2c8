/**
 * Every bundled example trace gives exactly the statuses, counts, findings and parse errors its
 * `examples/expected/<name>.json` states — through the real engine and a real SQLite file.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeFile } from '../../support/engineHarness';
import { examplesDir } from '../../../devkit/repoPaths';

interface Expected {
  /** The format of an example that is not a canonical trace (an HTTP exchange log); absent for the canonical ones. */
  format?: string;
  /** What the example shows, for a reader of the file; not compared. */
  notes?: string;
  runs: Record<(typeof RUN_FIELDS)[number], string | number | null>[];
  findings: { kind: string; severity: string; run_id: string | null; step: number | null; call_id: string | null }[];
  parse_error_lines: number[];
}

/** Every field an expected run states, each compared: token sums included. */
const RUN_FIELDS = ['run_id', 'status', 'status_raw', 'steps', 'tool_calls', 'tool_results', 'input_tokens', 'output_tokens'] as const;
const FINDING_FIELDS = ['kind', 'severity', 'run_id', 'step', 'call_id'] as const;
const TOP_LEVEL_FIELDS = new Set(['format', 'notes', 'runs', 'findings', 'parse_error_lines']);

const names = readdirSync(join(examplesDir, 'expected'))
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.replace(/\.json$/, ''));

/** Kinds that are always about one call. */
const callFindingKinds = new Set([
  'dangling_call',
  'unexecuted_call',
  'orphan_result',
  'duplicate_result',
  'duplicate_call_id',
  'out_of_order_result',
  'invalid_arguments',
  'repeated_action',
  'tool_error',
  'missing_tool_result_in_history',
]);

function findingKey(f: Expected['findings'][number]): string {
  return `${f.run_id} ${f.kind} ${f.severity} step=${f.step} call=${f.call_id}`;
}

describe('bundled examples', () => {
  it('has an expected outcome for every example trace', () => {
    const traces = readdirSync(examplesDir)
      .filter((file) => file.endsWith('.jsonl'))
      .map((file) => file.replace(/\.jsonl$/, ''));
    assert.deepEqual([...traces].sort(), [...names].sort());
  });

  for (const name of names) {
    it(`${name}: statuses, counts, findings and parse errors match`, async () => {
      const expected = JSON.parse(readFileSync(join(examplesDir, 'expected', `${name}.json`), 'utf8')) as Expected;
      // An expected file states nothing the test would silently skip.
      for (const field of Object.keys(expected)) assert.ok(TOP_LEVEL_FIELDS.has(field), `expected/${name}.json: unknown field ${field}`);
      for (const run of expected.runs)
        assert.deepEqual(Object.keys(run).sort(), [...RUN_FIELDS].sort(), `expected/${name}.json: a run states exactly ${RUN_FIELDS.join(', ')}`);
      for (const f of expected.findings)
        assert.deepEqual(Object.keys(f).sort(), [...FINDING_FIELDS].sort(), `expected/${name}.json: a finding states exactly ${FINDING_FIELDS.join(', ')}`);
      const { report } = await analyzeFile(join(examplesDir, `${name}.jsonl`));
      assert.equal(report.files[0]?.format, expected.format ?? 'loopscope');
      const pick = (run: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(RUN_FIELDS.map((field) => [field, run[field]]));
      assert.deepEqual(report.runs.map(pick), expected.runs.map(pick));
      assert.deepEqual(report.findings.map(findingKey).sort(), expected.findings.map(findingKey).sort());
      assert.deepEqual(
        report.files[0]?.parse_errors.map((error) => error.line),
        expected.parse_error_lines,
      );
      for (const f of report.findings) assert.ok(f.message.length > 20 && f.line !== null, `finding ${f.kind} has a message and a line`);
      // docs/semantics.md §4: a finding about one call names it, so filtering by call id finds it.
      for (const f of report.findings) if (callFindingKinds.has(f.kind)) assert.ok(f.call_id !== null, `finding ${f.kind} at line ${f.line} names its call`);
    });
  }
});
