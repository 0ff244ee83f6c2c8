/**
 * What an HTML report holds (docs/html-report.md): the API's answers to every request its
 * read-only views can make, asked of a real ApiHost over the trace and recorded with
 * shared/htmlReport/reportSnapshot.ts. The views then run in the page exactly as in the app.
 *
 * The requests are the views' own: every run's timeline (with and without bookkeeping), each
 * event's inspector, position and request, each step's position, each request's diff against the
 * one before it, the growth chart, the waterfall; the runs table and the calls list in every order,
 * alone and under each single filter (a status or finding kind; a state or tool); the findings
 * under each kind, severity and both, as groups and each group's rows. Free text (search, text
 * filters), pairs of runs and collapsed spans are not enumerable, so the report leaves them out.
 */
import {
  apiMethods,
  callSortSchema,
  callStateSchema,
  runSortSchema,
  type ApiMethod,
  type ApiParsedRequest,
  type ApiRequest,
  type ApiResponse,
  type EventRow,
  type RunRow,
  type TraceSummary,
} from '../../shared/api';
import { ReportSnapshotBuilder, pagedListOf, type ReportSnapshot } from '../../shared/htmlReport/reportSnapshot';
import type { ApiHost } from '../api/apiHost';

/** The largest page the API gives. */
const maxPage = 2000;

/**
 * The most events a report holds: each is recorded with its inspector, so a report of more would
 * take minutes to make and tens of megabytes to send. One run of a larger trace still fits.
 */
export const maxReportEvents = 20_000;

export interface RecordOptions {
  host: ApiHost;
  trace: TraceSummary;
  /** `--run`: the run the report is for (by its id), with the runs it started; undefined: every run. */
  runId: string | undefined;
  redacted: boolean;
  loopscopeVersion: string;
  now: Date;
}

/** Why a report could not be made (said on stderr, exit 2): no such run, too many events, a trace that cannot be read, a file that cannot be written. */
export class HtmlReportError extends Error {}

type Scope = { runPk: number; runId: string; runPks: ReadonlySet<number> } | null;

class Recorder {
  readonly snapshot = new ReportSnapshotBuilder();

  constructor(private readonly host: ApiHost) {}

  /** Asks the API and records the answer (a paged list whole); `answerWith` replaces the request the answer is asked with. */
  async record<M extends ApiMethod>(
    method: M,
    request: ApiRequest<M>,
    options: { answerWith?: ApiRequest<M>; keep?: (row: unknown) => boolean } = {},
  ): Promise<ApiResponse<M>> {
    const parsed = apiMethods[method].request.parse(request) as Record<string, unknown>;
    const asked = options.answerWith === undefined ? parsed : (apiMethods[method].request.parse(options.answerWith) as Record<string, unknown>);
    const list = pagedListOf(method, parsed);
    let answer: Record<string, unknown>;
    if (list === null) {
      answer = (await this.host.call(method, asked)) as Record<string, unknown>;
    } else {
      answer = await this.wholeList(method, asked, list);
      if (options.keep !== undefined) {
        const kept = (answer[list] as unknown[]).filter(options.keep);
        answer = { ...answer, [list]: kept, total: kept.length };
      }
    }
    this.snapshot.add(method, parsed, answer);
    return answer as ApiResponse<M>;
  }

  private async wholeList(method: ApiMethod, request: Record<string, unknown>, list: 'rows' | 'templates'): Promise<Record<string, unknown>> {
    const listed: unknown[] = [];
    const calls = new Map<string, unknown>();
    let first: Record<string, unknown> | undefined;
    for (;;) {
      const page = (await this.host.call(method, { ...request, offset: listed.length, limit: maxPage })) as Record<string, unknown> & { total: number };
      first ??= page;
      const rows = (page[list] as unknown[] | undefined) ?? [];
      listed.push(...rows);
      // A timeline page carries the calls of its events: the whole list carries them all.
      for (const call of (page['calls'] as unknown[] | undefined) ?? []) calls.set(JSON.stringify(call), call);
      if (rows.length === 0 || listed.length >= page.total) break;
    }
    return { ...first, offset: 0, [list]: listed, ...(method === 'runEvents' ? { calls: [...calls.values()] } : {}) };
  }
}

/** Every value of an enumeration, ascending and descending. */
function orders<T extends string>(sorts: readonly T[]): { sort: T; descending: boolean }[] {
  return sorts.flatMap((sort) => [false, true].map((descending) => ({ sort, descending })));
}

