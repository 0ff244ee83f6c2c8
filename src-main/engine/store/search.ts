/**
 * The full-text search index read back (ingest/searchText.ts writes the text, `TraceStore` the
 * index): the events that match a query, in trace order, and what a hit shows.
 */
import type Database from 'better-sqlite3';

export interface SearchHitSqlRow {
  eventId: number;
  runPk: number;
  runId: string;
  line: number;
  type: string;
  step: number | null;
  name: string | null;
  text: string;
}

/** An event's place in the trace, the order hits are listed in: run, step (none first), line, event. */
const positionColumns = 'e.run_pk, ifnull(e.step, -1), e.line, e.id';

/**
 * The ids of a page of the events matching FTS5 query `match` (in run `runPk`, when given; after
 * event `afterEventId` in trace order, when given), and how many match.
 */
export function searchPage(
  db: Database.Database,
  match: string,
  filter: { runPk: number | null; afterEventId: number | undefined },
  page: { limit: number; offset: number },
): { total: number; eventIds: number[] } {
  const after =
    filter.afterEventId === undefined
      ? null
      : db
          .prepare<[number], { run_pk: number; step: number; line: number; id: number }>(
            'SELECT run_pk, ifnull(step, -1) AS step, line, id FROM events WHERE id = ?',
          )
          .get(filter.afterEventId);
  const position = after === undefined || after === null ? [] : [after.run_pk, after.step, after.line, after.id];
  const matching = `
    FROM search_index JOIN events e ON e.id = search_index.rowid
    WHERE search_index MATCH ? AND (? IS NULL OR e.run_pk = ?)${position.length > 0 ? ` AND (${positionColumns}) > (?, ?, ?, ?)` : ''}`;
  const parameters = [match, filter.runPk, filter.runPk, ...position];
  const total =
    db
      .prepare<unknown[], number>(`SELECT count(*) ${matching}`)
      .pluck()
      .get(...parameters) ?? 0;
  const eventIds = db
    .prepare<unknown[], number>(`SELECT e.id ${matching} ORDER BY ${positionColumns} LIMIT ? OFFSET ?`)
    .pluck()
    .all(...parameters, page.limit, page.offset);
  return { total, eventIds };
}

/** Reads hits by event id: the event, its run, the tool it concerns and its searchable text. */
export function searchHitReader(db: Database.Database): (eventId: number) => SearchHitSqlRow | undefined {
  // The tool it concerns: a call's or result's own name, else the names of the calls a response issued.
  const hit = db.prepare<[number], SearchHitSqlRow>(
    `SELECT e.id AS eventId, e.run_pk AS runPk, r.run_id AS runId, e.line, e.type, e.step,
            coalesce(e.name, (SELECT group_concat(c.name, ', ') FROM tool_calls c WHERE c.run_pk = e.run_pk AND c.event_id = e.id)) AS name, t.text
     FROM events e JOIN runs r ON r.id = e.run_pk JOIN search_text t ON t.event_id = e.id
     WHERE e.id = ?`,
  );
  return (eventId) => hit.get(eventId);
}

/** How many events of each run match FTS5 query `match`, runs in trace order. */
export function searchRunCounts(db: Database.Database, match: string): { runPk: number; matches: number }[] {
  return db
    .prepare<[string], { runPk: number; matches: number }>(
      `SELECT e.run_pk AS runPk, count(*) AS matches FROM search_index JOIN events e ON e.id = search_index.rowid
       WHERE search_index MATCH ? GROUP BY e.run_pk ORDER BY e.run_pk`,
    )
    .all(match);
}

/**
 * Every term of the trace's full-text index, as the index folded it, one at a time (the library's
 * term filter, shared/library/termFilter.ts). Read through a temporary fts5vocab table, which a
 * read-only connection may create: it lives in the connection's temp schema.
 */
export function* searchTerms(db: Database.Database): Generator<string> {
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_terms USING fts5vocab(main, 'search_index', 'row')");
  try {
    yield* db.prepare<[], string>('SELECT term FROM temp.search_terms').pluck().iterate();
  } finally {
    db.exec('DROP TABLE IF EXISTS temp.search_terms');
  }
}
