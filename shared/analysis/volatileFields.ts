/**
 * Volatile fields of a tool result (docs/semantics.md §6): the parts that change on every call
 * whatever the state of the world — when it was answered and which request answered it. Two
 * results that differ only there are the same result for repeated-action progress, so a retry
 * storm whose errors carry a fresh request id and timestamp each time is not progress.
 *
 * Only timestamps and identifiers of the exchange itself are volatile. Counters, durations,
 * content hashes and every other value stay as written, so a changed counter or content still
 * counts as progress.
 */

const VOLATILE = '\u2039volatile\u203a';

/** The words a provider-style id starts with, before its `_` or `-`. */
const idPrefixes = ['req', 'request', 'msg', 'resp', 'chatcmpl', 'call', 'toolu', 'trace', 'span', 'evt'];

/**
 * Each rule: what it finds, what it keeps of the match (a key before the volatile value), and a
 * `trigger` that every match contains. A trigger is a few fixed characters that the engine skips
 * through text quickly; most results hold no volatile field, and a rule runs only on a text its
 * trigger is in.
 */
const volatileRules: readonly { pattern: RegExp; keep: string; trigger: RegExp }[] = [
  // ISO 8601 / RFC 3339 date-times: 2025-06-04T07:58:42.677Z, 2025-06-04 07:58:42+02:00.
  { pattern: /\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?/g, keep: '', trigger: /\d-\d\d-\d/ },
  // Times of day with seconds: log prefixes ("[07:58:42]"), HTTP dates ("Wed, 04 Jun 2025 07:58:42 GMT").
  { pattern: /\b\d?\d:\d\d:\d\d(?:[.,]\d+)?/g, keep: '', trigger: /\d:\d\d:\d/ },
  // Epoch seconds or milliseconds under a time-named key: "timestamp": 1749023922, ts=1749023922677.
  // The trigger's nine digits are written out: the engine skips through them faster than through `\d{9}`.
  {
    pattern: /\b((?:timestamp|ts|time|date|created|updated|[a-z]+_at)\\?["']?\s*[:=]\s*\\?["']?)\d{9,13}(?:\.\d+)?/gi,
    keep: '$1',
    trigger: /\d\d\d\d\d\d\d\d\d/,
  },
  // UUIDs (request ids, trace ids, idempotency keys): the third group starts with the version digit.
  { pattern: /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-\d[0-9a-fA-F]{3}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g, keep: '', trigger: /-\d[0-9a-fA-F]{3}-/ },
  // Provider-style ids with a digit in them: req_011CY15QS2LGwAeBxdfa6e1V, chatcmpl-9x…, msg_…, call_…
  // The trigger: the last letter of a prefix, then the separator.
  {
    pattern: new RegExp(String.raw`\b(?:${idPrefixes.join('|')})[_-](?=[A-Za-z]*\d)[A-Za-z0-9]{8,}\b`, 'g'),
    keep: '',
    trigger: new RegExp(`[${[...new Set(idPrefixes.map((prefix) => prefix.at(-1)))].join('')}][_-]`),
  },
  // The value after a request/trace/correlation id key: request_id=7f3a22b1, "traceId": "4bf9…", Request ID: 7F3A-22.
  {
    pattern: /\b((?:x-)?(?:request|req|trace|span|correlation|invocation)[-_ ]?id\\?["']?\s*[:=]?\s*\\?["']?)(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{4,}/gi,
    keep: '$1',
    trigger: /id/i,
  },
];

/** Longest result text (output and error together) that is normalized; longer ones are compared as written. */
export const NORMALIZED_RESULT_CHARS = 4096;

/** The text with every volatile value replaced by one placeholder. */
export function withoutVolatileFields(text: string): string {
  // Every rule needs a digit: most texts without one are left at the cost of one scan.
  if (!/\d/.test(text)) return text;
  let normalized = text;
  for (const { pattern, keep, trigger } of volatileRules) {
    if (trigger.test(normalized)) normalized = normalized.replace(pattern, `${keep}${VOLATILE}`);
  }
  return normalized;
}
