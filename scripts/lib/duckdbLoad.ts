/**
 * The DuckDB side of the benchmark: `read_json` of a JSONL trace into a table of a DuckDB file,
 * the way a person would load a trace to query it. Run as its own process so its time and memory
 * are measured apart. Prints {rows, seconds} as JSON.
 *
 *   node duckdbLoad.mjs TRACE DBFILE
 */
import { DuckDBInstance } from '@duckdb/node-api';

const [trace, dbFile] = process.argv.slice(2);
if (trace === undefined || dbFile === undefined) throw new Error('usage: duckdbLoad TRACE DBFILE');
const started = performance.now();
const instance = await DuckDBInstance.create(dbFile);
const connection = await instance.connect();
// Records are objects of varying shape; ignore_errors skips the garbage lines a real trace has,
// and the object size limit is raised to the longest line a request log writes.
await connection.run(
  `CREATE TABLE trace AS SELECT * FROM read_json(${sqlString(trace)}, format = 'newline_delimited', ignore_errors = true, maximum_object_size = 268435456)`,
);
const reader = await connection.runAndReadAll('SELECT count(*) AS n FROM trace');
const rows = Number(reader.getRowObjects()[0]?.['n'] ?? 0);
connection.closeSync();
instance.closeSync();
process.stdout.write(JSON.stringify({ rows, seconds: (performance.now() - started) / 1000 }));

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
