/**
 * "Where did the context grow most, and what caused it": the requests that added the most input
 * tokens over the one before them, largest first (the top five, then all on demand), each naming
 * what it added (shared/requests/growthCause.ts) and linking to its diff. Ranked by tokens added,
 * not by a ratio to the typical step: a run whose median step is 377 tokens makes a 1.2k result
 * "3× typical", which is nothing to act on. Compactions (where the context shrank) are listed apart.
 */
import { useState } from 'react';
import type { ApiResponse, RequestRow } from '../../shared/api';
import { growthCauses } from '../../shared/requests/growthCause';
import { formatCount, formatTokenCount } from '../components/format';
import { VisibleText } from '../components/VisibleText';
import { formatRoute, routes } from '../navigation/route';
import '../styles/growth.css';

type Growth = ApiResponse<'requests'>['growth'];

/** The turns named at first; the rest behind "show all". */
export const topGrowthTurns = 5;

/** "tool result of Read +12.4k · assistant message +120 · system prompt changed". */
function causeText(request: RequestRow): string {
  const causes = growthCauses(request);
  if (causes.length === 0) return 'no message was appended (the same history, counted larger)';
  return causes.map((cause) => (cause.tokens === null ? cause.label : `${cause.label} +${formatTokenCount(cause.tokens)}`)).join(' · ');
}

export function LargestGrowth({ requests, growth, traceId, runPk }: { requests: readonly RequestRow[]; growth: Growth; traceId: string; runPk: number }) {
  const [showAll, setShowAll] = useState(false);
  const byIndex = new Map(requests.map((request) => [request.index, request]));
  const ranked = growth.largestGrowth;
  const shown = showAll ? ranked : ranked.slice(0, topGrowthTurns);
  const compacted = requests.filter((request) => request.compaction !== null);
  const diffHref = (request: RequestRow) => formatRoute(routes.requestDiff(traceId, runPk, request.eventId));
  return (
    <section className="largest-growth" data-testid="largest-growth" aria-labelledby="largest-growth-title">
      <h3 id="largest-growth-title">Where the context grew most</h3>
      {ranked.length === 0 ? (
        <p className="muted" data-testid="largest-growth-none">
          {growth.requestIndices.length < 2
            ? 'Fewer than two requests have a token count: there is no growth to rank.'
            : 'No request has more input tokens than the one before it.'}
        </p>
      ) : (
        <ol className="growth-turns">
          {shown.map((step, rank) => {
            const request = byIndex.get(step.requestIndex);
            if (request === undefined) return null;
            return (
              <li
                key={step.requestIndex}
                className="growth-turn"
                data-testid="growth-turn"
                data-request-index={step.requestIndex}
                data-rank={rank + 1}
                title={`Request ${request.index + 1}: +${formatCount(step.growth)} tokens — ${causeText(request)}`}
              >
                <a href={diffHref(request)} title="Open the diff with the previous request">
                  Request {request.index + 1}
                </a>{' '}
                <strong className="growth-turn-tokens" title={`${formatCount(step.growth)} input tokens more than the request before it`}>
                  +{formatTokenCount(step.growth)} tokens
                </strong>
                {request.inputTokensSource === 'estimated' && (
                  <>
                    {' '}
                    <span className="est-mark">est.</span>
                  </>
                )}
                <span className="growth-turn-cause" data-testid="growth-turn-cause">
                  {' '}
                  — <VisibleText text={causeText(request)} />
                </span>
              </li>
            );
          })}
        </ol>
      )}
      <p className="growth-turns-footer">
        {ranked.length > topGrowthTurns && (
          <button type="button" className="link-button" onClick={() => setShowAll(!showAll)} aria-expanded={showAll} data-testid="largest-growth-toggle">
            {showAll ? `Show the top ${topGrowthTurns}` : `Show all ${formatCount(ranked.length)} requests that grew`}
          </button>
        )}
        {growth.typicalGrowth !== null && (
          <span className="muted">
            {ranked.length > topGrowthTurns ? ' · ' : ''}typical step +{formatTokenCount(growth.typicalGrowth)} tokens (the median growth)
          </span>
        )}
      </p>
      {compacted.length > 0 && (
        <ul className="plain-list growth-compactions">
          {compacted.map((request) => (
            <li key={request.index} data-testid="growth-compaction" data-request-index={request.index}>
              <span className="badge severity-info">compacted</span> <a href={diffHref(request)}>Request {request.index + 1}</a>: history compacted before it,{' '}
              <VisibleText text={compactionLabel(request.compaction!)} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Where the history was compacted and what it removed, by the evidence for it. */
export function compactionLabel(compaction: NonNullable<RequestRow['compaction']>): string {
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
