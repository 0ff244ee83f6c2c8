/**
 * SWE-agent trajectories (`.traj`, one JSON document per run), read by the real engine: 1.x
 * function calling (ids from history[], requeried steps that never ran, the exit on cost), 0.x
 * thought/action (derived call ids, an exit action), history-only demonstrations, RetryAgent
 * attempts. Fixtures: test/fixtures/formats/swe-agent/ (invented runs; see docs/formats/swe-agent.md).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sweAgentFormat } from '../../../../src-main/engine/adapters/sweAgent';
import type { MappedEvent } from '../../../../src-main/engine/adapters/formatAdapter';
import type { AnalyzeReport } from '../../../../shared/report';
import { analyzeFile, temporaryDir } from '../../../support/engineHarness';
import {
  callLatencies,
  fixtures,
  findingsOf,
  normalized,
  ingestEvents,
  detectFile,
  assertRejectsExamplesAndFixtures,
  traceFiles,
  runCountsOf as runsOf,
  type StoredEvent,
} from '../../../support/formatTests';

const FORMAT = 'swe-agent';
const fixture = (name: string): string => join(fixtures, FORMAT, name);

interface EventRow extends StoredEvent {
  call_id: string | null;
  name: string | null;
  outcome: string | null;
  result_ok: number | null;
  latency_ms: number | null;
}

/** The stored events of a fixture, in emission order, and its report (read with --format, so this passes before registration). */
function ingest(path: string): Promise<{ report: AnalyzeReport; events: EventRow[] }> {
  return ingestEvents<EventRow>(path, FORMAT, 'SELECT line, type, type_raw, step, call_id, name, outcome, result_ok, latency_ms FROM events ORDER BY id');
}

/** Maps a whole document with the adapter alone, as the engine hands it over: one record at line 1. */
function mapDirect(path: string): MappedEvent[] {
  const events: MappedEvent[] = [];
  const mapper = sweAgentFormat.createMapper({ path });
  const bytes = readFileSync(path);
  const failure = mapper.map(JSON.parse(bytes.toString('utf8')), { lineNumber: 1, offset: 0, length: bytes.length }, (event) => events.push(event), bytes);
  assert.equal(failure, undefined);
  mapper.finish((event) => events.push(event));
  return events;
}

function detect(path: string): string | null {
  return detectFile(sweAgentFormat, path);
}

