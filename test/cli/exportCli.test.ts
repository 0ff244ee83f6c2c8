/**
 * `loopscope export` as a user runs it (the built CLI in a child process): the runs of a directory
 * loaded into a real two-shard ClickHouse cluster, loaded again without a row added, read back by
 * `serve --library clickhouse://…`; written as OpenTelemetry spans that Loopscope reads back; and
 * refused, with the reason and exit 2, when the command or the server is wrong.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse } from '../../shared/api';
import { startClickHouseCluster, type ClickHouseCluster } from '../../devkit/clickhouse/cluster';
import { examplesDir, repoRoot } from '../../devkit/repoPaths';
import { ClickHouseClient, constantSql, identifier, sql } from '../../src-main/clickhouse/clickhouseClient';
import { analyzeJson, runCli } from '../support/cli';
import { temporaryDir } from '../support/engineHarness';

const DATABASE = 'loopscope_cli';
const SERVING = /^Loopscope is serving .* at (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)\s*$/m;

const cache = temporaryDir('export-cli-cache');
const traces = temporaryDir('export-cli-traces');
let cluster: ClickHouseCluster;

before(async () => {
  for (const name of readdirSync(examplesDir)
    .filter((file) => file.endsWith('.jsonl'))
    .slice(0, 12))
    copyFileSync(join(examplesDir, name), join(traces.path, name));
  cluster = await startClickHouseCluster({ shards: 2, database: DATABASE });
});

after(async () => {
  await cluster?.stop();
  cache.remove();
  traces.remove();
});

async function count(table: string): Promise<number> {
  const client = new ClickHouseClient({ url: cluster.url });
  const [row] = await client.query<{ rows: number }>(sql`SELECT count() AS rows FROM ${identifier(DATABASE)}.${identifier(table)}`);
  return row?.rows ?? 0;
}

describe('loopscope export --clickhouse', () => {
  it('loads every run of a directory into the cluster, and loading again adds no row', async () => {
    const runsInTraces = analyzeJson([traces.path], { cacheDir: cache.path }).report.runs.length;
    const first = runCli(['export', traces.path, '--clickhouse', cluster.url, '--database', DATABASE, '--cluster', cluster.clusterName], {
      cacheDir: cache.path,
    });
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /loaded 12 traces \([\d,]+ rows\) into http:\/\/127\.0\.0\.1:\d+\/loopscope_cli; 0 already there unchanged/);
    assert.equal(await count('runs'), runsInTraces);
    const events = await count('events');
    assert.ok(events > runsInTraces);

    const again = runCli(['export', traces.path, '--clickhouse', `clickhouse://${new URL(cluster.url).host}/${DATABASE}`, '--cluster', cluster.clusterName], {
      cacheDir: cache.path,
    });
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /loaded 0 traces .* 12 already there unchanged/);
    assert.equal(await count('runs'), runsInTraces);
    assert.equal(await count('events'), events);
  });

  it('serves the loaded library: the start page reads ClickHouse', async () => {
    const location = `clickhouse://${new URL(cluster.url).host}/${DATABASE}`;
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'loopscope.js'), 'serve', '--library', location, '--cache-dir', cache.path], {
      cwd: repoRoot,
    });
    try {
      let output = '';
      const page = await new Promise<string>((resolve, reject) => {
        const read = (chunk: Buffer): void => {
          output += chunk.toString();
          const serving = SERVING.exec(output);
          if (serving) resolve(serving[1]!);
        };
        child.stdout.on('data', read);
        child.stderr.on('data', read);
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
      });
      assert.match(output, /the library in clickhouse:\/\/127\.0\.0\.1:\d+\/loopscope_cli/);
      const response = await fetch(new URL('api/libraryRuns', page), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(response.status, 200);
      const runs = (await response.json()) as ApiResponse<'libraryRuns'>;
      assert.equal(runs.total, await count('runs'));
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('prints the statements that create the local tables on a shard, which a shard runs as they are', async () => {
    const printed = runCli(['export', '--clickhouse', cluster.url, '--database', 'printed_schema', '--cluster', cluster.clusterName, '--print-shard-schema'], {
      cacheDir: cache.path,
    });
    assert.equal(printed.status, 0, printed.stderr);
    assert.match(printed.stdout, /CREATE TABLE IF NOT EXISTS `printed_schema`\.`runs_local`/);
    const shard = new ClickHouseClient({ url: cluster.servers[1]!.httpUrl });
    for (const statement of printed.stdout.split(';\n').filter((text) => text.trim() !== '')) await shard.execute(constantSql(statement));
    const tables = await shard.query<{ name: string }>(sql`SELECT name FROM system.tables WHERE database = 'printed_schema' ORDER BY name`);
    assert.deepEqual(
      tables.map((table) => table.name),
      ['calls_local', 'events_local', 'findings_local', 'runs_local', 'steps_local', 'traces_local'],
    );
  });

  it('says what is wrong, exit 2: no target, two targets, a bad URL, a server that is not there', () => {
    const file = join(traces.path, readdirSync(traces.path)[0]!);
    const cases: [string[], RegExp][] = [
      [['export', file], /export needs one of --otlp OUT\|URL, --clickhouse URL and --html OUT\.html/],
      [['export', file, '--otlp', 'x.jsonl', '--clickhouse', cluster.url], /export needs one of/],
      [['export', file, '--clickhouse', 'ftp://127.0.0.1:1'], /not a ClickHouse URL/],
      [['export', file, '--clickhouse', 'clickhouse://127.0.0.1:1/db', '--database', 'other'], /--database other and the database of .* differ/],
      [['export', file, '--clickhouse', 'http://127.0.0.1:1', '--database', 'x'], /ClickHouse at http:\/\/127\.0\.0\.1:1 cannot be reached/],
      [['serve', '--library', 'clickhouse://127.0.0.1/'], /names no database/],
      [['serve', '--library', 'clickhouse://127.0.0.1/db', traces.path], /--library reads a library in ClickHouse, not/],
      [['serve', '--library', 'clickhouse://127.0.0.1/db', '--otlp'], /--otlp keeps what it receives in a library here/],
    ];
    for (const [args, message] of cases) {
      const result = runCli(args, { cacheDir: cache.path });
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });
});

describe('loopscope export --otlp', () => {
  it('writes every run as OpenTelemetry spans that read back as the same runs', () => {
    const out = temporaryDir('export-cli-otlp');
    try {
      const file = join(out.path, 'spans.jsonl');
      const exported = runCli(['export', traces.path, '--otlp', file], { cacheDir: cache.path });
      assert.equal(exported.status, 0, exported.stderr);
      const original = analyzeJson([traces.path], { cacheDir: cache.path }).report.runs;
      const readBack = analyzeJson([file], { cacheDir: cache.path }).report.runs;
      assert.equal(readBack.length, original.length);
      assert.deepEqual(readBack.map((run) => run.status).toSorted(), original.map((run) => run.status).toSorted());
    } finally {
      out.remove();
    }
  });
});
