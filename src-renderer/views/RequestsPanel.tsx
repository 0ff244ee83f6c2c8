/**
 * A run's requests and its context growth (docs/semantics.md §9): input tokens per request (recorded
 * usage, or an o200k tokenizer estimate drawn hatched), cached input and output where the trace
 * records them, the cumulative input with its fit to N×S + T×N(N+1)/2, the requests that grew far
 * above the run's typical step named, and a table of what each request added. Every request opens
 * its diff.
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

/** A fit that does not describe the run: a negative prefix or a poor R². */
function roughFit(fit: NonNullable<Growth['fit']>): boolean {
  return fit.prefixTokens < 0 || fit.tokensPerTurn < 0 || (fit.rSquared !== null && fit.rSquared < 0.95);
}

/** The fit and the outliers in words. */
function GrowthFacts({ requests, growth, traceId, runPk }: { requests: readonly RequestRow[]; growth: Growth; traceId: string; runPk: number }) {
  const byIndex = new Map(requests.map((request) => [request.index, request]));
  return (
    <div className="growth-facts">
      {growth.fit ? (
        <p data-testid="growth-fit">
          The cumulative input fits <strong>N×S + T×N(N+1)/2</strong> with <strong>S ≈ {formatTokenCount(growth.fit.prefixTokens)} tokens</strong>, the part every request
          resends (instructions, tool definitions, the task), and <strong>T ≈ {formatTokenCount(growth.fit.tokensPerTurn)} tokens</strong> added per turn
          {growth.fit.rSquared !== null && ` (R² ${growth.fit.rSquared.toFixed(3)})`}: each request is about S + n×T tokens, and the run's total grows with the square of its
          turns.
          {roughFit(growth.fit) && (
            <span className="muted">
              {' '}
              The fit is rough{growth.fit.prefixTokens < 0 ? ' (a negative prefix cannot be real)' : ''}: this run does not grow by a steady step
              {growth.outliers.length > 0 ? ', see the requests named below' : ''}.
            </span>
          )}
        </p>
      ) : (
        <p className="muted" data-testid="growth-fit">
          Too few requests with a token count to fit N×S + T×N(N+1)/2.
        </p>
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
            className={`request-row ${request.rewrite ? 'request-rewritten' : ''} ${outliers.has(request.index) ? 'request-outlier' : ''}`}
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
              {request.rewrite === null ? (
                request.index === 0 ? (
                  <span className="muted">first</span>
                ) : (
                  'extends'
                )
              ) : (
                <span className="rewrite-mark">
                  rewritten at message {request.rewrite.messageIndex + 1}: {humanize(request.rewrite.kind)}
                </span>
              )}
            </td>
            <td className="added-cell">{request.added.length === 0 ? <span className="muted">—</span> : <VisibleText text={addedLabel(request.added)} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
