/**
 * Writes ingested rows in batched transactions with prepared statements. Row ids are assigned by
 * the ingester, not read back from SQLite, so rows can reference each other without a round trip.
 */
import type Database from 'better-sqlite3';

export interface EventRow {
  id: number;
  source_id: number;
  run_pk: number;
  line: number;
  byte_offset: number;
  byte_length: number;
  type: string;
  type_raw: string;
  step: number | null;
  step_id: string | null;
  ts: string | null;
  call_id: string | null;
  name: string | null;
  outcome: string | null;
  finish_reason: string | null;
  tool_call_count: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  latency_ms: number | null;
  result_ok: number | null;
  error_code: string | null;
  result_hash: string | null;
  progress: number | null;
  summary: string | null;
  payload: string | null;
}

export interface ToolCallRow {
  id: number;
  run_pk: number;
  event_id: number;
  call_index: number;
  call_id: string;
  name: string;
  step: number | null;
  line: number;
  origin: 'response' | 'stream';
  args_hash: string | null;
  args_error: string | null;
  args_summary: string | null;
}

export interface ParseErrorRow {
  source_id: number;
  line: number;
  byte_offset: number;
  byte_length: number;
  message: string;
  excerpt: string;
  loaded: number;
}

export interface RunRow {
  id: number;
  source_id: number;
  run_id: string;
  status: string;
  status_raw: string;
  end_limit: string | null;
  budgets_json: string | null;
  config_json: string | null;
  first_line: number;
  last_line: number;
  started_at: string | null;
  ended_at: string | null;
  steps: number;
  tool_calls: number;
  tool_results: number;
  input_tokens: number | null;
  output_tokens: number | null;
  end_event_id: number | null;
}

/**
 * Rows are bound positionally: binding by name costs a key lookup per column per row, which shows
 * in the ingest profile.
 */
function inserter<Row extends object>(db: Database.Database, table: string, columns: readonly (keyof Row & string)[]): (row: Row) => void {
  const statement = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  return (row) => {
    statement.run(columns.map((column) => row[column]));
  };
}

const eventColumns: readonly (keyof EventRow)[] = [
  'id', 'source_id', 'run_pk', 'line', 'byte_offset', 'byte_length', 'type', 'type_raw', 'step', 'step_id', 'ts',
  'call_id', 'name', 'outcome', 'finish_reason', 'tool_call_count', 'input_tokens', 'output_tokens', 'latency_ms',
  'result_ok', 'error_code', 'result_hash', 'progress', 'summary', 'payload',
];
const toolCallColumns: readonly (keyof ToolCallRow)[] = [
  'id', 'run_pk', 'event_id', 'call_index', 'call_id', 'name', 'step', 'line', 'origin', 'args_hash', 'args_error',
  'args_summary',
];
const parseErrorColumns: readonly (keyof ParseErrorRow)[] = [
  'source_id', 'line', 'byte_offset', 'byte_length', 'message', 'excerpt', 'loaded',
];
const runColumns: readonly (keyof RunRow)[] = [
  'id', 'source_id', 'run_id', 'status', 'status_raw', 'end_limit', 'budgets_json', 'config_json', 'first_line',
  'last_line', 'started_at', 'ended_at', 'steps', 'tool_calls', 'tool_results', 'input_tokens', 'output_tokens',
  'end_event_id',
];

/** Rows per transaction: large enough to amortize the commit, small enough to keep memory flat. */
const BATCH_ROWS = 4000;

export class TraceWriter {
  private readonly insertEvent: (row: EventRow) => void;
  private readonly insertToolCall: (row: ToolCallRow) => void;
  private readonly insertParseError: (row: ParseErrorRow) => void;
  private readonly insertRun: (row: RunRow) => void;
  private readonly updateStreamOutcome: Database.Statement;
  private events: EventRow[] = [];
  private toolCalls: ToolCallRow[] = [];
  private parseErrors: ParseErrorRow[] = [];
  private readonly flushBatch: () => void;

  constructor(private readonly db: Database.Database) {
    this.insertEvent = inserter(db, 'events', eventColumns);
    this.insertToolCall = inserter(db, 'tool_calls', toolCallColumns);
    this.insertParseError = inserter(db, 'parse_errors', parseErrorColumns);
    this.insertRun = inserter(db, 'runs', runColumns);
    this.updateStreamOutcome = db.prepare(
      'UPDATE events SET outcome = ?, finish_reason = ?, tool_call_count = ? WHERE id = ?',
    );
    this.flushBatch = db.transaction(() => {
      for (const row of this.events) this.insertEvent(row);
      for (const row of this.toolCalls) this.insertToolCall(row);
      for (const row of this.parseErrors) this.insertParseError(row);
    });
  }

  addEvent(row: EventRow): void {
    this.events.push(row);
    this.flushIfFull();
  }

  addToolCall(row: ToolCallRow): void {
    this.toolCalls.push(row);
    this.flushIfFull();
  }

  addParseError(row: ParseErrorRow): void {
    this.parseErrors.push(row);
    this.flushIfFull();
  }

  /** Records the outcome of a stream that had no model_response line, on its last fragment. */
  setStreamOutcome(eventId: number, outcome: string, finishReason: string | null, toolCallCount: number): void {
    this.flush();
    this.updateStreamOutcome.run(outcome, finishReason, toolCallCount, eventId);
  }

  writeRuns(rows: readonly RunRow[]): void {
    this.flush();
    this.db.transaction(() => {
      for (const row of rows) this.insertRun(row);
    })();
  }

  flush(): void {
    if (this.events.length + this.toolCalls.length + this.parseErrors.length === 0) return;
    this.flushBatch();
    this.events = [];
    this.toolCalls = [];
    this.parseErrors = [];
  }

  private flushIfFull(): void {
    if (this.events.length + this.toolCalls.length + this.parseErrors.length >= BATCH_ROWS) this.flush();
  }
}
