/**
 * The start page over a library in ClickHouse (docs/clickhouse.md): the local library's queries
 * (api/library/libraryQueries.ts) asked of the tables clickhouseSchema.ts makes, for the same
 * answers — what is computed from the rows is the same code (api/library/libraryAssembly.ts), and
 * each SQL here asks what its SQLite twin asks, in ways 18.16 can: a run's lists are arrays, the
 * nearest-rank percentiles come from a sorted `groupArray`, ties and nulls sort as SQLite sorts them,
 * strings compare bytewise in both.
 *
 * Only visible rows are read (each trace's newest load, `visibleLoads`); the filter is one bound
 * condition on `runs`, and findings and calls are those of the runs it leaves.
 */
import type { ApiParsedRequest, ApiResponse } from '../../shared/api';
import type { LibraryFilter, LibrarySearchHit, LibrarySort, LibraryStatus } from '../../shared/library/libraryApi';
import type { FindingKind } from '../../shared/report';
import { phrasesOf, queryWords } from '../../shared/searchMatches';
import type { RunStatus } from '../../shared/trace/runStatus';
import { assembleAggregates, toLibraryRun, toLibrarySignature, type LibraryRunRecord, type SignatureGroup } from '../api/library/libraryAssembly';
import type { LibraryQueryMethod } from '../api/queryProtocol';
import { snippetOf } from '../api/search';
import { constantSql, identifier, joinSql, sql, type BoundSql, type ClickHouseClient } from './clickhouseClient';
import { SearchTokenizer } from './clickhouseLoadRows';
import { visibleLoads } from './clickhouseSchema';

/** Matches listed per run in a search, as the local library lists them; the rest are counted. */
const MATCHES_PER_RUN = 3;
/** Runs whose first matches are read from ClickHouse at once in a search. */
const SEARCH_RUNS_PER_READ = 50;

const sortColumns: Record<LibrarySort, string> = {
  started: 'started_at',
  file: 'file',
  status: 'status',
  steps: 'steps',
  tool_calls: 'tool_calls',
  findings: '(errors * 1000000 + warnings * 1000 + infos)',
  input_tokens: 'input_tokens',
  output_tokens: 'output_tokens',
  cost: 'cost_usd',
  duration: 'duration_ms',
};

const runColumns = constantSql(
  `trace_id, trace_path, run_pk, run_id, file, directory, format, status, models, provider, task, started_at, duration_ms, steps, tool_calls,
   tool_errors, errors, warnings, infos, finding_kinds, input_tokens, output_tokens, cached_tokens, reasoning_tokens, cost_usd,
   unpriced_responses, wasted_usd, sub_agent_cost_usd, parent_run_id`,
);

export interface ClickHouseLibraryOptions {
  client: ClickHouseClient;
  database: string;
  /** How the page names the library (its one root): the location without its password. */
  name: string;
}

export class ClickHouseLibrary {
  private readonly client: ClickHouseClient;
  private readonly database: string;
  private readonly name: string;
  private lastLoads: string | null = null;
  private revision = 0;

  constructor(options: ClickHouseLibraryOptions) {
    this.client = options.client;
    this.database = options.database;
    this.name = options.name;
  }

  private table(name: 'traces' | 'runs' | 'findings' | 'calls' | 'events'): BoundSql {
    return sql`${identifier(this.database)}.${identifier(name)}`;
  }

