/**
 * The start page against ClickHouse (src-main/clickhouse/clickhouseLibrary.ts) gives the local
 * library's answers: a directory of traces (the library fixture, the bundled examples and generated
 * traces of three formats) is indexed into a local library by a real API host, loaded with its
 * content into a real two-shard ClickHouse cluster, and every start-page query is asked of both
 * hosts — the answers deep-equal, under every filter, every sort both ways and pages. Then through
 * the HTTP server: the start page's answers come from ClickHouse, a run whose file is here opens,
 * one whose file is not says where it is.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type Database from 'better-sqlite3';
import fc from 'fast-check';
import type { ApiResponse } from '../../shared/api';
import { librarySortSchema, type LibraryFilter } from '../../shared/library/libraryApi';
import { startClickHouseCluster, type ClickHouseCluster } from '../../devkit/clickhouse/cluster';
import { repoRoot } from '../../devkit/repoPaths';
import { generateLibraryTrace } from '../../devkit/traceGenerators/libraryOfTraces';
import { appendedRunLines, libraryFixture, writeLibraryFixture } from '../../devkit/uiTraces/libraryFixture';
import { createApiHost, defaultAnalysis } from '../../src-main/api/apiHost';
import { libraryDbPath, openLibraryForReading } from '../../src-main/api/library/libraryDatabase';
import { ClickHouseClient } from '../../src-main/clickhouse/clickhouseClient';
import { exportToClickHouse, loadLibraryDatabase } from '../../src-main/clickhouse/clickhouseLoad';
import { startServer } from '../../src-main/server/httpServer';
import { callFailure, startTestHost, type TestHost } from '../support/apiHarness';
import { temporaryDir } from '../support/engineHarness';

const database = 'loopscope_test';
const files = temporaryDir('clickhouse-library');
const fixtureDir = join(files.path, 'fixture');
let cluster: ClickHouseCluster;
let client: ClickHouseClient;
let local: TestHost;
let remote: TestHost;

/** The directory: the library fixture, every bundled example, and generated traces of each kind spread over weeks. */
function writeTraces(): void {
  writeLibraryFixture(fixtureDir);
  const examples = join(files.path, 'examples');
  mkdirSync(examples);
  for (const name of readdirSync(join(repoRoot, 'examples')).filter((entry) => entry.endsWith('.jsonl')))
    copyFileSync(join(repoRoot, 'examples', name), join(examples, name));
  const generated = join(files.path, 'generated', 'nested');
  mkdirSync(generated, { recursive: true });
  const kinds = ['canonical', 'chat', 'exchange', 'canonical', 'canonical', 'chat'] as const;
  kinds.forEach((kind, index) =>
    generateLibraryTrace({
      kind,
      seed: 11 + index,
      targetBytes: 24_000,
      startAt: Date.UTC(2025, 2, 1 + index * 9, 8, 30),
      outPath: join(index % 2 === 0 ? generated : join(files.path, 'generated'), `${kind}-${index}.jsonl`),
    }),
  );
  writeAwkwardTrace(join(files.path, 'awkward-doubles.jsonl'));
}

/**
 * Doubles 18.16's text formats parse an ULP off (about one in thirty: these and forty more of every
 * magnitude, from a fixed seed), the edges, and sums that are not what their digits say.
 */
const awkwardDoubles = [
  6.678998267815595,
  0.1 + 0.2,
  1e-300,
  123456789.12345679,
  5e-324,
  2.2250738585072014e-308,
  1.0000000000000002,
  ...fc.sample(fc.double({ min: 1e-9, max: 1e9, noNaN: true }), { numRuns: 40, seed: 7 }),
];

/**
 * A trace whose runs cost, take and wait awkward doubles (a response's recorded cost, a call's
 * latency, timestamps to the microsecond), and whose text has diacritics, a Kelvin sign and a
 * ligature that the search index folds.
 */
