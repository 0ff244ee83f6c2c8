/**
 * A run's timeline is kept as columns (shared/analysis/timeline.ts): every entry and call put in
 * comes back as it was, through `at`, iteration and the field accessors alike, with null numbers,
 * timestamps kept as numbers or as text, stream fragments that close no stream left out, and a
 * builder that takes more entries after a build (a followed run) building again from all of them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  CallColumns,
  TimelineEntriesBuilder,
  type ResponseEntry,
  type TimelineCall,
  type TimelineEntries,
  type TimelineEntry,
} from '../../../shared/analysis/timeline';
import type { ModelOutcome } from '../../../shared/trace/canonicalEvents';

const text = fc.option(fc.string({ maxLength: 6 }), { nil: null });
const count = fc.option(fc.nat(5_000), { nil: null });
const ts = fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 2e12 }), fc.constant('2025-01-01T00:01:01Z'));
const outcome = fc.constantFrom<ModelOutcome>('tool_calls', 'final', 'incomplete', 'refusal');

/** An entry without its position fields, and, for a response, how many calls it lists and whether it is an open fragment. */
const entryShape = fc.oneof(
  fc.record({
    kind: fc.constant('response' as const),
    outcome,
    finishReason: text,
    incompleteReason: text,
    streamed: fc.boolean(),
    inputTokens: count,
    outputTokens: count,
    costUsd: fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: null }),
    apiError: fc.option(fc.record({ status: fc.option(fc.nat(600), { nil: null }), type: text, message: text }), { nil: null }),
    callCount: fc.nat(3),
    /** A stream fragment: no outcome when added; its stream closes on it later, or never. */
    fragment: fc.constantFrom('no', 'closes', 'stays open'),
  }),
  fc.record({ kind: fc.constant('execution' as const), callId: fc.string({ maxLength: 4 }) }),
  fc.record({
    kind: fc.constant('result' as const),
    callId: fc.string({ maxLength: 4 }),
    name: text,
    ok: fc.boolean(),
    errorCode: text,
    errorLine: text,
    resultHash: text,
    progress: fc.option(fc.boolean(), { nil: null }),
  }),
  fc.record({ kind: fc.constant('not_executed' as const), callId: fc.string({ maxLength: 4 }), reason: text }),
  fc.record({ kind: fc.constant('run_end' as const), statusRaw: text }),
);

const run = fc.record({
  shapes: fc.array(fc.record({ shape: entryShape, step: fc.option(fc.integer({ min: -2, max: 50 }), { nil: null }), ts }), { maxLength: 40 }),
  /** Where the first build happens, as a share of the entries. */
  firstBuildAt: fc.double({ min: 0, max: 1, noNaN: true }),
  /** A call whose response is no entry (its event was no response): no call of the run. */
  strayCall: fc.boolean(),
});

/** Everything the accessors say of the entries, and the entries themselves as iteration and `at` give them. */
function readBack(entries: TimelineEntries): { iterated: TimelineEntry[]; byAt: TimelineEntry[]; fields: unknown[] } {
  const byAt: TimelineEntry[] = [];
  const fields: unknown[] = [];
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries.at(index)!;
    byAt.push(entry);
    fields.push({ kind: entries.kind(index), line: entries.line(index), step: entries.step(index), eventId: entries.eventId(index) });
    if (entry.kind === 'result') assert.deepEqual(entries.resultAt(index), entry);
  }
  assert.equal(entries.at(-1), undefined);
  assert.equal(entries.at(entries.length), undefined);
  return { iterated: [...entries], byAt, fields };
}

describe('the timeline as columns', () => {
  it('gives back every entry and call put in, read by position or in order, before and after more entries', () => {
    fc.assert(
      fc.property(run, ({ shapes, firstBuildAt, strayCall }) => {
        const builder = new TimelineEntriesBuilder();
        /** The plain reference: the entries as the rules see them, by event id; open fragments stay out. */
        const expected: { entry: TimelineEntry; fragmentRow: number | null; closes: boolean }[] = [];
        const calls: TimelineCall[] = [];
        const firstBuild = Math.floor(firstBuildAt * shapes.length);
        let built: { entries: TimelineEntries; upTo: number } | null = null;
        const expectedNow = (): TimelineEntry[] => expected.filter(({ fragmentRow, closes }) => fragmentRow === null || closes).map(({ entry }) => entry);
        const attached = (): TimelineCall[] => expectedNow().flatMap((entry) => (entry.kind === 'response' ? entry.calls : []));

        shapes.forEach(({ shape, step, ts: at }, index) => {
          if (index === firstBuild) built = { entries: builder.build(CallColumns.of(calls)), upTo: index };
          const base = { eventId: 10 * (index + 1), line: index + 2, step, ts: at };
          if (shape.kind !== 'response') {
            const entry = { ...base, ...shape } as TimelineEntry;
            builder.add(entry);
            expected.push({ entry, fragmentRow: null, closes: false });
            return;
          }
          const { callCount, fragment, ...fields } = shape;
          const own = Array.from({ length: callCount }, (_, position): TimelineCall => ({
            callId: `c${index}_${position}`,
            name: 'search',
            argsHash: null,
            argsError: null,
            argsSummary: null,
            step,
            line: base.line,
            eventId: base.eventId,
            index: position,
          }));
          calls.push(...own);
          const entry: ResponseEntry = { ...base, ...fields, calls: own };
          const row = builder.add(fragment === 'no' ? entry : { ...entry, outcome: null, finishReason: null });
          expected.push({ entry, fragmentRow: fragment === 'no' ? null : row, closes: fragment === 'closes' });
        });
        for (const { entry, fragmentRow, closes } of expected) {
          if (fragmentRow !== null && closes && entry.kind === 'response') builder.setOutcome(fragmentRow, entry.outcome, entry.finishReason);
        }
        if (strayCall)
          calls.push({ callId: 'stray', name: 'x', argsHash: null, argsError: null, argsSummary: null, step: null, line: 1, eventId: 5, index: 0 });
        const entries = builder.build(CallColumns.of(calls));

        const want = expectedNow();
        const { iterated, byAt, fields } = readBack(entries);
        assert.deepEqual(iterated, want);
        assert.deepEqual(byAt, want);
        assert.deepEqual(
          fields,
          want.map((entry) => ({ kind: entry.kind, line: entry.line, step: entry.step, eventId: entry.eventId })),
        );
        assert.deepEqual([...entries.calls], attached());
        // A build before more entries came keeps what it had; its fragments were all open then, so none is in it.
        if (built !== null) {
          const { entries: early, upTo } = built as { entries: TimelineEntries; upTo: number };
          const before = expected.slice(0, upTo).filter(({ fragmentRow }) => fragmentRow === null);
          assert.deepEqual(
            [...early],
            before.map(({ entry }) => entry),
          );
        }
      }),
      { numRuns: 300 },
    );
  });
});
