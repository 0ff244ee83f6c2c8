/**
 * A run's requests and its context growth (docs/semantics.md §9): input tokens per request
 * (recorded usage, or an o200k tokenizer estimate drawn hatched), cached input and output where
 * the trace records them, the cumulative input with its fit to N×S + T×N(N+1)/2 (in words only
 * as far as the fit's sign and quality allow), compactions marked where the history was cut, the
 * requests that grew far above the run's typical step named, and a table of what each request
 * added. Every request opens its diff.
 */
import { useId } from 'react';
import type { ApiResponse, RequestRow } from '../../shared/api';
import { useQuery } from '../api/useQuery';
import { formatCount, formatTokenCount, humanize } from '../components/format';
import { Empty, Failure, Loading } from '../components/States';
import { VisibleText } from '../components/VisibleText';
import { formatRoute, routes } from '../navigation/route';
import { navigate } from '../navigation/useRoute';

type RunRequests = ApiResponse<'requests'>;
type Growth = RunRequests['growth'];

export function RequestsPanel({ traceId, runPk, revision }: { traceId: string; runPk: number; revision: number }) {
  const requests = useQuery(`requests:${traceId}:${runPk}:${revision}`, (api) => api.requests({ traceId, runPk }));
  const data = requests.status === 'ready' ? requests.data : undefined;
  return (
    <div className="scroll-pane requests-panel" data-testid="requests-panel" data-state={requests.status}>
      {requests.status === 'error' && <Failure what="the run's requests" error={requests.error} />}
      {requests.status === 'loading' && <Loading what="the run's requests" />}
      {data && data.requests.length === 0 && (
        <Empty title="This run has no model requests.">Neither logged requests nor model responses to rebuild them from.</Empty>
      )}
      {data && data.requests.length > 0 && <RequestsBody traceId={traceId} runPk={runPk} data={data} />}
    </div>
  );
}

function RequestsBody({ traceId, runPk, data }: { traceId: string; runPk: number; data: RunRequests }) {
  const { requests, growth } = data;
  const open = (request: RequestRow) => navigate(routes.requestDiff(traceId, runPk, request.eventId));
  const reconstructed = requests.some((request) => request.reconstructed);
  const estimated = requests.filter((request) => request.inputTokensSource === 'estimated').length;
  const total = growth.cumulative.at(-1);
  return (
    <>
      {reconstructed && (
        <p className="banner banner-info" data-testid="requests-reconstructed">
          This trace's format does not log its requests: each request is rebuilt from the trace's events as the messages the model had seen before its response.
        </p>
      )}
      <section className="growth" data-testid="growth">
        <h3>Context growth</h3>
        <p data-testid="growth-summary">
          {plural(requests.length, 'request')}
          {total !== undefined && `, ${formatCount(Math.round(total))} input tokens in all`}
          {estimated > 0 && (
            <>
              {' '}
              ({estimated === requests.length ? 'all' : formatCount(estimated)} <span className="est-mark">estimated</span> with the o200k tokenizer: the trace records no usage
              {estimated === requests.length ? '' : ' for those'})
            </>
          )}
          .
        </p>
        <GrowthChart requests={requests} growth={growth} onOpen={open} />
        <GrowthFacts requests={requests} growth={growth} traceId={traceId} runPk={runPk} />
      </section>
      <section className="requests-table-section">
        <h3>Requests</h3>
        <RequestsTable requests={requests} traceId={traceId} runPk={runPk} onOpen={open} outliers={new Set(growth.outliers.map((outlier) => outlier.requestIndex))} />
      </section>
    </>
  );
}

