/**
 * A model request against the one before it in its run (or any other request of the run the user
 * picks): the verdict (extends / history rewritten at message k), the messages with unchanged runs
 * collapsed, every modified message as a word diff or side by side (pretty-printed JSON or text,
 * line by line; the layout is in the URL), computed in the diff worker, and the system prompt,
 * tools, parameters and tool pairing diffed separately (docs/semantics.md §9). A URL naming an
 * event that is no request of the run says what that event is and links to it (NotARequest).
 *
 * Performance marks for the benchmark (scripts/bench-request-diff.ts): `loopscope:diff-requested`
 * when the pair is asked for, `loopscope:diff-loaded` once the API's answer is rendered (word diffs pending), and
 * `loopscope:diff-shown` when every word diff is on screen (then `data-state="ready"`).
 */
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { ApiResponse, LoopscopeApi, RequestRow } from '../../shared/api';
import { useReport } from '../api/ApiContext';
import { useQuery } from '../api/useQuery';
import { SeverityBadge } from '../components/Badges';
import { baseName, formatCount, formatTokenCount, humanize, messageSpan } from '../components/format';
import { Failure, Loading } from '../components/States';
import { LongText, TextDiff } from '../components/TextDiff';
import { VisibleText, visibleText } from '../components/VisibleText';
import { useTextDiffs, type TextDiffJob, type TextDiffState } from '../diff/useTextDiffs';
import { useShortcuts } from '../keyboard/shortcuts';
import { formatRoute, routes, type DiffLayout, type Route } from '../navigation/route';
import { navigate } from '../navigation/useRoute';

type DiffRoute = Extract<Route, { view: 'diff' }>;
type Diff = ApiResponse<'requestDiff'>;
type Change = Diff['changes'][number];
type MessageRun = Diff['runs'][number];

/** The API cuts a new, removed or moved message's text at this many characters (src-main/api/requestDiff.ts). */
const apiTextLimit = 64 * 1024;
/** An appended, removed or moved message shows this much of its text until asked for all of it. */
const messagePreviewChars = 4000;
/** Changed messages shown at first (a run's first request has every message new); the rest on demand. */
const firstCards = 60;

const systemKey = 'system';
const messageKey = (nextIndex: number): string => `message:${nextIndex}`;
const toolKey = (name: string): string => `tool:${name}`;

function diffJobs(diff: Diff): TextDiffJob[] {
  const jobs: TextDiffJob[] = [];
  if (diff.system.changed) jobs.push({ key: systemKey, previous: diff.system.previous ?? '', next: diff.system.next ?? '' });
  for (const change of diff.changes) {
    if (change.status === 'modified' && change.nextIndex !== null)
      jobs.push({ key: messageKey(change.nextIndex), previous: change.previousText ?? '', next: change.nextText ?? '' });
  }
  for (const tool of diff.tools.changed) jobs.push({ key: toolKey(tool.name), previous: tool.previousJson, next: tool.nextJson, preferLines: true });
  return jobs;
}

