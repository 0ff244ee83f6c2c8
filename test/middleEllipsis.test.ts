/** Ids and paths cut in the middle, so their distinguishing ends stay visible. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { middleEllipsis } from '../src-renderer/components/middleEllipsis';

describe('middleEllipsis', () => {
  it('keeps text that fits as it is', () => {
    assert.equal(middleEllipsis('run-a', 5), 'run-a');
    assert.equal(middleEllipsis('', 4), '');
  });

  it('cuts the middle, keeping both ends, the end the larger part', () => {
    assert.equal(middleEllipsis('fe5e1c67-53e7-4862-81ae-d0e013e3270b/agent-a1b2c3', 20), 'fe5e1c67-…ent-a1b2c3');
    assert.equal(Array.from(middleEllipsis('x'.repeat(100), 20)).length, 20);
  });

  it('tells apart two sub-agent runs of one session', () => {
    const one = middleEllipsis('fe5e1c67-53e7-4862-81ae-d0e013e3270b/agent-1111', 18);
    const two = middleEllipsis('fe5e1c67-53e7-4862-81ae-d0e013e3270b/agent-2222', 18);
    assert.notEqual(one, two);
  });

  it('never splits an astral character', () => {
    const cut = middleEllipsis('🚀'.repeat(10), 5);
    assert.equal(cut, '🚀🚀…🚀🚀');
  });

  it('has no room for an ellipsis below three characters', () => {
    assert.equal(middleEllipsis('abcdef', 2), 'ab');
  });
});
