/**
 * Cost per response, run, sub-agent and trace through a real API host (docs/semantics.md §19):
 * recorded costs kept, a private model priced by the user's price file, an unknown model unpriced
 * and never $0, sub-agents rolled up into the run that started them.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse, Cost, RunRow } from '../../shared/api';
import { costedRuns, costedRunsLines } from '../../devkit/uiTraces/costedRuns';
import { startTestHost, type TestHost } from '../support/apiHarness';
import { temporaryDir } from '../support/engineHarness';

const files = temporaryDir('cost-api');
const path = join(files.path, 'costed-runs.jsonl');
writeFileSync(path, `${costedRunsLines().join('\n')}\n`);

function assertCost(actual: Cost | null | undefined, usd: number | null, unpricedResponses: number): void {
  assert.ok(actual !== null && actual !== undefined, 'a cost');
  assert.equal(actual.unpricedResponses, unpricedResponses);
  if (usd === null) assert.equal(actual.usd, null);
  else assert.ok(actual.usd !== null && Math.abs(actual.usd - usd) < 1e-12, `${actual.usd} ≈ ${usd}`);
}

/** The trace opened by a host with (or without) the user's prices: its runs by id, and the host. */
async function openCosted(withUserPrices: boolean): Promise<{ testHost: TestHost; traceId: string; runs: Map<string, RunRow> }> {
  const testHost = startTestHost(withUserPrices ? { userPrices: { models: [costedRuns.privateModel] } } : {});
  const traceId = (await testHost.openSettled(path)).traceId;
  const page = (await testHost.host.call('runs', { traceId })) as ApiResponse<'runs'>;
  return { testHost, traceId, runs: new Map(page.rows.map((row) => [row.runId, row])) };
}

after(() => files.remove());

describe('cost with a user price file', () => {
  let opened: Awaited<ReturnType<typeof openCosted>>;
  before(async () => {
    opened = await openCosted(true);
  });
  after(() => opened.testHost.close());

  it("lists each run's own cost: priced, recorded, and the unknown model's response left out and counted", () => {
    assertCost(opened.runs.get('lead')?.cost, costedRuns.leadPricedUsd, 1);
    assertCost(opened.runs.get('helper')?.cost, costedRuns.helperRecordedUsd, 0);
    assertCost(opened.runs.get('deep')?.cost, costedRuns.deepRecordedUsd, 0);
  });

  it('rolls sub-agents up into the run that started them, down the whole chain', async () => {
    const lead = (await opened.testHost.host.call('run', { traceId: opened.traceId, runPk: opened.runs.get('lead')!.runPk })) as ApiResponse<'run'>;
    assertCost(lead.costWithSubAgents, costedRuns.leadPricedUsd + costedRuns.helperRecordedUsd + costedRuns.deepRecordedUsd, 1);
    const helperCall = lead.subAgents.find((subAgent) => subAgent.childRunId === 'helper');
    assertCost(helperCall?.child?.cost, costedRuns.helperRecordedUsd + costedRuns.deepRecordedUsd, 0);
    const deep = (await opened.testHost.host.call('run', { traceId: opened.traceId, runPk: opened.runs.get('deep')!.runPk })) as ApiResponse<'run'>;
    assert.equal(deep.costWithSubAgents, null, 'a run that started none has no rolled-up cost');
  });

  it("totals the trace's responses", async () => {
    const total = (await opened.testHost.host.call('traceCost', { traceId: opened.traceId })) as ApiResponse<'traceCost'>;
    assertCost(total, costedRuns.leadPricedUsd + costedRuns.helperRecordedUsd + costedRuns.deepRecordedUsd, 1);
  });

  it('prices each response in the timeline, and says why one has no price', async () => {
    const events = (await opened.testHost.host.call('runEvents', {
      traceId: opened.traceId,
      runPk: opened.runs.get('lead')!.runPk,
      offset: 0,
      limit: 50,
    })) as ApiResponse<'runEvents'>;
    const responses = events.rows.filter((row) => row.type === 'model_response');
    assert.equal(responses.length, 2);
    const [priced, unpriced] = responses.map((row) => row.cost);
    assert.ok(priced !== null && priced !== undefined && 'usd' in priced);
    assert.equal(priced.source, 'user prices');
    assert.ok(Math.abs(priced.usd - costedRuns.leadPricedUsd) < 1e-12);
    assert.ok(unpriced !== null && unpriced !== undefined && 'unpriced' in unpriced);
    assert.match(unpriced.unpriced, new RegExp(costedRuns.unknownModel));
    assert.ok(
      events.rows.filter((row) => row.type !== 'model_response').every((row) => row.cost === null),
      'only responses have a cost',
    );
  });
});

describe('cost without the user price file', () => {
  it('leaves the private model unpriced too, so the run shows no price rather than $0', async () => {
    const opened = await openCosted(false);
    try {
      assertCost(opened.runs.get('lead')?.cost, null, 2);
      assertCost(opened.runs.get('helper')?.cost, costedRuns.helperRecordedUsd, 0);
      const total = (await opened.testHost.host.call('traceCost', { traceId: opened.traceId })) as ApiResponse<'traceCost'>;
      assertCost(total, costedRuns.helperRecordedUsd + costedRuns.deepRecordedUsd, 2);
    } finally {
      await opened.testHost.close();
    }
  });
});
