/**
 * The rows ingest produces and how they reach SQLite. The ingester hands rows to a `RowBatcher`,
 * which encodes them positionally into `RowBatch`es; a `TraceStore` writes each batch in one
 * transaction with prepared statements. The batcher and the store may sit on two threads (the
 * ingest pipeline) or on one (tests): the path is the same.
 *
 * Row ids are assigned by the ingester, not read back from SQLite, so rows can reference each
 * other without a round trip.
 */
import type Database from 'better-sqlite3';

export interface EventSqlRow {
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
  cost_usd: number | null;
  latency_ms: number | null;
  result_ok: number | null;
  error_code: string | null;
  result_hash: string | null;
  progress: number | null;
  summary: string | null;
  child_run_id: string | null;
  cached_input_tokens: number | null;
  content_chars: number | null;
  /** Position in its run's event list (0, 1, 2, … in file order). */
  run_index: number;
  /** A model_response's API error as JSON ApiErrorFacts (docs/semantics.md §7). */
  api_error: string | null;
  /** Of a model response: why it is incomplete, as logged (its `incomplete_reason`). */
  incomplete_reason: string | null;
  /** Of a failed tool result: the line of its error output that says why (shared/trace/errorLine.ts). */
  error_line: string | null;
  /**
   * Position among its run's events that are not bookkeeping (shared/trace/bookkeeping.ts), in
   * the same order as `run_index`; null for a bookkeeping event. The key the timeline pages by when
   * bookkeeping is folded away.
   */
  visible_index: number | null;
  /** How many spans it is inside (shared/trace/spanTree.ts); 0 outside all, and in runs without spans. */
  span_depth: number;
  /** Of a model response: the model it names and who served it, as the trace records them. */
  model: string | null;
  provider: string | null;
  /** Of a model response: the input tokens written to the prompt cache, the output tokens spent on reasoning. */
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
}

/** A span of a run, keyed by its begin event (shared/trace/spanTree.ts); replaced as it grows. */
export interface SpanSqlRow {
  begin_event_id: number;
  run_pk: number;
  depth: number;
  name: string | null;
  type: string | null;
  last_index: number;
  events: number;
  visible_events: number;
  started_at: string | null;
  ended_at: string | null;
}