async function recordRun(recorder: Recorder, traceId: string, runPk: number, redacted: boolean): Promise<void> {
  await recorder.record('run', { traceId, runPk });
  const requests = await recorder.record('requests', { traceId, runPk });
  await recorder.record('runWaterfall', { traceId, runPk });
  await recorder.record('callLatency', { traceId, runPk });
  await recorder.record('findings', { traceId, runPk });
  for (const request of requests.requests) await recorder.record('requestDiff', { traceId, eventId: request.eventId });
  await recordRunCallsByTool(recorder, traceId, runPk);

  const timeline = await recorder.record('runEvents', { traceId, runPk });
  await recorder.record('runEvents', { traceId, runPk, hideBookkeeping: true });
  const steps = new Set<number>();
  for (const event of timeline.rows as EventRow[]) {
    if (event.step !== null) steps.add(event.step);
    const detail = await recorder.record(
      'event',
      { traceId, eventId: event.eventId },
      { answerWith: { traceId, eventId: event.eventId, revealSecrets: !redacted } },
    );
    await recorder.record('requestAt', { traceId, eventId: event.eventId });
    await recorder.record('eventPosition', { traceId, eventId: event.eventId });
    for (const line of detail.absorbedLines) await recordRawLine(recorder, traceId, event.sourceId, line);
  }
  for (const step of steps) {
    for (const direction of ['at', 'after', 'before'] as const) {
      for (const hideBookkeeping of [false, true]) await recorder.record('stepPosition', { traceId, runPk, step, direction, hideBookkeeping });
    }
  }
}

async function recordRawLine(recorder: Recorder, traceId: string, sourceId: number, line: number): Promise<void> {
  const request = { traceId, sourceId, line };
  if (!recorder.snapshot.has('rawLine', request)) await recorder.record('rawLine', request);
}

/**
 * The Calls tab (`runPk` undefined: the trace's; in a `--run` report, answered with the run's): in
 * every order, alone and under each state or tool.
 */
async function recordCalls(recorder: Recorder, traceId: string, answerWith?: { runPk: number }): Promise<void> {
  const record = (request: ApiRequest<'calls'>) =>
    recorder.record('calls', request, { answerWith: answerWith === undefined ? request : { ...request, ...answerWith } });
  const all = await record({ traceId });
  const states = new Set((all.rows as { state: string }[]).map((call) => call.state));
  const filters: ApiRequest<'calls'>[] = [
    { traceId },
    ...callStateSchema.options.filter((state) => states.has(state)).map((state) => ({ traceId, state })),
    ...all.names.map((name) => ({ traceId, name })),
  ];
  for (const filter of filters) {
    for (const order of orders(callSortSchema.options)) await record({ ...filter, ...order });
  }
}

/** A finding's calls of one tool in its run, as the Findings tab lists them under a repeated-action finding. */
async function recordRunCallsByTool(recorder: Recorder, traceId: string, runPk: number): Promise<void> {
  const all = await recorder.record('calls', { traceId, runPk });
  for (const name of all.names) await recorder.record('calls', { traceId, runPk, name });
}

/** The findings of the trace (or of the report's run): under each kind, severity and both, as rows and as groups, and each group's rows. */
async function recordFindings(recorder: Recorder, traceId: string, scope: Scope): Promise<void> {
  const answerWith = (request: ApiRequest<'findings'>) => ({ answerWith: scope === null ? request : { ...request, runPk: scope.runPk } });
  const all = await recorder.record('findings', { traceId }, answerWith({ traceId }));
  const filters: { kind?: ApiParsedRequest<'findings'>['kind']; severity?: ApiParsedRequest<'findings'>['severity'] }[] = [{}];
  for (const kind of new Set(all.groups.map((group) => group.kind))) filters.push({ kind });
  for (const severity of new Set(all.groups.map((group) => group.severity))) filters.push({ severity });
  for (const group of all.groups) filters.push({ kind: group.kind, severity: group.severity });
  for (const filter of filters) {
    const request = { traceId, ...filter };
    if (filter.kind !== undefined || filter.severity !== undefined) await recorder.record('findings', request, answerWith(request));
    const grouped = await recorder.record('findings', { ...request, templates: true }, answerWith({ ...request, templates: true }));
    for (const template of grouped.templates ?? []) {
      const rowsOfGroup = { ...request, templateKey: template.key };
      await recorder.record('findings', rowsOfGroup, answerWith(rowsOfGroup));
    }
  }
}

/** The run with the most steps, by its id. */
function longestRun(runs: readonly RunRow[]): string {
  return runs.reduce((largest, run) => (run.steps > largest.steps ? run : largest)).runId;
}

