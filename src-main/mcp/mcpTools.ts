/**
 * The MCP tools of `loopscope mcp`: each a question to the same ApiHost the app's pages ask, its
 * answer compact and size-bounded (src-main/mcp/mcpAnswers.ts). docs/mcp.md is their reference.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ApiResponse, TraceSummary } from '../../shared/api';
import { findingKindSchema } from '../../shared/report';
import { libraryFilterSchema, librarySortSchema } from '../../shared/library/libraryApi';
import { runStatusSchema } from '../../shared/trace/runStatus';
import type { ApiHost } from '../api/apiHost';
import { answer, cut, guarded, joinNotes, pageNote } from './mcpAnswers';

export interface McpContext {
  host: ApiHost;
  /** Whether directories were given: the library answers list_runs, search and failure_signatures. */
  hasLibrary: boolean;
  /** Resolves once the trace is read (or failed); a note when it is still being read after the wait. */
  traceReady(traceId: string): Promise<string | undefined>;
  /** Resolves once the library is indexed; a note when it is still indexing after the wait. */
  libraryReady(): Promise<string | undefined>;
}

const paging = (defaultLimit: number, maxLimit: number) => ({
  offset: z.number().int().min(0).default(0).describe('rows to skip, for paging'),
  limit: z.number().int().min(1).max(maxLimit).default(defaultLimit).describe(`rows to return (default ${defaultLimit}, at most ${maxLimit})`),
});
const traceIdInput = z.string().min(1).max(200).describe('the trace id, as list_traces or list_runs give it');
const runPkInput = z.number().int().describe('the run key (run_pk) inside its trace, as list_runs gives it');

type RunRow = ApiResponse<'runs'>['rows'][number];
type LibraryRun = ApiResponse<'libraryRuns'>['rows'][number];

function compactRun(traceId: string, run: RunRow) {
  return {
    trace_id: traceId,
    run_pk: run.runPk,
    run_id: run.runId,
    file: run.file,
    format: run.format,
    status: run.status,
    steps: run.steps,
    tool_calls: run.toolCalls,
    input_tokens: run.inputTokens,
    output_tokens: run.outputTokens,
    cost_usd: run.cost.usd,
    started_at: run.startedAt,
    duration_ms: run.durationMs,
    findings: run.findings,
    finding_kinds: run.findingKinds,
    ...(run.parent !== null ? { parent_run_pk: run.parent.runPk } : {}),
  };
}

function compactLibraryRun(run: LibraryRun) {
  return {
    trace_id: run.traceId,
    run_pk: run.runPk,
    run_id: run.runId,
    file: run.file,
    format: run.format,
    status: run.status,
    models: run.models,
    task: cut(run.task, 200),
    steps: run.steps,
    tool_calls: run.toolCalls,
    tool_errors: run.toolErrors,
    input_tokens: run.inputTokens,
    output_tokens: run.outputTokens,
    started_at: run.startedAt,
    duration_ms: run.durationMs,
    findings: run.findings,
    finding_kinds: run.findingKinds,
  };
}