export function RequestDiffView({ route, revision }: { route: DiffRoute; revision: number }) {
  const { traceId, runPk, eventId, previousEventId, previousTraceId, fromEventId, layout } = route;
  const key = `requestDiff:${traceId}:${eventId}:${previousEventId ?? ''}:${previousTraceId ?? ''}:${revision}`;
  useEffect(() => {
    performance.mark('loopscope:diff-requested', { detail: { eventId, previousEventId } });
  }, [key, eventId, previousEventId]);
  const run = useQuery(`run:${traceId}:${runPk}:${revision}`, (api) => api.run({ traceId, runPk }));
  const requests = useQuery(`requests:${traceId}:${runPk}:${revision}`, (api) => api.requests({ traceId, runPk }));
  // The diff is asked for once the run's requests say both events are requests of it: a
  // hand-edited URL naming another event gets a page about that event, not a failed call.
  // While a follow refreshes the list, the previous one still answers.
  const listed = requests.data === undefined ? null : new Set(requests.data.requests.map((request) => request.eventId));
  // A left side outside this run (two runs compared at their divergence: CompareView.tsx), of this
  // trace or of another, is checked on its own: a request of another run is its own request there.
  const outside =
    listed !== null && listed.has(eventId) && previousEventId !== null && (previousTraceId !== null || !listed.has(previousEventId)) ? previousEventId : null;
  const otherRun = useQuery(outside === null ? null : `otherRunRequest:${previousTraceId ?? traceId}:${outside}:${revision}`, (api) =>
    otherRunRequest(api, previousTraceId, traceId, outside!),
  );
  const notARequest =
    listed === null
      ? null
      : !listed.has(eventId)
        ? eventId
        : outside !== null && (otherRun.status === 'error' || (otherRun.status === 'ready' && otherRun.data === null))
          ? outside
          : null;
  const diffKey = notARequest !== null || (listed === null && requests.status === 'loading') || (outside !== null && otherRun.status !== 'ready') ? null : key;
  const diff = useQuery(diffKey, (api) =>
    api.requestDiff({ traceId, eventId, ...(previousEventId === null ? {} : { previousEventId }), ...(previousTraceId === null ? {} : { previousTraceId }) }),
  );

  const data = diff.status === 'ready' ? diff.data : undefined;
  useEffect(() => {
    if (data) performance.mark('loopscope:diff-loaded', { detail: { eventId: data.eventId, changes: data.changes.length } });
  }, [data]);
  const jobs = useMemo(() => (data ? diffJobs(data) : []), [data]);
  const { results, done } = useTextDiffs(data ? `${key}:${layout}` : null, jobs, layout);
  const ready = data !== undefined && done;
  useEffect(() => {
    if (!ready) return;
    performance.mark('loopscope:diff-shown', { detail: { eventId } });
    performance.measure('loopscope:diff', 'loopscope:diff-requested', 'loopscope:diff-shown');
  }, [ready, eventId]);

  const list = requests.status === 'ready' ? requests.data.requests : null;
  const position = list?.findIndex((request) => request.eventId === eventId) ?? -1;
  const current = position >= 0 ? list![position] : undefined;
  const previousInRun = position > 0 ? list![position - 1] : undefined;
  const nextInRun = position >= 0 ? list![position + 1] : undefined;
  const go = (request: RequestRow | undefined) => {
    if (request) navigate(routes.requestDiff(traceId, runPk, request.eventId, { layout }));
  };
  const backToRun = routes.run(traceId, runPk, { eventId: fromEventId ?? eventId });
  useShortcuts({
    j: () => go(nextInRun),
    k: () => go(previousInRun),
    Escape: () => navigate(backToRun),
    s: () => navigate({ ...route, layout: layout === 'words' ? 'side-by-side' : 'words' }),
  });

  const runId = run.status === 'ready' ? run.data.run.runId : null;
  const numberOf = (id: number | null): string | null => {
    const found = id === null ? undefined : list?.find((request) => request.eventId === id);
    return found === undefined ? null : `request ${found.index + 1}`;
  };

  return (
    <section
      className="request-diff-view"
      data-testid="request-diff"
      data-state={notARequest !== null ? 'not-a-request' : ready ? 'ready' : diff.status === 'error' ? 'error' : 'loading'}
      data-event-id={eventId}
      data-previous-event-id={data?.previousEventId ?? ''}
    >
      <header className="run-header diff-header">
        <div className="run-title">
          <a href={formatRoute(backToRun)} className="back-link" title="Back to the run (Esc)">
            ← {runId === null ? 'Run' : <VisibleText text={runId} />}
          </a>
          <h2>
            {notARequest !== null ? 'Not a request' : current ? `Request ${current.index + 1} of ${list!.length}` : 'Request'}
            {current && <span className="muted"> · line {current.line}</span>}
          </h2>
          <a href={formatRoute(routes.runRequests(traceId, runPk))}>All requests &amp; context growth</a>
        </div>
        <DiffNav
          route={route}
          list={list}
          previousInRun={previousInRun}
          nextInRun={nextInRun}
          onGo={go}
          showLayout={notARequest === null}
          listFailure={requests.status === 'error' ? { error: requests.error, diffPreviousEventId: data?.previousEventId ?? null } : null}
          otherRun={otherRun.status === 'ready' ? otherRun.data : null}
        />
      </header>
      <div className="scroll-pane diff-body">
        {fromEventId !== null && <FromNote traceId={traceId} fromEventId={fromEventId} request={current} />}
        {notARequest !== null && <NotARequest traceId={traceId} runPk={runPk} eventId={notARequest} side={notARequest === eventId ? 'this' : 'against'} />}
        {notARequest === null && diff.status === 'error' && <Failure what="this request diff" error={diff.error} />}
        {notARequest === null && diff.status !== 'error' && data === undefined && <Loading what="the request diff" />}
        {notARequest === null && data !== undefined && (
          <DiffBody
            diff={data}
            layout={layout}
            results={results}
            against={
              previousEventId === null
                ? 'the previous request'
                : otherRun.status === 'ready' && otherRun.data !== null
                  ? otherRunName(otherRun.data)
                  : (numberOf(data.previousEventId) ?? 'the request you picked')
            }
            row={previousEventId === null ? current : undefined}
          />
        )}
      </div>
    </section>
  );
}

