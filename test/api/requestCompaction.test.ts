/**
 * Compaction and the other breaks of the prompt cache between requests, through the real engine
 * (docs/semantics.md §9): the formats' own markers (Claude Code `compact_boundary` and
 * `isCompactSummary`, Codex `compacted`), a drop in recorded input tokens, a rebuilt request far
 * from its recorded usage, a logged summary replacing the history, a changed system prompt — as
 * `runs[].requests[]`, findings, the CLI line and the `requests`/`requestDiff` methods report them.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse } from '../../shared/api';
import { startTestHost, type TestHost } from '../support/apiHarness';
import { analyzeFile, temporaryDir } from '../support/engineHarness';
import { fixtures } from '../support/formatTests';

const claudeCompaction = join(fixtures, 'claude-code', 'compaction.jsonl');
const codexCompaction = join(fixtures, 'codex', 'rollout-compacted.jsonl');
const ts = (second: number): string => `2025-06-03T10:${String(Math.floor(second / 60)).padStart(2, '0')}:${String(second % 60).padStart(2, '0')}.000Z`;

/** A reconstructed run (no model_request lines) whose responses record these input tokens; each tool result is `resultChars` long. */
function reconstructedRun(inputs: readonly number[], resultChars = 400): object[] {
  return [
    { type: 'run_start', run_id: 'r', ts: ts(0), task: 'Fix the failing test.' },
    ...inputs.flatMap((input, i) => [
      {
        type: 'model_response',
        run_id: 'r',
        step: i + 1,
        ts: ts(i * 2 + 1),
        outcome: 'tool_calls',
        finish_reason: 'tool_calls',
        tool_calls: [{ call_id: `c${i}`, name: 'read_file', arguments: '{}' }],
        usage: { input_tokens: input, output_tokens: 40 },
      },
      { type: 'tool_result', run_id: 'r', step: i + 1, ts: ts(i * 2 + 2), call_id: `c${i}`, output: 'x'.repeat(resultChars) },
    ]),
    { type: 'run_end', run_id: 'r', ts: ts(200), status: 'completed' },
  ];
}

