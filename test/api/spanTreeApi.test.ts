/** An Inspect sample's span tree through the API: header rows, depths, collapsed spans paged and placed (shared/trace/spanTree.ts). */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { queries } from '../../src-main/api/queries';
import { openTrace } from '../../src-main/engine/engine';
import { openDatabase } from '../../src-main/engine/store/traceDatabase';
import { defaultAnalysis, temporaryDir } from '../support/engineHarness';
import { fixtures } from '../support/formatTests';
import { testFixturesDir } from '../../devkit/repoPaths';

describe("an Inspect sample's spans, through the API", () => {
  it('shows each span begin as a header with its name, type, count and time, indents by depth, and leaves a collapsed span out of the pages', async () => {
    const cache = temporaryDir('span-tree');
    try {
      const trace = await openTrace(join(testFixturesDir, 'ui', 'inspect-spans', 'spans.json'), {
        cacheDir: cache.path,
        analysis: defaultAnalysis,
      });
      const db = openDatabase(trace.dbPath, { readonly: true });
      try {
        const scope = { sourceIds: [1], optionsKey: '' };
        const runPk = (db.prepare("SELECT id FROM runs WHERE run_id = 'evalSpans1/count-lines/epoch1'").get() as { id: number }).id;
        const list = (collapsedSpans: number[], page = { offset: 0, limit: 2000 }, hideBookkeeping = true) =>
          queries.runEvents(db, scope, { traceId: 't', runPk, ...page, hideBookkeeping, collapsedSpans });
        const open = list([]);
        const describeRow = (row: (typeof open.rows)[number]) =>
          `${'  '.repeat(row.spanDepth)}${row.span ? `[${row.span.name}/${row.span.type} ${row.span.events}]` : row.type}`;
        assert.deepEqual(open.rows.map(describeRow), [
          'run_start',
          '[init/init 1]',
          '  unknown',
          '[solvers/solvers 7]',
          '  [react/solver 6]',
          '    model_request',
          '    model_response',
          '    [bash/tool 1]',
          '      tool_result',
          '    model_request',
          '    model_response',
          'unknown',
          'run_end',
        ]);
        const header = (name: string) => open.rows.find((row) => row.span?.name === name)!;
        // The sample has no started_at: it starts at its first model event (14:00:02), and the earlier
        // stamps (the eval's) are dropped, so the span runs from that event to its end record (14:00:04.200).
        assert.equal(header('solvers').span?.durationMs, 2200);
        assert.equal(header('bash').span?.durationMs, 500);
        // With every event listed, the span also holds its bookkeeping and its end.
        assert.equal(list([], undefined, false).rows.find((row) => row.span?.name === 'solvers')?.span?.events, 12);

        const solvers = header('solvers').eventId;
        const collapsed = list([solvers]);
        assert.equal(collapsed.total, open.total - 7);
        assert.deepEqual(collapsed.rows.map((row) => row.span?.name ?? row.typeRaw).slice(3), ['solvers', 'event/score', 'sample/end']);
        assert.equal(collapsed.rows.find((row) => row.eventId === solvers)?.span?.collapsed, true);
        // A page that starts after the collapsed span is read past it.
        assert.deepEqual(
          list([solvers], { offset: 4, limit: 1 }).rows.map((row) => row.typeRaw),
          ['event/score'],
        );
        // A span collapsed inside a collapsed one hides nothing more.
        assert.equal(list([solvers, header('react').eventId]).total, collapsed.total);
        // Collapsing the inner span alone hides its six rows, and a page across it skips them.
        const react = list([header('react').eventId]);
        assert.equal(react.total, open.total - 6);
        assert.deepEqual(
          list([header('react').eventId], { offset: 4, limit: 2 }).rows.map((row) => row.span?.name ?? row.typeRaw),
          ['react', 'event/score'],
        );

        // An event inside a collapsed span is placed at its span's header; one after it, past the hidden rows.
        const result = open.rows.find((row) => row.type === 'tool_result')!;
        const score = open.rows.find((row) => row.typeRaw === 'event/score')!;
        assert.equal(queries.eventPosition(db, scope, { traceId: 't', eventId: result.eventId, collapsedSpans: [solvers] }).visibleIndex, 3);
        assert.equal(queries.eventPosition(db, scope, { traceId: 't', eventId: score.eventId, collapsedSpans: [solvers] }).visibleIndex, 4);
        // The sample is one record: its steps are found by step on that line, not all at its first event.
        const step2 = (collapsedSpans: number[]) =>
          queries.stepPosition(db, scope, { traceId: 't', runPk, step: 2, direction: 'at', hideBookkeeping: true, collapsedSpans })?.index;
        assert.equal(open.rows[step2([])!]?.type, 'model_request');
        assert.equal(open.rows[step2([])!]?.step, 2);
        assert.equal(step2([solvers]), 3);
      } finally {
        db.close();
      }
    } finally {
      cache.remove();
    }
  });

  it('gives rows of a run without spans no header and no depth', async () => {
    const cache = temporaryDir('span-tree-none');
    try {
      const trace = await openTrace(join(fixtures, 'claude-code', 'parallel-split-lines.jsonl'), { cacheDir: cache.path, analysis: defaultAnalysis });
      const db = openDatabase(trace.dbPath, { readonly: true });
      try {
        const rows = queries.runEvents(
          db,
          { sourceIds: [1], optionsKey: '' },
          { traceId: 't', runPk: 1, offset: 0, limit: 2000, hideBookkeeping: false, collapsedSpans: [] },
        ).rows;
        assert.ok(rows.length > 0);
        assert.deepEqual(
          rows.filter((row) => row.span !== null || row.spanDepth !== 0),
          [],
        );
      } finally {
        db.close();
      }
    } finally {
      cache.remove();
    }
  });
});