/**
 * The diff's moves: to the run's previous or next request, to another left side, to the other
 * layout. Without the run's list of requests (`listFailure`), a link to the diff's own previous request.
 */
function DiffNav(props: {
  route: DiffRoute;
  list: readonly RequestRow[] | null;
  previousInRun: RequestRow | undefined;
  nextInRun: RequestRow | undefined;
  onGo: (request: RequestRow | undefined) => void;
  showLayout: boolean;
  listFailure: { error: unknown; diffPreviousEventId: number | null } | null;
  otherRun: OtherRunRequest | null;
}) {
  const { route, list, previousInRun, nextInRun, onGo, showLayout, listFailure, otherRun } = props;
  const { traceId, runPk, eventId, previousEventId, layout } = route;
  // A report records each request's diff against the previous one only.
  const report = useReport();
  return (
    <div className="diff-nav">
      <button
        type="button"
        disabled={!previousInRun}
        onClick={() => onGo(previousInRun)}
        data-testid="diff-previous-request"
        title="The request before this one (k)"
      >
        ← previous request
      </button>
      <button type="button" disabled={!nextInRun} onClick={() => onGo(nextInRun)} data-testid="diff-next-request" title="The request after this one (j)">
        next request →
      </button>
      {report === undefined && (
        <CompareWith
          list={list}
          eventId={eventId}
          previousEventId={previousEventId}
          otherRun={otherRun}
          onPick={(against) => navigate(against === otherRunOption ? route : routes.requestDiff(traceId, runPk, eventId, { previousEventId: against, layout }))}
        />
      )}
      {showLayout && <LayoutToggle route={route} />}
      {listFailure !== null && (
        <span className="muted" title={listFailure.error instanceof Error ? listFailure.error.message : String(listFailure.error)}>
          (the run's list of requests is not available: previous/next use this diff's own previous request)
        </span>
      )}
      {listFailure !== null && listFailure.diffPreviousEventId !== null && (
        <a href={formatRoute(routes.requestDiff(traceId, runPk, listFailure.diffPreviousEventId))}>open the previous request's diff</a>
      )}
    </div>
  );
}

/** A request of another run, of this trace or of another, on the left side of the diff. */
interface OtherRunRequest {
  eventId: number;
  runId: string;
  /** 0-based among its run's requests. */
  index: number;
  line: number;
  /** The file of its trace, when that is another trace. */
  file: string | null;
}

/**
 * Event `eventId` of trace `otherTraceId` (null: this trace, `traceId`) as a request of its own run
 * (found in that run's list of requests); null when it is none.
 */
async function otherRunRequest(api: LoopscopeApi, otherTraceId: string | null, traceId: string, eventId: number): Promise<OtherRunRequest | null> {
  const inTrace = otherTraceId ?? traceId;
  const { runPk, runId } = await api.event({ traceId: inTrace, eventId, maxBytes: 1 });
  const request = (await api.requests({ traceId: inTrace, runPk })).requests.find((row) => row.eventId === eventId);
  if (request === undefined) return null;
  const file = otherTraceId === null ? null : baseName((await api.run({ traceId: inTrace, runPk })).run.file);
  return { eventId, runId, index: request.index, line: request.line, file };
}

function otherRunName(request: OtherRunRequest): string {
  return `request ${request.index + 1} of run ${request.runId}${request.file === null ? '' : ` in ${request.file}`}`;
}

/** The select's value for the other run's request: apart from this run's, whose event ids another trace's may repeat. */
const otherRunOption = 'other-run';

