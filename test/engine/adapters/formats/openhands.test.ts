/**
 * OpenHands event streams (a JSON array of events, or events written back to back), read by the
 * real engine: parallel calls sharing one model response, observations linked by `cause` and
 * `tool_call_id`, exit codes and error observations, the finish tool as the final answer, the end
 * from the last agent state. Fixtures: test/fixtures/formats/openhands/ (invented sessions; see
 * docs/formats/openhands.md).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openHandsFormat } from '../../../../src-main/engine/adapters/openHands';
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
  runsOf as runSummariesOf,
  type StoredEvent,
} from '../../../support/formatTests';

const FORMAT = 'openhands';
const fixture = (name: string): string => join(fixtures, FORMAT, name);

/** The runs as the shared summary gives them, with when each started and ended. */
function runsOf(report: AnalyzeReport) {
  return runSummariesOf(report).map((counts, index) => ({ ...counts, started_at: report.runs[index]!.started_at, ended_at: report.runs[index]!.ended_at }));
}

interface EventRow extends StoredEvent {
  call_id: string | null;
  outcome: string | null;
  tool_call_count: number | null;
  result_ok: number | null;
  error_code: string | null;
}

function ingest(path: string): Promise<{ report: AnalyzeReport; events: EventRow[] }> {
  return ingestEvents<EventRow>(
    path,
    FORMAT,
    'SELECT line, type, type_raw, step, call_id, outcome, tool_call_count, result_ok, error_code FROM events ORDER BY id',
  );
}

function detect(path: string): string | null {
  return detectFile(openHandsFormat, path);
}

