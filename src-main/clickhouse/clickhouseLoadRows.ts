/**
 * The rows a trace is loaded into ClickHouse as (clickhouseSchema.ts): its runs, findings and calls
 * as the local library holds them (libraryDatabase.ts), and its steps and events read from its own
 * trace database a page at a time, since a trace can hold millions of events.
 */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { responseCost } from '../../shared/cost/runCost';
import type { LibraryRunRecord } from '../api/library/libraryAssembly';
import type { UserPrices } from '../../shared/cost/userPrices';
import { eventCount, eventsBetween, isResponseEvent, openDatabase, RawLineReader, searchHitReader, type EventListSqlRow } from '../engine';

/** Events read from a trace database at once. */
const EVENTS_PER_PAGE = 5000;

/** A file of the library that was indexed. */
export interface LibraryTraceFile {
  id: number;
  path: string;
  trace_id: string;
  size: number;
  mtime_ms: number;
  format: string | null;
  db_path: string | null;
}

/** A run as the library database's `runs` table holds it: its lists as JSON text. */
type LibraryRunSqlRow = Omit<LibraryRunRecord, 'trace_id' | 'trace_path' | 'models' | 'finding_kinds'> & {
  started_day: string | null;
  models: string;
  finding_kinds: string;
};

/** A run's row in ClickHouse: the library's, with its JSON lists as arrays and its trace's path. */
export type RunRow = Omit<LibraryRunSqlRow, 'models' | 'finding_kinds'> & { trace_path: string; models: string[]; finding_kinds: string[] };

export interface FindingRow {
  run_pk: number;
  finding_index: number;
  kind: string;
  severity: string;
  tool: string | null;
  signature_key: string;
  signature_text: string;
  line: number | null;
  message: string;
}

export interface CallRow {
  run_pk: number;
  call_index: number;
  tool: string;
  state: string | null;
  latency_ms: number | null;
}

export interface LibraryTrace {
  runs: RunRow[];
  findings: FindingRow[];
  calls: CallRow[];
  /** A digest of every row above: changes when any value the load would write does. */
  digest: string;
}

/**
 * A trace's runs, findings and calls as the library holds them now, read in one transaction (the
 * library worker may be writing): a trace's rows are few next to its events, so they are held whole.
 */
export function readLibraryTrace(libraryDb: Database.Database, file: LibraryTraceFile): LibraryTrace {
  return libraryDb.transaction(() => {
    const runs = libraryDb
      .prepare<[number], LibraryRunSqlRow>(
        `SELECT run_pk, run_id, file, directory, format, status, models, provider, task, started_at, started_day, duration_ms, steps,
           tool_calls, tool_errors, errors, warnings, infos, finding_kinds, input_tokens, output_tokens, cached_tokens, reasoning_tokens,
           cost_usd, unpriced_responses, wasted_usd, sub_agent_cost_usd, parent_run_id
         FROM runs WHERE file_id = ? ORDER BY id`,
      )
      .all(file.id)
      .map((run): RunRow => ({
        ...run,
        trace_path: file.path,
        models: JSON.parse(run.models) as string[],
        finding_kinds: JSON.parse(run.finding_kinds) as string[],
      }));
    const findings = libraryDb
      .prepare<[number], FindingRow>(
        `SELECT r.run_pk, f.id AS finding_index, f.kind, f.severity, f.tool, f.signature_key, f.signature_text, f.line, f.message
         FROM findings f JOIN runs r ON r.id = f.run_row WHERE r.file_id = ? ORDER BY f.id`,
      )
      .all(file.id);
    const nextIndex = new Map<number, number>();
    const calls = libraryDb
      .prepare<[number], Omit<CallRow, 'call_index'>>(
        'SELECT r.run_pk, c.tool, c.state, c.latency_ms FROM calls c JOIN runs r ON r.id = c.run_row WHERE r.file_id = ? ORDER BY c.run_row, c.rowid',
      )
      .all(file.id)
      .map((call): CallRow => {
        const callIndex = nextIndex.get(call.run_pk) ?? 0;
        nextIndex.set(call.run_pk, callIndex + 1);
        return { run_pk: call.run_pk, call_index: callIndex, tool: call.tool, state: call.state, latency_ms: call.latency_ms };
      });
    const digest = createHash('sha256')
      .update(JSON.stringify([file.path, file.format, runs, findings, calls]))
      .digest('hex');
    return { runs, findings, calls, digest };
  })();
}

export interface StepRow {
  run_pk: number;
  step: number;
  event_seq: number;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  reasoning_tokens: number | null;
  cost_usd: number | null;
  cost_source: 'recorded' | 'price_table' | 'user_prices' | 'unpriced' | 'no_usage';
}

export interface EventRow {
  run_pk: number;
  seq: number;
  type: string;
  source_line: number;
  timestamp: string | null;
  call_id: string | null;
  tool: string | null;
  content: string | null;
  event_id: number;
  step: number | null;
  search_text: string | null;
  search_tokens: string | null;
  search_name: string | null;
}

/**
 * The tokenizer of the trace databases' full-text index (engine/store/schema.ts, `search_index`):
 * each trace database's is checked to be this one before its events are loaded with content.
 */
export const searchTokenizer = 'unicode61 remove_diacritics 2';

/**
 * Texts cut into tokens exactly as the trace databases' full-text index cuts and folds them (case,
 * diacritics): by that index's own tokenizer, SQLite FTS5's, in a table in memory — not by a
 * reading of it in JavaScript, which differs in corners (a Kelvin sign is `k` to it, `ß` stays).
 * An event's tokens, joined, let ClickHouse find a word as the index would (clickhouseLibrary.ts).
 */
