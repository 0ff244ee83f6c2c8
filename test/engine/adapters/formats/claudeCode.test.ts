/**
 * Claude Code session transcripts, read by the real engine: split assistant lines merged into one
 * step per message, calls paired with their results, sub-agents as their own runs, and the run's
 * end derived from its last record. Fixtures: test/fixtures/formats/claude-code/ (invented sessions
 * in the shapes Claude Code 1.0–2.1 writes; see docs/formats/claude-code.md).
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { claudeCodeFormat } from '../../../../src-main/engine/adapters/claudeCode/format';
import type { AnalyzeReport } from '../../../../shared/report';
import { openTrace, type IngestProgress } from '../../../../src-main/engine/engine';
import { analyzeFile, defaultAnalysis, temporaryDir } from '../../../support/engineHarness';
import { callLatencies, fixtures, detectFile, examplesAndOtherFixtures, ingestEvents, jsonlFiles, runCountsOf as runsOf } from '../../../support/formatTests';

const fixtureDir = join(fixtures, 'claude-code');
const fixture = (name: string): string => join(fixtureDir, name);
const SUBAGENT_SESSION = '3b8e0f4d-6a2c-4e91-b7d5-0c9f1e2a4d68';

function findingsOf(report: AnalyzeReport): [string, string | null][] {
  return report.findings.map((finding) => [finding.kind, finding.call_id]);
}

/** What detection sees of a file: its first records, as the engine samples them. */
function detect(path: string): string | null {
  return detectFile(claudeCodeFormat, path);
}

function detectValues(values: unknown[]): string | null {
  return claudeCodeFormat.detect({ path: 'session.jsonl', values, framedValues: values, head: values.map((value) => JSON.stringify(value)).join('\n') });
}

describe('claude-code: merged messages and paired calls', () => {
  it('merges the lines of each message into one step, counts its usage once, and pairs parallel calls', async () => {
    const { report } = await analyzeFile(fixture('parallel-split-lines.jsonl'));
    assert.equal(report.files[0]?.format, 'claude-code');
    assert.match(report.files[0]?.format_reason ?? '', /^Claude Code session transcript \(Claude Code 2\.1\.40\)/);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      { run_id: '7c1e4a52-0b9d-4f3e-9a61-2d8f5e6b7a10', status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 4, tool_results: 4 },
    ]);
    // input = uncached + cache writes + cache reads of each message, once; output = its last, largest count.
    assert.equal(report.runs[0]?.input_tokens, 17104 + 18001 + 18301);
    assert.equal(report.runs[0]?.output_tokens, 142 + 96 + 210);
    // The failed Bash run is a tool error; the Grep answered before its message's second call was written is no orphan.
    assert.deepEqual(findingsOf(report), [['tool_error', 'toolu_01QCm5JUcKkHnVm3uMGonrNZ']]);
  });

  it('keeps each run in line order: a progress line between the lines of a message follows the merged message, never precedes it', async () => {
    // The run_end is derived at the end of the file (from the last conversation record, line 15, before a trailing line 16), so it is listed last.
    const { events } = await ingestEvents<{ run_pk: number; line: number; type_raw: string }>(
      fixture('parallel-split-lines.jsonl'),
      'claude-code',
      "SELECT run_pk, line, type_raw FROM events WHERE type != 'run_end' ORDER BY run_pk, run_index",
    );
    // The PreToolUse hook's progress (line 7) is written between the message's lines 4–8.
    const lines = events.map((event) => `${event.line} ${event.type_raw}`);
    assert.ok(lines.indexOf('4 assistant') < lines.indexOf('7 progress/hook_progress'), lines.join(', '));
    const outOfOrder = events.filter((event, index) => index > 0 && event.run_pk === events[index - 1]!.run_pk && event.line < events[index - 1]!.line);
    assert.deepEqual(outOfOrder, []);
  });

  it("a call's latency: the durationMs its toolUseResult records, else the time from its tool_use line to its result's line", async () => {
    assert.deepEqual(await callLatencies(fixture('unanswered-calls.jsonl')), [
      // Glob's toolUseResult says durationMs 31, though its lines are 1.9 s apart.
      ['toolu_019yY8fto38jc397iJkKjiB6', 31],
      // tool_use at 07:02:51.610, result at 07:02:53.210.
      ['toolu_01e0MpA02KMKgqxHmDWujjmg', 1600],
      ['toolu_01eJcHbeWEtRdEPtV1H80Kws', 1900],
      // Never answered: no latency at all.
      ['toolu_01tZKS7JfQyGb7hLt4QLwdib', null],
    ]);
  });

  it('keeps injected context between the lines of a message in that message, and a message resumed after a prompt in its step', async () => {
    const { report } = await analyzeFile(fixture('late-continuation.jsonl'));
    assert.deepEqual(runsOf(report), [
      { run_id: 'c4e6a8b0-1d3f-4b5d-9e7f-2a4c6e8a0b1d', status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 3, tool_results: 3 },
    ]);
    // The resumed message's usage was counted when its first part was emitted, not again.
    assert.equal(report.runs[0]?.output_tokens, 71 + 12 + 35);
    assert.deepEqual(findingsOf(report), []);
  });
});

