/**
 * Loading the library into ClickHouse (docs/clickhouse.md): `exportToClickHouse` indexes trace
 * files into the local library, as `serve DIR` does, makes sure the tables are there, and copies
 * the library over with `loadLibraryDatabase`.
 *
 * A trace is copied whole under a load id of its own: its runs, findings and calls from the
 * library database, its steps and events from its own trace database, then, last, its row in
 * `traces`, which is what makes the load visible (clickhouseSchema.ts, `visibleLoads`). A trace
 * whose fingerprint (its file's size and modification time, a digest of its library rows, and how
 * it is loaded) equals that of its newest `traces` row is not loaded again, so a second load of the
 * same library writes nothing, and a load cut short is resumed by loading again.
 */
import { createHash, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import type { AnalysisOptions } from '../../shared/report';
import type { UserPrices } from '../../shared/cost/userPrices';
import type { LibraryStatus } from '../../shared/library/libraryApi';
import { libraryDbPath, openLibraryForWriting } from '../api/library/libraryDatabase';
import { LibraryIndexer } from '../api/library/libraryIndexer';
import { ClickHouseError, identifier, sql, type ClickHouseClient } from './clickhouseClient';
import { clickHouseTables, distributedSchema, shardSchema, singleServerSchema, type ClickHouseTableName } from './clickhouseSchema';
import { readLibraryTrace, traceEventRows, type LibraryTraceFile } from './clickhouseLoadRows';

/** Rows per INSERT unless told otherwise: large enough that ClickHouse makes few parts, small enough to stream. */
export const defaultBatchRows = 20_000;

/** Traces looked up in ClickHouse at once (their newest fingerprints). */
const TRACES_PER_LOOKUP = 500;

export interface ClickHouseLoadSummary {
  /** Traces loaded (new, or changed since their last load). */
  tracesLoaded: number;
  /** Traces whose newest load is already what the library holds: not loaded again. */
  tracesUnchanged: number;
  /** Traces that could not be read (their trace database is gone, or their file changed since it was indexed): left as they were. */
  tracesFailed: number;
  /** Rows inserted, per table. */
  rows: Record<ClickHouseTableName, number>;
  seconds: number;
}

export interface ClickHouseLoadTarget {
  client: ClickHouseClient;
  database: string;
  /** Load each event's original line too (events.content). */
  content: boolean;
  /** The user prices the library was priced with: each step's cost is priced the same way. */
  userPrices?: UserPrices;
  /** Rows per INSERT (default `defaultBatchRows`). */
  batchRows?: number;
  log?: (line: string) => void;
  /** Aborted: the load stops before its next INSERT, rejecting with the signal's reason; what it wrote of unfinished traces stays invisible. */
  signal?: AbortSignal;
}

export interface ClickHouseLoadOptions {
  /** Trace files and directories, as `analyze`/`serve` take them. */
  inputs: readonly string[];
  client: ClickHouseClient;
  database: string;
  /** The cluster the Distributed tables span (their local tables must exist on each shard); absent: one server, MergeTree tables created when missing. */
  cluster?: string;
  /** Load each event's original line too (events.content). */
  content: boolean;
  cacheDir: string;
  analysis: AnalysisOptions;
  userPrices?: UserPrices;
  /** Rows per INSERT (default `defaultBatchRows`). */
  batchRows?: number;
  log: (line: string) => void;
  signal?: AbortSignal;
}

const count = (value: number): string => value.toLocaleString('en-US');

/** The statements that create the local tables of `database` on a shard, as one script (`clickhouse-client --multiquery < script`). */
export function shardSchemaScript(database: string): string {
  return shardSchema(database)
    .map((statement) => `${statement.text};\n`)
    .join('');
}

/** Creates the tables: on one server the MergeTree tables; on a cluster the Distributed tables on the entry, over shards whose local tables must exist. */
export async function ensureClickHouseSchema(client: ClickHouseClient, database: string, cluster: string | undefined): Promise<void> {
  if (cluster === undefined) {
    for (const statement of singleServerSchema(database)) await client.execute(statement);
    return;
  }
  const present = new Set((await client.query<{ name: string }>(sql`SELECT name FROM system.tables WHERE database = ${database}`)).map((table) => table.name));
  const missing = clickHouseTables.map((table) => `${table.name}_local`).filter((name) => !present.has(name));
  if (missing.length > 0) {
    throw new ClickHouseError(
      `${client.address} has no ${missing.join(', ')} in database ${database}: on a cluster, the local tables must be created on every shard first ` +
        `(the entry is a shard too). Run these statements on each shard, e.g. with clickhouse-client --multiquery:\n${shardSchemaScript(database)}`,
    );
  }
  for (const statement of distributedSchema(database, cluster)) await client.execute(statement);
}

/** Indexes the inputs into their library (the one `serve` would use for them), ensures the tables, and loads the library. */
export async function exportToClickHouse(options: ClickHouseLoadOptions): Promise<ClickHouseLoadSummary> {
  const roots = options.inputs.map((input) => resolve(input));
  const libraryDb = openLibraryForWriting(libraryDbPath(options.cacheDir, roots));
  try {
    await indexLibrary(libraryDb, roots, options);
    options.signal?.throwIfAborted();
    await ensureClickHouseSchema(options.client, options.database, options.cluster);
    return await loadLibraryDatabase(libraryDb, {
      client: options.client,
      database: options.database,
      content: options.content,
      ...(options.userPrices !== undefined ? { userPrices: options.userPrices } : {}),
      ...(options.batchRows !== undefined ? { batchRows: options.batchRows } : {}),
      log: options.log,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
  } finally {
    libraryDb.close();
  }
}

/** One look at the roots by the library's own indexer, on this thread: every new or changed file indexed, every deleted one removed. */
async function indexLibrary(libraryDb: Database.Database, roots: readonly string[], options: ClickHouseLoadOptions): Promise<void> {
  let lastLogged = 0;
  const latest: { status: LibraryStatus | null } = { status: null };
  const indexer = new LibraryIndexer(libraryDb, {
    roots,
    cacheDir: options.cacheDir,
    analysis: options.analysis,
    userPrices: options.userPrices ?? null,
    rescanMs: null,
    concurrency: 2,
    // An export reads each file as it is now, as `analyze` does: a file being written is not followed.
    followIdleMs: null,
    onStatus: (status) => {
      latest.status = status;
      if (status.state !== 'indexing' || status.files === 0 || Date.now() - lastLogged < 1000) return;
      lastLogged = Date.now();
      options.log(`indexing: ${count(status.indexed)} of ${count(status.files)} files`);
    },
  });
  const stop = (): void => void indexer.stop();
  options.signal?.addEventListener('abort', stop);
  try {
    await indexer.start();
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
  const { status } = latest;
  if (status === null) return;
  options.log(`indexed ${count(status.files)} files (${count(status.skipped)} not traces, ${count(status.failed)} failed)`);
  for (const failure of status.failures) options.log(`not indexed: ${failure.path}: ${failure.reason}`);
}

/** The newest load of each trace ClickHouse holds, of the traces asked about. */
async function newestLoads(
  client: ClickHouseClient,
  database: string,
  traceIds: readonly string[],
): Promise<Map<string, { fingerprint: string; loadedAtMs: number }>> {
  // Aliases unlike the columns: 18.16 would read `loaded_at_ms` inside argMax as the alias of max(…).
  const rows = await client.query<{ trace_id: string; newest_fingerprint: string; newest_loaded_at_ms: number }>(
    sql`SELECT trace_id, argMax(fingerprint, loaded_at_ms) AS newest_fingerprint, max(loaded_at_ms) AS newest_loaded_at_ms
        FROM ${identifier(database)}.traces WHERE has(${traceIds}, trace_id) GROUP BY trace_id`,
  );
  return new Map(rows.map((row) => [row.trace_id, { fingerprint: row.newest_fingerprint, loadedAtMs: row.newest_loaded_at_ms }]));
}

/**
 * Rows waiting for their INSERT, per table, with the `traces` rows of the traces all of whose rows
 * are in them (or already inserted): inserted after the rest, so a trace is marked loaded only once
 * every row of it is in.
 */
class LoadBatches {
  private readonly pending = new Map<ClickHouseTableName, object[]>(clickHouseTables.map((table) => [table.name, []]));
  private buffered = 0;
  private flushes = 0;
  readonly inserted = Object.fromEntries(clickHouseTables.map((table) => [table.name, 0])) as Record<ClickHouseTableName, number>;
  tracesMarked = 0;

  constructor(
    private readonly target: ClickHouseLoadTarget,
    private readonly batchRows: number,
    private readonly onFlush: () => void,
  ) {}

  /** Adds a row; inserts everything waiting once a batch is full. */
  async add(table: ClickHouseTableName, row: object): Promise<void> {
    this.pending.get(table)!.push(row);
    this.buffered += 1;
    if (this.buffered >= this.batchRows) await this.flush();
  }

  /** Where each table's rows end now: what `takeBack` returns to. */
  mark(): { flushes: number; lengths: Map<ClickHouseTableName, number> } {
    return { flushes: this.flushes, lengths: new Map([...this.pending].map(([table, rows]) => [table, rows.length])) };
  }

  /**
   * Drops the rows waiting that were added since `mark` (a trace that could not be read to its
   * end). Those inserted already stay, unseen: no `traces` row will point at them.
   */
  takeBack(marked: { flushes: number; lengths: Map<ClickHouseTableName, number> }): void {
    for (const [table, rows] of this.pending) {
      // After an INSERT, every row waiting was added since the mark.
      const keep = marked.flushes === this.flushes ? (marked.lengths.get(table) ?? 0) : 0;
      this.buffered -= rows.length - keep;
      rows.length = keep;
    }
  }

  /** One INSERT of a table's rows, as RowBinary in the table's columns: every value arrives exactly (clickhouseClient.ts). */
  private async insert(table: ClickHouseTableName, rows: readonly object[]): Promise<void> {
    const spec = clickHouseTables.find((candidate) => candidate.name === table)!;
    await this.target.client.insertRowBinary(sql`${identifier(this.target.database)}.${identifier(table)}`, spec.columns, rows);
  }

  async flush(): Promise<void> {
    if (this.buffered === 0) return;
    this.target.signal?.throwIfAborted();
    const traces = this.pending.get('traces')!;
    for (const [table, rows] of this.pending) {
      if (table === 'traces' || rows.length === 0) continue;
      await this.insert(table, rows);
      this.inserted[table] += rows.length;
      rows.length = 0;
    }
    await this.insert('traces', traces);
    this.inserted.traces += traces.length;
    this.tracesMarked += traces.length;
    traces.length = 0;
    this.buffered = 0;
    this.flushes += 1;
    this.onFlush();
  }
}

function fingerprintOf(file: LibraryTraceFile, digest: string, target: ClickHouseLoadTarget): string {
  const how = createHash('sha256')
    .update(JSON.stringify({ digest, content: target.content, userPrices: target.userPrices ?? null }))
    .digest('hex')
    .slice(0, 32);
  return `${file.size}:${file.mtime_ms}:${how}`;
}

/** Copies the local library database's indexed traces into ClickHouse (docs/clickhouse.md); skips traces whose fingerprint is already loaded. */
export async function loadLibraryDatabase(libraryDb: Database.Database, target: ClickHouseLoadTarget): Promise<ClickHouseLoadSummary> {
  const started = Date.now();
  const log = target.log ?? ((): void => undefined);
  const batchRows = Math.max(1, target.batchRows ?? defaultBatchRows);
  const totalTraces = libraryDb.prepare<[], number>("SELECT count(*) FROM files WHERE state = 'indexed'").pluck().get() ?? 0;
  let unchanged = 0;
  let failed = 0;
  const rowsInserted = (): number => Object.values(batches.inserted).reduce((sum, rows) => sum + rows, 0);
  const batches: LoadBatches = new LoadBatches(target, batchRows, () => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    log(
      `loaded ${count(batches.tracesMarked + unchanged)} of ${count(totalTraces)} traces (${count(unchanged)} unchanged), ` +
        `${count(rowsInserted())} rows, ${count(Math.round(rowsInserted() / seconds))} rows/s`,
    );
  });
  const page = libraryDb.prepare<[number, number], LibraryTraceFile>(
    `SELECT id, path, trace_id, size, mtime_ms, format, db_path FROM files WHERE state = 'indexed' AND id > ? ORDER BY id LIMIT ?`,
  );
  for (let afterId = 0; ;) {
    const files = page.all(afterId, TRACES_PER_LOOKUP);
    if (files.length === 0) break;
    afterId = files.at(-1)!.id;
    target.signal?.throwIfAborted();
    const loaded = await newestLoads(
      target.client,
      target.database,
      files.map((file) => file.trace_id),
    );
    for (const file of files) {
      const trace = readLibraryTrace(libraryDb, file);
      const fingerprint = fingerprintOf(file, trace.digest, target);
      const newest = loaded.get(file.trace_id);
      if (newest?.fingerprint === fingerprint) {
        unchanged += 1;
        continue;
      }
      const loadId = randomUUID();
      // Strictly after the trace's newest load, so the newest is never a tie, whatever the clock says.
      const loadedAtMs = Math.max(Date.now(), (newest?.loadedAtMs ?? 0) + 1);
      const identity = { trace_id: file.trace_id, load_id: loadId };
      const marked = batches.mark();
      try {
        for (const run of trace.runs) await batches.add('runs', { ...identity, ...run });
        for (const finding of trace.findings) await batches.add('findings', { ...identity, ...finding });
        for (const call of trace.calls) await batches.add('calls', { ...identity, ...call });
        const runPks = trace.runs.map((run) => run.run_pk);
        for (const { table, row } of traceEventRows(file, runPks, { content: target.content, userPrices: target.userPrices }))
          await batches.add(table, { ...identity, ...row });
      } catch (error) {
        if (error instanceof ClickHouseError || target.signal?.aborted === true) throw error;
        batches.takeBack(marked);
        failed += 1;
        log(`not loaded: ${file.path}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      await batches.add('traces', {
        ...identity,
        path: file.path,
        format: file.format ?? 'unknown',
        size: file.size,
        mtime_ms: file.mtime_ms,
        fingerprint,
        runs: trace.runs.length,
        loaded_at: Math.floor(loadedAtMs / 1000),
        loaded_at_ms: loadedAtMs,
      });
    }
  }
  await batches.flush();
  const summary: ClickHouseLoadSummary = {
    tracesLoaded: batches.tracesMarked,
    tracesUnchanged: unchanged,
    tracesFailed: failed,
    rows: { ...batches.inserted },
    seconds: (Date.now() - started) / 1000,
  };
  log(
    `done: ${count(summary.tracesLoaded)} traces loaded, ${count(unchanged)} unchanged${failed > 0 ? `, ${count(failed)} not loaded` : ''}, ` +
      `${count(rowsInserted())} rows in ${summary.seconds.toFixed(1)} s`,
  );
  return summary;
}
