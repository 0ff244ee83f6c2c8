/**
 * The runs of a trace still being ingested, as the ingest reports them (engine.ts `onRuns`): the
 * database is written without a journal during the load and cannot be read yet, so the runs table
 * is served from these until the trace is ready, then from SQL (queries/runs.ts `runs`).
 *
 * They are sorted, filtered and paged the way the store does it in SQL (engine/store/runs.ts). What
 * only analysis knows is not known yet: finding counts are zero, finding kinds empty (so a
 * finding-kind filter matches nothing) and parents unlinked; the response says so with `partial`.
 */
import { basename } from 'node:path';
import type { ApiParsedRequest, ApiResponse, RunRow } from '../../shared/api';
import { runStatusSchema } from '../../shared/trace/runStatus';
import { millisBetween } from '../../shared/trace/timestamps';
import type { StoredRuns } from '../engine';

interface LiveRun {
  sourceId: number;
  row: RunRow;
}

type RunSort = ApiParsedRequest<'runs'>['sort'];

function compareNumbers(a: number, b: number): number {
  return a - b;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** File, then position in it: the tie-breaker of every sort, as in engine/store/runs.ts `runOrder`. */
function comparePosition(a: LiveRun, b: LiveRun): number {
  return compareNumbers(a.sourceId, b.sourceId) || compareNumbers(a.row.firstLine, b.row.firstLine) || compareNumbers(a.row.runPk, b.row.runPk);
}

function sortKey(sort: RunSort): ((run: LiveRun) => number | string | null) | null {
  switch (sort) {
    case 'first_line':
      return null;
    case 'status':
      return (run) => run.row.status;
    case 'steps':
      return (run) => run.row.steps;
    case 'tool_calls':
      return (run) => run.row.toolCalls;
    case 'tokens':
      return (run) => (run.row.inputTokens ?? 0) + (run.row.outputTokens ?? 0);
    case 'duration':
      return (run) => run.row.durationMs;
    case 'errors':
      return (run) => run.row.findings.error;
  }
}

/** Sorts like the SQL: by the key in the asked direction, a missing duration last either way, ties by position in the same direction. */
function comparator(sort: RunSort, descending: boolean): (a: LiveRun, b: LiveRun) => number {
  const key = sortKey(sort);
  const direction = descending ? -1 : 1;
  return (a, b) => {
    if (key !== null) {
      const left = key(a);
      const right = key(b);
      if (left === null || right === null) {
        if (left !== right) return left === null ? 1 : -1;
      } else {
        const order = typeof left === 'string' ? compareText(left, String(right)) : compareNumbers(left, Number(right));
        if (order !== 0) return direction * order;
      }
    }
    return direction * comparePosition(a, b);
  };
}

function matchesText(run: LiveRun, needle: string): boolean {
  return [run.row.runId, run.row.status, run.row.statusRaw, basename(run.row.file)].some((field) => field.toLowerCase().includes(needle));
}

export class LiveRuns {
  private readonly runs = new Map<number, LiveRun>();

  /** Adds runs as stored, replacing an earlier version of the same run. */
  add({ source, runs }: StoredRuns): void {
    for (const stored of runs) {
      const status = runStatusSchema.safeParse(stored.status);
      this.runs.set(stored.id, {
        sourceId: source.sourceId,
        row: {
          runPk: stored.id,
          runId: stored.run_id,
          file: source.path,
          format: source.format,
          status: status.success ? status.data : 'unknown',
          statusRaw: stored.status_raw,
          steps: stored.steps,
          toolCalls: stored.tool_calls,
          toolResults: stored.tool_results,
          inputTokens: stored.input_tokens,
          outputTokens: stored.output_tokens,
          cost: { usd: null, unpricedResponses: 0 },
          startedAt: stored.started_at,
          endedAt: stored.ended_at,
          durationMs: millisBetween(stored.started_at, stored.ended_at),
          firstLine: stored.first_line,
          lastLine: stored.last_line,
          findings: { error: 0, warning: 0, info: 0 },
          findingKinds: [],
          parent: null,
        },
      });
    }
  }

  clear(): void {
    this.runs.clear();
  }

  page(request: ApiParsedRequest<'runs'>): ApiResponse<'runs'> {
    const needle = request.text?.toLowerCase() ?? '';
    const matching = [...this.runs.values()].filter(
      (run) =>
        (request.status === undefined || run.row.status === request.status) &&
        // No finding is known before analysis, so no run has the kind asked for yet.
        request.findingKind === undefined &&
        (needle === '' || matchesText(run, needle)),
    );
    matching.sort(comparator(request.sort, request.descending));
    return {
      total: matching.length,
      offset: request.offset,
      rows: matching.slice(request.offset, request.offset + request.limit).map((run) => run.row),
      partial: true,
    };
  }
}