  /**
   * The filter as a condition on `runs` (visible rows only); `except` leaves one field out (a facet
   * counts under the others). Each clause is its SQLite twin's (libraryQueries.ts): the text is
   * lowered by `lower`, which like SQLite's lowers ASCII only, and looked for in the models as the
   * JSON text SQLite holds them as.
   */
  private runCondition(filter: LibraryFilter, except?: keyof LibraryFilter): BoundSql {
    const use = <K extends keyof LibraryFilter>(field: K): LibraryFilter[K] | undefined => (field === except ? undefined : filter[field]);
    const clauses: BoundSql[] = [visibleLoads(this.database)];
    const status = use('status');
    if (status !== undefined) clauses.push(sql`status = ${status}`);
    const kind = use('findingKind');
    if (kind !== undefined) clauses.push(sql`has(finding_kinds, ${kind})`);
    const format = use('format');
    if (format !== undefined) clauses.push(sql`format = ${format}`);
    const model = use('model');
    if (model !== undefined) clauses.push(sql`has(models, ${model})`);
    const directory = use('directory');
    if (directory !== undefined) {
      // The directory itself and any under it: a prefix compare, so no character of a path is special.
      const withSlash = directory.endsWith('/') ? directory : `${directory}/`;
      clauses.push(sql`(directory = ${directory.replace(/\/+$/, '') || '/'} OR startsWith(concat(directory, '/'), ${withSlash}))`);
    }
    const from = use('from');
    if (from !== undefined) clauses.push(sql`started_day >= ${from}`);
    const to = use('to');
    if (to !== undefined) clauses.push(sql`started_day <= ${to}`);
    const text = use('text');
    if (text !== undefined) {
      const lowered = text.toLowerCase();
      // JSON.stringify's text of the list (model names with control characters aside): `["a","b"]`.
      const modelsJson = sql`concat('[', arrayStringConcat(arrayMap(m -> concat('"', replaceAll(replaceAll(m, ${'\\'}, ${'\\\\'}), '"', ${'\\"'}), '"'), models), ','), ']')`;
      clauses.push(
        sql`(position(lower(run_id), ${lowered}) > 0 OR position(lower(file), ${lowered}) > 0 OR position(lower(ifNull(task, '')), ${lowered}) > 0 OR position(lower(${modelsJson}), ${lowered}) > 0)`,
      );
    }
    const signature = use('signature');
    if (signature !== undefined)
      clauses.push(
        sql`(trace_id, load_id, run_pk) GLOBAL IN (SELECT trace_id, load_id, run_pk FROM ${this.table('findings')} WHERE signature_key = ${signature})`,
      );
    return joinSql(clauses, ' AND ');
  }

  /** The rows of a run's table (findings, calls) that belong to the runs the filter leaves. */
  private ofFilteredRuns(filter: LibraryFilter): BoundSql {
    return sql`(trace_id, load_id, run_pk) GLOBAL IN (SELECT trace_id, load_id, run_pk FROM ${this.table('runs')} WHERE ${this.runCondition(filter)})`;
  }

  private async countRuns(filter: LibraryFilter): Promise<number> {
    const [row] = await this.client.query<{ total: number }>(sql`SELECT count() AS total FROM ${this.table('runs')} WHERE ${this.runCondition(filter)}`);
    return row?.total ?? 0;
  }

  async runs(request: ApiParsedRequest<'libraryRuns'>): Promise<ApiResponse<'libraryRuns'>> {
    const column = constantSql(sortColumns[request.sort]);
    const direction = constantSql(request.descending ? 'DESC' : 'ASC');
    const [total, rows] = await Promise.all([
      this.countRuns(request.filter),
      // Runs without the measure sort last either way; ties in file order.
      this.client.query<LibraryRunRecord>(
        sql`SELECT ${runColumns} FROM ${this.table('runs')} WHERE ${this.runCondition(request.filter)}
            ORDER BY isNull(${column}), ${column} ${direction}, file, run_pk LIMIT ${request.limit} OFFSET ${request.offset}`,
      ),
    ]);
    return { total, offset: request.offset, rows: rows.map(toLibraryRun) };
  }

  private async facet(filter: LibraryFilter, field: 'format' | 'model' | 'directory'): Promise<{ value: string; runs: number }[]> {
    const condition = this.runCondition(filter, field);
    const select =
      field === 'model'
        ? sql`SELECT model AS value, uniqExact(trace_id, run_pk) AS runs FROM ${this.table('runs')} ARRAY JOIN models AS model WHERE ${condition} GROUP BY model`
        : sql`SELECT ${identifier(field)} AS value, count() AS runs FROM ${this.table('runs')} WHERE ${condition} GROUP BY ${identifier(field)}`;
    return this.client.query(sql`${select} ORDER BY runs DESC, value LIMIT 200`);
  }

