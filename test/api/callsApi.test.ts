/**
 * The Calls list through the real API host: the line that says why a call failed, sorting by a
 * column, the text filter, and each tool's latency distribution — on fixtures shaped like a Claude
 * Code session and a Codex rollout (test/fixtures/ui/).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse, CallRow } from '../../shared/api';
import { startTestHost, type TestHost } from '../support/apiHarness';
import { testFixturesDir } from '../../devkit/repoPaths';

const fixtures = join(testFixturesDir, 'ui');

describe('the calls API', () => {
  let t: TestHost;
  let claudeCode: string;
  let codex: string;
  before(async () => {
    t = startTestHost();
    claudeCode = (await t.openSettled(join(fixtures, 'claude-code-failures.jsonl'))).traceId;
    codex = (await t.openSettled(join(fixtures, 'codex-rollout-durations.jsonl'))).traceId;
  });
  after(() => t.close());

  const calls = async (request: Record<string, unknown>) => (await t.host.call('calls', { limit: 2000, ...request })) as ApiResponse<'calls'>;

  it('gives each failed call the line of its output that says why', async () => {
    const failed = await calls({ traceId: claudeCode, state: 'error' });
    assert.deepEqual(
      failed.rows.map((call) => [call.step, call.name, call.errorLine]),
      [
        [7, 'Bash', "ls: cannot access 'src/legacy': No such file or directory"],
        [19, 'Edit', 'File has not been read yet. Read it first before writing to it.'],
        [33, 'Read', 'File does not exist. Current working directory: /home/dev/shop'],
        [58, 'Bash', 'FAILED tests/test_cart.py::test_discount_rounding - AssertionError: assert 90.0 == 85.5'],
        [84, 'Bash', 'npm error Missing script: "typecheck"'],
        [101, 'Grep', 'Invalid regex: missing ) at position 14'],
      ],
    );
    const succeeded = await calls({ traceId: claudeCode, state: 'ok' });
    assert.ok(succeeded.rows.length > 100);
    assert.ok(succeeded.rows.every((call) => call.errorLine === null));
  });

  it('puts the same line in the tool_error finding', async () => {
    const findings = (await t.host.call('findings', { traceId: claudeCode, kind: 'tool_error' })) as ApiResponse<'findings'>;
    assert.equal(findings.total, 6);
    assert.ok(
      findings.rows.some(
        (finding) =>
          finding.message === 'Edit (toolu_00000000000000000019, step 19) returned an error: File has not been read yet. Read it first before writing to it.',
      ),
    );
  });

  it('sorts by latency, slowest first, calls without one last', async () => {
    const slowest = await calls({ traceId: codex, sort: 'latency', descending: true });
    const latencies = slowest.rows.map((call) => call.latencyMs);
    assert.equal(slowest.rows[0]?.latencyMs, 48_217);
    assert.match(slowest.rows[0]?.argsSummary ?? '', /cargo test --workspace --all-features/);
    assert.deepEqual(
      latencies,
      [...latencies].sort((a, b) => (b ?? -1) - (a ?? -1)),
    );
    const fastest = await calls({ traceId: codex, sort: 'latency' });
    assert.equal(fastest.rows.at(-1)?.latencyMs, 48_217);
  });

  it('sorts by state with failures first, and by step, tool and log order', async () => {
    const byState = await calls({ traceId: claudeCode, sort: 'state' });
    assert.deepEqual(
      byState.rows.slice(0, 6).map((call) => call.state),
      Array(6).fill('error'),
    );
    assert.equal(byState.rows[6]?.state, 'ok');
    const byStepDown = await calls({ traceId: claudeCode, sort: 'step', descending: true });
    assert.equal(byStepDown.rows[0]?.step, 120);
    const byTool = await calls({ traceId: claudeCode, sort: 'tool' });
    const names = byTool.rows.map((call) => call.name);
    assert.deepEqual(names, [...names].sort());
    const inLogOrder = await calls({ traceId: claudeCode });
    assert.deepEqual(
      inLogOrder.rows.map((call) => call.step),
      [...inLogOrder.rows.map((call) => call.step)].sort((a, b) => (a ?? 0) - (b ?? 0)),
    );
  });

  it('filters by text in the tool name, call id, arguments or error line, case-insensitively, with LIKE characters taken literally', async () => {
    const steps = (rows: CallRow[]) => rows.map((call) => call.step);
    assert.deepEqual(steps((await calls({ traceId: claudeCode, text: 'NO SUCH FILE' })).rows), [7]);
    assert.deepEqual(steps((await calls({ traceId: claudeCode, text: 'toolu_00000000000000000033' })).rows), [33]);
    assert.deepEqual(steps((await calls({ traceId: claudeCode, text: 'src/legacy' })).rows), [7]);
    assert.equal((await calls({ traceId: claudeCode, text: 'grep' })).total, (await calls({ traceId: claudeCode, name: 'Grep' })).total);
    assert.equal((await calls({ traceId: claudeCode, text: '100%' })).total, 0);
    assert.equal(
      (await calls({ traceId: claudeCode, text: '_' })).rows.every((call) => `${call.name}${call.callId}${call.argsSummary}${call.errorLine}`.includes('_')),
      true,
    );
  });

  it('gives each tool its call count and nearest-rank p50, p95 and max, slowest first', async () => {
    const latency = (await t.host.call('callLatency', { traceId: codex })) as ApiResponse<'callLatency'>;
    assert.equal(latency.runs, 1);
    assert.equal(latency.tools.length, 1);
    const [shell] = latency.tools;
    assert.equal(shell?.name, 'shell');
    assert.equal(shell?.calls, 130);
    assert.equal(shell?.timed, 130);
    assert.equal(shell?.max, 48_217);
    const all = (await calls({ traceId: codex })).rows.map((call) => call.latencyMs ?? 0).sort((a, b) => a - b);
    assert.equal(shell?.p50, all[Math.ceil(0.5 * all.length) - 1]);
    assert.equal(shell?.p95, all[Math.ceil(0.95 * all.length) - 1]);
  });
});
