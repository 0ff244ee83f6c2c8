/** $0.0171, $12.40: four decimals below a dollar, where agent runs mostly cost, two above. */
export function formatUsd(value: number): string {
  return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}
