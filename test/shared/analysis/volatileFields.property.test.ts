/**
 * Volatile-field masking (shared/analysis/volatileFields.ts) runs a rule only on a text its trigger
 * is in: the answer is the same string as running every rule, as the straightforward reference
 * below does, on texts full of timestamps, UUIDs, provider ids and id keys, raw or JSON-escaped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { withoutVolatileFields } from '../../../shared/analysis/volatileFields';

/** Every rule on every text with a digit, one after another. */
function referenceWithoutVolatileFields(text: string): string {
  const placeholder = '\u2039volatile\u203a';
  const rules: readonly { pattern: RegExp; keep: string }[] = [
    { pattern: /\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?/g, keep: '' },
    { pattern: /\b\d?\d:\d\d:\d\d(?:[.,]\d+)?/g, keep: '' },
    { pattern: /\b((?:timestamp|ts|time|date|created|updated|[a-z]+_at)\\?["']?\s*[:=]\s*\\?["']?)\d{9,13}(?:\.\d+)?/gi, keep: '$1' },
    { pattern: /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-\d[0-9a-fA-F]{3}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g, keep: '' },
    { pattern: /\b(?:req|request|msg|resp|chatcmpl|call|toolu|trace|span|evt)[_-](?=[A-Za-z]*\d)[A-Za-z0-9]{8,}\b/g, keep: '' },
    {
      pattern: /\b((?:x-)?(?:request|req|trace|span|correlation|invocation)[-_ ]?id\\?["']?\s*[:=]?\s*\\?["']?)(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{4,}/gi,
      keep: '$1',
    },
  ];
  if (!/\d/.test(text)) return text;
  let normalized = text;
  for (const { pattern, keep } of rules) normalized = normalized.replace(pattern, `${keep}${placeholder}`);
  return normalized;
}

const digits = (min: number, max: number): fc.Arbitrary<string> => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
const hex = (length: number): fc.Arbitrary<string> => fc.stringMatching(new RegExp(`^[0-9a-fA-F]{${length}}$`));

/** Pieces of volatile fields and of things that only resemble them. */
const pieces = fc.oneof(
  fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((date) => date.toISOString()),
  fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((date) => date.toISOString().replace('T', ' ').slice(0, 19)),
  fc.tuple(digits(1, 2), digits(2, 2), digits(2, 2)).map(([hours, minutes, seconds]) => `${hours}:${minutes}:${seconds}`),
  fc.uuid(),
  fc.tuple(hex(8), hex(4), digits(1, 1), hex(3), hex(4), hex(12)).map(([a, b, version, c, d, e]) => `${a}-${b}-${version}${c}-${d}-${e}`),
  fc
    .tuple(fc.constantFrom('req', 'request', 'msg', 'resp', 'chatcmpl', 'call', 'toolu', 'trace', 'span', 'evt', 'task'), fc.constantFrom('_', '-'))
    .chain(([prefix, separator]) => fc.stringMatching(/^[A-Za-z0-9]{4,26}$/).map((id) => `${prefix}${separator}${id}`)),
  fc.constantFrom('request_id', 'traceId', 'X-Request-ID', 'Request ID', 'span-id', 'correlationid', 'invocation_id', 'req id', 'id', 'ID'),
  fc
    .tuple(
      fc.constantFrom('timestamp', 'ts', 'time', 'date', 'created', 'updated', 'checked_at', 'Created_At', 'count'),
      fc.constantFrom('', ': ', '=', '":', '\\": \\"', "'='"),
      digits(7, 15),
    )
    .map((parts) => parts.join('')),
  digits(1, 15),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/),
  fc.constantFrom(' ', '"', '\\"', "'", ': ', ':', '=', ',', '-', '_', '.', '\n', '\\n', '[', ']', '{', '}', 'T', 'Z', '+02:00'),
  fc.string({ maxLength: 12 }),
);

const texts = fc
  .tuple(fc.array(pieces, { maxLength: 24 }), fc.boolean())
  .map(([parts, asJson]) => (asJson ? JSON.stringify(JSON.stringify({ error: parts.join('') })) : parts.join('')));

describe('volatile fields: the triggers', () => {
  it('property: the same string as every rule run on the text', () => {
    fc.assert(
      fc.property(texts, (text) => {
        assert.equal(withoutVolatileFields(text), referenceWithoutVolatileFields(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('the generated texts hold what each rule masks (the property compares masked texts, not only untouched ones)', () => {
    const samples = fc.sample(texts, { numRuns: 2000, seed: 17 });
    const masked = samples.filter((text) => referenceWithoutVolatileFields(text) !== text);
    assert.ok(masked.length > samples.length / 4, `${masked.length} of ${samples.length} texts masked`);
  });
});
