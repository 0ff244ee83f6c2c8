/**
 * The library through a real API host: a directory of traces indexed by the library worker (each
 * file ingested by the engine into its own SQLite cache, the library into its database), read
 * back through the query worker, every answer checked by the API's schemas.
 */
import assert from 'node:assert/strict';
import { appendFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse } from '../../shared/api';
import { appendedRunLines, libraryFixture, writeLibraryFixture } from '../../devkit/uiTraces/libraryFixture';
import { callFailure, startTestHost, type TestHost } from '../support/apiHarness';
import { temporaryDir } from '../support/engineHarness';

const files = temporaryDir('library-api');
let testHost: TestHost;

/** The library's status once `done` says it is, asking every 100 ms for at most 60 s. */
async function statusWhen(done: (status: NonNullable<ApiResponse<'libraryStatus'>>) => boolean): Promise<NonNullable<ApiResponse<'libraryStatus'>>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = (await testHost.host.call('libraryStatus', {})) as ApiResponse<'libraryStatus'>;
    assert.ok(status !== null, 'the host has a library');
    if (done(status)) return status;
    if (Date.now() > deadline) assert.fail(`the library did not get there: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function runs(request: object = {}): Promise<ApiResponse<'libraryRuns'>> {
  return (await testHost.host.call('libraryRuns', { limit: 100, ...request })) as ApiResponse<'libraryRuns'>;
}

const runIds = (page: ApiResponse<'libraryRuns'>): string[] => page.rows.map((row) => row.runId).toSorted();

before(async () => {
  writeLibraryFixture(files.path);
  testHost = startTestHost({ library: { roots: [files.path], rescanMs: 200 } });
  await statusWhen((status) => status.state === 'idle' && status.files > 0);
});

after(async () => {
  await testHost.close();
  files.remove();
});

describe('the library', () => {
  it('indexes every trace under the directory, and says which file is not one', async () => {
    const status = await statusWhen((current) => current.state === 'idle');
    assert.equal(status.files - status.skipped, libraryFixture.traceFiles);
    assert.equal(status.skipped, 1);
    assert.equal(status.failed, 0);
    const all = await runs();
    assert.equal(all.total, libraryFixture.runs);
    assert.deepEqual(runIds(all), ['after', 'before', 'sample-1', 'sample-2', 'sample-3', 'sample-4']);
    // Newest first by default.
    assert.equal(all.rows[0]?.runId, 'after');
    const failed = all.rows.find((row) => row.runId === 'sample-1');
    assert.equal(failed?.toolErrors, 1);
    assert.ok(failed!.findings.error + failed!.findings.warning + failed!.findings.info > 0);
    assert.ok(failed?.findingKinds.includes('tool_error'));
  });

  it('adds up the runs: by status, findings by kind, tools, per-run distributions and periods', async () => {
    const aggregates = (await testHost.host.call('libraryAggregates', {})) as ApiResponse<'libraryAggregates'>;
    assert.equal(aggregates.runs, libraryFixture.runs);
    assert.equal(aggregates.traces, libraryFixture.traceFiles);
    assert.deepEqual(
      aggregates.byStatus.map((row) => [row.status, row.runs]),
      [
        ['model_finished', 5],
        ['budget_exceeded', 1],
      ],
    );
    const toolErrors = aggregates.findingsByKind.find((row) => row.kind === 'tool_error');
    assert.equal(toolErrors?.runs, 3);
    const getOrder = aggregates.tools.find((tool) => tool.name === 'get_order');
    assert.deepEqual([getOrder?.calls, getOrder?.errors], [5, 3]);
    assert.equal(aggregates.perRun.steps.runs, libraryFixture.runs);
    assert.equal(aggregates.perRun.steps.max, 4);
    assert.equal(aggregates.overTime.granularity, 'day');
    assert.deepEqual(
      aggregates.overTime.periods.map((period) => period.runs),
      [1, 1, 1, 1, 1, 1],
    );
    assert.deepEqual(
      aggregates.facets.directories.map((facet) => [facet.value, facet.runs]),
      [
        [join(files.path, 'sweep'), 4],
        [join(files.path, 'ab'), 2],
      ],
    );
  });

  it('groups the same failure across runs as one signature, and drills down to its runs', async () => {
    const signatures = (await testHost.host.call('librarySignatures', {})) as ApiResponse<'librarySignatures'>;
    const notFound = signatures.rows.find((row) => row.kind === 'tool_error' && row.tool === 'get_order');
    assert.ok(notFound, JSON.stringify(signatures.rows));
    assert.equal(notFound.runs, 3);
    assert.match(notFound.text, /ORDER_NOT_FOUND/);
    assert.equal(notFound.share, 3 / libraryFixture.runs);
    const drilled = await runs({ filter: { signature: notFound.key } });
    assert.deepEqual(runIds(drilled), [...libraryFixture.notFoundRuns]);
  });

  it('narrows every view by status, finding kind, directory, text and date', async () => {
    assert.deepEqual(runIds(await runs({ filter: { status: 'budget_exceeded' } })), [libraryFixture.budgetRun]);
    assert.deepEqual(runIds(await runs({ filter: { findingKind: 'tool_error' } })), [...libraryFixture.notFoundRuns]);
    assert.deepEqual(runIds(await runs({ filter: { directory: join(files.path, 'ab') } })), ['after', 'before']);
    assert.deepEqual(runIds(await runs({ filter: { text: 'A-10481' } })), ['sample-2']);
    assert.deepEqual(runIds(await runs({ filter: { from: '2025-06-05', to: '2025-06-05' } })), ['before']);
    const narrowed = (await testHost.host.call('libraryAggregates', { filter: { status: 'budget_exceeded' } })) as ApiResponse<'libraryAggregates'>;
    assert.equal(narrowed.runs, 1);
    // A facet counts under the other filters, not its own: every status is still offered.
    assert.equal(narrowed.facets.formats[0]?.runs, 1);
  });

  it('sorts by a measure, runs without it last', async () => {
    const byCost = await runs({ sort: 'cost', descending: true });
    const costs = byCost.rows.map((row) => row.costUsd);
    const priced = costs.filter((cost) => cost !== null);
    assert.ok(priced.length >= 2, 'the compared runs record their cost');
    assert.deepEqual(costs.slice(0, priced.length), priced);
    assert.ok(costs.slice(priced.length).every((cost) => cost === null));
  });

  it('finds words across every trace, hits grouped by trace and run', async () => {
    const search = (await testHost.host.call('librarySearch', { query: 'ORDER_NOT_FOUND' })) as ApiResponse<'librarySearch'>;
    assert.equal(search.complete, true);
    assert.deepEqual(search.hits.map((hit) => hit.runId).toSorted(), [...libraryFixture.notFoundRuns]);
    assert.ok(search.hits.every((hit) => hit.matches.length > 0 && hit.matches[0]!.snippet.includes('ORDER_NOT_FOUND')));
    // Only the traces whose terms may hold the words are read (the term filters rule the rest out).
    assert.equal(search.tracesSearched, libraryFixture.traceFiles);
    assert.ok(search.tracesOpened < libraryFixture.traceFiles, `${search.tracesOpened} traces opened`);
  });

  it('finds what a trace search finds, whatever the term filters say: a prefix, a split word, a word in one trace, none', async () => {
    const search = async (query: string): Promise<string[]> =>
      ((await testHost.host.call('librarySearch', { query })) as ApiResponse<'librarySearch'>).hits.map((hit) => hit.runId).toSorted();
    // The last word matches as a prefix, of any length.
    assert.deepEqual(await search('order_not_fo'), [...libraryFixture.notFoundRuns]);
    assert.deepEqual(await search('get_ord'), ['after', 'before', 'sample-1', 'sample-2', 'sample-3']);
    // A word the tokenizer splits matches its parts next to each other.
    assert.deepEqual(await search('A-10482'), ['before', 'sample-3']);
    assert.deepEqual(await search('SH-88213 shipment'), ['after']);
    assert.deepEqual(await search('wednesday'), ['after', 'before']);
    assert.deepEqual(await search('zyzzyva'), []);
    // A word outside ASCII is never ruled out by a filter: its trace is searched.
    assert.deepEqual(await search('naïve'), []);
  });

  it('opens the trace of a library run when the run is asked for', async () => {
    const [first] = (await runs({ filter: { text: 'sample-3' } })).rows;
    assert.ok(first);
    const trace = await testHost.settled(first.traceId);
    assert.equal(trace.state, 'ready');
    const run = (await testHost.host.call('run', { traceId: first.traceId, runPk: first.runPk })) as ApiResponse<'run'>;
    assert.equal(run.run.runId, 'sample-3');
  });

  /** The runs `before` and `after`, in two files of the library, compared. */
  async function comparedAcrossTraces(): Promise<{ traceIdA: string; traceIdB: string; comparison: ApiResponse<'compareRuns'> }> {
    const page = await runs({ filter: { directory: join(files.path, 'ab') } });
    const before = page.rows.find((row) => row.runId === 'before')!;
    const after = page.rows.find((row) => row.runId === 'after')!;
    const comparison = (await testHost.host.call('compareRuns', {
      traceId: before.traceId,
      runPkA: before.runPk,
      traceIdB: after.traceId,
      runPkB: after.runPk,
    })) as ApiResponse<'compareRuns'>;
    return { traceIdA: before.traceId, traceIdB: after.traceId, comparison };
  }

  /** B's request at an aligned row against A's, each read from its own trace. */
  async function requestsAt(compared: Awaited<ReturnType<typeof comparedAcrossTraces>>, row: number): Promise<ApiResponse<'requestDiff'>> {
    const { comparison } = compared;
    const aligned = comparison.alignment.rows[row]!;
    return (await testHost.host.call('requestDiff', {
      traceId: compared.traceIdB,
      eventId: comparison.b.turns[aligned.b!]!.request_event_id!,
      previousEventId: comparison.a.turns[aligned.a!]!.request_event_id!,
      previousTraceId: compared.traceIdA,
    })) as ApiResponse<'requestDiff'>;
  }

  it('compares two runs of two traces, the first divergence where the fixture puts it', async () => {
    const compared = await comparedAcrossTraces();
    const { comparison } = compared;
    assert.notEqual(compared.traceIdA, compared.traceIdB);
    assert.equal(comparison.alignment.first_divergence, 1);
    assert.deepEqual(
      comparison.alignment.rows.map((row) => row.op),
      ['same', 'changed', 'inserted', 'same'],
    );

    // What each had seen at the divergence, B's request against A's, read from the two traces: the
    // same history (each run's call ids are its own, compared by position), so B chose differently.
    const seen = await requestsAt(compared, comparison.alignment.first_divergence!);
    assert.equal(seen.history.verdict, 'extends');
    assert.deepEqual(seen.changes, []);
    assert.deepEqual(seen.findings, []);
    assert.equal(seen.messages, seen.previousMessages);
  });

  it('names a request of another trace by its run and file, and refuses an event that is not in that trace', async () => {
    const compared = await comparedAcrossTraces();
    const { comparison } = compared;
    // The last turns: the same answer after different histories, so the history differs.
    const diff = await requestsAt(compared, comparison.alignment.rows.length - 1);
    const last = comparison.alignment.rows.at(-1)!;
    // B's history has A's get_order edited (another order) and a call A never made.
    assert.deepEqual(
      diff.changes.map((change) => [change.status, change.role]),
      [
        ['modified', 'assistant'],
        ['appended', 'assistant'],
        ['appended', 'tool'],
      ],
    );
    assert.ok(
      diff.findings.some((finding) => finding.message.includes('of run before in before.jsonl')),
      diff.findings.map((finding) => finding.message).join('\n'),
    );
    const missing = await callFailure(testHost.host, 'requestDiff', {
      traceId: compared.traceIdB,
      eventId: comparison.b.turns[last.b!]!.request_event_id!,
      previousEventId: 999_999,
      previousTraceId: compared.traceIdA,
    });
    assert.equal(missing.code, 'not_found');
  });

  it('follows the directory: an appended run, a new file and a deleted file change the library', async () => {
    const { revision } = await statusWhen(() => true);
    appendFileSync(join(files.path, 'sweep', `${libraryFixture.budgetRun}.jsonl`), appendedRunLines('appended'));
    await statusWhen((status) => status.revision > revision && status.state === 'idle');
    await waitForRuns((page) => page.rows.some((row) => row.runId === 'appended'));
    // The start page's unfiltered aggregates (stored once per change) count it too.
    const aggregates = (await testHost.host.call('libraryAggregates', {})) as ApiResponse<'libraryAggregates'>;
    assert.equal(aggregates.runs, libraryFixture.runs + 1);

    writeFileSync(join(files.path, 'ab', 'late.jsonl.part'), appendedRunLines('late'));
    // Written elsewhere and moved in, as a file appears whole.
    renameSync(join(files.path, 'ab', 'late.jsonl.part'), join(files.path, 'ab', 'late.jsonl'));
    await waitForRuns((page) => page.rows.some((row) => row.runId === 'late'));

    rmSync(join(files.path, 'ab', 'late.jsonl'));
    await waitForRuns((page) => !page.rows.some((row) => row.runId === 'late'));
  });
});

/** The runs once `done` says they are what the test waits for, asking every 100 ms for at most 60 s. */
async function waitForRuns(done: (page: ApiResponse<'libraryRuns'>) => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const page = await runs();
    if (done(page)) return;
    if (Date.now() > deadline) assert.fail(`the runs did not change: ${runIds(page).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the library’s cost', () => {
  it('prices responses from their usage; a model no table knows has no price, never $0', async () => {
    const all = await runs();
    const notFound = all.rows.find((row) => row.runId === 'sample-1')!;
    // gpt-4o: 1,700 input and 50 output tokens at its list price.
    assert.ok(notFound.costUsd !== null && notFound.costUsd > 0.004 && notFound.costUsd < 0.006, String(notFound.costUsd));
    assert.deepEqual(notFound.models, ['gpt-4o-2024-08-06']);
    const budget = all.rows.find((row) => row.runId === libraryFixture.budgetRun)!;
    assert.equal(budget.costUsd, null);
    assert.equal(budget.unpricedResponses, 2);
    // The compared runs record their cost themselves: that figure is kept.
    assert.ok(Math.abs(all.rows.find((row) => row.runId === 'before')!.costUsd! - 0.003) < 1e-12);
  });

  it('prices a private model from a user price file, and names the cost of the call made after the budget ran out', async () => {
    const priced = startTestHost({ library: { roots: [files.path], rescanMs: null }, userPrices: { models: [libraryFixture.privateModel] } });
    try {
      const deadline = Date.now() + 60_000;
      let page: ApiResponse<'libraryRuns'>;
      for (;;) {
        const status = (await priced.host.call('libraryStatus', {})) as ApiResponse<'libraryStatus'>;
        page = (await priced.host.call('libraryRuns', { filter: { text: libraryFixture.budgetRun } })) as ApiResponse<'libraryRuns'>;
        if (status?.state === 'idle' && page.total > 0) break;
        if (Date.now() > deadline) assert.fail('the priced library was not indexed');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const budget = page.rows.find((row) => row.runId === libraryFixture.budgetRun)!;
      // 400 + 800 input and 2 × 25 output tokens at $1 and $4 per million.
      assert.ok(Math.abs(budget.costUsd! - (1200 * 1 + 50 * 4) / 1e6) < 1e-12, String(budget.costUsd));
      assert.equal(budget.unpricedResponses, 0);
      // The second step's response issued the call the budget no longer allowed: 800 in, 25 out.
      assert.ok(Math.abs(budget.wastedUsd! - (800 * 1 + 25 * 4) / 1e6) < 1e-12, String(budget.wastedUsd));
    } finally {
      await priced.close();
    }
  });
});

describe('directories added while the app runs (a second launch of the desktop app)', () => {
  it('starts a library where there was none, then adds a directory to it, every run of both listed', async () => {
    const first = temporaryDir('library-added-first');
    const second = temporaryDir('library-added-second');
    writeLibraryFixture(first.path);
    writeFileSync(join(second.path, 'more.jsonl'), appendedRunLines('added-later'));
    const added = startTestHost();
    const status = async (): Promise<ApiResponse<'libraryStatus'>> => (await added.host.call('libraryStatus', {})) as ApiResponse<'libraryStatus'>;
    const runsWhen = async (count: number): Promise<ApiResponse<'libraryRuns'>> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const current = await status();
        if (current?.state === 'idle') {
          const page = (await added.host.call('libraryRuns', { limit: 100 })) as ApiResponse<'libraryRuns'>;
          if (page.total === count) return page;
        }
        if (Date.now() > deadline) assert.fail(`the library did not reach ${count} runs: ${JSON.stringify(current)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    try {
      assert.equal(await status(), null, 'no library before a directory is given');
      await added.host.addLibraryRoots([first.path]);
      assert.equal((await runsWhen(libraryFixture.runs)).total, libraryFixture.runs);
      // The same directory again changes nothing; a new one joins it.
      await added.host.addLibraryRoots([first.path]);
      assert.deepEqual((await status())?.roots, [first.path]);
      await added.host.addLibraryRoots([second.path]);
      assert.deepEqual((await status())?.roots, [first.path, second.path]);
      const both = await runsWhen(libraryFixture.runs + 1);
      assert.ok(both.rows.some((row) => row.runId === 'added-later'));
    } finally {
      await added.close();
      first.remove();
      second.remove();
    }
  });
});