/** The run `runId` and every run under it (the sub-agents it started, theirs, …). */
function runScope(runs: readonly RunRow[], runId: string): Scope {
  const root = runs.find((run) => run.runId === runId);
  if (root === undefined) {
    const known = runs.slice(0, 10).map((run) => run.runId);
    throw new HtmlReportError(`no run "${runId}" in the trace (its runs: ${known.join(', ')}${runs.length > known.length ? ', …' : ''})`);
  }
  const runPks = new Set([root.runPk]);
  for (let grew = true; grew;) {
    grew = false;
    for (const run of runs) {
      if (run.parent !== null && runPks.has(run.parent.runPk) && !runPks.has(run.runPk)) {
        runPks.add(run.runPk);
        grew = true;
      }
    }
  }
  return { runPk: root.runPk, runId: root.runId, runPks };
}

/** Records every answer the report's views need; throws HtmlReportError for a run the trace does not have. */
export async function recordReport(options: RecordOptions): Promise<ReportSnapshot> {
  const { host, trace, redacted } = options;
  const { traceId } = trace;
  const recorder = new Recorder(host);
  const firstRuns = await recorder.record('runs', { traceId });
  const scope = options.runId === undefined ? null : runScope(firstRuns.rows, options.runId);
  const inScope = scope === null ? undefined : (row: unknown) => scope.runPks.has((row as RunRow).runPk);
  const inReport = firstRuns.rows.filter((run) => inScope === undefined || inScope(run));
  let events = trace.progress.events;
  if (scope !== null) {
    events = 0;
    for (const run of inReport) events += ((await host.call('runEvents', { traceId, runPk: run.runPk, limit: 1 })) as ApiResponse<'runEvents'>).total;
  }
  if (events > maxReportEvents) {
    const hint = scope === null ? `export one run with --run ID (the longest: ${longestRun(inReport)})` : 'this run is too long for a report';
    throw new HtmlReportError(`the report would hold ${events.toLocaleString('en-US')} events, more than ${maxReportEvents.toLocaleString('en-US')}: ${hint}`);
  }
  const keep = inScope === undefined ? {} : { keep: inScope };
  if (inScope !== undefined) await recorder.record('runs', { traceId }, keep);

  const exportedAt = options.now.toISOString();
  const appInfo: ApiResponse<'appInfo'> = {
    version: options.loopscopeVersion,
    shell: 'report',
    canOpenPaths: false,
    report: { exportedAt, redacted, runId: scope?.runId ?? null },
  };
  recorder.snapshot.add('appInfo', {}, appInfo);
  recorder.snapshot.add('notices', {}, []);
  recorder.snapshot.add('recentFiles', {}, []);
  recorder.snapshot.add('libraryStatus', {}, null);
  recorder.snapshot.add('listTraces', {}, [trace]);
  recorder.snapshot.add('trace', { traceId }, trace);

  // The runs table in every order, alone and under each status or finding kind.
  const runFilters: ApiRequest<'runs'>[] = [
    { traceId },
    ...[...new Set(inReport.map((run) => run.status))].map((status) => ({ traceId, status })),
    ...[...new Set(inReport.flatMap((run) => run.findingKinds))].map((findingKind) => ({ traceId, findingKind })),
  ];
  for (const filter of runFilters) {
    for (const order of orders(runSortSchema.options)) await recorder.record('runs', { ...filter, ...order }, keep);
  }

  if (scope === null) {
    await recorder.record('traceCost', { traceId });
    await recorder.record('callLatency', { traceId });
    await recordCalls(recorder, traceId);
  } else {
    const root = await recorder.record('run', { traceId, runPk: scope.runPk });
    recorder.snapshot.add('traceCost', { traceId }, root.costWithSubAgents ?? root.run.cost);
    recorder.snapshot.add('callLatency', { traceId }, await host.call('callLatency', { traceId, runPk: scope.runPk }));
    await recordCalls(recorder, traceId, { runPk: scope.runPk });
  }
  await recordFindings(recorder, traceId, scope);

  const parseErrors = await recorder.record('parseErrors', { traceId });
  for (const error of parseErrors.rows) await recordRawLine(recorder, traceId, error.sourceId, error.line);

  for (const run of inReport) await recordRun(recorder, traceId, run.runPk, redacted);

  return recorder.snapshot.build({
    exportedAt,
    loopscopeVersion: options.loopscopeVersion,
    redacted,
    traceId,
    run: scope === null ? null : { runPk: scope.runPk, runId: scope.runId },
  });
}
