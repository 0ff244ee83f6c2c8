/** Call colours: stable per call id, spread over the hues, and never the reds that mean an error. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { callHue, callHueRange } from '../../src-renderer/components/format';

describe('call colours', () => {
  it('give a call and its result the same hue, whatever else is on screen', () => {
    assert.equal(callHue('toolu_01A2b3'), callHue('toolu_01A2b3'));
  });

  it('never fall in the reds around hue 0, which mean an error', () => {
    fc.assert(
      fc.property(fc.string(), (callId) => {
        const hue = callHue(callId);
        return Number.isInteger(hue) && hue >= callHueRange.from && hue < callHueRange.to;
      }),
    );
  });

  it('spread real-looking ids over many hues', () => {
    const hues = new Set(Array.from({ length: 200 }, (_, index) => Math.floor(callHue(`call_${index.toString(36)}_x`) / 20)));
    assert.ok(hues.size >= 12, `only ${hues.size} hue bands used`);
  });
});
