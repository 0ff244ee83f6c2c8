/**
 * The library's tables in ClickHouse (docs/clickhouse.md): the local library database's rows
 * (libraryDatabase.ts), one row per trace, run, finding and call, and beside them each response
 * (a step: its model, tokens and cost) and each event's metadata, its content optional.
 *
 * Every row carries its trace's id and the load that wrote it (`load_id`). A load writes a trace's
 * rows, then, last, its row in `traces`: readers take each trace's newest row there (the greatest
 * `loaded_at_ms`, which the loader makes strictly increasing per trace, so two loads in one second
 * never tie) and only the rows of that load — `visibleLoads` is that condition, for loaders and
 * readers alike — so a load cut short is never half-seen, a trace loaded again replaces what it
 * said before, and nothing is ever updated or deleted in place (which MergeTree does badly and
 * 18.16's Distributed tables cannot do at all).
 *
 * On one server the tables are MergeTree tables. On a cluster each shard has `<table>_local`
 * (MergeTree) and the entry server a `Distributed` table of the plain name over them, sharded by
 * run, so a run's rows live together; readers and writers only ever name the plain tables.
 */
import { constantSql, identifier, joinSql, sql, type BoundSql, type ColumnSpec } from './clickhouseClient';

interface TableSpec {
  name: 'traces' | 'runs' | 'findings' | 'calls' | 'steps' | 'events';
  columns: readonly ColumnSpec[];
  orderBy: string;
  /** The Distributed table's sharding key: by run (by trace for `traces`). */
  shardBy: string;
}

const identity = [
  ['trace_id', 'String'],
  ['load_id', 'String'],
] as const;
const runIdentity = [...identity, ['run_pk', 'UInt32']] as const;

export const clickHouseTables: readonly TableSpec[] = [
  {
    name: 'traces',
    columns: [
      ...identity,
      ['path', 'String'],
      ['format', 'String'],
      ['size', 'UInt64'],
      ['mtime_ms', 'Float64'],
      // What the trace was when loaded (size, mtime and its runs' content digest): unchanged, it is not loaded again.
      ['fingerprint', 'String'],
      ['runs', 'UInt32'],
      ['loaded_at', 'DateTime'],
      // Which load of a trace is its newest: milliseconds since 1970, strictly increasing per trace (one more than the newest before when the clock has not moved on).
      ['loaded_at_ms', 'UInt64'],
    ],
    orderBy: '(trace_id, loaded_at_ms)',
    shardBy: 'cityHash64(trace_id)',
  },
  {
    name: 'runs',
    columns: [
      ...runIdentity,
      ['run_id', 'String'],
      ['file', 'String'],
      ['trace_path', 'String'],
      ['directory', 'String'],
      ['format', 'String'],
      ['status', 'String'],
      ['models', 'Array(String)'],
      ['provider', 'Nullable(String)'],
      ['task', 'Nullable(String)'],
      ['started_at', 'Nullable(String)'],
      ['started_day', 'Nullable(String)'],
      ['duration_ms', 'Nullable(Float64)'],
      ['steps', 'UInt32'],
      ['tool_calls', 'UInt32'],
      ['tool_errors', 'UInt32'],
      ['errors', 'UInt32'],
      ['warnings', 'UInt32'],
      ['infos', 'UInt32'],
      ['finding_kinds', 'Array(String)'],
      ['input_tokens', 'Nullable(Int64)'],
      ['output_tokens', 'Nullable(Int64)'],
      ['cached_tokens', 'Nullable(Int64)'],
      ['reasoning_tokens', 'Nullable(Int64)'],
      ['cost_usd', 'Nullable(Float64)'],
      ['unpriced_responses', 'UInt32'],
      ['wasted_usd', 'Nullable(Float64)'],
      ['sub_agent_cost_usd', 'Nullable(Float64)'],
      ['parent_run_id', 'Nullable(String)'],
    ],
    orderBy: '(trace_id, load_id, run_pk)',
    shardBy: 'cityHash64(trace_id, run_pk)',
  },
  {
    name: 'findings',
    columns: [
      ...runIdentity,
      // Its order in the library (the local library's row id): which finding is a signature's example.
      ['finding_index', 'UInt64'],
      ['kind', 'String'],
      ['severity', 'String'],
      ['tool', 'Nullable(String)'],
      ['signature_key', 'String'],
      ['signature_text', 'String'],
      ['line', 'Nullable(UInt64)'],
      ['message', 'String'],
    ],
    orderBy: '(trace_id, load_id, run_pk, finding_index)',
    shardBy: 'cityHash64(trace_id, run_pk)',
  },
  {
    name: 'calls',
    columns: [...runIdentity, ['call_index', 'UInt32'], ['tool', 'String'], ['state', 'Nullable(String)'], ['latency_ms', 'Nullable(Float64)']],
    orderBy: '(trace_id, load_id, run_pk, call_index)',
    shardBy: 'cityHash64(trace_id, run_pk)',
  },
  {
    name: 'steps',
    columns: [
      ...runIdentity,
      ['step', 'UInt32'],
      ['event_seq', 'UInt64'],
      ['model', 'Nullable(String)'],
      ['input_tokens', 'Nullable(Int64)'],
      ['output_tokens', 'Nullable(Int64)'],
      ['cached_tokens', 'Nullable(Int64)'],
      ['reasoning_tokens', 'Nullable(Int64)'],
      ['cost_usd', 'Nullable(Float64)'],
      // recorded | price_table | user_prices | unpriced (usage, no price) | no_usage (nothing to price) (shared/cost/runCost.ts)
      ['cost_source', 'String'],
    ],
    orderBy: '(trace_id, load_id, run_pk, step)',
    shardBy: 'cityHash64(trace_id, run_pk)',
  },
  {
    name: 'events',
    columns: [
      ...runIdentity,
      ['seq', 'UInt64'],
      ['type', 'String'],
      ['source_line', 'Nullable(UInt64)'],
      ['timestamp', 'Nullable(String)'],
      ['call_id', 'Nullable(String)'],
      ['tool', 'Nullable(String)'],
      // The original line, only when loaded with content.
      ['content', 'Nullable(String)'],
      // The event's id in its trace's database (what a search hit names) and its step there (hits are listed by step, line and id).
      ['event_id', 'UInt64'],
      ['step', 'Nullable(UInt32)'],
      // Only when loaded with content: the event's text as the trace's full-text index holds it (NULL: none, the event is never a hit) ...
      ['search_text', 'Nullable(String)'],
      // ... its tokens as that index's tokenizer folds them, each after a space and the whole ending with one (' naive cafe '; '' when the
      // event has no text; NULL when loaded without content): a word is found as a substring, as the index would find it.
      ['search_tokens', 'Nullable(String)'],
      // ... and the tool a search hit names: the event's own, else those of the calls it made (engine/store/search.ts).
      ['search_name', 'Nullable(String)'],
    ],
    orderBy: '(trace_id, load_id, run_pk, seq)',
    shardBy: 'cityHash64(trace_id, run_pk)',
  },
];

