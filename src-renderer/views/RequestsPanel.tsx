/**
 * A run's requests and its context growth (docs/semantics.md §9, docs/ui.md): first the answer to
 * "where did the context grow most, and what caused it" (LargestGrowth.tsx), then the chart of
 * input tokens per request with the cumulative input and its fit to N×S + T×N(N+1)/2 (in words
 * only as far as the fit's sign and quality allow; GrowthChart.tsx), and a table of what each
 * request added, sortable by the tokens it added (Δ; the order is in the URL). Every request
 * opens its diff.
 */
import type { ApiResponse, RequestRow } from '../../shared/api';
import { useQuery } from '../api/useQuery';
import { formatCount, formatTokenCount, humanize } from '../components/format';
import { Empty, Failure, Loading } from '../components/States';
import { VisibleText } from '../components/VisibleText';
import { formatRoute, routes, type RequestSort } from '../navigation/route';
import { navigate } from '../navigation/useRoute';
import { GrowthChart } from './GrowthChart';
import { compactionLabel, LargestGrowth, topGrowthTurns } from './LargestGrowth';
import { nextRequestSort, sortRequests } from './requestOrder';

type RunRequests = ApiResponse<'requests'>;
type Growth = RunRequests['growth'];

export function RequestsPanel({ traceId, runPk, revision, sort }: { traceId: string; runPk: number; revision: number; sort: RequestSort | null }) {
  const requests = useQuery(`requests:${traceId}:${runPk}:${revision}`, (api) => api.requests({ traceId, runPk }));
  const data = requests.status === 'ready' ? requests.data : undefined;
  return (
    <div className="scroll-pane requests-panel" data-testid="requests-panel" data-state={requests.status}>
      {requests.status === 'error' && <Failure what="the run's requests" error={requests.error} />}
      {requests.status === 'loading' && <Loading what="the run's requests" />}
      {data && data.requests.length === 0 && (
        <Empty title="This run has no model requests.">Neither logged requests nor model responses to rebuild them from.</Empty>
      )}
      {data && data.requests.length > 0 && <RequestsBody traceId={traceId} runPk={runPk} data={data} sort={sort} />}
    </div>
  );
}

