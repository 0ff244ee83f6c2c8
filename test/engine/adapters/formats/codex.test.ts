/**
 * Codex CLI, read by the real engine: rollouts (0.40 and 0.104 shapes) and `codex exec --json`
 * streams (item events and the older `{id, msg}` events). Steps are assembled from the model's
 * outputs between inputs, usage is counted once per step, turns are one run whose end is the last
 * turn's end. Fixtures: test/fixtures/formats/codex/ (invented sessions; see docs/formats/codex.md).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { codexFormat } from '../../../../src-main/engine/adapters/codex/format';
import { openTrace, readReport } from '../../../../src-main/engine/engine';
import { openDatabase } from '../../../../src-main/engine/store/traceDatabase';
import type { AnalyzeReport } from '../../../../shared/report';
import { analyzeFile, defaultAnalysis, temporaryDir } from '../../../support/engineHarness';
import {
  callLatencies,
  fixtures,
  findingsOf,
  detectFile,
  examplesAndOtherFixtures,
  traceFiles,
  runCountsOf as runsOf,
  type StoredEvent,
} from '../../../support/formatTests';

const fixture = (name: string): string => join(fixtures, 'codex', name);

interface EventRow extends StoredEvent {
  call_id: string | null;
  outcome: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  result_ok: number | null;
  error_code: string | null;
  summary: string | null;
}

/** The stored events of a fixture, in emission order, and its report. */
async function ingest(name: string): Promise<{ report: AnalyzeReport; events: EventRow[] }> {
  const cache = temporaryDir('codex');
  try {
    const trace = await openTrace(fixture(name), { cacheDir: cache.path, analysis: defaultAnalysis });
    const db = openDatabase(trace.dbPath, { readonly: true });
    try {
      const events = db
        .prepare('SELECT line, type, type_raw, step, call_id, outcome, input_tokens, output_tokens, result_ok, error_code, summary FROM events ORDER BY id')
        .all() as EventRow[];
      return { report: readReport(trace, defaultAnalysis), events };
    } finally {
      db.close();
    }
  } finally {
    cache.remove();
  }
}

const canonical = (events: EventRow[]): EventRow[] => events.filter((event) => event.type !== 'unknown');

function detect(path: string): string | null {
  return detectFile(codexFormat, path);
}