describe('openhands event streams', () => {
  const dir = temporaryDir('openhands-more');
  after(() => dir.remove());

  it('parallel calls from one response, results by cause, errors, finish as the final answer, the end from agent_state_changed', async () => {
    const { report, events } = await ingest(fixture('parallel-calls-finished.json'));
    assert.equal(report.files[0]?.format, FORMAT);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      {
        run_id: 'parallel-calls-finished',
        status: normalized('finished'),
        status_raw: 'finished',
        steps: 4,
        tool_calls: 4,
        tool_results: 4,
        // The response behind both parallel actions is counted once.
        input_tokens: 3100 + 3600 + 3900 + 4200,
        output_tokens: 120 + 60 + 40 + 70,
        // Zone-less local times, read as UTC.
        started_at: '2025-04-18T09:00:00.000Z',
        ended_at: '2025-04-18T09:00:16.420Z',
      },
    ]);
    // Streamed element by element: each event is anchored to its own element of the array.
    const elementLines = readFileSync(fixture('parallel-calls-finished.json'), 'utf8')
      .split('\n')
      .flatMap((text, index) => (text === '  {' ? [index + 1] : []));
    assert.deepEqual(
      [...new Set(events.map((event) => event.line))].sort((a, b) => a - b),
      elementLines,
    );
    assert.deepEqual(
      events
        .filter((event) => event.type !== 'unknown')
        .map((event) => [event.type, event.step, event.call_id, event.outcome, event.tool_call_count, event.result_ok, event.error_code]),
      [
        ['model_response', 1, null, 'tool_calls', 2, null, null],
        ['tool_call_start', 1, 'toolu_ls', null, null, null, null],
        ['tool_call_start', 1, 'toolu_view', null, null, null, null],
        ['tool_result', 1, 'toolu_ls', null, null, 1, null],
        ['tool_result', 1, 'toolu_view', null, null, 1, null],
        ['model_response', 2, null, 'tool_calls', 1, null, null],
        ['tool_call_start', 2, 'toolu_test', null, null, null, null],
        ['tool_result', 2, 'toolu_test', null, null, 0, 'exit_1'],
        ['model_response', 3, null, 'tool_calls', 1, null, null],
        ['tool_call_start', 3, 'toolu_bad', null, null, null, null],
        ['tool_result', 3, 'toolu_bad', null, null, 0, null],
        // finish: the completion signal, listed on the response but never issued, so never dangling.
        ['model_response', 4, null, 'final', 1, null, null],
        ['run_end', 4, null, null, null, null, null],
      ],
    );
    assert.deepEqual(
      events.filter((event) => event.type === 'unknown').map((event) => event.type_raw),
      [
        'observation:agent_state_changed (loading)',
        'action:message (user)',
        'observation:agent_state_changed (running)',
        'observation:agent_state_changed (finished)',
      ],
    );
    assert.deepEqual(findingsOf(report), [
      ['tool_error', 'toolu_bad'],
      ['tool_error', 'toolu_test'],
    ]);
  });

  it('a text reply, then a call whose observation never comes before the agent errors: a true dangling call', async () => {
    const { report, events } = await ingest(fixture('dangling-then-error.json'));
    assert.deepEqual(
      runsOf(report).map(({ run_id, status, status_raw, steps, tool_calls, tool_results }) => ({
        run_id,
        status,
        status_raw,
        steps,
        tool_calls,
        tool_results,
      })),
      [{ run_id: 'dangling-then-error', status: normalized('error'), status_raw: 'error', steps: 2, tool_calls: 1, tool_results: 0 }],
    );
    assert.deepEqual(
      events.filter((event) => event.type === 'model_response').map((event) => [event.step, event.outcome]),
      [
        [1, 'final'],
        [2, 'tool_calls'],
      ],
    );
    assert.deepEqual(findingsOf(report), [['dangling_call', 'toolu_pip']]);
  });

  it('events written back to back, legacy actions without call ids: a derived id per action, paired through cause', async () => {
    const { report, events } = await ingest(fixture('legacy-events.jsonl'));
    assert.deepEqual(
      runsOf(report).map(({ run_id, status, status_raw, steps, tool_calls, tool_results }) => ({
        run_id,
        status,
        status_raw,
        steps,
        tool_calls,
        tool_results,
      })),
      [{ run_id: 'legacy-events', status: normalized('finished'), status_raw: 'finished', steps: 2, tool_calls: 1, tool_results: 1 }],
    );
    // Each event is its own record, so each is anchored to its own line.
    assert.deepEqual(
      events.map((event) => [event.line, event.type, event.call_id]),
      [
        [1, 'unknown', null],
        [2, 'model_response', null],
        [2, 'tool_call_start', 'legacy-events:event1'],
        [3, 'tool_result', 'legacy-events:event1'],
        [4, 'model_response', null],
        [4, 'run_end', null],
      ],
    );
    assert.deepEqual(findingsOf(report), []);
  });

  it('an evaluation output: one run per instance line, its history streamed, the end from finish or from the instance error', async () => {
    const { report, events } = await ingest(fixture('eval-output.jsonl'));
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(
      runsOf(report).map(({ run_id, status, status_raw, steps, tool_calls, tool_results, started_at }) => ({
        run_id,
        status,
        status_raw,
        steps,
        tool_calls,
        tool_results,
        started_at,
      })),
      [
        {
          run_id: 'demo__repo-1',
          status: normalized('finished'),
          status_raw: 'finished',
          steps: 2,
          tool_calls: 1,
          tool_results: 1,
          started_at: '2025-04-30T10:00:00.000Z',
        },
        {
          run_id: 'demo__repo-2',
          status: 'budget_exceeded',
          status_raw: 'budget_exceeded',
          steps: 2,
          tool_calls: 2,
          tool_results: 2,
          started_at: '2025-04-30T11:00:00.000Z',
        },
      ],
    );
    // Every event of an instance is anchored to its line; the members after history are kept.
    assert.deepEqual(
      events.filter((event) => event.line === 2).map((event) => [event.type, event.type_raw, event.call_id]),
      [
        ['run_start', 'instance', null],
        ['unknown', 'action:system', null],
        ['unknown', 'action:message (user)', null],
        ['model_response', 'action:run', null],
        ['tool_call_start', 'action:run', 'call_make'],
        ['tool_result', 'observation:run', 'call_make'],
        ['model_response', 'action:run', null],
        ['tool_call_start', 'action:run', 'call_make2'],
        ['tool_result', 'observation:run', 'call_make2'],
        ['unknown', 'instance', null],
        ['run_end', 'instance', null],
      ],
    );
    // The iteration limit is the run's turn budget: the instance's error names it.
    const budget = report.findings.find((finding) => finding.kind === 'budget_exceeded');
    assert.equal(budget?.run_id, 'demo__repo-2');
    assert.match(budget?.message ?? '', /max_turns budget: 2 of 2 model calls/);
    assert.deepEqual(findingsOf(report), [
      ['budget_exceeded', null],
      ['tool_error', 'call_make'],
      ['tool_error', 'call_make2'],
    ]);
  });

  it('is detected by the registry', async () => {
    const { report } = await analyzeFile(fixture('parallel-calls-finished.json'));
    assert.equal(report.files[0]?.format, FORMAT);
    assert.match(report.files[0]?.format_reason ?? '', /^OpenHands event stream/);
  });

  it('detects its documents, also past the detection sample, and no other format', () => {
    for (const path of traceFiles(join(fixtures, FORMAT))) assert.match(detect(path) ?? '', /OpenHands/, path);
    assertRejectsExamplesAndFixtures(detect, ['swe-agent', 'mini-swe-agent', 'gemini-cli', 'codex', 'claude-code']);
    const big = JSON.parse(readFileSync(fixture('parallel-calls-finished.json'), 'utf8')) as { content?: string }[];
    big[5]!.content = 'x'.repeat(1_200_000);
    const path = join(dir.path, 'big.json');
    writeFileSync(path, JSON.stringify(big, null, 2));
    assert.match(detect(path) ?? '', /OpenHands event stream/);
    // An evaluation output whose first instance is larger than the sample (a long history): its opening is enough.
    const [first, second] = readFileSync(fixture('eval-output.jsonl'), 'utf8').split('\n');
    const instance = JSON.parse(first!) as { history: { content?: string }[] };
    instance.history[3]!.content = 'y'.repeat(1_200_000);
    const bigEval = join(dir.path, 'output.jsonl');
    writeFileSync(bigEval, `${JSON.stringify(instance)}\n${second}\n`);
    assert.match(detect(bigEval) ?? '', /OpenHands evaluation output/);
  });
});

describe('openhands: latency', () => {
  it("a call's latency is the time from its action to its observation; finish, which runs nothing, has none", async () => {
    assert.deepEqual(await callLatencies(join(fixtures, 'openhands', 'parallel-calls-finished.json'), 'openhands'), [
      ['toolu_ls', 590],
      ['toolu_view', 630],
      ['toolu_test', 4500],
      ['toolu_bad', 50],
      ['toolu_fin', null],
    ]);
  });
});