export interface ToolCallSqlRow {
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

export interface ParseErrorSqlRow {
  source_id: number;
  line: number;
  byte_offset: number;
  byte_length: number;
  message: string;
  excerpt: string;
  loaded: number;
}

export interface AbsorbedLineSqlRow {
  source_id: number;
  line: number;
  byte_offset: number;
  byte_length: number;
}

/** A credential found in a line (ingest/lineSecrets.ts): where, and of what kind — never its value. */
export interface SecretSqlRow {
  source_id: number;
  line: number;
  /** Of its first byte in the file. */
  byte_offset: number;
  /** Of its first byte in the line. */
  line_offset: number;
  byte_length: number;
  kind: string;
  /** `high` or `low` (secretScanner's SecretConfidence): an error or a warning. */
  confidence: string;
  /** What views show instead of it (secretMask). */
  preview: string;
  /** The first event read from the line, and its run and step; null for a line that is not an event. */
  event_id: number | null;
  run_pk: number | null;
  step: number | null;
}

export interface StepSqlRow {
  run_pk: number;
  step: number;
  first_line: number;
  last_line: number;
  started_at: string | null;
  ended_at: string | null;
  events: number;
  response_event_id: number | null;
}

export interface RunSqlRow {
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
  start_event_id: number | null;
  end_event_id: number | null;
  /** The model response whose text the terminal event's output repeats, if any. */
  output_event_id: number | null;
}

export const eventColumns: readonly (keyof EventSqlRow)[] = [
  'id',
  'source_id',
  'run_pk',
  'line',
  'byte_offset',
  'byte_length',
  'type',
  'type_raw',
  'step',
  'step_id',
  'ts',
  'call_id',
  'name',
  'outcome',
  'finish_reason',
  'tool_call_count',
  'input_tokens',
  'output_tokens',
  'cost_usd',
  'latency_ms',
  'result_ok',
  'error_code',
  'result_hash',
  'progress',
  'summary',
  'child_run_id',
  'cached_input_tokens',
  'content_chars',
  'run_index',
  'api_error',
  'incomplete_reason',
  'error_line',
  'visible_index',
  'span_depth',
  'model',
  'provider',
  'cache_write_tokens',
  'reasoning_tokens',
];
const spanColumns: readonly (keyof SpanSqlRow)[] = [
  'begin_event_id',
  'run_pk',
  'depth',
  'name',
  'type',
  'last_index',
  'events',
  'visible_events',
  'started_at',
  'ended_at',
];
export const toolCallColumns: readonly (keyof ToolCallSqlRow)[] = [
  'id',
  'run_pk',
  'event_id',
  'call_index',
  'call_id',
  'name',
  'step',
  'line',
  'origin',
  'args_hash',
  'args_error',
  'args_summary',
];
const absorbedLineColumns: readonly (keyof AbsorbedLineSqlRow)[] = ['source_id', 'line', 'byte_offset', 'byte_length'];
const secretColumns: readonly (keyof SecretSqlRow)[] = [
  'source_id',
  'line',
  'byte_offset',
  'line_offset',
  'byte_length',
  'kind',
  'confidence',
  'preview',
  'event_id',
  'run_pk',
  'step',
];
const stepColumns: readonly (keyof StepSqlRow)[] = ['run_pk', 'step', 'first_line', 'last_line', 'started_at', 'ended_at', 'events', 'response_event_id'];
const parseErrorColumns: readonly (keyof ParseErrorSqlRow)[] = ['source_id', 'line', 'byte_offset', 'byte_length', 'message', 'excerpt', 'loaded'];
export const runColumns: readonly (keyof RunSqlRow)[] = [
  'id',
  'source_id',
  'run_id',
  'status',
  'status_raw',
  'end_limit',
  'budgets_json',
  'config_json',
  'first_line',
  'last_line',
  'started_at',
  'ended_at',
  'steps',
  'tool_calls',
  'tool_results',
  'input_tokens',
  'output_tokens',
  'start_event_id',
  'end_event_id',
  'output_event_id',
];

export interface StreamOutcome {
  eventId: number;
  runPk: number;
  outcome: string;
  finishReason: string | null;
  toolCallCount: number;
}

/** Rows encoded positionally, one array per row in the column order of its table. */
export interface RowBatch {
  events: unknown[][];
  toolCalls: unknown[][];
  parseErrors: unknown[][];
  absorbedLines: unknown[][];
  /** Outcomes of streams without a model_response, set on their last fragment. */
  streamOutcomes: StreamOutcome[];
  runs: unknown[][];
  steps: unknown[][];
  spans: unknown[][];
  secrets: unknown[][];
  /** `[event_id, text]`: the searchable text of events (ingest/searchText.ts), written once per event. */
  searchTexts: unknown[][];
  /** Runs whose rows are complete as of this batch, to analyze once it is written. */
  analyzeRuns: number[];
}

function encode<Row extends object>(row: Row, columns: readonly (keyof Row)[]): unknown[] {
  return columns.map((column) => row[column]);
}

/**
 * The two hot tables are encoded and decoded with their columns spelled out, as literals: reading
 * or writing properties by a variable name is a megamorphic lookup per value (and builds objects
 * in dictionary mode), and ingest encodes every event and the store worker decodes most of them.
 * A test checks that these follow `eventColumns` and `toolCallColumns`.
 */
export function encodeEvent(r: EventSqlRow): unknown[] {
  return [
    r.id,
    r.source_id,
    r.run_pk,
    r.line,
    r.byte_offset,
    r.byte_length,
    r.type,
    r.type_raw,
    r.step,
    r.step_id,
    r.ts,
    r.call_id,
    r.name,
    r.outcome,
    r.finish_reason,
    r.tool_call_count,
    r.input_tokens,
    r.output_tokens,
    r.cost_usd,
    r.latency_ms,
    r.result_ok,
    r.error_code,
    r.result_hash,
    r.progress,
    r.summary,
    r.child_run_id,
    r.cached_input_tokens,
    r.content_chars,
    r.run_index,
    r.api_error,
    r.incomplete_reason,
    r.error_line,
    r.visible_index,
    r.span_depth,
    r.model,
    r.provider,
    r.cache_write_tokens,
    r.reasoning_tokens,
  ];
}

export function encodeToolCall(r: ToolCallSqlRow): unknown[] {
  return [r.id, r.run_pk, r.event_id, r.call_index, r.call_id, r.name, r.step, r.line, r.origin, r.args_hash, r.args_error, r.args_summary];
}

export function decodeEvent(v: readonly unknown[]): EventSqlRow {
  return {
    id: v[0],
    source_id: v[1],
    run_pk: v[2],
    line: v[3],
    byte_offset: v[4],
    byte_length: v[5],
    type: v[6],
    type_raw: v[7],
    step: v[8],
    step_id: v[9],
    ts: v[10],
    call_id: v[11],
    name: v[12],
    outcome: v[13],
    finish_reason: v[14],
    tool_call_count: v[15],
    input_tokens: v[16],
    output_tokens: v[17],
    cost_usd: v[18],
    latency_ms: v[19],
    result_ok: v[20],
    error_code: v[21],
    result_hash: v[22],
    progress: v[23],
    summary: v[24],
    child_run_id: v[25],
    cached_input_tokens: v[26],
    content_chars: v[27],
    run_index: v[28],
    api_error: v[29],
    incomplete_reason: v[30],
    error_line: v[31],
    visible_index: v[32],
    span_depth: v[33],
    model: v[34],
    provider: v[35],
    cache_write_tokens: v[36],
    reasoning_tokens: v[37],
  } as EventSqlRow;
}

export function decodeToolCall(v: readonly unknown[]): ToolCallSqlRow {
  return {
    id: v[0],
    run_pk: v[1],
    event_id: v[2],
    call_index: v[3],
    call_id: v[4],
    name: v[5],
    step: v[6],
    line: v[7],
    origin: v[8],
    args_hash: v[9],
    args_error: v[10],
    args_summary: v[11],
  } as ToolCallSqlRow;
}

export function decodeRow<Row extends object>(values: readonly unknown[], columns: readonly (keyof Row)[]): Row {
  const row: Partial<Record<keyof Row, unknown>> = {};
  columns.forEach((column, index) => {
    row[column] = values[index];
  });
  return row as Row;
}

/** Rows per batch: large enough to amortize a transaction and a thread hop, small enough to keep memory flat. */
const BATCH_ROWS = 4000;
/** Characters of search text per batch: event texts run to 32 Ki characters each, rows do not. */
const BATCH_SEARCH_CHARS = 2 * 1024 * 1024;

export class RowBatcher {
  private batch: RowBatch = RowBatcher.empty();
  private rows = 0;
  private searchChars = 0;

