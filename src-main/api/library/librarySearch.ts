/**
 * Search across the library (docs/semantics.md §18): the words the trace view's search takes
 * (api/search.ts), looked up in each indexed trace's own full-text index in turn, hits grouped by
 * trace and run. It stops once `limit` runs have matches, saying the list may be incomplete; a
 * library of thousands of traces is searched without holding a connection to each.
 */
import type Database from 'better-sqlite3';
import type { ApiParsedRequest, ApiResponse } from '../../../shared/api';
import type { LibrarySearchHit } from '../../../shared/library/libraryApi';
import { mayHoldWords } from '../../../shared/library/termFilter';
import { queryWords } from '../../../shared/searchMatches';
import type { RunStatus } from '../../../shared/trace/runStatus';
import { searchRunCounts } from '../../engine';
import { ftsQuery, searchEvents } from '../search';
import { libraryTraces } from './libraryQueries';

/** Matches listed per run; the rest are counted. */
const MATCHES_PER_RUN = 3;

export function librarySearch(
  library: Database.Database,
  withTrace: <T>(dbPath: string, read: (db: Database.Database) => T) => T,
  request: ApiParsedRequest<'librarySearch'>,
): ApiResponse<'librarySearch'> {
  const words = queryWords(request.query);
  if (words.length === 0) return { hits: [], tracesSearched: 0, tracesOpened: 0, complete: true };
  const match = ftsQuery(words);
  const runsOf = library.prepare<[string], { run_pk: number; run_id: string; status: RunStatus }>(
    'SELECT r.run_pk, r.run_id, r.status FROM runs r JOIN files f ON f.id = r.file_id WHERE f.trace_id = ?',
  );
  const hits: LibrarySearchHit[] = [];
  let tracesSearched = 0;
  let tracesOpened = 0;
  for (const trace of libraryTraces(library)) {
    if (hits.length >= request.limit) return { hits, tracesSearched, tracesOpened, complete: false };
    tracesSearched += 1;
    // A trace whose terms rule the words out is not opened: a rare word is looked up in the few that may hold it.
    if (trace.termFilter !== null && !mayHoldWords(trace.termFilter, words)) continue;
    tracesOpened += 1;
    const runs = new Map(runsOf.all(trace.traceId).map((run) => [run.run_pk, run]));
    withTrace(trace.dbPath, (db) => {
      for (const { runPk, matches } of searchRunCounts(db, match)) {
        const run = runs.get(runPk);
        if (run === undefined) continue;
        if (hits.length >= request.limit) return;
        const listed = searchEvents(db, { traceId: trace.traceId, query: request.query, runPk, offset: 0, limit: MATCHES_PER_RUN });
        hits.push({
          traceId: trace.traceId,
          tracePath: trace.path,
          runPk,
          runId: run.run_id,
          status: run.status,
          matches: listed.rows.map((hit) => ({
            eventId: hit.eventId,
            line: hit.line,
            type: hit.type,
            name: hit.name,
            snippet: hit.snippet,
            ranges: hit.matches,
          })),
          moreMatches: Math.max(0, matches - listed.rows.length),
        });
      }
    });
  }
  return { hits, tracesSearched, tracesOpened, complete: true };
}