  async aggregates(request: ApiParsedRequest<'libraryAggregates'>): Promise<ApiResponse<'libraryAggregates'>> {
    const { filter } = request;
    const runs = this.table('runs');
    const condition = this.runCondition(filter);
    type Measures = { traces: number; input: number[]; output: number[]; cost: number[]; wasted: number[]; duration: number[]; step_counts: number[] };
    const [[measures], runsByStatusAndDay, findingsByKind, tools, formats, models, directories] = await Promise.all([
      // groupArray leaves the nulls out, as the shared distribution does.
      this.client.query<Measures>(
        sql`SELECT uniqExact(trace_id) AS traces, groupArray(input_tokens) AS input, groupArray(output_tokens) AS output, groupArray(cost_usd) AS cost,
                   groupArray(wasted_usd) AS wasted, groupArray(duration_ms) AS duration, groupArray(steps) AS step_counts
            FROM ${runs} WHERE ${condition}`,
      ),
      this.client.query<{ status: RunStatus; day: string | null; runs: number }>(
        sql`SELECT status, started_day AS day, count() AS runs FROM ${runs} WHERE ${condition} GROUP BY status, started_day`,
      ),
      this.client.query<{ kind: FindingKind; findings: number; runs: number }>(
        sql`SELECT kind, count() AS findings, uniqExact(trace_id, run_pk) AS runs FROM ${this.table('findings')} WHERE ${this.ofFilteredRuns(filter)}
            GROUP BY kind ORDER BY runs DESC, findings DESC, kind`,
      ),
      // Nearest rank (§11): the value at rank ⌈p·n⌉ of the tool's n timed calls, ⌈p·n/100⌉ = intDiv(p·n + 99, 100).
      this.client.query<{ tool_name: string; calls: number; errors: number; p50: number | null; p95: number | null }>(
        sql`SELECT tool AS tool_name, count() AS calls, sum(ifNull(state = 'error', 0)) AS errors, count(latency_ms) AS timed,
                   if(timed = 0, NULL, arraySort(groupArray(latency_ms))[intDiv(timed * 50 + 99, 100)]) AS p50,
                   if(timed = 0, NULL, arraySort(groupArray(latency_ms))[intDiv(timed * 95 + 99, 100)]) AS p95
            FROM ${this.table('calls')} WHERE ${this.ofFilteredRuns(filter)} GROUP BY tool`,
      ),
      this.facet(filter, 'format'),
      this.facet(filter, 'model'),
      this.facet(filter, 'directory'),
    ]);
    return assembleAggregates({
      runsByStatusAndDay,
      traces: measures?.traces ?? 0,
      measures: {
        inputTokens: measures?.input ?? [],
        outputTokens: measures?.output ?? [],
        costUsd: measures?.cost ?? [],
        wastedUsd: measures?.wasted ?? [],
        durationMs: measures?.duration ?? [],
        steps: measures?.step_counts ?? [],
      },
      findingsByKind,
      toolCalls: tools.map((row) => ({ tool: row.tool_name, calls: row.calls, errors: row.errors })),
      toolLatencies: tools.map((row) => ({ tool: row.tool_name, p50: row.p50, p95: row.p95 })),
      facets: { formats, models, directories },
    });
  }

  async signatures(request: ApiParsedRequest<'librarySignatures'>): Promise<ApiResponse<'librarySignatures'>> {
    type Group = Omit<SignatureGroup, 'kind' | 'tool' | 'text'> & {
      signature_kind: FindingKind;
      signature_tool: string | null;
      text: string;
      example: [traceId: string, runPk: number, runId: string, file: string, line: number | null];
    };
    const runsOfFilter = sql`SELECT trace_id, load_id, run_pk, run_id, file, started_at FROM ${this.table('runs')} WHERE ${this.runCondition(request.filter)}`;
    // The findings of the filtered runs joined to their runs (for the start times and the example's
    // run): the example is the library's first finding of the signature, as the local library's is.
    // Aliases unlike the columns: 18.16 reads a column named like an alias as the alias.
    const [totalRuns, groups] = await Promise.all([
      this.countRuns(request.filter),
      this.client.query<Group>(
        sql`SELECT signature_key AS key, any(kind) AS signature_kind, any(tool) AS signature_tool, any(signature_text) AS text,
                   count() AS findings, uniqExact(trace_id, run_pk) AS runs, min(started_at) AS first_seen, max(started_at) AS last_seen,
                   argMin((trace_id, run_pk, run_id, file, line), finding_index) AS example
            FROM (SELECT trace_id, load_id, run_pk, finding_index, kind, tool, signature_key, signature_text, line FROM ${this.table('findings')}
                  WHERE ${this.ofFilteredRuns(request.filter)})
            ALL INNER JOIN (${runsOfFilter}) USING (trace_id, load_id, run_pk)
            GROUP BY signature_key ORDER BY runs DESC, findings DESC, key`,
      ),
    ]);
    const listed = groups.slice(request.offset, request.offset + request.limit);
    return {
      total: groups.length,
      offset: request.offset,
      rows: listed.map((group) => {
        const [traceId, runPk, runId, file, line] = group.example;
        return toLibrarySignature({ ...group, kind: group.signature_kind, tool: group.signature_tool }, totalRuns, { traceId, runPk, runId, file, line });
      }),
    };
  }

