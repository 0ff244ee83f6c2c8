import { Suspense, useContext, useEffect, useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react';
import type { TraceSummary } from '../../shared/api';
import { useApi, useReport, type ReportFacts } from '../api/ApiContext';
import { useQuery } from '../api/useQuery';
import { errorMessage } from '../api/client';
import { CostText } from '../components/CostText';
import { baseName, formatBytes, formatCount, formatDuration, formatProgress } from '../components/format';
import { MiddleEllipsis } from '../components/MiddleEllipsis';
import { useLatest } from '../components/useLatest';
import { Empty, Failure, Loading } from '../components/States';
import { VisibleText, visibleText } from '../components/VisibleText';
import { ShowShortcutsContext, useShortcuts } from '../keyboard/shortcuts';
import { formatRoute, routes, type Route, type TraceTab } from '../navigation/route';
import { navigate } from '../navigation/useRoute';
import { CallsView, CompareView, FindingsView, ParseErrorsView, RequestDiffView, RunView, SearchView } from './lazyViews';
import { RunsTable } from './RunsTable';
import { prefetchFirstRuns } from './runsQuery';
import { rememberListRoute } from './lastListRoute';
import './viewStyles';

type TraceRoute = Exclude<Route, { view: 'start' }>;

/**
 * How often an ingesting trace is asked for its state: often, so the end of an ingest (or a
 * reused database turning ready, a reopen) shows at once; the views reload what they show on new
 * progress at most every `refreshMs`, and at once when the state changes.
 */
const pollMs = 100;
const refreshMs = 400;
/** How often a followed trace is asked whether its file grew: its new lines show within a second of being written. */
const followPollMs = 250;

/** Whether the summary says the views show something else now: another state, or a followed file's new lines. */
function changedView(shown: TraceSummary, summary: TraceSummary): boolean {
  return (
    shown.state !== summary.state ||
    shown.follow?.state !== summary.follow?.state ||
    shown.follow?.revision !== summary.follow?.revision ||
    shown.notice !== summary.notice
  );
}

/**
 * The trace's summary, polled while it is being ingested. `revision` goes up with every poll that
 * saw progress and once more when the ingest ends, so the views reload what they show and fill
 * in as runs arrive.
 */
function useTraceSummary(traceId: string): { summary: TraceSummary | null; error: unknown; revision: number; reload: () => void } {
  const api = useApi();
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<{ traceId: string; attempt: number; summary: TraceSummary | null; error: unknown; revision: number }>({
    traceId,
    attempt,
    summary: null,
    error: null,
    revision: 0,
  });

  useEffect(() => {
    let active = true;
    let timer: number | undefined;
    // What the views were last refreshed with, in this effect (a new trace or attempt starts over).
    let shown: TraceSummary | null = null;
    let refreshedAt = 0;
    const poll = (): void => {
      api.trace({ traceId }).then(
        (summary) => {
          if (!active) return;
          const renewed = shown === null || changedView(shown, summary);
          const { progress } = summary;
          const progressed =
            shown !== null &&
            (shown.progress.bytesRead !== progress.bytesRead ||
              shown.progress.events !== progress.events ||
              shown.progress.parseErrors !== progress.parseErrors);
          if (renewed || (progressed && performance.now() - refreshedAt >= refreshMs)) {
            shown = summary;
            refreshedAt = performance.now();
            setState((previous) => ({ traceId, attempt, summary, error: null, revision: previous.revision + 1 }));
          }
          if (summary.state === 'ingesting') timer = window.setTimeout(poll, pollMs);
          else if (summary.follow !== null && summary.follow.state !== 'stopped') timer = window.setTimeout(poll, followPollMs);
        },
        (error: unknown) => {
          // Another trace's summary must not stand in for this one (an unknown trace id answers 404).
          if (active) setState((previous) => ({ ...previous, summary: previous.traceId === traceId ? previous.summary : null, traceId, attempt, error }));
        },
      );
    };
    poll();
    return () => {
      active = false;
      window.clearTimeout(timer);
    };
  }, [api, traceId, attempt]);

  const current = state.traceId === traceId;
  return {
    summary: current ? state.summary : null,
    error: current ? state.error : null,
    revision: state.revision,
    reload: () => setAttempt((value) => value + 1),
  };
}

const tabs: { tab: TraceTab; label: string }[] = [
  { tab: 'runs', label: 'Runs' },
  { tab: 'findings', label: 'Findings' },
  { tab: 'calls', label: 'Calls' },
  { tab: 'parse-errors', label: 'Parse errors' },
];

export function TraceView({ route }: { route: TraceRoute }) {
  const api = useApi();
  const { summary, error, revision, reload } = useTraceSummary(route.traceId);
  // An HTML report holds what was recorded: no search, nothing to reload.
  const report = useReport();
  // Opening a trace on its runs table: the table's first page is asked for with the summary, not after it.
  const opening = useLatest(route);
  useEffect(() => {
    // Read when the trace view opens (or turns to another trace), not on every route change: within it, the table asks for itself.
    const opened = opening.current;
    if (opened.view === 'trace' && opened.tab === 'runs') return prefetchFirstRuns(api, opened.traceId, opened.params);
  }, [api, opening, route.traceId]);
  const searchBox = useRef<HTMLInputElement>(null);
  useShortcuts({
    'mod+f': () => {
      searchBox.current?.focus();
      searchBox.current?.select();
    },
  });

  useEffect(() => rememberListRoute(route), [route]);

  useEffect(() => {
    document.title = summary ? `${visibleText(summary.name)} — Loopscope` : 'Loopscope';
  }, [summary]);

  if (summary === null) {
    return (
      <main className="trace">
        <TopBar />
        {error !== null ? <Failure what="this trace" error={error} onRetry={reload} /> : <Loading what="the trace" />}
      </main>
    );
  }

  const activeTab = route.view === 'trace' ? route.tab : 'runs';
  const query = route.view === 'trace' && route.tab === 'search' ? (route.params.q ?? '') : '';
  return (
    <main className="trace" data-testid="trace-view" data-trace-state={summary.state}>
      <TopBar>
        <div className="trace-title" title={summary.path}>
          <strong>
            <MiddleEllipsis text={summary.name} kind="path" title={summary.path} />
          </strong>
          <span className="muted">
            {summary.format ?? 'detecting format…'}
            {summary.companions.length > 0 && ` · with ${summary.companions.length} sub-agent file${summary.companions.length === 1 ? '' : 's'}`}
            {summary.state !== 'ingesting' && summary.state !== 'failed' && <TraceCost traceId={summary.traceId} revision={revision} />}
          </span>
        </div>
        <nav className="tabs" aria-label="Trace views">
          {tabs.map(({ tab, label }) => (
            <a
              key={tab}
              href={formatRoute(routes.trace(summary.traceId, tab))}
              className={`tab ${activeTab === tab && route.view === 'trace' ? 'tab-active' : ''}`}
              aria-current={activeTab === tab && route.view === 'trace' ? 'page' : undefined}
              data-testid={`tab-${tab}`}
            >
              {label}
              {tab === 'parse-errors' && summary.progress.parseErrors > 0 && <span className="tab-count">{formatCount(summary.progress.parseErrors)}</span>}
            </a>
          ))}
        </nav>
        {report === undefined && (
          <>
            <SearchBox inputRef={searchBox} traceId={summary.traceId} initial={query} />
            <ReloadButton traceId={summary.traceId} disabled={summary.state === 'ingesting'} onReloaded={reload} />
          </>
        )}
      </TopBar>
      {report !== undefined && <ReportBanner report={report} />}
      <IngestStatus summary={summary} />
      <FollowStatus summary={summary} />
      {summary.state === 'failed' ? (
        <div className="state state-error" role="alert" data-testid="error">
          <strong>Could not read this trace.</strong>
          <div className="state-message">
            <VisibleText text={summary.error ?? 'The ingest failed.'} />
          </div>
          <div className="state-hint">
            Check that the file exists and is readable, then reload it. `loopscope analyze FILE` prints the same reason in a terminal.
          </div>
        </div>
      ) : (
        <Suspense fallback={<Loading what="the view" />}>
          <TraceBody route={route} summary={summary} revision={revision} />
        </Suspense>
      )}
    </main>
  );
}

/** The whole trace's cost, every response of every run (docs/semantics.md §19), read again as a followed file grows. */
function TraceCost({ traceId, revision }: { traceId: string; revision: number }) {
  const cost = useQuery(`traceCost:${traceId}:${revision}`, (api) => api.traceCost({ traceId }));
  if (cost.data === undefined || (cost.data.usd === null && cost.data.unpricedResponses === 0)) return null;
  return (
    <>
      {' · cost '}
      <CostText cost={cost.data} what="every response of the trace" testId="trace-cost" />
    </>
  );
}

function TraceBody({ route, summary, revision }: { route: TraceRoute; summary: TraceSummary; revision: number }) {
  const runsTab = route.view === 'trace' && route.tab === 'runs';
  // Only the runs table answers during an ingest (the API says `not_ready` to the rest).
  if (summary.state === 'ingesting' && !runsTab) {
    return (
      <Empty title="This trace is still being read.">
        This view appears when reading is done. Meanwhile the <a href={formatRoute(routes.trace(summary.traceId))}>runs table</a> fills in as runs are read.
      </Empty>
    );
  }
  if (route.view === 'run') return <RunView route={route} revision={revision} followed={summary.follow !== null && summary.follow.state !== 'stopped'} />;
  if (route.view === 'diff') return <RequestDiffView route={route} revision={revision} />;
  if (route.view === 'compare') return <CompareView route={route} revision={revision} />;
  switch (route.tab) {
    case 'runs':
      return (
        <RunsTable
          traceId={summary.traceId}
          params={route.params}
          revision={revision}
          ingesting={summary.state === 'ingesting'}
          oneFile={summary.companions.length === 0}
        />
      );
    case 'findings':
      return <FindingsView traceId={summary.traceId} revision={revision} />;
    case 'calls':
      return <CallsView traceId={summary.traceId} params={route.params} revision={revision} />;
    case 'parse-errors':
      return <ParseErrorsView traceId={summary.traceId} revision={revision} />;
    case 'search':
      return <SearchView traceId={summary.traceId} query={route.params.q ?? ''} revision={revision} />;
  }
}

function TopBar({ children }: { children?: ReactNode }) {
  const showShortcuts = useContext(ShowShortcutsContext);
  return (
    <header className="top-bar">
      <a className="brand" href={formatRoute(routes.start())} title="All open traces">
        Loopscope
      </a>
      {children}
      <button type="button" className="icon-button" title="Keyboard shortcuts (?)" onClick={showShortcuts}>
        ?
      </button>
    </header>
  );
}

function SearchBox({ inputRef, traceId, initial }: { inputRef: RefObject<HTMLInputElement | null>; traceId: string; initial: string }) {
  const [text, setText] = useState(initial);
  useEffect(() => setText(initial), [initial]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const query = text.trim();
    if (query !== '') navigate(routes.trace(traceId, 'search', { q: query }));
  };
  return (
    <form className="search-box" role="search" onSubmit={submit}>
      <input
        ref={inputRef}
        type="search"
        placeholder="Search the trace (Ctrl+F)"
        aria-label="Search the trace's messages, arguments and results"
        value={text}
        maxLength={500}
        onChange={(event) => setText(event.target.value)}
        // Esc leaves the box, so the keys work as shortcuts again.
        onKeyDown={(event) => {
          if (event.key === 'Escape') event.currentTarget.blur();
        }}
        data-testid="search-input"
      />
    </form>
  );
}

function ReloadButton({ traceId, disabled, onReloaded }: { traceId: string; disabled: boolean; onReloaded: () => void }) {
  const api = useApi();
  const [error, setError] = useState<string | null>(null);
  const reload = () => {
    setError(null);
    api.reload({ traceId }).then(
      () => onReloaded(),
      (failure: unknown) => setError(errorMessage(failure)),
    );
  };
  return (
    <button type="button" onClick={reload} disabled={disabled} title={error ?? 'Read the file again (a changed file is ingested again)'}>
      {error === null ? 'Reload' : 'Reload failed'}
    </button>
  );
}

/** What an HTML report is, said once above its views: a copy made at one time, read-only, with or without its credentials. */
function ReportBanner({ report }: { report: ReportFacts }) {
  return (
    <div className="banner banner-info" role="note" data-testid="report-banner" title="Everything shown here was recorded in this file when it was exported">
      Report{report.runId !== null && <> of run {<VisibleText text={report.runId} />} and the runs it started</>}, exported{' '}
      <time dateTime={report.exportedAt}>{report.exportedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}</time> · read-only ·{' '}
      {report.redacted ? 'credentials masked' : 'credentials kept as written'} · search and text filters need the trace open in Loopscope
    </div>
  );
}

function IngestStatus({ summary }: { summary: TraceSummary }) {
  const { progress } = summary;
  if (summary.state !== 'ingesting') return null;
  const fraction = progress.totalBytes > 0 ? progress.bytesRead / progress.totalBytes : 0;
  return (
    <div className="ingest" data-testid="ingest-progress">
      <progress max={1} value={fraction} aria-label={`Reading ${baseName(summary.path)}`} />
      <span>
        Reading {baseName(summary.path)}: {formatBytes(progress.bytesRead)} of {formatBytes(progress.totalBytes)} (
        {formatProgress(progress.bytesRead, progress.totalBytes)}) · {formatCount(progress.events)} events
        {progress.parseErrors > 0 && ` · ${formatCount(progress.parseErrors)} parse errors`} — runs appear as they are read.
      </span>
    </div>
  );
}

/** A followed file: whether it is growing, and what that means for its runs; and what happened to it (truncated, rotated, deleted). */
function FollowStatus({ summary }: { summary: TraceSummary }) {
  const { follow, notice } = summary;
  if (follow === null && notice === null) return null;
  const idleAfter = follow === null ? '' : formatDuration(follow.idleAfterMs);
  return (
    <>
      {notice !== null && (
        <div className="banner banner-info" role="status" data-testid="trace-notice">
          <VisibleText text={notice} />
        </div>
      )}
      {follow !== null && (
        <div className="follow-status muted" data-testid="follow-status" data-follow-state={follow.state}>
          <span className="badge live-badge">{follow.state === 'following' ? 'Live' : follow.state === 'idle' ? 'Idle' : 'Not followed'}</span>
          {follow.state === 'following' &&
            ` Following the file: new lines appear as they are written; a run without a terminal event is running, its unanswered calls pending, until the file has not grown for ${idleAfter}.`}
          {follow.state === 'idle' &&
            ` The file has not grown for ${idleAfter}: runs without a terminal event are shown unterminated, their unanswered calls dangling. Still watching: they run again if it grows.`}
          {follow.state === 'stopped' && ' What was read stays shown.'}
          {follow.grewAt !== null && ` Last grew at ${new Date(follow.grewAt).toLocaleTimeString()}.`}
        </div>
      )}
    </>
  );
}
