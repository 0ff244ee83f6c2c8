/**
 * The data of an HTML report (`loopscope export --html`, docs/html-report.md): the API's own
 * answers to the requests the report's views make, recorded when it was exported
 * (src-main/htmlReport/), and the page's side, `answerFromSnapshot`, which answers a request from them.
 *
 * Nothing here computes an answer: a request the export did not record (a free-text filter, a
 * search, a span collapsed) is refused with a message saying so, never answered by a second
 * implementation of the engine's queries. The only thing the page does on its own is cut a
 * recorded list into the pages a view asks for.
 */
import { z } from 'zod';
import type { ApiMethod } from '../api';

export const reportSnapshotVersion = 1;

/** The element of a report page that holds its snapshot: JSON, gzip-compressed, in base64. */
export const reportDataElementId = 'loopscope-report-data';

/** A recorded answer: whole, or a paged one held as its fields and its list as indices into `rows`. */
const recordedAnswerSchema = z.union([
  z.object({ whole: z.unknown() }),
  z.object({ fields: z.record(z.string(), z.unknown()), list: z.enum(['rows', 'templates']), items: z.array(z.number().int().min(0)) }),
]);
type RecordedAnswer = z.infer<typeof recordedAnswerSchema>;
type RecordedList = Extract<RecordedAnswer, { list: unknown }>;

export const reportSnapshotSchema = z.object({
  version: z.literal(reportSnapshotVersion),
  /** When it was exported (ISO 8601), by which Loopscope. */
  exportedAt: z.string(),
  loopscopeVersion: z.string(),
  /** True unless exported with --no-redact: every credential masked, the inspector's reveal refused. */
  redacted: z.boolean(),
  traceId: z.string(),
  /** The run the report was exported for (`--run`), with the runs it started; null: the whole trace. */
  run: z.object({ runPk: z.number().int(), runId: z.string() }).nullable(),
  /** Every row of every paged answer, each once: a row listed in several orders or filters is kept once. */
  rows: z.array(z.unknown()),
  answers: z.record(z.string(), recordedAnswerSchema),
});
export type ReportSnapshot = z.infer<typeof reportSnapshotSchema>;

const pageFields: ReadonlySet<string> = new Set(['offset', 'limit']);

/**
 * Request fields that do not choose the answer recorded: how much of a record to send (the export
 * records the API's default, a mebibyte), and the pages a jump brings along (cut from the recorded
 * list, see `withPagesAround`).
 */
const ignoredFields: Partial<Record<ApiMethod, ReadonlySet<string>>> = {
  event: new Set(['maxBytes']),
  rawLine: new Set(['maxBytes']),
  eventPosition: new Set(['pages']),
  stepPosition: new Set(['pages']),
};