/** The left side of the diff: the previous request (default), any other request of the run, or one of another run. */
function CompareWith({
  list,
  eventId,
  previousEventId,
  otherRun,
  onPick,
}: {
  list: readonly RequestRow[] | null;
  eventId: number;
  previousEventId: number | null;
  otherRun: OtherRunRequest | null;
  /** A request of this run by event id, the other run's request, or null: the previous request. */
  onPick: (against: number | typeof otherRunOption | null) => void;
}) {
  if (list === null) return null;
  const value = previousEventId === null ? '' : otherRun !== null && otherRun.eventId === previousEventId ? otherRunOption : String(previousEventId);
  return (
    <label className="compare-with">
      Compare with{' '}
      <select
        value={value}
        onChange={(event) => {
          const picked = event.target.value;
          onPick(picked === '' ? null : picked === otherRunOption ? otherRunOption : Number(picked));
        }}
        data-testid="diff-compare-with"
      >
        <option value="">the previous request</option>
        {otherRun !== null && <option value={otherRunOption}>{visibleText(`${otherRunName(otherRun)} (line ${otherRun.line})`)}</option>}
        {list
          .filter((request) => request.eventId !== eventId)
          .map((request) => (
            <option key={request.eventId} value={String(request.eventId)}>
              request {request.index + 1} (line {request.line})
            </option>
          ))}
      </select>
    </label>
  );
}

/** Word diff or side by side: links, so the layout is in the URL and survives a reload. */
function LayoutToggle({ route }: { route: DiffRoute }) {
  const option = (layout: DiffLayout, label: string, title: string) => (
    <a
      href={formatRoute({ ...route, layout })}
      aria-current={route.layout === layout ? 'true' : undefined}
      title={`${title} (s switches)`}
      data-testid={`diff-layout-${layout}`}
    >
      {label}
    </a>
  );
  return (
    <span className="diff-layout-toggle" role="group" aria-label="How changed texts are shown">
      {option('words', 'Word diff', 'Inserted and deleted words inline')}
      {option('side-by-side', 'Side by side', 'Before and after as two columns of lines; JSON pretty-printed first')}
    </span>
  );
}

/**
 * A diff URL naming an event that is not a request of this run (edited by hand, or out of date):
 * what the event is, where it is, and links to it and to the run's requests.
 */
function NotARequest({ traceId, runPk, eventId, side }: { traceId: string; runPk: number; eventId: number; side: 'this' | 'against' }) {
  const found = useQuery(`eventBrief:${traceId}:${eventId}`, (api) => api.event({ traceId, eventId, maxBytes: 1 }));
  if (found.status === 'loading') return <Loading what={`event ${eventId}`} />;
  if (found.status === 'error') return <Failure what={`event ${eventId}, named in this link`} error={found.error} />;
  const { event, runId } = found.data;
  const where = [event.step === null ? null : `step ${event.step}`, `line ${event.line}`].filter(Boolean).join(', ');
  return (
    <div className="state state-empty" data-testid="diff-not-a-request" data-event-type={event.type}>
      <strong>
        {side === 'this' ? 'This link' : 'The left side of this link'} names event {eventId}: a {humanize(event.type)} ({where}) of run{' '}
        <VisibleText text={runId} />, not a model request
        {found.data.runPk === runPk ? ' of this run' : ' of the run in the link'}.
      </strong>
      <div className="state-hint">
        A diff compares two model requests (or, where a format logs no requests, the responses they were sent for).{' '}
        <a href={formatRoute(routes.run(traceId, found.data.runPk, { eventId }))} data-testid="not-a-request-event-link">
          Open the {humanize(event.type)} in its run
        </a>{' '}
        · <a href={formatRoute(routes.runRequests(traceId, runPk))}>the run's requests</a>
      </div>
    </div>
  );
}

/** Why this request: `d` was pressed on an event that is not a request. */
function FromNote({ traceId, fromEventId, request }: { traceId: string; fromEventId: number; request: RequestRow | undefined }) {
  const from = useQuery(`eventBrief:${traceId}:${fromEventId}`, (api) => api.event({ traceId, eventId: fromEventId, maxBytes: 1 }));
  // Both known, or the note would change under the reader once the run's requests arrive.
  if (from.status !== 'ready' || request === undefined) return null;
  const { event } = from.data;
  return (
    <p className="banner banner-info" data-testid="diff-from-note">
      You pressed <kbd>d</kbd> on the {humanize(event.type)} on line {event.line}, which is not a request.{' '}
      {request.line > event.line
        ? `No request comes at or before it, so this is the run's first request (line ${request.line}).`
        : `This is the nearest request at or before it (line ${request.line}).`}
    </p>
  );
}

