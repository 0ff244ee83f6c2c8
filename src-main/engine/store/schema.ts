/**
 * The trace database's schema: one SQLite file per trace file, a cache that can always be rebuilt
 * from the trace. So the schema is one CREATE script and a version stored in `PRAGMA
 * user_version`: a database of any other version is rebuilt, never upgraded in place, since its
 * rows were written by another Loopscope and may lack what this one records.
 *
 * Bulk-load friendliness: the tables written during ingest carry no secondary index the load does
 * not need; those are created by `createQueryIndexes` once the load is done, since inserting into
 * an indexed table costs a B-tree update per index per row.
 */
import type Database from 'better-sqlite3';

/** Raised with every change to `schemaSql`, so caches written before it are rebuilt. */
export const SCHEMA_VERSION = 15;

const schemaSql = `
  CREATE TABLE sources (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    fingerprint TEXT NOT NULL,
    format TEXT NOT NULL,
    format_reason TEXT NOT NULL,
    bytes INTEGER NOT NULL DEFAULT 0,
    lines INTEGER NOT NULL DEFAULT 0,
    blank_lines INTEGER NOT NULL DEFAULT 0,
    events INTEGER NOT NULL DEFAULT 0,
    unknown_events INTEGER NOT NULL DEFAULT 0,
    parse_errors INTEGER NOT NULL DEFAULT 0,
    ingest_started_at TEXT NOT NULL,
    ingest_completed_at TEXT,
    -- A file opened with another as part of it (a Claude Code session's sub-agent transcripts).
    parent_source_id INTEGER REFERENCES sources(id),
    -- Whether the source's ingest built the search index (the app's does, the CLI's does not).
    search_indexed INTEGER NOT NULL DEFAULT 0,
    -- Whether the requests of the source's runs were compared (derive/requestAnalysis.ts).
    requests_analyzed INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES sources(id),
    run_id TEXT NOT NULL,
    status TEXT NOT NULL,
    status_raw TEXT NOT NULL,
    end_limit TEXT,
    budgets_json TEXT,
    config_json TEXT,
    first_line INTEGER NOT NULL,
    last_line INTEGER NOT NULL,
    started_at TEXT,
    ended_at TEXT,
    steps INTEGER NOT NULL DEFAULT 0,
    tool_calls INTEGER NOT NULL DEFAULT 0,
    tool_results INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER,
    output_tokens INTEGER,
    start_event_id INTEGER,
    end_event_id INTEGER,
    -- The model response whose text the run's terminal output repeats (docs/semantics.md §1): what
    -- the run says it ended on, so an incomplete answer accepted as success can be told apart
    -- from one the loop recovered from.
    output_event_id INTEGER,
    UNIQUE (source_id, run_id)
  );
  CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL,
    run_pk INTEGER NOT NULL,
    line INTEGER NOT NULL,
    byte_offset INTEGER NOT NULL,
    byte_length INTEGER NOT NULL,
    type TEXT NOT NULL,
    type_raw TEXT NOT NULL,
    step INTEGER,
    step_id TEXT,
    ts TEXT,
    call_id TEXT,
    name TEXT,
    outcome TEXT,
    finish_reason TEXT,
    tool_call_count INTEGER,
    input_tokens INTEGER,
    output_tokens INTEGER,
    cost_usd REAL,
    latency_ms REAL,
    result_ok INTEGER,
    error_code TEXT,
    result_hash TEXT,
    progress INTEGER,
    summary TEXT,
    -- The run a tool result says its call started (a sub-agent), linking that run to the call.
    child_run_id TEXT,
    -- Of a response's input tokens, those the provider read from its prompt cache.
    cached_input_tokens INTEGER,
    -- Characters of what the event adds to the conversation (text, call arguments, output): sizes
    -- the messages of a request reconstructed from events (derive/requestHistory.ts).
    content_chars INTEGER,
    -- An event's position in its run's list (0, 1, 2, … in file order): the key a run's events
    -- are paged by, so any page of a million-event run is one index seek, not an OFFSET walk.
    run_index INTEGER,
    -- The provider error a model_response carries (docs/semantics.md §7), as JSON
    -- {status, type, message}; null for a response the provider gave.
    api_error TEXT,
    -- Why a model response is incomplete, as the loop or its adapter logged it (incomplete_reason).
    incomplete_reason TEXT,
    -- Of a failed tool result: the line of its error output that says why (shared/trace/errorLine.ts),
    -- for the tool_error finding, the Calls table and the result chip.
    error_line TEXT,
    -- An event's position among its run's events that are not bookkeeping (progress ticks,
    -- snapshots, span markers: shared/trace/bookkeeping.ts), null for bookkeeping: the key the
    -- timeline pages by when it folds bookkeeping away, one index seek per page as run_index is.
    visible_index INTEGER,
    -- How many spans the event is inside (0 outside all, and in runs without spans), for the
    -- timeline's indentation.
    span_depth INTEGER NOT NULL DEFAULT 0,
    -- The model a response names, as the provider wrote it; null when the trace names none.
    model TEXT,
    -- Who served a response (openai, anthropic, …), as the trace or its format says; null when unknown.
    provider TEXT,
    -- Of a response's input tokens, those written to the provider's prompt cache.
    cache_write_tokens INTEGER,
    -- Of a response's output tokens, those spent on reasoning.
    reasoning_tokens INTEGER
  );
  CREATE TABLE tool_calls (
    id INTEGER PRIMARY KEY,
    run_pk INTEGER NOT NULL,
    event_id INTEGER NOT NULL,
    call_index INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    name TEXT NOT NULL,
    step INTEGER,
    line INTEGER NOT NULL,
    origin TEXT NOT NULL,
    args_hash TEXT,
    args_error TEXT,
    args_summary TEXT
  );
  -- How each call was answered (ok, error, dangling, unexecuted, pending, not_issued).
  CREATE TABLE call_states (
    event_id INTEGER NOT NULL,
    call_index INTEGER NOT NULL,
    run_pk INTEGER NOT NULL,
    state TEXT NOT NULL,
    answer_event_id INTEGER,
    PRIMARY KEY (event_id, call_index)
  ) WITHOUT ROWID;
  -- Each call with how it was answered: the correlation the analysis made.
  CREATE VIEW calls AS
    SELECT tc.id, tc.run_pk, tc.event_id, tc.call_index, tc.call_id, tc.name, tc.step, tc.line, tc.origin,
           tc.args_hash, tc.args_error, tc.args_summary, cs.state, cs.answer_event_id
    FROM tool_calls tc LEFT JOIN call_states cs ON cs.event_id = tc.event_id AND cs.call_index = tc.call_index;
  -- One row per step (model call) of a run; step 0 holds what came before the first model call.
  CREATE TABLE steps (
    run_pk INTEGER NOT NULL,
    step INTEGER NOT NULL,
    first_line INTEGER NOT NULL,
    last_line INTEGER NOT NULL,
    started_at TEXT,
    ended_at TEXT,
    events INTEGER NOT NULL,
    -- The step's model response (a model_response, or the fragment that closed a stream).
    response_event_id INTEGER,
    PRIMARY KEY (run_pk, step)
  ) WITHOUT ROWID;
  -- Lines an adapter folded into an event anchored elsewhere (a split record, a repeated
  -- counter): kept so every line of the file stays retrievable.
  CREATE TABLE absorbed_lines (
    source_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    byte_offset INTEGER NOT NULL,
    byte_length INTEGER NOT NULL
  );
  CREATE TABLE parse_errors (
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    byte_offset INTEGER NOT NULL,
    byte_length INTEGER NOT NULL,
    message TEXT NOT NULL,
    excerpt TEXT NOT NULL,
    loaded INTEGER NOT NULL
  );
  CREATE TABLE analyses (
    source_id INTEGER NOT NULL,
    options_key TEXT NOT NULL,
    completed_at TEXT NOT NULL,
    PRIMARY KEY (source_id, options_key)
  );
  CREATE TABLE findings (
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL,
    options_key TEXT NOT NULL,
    -- Null for a finding that belongs to no run (a secret_in_trace on a line that is no event).
    run_pk INTEGER,
    kind TEXT NOT NULL,
    severity TEXT NOT NULL,
    step INTEGER,
    call_id TEXT,
    line INTEGER,
    message TEXT NOT NULL,
    details_json TEXT
  );
  CREATE INDEX findings_by_run ON findings (run_pk, options_key);
  -- The searchable text of an event (see ingest/searchText.ts), kept apart from events so the
  -- rows analysis scans stay small.
  CREATE TABLE search_text (
    event_id INTEGER PRIMARY KEY,
    text TEXT NOT NULL
  );
  -- Full-text index over search_text, rowid = events.id. External content: the index holds only
  -- tokens and positions, the text is stored once (in search_text), which snippet() reads.
  CREATE VIRTUAL TABLE search_index USING fts5(
    text,
    content = 'search_text',
    content_rowid = 'event_id',
    tokenize = 'unicode61 remove_diacritics 2'
  );
  -- One row per model request of a run, against the one before it (docs/semantics.md §9).
  CREATE TABLE requests (
    run_pk INTEGER NOT NULL,
    request_index INTEGER NOT NULL,
    event_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    step INTEGER,
    reconstructed INTEGER NOT NULL,
    messages INTEGER NOT NULL,
    appended_messages INTEGER NOT NULL,
    rewrite_at INTEGER,
    rewrite_kind TEXT,
    input_tokens INTEGER,
    input_tokens_source TEXT,
    cached_input_tokens INTEGER,
    output_tokens INTEGER,
    added_json TEXT NOT NULL,
    findings_json TEXT NOT NULL,
    -- Requests between turns (docs/semantics.md §9): the rewrite's message as a user counts it
    -- (1-based, every message as logged), a change of the system prompt or tools, a compaction.
    rewrite_number INTEGER,
    prefix_change_json TEXT,
    compaction_json TEXT,
    PRIMARY KEY (run_pk, request_index)
  ) WITHOUT ROWID;
  -- Credentials found in the trace's lines (ingest/lineSecrets.ts): where and of what kind, never
  -- the value. A line that is not an event (one that is not JSON, say) has no event nor run.
  CREATE TABLE secrets (
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    byte_offset INTEGER NOT NULL,
    line_offset INTEGER NOT NULL,
    byte_length INTEGER NOT NULL,
    kind TEXT NOT NULL,
    -- What views show instead of it (secretMask: the kind and its public prefix, sk-ant-…).
    preview TEXT NOT NULL,
    event_id INTEGER,
    run_pk INTEGER,
    step INTEGER,
    -- How sure the scanner is that a found credential is live (docs/semantics.md §14): 'high'
    -- gives an error, 'low' (a placeholder-like header value, a failed checksum) a warning.
    confidence TEXT NOT NULL DEFAULT 'high'
  );
  -- The span tree of runs whose format marks spans (Inspect's span_begin/span_end:
  -- shared/trace/spanTree.ts), one row per span, keyed by its begin event (the header row):
  -- collapsing it hides the events after that one up to last_index (run_index), 'events' of them,
  -- 'visible_events' while bookkeeping is folded; both are contiguous ranges, so a page is still
  -- one seek.
  CREATE TABLE spans (
    begin_event_id INTEGER PRIMARY KEY,
    run_pk INTEGER NOT NULL,
    depth INTEGER NOT NULL,
    name TEXT,
    type TEXT,
    last_index INTEGER NOT NULL,
    events INTEGER NOT NULL,
    visible_events INTEGER NOT NULL,
    started_at TEXT,
    ended_at TEXT
  );
`;

