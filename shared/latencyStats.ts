/**
 * How long each tool's calls took, as the Calls list shows above its rows: count, p50, p95, max.
 *
 * Percentiles are nearest-rank (the smallest recorded value with at least p % of the values at or
 * below it), not interpolated: every number shown is a latency some call really had, so "p95
 * 4.2 s" can be found in the list, and a tool with two calls does not get a p95 between them.
 */

/** The nearest-rank `p`-th percentile (0 < p ≤ 100) of values sorted ascending; null for none. */
export function nearestRankPercentile(sortedAscending: readonly number[], p: number): number | null {
  if (sortedAscending.length === 0) return null;
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], not ${p}`);
  const rank = Math.ceil((p / 100) * sortedAscending.length);
  return sortedAscending[Math.max(1, rank) - 1] ?? null;
}

export interface CallLatencySample {
  name: string;
  /** null: the trace records no duration for the call (docs/semantics.md §11). */
  latencyMs: number | null;
}

export interface ToolLatencyStats {
  name: string;
  calls: number;
  timed: number;
  p50: number | null;
  p95: number | null;
  max: number | null;
}

/**
 * Per tool, its latency distribution; slowest first (by p95, then max), tools without any
 * recorded latency last, ties by name.
 */
export function latencyByTool(samples: Iterable<CallLatencySample>): ToolLatencyStats[] {
  const byTool = new Map<string, { calls: number; latencies: number[] }>();
  for (const sample of samples) {
    let tool = byTool.get(sample.name);
    if (tool === undefined) {
      tool = { calls: 0, latencies: [] };
      byTool.set(sample.name, tool);
    }
    tool.calls += 1;
    if (sample.latencyMs !== null && Number.isFinite(sample.latencyMs)) tool.latencies.push(sample.latencyMs);
  }
  const stats = [...byTool].map(([name, { calls, latencies }]): ToolLatencyStats => {
    latencies.sort((a, b) => a - b);
    return {
      name,
      calls,
      timed: latencies.length,
      p50: nearestRankPercentile(latencies, 50),
      p95: nearestRankPercentile(latencies, 95),
      max: latencies.length === 0 ? null : (latencies[latencies.length - 1] ?? null),
    };
  });
  const slowness = (value: number | null) => (value === null ? -1 : value);
  return stats.sort((a, b) => slowness(b.p95) - slowness(a.p95) || slowness(b.max) - slowness(a.max) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
