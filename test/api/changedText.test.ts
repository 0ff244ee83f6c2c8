/**
 * What the request diff sends of a long modified message (src-main/api/changedText.ts): the
 * changed lines with context and the rest left out — an edit deep inside a 2 MB message is sent,
 * the megabytes around it are not.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changedText } from '../../src-main/api/changedText';

const numbered = (count: number, edit?: { at: number; text: string }[]): string =>
  Array.from(
    { length: count },
    (_, i) => edit?.find((e) => e.at === i)?.text ?? `line ${i}: the quick brown fox jumps over the lazy dog, again and again\n`,
  ).join('');

describe('changed text of a modified message', () => {
  it('sends short texts whole', () => {
    assert.deepEqual(changedText('A is in Leipzig', 'A is in Berlin'), { previousText: 'A is in Leipzig', nextText: 'A is in Berlin', excerpt: null });
  });

  it('sends the changed lines of a 2 MB text with context, unchanged stretches replaced by the same marker on both sides', () => {
    const lines = 28_000;
    const previous = numbered(lines);
    const next = numbered(lines, [
      { at: 100, text: 'line 100: EDITED near the start\n' },
      { at: 27_000, text: 'line 27000: EDITED near the end\n' },
    ]);
    assert.ok(previous.length > 2_000_000);
    const sent = changedText(previous, next);
    assert.ok(sent.previousText.length < 10_000 && sent.nextText.length < 10_000, `${sent.previousText.length} / ${sent.nextText.length} characters sent`);
    assert.match(sent.nextText, /line 100: EDITED near the start/);
    assert.match(sent.nextText, /line 27000: EDITED near the end/);
    assert.match(sent.previousText, /line 27000: the quick brown fox/);
    assert.match(sent.excerpt ?? '', /unchanged lines are left out/);
    // Everything but the edits reads the same on both sides, markers included.
    const strip = (text: string) => text.replace(/line (100|27000): .*\n/g, '');
    assert.equal(strip(sent.previousText), strip(sent.nextText));
    assert.match(sent.previousText, /⋯ 26,893 unchanged lines \([\d,]+ characters\) not sent ⋯/);
  });

  it('sends the changed words of one long line with some characters around each', () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    const previous = `${words(150_000)} tail`;
    const next = previous.replace('w1000 ', 'EARLY ').replace('w120000 ', 'LATE ');
    const sent = changedText(previous, next);
    assert.ok(sent.nextText.length < 3000, `${sent.nextText.length} characters sent`);
    assert.match(sent.nextText, /EARLY.*⋯ [\d,]+ unchanged characters not sent ⋯.*LATE/s);
    assert.match(sent.previousText, /w1000 .*w120000 /s);
    assert.match(sent.excerpt ?? '', /unchanged characters are left out/);
  });

  it('sends the changed stretch, capped, when the changes are too many to list', () => {
    const previous = Array.from({ length: 200_000 }, (_, i) => `a${i}`).join(' ');
    const next = Array.from({ length: 200_000 }, (_, i) => `b${i}`).join(' ');
    const sent = changedText(previous, next);
    assert.ok(sent.previousText.length <= 512 * 1024 + 200);
    assert.match(sent.excerpt ?? '', /too many changes to list.*cut at 512 KiB per side/);
  });
});
