/** `compareRuns` through a real API host: two runs of one trace side by side, validated by the API's schema. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse, RunRow } from '../../shared/api';
import { comparedRunsTrace } from '../../devkit/uiTraces/comparedRuns';
import { callFailure, startTestHost, type TestHost } from '../support/apiHarness';
import { temporaryDir } from '../support/engineHarness';

let testHost: TestHost;
let traceId: string;
let runPkOf: (runId: string) => number;
const files = temporaryDir('compare-api');

before(async () => {
  testHost = startTestHost();
  const path = join(files.path, 'compared-runs.jsonl');
  writeFileSync(path, comparedRunsTrace());
  traceId = (await testHost.openSettled(path)).traceId;
  const runs = (await testHost.host.call('runs', { traceId })) as { rows: RunRow[] };
  runPkOf = (runId) => runs.rows.find((row) => row.runId === runId)!.runPk;
});

after(async () => {
  await testHost.close();
  files.remove();
});

describe('compareRuns', () => {
  it("aligns the two runs' turns and names the first divergence, with B − A for each measure", async () => {
    const comparison = (await testHost.host.call('compareRuns', {
      traceId,
      runPkA: runPkOf('before'),
      runPkB: runPkOf('after'),
    })) as ApiResponse<'compareRuns'>;
    assert.deepEqual(
      comparison.alignment.rows.map((row) => row.op),
      ['same', 'changed', 'inserted', 'same'],
    );
    assert.equal(comparison.alignment.first_divergence, 1);
    assert.deepEqual(comparison.b.turns[1]!.calls, [{ tool: 'get_order', args: '{"order_id":"A-10483"}' }]);
    assert.equal(comparison.a.run_id, 'before');
    assert.equal(comparison.delta.steps, 1);
    assert.equal(comparison.delta.input_tokens, 2000);
  });

  it('swapped, the inserted turn is removed instead, at the same place', async () => {
    const comparison = (await testHost.host.call('compareRuns', {
      traceId,
      runPkA: runPkOf('after'),
      runPkB: runPkOf('before'),
    })) as ApiResponse<'compareRuns'>;
    assert.deepEqual(
      comparison.alignment.rows.map((row) => row.op),
      ['same', 'changed', 'removed', 'same'],
    );
    assert.equal(comparison.delta.steps, -1);
  });

  it('a run that is not in the trace is not found', async () => {
    const failure = await callFailure(testHost.host, 'compareRuns', { traceId, runPkA: runPkOf('before'), runPkB: 9999 });
    assert.equal(failure.code, 'not_found');
  });
});