describe('codex rollouts', () => {
  it('0.40: one step per turn_context, usage reported before the outputs, exit codes as errors, the end derived from the final answer', async () => {
    const { report, events } = await ingest('rollout-0.40-two-turns.jsonl');
    assert.equal(report.files[0]?.format, 'codex');
    assert.match(report.files[0]?.format_reason ?? '', /^Codex CLI rollout: \d+ of the first \d+ records are \{timestamp, type, payload\}/);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      { run_id: '0199a3c1-5e2d-7b40-9f13-6d2e8a4c1b07', status: 'model_finished', status_raw: 'model_finished', steps: 6, tool_calls: 4, tool_results: 4 },
    ]);
    // Each token_count (written before the step's reasoning in 0.40) counted once, on its own step.
    assert.equal(report.runs[0]?.input_tokens, 2100 + 2400 + 2600 + 2900 + 3100 + 3300);
    assert.equal(report.runs[0]?.output_tokens, 120 + 170 + 150 + 400 + 200 + 90);
    // exit_code 1 in the JSON output, and the sandbox failure text.
    assert.deepEqual(findingsOf(report), [
      ['tool_error', 'call_Wd3kP9sYm1Hc'],
      ['tool_error', 'call_Zr5uE7bQc4Nf'],
    ]);
    const responses = events.filter((event) => event.type === 'model_response');
    assert.deepEqual(
      responses.map((event) => [event.step, event.outcome, event.line]),
      [
        [1, 'tool_calls', 8],
        [2, 'tool_calls', 14],
        [3, 'tool_calls', 19],
        [4, 'final', 25],
        [5, 'tool_calls', 31],
        [6, 'final', 37],
      ],
    );
    const errors = events.filter((event) => event.type === 'tool_result' && event.result_ok === 0).map((event) => event.error_code);
    assert.deepEqual(errors, ['exit_code_1', 'sandbox_failure']);
    // 0.40 writes no task_complete: the end is derived from the last step, a final answer.
    const end = events.find((event) => event.type === 'run_end');
    assert.deepEqual([end?.type_raw, end?.line], ['derived/final_answer', 37]);
    // Every record the adapter does not merge into a step is kept: mirrors, user input, turn contexts.
    assert.ok(events.some((event) => event.type_raw === 'event_msg/agent_message'));
    assert.ok(events.some((event) => event.type_raw === 'turn_context'));
  });

  it('0.104: parallel calls, custom tool input, a hosted web search, repeated token totals counted once, two turns as one run', async () => {
    const { report, events } = await ingest('rollout-0.104-parallel.jsonl');
    assert.equal(report.files[0]?.format, 'codex');
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      { run_id: '019bd6f2-8a41-7c3e-b5d0-2f7e19a6c384', status: 'model_finished', status_raw: 'model_finished', steps: 6, tool_calls: 6, tool_results: 6 },
    ]);
    // The totals are re-reported after each turn_context: each model call is counted once.
    assert.equal(report.runs[0]?.input_tokens, 130000);
    assert.equal(report.runs[0]?.output_tokens, 1150);
    // "Process exited with code 1" is the only failure; the web search owes no result; the raw apply_patch input parses as {input}.
    assert.deepEqual(findingsOf(report), [['tool_error', 'call_7YgS2mKp4dQz']]);
    const calls = canonical(events).filter((event) => event.type === 'model_response');
    assert.deepEqual(
      calls.map((event) => [event.step, event.outcome, event.input_tokens]),
      [
        [1, 'tool_calls', 18000],
        [2, 'tool_calls', 20500],
        [3, 'tool_calls', 21500],
        [4, 'final', 22500],
        [5, 'tool_calls', 23500],
        [6, 'final', 24000],
      ],
    );
    // The three parallel results belong to step 1, logged after its response.
    const step1 = canonical(events).filter((event) => event.step === 1);
    assert.deepEqual(
      step1.map((event) => [event.type, event.call_id]),
      [
        ['model_response', null],
        ['tool_result', 'call_7YgS2mKp4dQz'],
        ['tool_result', 'call_Rb1xN8wVf3Lh'],
        ['tool_result', 'call_Ue4jT6cHs9Ya'],
      ],
    );
    // The first turn's task_complete was not the end: kept as an unknown record; the second one ends the run.
    assert.deepEqual(
      events.filter((event) => event.type_raw === 'event_msg/task_complete').map((event) => [event.type, event.line]),
      [
        ['unknown', 38],
        ['run_end', 52],
      ],
    );
    // Of the 12 token_count lines, 6 carry a step's usage; the 5 repeats and the one without usage are kept as unknown records.
    assert.equal(events.filter((event) => event.type_raw === 'event_msg/token_count').length, 6);
  });

  it('a call without output and no turn end: a true dangling call; the cut last line is a parse error', async () => {
    const { report } = await analyzeFile(fixture('rollout-truncated.jsonl'));
    assert.equal(report.files[0]?.format, 'codex');
    assert.deepEqual(
      report.files[0]?.parse_errors.map((error) => error.line),
      [15],
    );
    assert.deepEqual(runsOf(report), [
      { run_id: '019c2e8b-4d17-7a05-93c2-b8e61f0d4a29', status: 'unterminated', status_raw: '', steps: 2, tool_calls: 2, tool_results: 1 },
    ]);
    assert.deepEqual(findingsOf(report), [
      ['dangling_call', 'call_Pt7yC1nXk5Dm'],
      ['unterminated_run', null],
    ]);
  });

  it('an interrupted turn marks its open call not executed; the next turn ends the run', async () => {
    const { report, events } = await ingest('rollout-interrupted.jsonl');
    assert.deepEqual(runsOf(report), [
      { run_id: '019c4a17-2f6e-7d90-a1b3-5e8c0f4d2a66', status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 2, tool_results: 1 },
    ]);
    assert.deepEqual(findingsOf(report), [['unexecuted_call', 'call_Xe2bL7uNa9Wq']]);
    assert.deepEqual(
      events.filter((event) => event.line === 9).map((event) => [event.type, event.type_raw]),
      [
        ['tool_call_not_executed', 'event_msg/turn_aborted'],
        ['unknown', 'event_msg/turn_aborted'],
      ],
    );
  });

  it('a session that ends with turn_aborted is cancelled, with the reason as written', async () => {
    const { report, events } = await ingest('rollout-cancelled.jsonl');
    assert.deepEqual(runsOf(report), [
      { run_id: '01999c4e-77a0-7e12-b6f4-30d8a2c9e5b1', status: 'cancelled', status_raw: 'interrupted', steps: 2, tool_calls: 1, tool_results: 1 },
    ]);
    // The step the interruption cut is an incomplete response (docs/semantics.md §1); cancelled, so no more than a warning.
    assert.deepEqual(findingsOf(report), [['incomplete_response', null]]);
    // The step cut by the interruption had reasoning only.
    assert.deepEqual(
      canonical(events)
        .filter((event) => event.type === 'model_response')
        .map((event) => event.outcome),
      ['tool_calls', 'incomplete'],
    );
  });

  it('compaction, an old local_shell_call, a snapshot record and a malformed call line', async () => {
    const { report, events } = await ingest('rollout-compacted.jsonl');
    assert.deepEqual(
      report.files[0]?.parse_errors.map((error) => [error.line, error.message]),
      [[15, 'Codex function_call without a "call_id"']],
    );
    assert.deepEqual(runsOf(report), [
      { run_id: '019aa8e3-0c5b-7f48-a2d9-64e1b07c3f85', status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 2, tool_results: 2 },
    ]);
    // The compacted record replaces the history: the request after it is a compaction (info), not an extension.
    assert.deepEqual(findingsOf(report), [['history_compacted', null]]);
    assert.deepEqual(
      events
        .filter((event) => event.type === 'unknown')
        .map((event) => event.type_raw)
        .filter((raw) => !raw.startsWith('event_msg/token') && raw !== 'turn_context'),
      [
        'event_msg/task_started',
        'response_item/message/user',
        'event_msg/user_message',
        'compacted',
        'event_msg/context_compacted',
        'response_item/ghost_snapshot',
      ],
    );
  });

  it('0.116: shell_command writes "Exit code: N"; an exec_command_end before an output that shows no code gives it', async () => {
    const path = fixture('rollout-0.116-shell-command.jsonl');
    const { report } = await analyzeFile(path);
    assert.deepEqual(
      runsOf(report).map(({ status, steps, tool_calls, tool_results }) => ({ status, steps, tool_calls, tool_results })),
      [{ status: 'model_finished', steps: 4, tool_calls: 3, tool_results: 3 }],
    );
    // Exit 1 from the header, exit 2 from exec_command_end; exit 0 is no error.
    assert.deepEqual(
      report.findings.map((finding) => [finding.kind, finding.call_id, finding.details?.['code']]),
      [
        ['tool_error', 'call_sc1', 'exit_code_1'],
        ['tool_error', 'call_ex2', 'exit_code_2'],
      ],
    );
    // The run time is the header's Wall time.
    assert.deepEqual(await callLatencies(path), [
      ['call_sc1', 4200],
      ['call_ex2', 1500],
      ['call_sc3', 3900],
    ]);
  });

  it('encrypted reasoning holds no credential; a placeholder bearer token in test code the agent wrote is a warning, not an error', async () => {
    // The ciphertext holds the shapes of a Hugging Face token and a Google key by chance, as real ones do. The
    // call is on a model response's line, which names no one call (docs/semantics.md §4).
    const { report } = await analyzeFile(fixture('rollout-opaque-blobs.jsonl'));
    const secrets = report.findings.filter((finding) => finding.kind === 'secret_in_trace');
    assert.deepEqual(
      secrets.map((finding) => [finding.severity, finding.line, finding.call_id, (finding.details as { secret_kind?: string }).secret_kind]),
      [['warning', 6, null, 'authorization_header']],
    );
    assert.match(secrets[0]?.message ?? '', /may be a placeholder or test value/);
  });

  it('a call takes the run time Codex wrote in its output, never the gap between the call and output records', async () => {
    // 0.40: metadata.duration_seconds (rounded by Codex to 0.1 s, so 0 ms is "under 50 ms"); a
    // sandbox failure's text has none, though its records are 2.5 s apart: not recorded.
    assert.deepEqual(await callLatencies(fixture('rollout-0.40-two-turns.jsonl')), [
      ['call_q8TnR2vLx0aJ', 100],
      ['call_Wd3kP9sYm1Hc', 0],
      ['call_Zr5uE7bQc4Nf', null],
      ['call_Hn6cV1tGd8Ks', 0],
    ]);
    // 0.104: exec_command's "Wall time" header (npm test: 8973.1 ms, its records 9 s apart);
    // apply_patch's metadata.duration_seconds.
    assert.deepEqual(await callLatencies(fixture('rollout-0.104-parallel.jsonl')), [
      ['call_7YgS2mKp4dQz', 412],
      ['call_Rb1xN8wVf3Lh', 412],
      ['call_Ue4jT6cHs9Ya', 412],
      ['call_Kc2pZ7eWn5Bv', 0],
      ['call_Mf9dA3rJq6Tx', 8973.1],
      ['call_Vn8sG2hBw0Pe', 412],
    ]);
  });
});

