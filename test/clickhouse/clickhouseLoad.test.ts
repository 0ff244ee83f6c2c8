/**
 * Loading the library into ClickHouse (src-main/clickhouse/clickhouseLoad.ts) against real
 * clickhouse-server processes: a cluster of two shards (devkit/clickhouse/cluster.ts) and one of
 * its servers used alone. What ClickHouse shows (the rows of each trace's newest load) is compared,
 * every column, with what the local library and the traces' own databases hold, read here directly.
 * Where clickhouse-server cannot start, the tests fail.
 */
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { startClickHouseCluster, type ClickHouseCluster } from '../../devkit/clickhouse/cluster';
import { examplesDir } from '../../devkit/repoPaths';
import { responseCost } from '../../shared/cost/runCost';
import { libraryDbPath } from '../../src-main/api/library/libraryDatabase';
import { ClickHouseClient, identifier, sql } from '../../src-main/clickhouse/clickhouseClient';
import { exportToClickHouse, type ClickHouseLoadOptions, type ClickHouseLoadSummary } from '../../src-main/clickhouse/clickhouseLoad';
import { clickHouseTables, shardSchema, visibleLoads, type ClickHouseTableName } from '../../src-main/clickhouse/clickhouseSchema';
import { defaultAnalysis, temporaryDir } from '../support/engineHarness';

const database = 'loopscope_load';
const work = temporaryDir('clickhouse-load');
const tracesDir = join(work.path, 'traces');
const cacheDir = join(work.path, 'cache');
let cluster: ClickHouseCluster;
let entry: ClickHouseClient;

/** A value with every character a careless literal or JSON encoding would break on. */
const awkwardTool = `get_'shipment' \\ "x"\nline two`;
const awkwardTask = `it's a \\ "test"`;

/** The examples, and one of them with a tool name and a task full of quotes, backslashes and a newline. */
function writeTraces(): void {
  mkdirSync(tracesDir, { recursive: true });
  for (const name of readdirSync(examplesDir).filter((file) => file.endsWith('.jsonl'))) copyFileSync(join(examplesDir, name), join(tracesDir, name));
  const awkward = readFileSync(join(examplesDir, 'tool-error.jsonl'), 'utf8')
    .replaceAll('"get_shipment"', JSON.stringify(awkwardTool))
    .replace('"Can you track A-10482 for me?"', JSON.stringify(`${awkwardTask}\nsecond line`))
    .replaceAll('"run_id":"tool-error"', '"run_id":"awkward"');
  writeFileSync(join(tracesDir, 'awkward.jsonl'), awkward);
}

const batchRows = 200;

/** An export of the traces into the cluster (`cluster: false`: into one server, without a cluster). */
function exportOptions(change: Partial<Omit<ClickHouseLoadOptions, 'cluster'>> & { cluster?: false } = {}): ClickHouseLoadOptions {
  const { cluster: onCluster, ...rest } = change;
  return {
    inputs: [tracesDir],
    client: entry,
    database,
    ...(onCluster === false ? {} : { cluster: cluster.clusterName }),
    content: false,
    cacheDir,
    analysis: defaultAnalysis,
    batchRows,
    log: () => undefined,
    ...rest,
  };
}

type Row = Record<string, unknown>;
type Rows = Record<ClickHouseTableName, Row[]>;

/** The columns compared: all but the load's own bookkeeping. */
function comparedColumns(table: ClickHouseTableName): string[] {
  const spec = clickHouseTables.find((candidate) => candidate.name === table)!;
  const bookkeeping = new Set(['load_id', 'fingerprint', 'loaded_at', 'loaded_at_ms']);
  return spec.columns.map(([name]) => name).filter((name) => !bookkeeping.has(name));
}

/** Rows as sorted lines of their values in column order: equal sets of rows give equal lists, and a difference reads as one. */
function normalized(table: ClickHouseTableName, rows: readonly Row[]): string[] {
  const columns = comparedColumns(table);
  return rows
    .map((row) =>
      JSON.stringify(
        columns.map((column) => {
          assert.ok(column in row, `${table} row without ${column}`);
          return row[column];
        }),
      ),
    )
    .toSorted();
}

const responseSql = "(type = 'model_response' OR (type = 'stream_fragment' AND outcome IS NOT NULL))";
const costSources = { recorded: 'recorded', 'price table': 'price_table', 'user prices': 'user_prices' } as const;