export class SearchTokenizer {
  private readonly db = new Database(':memory:');
  private readonly insert: Database.Statement<[number, string]>;
  private readonly instances: Database.Statement<[], { doc: number; term: string }>;

  constructor() {
    this.db.exec(
      `CREATE VIRTUAL TABLE texts USING fts5(text, content = '', tokenize = '${searchTokenizer}');
       CREATE VIRTUAL TABLE temp.instances USING fts5vocab(main, 'texts', 'instance');`,
    );
    this.insert = this.db.prepare('INSERT INTO texts (rowid, text) VALUES (?, ?)');
    this.instances = this.db.prepare('SELECT doc, term FROM temp.instances ORDER BY doc, offset');
  }

  /** Each text's tokens, in text order, folded. */
  tokens(texts: readonly string[]): string[][] {
    const tokens = texts.map((): string[] => []);
    if (texts.length === 0) return tokens;
    this.db.transaction(() => texts.forEach((text, index) => this.insert.run(index + 1, text)))();
    for (const { doc, term } of this.instances.iterate()) tokens[doc - 1]!.push(term);
    this.db.exec("INSERT INTO texts (texts) VALUES ('delete-all')");
    return tokens;
  }

  /** A text's tokens as `events.search_tokens` holds them: each after a space, and a space at the end. */
  static joined(tokens: readonly string[]): string {
    return ` ${tokens.join(' ')} `;
  }

  close(): void {
    this.db.close();
  }
}

/** Throws unless the trace database's full-text index tokenizes as `SearchTokenizer` does. */
function checkSearchTokenizer(db: Database.Database): void {
  const index = db.prepare<[], string>("SELECT sql FROM sqlite_master WHERE name = 'search_index'").pluck().get();
  if (index !== undefined && !index.includes(`'${searchTokenizer}'`))
    throw new Error(`its full-text index tokenizes otherwise than with ${searchTokenizer}: ${index}`);
}

const costSources = { recorded: 'recorded', 'price table': 'price_table', 'user prices': 'user_prices' } as const;

/** A response's step: its cost by the project's one rule (shared/cost/runCost.ts), and where the figure came from. */
function stepRow(event: EventListSqlRow, userPrices: UserPrices | undefined): StepRow {
  const cost = responseCost(event, userPrices);
  return {
    run_pk: event.run_pk,
    // A response outside any step has no step number: it counts under step 0, where a run's steps keep what came before its first model call.
    step: event.step ?? 0,
    event_seq: event.run_index,
    model: event.model,
    input_tokens: event.input_tokens,
    output_tokens: event.output_tokens,
    cached_tokens: event.cached_input_tokens,
    reasoning_tokens: event.reasoning_tokens,
    cost_usd: cost !== null && 'usd' in cost ? cost.usd : null,
    cost_source: cost === null ? 'no_usage' : 'unpriced' in cost ? 'unpriced' : costSources[cost.source],
  };
}

/**
 * Every event of the runs `runPks` of the trace's database, in run order then file order, as an
 * events row and, for a response, a steps row too; `content`: with the event's original line, and
 * its search text, tokens and hit name as its full-text index has them. Read a page at a time; the
 * database and files are closed when the iteration ends, however it ends.
 */
export function* traceEventRows(
  file: LibraryTraceFile,
  runPks: readonly number[],
  options: { content: boolean; userPrices: UserPrices | undefined },
): Generator<{ table: 'steps'; row: StepRow } | { table: 'events'; row: EventRow }> {
  if (runPks.length === 0) return;
  if (file.db_path === null) throw new Error('the library has no trace database for it');
  const db = openDatabase(file.db_path, { readonly: true });
  const readers = new Map<number, RawLineReader | null>();
  const tokenizer = options.content ? new SearchTokenizer() : null;
  try {
    if (options.content) checkSearchTokenizer(db);
    const hit = options.content ? searchHitReader(db) : null;
    const contentOf = (event: EventListSqlRow): string | null => {
      if (!options.content) return null;
      let reader = readers.get(event.source_id);
      if (reader === undefined) {
        // Throws when the file changed since it was ingested: its lines are no longer the ones its events were read from.
        reader = RawLineReader.open(db, event.source_id);
        readers.set(event.source_id, reader);
      }
      return reader?.read(event.line, event).bytes.toString('utf8') ?? null;
    };
    for (const runPk of runPks) {
      const events = eventCount(db, runPk, 'run_index');
      for (let from = 0; from < events; from += EVENTS_PER_PAGE) {
        const page = eventsBetween(db, runPk, 'run_index', from, from + EVENTS_PER_PAGE, EVENTS_PER_PAGE);
        const rows = page.map((event): EventRow => {
          // What a search hit shows of the event, read as the local search reads it.
          const searched = hit?.(event.id);
          return {
            run_pk: runPk,
            seq: event.run_index,
            type: event.type,
            source_line: event.line,
            timestamp: event.ts,
            call_id: event.call_id,
            tool: event.name,
            content: contentOf(event),
            event_id: event.id,
            step: event.step,
            search_text: searched?.text ?? null,
            search_tokens: tokenizer === null ? null : '',
            search_name: searched?.name ?? null,
          };
        });
        if (tokenizer !== null) {
          const searchable = rows.filter((row) => row.search_text !== null);
          const tokens = tokenizer.tokens(searchable.map((row) => row.search_text!));
          searchable.forEach((row, index) => (row.search_tokens = SearchTokenizer.joined(tokens[index]!)));
        }
        for (const [index, event] of page.entries()) {
          if (isResponseEvent(event)) yield { table: 'steps', row: stepRow(event, options.userPrices) };
          yield { table: 'events', row: rows[index]! };
        }
      }
    }
  } finally {
    for (const reader of readers.values()) reader?.close();
    tokenizer?.close();
    db.close();
  }
}
