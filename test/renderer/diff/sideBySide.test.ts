/** The side-by-side diff: JSON pretty-printed, lines paired with their changed words, unchanged stretches folded. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultDiffLimits } from '../../../src-renderer/diff/textDiff';
import { prettyJson, sideBySide, wordDiffBudget, type SideRow } from '../../../src-renderer/diff/sideBySide';

const text = (row: SideRow, side: 'left' | 'right') => (row.kind === 'fold' ? null : (row[side]?.segments.map((s) => s.text).join('') ?? null));
const changedWords = (row: SideRow, side: 'left' | 'right') =>
  row.kind === 'fold' ? [] : (row[side]?.segments.filter((s) => s.changed).map((s) => s.text.trim()) ?? []);

describe('side-by-side diff', () => {
  it('pretty-prints JSON objects and arrays, and leaves other text alone', () => {
    assert.equal(prettyJson('{"a":1,"b":[2]}'), '{\n  "a": 1,\n  "b": [\n    2\n  ]\n}');
    assert.equal(prettyJson('  [1]  '), '[\n  1\n]');
    assert.equal(prettyJson('{not json'), null);
    assert.equal(prettyJson('42'), null, 'a bare number is text');
    assert.equal(prettyJson('hello'), null);
  });

  it('one-line JSON that a word diff smears ("hikingtotals boots"): one property per row, each change beside what it replaced', () => {
    const before = JSON.stringify({ item: 'hiking boots', size: 42, shipment: 'standard', totals: { boots: 129 } });
    const after = JSON.stringify({ item: 'trail shoes', size: 42, shipment: 'express', totals: { boots: 129, shipping: 12 } });
    const result = sideBySide(before, after, defaultDiffLimits);
    assert.equal(result.kind, 'lines');
    if (result.kind !== 'lines') return;
    assert.equal(result.json, true);
    const changed = result.rows.filter((row) => row.kind === 'changed');
    assert.deepEqual(
      changed.map((row) => [text(row, 'left'), text(row, 'right')]),
      [
        ['  "item": "hiking boots",', '  "item": "trail shoes",'],
        ['  "shipment": "standard",', '  "shipment": "express",'],
        ['    "boots": 129', '    "boots": 129,'],
      ],
    );
    assert.match(changedWords(changed[0]!, 'left').join(' '), /hiking/);
    assert.doesNotMatch(changedWords(changed[0]!, 'left').join(' '), /item/);
    assert.ok(changedWords(changed[1]!, 'right').join(' ').includes('express'), 'the changed word is marked');
    assert.ok(!changedWords(changed[1]!, 'right').join(' ').includes('shipment'), 'the unchanged key is not');
    const added = result.rows.filter((row) => row.kind === 'added');
    assert.deepEqual(
      added.map((row) => text(row, 'right')),
      ['    "shipping": 12'],
    );
    assert.equal(added[0]!.kind !== 'fold' && added[0]!.left, null);
  });

  it('numbers each side on its own: an added line shifts the right side only', () => {
    const result = sideBySide('a\nb\nc', 'a\nx\nb\nc', defaultDiffLimits);
    assert.ok(result.kind === 'lines');
    assert.deepEqual(
      result.rows.map((row) => (row.kind === 'fold' ? ['fold'] : [row.kind, row.left?.number ?? null, row.right?.number ?? null])),
      [
        ['same', 1, 1],
        ['added', null, 2],
        ['same', 2, 3],
        ['same', 3, 4],
      ],
    );
    assert.equal(result.json, false);
  });

  it('folds a long unchanged stretch to three lines of context on each side of a change', () => {
    const lines = Array.from({ length: 40 }, (_, k) => `line ${k}`);
    const edited = [...lines];
    edited[20] = 'line twenty';
    const result = sideBySide(lines.join('\n'), edited.join('\n'), defaultDiffLimits);
    assert.ok(result.kind === 'lines');
    assert.deepEqual(
      result.rows.map((row) => (row.kind === 'fold' ? `fold ${row.rows.length}` : row.kind)),
      ['fold 17', 'same', 'same', 'same', 'changed', 'same', 'same', 'same', 'fold 16'],
    );
  });

  it('text on one side only: every line removed or added', () => {
    const result = sideBySide('', 'new\ntext', defaultDiffLimits);
    assert.ok(result.kind === 'lines');
    assert.deepEqual(
      result.rows.map((row) => row.kind),
      ['added', 'added'],
    );
  });

  it('past the word-diff budget, paired lines are marked wholly changed instead of word by word', () => {
    // Long lines, so the budget runs out within jsdiff's edit limit for the line diff.
    const padding = ' x'.repeat(450);
    const count = Math.ceil(wordDiffBudget / 1800) + 20;
    const before = Array.from({ length: count }, (_, k) => `line ${k} says alpha beta gamma${padding}`).join('\n');
    const after = Array.from({ length: count }, (_, k) => `line ${k} says alpha BETA gamma${padding}`).join('\n');
    const result = sideBySide(before, after, defaultDiffLimits);
    assert.ok(result.kind === 'lines');
    const changed = result.rows.filter((row) => row.kind === 'changed');
    assert.equal(changed.length, count);
    assert.deepEqual(changedWords(changed[0]!, 'right'), ['BETA'], 'early pairs: the changed word');
    assert.deepEqual(changedWords(changed.at(-1)!, 'right'), [`line ${count - 1} says alpha BETA gamma${padding}`.trim()], 'late pairs: the whole line');
  });
});