/** `row`: this request's row in the run's list, when compared with the request before it (what the analysis recorded for the pair). */
function DiffBody({
  diff,
  layout,
  results,
  against,
  row,
}: {
  diff: Diff;
  layout: DiffLayout;
  results: ReadonlyMap<string, TextDiffState>;
  against: string;
  row: RequestRow | undefined;
}) {
  return (
    <>
      {diff.reconstructed && (
        <p className="banner banner-info" data-testid="reconstructed-note">
          Reconstructed requests: this trace's format does not log what was sent to the model, so both requests were rebuilt from the trace's events (the task,
          each response, each tool result) as the messages the model had seen. The system prompt, tools and parameters appear only where the trace records them.
        </p>
      )}
      <Verdict diff={diff} against={against} row={row} />
      {diff.findings.length > 0 && (
        <ul className="plain-list diff-findings">
          {diff.findings.map((finding, index) => (
            <li key={index} data-testid="diff-finding" data-kind={finding.kind}>
              <SeverityBadge severity={finding.severity} /> <strong>{humanize(finding.kind)}</strong> <VisibleText text={finding.message} />
            </li>
          ))}
        </ul>
      )}
      <DiffSection title={`Messages (${formatCount(diff.previousMessages)} → ${formatCount(diff.messages)})`} testId="diff-messages">
        <Messages diff={diff} layout={layout} results={results} />
      </DiffSection>
      <DiffSection title="System prompt" testId="diff-system">
        <SystemPrompt system={diff.system} layout={layout} state={results.get(systemKey)} />
      </DiffSection>
      <DiffSection title="Tool definitions" testId="diff-tools">
        <Tools tools={diff.tools} layout={layout} results={results} />
      </DiffSection>
      <DiffSection title="Parameters" testId="diff-params">
        <Params params={diff.params} />
      </DiffSection>
      {(diff.missingToolResults.length > 0 || diff.orphanToolResults.length > 0) && (
        <DiffSection title="Tool calls and results in the history" testId="diff-tool-pairing">
          <ul className="plain-list">
            {diff.missingToolResults.map((missing) => (
              <li key={`missing:${missing.callId}`} data-testid="missing-tool-result">
                <SeverityBadge severity="warning" /> The call{' '}
                <code>
                  <VisibleText text={missing.callId} />
                </code>{' '}
                (<VisibleText text={missing.name} />) in message {missing.messageNumber} has no result in this request.
              </li>
            ))}
            {diff.orphanToolResults.map((orphan, index) => (
              <li key={`orphan:${index}`} data-testid="orphan-tool-result">
                <SeverityBadge severity="warning" /> The tool result in message {orphan.messageNumber}{' '}
                {orphan.callId === null ? (
                  'names no call'
                ) : (
                  <>
                    answers{' '}
                    <code>
                      <VisibleText text={orphan.callId} />
                    </code>
                    , a call no message of this request issued
                  </>
                )}
                .
              </li>
            ))}
          </ul>
        </DiffSection>
      )}
    </>
  );
}

