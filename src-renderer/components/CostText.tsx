/**
 * A cost as every view shows it (docs/semantics.md §19): the priced sum, marked `+?` when some
 * responses had no price (they are left out, never counted as free), "no price" when none had one,
 * and "—" when nothing recorded any usage. The hover says which.
 */
import type { Cost } from '../../shared/api';
import { formatCount } from '../../shared/formatCount';
import { formatUsd } from '../../shared/formatUsd';

export function costTitle(cost: Cost, what: string): string {
  if (cost.usd === null) return cost.unpricedResponses > 0 ? `No price is known for the model of ${what}` : `${what} records no token usage`;
  const lines = [`${formatUsd(cost.usd)} for ${what}`];
  if (cost.unpricedResponses > 0)
    lines.push(
      `${formatCount(cost.unpricedResponses)} ${cost.unpricedResponses === 1 ? 'response has' : 'responses have'} no price and ${cost.unpricedResponses === 1 ? 'is' : 'are'} not counted`,
    );
  return lines.join('\n');
}

/** `what` names what was priced, for the hover; `title` replaces that hover where a view says more. */
export function CostText({ cost, what, title = costTitle(cost, what), testId }: { cost: Cost; what: string; title?: string; testId?: string }) {
  if (cost.usd === null)
    return (
      <span className="muted" title={title} data-testid={testId}>
        {cost.unpricedResponses > 0 ? 'no price' : '—'}
      </span>
    );
  return (
    <span title={title} data-testid={testId}>
      {formatUsd(cost.usd)}
      {cost.unpricedResponses > 0 && <span className="muted"> +?</span>}
    </span>
  );
}