describe('codex exec --json', () => {
  it('item events: calls paired by item id, parallel calls, failures, file changes, hosted search, two turns', async () => {
    const { report, events } = await ingest('exec-items.jsonl');
    assert.equal(report.files[0]?.format, 'codex');
    assert.match(
      report.files[0]?.format_reason ?? '',
      /^codex exec --json stream: \d+ of the first \d+ records are thread\/turn\/item events \(thread\.started with thread_id\)/,
    );
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      { run_id: '019c0d1e-6b3a-7c58-9f21-4ae0d7b5c163', status: 'model_finished', status_raw: 'model_finished', steps: 5, tool_calls: 4, tool_results: 4 },
    ]);
    // Usage is per turn: counted once, on the turn's last step.
    assert.equal(report.runs[0]?.input_tokens, 24000 + 9000);
    assert.equal(report.runs[0]?.output_tokens, 900 + 120);
    assert.deepEqual(findingsOf(report), [
      ['tool_error', 'item_1'],
      ['tool_error', 'item_2'],
    ]);
    assert.deepEqual(
      canonical(events).map((event) => [event.type, event.step, event.call_id ?? event.outcome]),
      [
        ['run_start', 0, null],
        ['model_response', 1, 'tool_calls'],
        ['tool_call_start', 1, 'item_1'],
        ['tool_call_start', 1, 'item_2'],
        ['tool_result', 1, 'item_1'],
        ['tool_result', 1, 'item_2'],
        ['model_response', 2, 'tool_calls'],
        ['tool_result', 2, 'item_5'],
        ['model_response', 3, 'final'],
        ['model_response', 4, 'tool_calls'],
        ['tool_call_start', 4, 'item_9'],
        ['tool_result', 4, 'item_9'],
        ['model_response', 5, 'final'],
        ['run_end', 5, null],
      ],
    );
  });

  it('a stream cut after a command started: dangling call, unterminated run', async () => {
    const { report } = await analyzeFile(fixture('exec-truncated.jsonl'));
    assert.deepEqual(runsOf(report), [
      { run_id: '019c0e40-2d18-7b6f-a3c5-9e07f1d4b2a8', status: 'unterminated', status_raw: '', steps: 1, tool_calls: 1, tool_results: 0 },
    ]);
    assert.deepEqual(findingsOf(report), [
      ['dangling_call', 'item_1'],
      ['unterminated_run', null],
    ]);
  });

  it('turn.failed ends the run as failed', async () => {
    const { report } = await analyzeFile(fixture('exec-failed.jsonl'));
    assert.deepEqual(runsOf(report), [
      { run_id: '019c0e52-7a90-7d13-b8e2-04c6f9a1d35e', status: 'failed', status_raw: 'failed', steps: 1, tool_calls: 0, tool_results: 0 },
    ]);
    // The failed turn's response is incomplete (docs/semantics.md §1).
    assert.deepEqual(findingsOf(report), [['incomplete_response', null]]);
  });

  it('the older {id, msg} events: begin/end pairs, per-call token counts, the config and prompt lines', async () => {
    const { report, events } = await ingest('exec-legacy.jsonl');
    assert.equal(report.files[0]?.format, 'codex');
    assert.match(report.files[0]?.format_reason ?? '', /^codex exec --json stream \(before 0\.44\)/);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    // No session id in the stream: the run is named after the file.
    assert.deepEqual(runsOf(report), [
      { run_id: 'exec-legacy', status: 'model_finished', status_raw: 'model_finished', steps: 4, tool_calls: 3, tool_results: 3 },
    ]);
    assert.equal(report.runs[0]?.input_tokens, 3000 + 3400 + 3800 + 4000);
    assert.equal(report.runs[0]?.output_tokens, 150 + 300 + 80 + 120);
    assert.deepEqual(findingsOf(report), [['tool_error', 'call_Ym3cK7tGp0Uw']]);
    const start = events.find((event) => event.type === 'run_start');
    assert.deepEqual([start?.line, start?.summary], [1, 'openai codex-mini-latest']);
  });

  it('latency: exec_command_end.duration as recorded; an apply_patch end and the 0.44+ items record none', async () => {
    assert.deepEqual(await callLatencies(fixture('exec-legacy.jsonl')), [
      ['call_Tz8mQ1xWd4Ke', 4.12],
      ['call_Ra5vB9nHs2Lf', null],
      ['call_Ym3cK7tGp0Uw', 2310],
    ]);
    // No timestamps and no durations in the item events: every call is "not recorded", not 0 ms.
    assert.deepEqual(await callLatencies(fixture('exec-items.jsonl')), [
      ['item_1', null],
      ['item_2', null],
      ['item_5', null],
      ['item_9', null],
    ]);
  });
});

describe('codex detection', () => {
  it('recognises every codex fixture', () => {
    for (const path of traceFiles(join(fixtures, 'codex'))) assert.notEqual(detect(path), null, path);
  });

  it('claims neither the Loopscope examples nor other formats’ fixtures', () => {
    const others = examplesAndOtherFixtures('codex', /\.(jsonl|json|traj)$/);
    assert.ok(others.length > 20);
    for (const path of others) assert.equal(detect(path), null, path);
  });
});
