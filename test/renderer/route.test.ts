/** The search an event was opened from stays in its URL (src-renderer/navigation/route.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatRoute, parseRoute, routes } from '../../src-renderer/navigation/route';

describe('a run route with a search', () => {
  it('keeps the query beside step and event, and reads it back', () => {
    const route = routes.run('t1', 3, { step: 2, eventId: 40, query: 'kumquat price' });
    const hash = formatRoute(route);
    assert.equal(hash, '#/trace/t1/run/3/step/2/event/40?q=kumquat+price');
    assert.deepEqual(parseRoute(hash), route);
  });

  it('reads no query from a run URL without one, or with an empty one', () => {
    assert.equal((parseRoute('#/trace/t1/run/3/step/2/event/40') as { query: string | null }).query, null);
    assert.equal((parseRoute('#/trace/t1/run/3/event/40?q=%20') as { query: string | null }).query, null);
    assert.equal(formatRoute(routes.run('t1', 3, { eventId: 40 })), '#/trace/t1/run/3/event/40');
  });

  it('keeps hostile text as text', () => {
    const route = routes.run('t1', 1, { eventId: 5, query: '"/><script>&q=' });
    assert.deepEqual(parseRoute(formatRoute(route)), route);
  });
});

describe('a comparison route', () => {
  it('names both runs and reads them back; a malformed one falls back to the runs table', () => {
    const route = routes.compare('t1', 3, 7);
    assert.equal(formatRoute(route), '#/trace/t1/compare/3/7');
    assert.deepEqual(parseRoute('#/trace/t1/compare/3/7'), route);
    assert.deepEqual(parseRoute('#/trace/t1/compare/3/x'), routes.trace('t1'));
    assert.deepEqual(parseRoute('#/trace/t1/compare/3'), routes.trace('t1'));
  });
});

describe('a request diff route against a request of another trace', () => {
  it('names the other trace after the request it compares with, and reads it back', () => {
    const route = routes.requestDiff('tB', 4, 12, { previousEventId: 9, previousTraceId: 'tA' });
    assert.equal(formatRoute(route), '#/trace/tB/run/4/diff/12/against/9/against-trace/tA');
    assert.deepEqual(parseRoute(formatRoute(route)), route);
  });

  it('drops a trace named without a request, or the same trace', () => {
    assert.equal((parseRoute('#/trace/tB/run/4/diff/12/against-trace/tA') as { previousTraceId: string | null }).previousTraceId, null);
    assert.equal(formatRoute(routes.requestDiff('tB', 4, 12, { previousEventId: 9, previousTraceId: 'tB' })), '#/trace/tB/run/4/diff/12/against/9');
  });
});