/** A field at its default asks the same as the field left out: one key for both. */
const defaultValues: Partial<Record<ApiMethod, Record<string, unknown>>> = {
  runs: { sort: 'first_line', descending: false },
  calls: { sort: 'position', descending: false },
  runEvents: { hideBookkeeping: false, collapsedSpans: [] },
  eventPosition: { collapsedSpans: [] },
  stepPosition: { hideBookkeeping: false, collapsedSpans: [] },
  event: { revealSecrets: false },
  findings: { templates: false },
};

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The name of a request's answer: its method and the fields that choose it, in a fixed order. */
export function answerKey(method: ApiMethod, request: Readonly<Record<string, unknown>>): string {
  const ignored = ignoredFields[method];
  const defaults = defaultValues[method] ?? {};
  const chosen = Object.entries(request)
    .filter(([field, value]) => value !== undefined && !pageFields.has(field) && !ignored?.has(field))
    .filter(([field, value]) => !(Object.hasOwn(defaults, field) && sameJson(defaults[field], value)))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${method} ${JSON.stringify(Object.fromEntries(chosen))}`;
}

/** Which list of a method's answer is paged by `offset` and `limit`; null for an answer sent whole. */
export function pagedListOf(method: ApiMethod, request: Readonly<Record<string, unknown>>): 'rows' | 'templates' | null {
  if (method === 'findings') return request['templates'] === true ? 'templates' : 'rows';
  return method === 'runs' || method === 'runEvents' || method === 'calls' || method === 'parseErrors' ? 'rows' : null;
}

/**
 * The pages of `pageSize` rows that hold the rows within `around` of `index`, by their offsets:
 * what a jump brings along with the position it found (the API's `pages`).
 */
export function pageOffsetsAround(index: number, asked: { pageSize: number; around: number }): number[] {
  const first = Math.floor(Math.max(0, index - asked.around) / asked.pageSize);
  const last = Math.floor((index + asked.around) / asked.pageSize);
  const offsets: number[] = [];
  for (let page = first; page <= last; page += 1) offsets.push(page * asked.pageSize);
  return offsets;
}

/** Collects the answers of an export, each paged list whole (every page concatenated). */
export class ReportSnapshotBuilder {
  private readonly rows: unknown[] = [];
  private readonly rowIndex = new Map<string, number>();
  private readonly answers: Record<string, RecordedAnswer> = {};

  has(method: ApiMethod, request: Readonly<Record<string, unknown>>): boolean {
    return Object.hasOwn(this.answers, answerKey(method, request));
  }

  /** `answer`: for a paged method, its whole list (offset 0, every row). */
  add(method: ApiMethod, request: Readonly<Record<string, unknown>>, answer: unknown): void {
    const list = pagedListOf(method, request);
    const key = answerKey(method, request);
    if (list === null) {
      this.answers[key] = { whole: answer };
      return;
    }
    // The list is kept as row numbers, and the offset is the page's: each page the page cuts says its own.
    const fields: Record<string, unknown> = { ...(answer as Record<string, unknown>) };
    const listed = fields[list] as unknown[];
    delete fields[list];
    delete fields['offset'];
    this.answers[key] = { fields, list, items: listed.map((row) => this.rowNumber(row)) };
  }

  build(head: Omit<ReportSnapshot, 'version' | 'rows' | 'answers'>): ReportSnapshot {
    return { version: reportSnapshotVersion, ...head, rows: this.rows, answers: this.answers };
  }

  private rowNumber(row: unknown): number {
    const text = JSON.stringify(row);
    let index = this.rowIndex.get(text);
    if (index === undefined) {
      index = this.rows.length;
      this.rows.push(row);
      this.rowIndex.set(text, index);
    }
    return index;
  }
}

/** A request the report holds no answer for; its message says what the report does not hold and why. */
export class NotInReportError extends Error {}

function notInReport(snapshot: ReportSnapshot, method: ApiMethod, request: Readonly<Record<string, unknown>>): NotInReportError {
  if (method === 'event' && request['revealSecrets'] === true)
    return new NotInReportError('This report was exported with credentials masked, so they are not in it (`loopscope export --html --no-redact` keeps them).');
  if (method === 'search' || method === 'librarySearch') return new NotInReportError('Search is not in this report.');
  if (method === 'compareRuns') return new NotInReportError('Comparing runs is not in this report.');
  if (method === 'requestDiff' && request['previousEventId'] !== undefined)
    return new NotInReportError('This report diffs each request against the one before it only.');
  if (
    snapshot.run !== null &&
    typeof request['runPk'] === 'number' &&
    !snapshot.answers[answerKey('run', { traceId: request['traceId'], runPk: request['runPk'] })]
  )
    return new NotInReportError(`That run is not in this report: it was exported for run ${snapshot.run.runId} and the runs it started.`);
  if (typeof request['text'] === 'string') return new NotInReportError('Filtering by text is not in this report.');
  if (Array.isArray(request['collapsedSpans']) && request['collapsedSpans'].length > 0) return new NotInReportError('This report shows spans expanded only.');
  return new NotInReportError(`This report does not hold that view (${method}): it holds each table in every order, under one filter at a time.`);
}

function recordedPage(snapshot: ReportSnapshot, recorded: RecordedList, offset: number, limit: number): Record<string, unknown> {
  const items = recorded.items.slice(offset, offset + limit).map((index) => snapshot.rows[index]);
  return { ...recorded.fields, offset, [recorded.list]: items };
}

/** A jump's position with the pages of its list around it, when asked (as the API's eventPosition and stepPosition). */
function withPagesAround(
  snapshot: ReportSnapshot,
  method: 'eventPosition' | 'stepPosition',
  request: Readonly<Record<string, unknown>>,
  answer: unknown,
): unknown {
  const asked = request['pages'] as { pageSize: number; around: number; hideBookkeeping?: boolean } | undefined;
  if (asked === undefined || answer === null) return answer;
  const position = answer as { runPk?: number; index: number; visibleIndex?: number | null };
  const hideBookkeeping = method === 'eventPosition' ? asked.hideBookkeeping === true : request['hideBookkeeping'] === true;
  const listed = method === 'eventPosition' && hideBookkeeping ? position.visibleIndex : position.index;
  if (listed === null || listed === undefined) return answer;
  const list =
    snapshot.answers[
      answerKey('runEvents', {
        traceId: request['traceId'],
        runPk: method === 'eventPosition' ? position.runPk : request['runPk'],
        hideBookkeeping,
        collapsedSpans: request['collapsedSpans'],
      })
    ];
  if (list === undefined || !('list' in list)) return answer;
  const pages = pageOffsetsAround(listed, asked)
    .filter((offset) => offset < list.items.length)
    .map((offset) => recordedPage(snapshot, list, offset, asked.pageSize));
  return { ...position, pages };
}

/** The recorded answer to a request (parsed: its defaults filled in), cut to the page asked; throws NotInReportError. */
export function answerFromSnapshot(snapshot: ReportSnapshot, method: ApiMethod, request: Readonly<Record<string, unknown>>): unknown {
  // Exported with --no-redact, each event is recorded as written: the inspector's reveal asks for what is there.
  const asked = method === 'event' && !snapshot.redacted ? { ...request, revealSecrets: false } : request;
  const recorded = snapshot.answers[answerKey(method, asked)];
  if (recorded === undefined) throw notInReport(snapshot, method, request);
  if ('whole' in recorded) {
    return method === 'eventPosition' || method === 'stepPosition' ? withPagesAround(snapshot, method, request, recorded.whole) : recorded.whole;
  }
  const offset = typeof request['offset'] === 'number' ? request['offset'] : 0;
  const limit = typeof request['limit'] === 'number' ? request['limit'] : recorded.items.length;
  return recordedPage(snapshot, recorded, offset, limit);
}
