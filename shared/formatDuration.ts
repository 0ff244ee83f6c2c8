/**
 * A duration as people read it, the same in the app and the CLI: "840 ms", "4.25 s", "12.3 s",
 * "2 min", "1 min 5 s", "1 h 5 min". The unit is chosen after rounding, so a value just under a
 * boundary reads as the next unit ("59.96 s" → "1 min", never "60.0 s"; "119.6 s" → "2 min", never
 * "1 min 60 s"). Minutes show whole seconds and hours whole minutes: past a minute, a tenth of a
 * second is noise.
 *
 * A missing duration is the caller's to word (the app shows "—", the CLI leaves the fact out), so
 * a caller with one passes what to return for null.
 */
export function formatDuration(ms: number): string;
export function formatDuration<Missing>(ms: number | null, missing: Missing): string | Missing;
export function formatDuration<Missing>(ms: number | null, missing?: Missing): string | Missing | undefined {
  if (ms === null) return missing;
  // Clocks of different hosts can put an end before its start; the sign is shown, not hidden.
  return ms < 0 ? `-${spell(-ms)}` : spell(ms);
}

function spell(ms: number): string {
  const wholeMs = Math.round(ms);
  if (wholeMs < 1000) return wholeMs === 0 && ms > 0 ? '< 1 ms' : `${wholeMs} ms`;
  const centiseconds = Math.round(ms / 10);
  if (centiseconds < 1000) return `${(centiseconds / 100).toFixed(2)} s`;
  const deciseconds = Math.round(ms / 100);
  if (deciseconds < 600) return `${(deciseconds / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) {
    const rest = seconds % 60;
    return `${Math.floor(seconds / 60)} min${rest === 0 ? '' : ` ${rest} s`}`;
  }
  const minutes = Math.round(ms / 60_000);
  const rest = minutes % 60;
  return `${Math.floor(minutes / 60)} h${rest === 0 ? '' : ` ${rest} min`}`;
}
