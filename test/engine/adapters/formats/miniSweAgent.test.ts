/**
 * mini-swe-agent trajectories (`.traj.json`, one JSON document per run), read by the real engine:
 * the early bare message list (text actions, derived ids, a format error, the submission as the
 * last message), the 1.0 object (step limit, usage per call), the 1.1 tool-call format (ids,
 * timeouts, the `exit` message answering the submitting call). Fixtures:
 * test/fixtures/formats/mini-swe-agent/ (invented runs; see docs/formats/mini-swe-agent.md).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { miniSweAgentFormat } from '../../../../src-main/engine/adapters/miniSweAgent';
import type { MappedEvent } from '../../../../src-main/engine/adapters/formatAdapter';
import type { AnalyzeReport } from '../../../../shared/report';
import { analyzeFile, temporaryDir } from '../../../support/engineHarness';
import {
  callLatencies,
  fixtures,
  findingsOf,
  runsOf,
  normalized,
  ingestEvents,
  detectFile,
  assertRejectsExamplesAndFixtures,
  traceFiles,
  type StoredEvent,
} from '../../../support/formatTests';

const FORMAT = 'mini-swe-agent';
const fixture = (name: string): string => join(fixtures, FORMAT, name);

interface EventRow extends StoredEvent {
  ts: string | null;
  call_id: string | null;
  outcome: string | null;
  finish_reason: string | null;
  cost_usd: number | null;
  result_ok: number | null;
  error_code: string | null;
}

function ingest(path: string): Promise<{ report: AnalyzeReport; events: EventRow[] }> {
  return ingestEvents<EventRow>(
    path,
    FORMAT,
    'SELECT line, type, type_raw, step, ts, call_id, outcome, finish_reason, cost_usd, result_ok, error_code FROM events ORDER BY id',
  );
}

function mapDirect(path: string): MappedEvent[] {
  const events: MappedEvent[] = [];
  const mapper = miniSweAgentFormat.createMapper({ path });
  const bytes = readFileSync(path);
  assert.equal(
    mapper.map(JSON.parse(bytes.toString('utf8')), { lineNumber: 1, offset: 0, length: bytes.length }, (event) => events.push(event), bytes),
    undefined,
  );
  mapper.finish((event) => events.push(event));
  return events;
}

function detect(path: string): string | null {
  return detectFile(miniSweAgentFormat, path);
}

describe('mini-swe-agent trajectories', () => {
  const dir = temporaryDir('mini-swe-agent-more');
  after(() => dir.remove());

  it('early list: one derived call per action, paired with the next user message; the end derived from the submission', async () => {
    const { report, events } = await ingest(fixture('early-list.traj.json'));
    assert.equal(report.files[0]?.format, FORMAT);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      {
        run_id: 'early-list',
        status: normalized('Submitted'),
        status_raw: 'Submitted',
        steps: 5,
        tool_calls: 4,
        tool_results: 4,
        input_tokens: null,
        output_tokens: null,
      },
    ]);
    assert.ok(events.every((event) => event.line === 1));
    assert.deepEqual(
      events
        .filter((event) => event.type !== 'unknown')
        .map((event) => [event.type, event.step, event.call_id, event.outcome, event.result_ok, event.error_code]),
      [
        ['model_response', 1, null, 'tool_calls', null, null],
        ['tool_result', 1, 'early-list:step1', null, 1, null],
        // Two action blocks: mini-swe-agent runs neither and answers with a format error.
        ['model_response', 2, null, 'incomplete', null, null],
        ['model_response', 3, null, 'tool_calls', null, null],
        ['tool_result', 3, 'early-list:step3', null, 1, null],
        ['model_response', 4, null, 'tool_calls', null, null],
        ['tool_result', 4, 'early-list:step4', null, 0, 'exit_2'],
        ['model_response', 5, null, 'tool_calls', null, null],
        ['tool_result', 5, 'early-list:step5', null, 1, null],
        ['run_end', 5, null, null, null, null],
      ],
    );
    assert.deepEqual(
      events.filter((event) => event.type === 'unknown').map((event) => event.type_raw),
      ['system', 'user', 'user'],
    );
    // The response without a single action is an incomplete response (docs/semantics.md §1).
    assert.deepEqual(findingsOf(report), [
      ['incomplete_response', null],
      ['tool_error', 'early-list:step4'],
    ]);
    const end = mapDirect(fixture('early-list.traj.json')).at(-1)?.event as Record<string, unknown>;
    assert.match(String(end['reason']), /^derived: the last command prints the submission marker/);
  });

  it('1.0 object: the step limit is a turn budget, usage per call from extra.response, LimitsExceeded', async () => {
    const { report, events } = await ingest(fixture('limits-exceeded.traj.json'));
    assert.deepEqual(runsOf(report), [
      {
        run_id: 'limits-exceeded',
        status: normalized('LimitsExceeded'),
        status_raw: 'LimitsExceeded',
        steps: 3,
        tool_calls: 3,
        tool_results: 3,
        input_tokens: 3300,
        output_tokens: 120,
      },
    ]);
    assert.deepEqual(
      events.filter((event) => event.type === 'model_response').map((event) => event.finish_reason),
      ['stop', 'stop', 'stop'],
    );
    // Declared step_limit 3, three calls, no final answer; three identical `ls src` with identical output.
    assert.deepEqual(findingsOf(report), [
      ['budget_exceeded', null],
      ['repeated_action', 'limits-exceeded:step3'],
    ]);
    const start = mapDirect(fixture('limits-exceeded.traj.json'))[0]?.event as Record<string, unknown>;
    assert.deepEqual(start['config'], { model: 'anthropic/claude-sonnet-4', budgets: { max_turns: 3 }, versions: { 'mini-swe-agent': '1.9.0' } });
  });

  it('1.1 tool calls: ids, a timeout as an error, a format error, the exit message answering the submitting call', async () => {
    const { report, events } = await ingest(fixture('toolcall-submitted.traj.json'));
    assert.deepEqual(runsOf(report), [
      {
        run_id: 'toolcall-submitted',
        status: normalized('Submitted'),
        status_raw: 'Submitted',
        steps: 3,
        tool_calls: 4,
        tool_results: 3,
        input_tokens: 4100,
        output_tokens: 160,
      },
    ]);
    assert.deepEqual(
      events
        .filter((event) => event.type !== 'unknown' && event.type !== 'run_start')
        .map((event) => [event.type, event.type_raw, event.step, event.call_id, event.outcome, event.result_ok]),
      [
        ['model_response', 'assistant', 1, null, 'tool_calls', null],
        ['tool_result', 'tool', 1, 'call_cat1', null, 1],
        ['tool_result', 'tool', 1, 'call_pyt2', null, 0],
        ['model_response', 'assistant', 2, null, 'incomplete', null],
        ['model_response', 'assistant', 3, null, 'tool_calls', null],
        ['tool_result', 'exit', 3, 'call_fix3', null, 1],
        ['tool_call_not_executed', 'exit', 3, 'call_ls4', null, null],
        ['run_end', 'exit', 3, null, null, null],
      ],
    );
    assert.equal(events.find((event) => event.type === 'model_response')?.ts, '2025-10-09T09:10:01.500Z');
    assert.deepEqual(
      events.filter((event) => event.type === 'model_response').map((event) => event.cost_usd),
      [0.004, 0.003, 0.005],
    );
    assert.deepEqual(
      events.filter((event) => event.type === 'unknown').map((event) => event.type_raw),
      ['system', 'user', 'user/FormatError'],
    );
    // The response mini-swe-agent answered with a format error is an incomplete response (docs/semantics.md §1).
    assert.deepEqual(findingsOf(report), [
      ['incomplete_response', null],
      ['tool_error', 'call_pyt2'],
      ['unexecuted_call', 'call_ls4'],
    ]);
    const start = mapDirect(fixture('toolcall-submitted.traj.json'))[0]?.event as Record<string, unknown>;
    assert.deepEqual((start['config'] as Record<string, unknown>)['budgets'], { max_cost_usd: 1 }, 'a cost limit is a budget when each call records its cost');
  });

  it('2.x: an empty exception_info is no exception; a provider exception as the exit status is a failed run and the failed model call an api_error', async () => {
    const { report, events } = await ingest(fixture('provider-error.traj.json'));
    assert.deepEqual(runsOf(report), [
      {
        run_id: 'provider-error',
        status: 'failed',
        status_raw: 'InternalServerError',
        steps: 3,
        tool_calls: 2,
        tool_results: 2,
        input_tokens: 2600,
        output_tokens: 70,
      },
    ]);
    // Both observations carry exception_info "": only the return code 1 makes an error.
    assert.deepEqual(
      events.filter((event) => event.type === 'tool_result').map((event) => [event.call_id, event.result_ok]),
      [
        ['call_t1', 0],
        ['call_c2', 1],
      ],
    );
    assert.deepEqual(findingsOf(report), [
      ['api_error', null],
      ['tool_error', 'call_t1'],
    ]);
    const apiError = report.findings.find((finding) => finding.kind === 'api_error');
    assert.equal(apiError?.severity, 'error');
    assert.equal(apiError?.step, 3);
    assert.match(apiError?.message ?? '', /InternalServerError: litellm\.InternalServerError: AnthropicException .*overloaded_error.*the error ended the run/);
  });

  it('is detected by the registry', async () => {
    const { report } = await analyzeFile(fixture('early-list.traj.json'));
    assert.equal(report.files[0]?.format, FORMAT);
    assert.match(report.files[0]?.format_reason ?? '', /^mini-swe-agent trajectory/);
  });

  it('detects its documents, also past the detection sample, and no other format', () => {
    for (const path of traceFiles(join(fixtures, FORMAT))) assert.match(detect(path) ?? '', /mini-swe-agent/, path);
    assertRejectsExamplesAndFixtures(detect, ['swe-agent', 'openhands', 'gemini-cli', 'codex', 'claude-code']);
    // A chat transcript of {role, content} messages without mini-swe-agent's actions is not claimed.
    const chat = join(dir.path, 'chat.json');
    writeFileSync(
      chat,
      JSON.stringify(
        [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
        null,
        2,
      ),
    );
    assert.equal(detect(chat), null);
    const big = JSON.parse(readFileSync(fixture('toolcall-submitted.traj.json'), 'utf8')) as { messages: { content: string }[] };
    big.messages[1]!.content = 'x'.repeat(1_200_000);
    const path = join(dir.path, 'big.traj.json');
    writeFileSync(path, JSON.stringify(big, null, 2));
    assert.match(detect(path) ?? '', /mini-swe-agent trajectory: the document names/);
  });
});

describe('mini-swe-agent: latency', () => {
  const dir = temporaryDir('mini-swe-agent-latency');
  after(() => dir.remove());

  it("a step's only action: from the response's timestamp to its observation's; several actions in a step: not recorded", async () => {
    // mini-swe-agent stamps a step's observations once all of its actions have run.
    const trajectory = JSON.parse(readFileSync(fixture('toolcall-submitted.traj.json'), 'utf8')) as {
      messages: { tool_calls?: { id: string }[]; tool_call_id?: string }[];
    };
    const first = trajectory.messages.find((message) => message.tool_calls?.some((call) => call.id === 'call_pyt2'))!;
    first.tool_calls = first.tool_calls!.filter((call) => call.id !== 'call_pyt2');
    trajectory.messages = trajectory.messages.filter((message) => message.tool_call_id !== 'call_pyt2');
    const path = join(dir.path, 'one-action-then-two.traj.json');
    writeFileSync(path, JSON.stringify(trajectory, null, 2));
    assert.deepEqual(await callLatencies(path, FORMAT), [
      // Response at 1760001001.5, observation at 1760001002.0.
      ['call_cat1', 500],
      ['call_fix3', null],
      ['call_ls4', null],
    ]);
    // The fixture's first step issues two actions: their observations' times are not theirs alone.
    assert.deepEqual((await callLatencies(fixture('toolcall-submitted.traj.json'), FORMAT)).slice(0, 2), [
      ['call_cat1', null],
      ['call_pyt2', null],
    ]);
  });
});