  /**
   * Search across the library, with the local library's answer (api/library/librarySearch.ts) for
   * a library loaded with content: the same runs, in trace-path then run order, the same events
   * (their ids in the trace's database), snippets, match counts and `complete`.
   *
   * An event matches as the local full-text index (FTS5) matches it: each word cut into tokens by
   * the index's own tokenizer (`SearchTokenizer`, SQLite's, case and diacritics folded), its tokens
   * next to each other, the last word's last token a prefix, every word in the event. The loader
   * stored each event's tokens the same way (`events.search_tokens`, ' tok tok … '), so a word is a
   * substring there — ' tok tok ' (' tok tok' for the prefix) — and ClickHouse finds exactly the
   * index's matches. The snippets are cut from `events.search_text` by the local search's code.
   *
   * What differs: `tracesSearched` counts every trace holding events, all searched at once, and
   * `tracesOpened` the traces of the runs listed (locally: the traces looked at before the list
   * filled, and of those the ones whose terms did not rule the words out). A trace loaded without
   * content cannot be searched: the answer then says `complete: false`.
   */
  async search(request: ApiParsedRequest<'librarySearch'>): Promise<ApiResponse<'librarySearch'>> {
    const words = queryWords(request.query);
    if (words.length === 0) return { hits: [], tracesSearched: 0, tracesOpened: 0, complete: true };
    const events = this.table('events');
    const [loaded] = await this.client.query<{ traces: number; searchable: number }>(
      sql`SELECT uniqExact(trace_id) AS traces, uniqExactIf(trace_id, isNotNull(search_tokens)) AS searchable FROM ${events} WHERE ${visibleLoads(this.database)}`,
    );
    const traces = loaded?.traces ?? 0;
    const everyTraceSearchable = (loaded?.searchable ?? 0) === traces;
    const tokenizer = new SearchTokenizer();
    let wordTokens: string[][];
    try {
      wordTokens = tokenizer.tokens(words);
    } finally {
      tokenizer.close();
    }
    // A word without a token (`!!!`) is an empty phrase, which FTS5 finds nowhere: nor the words then.
    if (wordTokens.some((tokens) => tokens.length === 0)) return { hits: [], tracesSearched: traces, tracesOpened: 0, complete: everyTraceSearchable };
    const needles = wordTokens.map((tokens, index) => ` ${tokens.join(' ')}${index === wordTokens.length - 1 ? '' : ' '}`);
    const matching = joinSql(
      [visibleLoads(this.database), sql`isNotNull(search_text)`, ...needles.map((needle) => sql`position(search_tokens, ${needle}) > 0`)],
      ' AND ',
    );
    // The first `limit` runs with matches, in the local library's order: its traces by path, a trace's runs by key.
    const runs = await this.client.query<{ trace_id: string; trace_path: string; run_pk: number; run_id: string; status: RunStatus; matches: number }>(
      sql`SELECT trace_id, trace_path, run_pk, run_id, status, matches
          FROM (SELECT trace_id, load_id, run_pk, count() AS matches FROM ${events} WHERE ${matching} GROUP BY trace_id, load_id, run_pk)
          ALL INNER JOIN (SELECT trace_id, load_id, run_pk, trace_path, run_id, status FROM ${this.table('runs')} WHERE ${visibleLoads(this.database)})
          USING (trace_id, load_id, run_pk)
          ORDER BY trace_path, run_pk LIMIT ${request.limit}`,
    );
    const runKey = (run: { trace_id: string; run_pk: number }): string => `${run.trace_id}\n${run.run_pk}`;
    const listedOfRun = new Map<string, MatchingEvent[]>();
    for (let from = 0; from < runs.length; from += SEARCH_RUNS_PER_READ) {
      const batch = runs.slice(from, from + SEARCH_RUNS_PER_READ);
      // A run's first matches in the order the local search lists them: step (none first), line, event.
      const listed = await this.client.query<MatchingEvent>(
        sql`SELECT trace_id, run_pk, event_id, source_line, type, search_name, search_text FROM ${events}
            WHERE ${matching} AND has(${batch.map(runKey)}, concat(trace_id, ${'\n'}, toString(run_pk)))
            ORDER BY trace_id, run_pk, ifNull(toInt64(step), -1), source_line, event_id LIMIT ${MATCHES_PER_RUN} BY trace_id, run_pk`,
      );
      for (const event of listed) {
        const ofRun = listedOfRun.get(runKey(event));
        if (ofRun === undefined) listedOfRun.set(runKey(event), [event]);
        else ofRun.push(event);
      }
    }
    const phrases = phrasesOf(words);
    const hits = runs.map((run): LibrarySearchHit => {
      const listed = listedOfRun.get(runKey(run)) ?? [];
      return {
        traceId: run.trace_id,
        tracePath: run.trace_path,
        runPk: run.run_pk,
        runId: run.run_id,
        status: run.status,
        matches: listed.map((event) => {
          const { snippet, matches } = snippetOf(event.search_text, phrases);
          return { eventId: event.event_id, line: event.source_line, type: event.type, name: event.search_name, snippet, ranges: matches };
        }),
        moreMatches: Math.max(0, run.matches - listed.length),
      };
    });
    // The local search stops once the list is full and says it is incomplete when a trace is left
    // that it did not look at: one after (by path) the trace it filled the list in.
    let complete = everyTraceSearchable;
    if (complete && hits.length >= request.limit) {
      const lastPath = hits.at(-1)?.tracePath;
      const [later] = await this.client.query<{ traces: number }>(
        sql`SELECT uniqExact(trace_id) AS traces FROM ${this.table('traces')}
            WHERE ${visibleLoads(this.database)}${lastPath === undefined ? sql`` : sql` AND path > ${lastPath}`}`,
      );
      complete = (later?.traces ?? 0) === 0;
    }
    return { hits, tracesSearched: traces, tracesOpened: new Set(hits.map((hit) => hit.traceId)).size, complete };
  }

