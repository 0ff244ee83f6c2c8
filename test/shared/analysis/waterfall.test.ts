/** The waterfall's spans and layout (shared/analysis/waterfall.ts): when a call starts and ends, and which track it goes on. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assignTracks, axisTicks, modelCallTimes, toolCallTimes } from '../../../shared/analysis/waterfall';

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + seconds * 1000).toISOString();
const t0 = Date.parse(at(0));

describe('waterfall spans', () => {
  it('a tool call ends at its result and lasts its recorded latency, else starts when it was issued', () => {
    assert.deepEqual(toolCallTimes({ issuedAt: at(0), startedAt: null, answeredAt: at(10), latencyMs: 2500 }), { startMs: t0 + 7500, endMs: t0 + 10_000 });
    assert.deepEqual(toolCallTimes({ issuedAt: at(0), startedAt: at(1), answeredAt: at(10), latencyMs: null }), { startMs: t0 + 1000, endMs: t0 + 10_000 });
    assert.deepEqual(toolCallTimes({ issuedAt: at(0), startedAt: null, answeredAt: null, latencyMs: 400 }), { startMs: t0, endMs: t0 + 400 });
  });

  it('draws nothing it would have to guess: no times, a result without a start, an end before the start, a date that is not one', () => {
    assert.equal(toolCallTimes({ issuedAt: null, startedAt: null, answeredAt: null, latencyMs: 300 }), null);
    assert.equal(toolCallTimes({ issuedAt: null, startedAt: null, answeredAt: at(5), latencyMs: null }), null);
    assert.equal(toolCallTimes({ issuedAt: at(0), startedAt: null, answeredAt: null, latencyMs: null }), null);
    assert.equal(toolCallTimes({ issuedAt: at(9), startedAt: null, answeredAt: at(5), latencyMs: null }), null);
    assert.equal(toolCallTimes({ issuedAt: 'yesterday', startedAt: null, answeredAt: 'later', latencyMs: null }), null);
    assert.deepEqual(toolCallTimes({ issuedAt: at(0), startedAt: null, answeredAt: at(5), latencyMs: Number.NaN }), { startMs: t0, endMs: t0 + 5000 });
  });

  it('a model call ends at its response: its recorded latency, else from the event before it', () => {
    assert.deepEqual(modelCallTimes({ respondedAt: at(20), previousAt: at(2), latencyMs: 3000 }), { startMs: t0 + 17_000, endMs: t0 + 20_000 });
    assert.deepEqual(modelCallTimes({ respondedAt: at(20), previousAt: at(2), latencyMs: null }), { startMs: t0 + 2000, endMs: t0 + 20_000 });
    assert.equal(modelCallTimes({ respondedAt: null, previousAt: at(2), latencyMs: 3000 }), null);
    assert.equal(modelCallTimes({ respondedAt: at(20), previousAt: null, latencyMs: null }), null);
  });
});

describe('waterfall tracks', () => {
  const s = (startMs: number, endMs: number) => ({ startMs, endMs });

  it('puts calls that overlap side by side and reuses a track once it is free', () => {
    // Three parallel calls, then one after the first two ended, then one after everything.
    assert.deepEqual(assignTracks([s(0, 10), s(0, 5), s(2, 8), s(6, 9), s(10, 12)]), [0, 1, 2, 1, 0]);
  });

  it('keeps input order in its answer whatever order the spans come in', () => {
    assert.deepEqual(assignTracks([s(10, 12), s(0, 10), s(0, 5)]), [0, 0, 1]);
  });

  it('sequential calls share one track; zero-length calls at one instant do not', () => {
    assert.deepEqual(assignTracks([s(0, 1), s(1, 2), s(2, 3)]), [0, 0, 0]);
    assert.deepEqual(assignTracks([s(5, 5), s(5, 5)]), [0, 1]);
    assert.deepEqual(assignTracks([]), []);
  });

  it('ticks at a round step covering the axis', () => {
    assert.deepEqual(axisTicks(10_000, 5), [0, 2000, 4000, 6000, 8000, 10_000]);
    assert.deepEqual(axisTicks(950, 4), [0, 500]);
    assert.deepEqual(axisTicks(0, 5), [0]);
  });
});
