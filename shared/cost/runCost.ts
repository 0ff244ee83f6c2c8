/**
 * What a run's responses cost (docs/semantics.md §18, §19), one rule wherever a cost is shown — the
 * library, a comparison, `analyze --summary`: a response costs what its trace recorded
 * (`cost_usd`, the loop's own figure, which knows its discounts) when it records that, else the
 * price of its tokens; a response with usage and neither is unpriced, and left out of the sum, never
 * counted as free.
 */
import { priceResponse, type ResponseUsage } from './priceResponse';
import type { UserPrices } from './userPrices';

/** A response as its trace recorded it. */
export interface RecordedResponse extends ResponseUsage {
  step: number | null;
  /** When it was answered (ISO text as the trace wrote it): picks a price that changes over time. */
  ts: string | null;
  cost_usd: number | null;
}

/**
 * One response's cost by the rule above: what the trace recorded, else the price of its tokens;
 * `unpriced` (with why) when it used tokens that nothing priced; null when it records no usage at
 * all (nothing to price: a response of a format that writes no usage is not "unpriced").
 */
export type ResponseCost = { usd: number; source: 'recorded' | 'price table' | 'user prices' } | { unpriced: string } | null;

export function responseCost(response: RecordedResponse, userPrices?: UserPrices): ResponseCost {
  if (response.cost_usd !== null) return { usd: response.cost_usd, source: 'recorded' };
  const at = response.ts === null ? Number.NaN : Date.parse(response.ts);
  const price = priceResponse(response, {
    ...(userPrices !== undefined ? { userPrices } : {}),
    ...(Number.isNaN(at) ? {} : { at: new Date(at) }),
  });
  if (price.status === 'priced') return { usd: price.usd, source: price.source === 'user' ? 'user prices' : 'price table' };
  return price.reason === 'no usage recorded' ? null : { unpriced: price.reason };
}

export class RunCost {
  /** Cost of each step's responses (step null: responses outside any step). */
  readonly byStep = new Map<number | null, number>();
  /** Responses with usage that neither the trace nor a price table priced. */
  unpriced = 0;

  constructor(private readonly userPrices?: UserPrices) {}

  add(response: RecordedResponse): void {
    const cost = responseCost(response, this.userPrices);
    if (cost === null) return;
    if ('unpriced' in cost) this.unpriced += 1;
    else this.byStep.set(response.step, (this.byStep.get(response.step) ?? 0) + cost.usd);
  }

  /** The sum over the priced responses; null when none has a cost. */
  usd(): number | null {
    if (this.byStep.size === 0) return null;
    let total = 0;
    for (const cost of this.byStep.values()) total += cost;
    return total;
  }
}

/** Each run's cost, by its key, from responses read one at a time (a trace can hold millions). */
export function costsByRun<K>(responses: Iterable<RecordedResponse & { run: K }>, userPrices?: UserPrices): Map<K, RunCost> {
  const costs = new Map<K, RunCost>();
  for (const response of responses) {
    let cost = costs.get(response.run);
    if (cost === undefined) {
      cost = new RunCost(userPrices);
      costs.set(response.run, cost);
    }
    cost.add(response);
  }
  return costs;
}