describe('claude-code: how a run ends', () => {
  it('ends cancelled when the last record is the user interrupt; an earlier interrupt is only a marker', async () => {
    const { report } = await analyzeFile(fixture('interrupted.jsonl'));
    assert.deepEqual(runsOf(report), [
      { run_id: 'e2d4b6a8-3c5f-4d7e-8f90-1a2b3c4d5e6f', status: 'cancelled', status_raw: 'cancelled', steps: 2, tool_calls: 2, tool_results: 2 },
    ]);
    // The rejected deploy was answered with an error result: a tool error, not a dangling call.
    assert.deepEqual(findingsOf(report), [['tool_error', 'toolu_01d1rXF2xbfbyFxLLJBKo8f2']]);
    assert.match(report.findings[0]?.message ?? '', /returned an error rejected_by_user/);
  });

  it('an interrupt marks the calls of its turn left without a result not executed; a call cut while running keeps its error result', async () => {
    // docs/semantics.md §4: the same verdict as Codex's turn_aborted (test/engine/adapters/formats/codex.test.ts).
    const { report } = await analyzeFile(fixture('interrupted-open-call.jsonl'));
    assert.deepEqual(runsOf(report), [
      { run_id: '5b7d9f1a-2c4e-4a6b-8d0f-3e5a7c9b1d2f', status: 'cancelled', status_raw: 'cancelled', steps: 1, tool_calls: 2, tool_results: 1 },
    ]);
    assert.deepEqual(findingsOf(report), [
      ['tool_error', 'toolu_01Gm4KpXw8RtZ2NvLc6YbQ3J'],
      ['unexecuted_call', 'toolu_01Hx8NcVr2TqLm5WzKp9YbD4'],
    ]);
    assert.match(report.findings[0]?.message ?? '', /returned an error interrupted/);
    assert.equal(report.findings[1]?.line, 6);
    assert.match(report.findings[1]?.message ?? '', /the user interrupted the turn \(\[Request interrupted by user for tool use\]\)/);
  });

  it('without the interrupt, the same unanswered call is dangling in an unterminated run', async () => {
    const work = temporaryDir('claude-no-interrupt');
    try {
      const lines = readFileSync(fixture('interrupted-open-call.jsonl'), 'utf8').split('\n').slice(0, 5).join('\n');
      const path = join(work.path, 'cut.jsonl');
      writeFileSync(path, `${lines}\n`);
      const { report } = await analyzeFile(path);
      assert.deepEqual(findingsOf(report), [
        ['dangling_call', 'toolu_01Hx8NcVr2TqLm5WzKp9YbD4'],
        ['tool_error', 'toolu_01Gm4KpXw8RtZ2NvLc6YbQ3J'],
        ['unterminated_run', null],
      ]);
    } finally {
      work.remove();
    }
  });

  it('a new prompt ends the turn of a call still without a result: it is not executed, marked at the prompt, and the interrupt speaks only for its own turn', async () => {
    const work = temporaryDir('claude-earlier-turn');
    try {
      const lines = readFileSync(fixture('interrupted-open-call.jsonl'), 'utf8').trimEnd().split('\n');
      const prompt = JSON.stringify({ ...JSON.parse(lines[0]!), uuid: 'u9', message: { role: 'user', content: 'Never mind, stop.' } });
      const path = join(work.path, 'later-turn.jsonl');
      writeFileSync(path, `${[...lines.slice(0, 5), prompt, lines[5]].join('\n')}\n`);
      const { report } = await analyzeFile(path);
      assert.deepEqual(findingsOf(report), [
        ['tool_error', 'toolu_01Gm4KpXw8RtZ2NvLc6YbQ3J'],
        ['unexecuted_call', 'toolu_01Hx8NcVr2TqLm5WzKp9YbD4'],
      ]);
      assert.equal(report.findings[1]?.line, 6);
      assert.match(report.findings[1]?.message ?? '', /the user prompted again \("Never mind, stop\."\) before the call's result was recorded/);
      assert.equal(report.runs[0]?.status, 'cancelled');
    } finally {
      work.remove();
    }
  });

  it('a session that goes on after a new prompt left a call open and ends on an end_turn answer finished: the abandoned call is not executed, not dangling', async () => {
    const { report } = await analyzeFile(fixture('resumed-open-call.jsonl'));
    assert.deepEqual(runsOf(report), [
      { run_id: '7c2e9a41-5d3b-4f8e-b6a0-2e1d9c4f7a85', status: 'model_finished', status_raw: 'model_finished', steps: 6, tool_calls: 5, tool_results: 4 },
    ]);
    assert.deepEqual(findingsOf(report), [['unexecuted_call', 'toolu_01Wq8ErT2yUi3OpA4sDf5GhJ']]);
    const [abandoned] = report.findings;
    assert.equal(abandoned?.line, 4);
    assert.equal(abandoned?.step, 1);
    assert.match(
      abandoned?.message ?? '',
      /the user prompted again \("Forget the server\. Just fix the failing date test in ledger\.…"\) before the call's result was recorded: the session went on without it/,
    );
  });

  it('leaves a cut-off session unterminated with its unanswered call dangling, and reports its broken lines', async () => {
    const { report } = await analyzeFile(fixture('unanswered-calls.jsonl'));
    assert.deepEqual(runsOf(report), [
      { run_id: '0f6a2c94-51d3-4b8e-a7c2-9e4d1b3f5a70', status: 'unterminated', status_raw: '', steps: 2, tool_calls: 4, tool_results: 3 },
    ]);
    assert.deepEqual(findingsOf(report), [
      ['dangling_call', 'toolu_01tZKS7JfQyGb7hLt4QLwdib'],
      ['unterminated_run', null],
    ]);
    assert.deepEqual(
      report.files[0]?.parse_errors.map((error) => [error.line, error.message.replace(/ \(.*$/, '')]),
      [
        [7, 'Claude Code assistant record without a "message" object'],
        [11, 'not valid JSON: Unterminated string in JSON at position 260'],
      ],
    );
  });

  it("ends failed when the last record is Claude Code's API error message, which counts as an incomplete step", async () => {
    const { report } = await analyzeFile(fixture('api-error.jsonl'));
    assert.deepEqual(runsOf(report), [
      { run_id: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', status: 'failed', status_raw: 'failed', steps: 3, tool_calls: 1, tool_results: 1 },
    ]);
    // The synthetic messages carry zero usage; only the real model call counts.
    assert.equal(report.runs[0]?.input_tokens, 3 + 1500 + 14000);
    // The 529 was retried and went through (info); the timeout ended the run (error). The provider's
    // error object quoted in Claude Code's text gives the type and message.
    assert.deepEqual(
      report.findings.map((finding) => [finding.kind, finding.severity, finding.step]),
      [
        ['api_error', 'info', 1],
        ['api_error', 'error', 3],
      ],
    );
    assert.match(
      report.findings[0]?.message ?? '',
      /failed at the provider with HTTP 529 overloaded_error: Overloaded; the loop retried, and the call at step 2 \(line 4\) went through$/,
    );
    assert.match(
      report.findings[1]?.message ?? '',
      /failed at the provider with unknown: API Error: Request timed out\.; no model call went through after it: the error ended the run$/,
    );
  });

  it('reads a compacted session that opens with summary lines as one run from its first line', async () => {
    const { report } = await analyzeFile(fixture('compaction.jsonl'));
    assert.equal(report.files[0]?.format, 'claude-code');
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      { run_id: '5d7f9b1c-2e4a-4c6e-8a0b-3d5f7a9c1e2b', status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 2, tool_results: 2 },
    ]);
    assert.equal(report.runs[0]?.first_line, 1);
    assert.equal(report.files[0]?.events, 15);
    // The compact_boundary is a compaction, reported as one (info): the request after it is no extension.
    assert.deepEqual(findingsOf(report), [['history_compacted', null]]);
  });
});

describe('claude-code: sub-agents', () => {
  it('reads a sub-agent transcript opened alone as its own run <sessionId>/agent-<agentId>', async () => {
    const { report } = await analyzeFile(join(fixtureDir, SUBAGENT_SESSION, 'subagents', 'agent-a3f9c21.jsonl'));
    assert.equal(report.files[0]?.format, 'claude-code');
    assert.deepEqual(runsOf(report), [
      { run_id: `${SUBAGENT_SESSION}/agent-a3f9c21`, status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 3, tool_results: 3 },
    ]);
    assert.deepEqual(findingsOf(report), []);
  });

  it("opens the session's sub-agent transcripts with it, as child runs linked to the Task call that started them", async () => {
    const session = fixture(`${SUBAGENT_SESSION}.jsonl`);
    const { report } = await analyzeFile(session);
    const agentFile = join(fixtureDir, SUBAGENT_SESSION, 'subagents', 'agent-a3f9c21.jsonl');
    assert.deepEqual(
      report.files.map((file) => [file.path, file.format, file.events]),
      // 9 lines: run_start + snapshot + prompt + 3 agent_progress + Task response + result + final + run_end.
      [
        [session, 'claude-code', 10],
        [agentFile, 'claude-code', 9],
      ],
    );
    assert.match(report.files[1]?.format_reason ?? '', /^opened with 3b8e0f4d-.*\.jsonl/);
    assert.deepEqual(runsOf(report), [
      { run_id: SUBAGENT_SESSION, status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 1, tool_results: 1 },
      { run_id: `${SUBAGENT_SESSION}/agent-a3f9c21`, status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 3, tool_results: 3 },
    ]);
    assert.equal(report.runs[0]?.parent, undefined);
    assert.deepEqual(report.runs[1]?.parent, { run_id: SUBAGENT_SESSION, call_id: 'toolu_012gohAEb3j5feR1GQKKjuG3', file: session });
    assert.equal(report.runs[1]?.file, agentFile);
    assert.deepEqual(findingsOf(report), []);
  });

  it('reports progress over the session and its sub-agents as one, never going back', async () => {
    const session = fixture(`${SUBAGENT_SESSION}.jsonl`);
    const agentFile = join(fixtureDir, SUBAGENT_SESSION, 'subagents', 'agent-a3f9c21.jsonl');
    const cache = temporaryDir('claude-progress');
    try {
      const seen: IngestProgress[] = [];
      await openTrace(session, { cacheDir: cache.path, analysis: defaultAnalysis, onProgress: (progress) => seen.push(progress) });
      const total = statSync(session).size + statSync(agentFile).size;
      assert.ok(seen.every((progress) => progress.totalBytes === total));
      assert.ok(
        seen.every((progress, index) => index === 0 || (progress.bytesRead >= seen[index - 1]!.bytesRead && progress.events >= seen[index - 1]!.events)),
      );
      // 10 events in the session, 9 in its sub-agent.
      assert.deepEqual([seen.at(-1)?.bytesRead, seen.at(-1)?.events], [total, 19]);
    } finally {
      cache.remove();
    }
  });

  it('reuses the database while session and sub-agents are unchanged, and reads it again when a sub-agent transcript appears', async () => {
    const work = temporaryDir('claude-subagents');
    try {
      const session = join(work.path, `${SUBAGENT_SESSION}.jsonl`);
      copyFileSync(fixture(`${SUBAGENT_SESSION}.jsonl`), session);
      const cacheDir = join(work.path, 'cache');
      const first = await analyzeFile(session, { cacheDir });
      assert.deepEqual(
        first.report.runs.map((run) => run.run_id),
        [SUBAGENT_SESSION],
      );
      // The summariser of a compaction: no result names it, so it hangs under its session's run.
      const agents = join(work.path, SUBAGENT_SESSION, 'subagents');
      mkdirSync(agents, { recursive: true });
      const agentLines = readFileSync(join(fixtureDir, SUBAGENT_SESSION, 'subagents', 'agent-a3f9c21.jsonl'), 'utf8');
      writeFileSync(join(agents, 'agent-acompact-5e1.jsonl'), agentLines.replaceAll('"agentId":"a3f9c21"', '"agentId":"acompact-5e1"'));
      const second = await analyzeFile(session, { cacheDir });
      assert.equal(second.trace.reused, false);
      assert.deepEqual(
        second.report.runs.map((run) => [run.run_id, run.parent ?? null]),
        [
          [SUBAGENT_SESSION, null],
          [`${SUBAGENT_SESSION}/agent-acompact-5e1`, { run_id: SUBAGENT_SESSION, call_id: null, file: session }],
        ],
      );
      // Both files' events are kept: the second source's rows did not overwrite the first's.
      assert.deepEqual(
        second.report.files.map((file) => file.events),
        [10, 9],
      );
      const third = await analyzeFile(session, { cacheDir });
      assert.equal(third.trace.reused, true);
      assert.deepEqual(third.report, second.report);
    } finally {
      work.remove();
    }
  });

  it('reads a sidechain written inline by old versions as its own run, started by the Task call whose prompt it was given', async () => {
    const path = fixture('inline-sidechain.jsonl');
    const { report } = await analyzeFile(path);
    assert.deepEqual(runsOf(report), [
      { run_id: '1e3c5a7f-9b2d-4f6a-8c0e-7d5b3a1f9e2c', status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 1, tool_results: 1 },
      {
        run_id: '1e3c5a7f-9b2d-4f6a-8c0e-7d5b3a1f9e2c/sidechain-1',
        status: 'model_finished',
        status_raw: 'model_finished',
        steps: 2,
        tool_calls: 1,
        tool_results: 1,
      },
    ]);
    assert.deepEqual(report.runs[1]?.parent, { run_id: '1e3c5a7f-9b2d-4f6a-8c0e-7d5b3a1f9e2c', call_id: 'toolu_018yUSZEba6oEZdzT5DTGD4t', file: path });
    assert.deepEqual(findingsOf(report), []);
  });

  it('splits interleaved inline sidechains by their parentUuid chains, one run per root, each linked to its Task call by prompt', async () => {
    const path = fixture('inline-sidechains-parallel.jsonl');
    const session = '5b2e9d41-7c3a-4f8e-9a16-2d4c8b0e6f13';
    const { report } = await analyzeFile(path);
    // Two Task calls issued together (A, then B) whose sidechains interleave line by line, B's root
    // written first; a third Task later. Numbered in the order their roots appear.
    assert.deepEqual(runsOf(report), [
      { run_id: session, status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 3, tool_results: 3 },
      { run_id: `${session}/sidechain-1`, status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 2, tool_results: 2 },
      { run_id: `${session}/sidechain-2`, status: 'model_finished', status_raw: 'model_finished', steps: 2, tool_calls: 1, tool_results: 1 },
      { run_id: `${session}/sidechain-3`, status: 'model_finished', status_raw: 'model_finished', steps: 1, tool_calls: 0, tool_results: 0 },
    ]);
    assert.deepEqual(
      report.runs.map((run) => [run.run_id, run.parent?.call_id ?? null, run.first_line]),
      [
        [session, null, 1],
        // B's root (line 5) is matched to B's call by its prompt, not to A's, issued first.
        [`${session}/sidechain-1`, 'toolu_taskB', 5],
        [`${session}/sidechain-2`, 'toolu_taskA', 6],
        [`${session}/sidechain-3`, 'toolu_taskC', 18],
      ],
    );
    assert.ok(report.runs.slice(1).every((run) => run.parent?.run_id === session && run.parent.file === path));
    // Each sidechain's requests grow from its own prompt: no history "starting over" between them.
    assert.deepEqual(findingsOf(report), [['tool_error', 'toolu_b2']]);
  });

  it('leaves an inline sidechain whose prompt no unanswered call gave without a parent', async () => {
    const work = temporaryDir('claude-unmatched-sidechain');
    try {
      const lines = readFileSync(fixture('inline-sidechains-parallel.jsonl'), 'utf8');
      const path = join(work.path, 'unmatched.jsonl');
      // The later Task call is given another prompt than its sidechain's root text.
      writeFileSync(path, lines.replace('"prompt":"Write a short summary of the routes without tests."', '"prompt":"Summarise the gaps."'));
      const { report } = await analyzeFile(path);
      assert.deepEqual(
        report.runs.map((run) => [run.run_id.split('/')[1] ?? 'main', run.parent?.call_id ?? null]),
        [
          ['main', null],
          ['sidechain-1', 'toolu_taskB'],
          ['sidechain-2', 'toolu_taskA'],
          ['sidechain-3', null],
        ],
      );
    } finally {
      work.remove();
    }
  });
});

describe('claude-code: detection', () => {
  it('accepts every Claude Code fixture', () => {
    const files = jsonlFiles(fixtureDir);
    assert.equal(files.length, 12);
    for (const file of files) assert.match(detect(file) ?? '', /^Claude Code session transcript/, file);
  });

  it('accepts a transcript whose first records are all summary lines', () => {
    const summary = (n: number) => ({ type: 'summary', summary: `Earlier topic ${n}`, leafUuid: `0b6f${n}a1e-1c2d-4e3f-8a9b-0c1d2e3f4a5b` });
    const values = Array.from({ length: 20 }, (_, n) => summary(n));
    assert.match(detectValues(values) ?? '', /summary\/file-history-snapshot records/);
  });

  it('rejects the canonical examples and the other formats’ fixtures', () => {
    const others = examplesAndOtherFixtures('claude-code');
    assert.ok(others.length >= 20);
    for (const file of others) assert.equal(detect(file), null, file);
  });

  it('rejects the stream-json output of `claude -p` (snake_case session_id, no uuid chain)', () => {
    const values = [
      { type: 'system', subtype: 'init', session_id: 'f1e2d3c4', tools: ['Bash'], model: 'claude-sonnet-4-5' },
      { type: 'assistant', message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text: 'Hi' }] }, session_id: 'f1e2d3c4' },
      { type: 'result', subtype: 'success', is_error: false, num_turns: 1, session_id: 'f1e2d3c4' },
    ];
    assert.equal(detectValues(values), null);
  });
});