function RequestsBody({ traceId, runPk, data, sort }: { traceId: string; runPk: number; data: RunRequests; sort: RequestSort | null }) {
  const { requests, growth } = data;
  const open = (request: RequestRow) => navigate(routes.requestDiff(traceId, runPk, request.eventId));
  const reconstructed = requests.some((request) => request.reconstructed);
  const estimated = requests.filter((request) => request.inputTokensSource === 'estimated').length;
  const total = growth.cumulative.at(-1);
  const compacted = requests.filter((request) => request.compaction !== null);
  const highlighted = growth.largestGrowth.slice(0, topGrowthTurns).map((step) => step.requestIndex);
  return (
    <>
      {reconstructed && (
        <p className="banner banner-info" data-testid="requests-reconstructed">
          This trace's format does not log its requests: each request is rebuilt from the trace's events as the messages the model had seen before its response.
        </p>
      )}
      <section className="growth" data-testid="growth">
        <p className="growth-summary" data-testid="growth-summary">
          <strong>Context growth:</strong> {plural(requests.length, 'request')}
          {total !== undefined && `, ${formatCount(Math.round(total))} input tokens in all`}
          {estimated > 0 && (
            <>
              {' '}
              ({estimated === requests.length ? 'all' : formatCount(estimated)} <span className="est-mark">estimated</span> with the o200k tokenizer: the trace
              records no usage
              {estimated === requests.length ? '' : ' for those'})
            </>
          )}
          .
        </p>
        <LargestGrowth requests={requests} growth={growth} traceId={traceId} runPk={runPk} />
        <GrowthChart requests={requests} growth={growth} highlighted={highlighted} onOpen={open} />
        <div className="growth-facts">
          {growth.fit ? (
            <FitSentence fit={growth.fit} compacted={compacted} />
          ) : (
            <p className="muted" data-testid="growth-fit">
              Too few requests with a token count to fit N×S + T×N(N+1)/2.
            </p>
          )}
        </div>
      </section>
      <section className="requests-table-section">
        <h3>Requests</h3>
        <RequestsTable
          requests={requests}
          growth={growth}
          sort={sort}
          onSort={(next) => navigate(routes.runRequests(traceId, runPk, next))}
          traceId={traceId}
          runPk={runPk}
          onOpen={open}
          highlighted={new Set(highlighted)}
        />
      </section>
    </>
  );
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/** What a request added, largest first: "tool result of read_file: 11.9k · assistant: 120". */
function addedLabel(added: RequestRow['added']): string {
  return [...added]
    .sort((a, b) => b.tokens - a.tokens)
    .map((entry) => {
      const who = entry.tool !== null ? `${entry.role} ${entry.tool}` : entry.role;
      return `${who}${entry.messages > 1 ? ` ×${entry.messages}` : ''}: ${formatTokenCount(entry.tokens)}`;
    })
    .join(' · ');
}

/** "request 3" / "requests 3, 7". */
function requestList(requests: readonly RequestRow[]): string {
  return `request${requests.length === 1 ? '' : 's'} ${requests.map((request) => request.index + 1).join(', ')}`;
}

/** The fit in words, no further than its shape allows: a negative T never "grows with the square of the turns". */
function FitSentence({ fit, compacted }: { fit: NonNullable<Growth['fit']>; compacted: readonly RequestRow[] }) {
  const r2 = fit.rSquared === null ? '' : ` (R² ${fit.rSquared.toFixed(3)})`;
  const figures = (
    <>
      <strong>S ≈ {formatTokenCount(fit.prefixTokens)} tokens</strong> resent by every request and{' '}
      <strong>T ≈ {formatTokenCount(fit.tokensPerTurn)} tokens</strong> per turn
      {r2}
    </>
  );
  if (fit.shape === 'irregular') {
    const why =
      compacted.length > 0
        ? `its history was compacted before ${requestList(compacted)}, so no one N×S + T×N(N+1)/2 describes the requests on both sides`
        : fit.prefixTokens < 0
          ? 'the best fit of N×S + T×N(N+1)/2 needs a negative prefix, which no run can have'
          : 'the best fit of N×S + T×N(N+1)/2 is poor';
    return (
      <p data-testid="growth-fit" data-shape={fit.shape}>
        This run does not grow by a steady step: {why}.{' '}
        <span className="muted">
          (Best fit: S ≈ {formatTokenCount(fit.prefixTokens)}, T ≈ {formatTokenCount(fit.tokensPerTurn)}
          {r2}.)
        </span>
      </p>
    );
  }
  const meaning =
    fit.shape === 'quadratic'
      ? "each request is about S + n×T tokens, and the run's total grows with the square of its turns."
      : fit.shape === 'shrinking'
        ? "each request is smaller than the one before (the history is trimmed as it goes), so the run's total grows less than linearly with its turns."
        : "the requests hardly grow: each is about S tokens, and the run's total grows linearly with its turns.";
  return (
    <p data-testid="growth-fit" data-shape={fit.shape}>
      The cumulative input fits <strong>N×S + T×N(N+1)/2</strong> with {figures}: {meaning}
    </p>
  );
}

/** A sortable header: a button, `aria-sort` always, an arrow only while the table is sorted by it. */
function SortHeader({
  column,
  label,
  title,
  sort,
  onSort,
}: {
  column: RequestSort['column'];
  label: string;
  title: string;
  sort: RequestSort | null;
  onSort: (next: RequestSort | null) => void;
}) {
  const active = sort ?? { column: 'index', descending: false };
  const sorted = active.column === column ? (active.descending ? 'descending' : 'ascending') : 'none';
  return (
    <th className="numeric" aria-sort={sorted}>
      <button type="button" className="sort-button" onClick={() => onSort(nextRequestSort(sort, column))} title={title} data-testid={`requests-sort-${column}`}>
        {label}
        {sorted !== 'none' && <span className="sort-indicator">{sorted === 'ascending' ? ' ▲' : ' ▼'}</span>}
      </button>
    </th>
  );
}

function RequestsTable({
  requests,
  growth,
  sort,
  onSort,
  traceId,
  runPk,
  onOpen,
  highlighted,
}: {
  requests: readonly RequestRow[];
  growth: Growth;
  sort: RequestSort | null;
  onSort: (next: RequestSort | null) => void;
  traceId: string;
  runPk: number;
  onOpen: (request: RequestRow) => void;
  highlighted: ReadonlySet<number>;
}) {
  const deltas = new Map(growth.requestIndices.map((requestIndex, k) => [requestIndex, growth.steps[k] ?? null]));
  const deltaOf = (request: RequestRow) => deltas.get(request.index) ?? null;
  const rows = sortRequests(requests, sort, deltaOf);
  return (
    <table className="requests-table" data-testid="requests-table">
      <thead>
        <tr>
          <SortHeader column="index" label="#" title="Sort by request number" sort={sort} onSort={onSort} />
          <th className="numeric">line</th>
          <th className="numeric">step</th>
          <th className="numeric">messages</th>
          <th className="numeric">appended</th>
          <SortHeader column="delta" label="Δ tokens" title="Sort by the input tokens each request added over the one before it" sort={sort} onSort={onSort} />
          <SortHeader column="input" label="input tokens" title="Sort by input tokens" sort={sort} onSort={onSort} />
          <th className="numeric">cached</th>
          <th className="numeric">output</th>
          <th>history</th>
          <th>added (by role and tool)</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((request) => {
          const delta = deltaOf(request);
          return (
            <tr
              key={request.eventId}
              className={`request-row ${request.compaction ? 'request-compacted' : request.rewrite ? 'request-rewritten' : ''} ${highlighted.has(request.index) ? 'request-top-growth' : ''}`}
              data-testid="request-row"
              data-request-index={request.index}
              data-event-id={request.eventId}
              onClick={() => onOpen(request)}
            >
              <td className="numeric">
                <a
                  href={formatRoute(routes.requestDiff(traceId, runPk, request.eventId))}
                  onClick={(event) => event.stopPropagation()}
                  title="Open the diff with the previous request"
                >
                  {request.index + 1}
                </a>
              </td>
              <td className="numeric">{request.line}</td>
              <td className="numeric">{request.step ?? '—'}</td>
              <td className="numeric">{formatCount(request.messages)}</td>
              <td className="numeric">{request.index === 0 ? '—' : `+${formatCount(request.appendedMessages)}`}</td>
              <td className={`numeric ${delta !== null && delta < 0 ? 'delta-negative' : ''}`} data-testid="request-delta">
                {delta === null ? '—' : `${delta > 0 ? '+' : delta < 0 ? '−' : ''}${formatCount(Math.abs(delta))}`}
              </td>
              <td className="numeric" data-testid="request-input-tokens">
                {request.inputTokens === null ? '—' : formatCount(request.inputTokens)}
                {request.inputTokensSource === 'estimated' && (
                  <>
                    {' '}
                    <span className="est-mark" title="Estimated with the o200k tokenizer: the trace records no usage for it">
                      est.
                    </span>
                  </>
                )}
              </td>
              <td className="numeric">{request.cachedInputTokens === null ? '—' : formatCount(request.cachedInputTokens)}</td>
              <td className="numeric">{request.outputTokens === null ? '—' : formatCount(request.outputTokens)}</td>
              <td data-testid="request-rewrite">
                <HistoryCell request={request} />
              </td>
              <td className="added-cell">{request.added.length === 0 ? <span className="muted">—</span> : <VisibleText text={addedLabel(request.added)} />}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The history column: first, extends, compacted, or rewritten at message k (as logged); and a changed system prompt or tool set. */
function HistoryCell({ request }: { request: RequestRow }) {
  const { compaction, rewrite, prefixChange } = request;
  return (
    <>
      {compaction !== null ? (
        <span className="compaction-mark" title={compactionLabel(compaction)}>
          compacted{rewrite !== null ? ` at message ${rewrite.messageNumber}` : ''}
          {compaction.tokensRemoved !== null && ` (−${formatTokenCount(compaction.tokensRemoved)})`}
        </span>
      ) : rewrite !== null ? (
        <span className="rewrite-mark">
          rewritten at message {rewrite.messageNumber}: {humanize(rewrite.kind)}
        </span>
      ) : request.index === 0 ? (
        <span className="muted">first</span>
      ) : (
        'extends'
      )}
      {prefixChange !== null && (
        <span className="prefix-mark" data-testid="request-prefix-change">
          {' '}
          ·{' '}
          {[
            prefixChange.system && 'system prompt',
            (prefixChange.toolsAdded.length + prefixChange.toolsRemoved.length + prefixChange.toolsChanged.length > 0 || prefixChange.toolsReordered) &&
              'tools',
          ]
            .filter(Boolean)
            .join(' and ')}{' '}
          changed
        </span>
      )}
    </>
  );
}