function writeAwkwardTrace(path: string): void {
  const lines = awkwardDoubles.flatMap((value, index) => {
    const run = `awkward-${index}`;
    const at = (seconds: number, micros: number): string =>
      `2025-04-0${1 + (index % 9)}T10:00:${String(seconds).padStart(2, '0')}.${String(micros).padStart(6, '0')}Z`;
    return [
      { type: 'run_start', run_id: run, ts: at(0, 123457 + index), task: `Find the naïve café Ærøskøbing ${index}` },
      {
        type: 'model_response',
        run_id: run,
        step: 1,
        ts: at(1, 987_654),
        outcome: 'tool_calls',
        text: `Looking up the ﬁle for the \u212Aelvin façade ${index}.`,
        tool_calls: [{ call_id: `call-${index}`, name: 'lookup_café', arguments: { query: 'crème brûlée' } }],
        usage: { input_tokens: 100 + index, output_tokens: 10, cost_usd: value },
        latency_ms: value,
      },
      { type: 'tool_call_start', run_id: run, step: 1, ts: at(2, 1), call_id: `call-${index}`, name: 'lookup_café', arguments: { query: 'crème brûlée' } },
      {
        type: 'tool_result',
        run_id: run,
        step: 1,
        ts: at(3, 333_333),
        call_id: `call-${index}`,
        name: 'lookup_café',
        status: 'ok',
        output: { naïve: 'Über straße ŒUVRE' },
        latency_ms: value * 3,
      },
      {
        type: 'model_response',
        run_id: run,
        step: 2,
        ts: at(4, 444_445),
        outcome: 'final',
        text: 'Done: naïvely.',
        usage: { input_tokens: 7, output_tokens: 3, cost_usd: value / 7 },
      },
      { type: 'run_end', run_id: run, ts: at(5, 555_559 + index), status: 'MODEL_FINISHED', output: 'Done: naïvely.' },
    ];
  });
  writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
}