/** What the local library and the traces' databases hold, in ClickHouse's columns, read here with SQL of its own. */
function libraryRows(withContent: boolean): Rows {
  const library = new Database(libraryDbPath(cacheDir, [tracesDir]), { readonly: true, fileMustExist: true });
  const rows: Rows = { traces: [], runs: [], findings: [], calls: [], steps: [], events: [] };
  try {
    const files = library
      .prepare<[], { id: number; path: string; trace_id: string; size: number; mtime_ms: number; format: string; db_path: string }>(
        "SELECT id, path, trace_id, size, mtime_ms, format, db_path FROM files WHERE state = 'indexed'",
      )
      .all();
    for (const file of files) {
      const runs = library.prepare<[number], Row & { id: number; run_pk: number }>('SELECT * FROM runs WHERE file_id = ?').all(file.id);
      rows.traces.push({ trace_id: file.trace_id, path: file.path, format: file.format, size: file.size, mtime_ms: file.mtime_ms, runs: runs.length });
      for (const run of runs) {
        rows.runs.push({
          ...run,
          trace_id: file.trace_id,
          trace_path: file.path,
          models: JSON.parse(run['models'] as string),
          finding_kinds: JSON.parse(run['finding_kinds'] as string),
        });
        for (const finding of library.prepare<[number], Row & { id: number }>('SELECT * FROM findings WHERE run_row = ?').all(run.id))
          rows.findings.push({ ...finding, trace_id: file.trace_id, run_pk: run.run_pk, finding_index: finding.id });
        library
          .prepare<[number], Row>('SELECT tool, state, latency_ms FROM calls WHERE run_row = ? ORDER BY rowid')
          .all(run.id)
          .forEach((call, index) => rows.calls.push({ ...call, trace_id: file.trace_id, run_pk: run.run_pk, call_index: index }));
      }
      const traceDb = new Database(file.db_path, { readonly: true, fileMustExist: true });
      try {
        const text = readFileSync(file.path);
        const searched = withContent ? searchedEvents(traceDb) : new Map<number, { text: string; name: string | null; tokens: string }>();
        for (const run of runs) {
          const events = traceDb
            .prepare<
              [number],
              {
                id: number;
                run_index: number;
                type: string;
                outcome: string | null;
                line: number;
                byte_offset: number;
                byte_length: number;
                ts: string | null;
                call_id: string | null;
                name: string | null;
                step: number | null;
                model: string | null;
                provider: string | null;
                input_tokens: number | null;
                output_tokens: number | null;
                cached_input_tokens: number | null;
                cache_write_tokens: number | null;
                reasoning_tokens: number | null;
                cost_usd: number | null;
              }
            >('SELECT * FROM events WHERE run_pk = ?')
            .all(run.run_pk);
          for (const event of events) {
            rows.events.push({
              trace_id: file.trace_id,
              run_pk: run.run_pk,
              seq: event.run_index,
              type: event.type,
              source_line: event.line,
              timestamp: event.ts,
              call_id: event.call_id,
              tool: event.name,
              content: withContent ? text.subarray(event.byte_offset, event.byte_offset + event.byte_length).toString('utf8') : null,
              event_id: event.id,
              step: event.step,
              search_text: searched.get(event.id)?.text ?? null,
              search_tokens: withContent ? (searched.get(event.id)?.tokens ?? '') : null,
              search_name: searched.get(event.id)?.name ?? null,
            });
          }
          const responses = traceDb.prepare<[number], (typeof events)[number]>(`SELECT * FROM events WHERE run_pk = ? AND ${responseSql}`).all(run.run_pk);
          for (const response of responses) {
            const cost = responseCost(response);
            rows.steps.push({
              trace_id: file.trace_id,
              run_pk: run.run_pk,
              step: response.step ?? 0,
              event_seq: response.run_index,
              model: response.model,
              input_tokens: response.input_tokens,
              output_tokens: response.output_tokens,
              cached_tokens: response.cached_input_tokens,
              reasoning_tokens: response.reasoning_tokens,
              cost_usd: cost !== null && 'usd' in cost ? cost.usd : null,
              cost_source: cost === null ? 'no_usage' : 'unpriced' in cost ? 'unpriced' : costSources[cost.source],
            });
          }
        }
      } finally {
        traceDb.close();
      }
    }
  } finally {
    library.close();
  }
  return rows;
}

/**
 * The events of a trace database its full-text index holds: their text, the tool a hit names, and
 * their tokens as the index itself holds them (fts5vocab, in position order), joined as
 * `events.search_tokens` holds them.
 */