/** 5.1×, 37×, 2,469×. */
function formatRatio(ratio: number): string {
  return ratio < 10 ? ratio.toFixed(1) : formatCount(Math.round(ratio));
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/** A round axis maximum at or above `value`: 1, 2, 2.5 or 5 times a power of ten. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

const chart = { width: 960, height: 300, left: 58, right: 66, top: 30, bottom: 34 };

/** Bars per request (left axis) and the cumulative input with its fit (right axis), hand-drawn SVG. */
function GrowthChart({ requests, growth, onOpen }: { requests: readonly RequestRow[]; growth: Growth; onOpen: (request: RequestRow) => void }) {
  const id = useId().replace(/[^A-Za-z0-9_-]/g, '');
  const hatch = `hatch-${id}`;
  const plotClip = `plot-${id}`;
  const plotWidth = chart.width - chart.left - chart.right;
  const plotHeight = chart.height - chart.top - chart.bottom;
  const bottom = chart.top + plotHeight;
  const band = plotWidth / requests.length;
  const hasOutput = requests.some((request) => request.outputTokens !== null);
  const hasCompaction = requests.some((request) => request.compaction !== null);
  const hasCached = requests.some((request) => request.cachedInputTokens !== null && request.cachedInputTokens > 0);
  const hasRecorded = requests.some((request) => request.inputTokensSource === 'recorded');
  const hasEstimated = requests.some((request) => request.inputTokensSource === 'estimated');
  const leftMax = niceMax(Math.max(0, ...requests.flatMap((request) => [request.inputTokens ?? 0, request.outputTokens ?? 0])));
  const rightMax = niceMax(Math.max(0, ...growth.cumulative, ...(growth.fit?.predictedCumulative ?? [])));
  const yLeft = (value: number) => bottom - (value / leftMax) * plotHeight;
  const yRight = (value: number) => bottom - (value / rightMax) * plotHeight;
  const positionOf = new Map(requests.map((request, position) => [request.index, position]));
  const centre = (requestIndex: number) => chart.left + ((positionOf.get(requestIndex) ?? requestIndex) + 0.5) * band;
  const outliers = new Map(growth.outliers.map((outlier) => [outlier.requestIndex, outlier]));
  const inputWidth = Math.max(1, Math.min(band * (hasOutput ? 0.55 : 0.72), 44));
  const outputWidth = Math.max(1, Math.min(band * 0.2, 14));
  const line = (values: readonly number[]) => growth.requestIndices.map((requestIndex, k) => `${centre(requestIndex).toFixed(1)},${yRight(values[k] ?? 0).toFixed(1)}`).join(' ');
  const labelEvery = Math.max(1, Math.ceil(requests.length / 24));
  const ticks = [0, 0.25, 0.5, 0.75, 1];

  return (
    <figure className="growth-figure">
      <svg className="growth-chart" viewBox={`0 0 ${chart.width} ${chart.height}`} role="img" aria-label="Input tokens per request, and the cumulative input with its fit" data-testid="growth-chart">
        <defs>
          <pattern id={hatch} patternUnits="userSpaceOnUse" width="8" height="8" patternTransform="rotate(45)">
            <rect width="8" height="8" className="hatch-ground" />
            <line x1="0" y1="0" x2="0" y2="8" className="hatch-line" />
          </pattern>
          {/* The fit can dip below zero (a poor fit): the lines stay inside the plot. */}
          <clipPath id={plotClip}>
            <rect x={chart.left} y={chart.top - 8} width={plotWidth} height={plotHeight + 8} />
          </clipPath>
        </defs>
        {ticks.map((tick) => (
          <g key={tick} className="axis">
            <line x1={chart.left} x2={chart.width - chart.right} y1={yLeft(tick * leftMax)} y2={yLeft(tick * leftMax)} className="grid-line" />
            <text x={chart.left - 6} y={yLeft(tick * leftMax) + 4} textAnchor="end">
              {formatTokenCount(tick * leftMax)}
            </text>
            {growth.cumulative.length > 0 && (
              <text x={chart.width - chart.right + 6} y={yRight(tick * rightMax) + 4} textAnchor="start" className="axis-right">
                {formatTokenCount(tick * rightMax)}
              </text>
            )}
          </g>
        ))}
        <text x={4} y={chart.top - 14} textAnchor="start" className="axis-title">
          tokens per request
        </text>
        {growth.cumulative.length > 0 && (
          <text x={chart.width - 4} y={chart.top - 14} textAnchor="end" className="axis-title axis-right">
            cumulative
          </text>
        )}
        {requests.map((request, position) => {
          const x = chart.left + (position + 0.5) * band;
          const estimatedBar = request.inputTokensSource === 'estimated';
          const outlier = outliers.get(request.index);
          const input = request.inputTokens;
          const cached = request.cachedInputTokens;
          const label = [
            `Request ${request.index + 1} (line ${request.line})`,
            input === null ? 'input tokens unknown' : `${formatCount(input)} input tokens${estimatedBar ? ' (estimated, o200k tokenizer)' : ''}`,
            cached !== null && `${formatCount(cached)} cached`,
            request.outputTokens !== null && `${formatCount(request.outputTokens)} output tokens`,
            outlier && `added ${formatCount(Math.round(outlier.growth))} tokens, ${formatRatio(outlier.ratio)}× the typical step`,
            request.compaction && `history compacted before it${request.compaction.tokensRemoved === null ? '' : ` (−${formatCount(request.compaction.tokensRemoved)} tokens)`}`,
            'click for its diff',
          ]
            .filter(Boolean)
            .join(' · ');
          const barX = hasOutput ? x - inputWidth / 2 - outputWidth / 2 : x - inputWidth / 2;
          return (
            <g
              key={request.eventId}
              className={`growth-bar ${outlier ? 'growth-outlier' : ''}`}
              data-testid="growth-bar"
              data-request-index={request.index}
              data-estimated={estimatedBar}
              data-outlier={outlier !== undefined}
              data-compacted={request.compaction !== null}
              role="link"
              tabIndex={0}
              aria-label={label}
              onClick={() => onOpen(request)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') {
                  event.preventDefault();
                  onOpen(request);
                }
              }}
            >
              <title>{label}</title>
              <rect x={x - band / 2} y={chart.top} width={band} height={plotHeight} className="bar-hit" />
              {request.compaction && (
                <g data-testid="growth-compaction-mark">
                  <line x1={x - band / 2} x2={x - band / 2} y1={chart.top - 12} y2={bottom} className="compaction-line" />
                  <text x={x - band / 2 + 3} y={chart.top - 3} textAnchor="start" className="compaction-label">
                    {request.compaction.tokensRemoved === null ? 'compacted' : `compacted −${formatTokenCount(request.compaction.tokensRemoved)}`}
                  </text>
                </g>
              )}
              {input !== null && (
                <rect
                  x={barX}
                  y={yLeft(input)}
                  width={inputWidth}
                  height={Math.max(0, bottom - yLeft(input))}
                  className={estimatedBar ? 'bar-input bar-estimated' : 'bar-input'}
                  fill={estimatedBar ? `url(#${hatch})` : undefined}
                />
              )}
              {cached !== null && cached > 0 && <rect x={barX} y={yLeft(cached)} width={inputWidth} height={Math.max(0, bottom - yLeft(cached))} className="bar-cached" />}
              {request.outputTokens !== null && (
                <rect x={barX + inputWidth + 1} y={yLeft(request.outputTokens)} width={outputWidth} height={Math.max(0, bottom - yLeft(request.outputTokens))} className="bar-output" />
              )}
              {outlier && input !== null && (
                <text x={barX + inputWidth / 2} y={yLeft(input) - 5} textAnchor="middle" className="outlier-label">
                  {formatRatio(outlier.ratio)}×
                </text>
              )}
              {(position % labelEvery === 0 || outlier) && (
                <text x={x} y={bottom + 16} textAnchor="middle" className="bar-label">
                  {request.index + 1}
                </text>
              )}
            </g>
          );
        })}
        <g clipPath={`url(#${plotClip})`}>
          {growth.fit && growth.requestIndices.length > 1 && <polyline points={line(growth.fit.predictedCumulative)} className="line-fit" data-testid="growth-fit-line" />}
          {growth.requestIndices.length > 0 && <polyline points={line(growth.cumulative)} className="line-cumulative" data-testid="growth-cumulative-line" />}
        </g>
        <line x1={chart.left} x2={chart.width - chart.right} y1={bottom} y2={bottom} className="axis-line" />
        <text x={chart.left + plotWidth / 2} y={chart.height - 2} textAnchor="middle" className="axis-title">
          request
        </text>
      </svg>
      <figcaption className="growth-legend" data-testid="growth-legend">
        {hasRecorded && <LegendItem swatch="swatch-input" label="input tokens (recorded usage)" />}
        {hasEstimated && <LegendItem swatch="swatch-estimated" label="input tokens, estimated (o200k tokenizer)" testId="legend-estimated" />}
        {hasCached && <LegendItem swatch="swatch-cached" label="cached input" />}
        {hasOutput && <LegendItem swatch="swatch-output" label="output tokens" />}
        {growth.cumulative.length > 0 && <LegendItem swatch="swatch-cumulative" label="cumulative input (right axis)" />}
        {growth.fit && <LegendItem swatch="swatch-fit" label="fit N×S + T×N(N+1)/2 (right axis)" />}
        {growth.outliers.length > 0 && <LegendItem swatch="swatch-outlier" label={`grew over ${growth.outlierFactor}× the typical step`} />}
        {hasCompaction && <LegendItem swatch="swatch-compaction" label="history compacted before this request" testId="legend-compaction" />}
      </figcaption>
    </figure>
  );
}