  constructor(private readonly ship: (batch: RowBatch) => void) {}

  private static empty(): RowBatch {
    return {
      events: [],
      toolCalls: [],
      parseErrors: [],
      absorbedLines: [],
      streamOutcomes: [],
      runs: [],
      steps: [],
      spans: [],
      secrets: [],
      searchTexts: [],
      analyzeRuns: [],
    };
  }

  addEvent(row: EventSqlRow): void {
    this.batch.events.push(encodeEvent(row));
    this.counted();
  }

  addToolCall(row: ToolCallSqlRow): void {
    this.batch.toolCalls.push(encodeToolCall(row));
    this.counted();
  }

  addParseError(row: ParseErrorSqlRow): void {
    this.batch.parseErrors.push(encode(row, parseErrorColumns));
    this.counted();
  }

  addAbsorbedLine(row: AbsorbedLineSqlRow): void {
    this.batch.absorbedLines.push(encode(row, absorbedLineColumns));
    this.counted();
  }

  addSecret(row: SecretSqlRow): void {
    this.batch.secrets.push(encode(row, secretColumns));
    this.counted();
  }

  /** The event must already have been added (the store applies inserts before updates). */
  setStreamOutcome(outcome: StreamOutcome): void {
    this.batch.streamOutcomes.push(outcome);
    this.counted();
  }

  /** Writes the run's row, replacing an earlier version of it. */
  addRun(row: RunSqlRow): void {
    this.batch.runs.push(encode(row, runColumns));
    this.counted();
  }

  /** Writes a step's row, replacing an earlier version of it. */
  addStep(row: StepSqlRow): void {
    this.batch.steps.push(encode(row, stepColumns));
    this.counted();
  }