describe('swe-agent trajectories', () => {
  const dir = temporaryDir('swe-agent-large');
  after(() => dir.remove());

  it('1.x function calling: call ids from history[], requeried steps not run, the harness exit not a model call', async () => {
    const { report, events } = await ingest(fixture('function-calling-exit-cost.traj'));
    assert.equal(report.files[0]?.format, FORMAT);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    const raw = 'submitted (exit_cost)';
    assert.deepEqual(runsOf(report), [{ run_id: 'textkit__textkit-42', status: normalized(raw), status_raw: raw, steps: 5, tool_calls: 4, tool_results: 3 }]);
    // Every event comes from the one document record.
    assert.ok(events.every((event) => event.line === 1));
    const calls = events
      .filter((event) => event.type !== 'unknown' && event.type !== 'model_request')
      .map((e) => [e.type, e.step, e.call_id, e.name, e.outcome]);
    assert.deepEqual(calls, [
      ['run_start', 0, null, null, null],
      ['model_response', 1, null, null, 'tool_calls'],
      ['tool_result', 1, 'call_f1nd', 'find_file', null],
      // A format error (no action): SWE-agent requeried the model.
      ['model_response', 2, null, null, 'incomplete'],
      // A blocked command: in the trajectory, absent from the history, never run.
      ['model_response', 3, null, null, 'tool_calls'],
      ['tool_call_not_executed', 3, 'textkit__textkit-42:step3', 'rm', null],
      ['model_response', 4, null, null, 'tool_calls'],
      ['tool_result', 4, 'call_0pen', 'open', null],
      ['model_response', 5, null, null, 'tool_calls'],
      ['tool_result', 5, 'call_3dit', 'edit', null],
      ['run_end', 5, null, null, null],
    ]);
    assert.equal(events.filter((event) => event.type === 'model_request').length, 5, 'each step with a query is a recorded request');
    assert.deepEqual(
      events.filter((event) => event.type === 'unknown').map((event) => event.type_raw),
      ['trajectory/exit'],
    );
    assert.equal(events.find((event) => event.call_id === 'call_f1nd')?.latency_ms, 310);
    const budget: [string, string | null][] = normalized(raw) === 'budget_exceeded' ? [['budget_exceeded', null]] : [];
    // The format error (step 2) is an incomplete response (docs/semantics.md §1).
    assert.deepEqual(
      findingsOf(report),
      [...budget, ['incomplete_response', null], ['unexecuted_call', 'textkit__textkit-42:step3']].sort((a, b) =>
        `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`),
      ),
    );
  });

  it('1.x: the cost limit is kept in the config, not declared as a budget (no cost per call), and the exit names its limit', () => {
    const events = mapDirect(fixture('function-calling-exit-cost.traj'));
    const start = events.find((event) => event.event.type === 'run_start')?.event as Record<string, unknown>;
    assert.deepEqual(start['config'], { model: 'gpt-4o', per_instance_cost_limit: 0.5, versions: { 'swe-agent': '1.0.1' }, environment: 'main' });
    const end = events.find((event) => event.event.type === 'run_end')?.event as Record<string, unknown>;
    assert.equal(end['limit'], 'max_cost_usd');
    assert.deepEqual(end['model_stats'], { instance_cost: 0.51, tokens_sent: 21034, tokens_received: 612, api_calls: 5 });
  });

  it('0.x thought/action: derived call ids paired with their own step, the last observation taken from the trajectory, exit_context', async () => {
    const { report, events } = await ingest(fixture('thought-action-exit-context.traj'));
    const raw = 'submitted (exit_context)';
    assert.deepEqual(runsOf(report), [
      { run_id: 'thought-action-exit-context', status: normalized(raw), status_raw: raw, steps: 3, tool_calls: 3, tool_results: 3 },
    ]);
    assert.deepEqual(
      events.filter((event) => event.type === 'tool_result').map((event) => [event.step, event.call_id, event.name]),
      [
        [1, 'thought-action-exit-context:step1', 'ls'],
        [2, 'thought-action-exit-context:step2', 'grep'],
        [3, 'thought-action-exit-context:step3', 'grep'],
      ],
    );
    assert.deepEqual(
      events.filter((event) => event.type === 'unknown').map((event) => event.type_raw),
      ['trajectory/exit_context'],
    );
    const budget: [string, string | null][] = normalized(raw) === 'budget_exceeded' ? [['budget_exceeded', null]] : [];
    assert.deepEqual(findingsOf(report), budget);
    const call = mapDirect(fixture('thought-action-exit-context.traj')).find((event) => event.event.type === 'model_response')?.event as Record<
      string,
      unknown
    >;
    assert.deepEqual(call['tool_calls'], [{ call_id: 'thought-action-exit-context:step1', name: 'ls', arguments: { action: 'ls' } }]);
  });

  it('history only: messages in order, results by tool_call_ids, the end derived from the recorded submit', async () => {
    const { report, events } = await ingest(fixture('history-only-demo.traj'));
    assert.deepEqual(runsOf(report), [
      { run_id: 'history-only-demo', status: normalized('submitted'), status_raw: 'submitted', steps: 2, tool_calls: 2, tool_results: 2 },
    ]);
    assert.deepEqual(findingsOf(report), []);
    assert.deepEqual(
      events.map((event) => event.type_raw),
      ['history/system_prompt', 'history/observation', 'history/assistant', 'history/tool', 'history/assistant', 'history/tool', 'history/submit'],
    );
    const end = mapDirect(fixture('history-only-demo.traj')).at(-1)?.event as Record<string, unknown>;
    assert.match(String(end['reason']), /^derived: .*submit/);
  });

  it('RetryAgent: one run per attempt; the top-level copy of the chosen attempt is kept as an unknown event, not a third run', async () => {
    const { report, events } = await ingest(fixture('retry-attempts.traj'));
    assert.deepEqual(runsOf(report), [
      { run_id: 'retry-attempts/attempt_0', status: normalized('submitted'), status_raw: 'submitted', steps: 1, tool_calls: 1, tool_results: 1 },
      { run_id: 'retry-attempts/attempt_1', status: normalized('submitted'), status_raw: 'submitted', steps: 1, tool_calls: 1, tool_results: 1 },
    ]);
    assert.deepEqual(findingsOf(report), []);
    assert.equal(events.at(-1)?.type_raw, 'trajectory (top-level copy of the attempt the retry loop chose)');
  });

  it('is detected by the registry', async () => {
    const { report } = await analyzeFile(fixture('thought-action-exit-context.traj'));
    assert.equal(report.files[0]?.format, FORMAT);
    assert.match(report.files[0]?.format_reason ?? '', /^SWE-agent trajectory/);
  });

  it('detects its documents, also past the detection sample from their first 64 KiB, and no other format', async () => {
    for (const path of traceFiles(join(fixtures, FORMAT))) assert.match(detect(path) ?? '', /SWE-agent/, path);
    assertRejectsExamplesAndFixtures(detect, ['mini-swe-agent', 'openhands', 'gemini-cli', 'codex', 'claude-code']);
    // A 1.x trajectory over the 1 MiB sample: no complete value to look at, only the head.
    const big = JSON.parse(readFileSync(fixture('function-calling-exit-cost.traj'), 'utf8')) as { trajectory: { observation: string }[] };
    big.trajectory[0]!.observation = 'x'.repeat(1_200_000);
    const path = join(dir.path, 'big.traj');
    writeFileSync(path, JSON.stringify(big, null, 2));
    assert.match(detect(path) ?? '', /SWE-agent trajectory: the document opens with/);
    const { report } = await analyzeFile(path, { format: FORMAT });
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.equal(report.runs[0]?.steps, 5);
  });

  it('a value that is not a SWE-agent document is a parse error, the rest of the file still loads', async () => {
    const path = join(dir.path, 'two.traj');
    const doc = readFileSync(fixture('history-only-demo.traj'), 'utf8');
    writeFileSync(path, `${doc}\n{"unrelated": true}\n${doc}`);
    const { report } = await analyzeFile(path, { format: FORMAT });
    assert.deepEqual(
      report.files[0]?.parse_errors.map((error) => error.message),
      ['not a SWE-agent trajectory: expected an object with trajectory[], history[] or attempts[]'],
    );
    assert.deepEqual(
      report.runs.map((run) => run.run_id),
      ['two', 'two#2'],
    );
  });
});

describe('swe-agent: latency', () => {
  it("a step's execution_time; a step without one is not timed", async () => {
    assert.deepEqual(await callLatencies(join(fixtures, 'swe-agent', 'function-calling-exit-cost.traj'), 'swe-agent'), [
      ['call_f1nd', 310],
      ['textkit__textkit-42:step3', null],
      ['call_0pen', 120],
      ['call_3dit', 200],
    ]);
  });
});