/** The schema version a database was created with (0 for one created by no Loopscope schema). */
export function storedSchemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Creates the current schema in an empty database and stamps its version. */
export function createSchema(db: Database.Database): void {
  db.transaction(() => {
    db.exec(schemaSql);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  })();
}

/** Indexes for the queries of analysis and the UI; created after the bulk load. */
export function createQueryIndexes(db: Database.Database): void {
  db.exec(`
    CREATE INDEX IF NOT EXISTS events_by_run ON events (run_pk, id);
    CREATE INDEX IF NOT EXISTS events_by_run_position ON events (run_pk, run_index);
    CREATE INDEX IF NOT EXISTS events_by_run_visible_position ON events (run_pk, visible_index) WHERE visible_index IS NOT NULL;
    CREATE INDEX IF NOT EXISTS events_by_line ON events (source_id, line);
    CREATE INDEX IF NOT EXISTS tool_calls_by_run ON tool_calls (run_pk, event_id, call_index);
    CREATE INDEX IF NOT EXISTS tool_calls_by_call_id ON tool_calls (run_pk, call_id);
    CREATE INDEX IF NOT EXISTS requests_by_line ON requests (run_pk, line);
    CREATE INDEX IF NOT EXISTS parse_errors_by_source ON parse_errors (source_id, line);
    CREATE INDEX IF NOT EXISTS absorbed_lines_by_source ON absorbed_lines (source_id, line);
    CREATE INDEX IF NOT EXISTS events_by_child_run ON events (child_run_id) WHERE child_run_id IS NOT NULL;
  `);
}
