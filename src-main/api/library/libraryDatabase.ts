/**
 * The library database (docs/semantics.md §18): one per set of roots, beside the traces' caches,
 * holding a row per indexed trace file, per run, per finding and per call. It is a summary, never
 * the only copy of anything: each trace's own database (and its file) stays the source, so a
 * library of another schema version is simply rebuilt.
 *
 * One thread writes it (the library worker); the query worker reads it at the same time, which
 * write-ahead logging allows without either waiting for the other.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';

export const LIBRARY_SCHEMA_VERSION = 4;

const schema = `
  -- generation: raised by every change of the library's rows; aggregates: the unfiltered start
  -- page's aggregates as JSON with the generation they were computed at (libraryQueries.ts).
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  INSERT INTO meta (key, value) VALUES ('generation', '0');
  -- One row per trace file found under the roots (its companions are part of it).
  CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    trace_id TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    -- indexed | skipped (no format recognises it) | failed (error says why)
    state TEXT NOT NULL,
    error TEXT,
    format TEXT,
    -- Where the trace's own database is, and its sources: what a search across the library reads.
    db_path TEXT,
    source_ids TEXT,
    -- Its search terms as a Bloom filter (shared/library/termFilter.ts): a search skips the traces it rules out. NULL: always searched.
    term_filter BLOB,
    indexed_at TEXT NOT NULL
  );
  CREATE INDEX files_trace ON files(trace_id);
  CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    run_pk INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    file TEXT NOT NULL,
    directory TEXT NOT NULL,
    format TEXT NOT NULL,
    status TEXT NOT NULL,
    -- JSON array, in order of first use; run_models has one row per model, for filtering.
    models TEXT NOT NULL,
    provider TEXT,
    task TEXT,
    started_at TEXT,
    -- The UTC day it started (YYYY-MM-DD): what the date filter and the over-time chart read.
    started_day TEXT,
    duration_ms REAL,
    steps INTEGER NOT NULL,
    tool_calls INTEGER NOT NULL,
    tool_errors INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    warnings INTEGER NOT NULL,
    infos INTEGER NOT NULL,
    -- JSON array of the kinds of its findings.
    finding_kinds TEXT NOT NULL,
    input_tokens INTEGER,
    output_tokens INTEGER,
    cached_tokens INTEGER,
    reasoning_tokens INTEGER,
    cost_usd REAL,
    unpriced_responses INTEGER NOT NULL,
    -- Of cost_usd, what went to repeated actions and work after a budget ran out.
    wasted_usd REAL,
    -- What the runs it started cost, down the whole chain.
    sub_agent_cost_usd REAL,
    parent_run_id TEXT
  );
  CREATE INDEX runs_file ON runs(file_id);
  CREATE INDEX runs_started ON runs(started_at);
  CREATE TABLE run_models (run_row INTEGER NOT NULL, model TEXT NOT NULL);
  CREATE INDEX run_models_run ON run_models(run_row);
  CREATE TABLE findings (
    id INTEGER PRIMARY KEY,
    run_row INTEGER NOT NULL,
    kind TEXT NOT NULL,
    severity TEXT NOT NULL,
    tool TEXT,
    signature_key TEXT NOT NULL,
    signature_text TEXT NOT NULL,
    line INTEGER,
    message TEXT NOT NULL
  );
  CREATE INDEX findings_run ON findings(run_row);
  CREATE INDEX findings_signature ON findings(signature_key, run_row);
  CREATE TABLE calls (run_row INTEGER NOT NULL, tool TEXT NOT NULL, state TEXT, latency_ms REAL);
  CREATE INDEX calls_run ON calls(run_row);
`;

/** The library of `roots` keeps its database here: the same roots, in any order, reopen the same library. */
export function libraryDbPath(cacheDir: string, roots: readonly string[]): string {
  const key = createHash('sha256')
    .update(JSON.stringify(roots.map((root) => resolve(root)).toSorted()))
    .digest('hex')
    .slice(0, 16);
  return join(cacheDir, 'libraries', `${key}.sqlite`);
}

/** Opens the library database for writing, creating it (or rebuilding one of another version). */
export function openLibraryForWriting(dbPath: string): Database.Database {
  mkdirSync(dirname(dbPath), { recursive: true });
  let db = new Database(dbPath);
  if ((db.pragma('user_version', { simple: true }) as number) !== LIBRARY_SCHEMA_VERSION) {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
    db = new Database(dbPath);
    db.exec(schema);
    db.pragma(`user_version = ${LIBRARY_SCHEMA_VERSION}`);
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

/** Opens the library database for reading; undefined while the library worker has not created it yet. */
export function openLibraryForReading(dbPath: string): Database.Database | undefined {
  try {
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    if ((db.pragma('user_version', { simple: true }) as number) !== LIBRARY_SCHEMA_VERSION) {
      db.close();
      return undefined;
    }
    return db;
  } catch {
    return undefined;
  }
}