  /** The path of the trace file, on the machine that loaded it; undefined when no visible load has the trace. */
  async tracePath(traceId: string): Promise<string | undefined> {
    const [row] = await this.client.query<{ newest_path: string }>(
      sql`SELECT argMax(path, loaded_at_ms) AS newest_path FROM ${this.table('traces')} WHERE trace_id = ${traceId} GROUP BY trace_id`,
    );
    return row?.newest_path;
  }

  /**
   * The library's status for the page: ClickHouse is loaded by others, so it is always idle; its
   * files are the visible traces, and its revision goes up whenever a load is added (the page then
   * asks again).
   */
  async status(): Promise<LibraryStatus> {
    const [row] = await this.client.query<{ traces: number; loads: number; newest: number }>(
      sql`SELECT uniqExact(trace_id) AS traces, count() AS loads, max(loaded_at_ms) AS newest FROM ${this.table('traces')}`,
    );
    const loads = `${row?.loads ?? 0}:${row?.newest ?? 0}`;
    if (this.lastLoads !== null && loads !== this.lastLoads) this.revision += 1;
    this.lastLoads = loads;
    const files = row?.traces ?? 0;
    return { roots: [this.name], state: 'idle', files, indexed: files, skipped: 0, failed: 0, failures: [], current: null, revision: this.revision };
  }

  /** One of the start page's queries, its request already parsed. */
  async query(method: LibraryQueryMethod, request: unknown): Promise<unknown> {
    if (method === 'libraryRuns') return this.runs(request as ApiParsedRequest<'libraryRuns'>);
    if (method === 'libraryAggregates') return this.aggregates(request as ApiParsedRequest<'libraryAggregates'>);
    if (method === 'librarySignatures') return this.signatures(request as ApiParsedRequest<'librarySignatures'>);
    return this.search(request as ApiParsedRequest<'librarySearch'>);
  }
}

/** One of a run's first matching events: what its hit shows. */
interface MatchingEvent {
  trace_id: string;
  run_pk: number;
  event_id: number;
  source_line: number;
  type: string;
  search_name: string | null;
  search_text: string;
}