export type ClickHouseTableName = TableSpec['name'];

/**
 * The rows readers see: those of each trace's newest load (docs/clickhouse.md). A condition for the
 * WHERE of any of the tables (GLOBAL, so on a cluster the newest loads are found once, on the entry).
 */
export function visibleLoads(database: string): BoundSql {
  return sql`(trace_id, load_id) GLOBAL IN (SELECT trace_id, argMax(load_id, loaded_at_ms) FROM ${identifier(database)}.traces GROUP BY trace_id)`;
}

function columnList(table: TableSpec): BoundSql {
  return joinSql(
    table.columns.map(([name, type]) => sql`${identifier(name)} ${typeSql(type)}`),
    ', ',
  );
}

/** Column types are this file's own constants, never input: checked against the shapes used above. */
function typeSql(type: string): BoundSql {
  if (!/^[A-Za-z0-9(), ]+$/.test(type)) throw new Error(`unexpected column type ${type}`);
  return constantSql(type);
}

function mergeTree(table: TableSpec): BoundSql {
  return sql`ENGINE = MergeTree() ORDER BY ${constantSql(table.orderBy)}`;
}

/** The statements that create the tables on one server (no cluster). */
export function singleServerSchema(database: string): BoundSql[] {
  return [
    sql`CREATE DATABASE IF NOT EXISTS ${identifier(database)}`,
    ...clickHouseTables.map(
      (table) => sql`CREATE TABLE IF NOT EXISTS ${identifier(database)}.${identifier(table.name)} (${columnList(table)}) ${mergeTree(table)}`,
    ),
  ];
}

/** The statements to run on every shard of a cluster: the local MergeTree tables. */
export function shardSchema(database: string): BoundSql[] {
  return [
    sql`CREATE DATABASE IF NOT EXISTS ${identifier(database)}`,
    ...clickHouseTables.map(
      (table) => sql`CREATE TABLE IF NOT EXISTS ${identifier(database)}.${identifier(`${table.name}_local`)} (${columnList(table)}) ${mergeTree(table)}`,
    ),
  ];
}

/** The statements to run on the entry server of cluster `cluster`: the Distributed tables over the shards' local tables. */
export function distributedSchema(database: string, cluster: string): BoundSql[] {
  return [
    sql`CREATE DATABASE IF NOT EXISTS ${identifier(database)}`,
    ...clickHouseTables.map(
      (table) =>
        sql`CREATE TABLE IF NOT EXISTS ${identifier(database)}.${identifier(table.name)} (${columnList(table)}) ENGINE = Distributed(${identifier(cluster)}, ${identifier(database)}, ${identifier(`${table.name}_local`)}, ${constantSql(table.shardBy)})`,
    ),
  ];
}
