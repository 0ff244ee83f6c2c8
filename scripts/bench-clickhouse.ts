/**
 * `npm run bench:clickhouse`: the library on a two-shard ClickHouse cluster (docs/clickhouse.md)
 * against the local library database, on the same traces, in one run:
 *
 * 1. the traces: bench-data/library-N/traces/ as `npm run bench:library` generates them (run it
 *    first; default N = 10,000), indexed into a local library (its cache kept in
 *    bench-data/library-N/clickhouse-cache/ and reused, so a second run does not index again);
 * 2. a cluster of two `clickhouse-server` processes on 127.0.0.1 (devkit/clickhouse/cluster.ts:
 *    local MergeTree tables on each, Distributed tables on the first), started fresh;
 * 3. the load (`loadLibraryDatabase`, as `export --clickhouse` does after indexing, with content):
 *    wall time, rows, rows/s; then a second load of the same library (nothing to add);
 * 4. each start-page query, the median of 5 calls, on the local library (SQLite, in this process,
 *    as the query worker runs it) and on the cluster (over HTTP), side by side with their ratio:
 *    the runs (100, newest first; by cost), the aggregates and the signatures, unfiltered and under
 *    a status, a finding kind, a format, a model, a directory, a day range and a text filter, and a
 *    search for a common word.
 *
 * Both sides are checked to give the same answer before they are timed. Prints a Markdown table and
 * writes bench-data/library-N/clickhouse-results.json. The servers are stopped, even on failure.
 *
 *   npx tsx scripts/bench-clickhouse.ts [--files N] [--json]
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { startClickHouseCluster } from '../devkit/clickhouse/cluster';
import { repoRoot } from '../devkit/repoPaths';
import type { ApiParsedRequest } from '../shared/api';
import type { LibraryFilter } from '../shared/library/libraryApi';
import { analysisOptionsSchema } from '../shared/report';
import { libraryDbPath, openLibraryForReading, openLibraryForWriting } from '../src-main/api/library/libraryDatabase';
import { LibraryIndexer } from '../src-main/api/library/libraryIndexer';
import { libraryAggregates, libraryRuns, librarySignatures } from '../src-main/api/library/libraryQueries';
import { ClickHouseClient } from '../src-main/clickhouse/clickhouseClient';
import { ClickHouseLibrary } from '../src-main/clickhouse/clickhouseLibrary';
import { loadLibraryDatabase } from '../src-main/clickhouse/clickhouseLoad';
import { machineInfo } from './lib/benchReport';

const { values } = parseArgs({ options: { files: { type: 'string', default: '10000' }, json: { type: 'boolean', default: false } } });
const files = Number(values.files);
const libraryDir = join(repoRoot, 'bench-data', `library-${files}`);
const tracesDir = join(libraryDir, 'traces');
if (!existsSync(tracesDir)) {
  process.stderr.write(`bench:clickhouse: no traces at ${tracesDir}: run \`npm run bench:library -- --files ${files}\` first, which generates them\n`);
  process.exit(2);
}
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const DATABASE = 'loopscope_bench';

/** 1. The local library of the traces, indexed once and kept. */
async function localLibrary(): Promise<string> {
  const cacheDir = join(libraryDir, 'clickhouse-cache');
  mkdirSync(cacheDir, { recursive: true });
  const dbPath = libraryDbPath(cacheDir, [tracesDir]);
  const db = openLibraryForWriting(dbPath);
  const started = Date.now();
  let last = 0;
  const indexer = new LibraryIndexer(db, {
    roots: [tracesDir],
    cacheDir,
    analysis: analysisOptionsSchema.parse({}),
    userPrices: null,
    rescanMs: null,
    concurrency: 2,
    followIdleMs: null,
    onStatus: (status) => {
      if (Date.now() - last < 10_000) return;
      last = Date.now();
      log(`indexing: ${status.indexed} of ${status.files} files`);
    },
  });
  await indexer.start();
  db.close();
  log(`local library ready in ${((Date.now() - started) / 1000).toFixed(0)} s: ${dbPath}`);
  return dbPath;
}