function LegendItem({ swatch, label, testId }: { swatch: string; label: string; testId?: string }) {
  return (
    <span className="legend-item" data-testid={testId}>
      <span className={`swatch ${swatch}`} aria-hidden="true" /> {label}
    </span>
  );
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
      <strong>S ≈ {formatTokenCount(fit.prefixTokens)} tokens</strong> resent by every request and <strong>T ≈ {formatTokenCount(fit.tokensPerTurn)} tokens</strong> per turn
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
        This run does not grow by a steady step: {why}. <span className="muted">(Best fit: S ≈ {formatTokenCount(fit.prefixTokens)}, T ≈ {formatTokenCount(fit.tokensPerTurn)}{r2}.)</span>
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

/** Where the history was compacted and what it removed, by the evidence for it. */
function compactionLabel(compaction: NonNullable<RequestRow['compaction']>): string {
  const tokens =
    compaction.tokensBefore === null || compaction.tokensAfter === null
      ? ''
      : `: input ${formatTokenCount(compaction.tokensBefore)} → ${formatTokenCount(compaction.tokensAfter)} tokens${compaction.tokensRemoved === null ? '' : ` (−${formatTokenCount(compaction.tokensRemoved)})`}`;
  const evidence =
    compaction.marker !== null
      ? `marked by ${compaction.marker.typeRaw} on line ${compaction.marker.line}`
      : compaction.evidence === 'diff'
        ? 'earlier messages replaced by fewer'
        : 'seen only in the recorded input (the trace does not log it)';
  return `${evidence}${tokens}`;
}

/** The fit, the compactions and the outliers in words. */
function GrowthFacts({ requests, growth, traceId, runPk }: { requests: readonly RequestRow[]; growth: Growth; traceId: string; runPk: number }) {
  const byIndex = new Map(requests.map((request) => [request.index, request]));
  const compacted = requests.filter((request) => request.compaction !== null);
  return (
    <div className="growth-facts">
      {growth.fit ? (
        <FitSentence fit={growth.fit} compacted={compacted} />
      ) : (
        <p className="muted" data-testid="growth-fit">
          Too few requests with a token count to fit N×S + T×N(N+1)/2.
        </p>
      )}
      {compacted.length > 0 && (
        <ul className="plain-list growth-compactions">
          {compacted.map((request) => (
            <li key={request.index} data-testid="growth-compaction" data-request-index={request.index}>
              <span className="badge severity-info">compacted</span>{' '}
              <a href={formatRoute(routes.requestDiff(traceId, runPk, request.eventId))}>Request {request.index + 1}</a>: history compacted before it,{' '}
              <VisibleText text={compactionLabel(request.compaction!)} />
            </li>
          ))}
        </ul>
      )}
      {growth.typicalGrowth !== null && (
        <p>
          Typical step: <strong>+{formatTokenCount(growth.typicalGrowth)} tokens</strong> per request (the median growth).
        </p>
      )}
      {growth.outliers.length > 0 && (
        <ul className="plain-list growth-outliers">
          {growth.outliers.map((outlier) => {
            const request = byIndex.get(outlier.requestIndex);
            return (
              <li key={outlier.requestIndex} data-testid="growth-outlier" data-request-index={outlier.requestIndex}>
                <span className="badge severity-warning">outlier</span>{' '}
                {request ? <a href={formatRoute(routes.requestDiff(traceId, runPk, request.eventId))}>Request {outlier.requestIndex + 1}</a> : `Request ${outlier.requestIndex + 1}`} added{' '}
                <strong>{formatTokenCount(outlier.growth)} tokens</strong>, {formatRatio(outlier.ratio)}× the typical step
                {growth.typicalGrowth !== null && ` (${formatTokenCount(growth.typicalGrowth)})`}
                {request?.inputTokensSource === 'estimated' && (
                  <>
                    {' '}
                    <span className="est-mark">estimated</span>
                  </>
                )}
                {request && request.added.length > 0 && (
                  <span className="muted">
                    {' '}
                    — <VisibleText text={addedLabel(request.added)} />
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

function RequestsTable({
  requests,
  traceId,
  runPk,
  onOpen,
  outliers,
}: {
  requests: readonly RequestRow[];
  traceId: string;
  runPk: number;
  onOpen: (request: RequestRow) => void;
  outliers: ReadonlySet<number>;
}) {
  return (
    <table className="requests-table" data-testid="requests-table">
      <thead>
        <tr>
          <th className="numeric">#</th>
          <th className="numeric">line</th>
          <th className="numeric">step</th>
          <th className="numeric">messages</th>
          <th className="numeric">appended</th>
          <th className="numeric">input tokens</th>
          <th className="numeric">cached</th>
          <th className="numeric">output</th>
          <th>history</th>
          <th>added (by role and tool)</th>
        </tr>
      </thead>
      <tbody>
        {requests.map((request) => (
          <tr
            key={request.eventId}
            className={`request-row ${request.compaction ? 'request-compacted' : request.rewrite ? 'request-rewritten' : ''} ${outliers.has(request.index) ? 'request-outlier' : ''}`}
            data-testid="request-row"
            data-request-index={request.index}
            data-event-id={request.eventId}
            onClick={() => onOpen(request)}
          >
            <td className="numeric">
              <a href={formatRoute(routes.requestDiff(traceId, runPk, request.eventId))} onClick={(event) => event.stopPropagation()} title="Open the diff with the previous request">
                {request.index + 1}
              </a>
            </td>
            <td className="numeric">{request.line}</td>
            <td className="numeric">{request.step ?? '—'}</td>
            <td className="numeric">{formatCount(request.messages)}</td>
            <td className="numeric">{request.index === 0 ? '—' : `+${formatCount(request.appendedMessages)}`}</td>
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
        ))}
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
          · {[prefixChange.system && 'system prompt', (prefixChange.toolsAdded.length + prefixChange.toolsRemoved.length + prefixChange.toolsChanged.length > 0 || prefixChange.toolsReordered) && 'tools'].filter(Boolean).join(' and ')} changed
        </span>
      )}
    </>
  );
}