async function idleLibrary(host: TestHost): Promise<NonNullable<ApiResponse<'libraryStatus'>>> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = (await host.host.call('libraryStatus', {})) as ApiResponse<'libraryStatus'>;
    if (status !== null && status.state === 'idle' && status.files > 0) return status;
    if (Date.now() > deadline) assert.fail(`the library was not indexed: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The same call to the local library and to ClickHouse, and both answers. */
async function both<T>(method: string, request: object): Promise<{ local: T; remote: T }> {
  const [localAnswer, remoteAnswer] = await Promise.all([local.host.call(method, request), remote.host.call(method, request)]);
  return { local: localAnswer as T, remote: remoteAnswer as T };
}

async function assertSame(method: string, request: object): Promise<unknown> {
  const answers = await both(method, request);
  assert.deepEqual(answers.remote, answers.local, `${method} ${JSON.stringify(request)}`);
  return answers.local;
}

let localLibraryDb: Database.Database;

before(async () => {
  writeTraces();
  // Started first: where ClickHouse cannot start, the tests fail here, saying why.
  cluster = await startClickHouseCluster({ shards: 2, database });
  client = new ClickHouseClient({ url: cluster.url });
  local = startTestHost({ library: { roots: [files.path], rescanMs: null } });
  await idleLibrary(local);
  const opened = openLibraryForReading(libraryDbPath(local.cacheDir, [files.path]));
  assert.ok(opened, 'the local library database exists');
  localLibraryDb = opened;
  const loaded = await loadLibraryDatabase(localLibraryDb, { client, database, content: true });
  assert.equal(loaded.tracesFailed, 0);
  remote = startTestHost({ clickHouseLibrary: { url: cluster.url, database } });
});

after(async () => {
  localLibraryDb?.close();
  await remote?.close();
  await local?.close();
  await cluster?.stop();
  files.remove();
});

/** Filters of every field, each a value the library has, and two combined. */
async function filters(): Promise<LibraryFilter[]> {
  const aggregates = (await local.host.call('libraryAggregates', {})) as ApiResponse<'libraryAggregates'>;
  const signatures = (await local.host.call('librarySignatures', {})) as ApiResponse<'librarySignatures'>;
  const busiestDay = aggregates.overTime.periods.toSorted((a, b) => b.runs - a.runs)[0];
  assert.ok(busiestDay && aggregates.byStatus.length > 1 && aggregates.findingsByKind.length > 1 && signatures.rows.length > 1);
  return [
    {},
    { status: aggregates.byStatus[1]!.status },
    { findingKind: aggregates.findingsByKind[0]!.kind },
    { format: aggregates.facets.formats.at(-1)!.value },
    { model: aggregates.facets.models[0]!.value },
    { directory: fixtureDir },
    { directory: `${join(files.path, 'generated')}/` },
    // A directory is no prefix of its sibling's name.
    { directory: join(files.path, 'gen') },
    { from: busiestDay.from },
    { to: busiestDay.to },
    { from: '2025-03-05', to: '2025-03-30' },
    { text: 'ORDER' },
    { text: 'gpt-4o' },
    // Quotes are in the models' JSON text the local library matches.
    { text: '","' },
    { signature: signatures.rows[0]!.key },
    { status: 'model_finished', directory: files.path },
    { findingKind: aggregates.findingsByKind[0]!.kind, from: '2025-01-01' },
  ];
}

describe('the start page against ClickHouse', () => {
  it('adds up the same: status, findings, tools, distributions, periods and facets, under every filter', async () => {
    const unfiltered = (await assertSame('libraryAggregates', {})) as ApiResponse<'libraryAggregates'>;
    assert.ok(unfiltered.runs > libraryFixture.runs + 20, `${unfiltered.runs} runs`);
    assert.ok(unfiltered.tools.some((tool) => tool.p95Ms !== null));
    assert.ok(unfiltered.facets.formats.length >= 2, JSON.stringify(unfiltered.facets.formats));
    for (const filter of await filters()) {
      const answer = (await assertSame('libraryAggregates', { filter })) as ApiResponse<'libraryAggregates'>;
      if (Object.keys(filter).length > 0) assert.ok(answer.runs < unfiltered.runs, JSON.stringify(filter));
    }
  });

  it('lists the same runs under every filter, sorted by every column both ways, a page at a time', async () => {
    for (const filter of await filters()) await assertSame('libraryRuns', { filter, limit: 2000 });
    for (const sort of librarySortSchema.options) {
      for (const descending of [false, true]) {
        for (const [offset, limit] of [
          [0, 7],
          [7, 7],
          [30, 25],
          [0, 2000],
        ] as const)
          await assertSame('libraryRuns', { sort, descending, offset, limit });
        await assertSame('libraryRuns', { sort, descending, filter: { directory: files.path, from: '2025-01-01' }, limit: 12 });
      }
    }
  });

  it('groups the same failure signatures, with the same examples, a page at a time', async () => {
    for (const filter of await filters()) await assertSame('librarySignatures', { filter });
    const all = (await assertSame('librarySignatures', { limit: 500 })) as ApiResponse<'librarySignatures'>;
    assert.ok(all.total > 3, `${all.total} signatures`);
    await assertSame('librarySignatures', { offset: 2, limit: 3 });
  });

  it('adds up and lists the same awkward doubles: costs, durations and latencies the text formats would round', async () => {
    const filter = { text: 'awkward-' };
    const runs = (await assertSame('libraryRuns', { filter, limit: 100 })) as ApiResponse<'libraryRuns'>;
    assert.equal(runs.total, awkwardDoubles.length);
    assert.ok(
      runs.rows.every((row) => row.costUsd !== null && row.costUsd > 0 && row.durationMs !== null),
      JSON.stringify(runs.rows.map((row) => [row.costUsd, row.durationMs])),
    );
    for (const sort of ['cost', 'duration'] as const) await assertSame('libraryRuns', { filter, sort, limit: 100 });
    const aggregates = (await assertSame('libraryAggregates', { filter })) as ApiResponse<'libraryAggregates'>;
    assert.equal(aggregates.runs, awkwardDoubles.length);
    assert.ok(aggregates.tools.some((tool) => tool.name === 'lookup_café' && tool.p50Ms !== null));
  });

  it('searches the same: the same runs, events, snippets, counts and completeness, for every kind of query', async () => {
    /** The answer but for how many traces each looked at, which differs by design (clickhouseLibrary.ts). */
    const hitsOf = (answer: ApiResponse<'librarySearch'>): unknown => ({ hits: answer.hits, complete: answer.complete });
    const queries: { query: string; limit?: number; found: boolean }[] = [
      { query: 'ORDER_NOT_FOUND', found: true },
      // A prefix, and a word the tokenizer splits, matched as a phrase.
      { query: 'order_not_fo', found: true },
      { query: 'A-10482', found: true },
      { query: 'get_order', limit: 500, found: true },
      // Two words, both required.
      { query: 'budget exhausted', limit: 500, found: true },
      { query: 'leipzig HUB', found: true },
      // Diacritics in the trace, typed without them; a ligature and a Kelvin sign as the index folds them.
      { query: 'naive', found: true },
      { query: 'cafe façade', found: true },
      { query: 'Creme brul', found: true },
      { query: 'kelvin', found: true },
      { query: 'ﬁle', found: true },
      { query: 'oeuvre', found: false },
      { query: 'strasse', found: false },
      // A one-letter prefix: many runs, the list cut at its limit (complete or not as the local search says).
      { query: 't', limit: 3, found: true },
      { query: 'a', limit: 1, found: true },
      { query: 'the', limit: 40, found: true },
      { query: 'zzqx-not-a-word', found: false },
      // Punctuation only: no token, found nowhere; with a word, nothing either.
      { query: '!!!', found: false },
      { query: 'naive !!!', found: false },
      { query: '"OR" NEAR( -x *', found: false },
    ];
    for (const { query, limit, found } of queries) {
      const request = limit === undefined ? { query } : { query, limit };
      const answers = await both<ApiResponse<'librarySearch'>>('librarySearch', request);
      assert.equal(answers.local.hits.length > 0, found, `${query}: ${answers.local.hits.length} local hits`);
      assert.deepEqual(hitsOf(answers.remote), hitsOf(answers.local), JSON.stringify(request));
    }
    const cut = await both<ApiResponse<'librarySearch'>>('librarySearch', { query: 't', limit: 3 });
    assert.equal(cut.local.complete, false, 'a list cut short says so');
  });
});

describe('loopscope serve with a ClickHouse library', () => {
  it('answers the start page from ClickHouse over HTTP, opens a run whose file is here, and says where one is that is not', async () => {
    const assets = temporaryDir('clickhouse-assets');
    writeFileSync(join(assets.path, 'index.html'), '<!doctype html><title>Loopscope</title>');
    const cache = temporaryDir('clickhouse-serve-cache');
    const apiHost = createApiHost({
      shell: 'browser',
      version: '0.0.0-test',
      canOpenPaths: false,
      cacheDir: cache.path,
      idleAfterMs: null,
      clickHouseLibrary: { url: cluster.url, database },
    });
    const server = await startServer({ apiHost, assetsDir: assets.path });
    const call = async (method: string, request: object): Promise<{ status: number; body: unknown }> => {
      const response = await fetch(new URL(`api/${method}`, server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      return { status: response.status, body: await response.json() };
    };
    try {
      const filter = { directory: fixtureDir };
      const runs = (await call('libraryRuns', { filter, limit: 100 })).body as ApiResponse<'libraryRuns'>;
      assert.deepEqual(runs, await local.host.call('libraryRuns', { filter, limit: 100 }));
      assert.deepEqual((await call('libraryAggregates', { filter })).body, await local.host.call('libraryAggregates', { filter }));

      const here = runs.rows.find((row) => row.runId === 'sample-3')!;
      // Asking for the trace opens its file; it is read in the background.
      const deadline = Date.now() + 60_000;
      while (((await call('trace', { traceId: here.traceId })).body as ApiResponse<'trace'>).state !== 'ready') {
        if (Date.now() > deadline) assert.fail('the trace was not read');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const opened = await call('run', { traceId: here.traceId, runPk: here.runPk });
      assert.equal(opened.status, 200, JSON.stringify(opened.body));
      assert.equal((opened.body as ApiResponse<'run'>).run.runId, 'sample-3');

      const away = runs.rows.find((row) => row.runId === libraryFixture.budgetRun)!;
      renameSync(away.tracePath, `${away.tracePath}.moved`);
      const missing = await call('run', { traceId: away.traceId, runPk: away.runPk });
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, {
        error: { code: 'not_found', message: `the trace file ${away.tracePath} is on the machine that loaded it; it is not reachable here` },
      });
      const viaHost = await callFailure(apiHost, 'run', { traceId: away.traceId, runPk: away.runPk });
      assert.equal(viaHost.code, 'not_found');
    } finally {
      await server.close();
      await apiHost.close();
      cache.remove();
      assets.remove();
    }
  });
});

describe('the ClickHouse library’s status', () => {
  it('says the library is idle with every trace, and a new load raises its revision', async () => {
    const status = (await remote.host.call('libraryStatus', {})) as NonNullable<ApiResponse<'libraryStatus'>>;
    const localStatus = (await local.host.call('libraryStatus', {})) as NonNullable<ApiResponse<'libraryStatus'>>;
    assert.equal(status.state, 'idle');
    assert.equal(status.files, localStatus.files - localStatus.skipped - localStatus.failed);
    assert.deepEqual(status.roots, [`clickhouse://${new URL(cluster.url).host}/${database}`]);
    const more = temporaryDir('clickhouse-library-more');
    try {
      writeFileSync(join(more.path, 'late.jsonl'), appendedRunLines('late-run'));
      await exportToClickHouse({
        inputs: [more.path],
        client,
        database,
        cluster: cluster.clusterName,
        content: true,
        cacheDir: local.cacheDir,
        analysis: defaultAnalysis,
        log: () => undefined,
      });
      const after = (await remote.host.call('libraryStatus', {})) as NonNullable<ApiResponse<'libraryStatus'>>;
      assert.equal(after.files, status.files + 1);
      assert.ok(after.revision > status.revision, `${status.revision} → ${after.revision}`);
      const late = (await remote.host.call('libraryRuns', { filter: { text: 'late-run' } })) as ApiResponse<'libraryRuns'>;
      assert.deepEqual(
        late.rows.map((row) => row.runId),
        ['late-run'],
      );
    } finally {
      more.remove();
    }
  });
});