function median(samples: number[]): number {
  const sorted = samples.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timed<T>(call: () => Promise<T> | T): Promise<{ ms: number; answer: T }> {
  const samples: number[] = [];
  let answer: T | undefined;
  for (let round = 0; round < 5; round += 1) {
    const started = performance.now();
    answer = await call();
    samples.push(performance.now() - started);
  }
  return { ms: median(samples), answer: answer as T };
}

interface QueryRow {
  query: string;
  localMs: number;
  clickHouseMs: number;
  same: boolean;
}

const dbPath = await localLibrary();
const local = openLibraryForReading(dbPath);
if (local === undefined) throw new Error(`the local library ${dbPath} cannot be read`);
const cluster = await startClickHouseCluster({ shards: 2, database: DATABASE });
try {
  const client = new ClickHouseClient({ url: cluster.url });
  const writer = openLibraryForWriting(dbPath);
  const started = performance.now();
  const loaded = await loadLibraryDatabase(writer, { client, database: DATABASE, content: true, log });
  const loadSeconds = (performance.now() - started) / 1000;
  const rows = Object.values(loaded.rows).reduce((total, count) => total + count, 0);
  const againStarted = performance.now();
  const again = await loadLibraryDatabase(writer, { client, database: DATABASE, content: true });
  const againSeconds = (performance.now() - againStarted) / 1000;
  writer.close();

  const remote = new ClickHouseLibrary({ client, database: DATABASE, name: 'bench' });
  const unfiltered = libraryAggregates(local, { filter: {} });
  const busiest = unfiltered.overTime.periods.toSorted((a, b) => b.runs - a.runs)[0];
  const filters: [string, LibraryFilter][] = [
    ['unfiltered', {}],
    ['status', { status: unfiltered.byStatus[0]!.status }],
    ['finding kind', { findingKind: unfiltered.findingsByKind[0]!.kind }],
    ['format', { format: unfiltered.facets.formats[0]!.value }],
    ['model', { model: unfiltered.facets.models[0]!.value }],
    ['directory', { directory: unfiltered.facets.directories[0]!.value }],
    ['day range', busiest === undefined ? {} : { from: busiest.from, to: busiest.to }],
    ['text', { text: 'refund' }],
  ];
  const results: QueryRow[] = [];
  const compare = async <T>(query: string, onLocal: () => T, onClickHouse: () => Promise<T>): Promise<void> => {
    const a = await timed(onLocal);
    const b = await timed(onClickHouse);
    results.push({ query, localMs: a.ms, clickHouseMs: b.ms, same: isDeepStrictEqual(a.answer, b.answer) });
    log(`${query}: local ${a.ms.toFixed(1)} ms, ClickHouse ${b.ms.toFixed(1)} ms${isDeepStrictEqual(a.answer, b.answer) ? '' : ' — ANSWERS DIFFER'}`);
  };
  for (const [name, filter] of filters) {
    const runsRequest: ApiParsedRequest<'libraryRuns'> = { filter, sort: 'started', descending: true, offset: 0, limit: 100 };
    await compare(
      `runs, ${name}`,
      () => libraryRuns(local, runsRequest),
      () => remote.runs(runsRequest),
    );
    await compare(
      `aggregates, ${name}`,
      () => libraryAggregates(local, { filter }),
      () => remote.aggregates({ filter }),
    );
    const signaturesRequest: ApiParsedRequest<'librarySignatures'> = { filter, offset: 0, limit: 50 };
    await compare(
      `signatures, ${name}`,
      () => librarySignatures(local, signaturesRequest),
      () => remote.signatures(signaturesRequest),
    );
  }
  const byCost: ApiParsedRequest<'libraryRuns'> = { filter: {}, sort: 'cost', descending: true, offset: 0, limit: 100 };
  await compare(
    'runs by cost',
    () => libraryRuns(local, byCost),
    () => remote.runs(byCost),
  );

  const report = {
    machine: machineInfo(),
    measuredAt: new Date().toISOString(),
    traces: loaded.tracesLoaded,
    load: { seconds: loadSeconds, rows, rowsPerSecond: rows / loadSeconds, rowsByTable: loaded.rows },
    loadAgain: { seconds: againSeconds, tracesLoaded: again.tracesLoaded, tracesUnchanged: again.tracesUnchanged },
    queries: results,
  };
  writeFileSync(join(libraryDir, 'clickhouse-results.json'), `${JSON.stringify(report, null, 2)}\n`);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const lines = [
      `Library of ${files.toLocaleString('en-US')} traces on a two-shard ClickHouse 18.16 cluster (127.0.0.1), ${report.measuredAt}`,
      '',
      `Load: ${loaded.tracesLoaded.toLocaleString('en-US')} traces, ${rows.toLocaleString('en-US')} rows in ${loadSeconds.toFixed(1)} s = ${Math.round(rows / loadSeconds).toLocaleString('en-US')} rows/s (content included); again: ${again.tracesLoaded} loaded, ${again.tracesUnchanged.toLocaleString('en-US')} unchanged in ${againSeconds.toFixed(1)} s`,
      '',
      '| query (median of 5) | local SQLite | ClickHouse, 2 shards | ClickHouse ÷ local | same answer |',
      '|---|---|---|---|---|',
      ...results.map(
        (row) =>
          `| ${row.query} | ${row.localMs.toFixed(1)} ms | ${row.clickHouseMs.toFixed(1)} ms | ${(row.clickHouseMs / row.localMs).toFixed(2)} | ${row.same ? 'yes' : 'NO'} |`,
      ),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  if (results.some((row) => !row.same)) process.exitCode = 1;
} finally {
  local.close();
  await cluster.stop();
}
