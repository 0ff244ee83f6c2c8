/**
 * $0.0171, $12.40: four decimals below a dollar, where agent runs mostly cost, two above. A positive
 * amount too small for four decimals is `<$0.0001`, not `$0.0000`, which would read as free.
 */
export function formatUsd(value: number): string {
  if (value > 0 && value < 0.00005) return '<$0.0001';
  return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}
