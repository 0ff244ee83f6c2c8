/**
 * What runs and a trace cost (docs/semantics.md §19): each run's own responses, a run with the
 * sub-agents it started rolled up the chain, and the whole trace (`traceCost`), by the one rule of
 * shared/cost/runCost.ts.
 */
import type Database from 'better-sqlite3';
import type { Cost } from '../../../shared/api';
import { RunCost } from '../../../shared/cost/runCost';
import { responseUsages, runResponseUsages } from '../../engine';
import type { Query, TraceScope } from './scope';

function costOf(runCost: RunCost): Cost {
  return { usd: runCost.usd(), unpricedResponses: runCost.unpriced };
}

export function runCost(db: Database.Database, scope: TraceScope, runPk: number): Cost {
  const cost = new RunCost(scope.userPrices);
  for (const response of runResponseUsages(db, runPk)) cost.add(response);
  return costOf(cost);
}

/** Two costs as one: the priced sums added (null only when neither has one), the unpriced counted. */
export function addCosts(a: Cost, b: Cost): Cost {
  return {
    usd: a.usd === null && b.usd === null ? null : (a.usd ?? 0) + (b.usd ?? 0),
    unpricedResponses: a.unpricedResponses + b.unpricedResponses,
  };
}

/**
 * The cost of `runPk` with every run it started, and theirs in turn, by run: each run's own cost
 * plus its children's rolled-up costs. A run reached twice (a malformed trace naming a run its own
 * descendant) is counted once.
 */
export function rolledUpCosts(db: Database.Database, scope: TraceScope, runPk: number, childrenOf: (runPk: number) => readonly number[]): Map<number, Cost> {
  const rolled = new Map<number, Cost>();
  const reached = new Set<number>();
  const rollUp = (pk: number): Cost => {
    const done = rolled.get(pk);
    if (done !== undefined) return done;
    reached.add(pk);
    let cost = runCost(db, scope, pk);
    for (const child of childrenOf(pk)) if (!reached.has(child)) cost = addCosts(cost, rollUp(child));
    rolled.set(pk, cost);
    return cost;
  };
  rollUp(runPk);
  return rolled;
}

export const traceCost: Query<'traceCost'> = (db, scope) => {
  const cost = new RunCost(scope.userPrices);
  for (const response of responseUsages(db, scope.sourceIds)) cost.add(response);
  return costOf(cost);
};