export function registerTools(server: McpServer, context: McpContext): void {
  const { host } = context;
  const call = async <T>(method: string, request: unknown): Promise<T> => (await host.call(method, request)) as T;

  /** Every run of every open trace (files given on the command line), read first. */
  async function openTraceRuns(
    filter: { status?: string; findingKind?: string; text?: string },
    traceId?: string,
  ): Promise<{ runs: ReturnType<typeof compactRun>[]; note?: string }> {
    const traces = traceId !== undefined ? [{ traceId }] : await call<TraceSummary[]>('listTraces', {});
    const runs: ReturnType<typeof compactRun>[] = [];
    const notes: (string | undefined)[] = [];
    for (const trace of traces) {
      notes.push(await context.traceReady(trace.traceId));
      for (let offset = 0; ; offset += 2000) {
        const page = await call<ApiResponse<'runs'>>('runs', { traceId: trace.traceId, offset, limit: 2000, ...filter });
        runs.push(...page.rows.map((run) => compactRun(trace.traceId, run)));
        if (offset + page.rows.length >= page.total || page.rows.length === 0) break;
      }
    }
    return { runs, note: joinNotes(...notes) };
  }

  /** The library's runs (at most the first 10,000), for list_traces. */
  async function libraryRunsAll(): Promise<LibraryRun[]> {
    const runs: LibraryRun[] = [];
    for (let offset = 0; offset < 10_000; offset += 2000) {
      const page = await call<ApiResponse<'libraryRuns'>>('libraryRuns', { offset, limit: 2000, sort: 'file', descending: false });
      runs.push(...page.rows);
      if (offset + page.rows.length >= page.total || page.rows.length === 0) break;
    }
    return runs;
  }

  server.registerTool(
    'list_traces',
    {
      description:
        'List the traces Loopscope has: the files it was started with and every trace of the library (the directories it was started with). Each with its trace_id, path, format, state, number of runs and runs by status. Paged.',
      inputSchema: paging(20, 100),
    },
    ({ offset, limit }) =>
      guarded(async () => {
        const traces: {
          trace_id: string;
          path: string;
          format: string | null;
          state: string;
          error?: string | null;
          runs: number;
          by_status: Record<string, number>;
        }[] = [];
        const notes: (string | undefined)[] = [];
        for (const trace of await call<TraceSummary[]>('listTraces', {})) {
          notes.push(await context.traceReady(trace.traceId));
          const now = await call<TraceSummary>('trace', { traceId: trace.traceId });
          const byStatus: Record<string, number> = {};
          let runs = 0;
          if (now.state === 'ready') {
            const page = await call<ApiResponse<'runs'>>('runs', { traceId: trace.traceId, limit: 2000 });
            runs = page.total;
            for (const run of page.rows) byStatus[run.status] = (byStatus[run.status] ?? 0) + 1;
          }
          traces.push({
            trace_id: now.traceId,
            path: now.path,
            format: now.format,
            state: now.state,
            ...(now.error !== null ? { error: now.error } : {}),
            runs,
            by_status: byStatus,
          });
        }
        if (context.hasLibrary) {
          notes.push(await context.libraryReady());
          const known = new Set(traces.map((trace) => trace.trace_id));
          const byTrace = new Map<string, (typeof traces)[number]>();
          for (const run of await libraryRunsAll()) {
            if (known.has(run.traceId)) continue;
            let trace = byTrace.get(run.traceId);
            if (trace === undefined) {
              trace = { trace_id: run.traceId, path: run.tracePath, format: run.format, state: 'indexed', runs: 0, by_status: {} };
              byTrace.set(run.traceId, trace);
            }
            trace.runs += 1;
            trace.by_status[run.status] = (trace.by_status[run.status] ?? 0) + 1;
          }
          traces.push(...byTrace.values());
        }
        const rows = traces.slice(offset, offset + limit);
        return answer({ total: traces.length, offset, traces: rows }, joinNotes(pageNote(offset, rows.length, traces.length), ...notes));
      }),
  );

  server.registerTool(
    'list_runs',
    {
      description:
        "List runs (one agent loop each) with their status, steps, tool calls, tokens, duration and finding counts and kinds. With a library: every run of it, filtered like Loopscope's start page (status, finding kind, format, model, directory, started day range, text, failure signature) and sorted. With trace_id, or without a library: the runs of that trace, or of the files given (status, finding_kind and text filters). Paged. Use trace_id + run_pk with get_run.",
      inputSchema: {
        trace_id: traceIdInput.optional().describe('only the runs of this trace (any trace of list_traces, also a file given beside a library)'),
        status: runStatusSchema.optional().describe('only runs of this status'),
        finding_kind: findingKindSchema.optional().describe('only runs with a finding of this kind, e.g. dangling_call'),
        format: z.string().min(1).max(100).optional().describe('(library) only runs of this trace format'),
        model: z.string().min(1).max(200).optional().describe('(library) only runs one of whose responses names this model'),
        directory: z.string().min(1).max(4096).optional().describe('(library) only runs of traces under this absolute directory'),
        from: libraryFilterSchema.shape.from.describe('(library) runs started on or after this day, YYYY-MM-DD (UTC)'),
        to: libraryFilterSchema.shape.to.describe('(library) runs started on or before this day, YYYY-MM-DD (UTC)'),
        text: z.string().min(1).max(500).optional().describe('matched against run id, file, task and model'),
        signature: libraryFilterSchema.shape.signature.describe('(library) only runs with this failure signature key (from failure_signatures)'),
        sort: librarySortSchema.default('started').describe('(library) sort by this measure'),
        descending: z.boolean().default(true).describe('(library) sort descending'),
        ...paging(20, 100),
      },
    },
    (input) =>
      guarded(async () => {
        const { offset, limit } = input;
        if (context.hasLibrary && input.trace_id === undefined) {
          const note = await context.libraryReady();
          const filter = {
            ...(input.status !== undefined ? { status: input.status } : {}),
            ...(input.finding_kind !== undefined ? { findingKind: input.finding_kind } : {}),
            ...(input.format !== undefined ? { format: input.format } : {}),
            ...(input.model !== undefined ? { model: input.model } : {}),
            ...(input.directory !== undefined ? { directory: input.directory } : {}),
            ...(input.from !== undefined ? { from: input.from } : {}),
            ...(input.to !== undefined ? { to: input.to } : {}),
            ...(input.text !== undefined ? { text: input.text } : {}),
            ...(input.signature !== undefined ? { signature: input.signature } : {}),
          };
          const page = await call<ApiResponse<'libraryRuns'>>('libraryRuns', { filter, sort: input.sort, descending: input.descending, offset, limit });
          return answer({ total: page.total, offset, runs: page.rows.map(compactLibraryRun) }, joinNotes(pageNote(offset, page.rows.length, page.total), note));
        }
        const { runs, note } = await openTraceRuns(
          {
            ...(input.status !== undefined ? { status: input.status } : {}),
            ...(input.finding_kind !== undefined ? { findingKind: input.finding_kind } : {}),
            ...(input.text !== undefined ? { text: input.text } : {}),
          },
          input.trace_id,
        );
        const rows = runs.slice(offset, offset + limit);
        return answer({ total: runs.length, offset, runs: rows }, joinNotes(pageNote(offset, rows.length, runs.length), note));
      }),
  );

  server.registerTool(
    'get_run',
    {
      description:
        "One run: its status, task, steps, tool calls, tokens, cost, duration, budgets, sub-agents, and its findings (kind, severity, message, step, event_id, line), paged. Use a finding's event_id with get_event to see the event.",
      inputSchema: {
        trace_id: traceIdInput,
        run_pk: runPkInput,
        findings_offset: z.number().int().min(0).default(0),
        findings_limit: z.number().int().min(1).max(200).default(50),
      },
    },
    (input) =>
      guarded(async () => {
        const note = await context.traceReady(input.trace_id);
        const run = await call<ApiResponse<'run'>>('run', { traceId: input.trace_id, runPk: input.run_pk });
        const findings = await call<ApiResponse<'findings'>>('findings', {
          traceId: input.trace_id,
          runPk: input.run_pk,
          offset: input.findings_offset,
          limit: input.findings_limit,
        });
        return answer(
          {
            run: { ...compactRun(input.trace_id, run.run), status_raw: run.run.statusRaw, first_line: run.run.firstLine, last_line: run.run.lastLine },
            task: cut(run.task, 1000),
            end_limit: run.endLimit,
            budgets: run.budgets,
            cost_with_sub_agents_usd: run.costWithSubAgents?.usd ?? null,
            sub_agents: run.children.map((child) => ({ run_pk: child.runPk, run_id: child.runId, call_id: child.callId })),
            findings: {
              total: findings.total,
              offset: input.findings_offset,
              by_kind: findings.groups,
              rows: findings.rows.map((finding) => ({
                kind: finding.kind,
                severity: finding.severity,
                message: cut(finding.message, 500),
                step: finding.step,
                event_id: finding.eventId,
                line: finding.line,
                call_id: finding.callId,
              })),
            },
          },
          joinNotes(
            findings.total > input.findings_offset + findings.rows.length
              ? `[findings ${findings.rows.length} of ${findings.total}; next page: findings_offset=${input.findings_offset + findings.rows.length}]`
              : undefined,
            note,
          ),
        );
      }),
  );

  server.registerTool(
    'get_event',
    {
      description:
        'One event of a trace: its canonical fields (type, step, call id, tool name, outcome, tokens, latency, summary), what it says (content), the calls it concerns, its findings, and its original raw line from the file with its line number. Credentials are masked. Long text is cut at max_chars; ask again with a larger max_chars (up to 100000) for more.',
      inputSchema: {
        trace_id: traceIdInput,
        event_id: z.number().int().describe('the event id (event_id of a finding, list_events or search)'),
        max_chars: z.number().int().min(100).max(100_000).default(4000).describe('cut the raw line and content at this many characters (default 4000)'),
      },
    },
    (input) =>
      guarded(async () => {
        const note = await context.traceReady(input.trace_id);
        const max = input.max_chars;
        const event = await call<ApiResponse<'event'>>('event', {
          traceId: input.trace_id,
          eventId: input.event_id,
          maxBytes: Math.min(max * 4 + 16, 1024 * 1024),
        });
        const content = event.content === null ? null : JSON.stringify(event.content);
        const raw = event.record?.text ?? null;
        const truncated = (raw !== null && (raw.length > max || event.record?.truncated === true)) || (content !== null && content.length > max);
        return answer(
          {
            run_pk: event.runPk,
            run_id: event.runId,
            event: event.event,
            content: cut(content, max),
            raw: event.record === null ? null : { file: event.record.file, line: event.record.line, text: cut(raw, max), stale: event.record.stale },
            calls: event.calls.slice(0, 20),
            answers: event.answers,
            findings: event.findings.map((finding) => ({ kind: finding.kind, severity: finding.severity, message: cut(finding.message, 500) })),
          },
          joinNotes(truncated ? `[cut at max_chars=${max}; ask again with a larger max_chars (at most 100000) for more]` : undefined, note),
        );
      }),
  );

  server.registerTool(
    'list_events',
    {
      description:
        "A window of a run's timeline in order: each event's index, event_id, step, type, lane, tool name, outcome and a one-line summary. Paged (limit at most 200): a long run never comes whole. hide_bookkeeping leaves out progress ticks and snapshots.",
      inputSchema: { trace_id: traceIdInput, run_pk: runPkInput, hide_bookkeeping: z.boolean().default(false), ...paging(50, 200) },
    },
    (input) =>
      guarded(async () => {
        const note = await context.traceReady(input.trace_id);
        const page = await call<ApiResponse<'runEvents'>>('runEvents', {
          traceId: input.trace_id,
          runPk: input.run_pk,
          offset: input.offset,
          limit: input.limit,
          hideBookkeeping: input.hide_bookkeeping,
        });
        const events = page.rows.map((event, index) => ({
          index: input.offset + index,
          event_id: event.eventId,
          line: event.line,
          step: event.step,
          type: event.type,
          lane: event.lane,
          name: event.name,
          outcome: event.outcome,
          summary: cut(event.summary, 200),
        }));
        return answer({ total: page.total, offset: input.offset, events }, joinNotes(pageNote(input.offset, events.length, page.total), note));
      }),
  );

  server.registerTool(
    'search',
    {
      description:
        "Full-text search of the traces' messages, tool arguments and results (plain words, all must match; prefix match on the last). With trace_id: that trace's hits in order (run, step, line). Without: across the library (hits grouped by run), or across the files given. Paged.",
      inputSchema: { query: z.string().min(1).max(500), trace_id: traceIdInput.optional(), ...paging(20, 100) },
    },
    (input) =>
      guarded(async () => {
        const { offset, limit } = input;
        const traceHits = async (traceId: string, from: number, count: number) => {
          const page = await call<ApiResponse<'search'>>('search', { traceId, query: input.query, offset: from, limit: count });
          return {
            total: page.total,
            hits: page.rows.map((hit) => ({
              trace_id: traceId,
              run_pk: hit.runPk,
              run_id: hit.runId,
              event_id: hit.eventId,
              line: hit.line,
              step: hit.step,
              type: hit.type,
              name: hit.name,
              snippet: cut(hit.snippet, 300),
            })),
          };
        };
        if (input.trace_id !== undefined) {
          const note = await context.traceReady(input.trace_id);
          const { total, hits } = await traceHits(input.trace_id, offset, limit);
          return answer({ total, offset, hits }, joinNotes(pageNote(offset, hits.length, total), note));
        }
        if (context.hasLibrary) {
          const note = await context.libraryReady();
          // Library hits come grouped by run, at most 500 runs.
          const result = await call<ApiResponse<'librarySearch'>>('librarySearch', { query: input.query, limit: Math.min(500, offset + limit) });
          const runs = result.hits.slice(offset, offset + limit).map((hit) => ({
            trace_id: hit.traceId,
            trace_path: hit.tracePath,
            run_pk: hit.runPk,
            run_id: hit.runId,
            status: hit.status,
            matches: hit.matches
              .slice(0, 5)
              .map((match) => ({ event_id: match.eventId, line: match.line, type: match.type, name: match.name, snippet: cut(match.snippet, 300) })),
            more_matches: hit.moreMatches + Math.max(0, hit.matches.length - 5),
          }));
          return answer(
            { runs_with_hits: result.hits.length, offset, complete: result.complete, traces_searched: result.tracesSearched, runs },
            joinNotes(
              !result.complete || result.hits.length > offset + runs.length ? `[more runs may match; next page: offset=${offset + runs.length}]` : undefined,
              note,
            ),
          );
        }
        const all: Awaited<ReturnType<typeof traceHits>>['hits'] = [];
        let total = 0;
        const notes: (string | undefined)[] = [];
        for (const trace of await call<TraceSummary[]>('listTraces', {})) {
          notes.push(await context.traceReady(trace.traceId));
          const page = await traceHits(trace.traceId, 0, Math.min(2000, offset + limit));
          total += page.total;
          all.push(...page.hits);
        }
        const hits = all.slice(offset, offset + limit);
        return answer({ total, offset, hits }, joinNotes(pageNote(offset, hits.length, total), ...notes));
      }),
  );

  server.registerTool(
    'diff_requests',
    {
      description:
        'Diff a model request against the previous request of its run (or previous_event_id): whether the history only grew or was rewritten (and where), the messages appended, removed, modified or moved (text cut), system prompt and tool changes, parameter changes, and the request findings. event_id is a model_request event (or, in formats without logged requests, a model response).',
      inputSchema: {
        trace_id: traceIdInput,
        event_id: z.number().int(),
        previous_event_id: z.number().int().optional(),
        max_changes: z.number().int().min(1).max(100).default(20).describe('at most this many changed messages (default 20)'),
      },
    },
    (input) =>
      guarded(async () => {
        const note = await context.traceReady(input.trace_id);
        const diff = await call<ApiResponse<'requestDiff'>>('requestDiff', {
          traceId: input.trace_id,
          eventId: input.event_id,
          ...(input.previous_event_id !== undefined ? { previousEventId: input.previous_event_id } : {}),
        });
        const changes = diff.changes.slice(0, input.max_changes).map((change) => ({
          status: change.status,
          role: change.role,
          previous_index: change.previousIndex,
          next_index: change.nextIndex,
          previous_text: cut(change.previousText, 1000),
          next_text: cut(change.nextText, 1000),
        }));
        return answer(
          {
            event_id: diff.eventId,
            previous_event_id: diff.previousEventId,
            reconstructed: diff.reconstructed,
            messages: { previous: diff.previousMessages, next: diff.messages },
            history: diff.history,
            findings: diff.findings,
            system_changed: diff.system.changed,
            tools: {
              added: diff.tools.added,
              removed: diff.tools.removed,
              changed: diff.tools.changed.map((tool) => tool.name),
              reordered: diff.tools.reordered,
            },
            params: diff.params,
            compaction: diff.compaction,
            missing_tool_results: diff.missingToolResults,
            orphan_tool_results: diff.orphanToolResults,
            changes_total: diff.changes.length,
            changes,
          },
          joinNotes(
            diff.changes.length > changes.length
              ? `[${changes.length} of ${diff.changes.length} changed messages; raise max_changes (at most 100) for more]`
              : undefined,
            note,
          ),
        );
      }),
  );

  server.registerTool(
    'compare_runs',
    {
      description:
        'Compare two runs (of one trace, or of two with trace_id_b): status, findings, steps, tool calls, tokens, cost and duration of each with B − A, how similar their turns are, and the first turn where B did something different (with both turns).',
      inputSchema: {
        trace_id: traceIdInput,
        run_pk_a: runPkInput,
        run_pk_b: runPkInput,
        trace_id_b: traceIdInput.optional().describe("run B's trace, when it is not trace_id"),
      },
    },
    (input) =>
      guarded(async () => {
        const notes = [await context.traceReady(input.trace_id), input.trace_id_b === undefined ? undefined : await context.traceReady(input.trace_id_b)];
        const report = await call<ApiResponse<'compareRuns'>>('compareRuns', {
          traceId: input.trace_id,
          runPkA: input.run_pk_a,
          runPkB: input.run_pk_b,
          ...(input.trace_id_b !== undefined ? { traceIdB: input.trace_id_b } : {}),
        });
        const summary = (run: typeof report.a) => {
          const { turns, ...rest } = run;
          return { ...rest, turns: turns.length };
        };
        const divergence = report.alignment.first_divergence;
        const row = divergence === null ? undefined : report.alignment.rows[divergence];
        const turnOf = (run: typeof report.a, index: number | null | undefined) => {
          if (index === null || index === undefined) return null;
          const turn = run.turns[index];
          return turn === undefined ? null : { ...turn, calls: turn.calls.slice(0, 10).map((c) => ({ tool: c.tool, args: cut(c.args, 300) })) };
        };
        return answer(
          {
            a: summary(report.a),
            b: summary(report.b),
            delta: report.delta,
            similarity: report.alignment.similarity,
            turns_aligned: report.alignment.rows.length,
            first_divergence:
              row === undefined
                ? null
                : { row: divergence, op: row.op, similarity: row.similarity, a_turn: turnOf(report.a, row.a), b_turn: turnOf(report.b, row.b) },
          },
          joinNotes(...notes),
        );
      }),
  );

  server.registerTool(
    'failure_signatures',
    {
      description:
        "The library's failure signatures: kinds of failure that recur across runs (normalized finding messages), the most widespread first, with how many findings and runs have each and an example run. Filter list_runs with signature=<key> for their runs. Needs a library (a directory given to loopscope mcp). Paged.",
      inputSchema: paging(20, 100),
    },
    ({ offset, limit }) =>
      guarded(async () => {
        const note = context.hasLibrary ? await context.libraryReady() : undefined;
        const page = await call<ApiResponse<'librarySignatures'>>('librarySignatures', { filter: {}, offset, limit });
        return answer({ total: page.total, offset, signatures: page.rows }, joinNotes(pageNote(offset, page.rows.length, page.total), note));
      }),
  );
}