function searchedEvents(traceDb: Database.Database): Map<number, { text: string; name: string | null; tokens: string }> {
  const tokens = new Map<number, string[]>();
  traceDb.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_instances USING fts5vocab(main, 'search_index', 'instance')");
  try {
    for (const { doc, term } of traceDb
      .prepare<[], { doc: number; term: string }>('SELECT doc, term FROM temp.search_instances ORDER BY doc, offset')
      .iterate()) {
      const ofEvent = tokens.get(doc);
      if (ofEvent === undefined) tokens.set(doc, [term]);
      else ofEvent.push(term);
    }
  } finally {
    traceDb.exec('DROP TABLE IF EXISTS temp.search_instances');
  }
  const rows = traceDb
    .prepare<[], { id: number; text: string; name: string | null }>(
      `SELECT e.id, t.text, coalesce(e.name, (SELECT group_concat(c.name, ', ') FROM tool_calls c WHERE c.run_pk = e.run_pk AND c.event_id = e.id)) AS name
       FROM events e JOIN search_text t ON t.event_id = e.id`,
    )
    .all();
  assert.ok(rows.length > 0, 'the trace database has search text');
  return new Map(rows.map((row) => [row.id, { text: row.text, name: row.name, tokens: ` ${(tokens.get(row.id) ?? []).join(' ')} ` }]));
}

async function visibleRows(client: ClickHouseClient, db: string, table: ClickHouseTableName): Promise<Row[]> {
  return client.query<Row>(sql`SELECT * FROM ${identifier(db)}.${identifier(table)} WHERE ${visibleLoads(db)}`);
}

async function assertVisibleEqualsLibrary(client: ClickHouseClient, db: string, withContent: boolean): Promise<void> {
  const expected = libraryRows(withContent);
  for (const table of clickHouseTables.map((spec) => spec.name)) {
    const visible = await visibleRows(client, db, table);
    assert.ok(expected[table].length > 0, `the library has ${table} rows`);
    assert.deepEqual(normalized(table, visible), normalized(table, expected[table]), `visible ${table} rows`);
  }
}

async function physicalCounts(client: ClickHouseClient, db: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { name } of clickHouseTables) {
    const [row] = await client.query<{ rows: number }>(sql`SELECT count() AS rows FROM ${identifier(db)}.${identifier(name)}`);
    counts[name] = row?.rows ?? -1;
  }
  return counts;
}

/** Creates the shards' local tables of `db` on every server of the cluster, as an operator would before an export with `--cluster`. */
async function createShardTables(db: string): Promise<void> {
  for (const server of cluster.servers) {
    const client = new ClickHouseClient({ url: server.httpUrl });
    for (const statement of shardSchema(db)) await client.execute(statement);
  }
}

before(async () => {
  writeTraces();
  cluster = await startClickHouseCluster({ shards: 2, database });
  entry = new ClickHouseClient({ url: cluster.url });
});

after(async () => {
  await cluster?.stop();
  work.remove();
});