describe('compaction in reconstructed requests', () => {
  const work = temporaryDir('request-compaction');
  const write = (name: string, lines: readonly string[]): string => {
    const path = join(work.path, name);
    writeFileSync(path, lines.join('\n') + '\n');
    return path;
  };
  after(() => work.remove());

  it('Claude Code: the request after a compact_boundary is compacted, not an extension, with the tokens it removed', async () => {
    const { report } = await analyzeFile(claudeCompaction);
    const requests = report.runs[0]!.requests;
    assert.deepEqual(
      requests.map((r) => [r.rewrite, r.compaction?.evidence ?? null]),
      [
        [null, null],
        [{ message_index: 0, message_number: 1, kind: 'compacted' }, 'marker'],
        [null, null],
      ],
    );
    const compaction = requests[1]!.compaction!;
    assert.deepEqual(compaction.marker, { type: 'system/compact_boundary', line: 8 });
    assert.equal(compaction.tokens_before, 151_208);
    assert.equal(compaction.tokens_removed, compaction.tokens_before! - compaction.tokens_after!);
    assert.ok(compaction.tokens_removed! > 120_000);
    // Request 1 held the run's task and the prompt record; after the boundary the summary starts the history.
    assert.equal(compaction.messages_removed, 2);
    assert.deepEqual(
      requests.map((r) => r.messages),
      [2, 1, 3],
      'request 2 holds only the summary; request 3 adds the Edit call and its result',
    );
    const findings = report.findings.filter((f) => f.kind === 'history_compacted');
    assert.deepEqual(
      findings.map((f) => [f.severity, f.step, f.line]),
      [['info', 2, 10]],
    );
    assert.match(
      findings[0]!.message,
      /^Request 2 follows a compaction of the history \(system\/compact_boundary on line 8\): 2 earlier messages replaced; input 151,208 → /,
    );
    assert.equal(report.findings.filter((f) => f.kind === 'reconstruction_mismatch').length, 0);
  });

  it('Claude Code without a boundary record: the isCompactSummary record marks the compaction itself', async () => {
    const lines = readFileSync(claudeCompaction, 'utf8')
      .trimEnd()
      .split('\n')
      .filter((line) => !line.includes('"compact_boundary"'));
    const { report } = await analyzeFile(write('summary-only.jsonl', lines));
    const compaction = report.runs[0]!.requests[1]!.compaction;
    assert.equal(compaction?.evidence, 'marker');
    assert.equal(compaction?.marker?.type, 'user/compact_summary');
  });

  it('Codex: the compacted record replaces the history with its summary (its context_compacted mirror is no second compaction)', async () => {
    const { report } = await analyzeFile(codexCompaction);
    const requests = report.runs[0]!.requests;
    assert.deepEqual(
      requests.map((r) => r.compaction?.marker ?? null),
      [null, { type: 'compacted', line: 10 }, null],
    );
    assert.equal(requests[1]!.rewrite?.kind, 'compacted');
    assert.equal(report.findings.filter((f) => f.kind === 'history_compacted').length, 1);
  });

  it('without a marker, a drop of the recorded input is a compaction the trace did not log, reported once', async () => {
    const { report } = await analyzeFile(
      write(
        'drop.jsonl',
        reconstructedRun([120_000, 150_000, 165_000, 36_000, 38_000]).map((e) => JSON.stringify(e)),
      ),
    );
    const requests = report.runs[0]!.requests;
    assert.deepEqual(
      requests.map((r) => r.compaction?.evidence ?? null),
      [null, null, null, 'token_drop', null],
    );
    assert.deepEqual(requests[3]!.compaction, {
      evidence: 'token_drop',
      marker: null,
      tokens_before: 165_000,
      tokens_after: 36_000,
      tokens_removed: 129_000,
      messages_removed: null,
    });
    assert.equal(requests[3]!.rewrite, null, 'the rebuilt history cannot say where it was cut');
    const found = report.findings.filter((f) => f.kind === 'history_compacted' || f.kind === 'reconstruction_mismatch');
    assert.deepEqual(
      found.map((f) => [f.kind, f.step]),
      [['history_compacted', 4]],
    );
    assert.match(found[0]!.message, /recorded input 165,000 → 36,000 tokens \(−129,000\) although the trace shows no message removed/);
  });

  it('steady growth is no compaction', async () => {
    const { report } = await analyzeFile(
      write(
        'steady.jsonl',
        reconstructedRun([1000, 1200, 1400, 1600]).map((e) => JSON.stringify(e)),
      ),
    );
    assert.ok(report.runs[0]!.requests.every((r) => r.compaction === null && r.rewrite === null));
    assert.deepEqual(
      report.findings.filter((f) => f.kind === 'history_compacted' || f.kind === 'reconstruction_mismatch'),
      [],
    );
  });

  it("a whole-document format's input record is not sized by the document it shares its line with", async () => {
    // early-list.traj.json is one JSON document (1,851 bytes): every event is on its line 1.
    const { report } = await analyzeFile(join(fixtures, 'mini-swe-agent', 'early-list.traj.json'));
    const first = report.runs[0]!.requests[0]!;
    assert.deepEqual([first.messages, first.input_tokens], [1, null], 'the task record is a message of unknown size, not ≈460 tokens of the whole document');
    // toolcall-submitted.traj.json (7,264 bytes) records 1,200 input tokens for its first request: sized by
    // the document, the rebuilt request would be ≈1,800 and read as a mismatch.
    const submitted = await analyzeFile(join(fixtures, 'mini-swe-agent', 'toolcall-submitted.traj.json'));
    assert.deepEqual(
      submitted.report.findings.filter((f) => f.kind === 'reconstruction_mismatch'),
      [],
    );
  });

  it('a rebuilt request far larger than its recorded input is reported once, on the first', async () => {
    // Tool results of 40,000 characters (≈10,000 tokens each) against a recorded input that stays near 2,000.
    const { report } = await analyzeFile(
      write(
        'mismatch.jsonl',
        reconstructedRun([2000, 2100, 2200, 2300], 40_000).map((e) => JSON.stringify(e)),
      ),
    );
    const found = report.findings.filter((f) => f.kind === 'reconstruction_mismatch');
    assert.deepEqual(
      found.map((f) => [f.severity, f.step]),
      [['info', 2]],
    );
    assert.match(found[0]!.message, /^Request 2 was rebuilt from the trace as about [\d,]+ input tokens, but the provider recorded 2,100 for its response/);
  });
});

