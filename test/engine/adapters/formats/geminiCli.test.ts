/**
 * Gemini CLI chat recordings (`session-*.json`, one JSON document per session), read by the real
 * engine: tool calls and their results written together, parallel calls whose results hold each
 * other's responses, cancelled and failed calls, a call still executing, a call awaiting approval,
 * and the end derived from the last message. Fixtures: test/fixtures/formats/gemini-cli/ (invented
 * sessions; see docs/formats/gemini-cli.md).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { geminiCliFormat } from '../../../../src-main/engine/adapters/geminiCli';
import type { AnalyzeReport } from '../../../../shared/report';
import { analyzeFile, temporaryDir } from '../../../support/engineHarness';
import {
  callLatencies,
  fixtures,
  findingsOf,
  runsOf,
  ingestEvents,
  detectFile,
  assertRejectsExamplesAndFixtures,
  traceFiles,
  type StoredEvent,
} from '../../../support/formatTests';

const FORMAT = 'gemini-cli';
const fixture = (name: string): string => join(fixtures, FORMAT, name);

interface EventRow extends StoredEvent {
  ts: string | null;
  call_id: string | null;
  outcome: string | null;
  result_ok: number | null;
  error_code: string | null;
  summary: string | null;
}

function ingest(path: string): Promise<{ report: AnalyzeReport; events: EventRow[] }> {
  return ingestEvents<EventRow>(
    path,
    FORMAT,
    'SELECT line, type, type_raw, step, ts, call_id, outcome, result_ok, error_code, summary FROM events ORDER BY id',
  );
}

function detect(path: string): string | null {
  return detectFile(geminiCliFormat, path);
}

describe('gemini-cli chat recordings', () => {
  const dir = temporaryDir('gemini-cli-more');
  after(() => dir.remove());

  it("counts Gemini's thoughts into the output and its tool-use prompt into the input, as the canonical usage does", async () => {
    const session = JSON.parse(readFileSync(fixture('session-parallel-cancel.json'), 'utf8')) as { messages: Record<string, unknown>[] };
    const first = session.messages.find((message) => message['type'] === 'gemini')!;
    first['tokens'] = { input: 4200, output: 30, cached: 0, thoughts: 80, tool: 150, total: 4460 };
    const path = join(dir.path, 'session-tool-use-prompt.json');
    writeFileSync(path, JSON.stringify(session, null, 2));
    const { events } = await ingestEvents<{ type: string; input_tokens: number | null; output_tokens: number | null; reasoning_tokens: number | null }>(
      path,
      FORMAT,
      "SELECT type, input_tokens, output_tokens, reasoning_tokens FROM events WHERE type = 'model_response' ORDER BY id",
    );
    assert.deepEqual(events[0], { type: 'model_response', input_tokens: 4200 + 150, output_tokens: 30 + 80, reasoning_tokens: 80 });
  });

  it('parallel calls (each result holding both responses), a cancelled call, a final reply: waiting for the next prompt', async () => {
    const { report, events } = await ingest(fixture('session-parallel-cancel.json'));
    assert.equal(report.files[0]?.format, FORMAT);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      {
        run_id: '5f2c9a10-1b2c-4d3e-8f90-a1b2c3d4e5f6',
        status: 'waiting_for_input',
        status_raw: 'waiting_for_input',
        steps: 3,
        tool_calls: 3,
        tool_results: 3,
        input_tokens: 4200 + 4400 + 4600,
        // Gemini's `output` leaves the thoughts out; the canonical output includes them.
        output_tokens: 30 + 80 + (25 + 20) + (18 + 10),
      },
    ]);
    // Streamed message by message: each event is anchored to its own message of `messages`.
    const messageLines = readFileSync(fixture('session-parallel-cancel.json'), 'utf8')
      .split('\n')
      .flatMap((text, index) => (text === '    {' ? [index + 1] : []));
    assert.deepEqual(
      [...new Set(events.map((event) => event.line))].sort((a, b) => a - b),
      messageLines,
    );
    assert.deepEqual(
      events.map((event) => [event.type, event.type_raw, event.step, event.call_id, event.outcome, event.result_ok, event.error_code]),
      [
        ['unknown', 'user', 0, null, null, null, null],
        ['model_response', 'gemini', 1, null, 'tool_calls', null, null],
        // One result per call, its own response picked by id from the shared list.
        ['tool_result', 'toolCall', 1, 'read_file-1761800000100-aa11', null, 1, null],
        ['tool_result', 'toolCall', 1, 'glob-1761800000101-bb22', null, 1, null],
        ['model_response', 'gemini', 2, null, 'tool_calls', null, null],
        ['tool_result', 'toolCall', 2, 'run_shell_command-1761800006000-cc33', null, 0, 'cancelled'],
        ['unknown', 'info', 2, null, null, null, null],
        ['unknown', 'user', 2, null, null, null, null],
        ['model_response', 'gemini', 3, null, 'final', null, null],
        ['run_end', 'gemini', 3, null, null, null, null],
      ],
    );
    // A summary is one line: the output's line breaks read as spaces, never as a literal \n.
    assert.equal(events.find((event) => event.call_id === 'read_file-1761800000100-aa11')?.summary, "[tool] name = 'demo'");
    // The result is timestamped when the call finished (after the user's approval, here a cancel).
    assert.equal(events.find((event) => event.call_id === 'run_shell_command-1761800006000-cc33')?.ts, '2025-10-30T08:02:00.000Z');
    assert.deepEqual(findingsOf(report), [['tool_error', 'run_shell_command-1761800006000-cc33']]);
  });

  it('a call still executing when the session was saved: a true dangling call, and no end', async () => {
    const { report } = await ingest(fixture('session-cut-executing.json'));
    assert.deepEqual(
      runsOf(report).map(({ status, status_raw, steps, tool_calls, tool_results }) => ({ status, status_raw, steps, tool_calls, tool_results })),
      [{ status: 'unterminated', status_raw: '', steps: 2, tool_calls: 2, tool_results: 1 }],
    );
    assert.deepEqual(findingsOf(report), [
      ['dangling_call', 'write_file-1761927609000-ee55'],
      ['tool_error', 'create_file-1761927603000-dd44'],
      ['unterminated_run', null],
    ]);
  });

  it('a call awaiting approval: the session is paused, the call pending, not dangling', async () => {
    const { report } = await ingest(fixture('session-awaiting-approval.json'));
    assert.deepEqual(
      runsOf(report).map(({ status, status_raw, steps, tool_calls, tool_results }) => ({ status, status_raw, steps, tool_calls, tool_results })),
      [{ status: 'waiting_for_approval', status_raw: 'waiting_for_approval', steps: 1, tool_calls: 1, tool_results: 0 }],
    );
    assert.deepEqual(findingsOf(report), []);
  });

  it('is detected by the registry', async () => {
    const { report } = await analyzeFile(fixture('session-parallel-cancel.json'));
    assert.equal(report.files[0]?.format, FORMAT);
    assert.match(report.files[0]?.format_reason ?? '', /^Gemini CLI chat recording/);
  });

  it('detects its documents, also past the detection sample, and neither the JSONL recording nor other formats', () => {
    for (const path of traceFiles(join(fixtures, FORMAT))) assert.match(detect(path) ?? '', /Gemini CLI/, path);
    assertRejectsExamplesAndFixtures(detect, ['swe-agent', 'mini-swe-agent', 'openhands', 'codex', 'claude-code']);
    // The newer JSONL recording: a metadata line, then message records (another format).
    const jsonl = join(dir.path, 'session-2026-01-01T10-00-abcdef12.jsonl');
    writeFileSync(
      jsonl,
      [
        {
          sessionId: 'abcdef12-0000-4000-8000-000000000000',
          projectHash: 'ff',
          startTime: '2026-01-01T10:00:00.000Z',
          lastUpdated: '2026-01-01T10:00:00.000Z',
        },
        { id: 'u1', timestamp: '2026-01-01T10:00:01.000Z', type: 'user', content: 'hi' },
        { $set: { lastUpdated: '2026-01-01T10:00:01.000Z', messages: [] } },
      ]
        .map((record) => JSON.stringify(record))
        .join('\n'),
    );
    assert.equal(detect(jsonl), null);
    const big = JSON.parse(readFileSync(fixture('session-parallel-cancel.json'), 'utf8')) as { messages: { content: unknown }[] };
    big.messages[0]!.content = 'x'.repeat(1_200_000);
    const path = join(dir.path, 'session-big.json');
    writeFileSync(path, JSON.stringify(big, null, 2));
    assert.match(detect(path) ?? '', /Gemini CLI chat recording: the document opens with/);
  });
});

describe('gemini-cli: latency', () => {
  it('records no latency: a call is stamped when its record was last written, not when it started', async () => {
    // The calls carry their own timestamps, seconds after their message's; that gap is not measured.
    assert.deepEqual(await callLatencies(join(fixtures, 'gemini-cli', 'session-parallel-cancel.json'), 'gemini-cli'), [
      ['read_file-1761800000100-aa11', null],
      ['glob-1761800000101-bb22', null],
      ['run_shell_command-1761800006000-cc33', null],
    ]);
  });
});
