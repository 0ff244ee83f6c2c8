/** Every tool call of the trace: tool, arguments, how it was answered, latency; filtered by tool and state. */
import { useCallback } from 'react';
import { callStateSchema, type CallRow } from '../../shared/api';
import { useApi } from '../api/ApiContext';
import { usePagedRows } from '../api/usePagedRows';
import { useQuery } from '../api/useQuery';
import { CallStateBadge } from '../components/Badges';
import { formatCount, formatDuration, humanize } from '../components/format';
import { PagedList } from '../components/PagedList';
import { RunStepLine } from '../components/RunStepLine';
import { Empty, Failure } from '../components/States';
import { VisibleText, visibleText } from '../components/VisibleText';
import { formatRoute, routes, type RouteParams } from '../navigation/route';
import { navigate } from '../navigation/useRoute';

export function CallsView({ traceId, params, revision }: { traceId: string; params: RouteParams; revision: number }) {
  const api = useApi();
  const stateFilter = callStateSchema.safeParse(params.state);
  const request = { traceId, name: params.tool || undefined, state: stateFilter.success ? stateFilter.data : undefined };
  const calls = usePagedRows(JSON.stringify(request), revision, (offset, limit) => api.calls({ ...request, offset, limit }), 200);
  // The tool names of the whole trace, whatever the filters.
  const names = useQuery(`callNames:${traceId}:${revision}`, (client) => client.calls({ traceId, limit: 1 }).then((page) => page.names));
  const setFilter = useCallback(
    (changes: Record<string, string | undefined>) => {
      const next: Record<string, string> = {};
      for (const [key, value] of Object.entries({ ...params, ...changes })) if (value !== undefined && value !== '') next[key] = value;
      navigate(routes.trace(traceId, 'calls', next), { replace: true });
    },
    [params, traceId],
  );
  // With one run in the trace, its id would be the same on every row: the column says step and line only.
  const runCount = useQuery(`runCount:${traceId}:${revision}`, (client) => client.runs({ traceId, limit: 1 }).then((page) => page.total));
  const oneRun = runCount.status === 'ready' && runCount.data === 1;
  const renderRow = useCallback((call: CallRow) => <CallItem traceId={traceId} call={call} oneRun={oneRun} />, [traceId, oneRun]);

  return (
    <section className="list-view" data-testid="calls-view" data-state={calls.error !== null ? 'error' : calls.total !== null && calls.fresh ? 'ready' : 'loading'}>
      <div className="filters" role="group" aria-label="Filter calls">
        <label>
          Tool{' '}
          <select value={request.name ?? ''} onChange={(event) => setFilter({ tool: event.target.value })} data-testid="filter-tool">
            <option value="">any</option>
            {(names.status === 'ready' ? names.data : []).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          State{' '}
          <select value={request.state ?? ''} onChange={(event) => setFilter({ state: event.target.value })} data-testid="filter-call-state">
            <option value="">any</option>
            {callStateSchema.options.map((state) => (
              <option key={state} value={state}>
                {humanize(state)}
              </option>
            ))}
          </select>
        </label>
        <span className="muted filters-total">{calls.total === null ? '' : `${formatCount(calls.total)} call${calls.total === 1 ? '' : 's'}`}</span>
      </div>
      {calls.error !== null && <Failure what="the calls" error={new Error(calls.error)} />}
      {calls.total === 0 && <Empty title={request.name !== undefined || request.state !== undefined ? 'No call matches these filters.' : 'No tool calls in this trace.'} />}
      <div className="list-header call-grid" aria-hidden="true">
        <span>{oneRun ? 'Step · line' : 'Run · step · line'}</span>
        <span>Tool</span>
        <span>Arguments</span>
        <span>Result</span>
        <span>Latency</span>
      </div>
      <PagedList rows={calls} estimateSize={36} renderRow={renderRow} testId="calls-list" label="Tool calls" />
    </section>
  );
}

function CallItem({ traceId, call, oneRun }: { traceId: string; call: CallRow; oneRun: boolean }) {
  return (
    <a
      href={formatRoute(routes.run(traceId, call.runPk, { step: call.step, eventId: call.eventId }))}
      className={`list-row call-grid ${call.state === 'error' || call.state === 'dangling' ? 'row-error' : ''}`}
      data-testid="call-row"
      data-call-state={call.state ?? ''}
      data-tool={call.name}
    >
      <RunStepLine runId={oneRun ? undefined : call.runId} step={call.step} line={call.line} />
      <span className="ellipsis" title={visibleText(call.name)}>
        <VisibleText text={call.name} />
      </span>
      <span className={`ellipsis mono ${call.argsError !== null ? 'chip-error' : ''}`} title={visibleText(call.argsError ?? call.argsSummary ?? '')}>
        <VisibleText text={call.argsError ?? call.argsSummary ?? ''} />
      </span>
      <span>
        <CallStateBadge state={call.state} errorCode={call.errorCode} />
      </span>
      <span className="numeric ellipsis">
        {call.latencyMs !== null ? (
          formatDuration(call.latencyMs, '—')
        ) : call.state === 'ok' || call.state === 'error' ? (
          // Answered, but the trace records no duration for it: never shown as a made-up 0 ms (docs/semantics.md §11).
          <span className="muted" title="The trace records no duration for this call" data-testid="latency-not-recorded">
            not recorded
          </span>
        ) : (
          '—'
        )}
      </span>
    </a>
  );
}
