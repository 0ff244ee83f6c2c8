/**
 * The library's term filter (shared/library/termFilter.ts): it must never rule out a trace that
 * holds the words — a search would silently miss it — and should rule out most that do not.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { buildTermFilter, mayHoldWords } from '../../../shared/library/termFilter';
import { queryWords } from '../../../shared/searchMatches';

const mayHold = (filter: Uint8Array, query: string): boolean => mayHoldWords(filter, queryWords(query));
const term = fc.stringMatching(/^[a-z0-9]{1,16}$/);

describe('the term filter', () => {
  it('never rules out a term it holds, as a whole word or as the prefix of the last word', () => {
    fc.assert(
      fc.property(fc.uniqueArray(term, { minLength: 1, maxLength: 300 }), fc.nat(), fc.nat(), (terms, pick, cut) => {
        const filter = buildTermFilter(terms);
        assert.ok(filter !== null);
        const chosen = terms[pick % terms.length]!;
        const other = terms[(pick + 1) % terms.length]!;
        assert.ok(mayHold(filter, chosen));
        assert.ok(mayHold(filter, `${other} ${chosen}`), 'every word of a query it holds');
        assert.ok(mayHold(filter, `${chosen} ${other.slice(0, 1 + (cut % other.length))}`), 'the last word as a prefix of any length');
        // Case and the tokenizer's splitting are the search's own: `FOO-bar` is the phrase foo, bar.
        assert.ok(mayHold(filter, `${chosen.toUpperCase()}-${other}`));
      }),
    );
  });

  it('rules out most words it does not hold (about 1% let through)', () => {
    const terms = Array.from({ length: 20_000 }, (_, index) => `term${index}`);
    const filter = buildTermFilter(terms);
    assert.ok(filter !== null);
    let letThrough = 0;
    const absent = 20_000;
    for (let index = 0; index < absent; index += 1) if (mayHold(filter, `absent${index} x`)) letThrough += 1;
    assert.ok(letThrough / absent < 0.03, `${letThrough} of ${absent} absent words let through`);
  });

  it('cannot rule out a query outside ASCII, nor a last word shorter than four characters', () => {
    const filter = buildTermFilter(['alpha', 'beta']);
    assert.ok(filter !== null);
    assert.equal(mayHold(filter, 'gamma'), false);
    assert.equal(mayHold(filter, 'gamma alpha'), false, 'a word not held, before the last');
    assert.ok(mayHold(filter, 'naïve'), 'folded by the tokenizer in ways this filter does not assume');
    assert.ok(mayHold(filter, 'gamma İstanbul'), 'the whole query is searched, its ASCII words too');
    assert.ok(mayHold(filter, 'alpha zzz'), 'a short last word may begin any term');
    assert.equal(mayHold(filter, 'alpha zzzz'), false);
  });
});