describe('loading the library into a ClickHouse cluster', () => {
  let first: ClickHouseLoadSummary;

  it('loads every trace: the visible rows are the library’s, every column, spread over both shards', async () => {
    const lines: string[] = [];
    first = await exportToClickHouse(exportOptions({ log: (line) => lines.push(line) }));
    const traces = readdirSync(tracesDir).length;
    assert.equal(first.tracesLoaded, traces);
    assert.equal(first.tracesUnchanged, 0);
    const progress = lines.filter((line) => /^loaded [\d,]+ of [\d,]+ traces .*, [\d,]+ rows, [\d,]+ rows\/s$/.test(line));
    const rows = Object.values(first.rows).reduce((sum, count) => sum + count, 0);
    assert.ok(progress.length >= Math.ceil(rows / batchRows), `a progress line per batch of at most ${batchRows} rows:\n${lines.join('\n')}`);
    await assertVisibleEqualsLibrary(entry, database, false);
    const counts = await physicalCounts(entry, database);
    for (const table of clickHouseTables.map((spec) => spec.name)) {
      assert.equal(counts[table], first.rows[table], `${table}: the rows said loaded`);
      for (const server of cluster.servers) {
        const shard = new ClickHouseClient({ url: server.httpUrl });
        const [row] = await shard.query<{ rows: number }>(sql`SELECT count() AS rows FROM ${identifier(database)}.${identifier(`${table}_local`)}`);
        assert.ok((row?.rows ?? 0) > 0, `${table}_local on ${server.httpUrl} holds rows`);
      }
    }
  });

  it('keeps quotes, backslashes and newlines exactly', async () => {
    const calls = await entry.query<{ tool: string }>(
      sql`SELECT tool FROM ${identifier(database)}.calls WHERE ${visibleLoads(database)} AND tool = ${awkwardTool}`,
    );
    assert.ok(calls.length > 0);
    assert.equal(calls[0]?.tool, awkwardTool);
    const [run] = await entry.query<{ task: string }>(
      sql`SELECT task FROM ${identifier(database)}.runs WHERE ${visibleLoads(database)} AND run_id = 'awkward'`,
    );
    assert.equal(run?.task, awkwardTask);
  });

  it('leaves events.content NULL without --content', async () => {
    const [row] = await entry.query<{ filled: number }>(sql`SELECT countIf(content IS NOT NULL) AS filled FROM ${identifier(database)}.events`);
    assert.equal(row?.filled, 0);
  });

  it('loads nothing again when nothing changed', async () => {
    const before = await physicalCounts(entry, database);
    const again = await exportToClickHouse(exportOptions());
    assert.equal(again.tracesLoaded, 0);
    assert.equal(again.tracesUnchanged, first.tracesLoaded);
    assert.deepEqual(await physicalCounts(entry, database), before);
  });

  it('loads a changed trace again, alone, under a new load that becomes the visible one', async () => {
    const changed = join(tracesDir, 'tool-error.jsonl');
    const lines = readFileSync(changed, 'utf8').trimEnd().split('\n');
    appendFileSync(changed, `${lines.at(-1)}\n`);
    const result = await exportToClickHouse(exportOptions());
    assert.equal(result.tracesLoaded, 1);
    assert.equal(result.tracesUnchanged, first.tracesLoaded - 1);
    const loads = await entry.query<{ path: string; loads: number }>(
      sql`SELECT path, count() AS loads FROM ${identifier(database)}.traces GROUP BY path HAVING loads > 1`,
    );
    assert.deepEqual(
      loads.map((row) => row.path),
      [changed],
    );
    await assertVisibleEqualsLibrary(entry, database, false);
  });

  it('says how to create the shards’ tables when they are missing', async () => {
    await assert.rejects(exportToClickHouse(exportOptions({ database: 'loopscope_no_shards' })), (error: Error) => {
      assert.match(error.message, /must be created on every shard first/);
      assert.match(error.message, /CREATE TABLE IF NOT EXISTS `loopscope_no_shards`\.`runs_local`/);
      return true;
    });
  });

  it('resumes a load cut short: the visible rows are then those of a whole load, each trace once, with the events’ lines', async () => {
    const resumed = 'loopscope_resume';
    await createShardTables(resumed);
    const stop = new AbortController();
    const cut = exportToClickHouse(
      exportOptions({
        database: resumed,
        content: true,
        batchRows: 50,
        signal: stop.signal,
        log: (line) => {
          if (line.startsWith('loaded ')) stop.abort(new Error('cut short'));
        },
      }),
    );
    await assert.rejects(cut, /cut short/);
    const partial = await physicalCounts(entry, resumed);
    const traces = readdirSync(tracesDir).length;
    assert.ok(partial['traces']! < traces, `the load was cut before its end: ${JSON.stringify(partial)}`);
    const visibleAfterCut = await entry.query<{ trace_id: string }>(sql`SELECT trace_id FROM ${identifier(resumed)}.runs WHERE ${visibleLoads(resumed)}`);
    const rest = await exportToClickHouse(exportOptions({ database: resumed, content: true }));
    assert.equal(rest.tracesLoaded + rest.tracesUnchanged, traces);
    assert.equal(rest.tracesUnchanged, partial['traces']);
    await assertVisibleEqualsLibrary(entry, resumed, true);
    const twice = await entry.query<{ trace_id: string }>(sql`SELECT trace_id FROM ${identifier(resumed)}.traces GROUP BY trace_id HAVING count() > 1`);
    assert.deepEqual(twice, [], 'each trace marked loaded once');
    assert.ok(visibleAfterCut.length <= (await visibleRows(entry, resumed, 'runs')).length);
  });
});

describe('loading the library into one server', () => {
  it('creates the tables, and the visible rows are the library’s', async () => {
    const single = new ClickHouseClient({ url: cluster.servers[1]!.httpUrl });
    const db = 'loopscope_single';
    const summary = await exportToClickHouse(exportOptions({ client: single, database: db, content: true, cluster: false }));
    assert.equal(summary.tracesLoaded, readdirSync(tracesDir).length);
    const [engine] = await single.query<{ engine: string }>(sql`SELECT engine FROM system.tables WHERE database = ${db} AND name = 'runs'`);
    assert.equal(engine?.engine, 'MergeTree');
    await assertVisibleEqualsLibrary(single, db, true);
    const before = await physicalCounts(single, db);
    await exportToClickHouse(exportOptions({ client: single, database: db, content: true, cluster: false }));
    assert.deepEqual(await physicalCounts(single, db), before);
  });
});