describe('logged requests: compaction and a changed prefix', () => {
  const system = (text: string) => ({ role: 'system', content: text });
  const user = (text: string) => ({ role: 'user', content: text });
  const call = (id: string) => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: `{"path":"${id}"}` } }],
  });
  const result = (id: string) => ({ role: 'tool', tool_call_id: id, content: `contents of ${id}` });
  const turn = (id: string) => [call(id), result(id)];
  const request = (step: number, messages: object[], input: number) => [
    { type: 'model_request', run_id: 'r', step, ts: ts(step * 2), model: 'gpt-4.1', messages },
    {
      type: 'model_response',
      run_id: 'r',
      step,
      ts: ts(step * 2 + 1),
      outcome: 'final',
      finish_reason: 'stop',
      text: 'ok',
      usage: { input_tokens: input, output_tokens: 10 },
    },
  ];
  const prompt = system('You read files.');
  const events = [
    { type: 'run_start', run_id: 'r', ts: ts(0) },
    ...request(1, [prompt, user('Read a, b, c'), ...turn('a')], 900),
    ...request(2, [prompt, user('Read a, b, c'), ...turn('a'), ...turn('b'), ...turn('c')], 1500),
    // A summary replaces the five messages after the system prompt.
    ...request(3, [prompt, user('Summary: a, b and c were read.'), ...turn('d')], 600),
    // The history only grows, but the system prompt changed.
    ...request(4, [system('You read files. Today is Tuesday.'), user('Summary: a, b and c were read.'), ...turn('d'), ...turn('e')], 800),
    { type: 'run_end', run_id: 'r', ts: ts(20), status: 'completed' },
  ];
  let path: string;
  const work = temporaryDir('request-prefix');
  before(() => {
    path = join(work.path, 'logged.jsonl');
    writeFileSync(path, events.map((event) => JSON.stringify(event)).join('\n') + '\n');
  });
  after(() => work.remove());

  it('a summary replacing the history is history_compacted (info), not history_rewrite; a new system prompt is system_or_tools_changed (warning)', async () => {
    const { report } = await analyzeFile(path);
    const requests = report.runs[0]!.requests;
    assert.deepEqual(requests[2]!.rewrite, { message_index: 0, message_number: 2, kind: 'compacted' });
    assert.deepEqual(requests[2]!.compaction, {
      evidence: 'diff',
      marker: null,
      tokens_before: 1500,
      tokens_after: 600,
      tokens_removed: 900,
      messages_removed: 7,
    });
    assert.equal(requests[3]!.rewrite, null);
    assert.deepEqual(requests[3]!.prefix_change, { system: true, tools_added: [], tools_removed: [], tools_changed: [], tools_reordered: false });
    assert.deepEqual(
      report.findings.map((f) => [f.kind, f.severity, f.step]),
      [
        ['history_compacted', 'info', 3],
        ['system_or_tools_changed', 'warning', 4],
      ],
    );
  });

  it('the requests method marks the compaction for the growth chart and says what the fit allows', async () => {
    const t: TestHost = startTestHost();
    try {
      const summary = await t.openSettled(path);
      const runs = (await t.host.call('runs', { traceId: summary.traceId })) as ApiResponse<'runs'>;
      const answer = (await t.host.call('requests', { traceId: summary.traceId, runPk: runs.rows[0]!.runPk })) as ApiResponse<'requests'>;
      assert.deepEqual(
        answer.requests.map((r) => r.compaction?.tokensRemoved ?? null),
        [null, null, 900, null],
      );
      assert.deepEqual(answer.requests[3]!.prefixChange?.system, true);
      assert.equal(answer.growth.fit?.shape, 'irregular', 'a run whose history was compacted grows by no steady step, whatever the numbers fit');
      const diff = (await t.host.call('requestDiff', { traceId: summary.traceId, eventId: answer.requests[2]!.eventId })) as ApiResponse<'requestDiff'>;
      assert.deepEqual(diff.compaction, { evidence: 'diff', marker: null });
      assert.ok(diff.history.verdict === 'rewritten' && diff.history.messageNumber === 2);
      assert.deepEqual(
        diff.findings.map((f) => f.kind),
        ['history_compacted'],
      );
    } finally {
      await t.close();
    }
  });

  it('a reconstructed request after a marker: the diff says compacted, from the marker', async () => {
    const t: TestHost = startTestHost();
    try {
      const summary = await t.openSettled(claudeCompaction);
      const runs = (await t.host.call('runs', { traceId: summary.traceId })) as ApiResponse<'runs'>;
      const answer = (await t.host.call('requests', { traceId: summary.traceId, runPk: runs.rows[0]!.runPk })) as ApiResponse<'requests'>;
      const diff = (await t.host.call('requestDiff', { traceId: summary.traceId, eventId: answer.requests[1]!.eventId })) as ApiResponse<'requestDiff'>;
      assert.ok(diff.history.verdict === 'rewritten');
      assert.equal(diff.history.kind, 'compacted');
      assert.deepEqual(diff.compaction, { evidence: 'marker', marker: { typeRaw: 'system/compact_boundary', line: 8 } });
      assert.deepEqual(
        diff.findings.map((f) => [f.kind, f.severity]),
        [['history_compacted', 'info']],
      );
    } finally {
      await t.close();
    }
  });
});
