/**
 * An HTML report's recorded answers (shared/htmlReport/reportSnapshot.ts): a request finds the
 * answer recorded for it however a view spells its defaults, a paged list is cut exactly as the
 * API pages it, a jump's pages are the ones the API would send, and what was not recorded is
 * refused with its reason.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { apiMethods } from '../../../shared/api';
import {
  answerFromSnapshot,
  answerKey,
  NotInReportError,
  pageOffsetsAround,
  ReportSnapshotBuilder,
  reportSnapshotSchema,
} from '../../../shared/htmlReport/reportSnapshot';

const head = { exportedAt: '2026-12-04T12:00:00.000Z', loopscopeVersion: '0.1.0', redacted: true, traceId: 't1', run: null };

describe('answer keys', () => {
  test('a field at its default, a field left out and the page asked for give one key', () => {
    const parsed = apiMethods.runs.request.parse({ traceId: 't1' });
    assert.equal(answerKey('runs', parsed), answerKey('runs', { traceId: 't1', offset: 400, limit: 50, sort: 'first_line', descending: false }));
    assert.equal(answerKey('calls', { traceId: 't1' }), answerKey('calls', { traceId: 't1', sort: 'position', descending: false, name: undefined }));
    assert.equal(answerKey('event', { traceId: 't1', eventId: 3, maxBytes: 1 }), answerKey('event', { traceId: 't1', eventId: 3, revealSecrets: false }));
  });

  test('a filter, an order or another run is another key', () => {
    const keys = new Set([
      answerKey('calls', { traceId: 't1' }),
      answerKey('calls', { traceId: 't1', state: 'dangling' }),
      answerKey('calls', { traceId: 't1', sort: 'tool' }),
      answerKey('calls', { traceId: 't1', sort: 'tool', descending: true }),
      answerKey('calls', { traceId: 't1', runPk: 2 }),
      answerKey('event', { traceId: 't1', eventId: 3, revealSecrets: true }),
      answerKey('event', { traceId: 't1', eventId: 3 }),
    ]);
    assert.equal(keys.size, 7);
  });
});

describe('recorded answers', () => {
  const rows = Array.from({ length: 23 }, (_, index) => ({ runPk: index + 1, runId: `run-${index + 1}` }));

  function snapshotWithRuns(): ReturnType<ReportSnapshotBuilder['build']> {
    const builder = new ReportSnapshotBuilder();
    builder.add('runs', { traceId: 't1' }, { total: rows.length, offset: 0, rows });
    builder.add('runs', { traceId: 't1', sort: 'steps', descending: true }, { total: rows.length, offset: 0, rows: [...rows].reverse() });
    builder.add('run', { traceId: 't1', runPk: 1 }, { run: rows[0] });
    // The snapshot goes into the page as JSON and is read back with its schema.
    return reportSnapshotSchema.parse(JSON.parse(JSON.stringify(builder.build(head))));
  }

  test('a row listed in two orders is kept once', () => {
    assert.equal(snapshotWithRuns().rows.length, rows.length);
  });

  test('any page of a recorded list is the slice the API would send', () => {
    const snapshot = snapshotWithRuns();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 30 }), fc.boolean(), (offset, limit, reversed) => {
        const order = reversed ? [...rows].reverse() : rows;
        const request = reversed ? { traceId: 't1', sort: 'steps', descending: true, offset, limit } : { traceId: 't1', offset, limit };
        assert.deepEqual(answerFromSnapshot(snapshot, 'runs', request), { total: rows.length, offset, rows: order.slice(offset, offset + limit) });
      }),
    );
  });

  test('a jump brings the pages around its position, cut from the recorded timeline', () => {
    const builder = new ReportSnapshotBuilder();
    const events = Array.from({ length: 950 }, (_, index) => ({ eventId: 1000 + index }));
    builder.add('runEvents', { traceId: 't1', runPk: 4 }, { total: events.length, offset: 0, rows: events, calls: [], hiddenBookkeeping: 0 });
    builder.add('eventPosition', { traceId: 't1', eventId: 1700 }, { runPk: 4, index: 700, visibleIndex: null });
    const snapshot = builder.build(head);
    const answer = answerFromSnapshot(snapshot, 'eventPosition', {
      traceId: 't1',
      eventId: 1700,
      collapsedSpans: [],
      pages: { pageSize: 200, around: 150, hideBookkeeping: false },
    }) as { index: number; pages: { offset: number; rows: { eventId: number }[] }[] };
    assert.equal(answer.index, 700);
    assert.deepEqual(
      answer.pages.map((page) => page.offset),
      pageOffsetsAround(700, { pageSize: 200, around: 150 }),
    );
    assert.deepEqual(
      answer.pages.map((page) => page.offset),
      [400, 600, 800],
    );
    assert.equal(answer.pages[2]!.rows.length, 150, 'the last page is cut at the end of the run');
    // Without bookkeeping the event is not listed at all: no pages, as the API answers.
    const hidden = answerFromSnapshot(snapshot, 'eventPosition', {
      traceId: 't1',
      eventId: 1700,
      pages: { pageSize: 200, around: 150, hideBookkeeping: true },
    });
    assert.deepEqual(hidden, { runPk: 4, index: 700, visibleIndex: null });
  });

  test('what was not recorded is refused with the reason', () => {
    const snapshot = snapshotWithRuns();
    const refusal = (method: 'runs' | 'event' | 'search' | 'compareRuns', request: Record<string, unknown>) => {
      try {
        answerFromSnapshot(snapshot, method, request);
      } catch (error) {
        assert.ok(error instanceof NotInReportError);
        return error.message;
      }
      assert.fail('answered');
    };
    assert.match(refusal('runs', { traceId: 't1', text: 'x' }), /Filtering by text is not in this report/);
    assert.match(refusal('event', { traceId: 't1', eventId: 1, revealSecrets: true }), /exported with credentials masked/);
    assert.match(refusal('search', { traceId: 't1', query: 'x' }), /Search is not in this report/);
    assert.match(refusal('compareRuns', { traceId: 't1', runPkA: 1, runPkB: 2 }), /Comparing runs is not in this report/);
    assert.match(refusal('runs', { traceId: 't1', status: 'succeeded', sort: 'steps' }), /under one filter at a time/);
  });

  test('exported with --no-redact, the reveal finds the record as written', () => {
    const builder = new ReportSnapshotBuilder();
    builder.add('event', { traceId: 't1', eventId: 9 }, { written: 'as written' });
    const snapshot = builder.build({ ...head, redacted: false });
    assert.deepEqual(answerFromSnapshot(snapshot, 'event', { traceId: 't1', eventId: 9, revealSecrets: true }), { written: 'as written' });
  });
});
