/**
 * How far a read has got, as the app and the CLI show it: "42 %". Rounded down, so a file reads
 * "100 %" only once every byte is read, never while the last half-percent is still to come.
 */
export function formatProgress(done: number, total: number): string {
  const percent = total > 0 ? Math.floor((100 * Math.min(done, total)) / total) : 0;
  return `${percent} %`;
}