  /** Writes a span's row, replacing an earlier version of it. */
  addSpan(row: SpanSqlRow): void {
    this.batch.spans.push(encode(row, spanColumns));
    this.counted();
  }

  /** The event's searchable text; at most once per event (the search index cannot replace a row). */
  addSearchText(eventId: number, text: string): void {
    this.batch.searchTexts.push([eventId, text]);
    this.searchChars += text.length;
    if (this.searchChars >= BATCH_SEARCH_CHARS) this.flush();
    else this.counted();
  }

  analyzeRun(runPk: number): void {
    this.batch.analyzeRuns.push(runPk);
  }

  flush(): void {
    if (this.rows === 0) return;
    const batch = this.batch;
    this.batch = RowBatcher.empty();
    this.rows = 0;
    this.searchChars = 0;
    this.ship(batch);
  }

  private counted(): void {
    this.rows += 1;
    if (this.rows >= BATCH_ROWS) this.flush();
  }
}

/** Rows per INSERT statement: one native call and one bound array per group instead of per row. */
const ROWS_PER_STATEMENT = 64;

/**
 * Inserts a table's rows, replacing rows with the same id. The full-text index takes a plain
 * INSERT: with external content, its REPLACE would unindex the old row by reading search_text,
 * which by then holds the new text.
 */
function inserter(
  db: Database.Database,
  table: string,
  columns: readonly string[],
  verb: 'INSERT OR REPLACE' | 'INSERT' = 'INSERT OR REPLACE',
): (rows: readonly unknown[][]) => void {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const prefix = `${verb} INTO ${table} (${columns.join(', ')}) VALUES `;
  const one = db.prepare<unknown[]>(prefix + tuple);
  const group = db.prepare<unknown[]>(prefix + Array.from({ length: ROWS_PER_STATEMENT }, () => tuple).join(', '));
  // Bound positionally (by name costs a key lookup per column per row); better-sqlite3 binds the
  // arrays passed to one call in order, so a group of rows needs no copying.
  return (rows) => {
    let index = 0;
    for (; index + ROWS_PER_STATEMENT <= rows.length; index += ROWS_PER_STATEMENT) group.run(...rows.slice(index, index + ROWS_PER_STATEMENT));
    for (; index < rows.length; index += 1) one.run(rows[index]);
  };
}

/** Writes row batches into the trace database, one transaction per batch. Rows carry their ids, so a row written again replaces its earlier version. */
export class TraceStore {
  readonly write: (batch: RowBatch) => void;

  constructor(db: Database.Database) {
    const insertEvents = inserter(db, 'events', eventColumns);
    const insertToolCalls = inserter(db, 'tool_calls', toolCallColumns);
    const insertParseErrors = inserter(db, 'parse_errors', parseErrorColumns);
    const insertAbsorbedLines = inserter(db, 'absorbed_lines', absorbedLineColumns);
    const insertRuns = inserter(db, 'runs', runColumns);
    const insertSteps = inserter(db, 'steps', stepColumns);
    const insertSpans = inserter(db, 'spans', spanColumns);
    const insertSecrets = inserter(db, 'secrets', secretColumns, 'INSERT');
    const insertSearchTexts = inserter(db, 'search_text', ['event_id', 'text']);
    const indexSearchTexts = inserter(db, 'search_index', ['rowid', 'text'], 'INSERT');
    const updateStreamOutcome = db.prepare<[string, string | null, number, number]>(
      'UPDATE events SET outcome = ?, finish_reason = ?, tool_call_count = ? WHERE id = ?',
    );
    this.write = db.transaction((batch: RowBatch) => {
      insertEvents(batch.events);
      insertToolCalls(batch.toolCalls);
      insertParseErrors(batch.parseErrors);
      insertAbsorbedLines(batch.absorbedLines);
      insertRuns(batch.runs);
      insertSteps(batch.steps);
      insertSpans(batch.spans);
      insertSecrets(batch.secrets);
      insertSearchTexts(batch.searchTexts);
      indexSearchTexts(batch.searchTexts);
      for (const stream of batch.streamOutcomes) updateStreamOutcome.run(stream.outcome, stream.finishReason, stream.toolCallCount, stream.eventId);
    });
  }
}