function DiffSection({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  return (
    <section className="diff-section" data-testid={testId}>
      <h3>{title}</h3>
      {children}
    </section>
  );
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/** "message 3" / "messages 3–7" for a span of indices on one side, by the numbers the user counts. */
function numberedSpan(numbers: readonly number[], first: number, last: number): string {
  return messageSpan(numbers[first] ?? first + 1, numbers[last] ?? last + 1);
}

/**
 * The verdict, first thing on the page: extends (the expected case), history compacted, or history
 * rewritten at message k — numbered as logged (docs/semantics.md §9).
 */
function Verdict({ diff, against, row }: { diff: Diff; against: string; row: RequestRow | undefined }) {
  const { history } = diff;
  const prefixBroken = diff.system.changed || diff.tools.added.length + diff.tools.removed.length + diff.tools.changed.length > 0 || diff.tools.reordered;
  const numbers = diff.messageNumbers.next;
  if (diff.previousEventId === null) {
    return (
      <div className="verdict verdict-first" data-testid="diff-verdict" data-verdict={history.verdict} data-first="true">
        <strong>The run's first request:</strong> nothing before it to compare with; its {plural(diff.messages, 'message')} are all new.
      </div>
    );
  }
  if (history.verdict === 'extends') {
    const appended = history.appended;
    // Only the recorded usage shows this cut: the rebuilt history cannot say what was removed, so
    // the verdict is the compaction, not the extension the rebuilt messages suggest.
    const unlogged = row?.compaction?.evidence === 'token_drop' ? row.compaction : null;
    if (unlogged) {
      return (
        <div className="verdict verdict-compacted" data-testid="diff-verdict" data-verdict="extends" data-compaction="token_drop">
          <strong>History compacted before this request, without the trace logging it</strong>
          <div className="verdict-cache" data-testid="diff-token-drop">
            The provider recorded {compactionTokensLabel(unlogged)}, but the rebuilt history only grew (+{plural(appended.length, 'message')}): the harness
            compacted, truncated or started over the history without a record of it, so this diff cannot show what was removed, and the rebuilt requests from
            here on hold more than the model saw.
          </div>
          {prefixBroken && <CachePrefixNote />}
        </div>
      );
    }
    return (
      <div className="verdict verdict-extends" data-testid="diff-verdict" data-verdict="extends">
        <strong>
          Extends {against}: +{plural(appended.length, 'message')}
        </strong>
        {appended.length > 0 ? ` (${numberedSpan(numbers, appended[0]!, appended.at(-1)!)})` : ' — the same history, nothing added'}. Every earlier message is
        unchanged, so a provider's prompt cache can serve the whole previous history.
        {prefixBroken && <CachePrefixNote />}
      </div>
    );
  }
  const { counts, firstDifference, kind } = history;
  const parts = [
    counts.modified > 0 && `${formatCount(counts.modified)} modified`,
    counts.removed > 0 && `${formatCount(counts.removed)} removed`,
    counts.moved > 0 && `${formatCount(counts.moved)} moved`,
    counts.appended > 0 && `${formatCount(counts.appended)} appended`,
  ].filter((part): part is string => part !== false);
  const compacted = kind === 'compacted';
  const marker = diff.compaction?.marker ?? null;
  const recorded = row?.compaction ?? null;
  return (
    <div
      className={`verdict ${compacted ? 'verdict-compacted' : 'verdict-rewritten'}`}
      data-testid="diff-verdict"
      data-verdict="rewritten"
      data-kind={kind}
      data-first-difference={firstDifference}
      data-message-number={history.messageNumber}
    >
      <strong>{compacted ? `History compacted at message ${history.messageNumber}` : `History rewritten at message ${history.messageNumber}: ${kind}`}</strong>{' '}
      <span className="muted">
        (against {against}; {parts.join(', ')})
      </span>
      {compacted && (
        <div className="verdict-cache" data-testid="diff-compaction">
          {marker !== null ? (
            <>
              The trace marks it:{' '}
              <code>
                <VisibleText text={marker.typeRaw} />
              </code>{' '}
              on line {marker.line}.{' '}
            </>
          ) : (
            'Many earlier messages were replaced by fewer, typically a summary. '
          )}
          {recorded !== null && recorded.tokensBefore !== null && recorded.tokensAfter !== null && `The input went from ${compactionTokensLabel(recorded)}.`}
        </div>
      )}
      <div className="verdict-cache" data-testid="diff-cache-note">
        Provider prompt caching keys on an unchanged prefix: from message {history.messageNumber} on, this request cannot reuse what {against} cached
        {firstDifference > 0 ? ` (${numberedSpan(numbers, 0, firstDifference - 1)} still can)` : ''}.
      </div>
      {prefixBroken && <CachePrefixNote />}
    </div>
  );
}

/** "151,208 → 21,403 input tokens (−129,805)". */
function compactionTokensLabel(found: NonNullable<RequestRow['compaction']>): string {
  if (found.tokensBefore === null || found.tokensAfter === null) return 'fewer input tokens';
  return `${formatCount(found.tokensBefore)} → ${formatCount(found.tokensAfter)} input tokens${found.tokensRemoved === null ? '' : ` (−${formatCount(found.tokensRemoved)})`}`;
}

function CachePrefixNote() {
  return (
    <div className="verdict-cache">
      The system prompt or the tool definitions changed too: they come before the messages, so the cached prefix ends before the first message.
    </div>
  );
}

function tokensLabel(tokens: number): string {
  return `≈${formatTokenCount(tokens)} tokens`;
}

const statusWords: Readonly<Record<MessageRun['status'], string>> = {
  unchanged: 'unchanged',
  appended: 'appended',
  removed: 'removed',
  modified: 'modified',
  moved: 'moved',
};

/** The messages, run by run: unchanged runs in one line each, every other message shown (the first `firstCards`, then on demand). */
function Messages({ diff, layout, results }: { diff: Diff; layout: DiffLayout; results: ReadonlyMap<string, TextDiffState> }) {
  const [cardLimit, setCardLimit] = useState(firstCards);
  let cards = 0;
  const byNext = new Map<number, Change>();
  const byPrevious = new Map<number, Change>();
  for (const change of diff.changes) {
    if (change.nextIndex !== null) byNext.set(change.nextIndex, change);
    if (change.status === 'removed' && change.previousIndex !== null) byPrevious.set(change.previousIndex, change);
  }
  if (diff.runs.length === 0) return <p className="muted">Neither request has messages.</p>;
  return (
    <div className="diff-runs">
      {diff.runs.map((run, index) => {
        const span = run.status === 'removed' ? run.previous : run.next;
        if (span === null) return null;
        const sideNumbers = run.status === 'removed' ? diff.messageNumbers.previous : diff.messageNumbers.next;
        const label = `${numberedSpan(sideNumbers, span.first, span.last)} ${statusWords[run.status]}`;
        const moved = run.previous !== null && run.next !== null && run.previous.first !== run.next.first;
        if (run.status === 'unchanged') {
          return (
            <div
              key={index}
              className="diff-run diff-run-unchanged"
              data-testid="diff-run"
              data-status="unchanged"
              title="Token counts are estimates (o200k tokenizer)"
            >
              {label}
              {moved && ` (were ${numberedSpan(diff.messageNumbers.previous, run.previous!.first, run.previous!.last)})`}, {tokensLabel(run.tokens)}{' '}
              <span className="est-mark">est.</span>
            </div>
          );
        }
        const changes: Change[] = [];
        for (let message = span.first; message <= span.last; message += 1) {
          const change = run.status === 'removed' ? byPrevious.get(message) : byNext.get(message);
          if (change) changes.push(change);
        }
        const shown = changes.slice(0, Math.max(0, cardLimit - cards));
        cards += changes.length;
        return (
          <div key={index} className={`diff-run diff-run-${run.status}`} data-testid="diff-run" data-status={run.status}>
            <div className="diff-run-label">
              {label}, {tokensLabel(run.tokens)} <span className="est-mark">est.</span>
            </div>
            {shown.map((change) => (
              <MessageChange
                key={`${change.status}:${change.previousIndex}:${change.nextIndex}`}
                change={change}
                numbers={diff.messageNumbers}
                layout={layout}
                state={change.nextIndex === null ? undefined : results.get(messageKey(change.nextIndex))}
              />
            ))}
          </div>
        );
      })}
      {cards > cardLimit && (
        <button type="button" onClick={() => setCardLimit((limit) => limit + 200)} data-testid="diff-more-messages">
          Show more changed messages ({formatCount(cards - cardLimit)} not shown yet)
        </button>
      )}
    </div>
  );
}

function MessageChange({
  change,
  numbers,
  layout,
  state,
}: {
  change: Change;
  numbers: Diff['messageNumbers'];
  layout: DiffLayout;
  state: TextDiffState | undefined;
}) {
  const index = change.nextIndex ?? change.previousIndex ?? 0;
  const text = change.nextText ?? change.previousText ?? '';
  const number =
    change.nextIndex !== null ? numbers.next[change.nextIndex] : change.previousIndex !== null ? numbers.previous[change.previousIndex] : undefined;
  const was = change.previousIndex === null ? undefined : numbers.previous[change.previousIndex];
  let where = `message ${number ?? index + 1}`;
  if ((change.status === 'moved' || change.status === 'modified') && was !== undefined && was !== number) where += ` (was message ${was})`;
  const cut = change.excerpt === null && ((change.previousText?.length ?? 0) > apiTextLimit || (change.nextText?.length ?? 0) > apiTextLimit);
  return (
    <article
      className={`diff-message diff-message-${change.status}`}
      data-testid="diff-message"
      data-status={change.status}
      data-index={index}
      data-role={change.role}
    >
      <header className="diff-message-header">
        <span className={`badge diff-status diff-status-${change.status}`}>{change.status}</span> <strong>{where}</strong> · <VisibleText text={change.role} />
        {cut && <span className="muted"> · only its first 64 KiB are shown (the API cuts longer messages)</span>}
        {change.excerpt !== null && (
          <span className="muted" data-testid="diff-excerpt">
            {' '}
            · a long message: {change.excerpt}
          </span>
        )}
      </header>
      {change.status === 'modified' ? (
        <TextDiff previous={change.previousText ?? ''} next={change.nextText ?? ''} state={state} layout={layout} testId="message-diff" />
      ) : text === '' ? (
        <p className="muted">(no text)</p>
      ) : (
        <div
          className={`diff-message-text wrap-text ${change.status === 'appended' ? 'diff-added-text' : change.status === 'removed' ? 'diff-removed-text' : ''}`}
        >
          <LongText text={text} limit={messagePreviewChars} />
        </div>
      )}
    </article>
  );
}

function SystemPrompt({ system, layout, state }: { system: Diff['system']; layout: DiffLayout; state: TextDiffState | undefined }) {
  if (!system.changed) {
    if (system.next === null) return <p className="muted">Neither request has a system prompt.</p>;
    return <p className="muted">Unchanged ({plural(system.next.length, 'character')}).</p>;
  }
  return (
    <>
      {system.previous === null && <p className="muted">The previous request had no system prompt: all of it is new.</p>}
      {system.next === null && <p className="muted">This request has no system prompt: all of the previous one is gone.</p>}
      <TextDiff previous={system.previous ?? ''} next={system.next ?? ''} state={state} layout={layout} testId="system-diff" />
    </>
  );
}

function Tools({ tools, layout, results }: { tools: Diff['tools']; layout: DiffLayout; results: ReadonlyMap<string, TextDiffState> }) {
  if (tools.added.length + tools.removed.length + tools.changed.length === 0) return <p className="muted">Unchanged.</p>;
  return (
    <ul className="plain-list">
      {tools.added.map((name) => (
        <li key={`added:${name}`} data-testid="tool-change" data-change="added">
          <span className="badge diff-status diff-status-appended">added</span>{' '}
          <code>
            <VisibleText text={name} />
          </code>
        </li>
      ))}
      {tools.removed.map((name) => (
        <li key={`removed:${name}`} data-testid="tool-change" data-change="removed">
          <span className="badge diff-status diff-status-removed">removed</span>{' '}
          <code>
            <VisibleText text={name} />
          </code>
        </li>
      ))}
      {tools.changed.map((tool) => (
        <li key={`changed:${tool.name}`} data-testid="tool-change" data-change="changed">
          <span className="badge diff-status diff-status-modified">changed</span>{' '}
          <code>
            <VisibleText text={tool.name} />
          </code>
          : {[tool.description && 'description changed', tool.parameters && 'parameter schema changed'].filter(Boolean).join(', ') || 'definition changed'}
          <div className="tool-json-diff">
            <TextDiff previous={tool.previousJson} next={tool.nextJson} state={results.get(toolKey(tool.name))} layout={layout} testId="tool-diff" />
          </div>
        </li>
      ))}
    </ul>
  );
}

function paramValue(value: unknown): string {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function Params({ params }: { params: Diff['params'] }) {
  if (params.length === 0) return <p className="muted">Unchanged (model, temperature, max tokens, tool choice, stream, …).</p>;
  return (
    <table className="diff-params">
      <thead>
        <tr>
          <th>parameter</th>
          <th>before</th>
          <th>after</th>
        </tr>
      </thead>
      <tbody>
        {params.map((param) => (
          <tr key={param.key} data-testid="param-change" data-key={param.key}>
            <td>
              <code>
                <VisibleText text={param.key} />
              </code>
            </td>
            <td className="wrap-text">
              <del className="diff-del">
                <VisibleText text={paramValue(param.previous)} />
              </del>
            </td>
            <td className="wrap-text">
              <ins className="diff-ins">
                <VisibleText text={paramValue(param.next)} />
              </ins>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
