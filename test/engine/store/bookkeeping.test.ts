/** Which events the timeline folds away as bookkeeping (shared/trace/bookkeeping.ts), per format. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { queries } from '../../../src-main/api/queries';
import { openTrace } from '../../../src-main/engine/engine';
import { openDatabase } from '../../../src-main/engine/store/traceDatabase';
import { isBookkeeping } from '../../../shared/trace/bookkeeping';
import { defaultAnalysis, temporaryDir } from '../../support/engineHarness';
import { fixtures } from '../../support/formatTests';
import { testFixturesDir } from '../../../devkit/repoPaths';

describe('bookkeeping events', () => {
  it('folds Claude Code progress, snapshots, queue operations, session titles and hook summaries', () => {
    for (const typeRaw of [
      'progress/hook_progress',
      'progress/bash_progress',
      'progress/agent_progress',
      'progress/some_future_progress',
      'progress',
      'file-history-snapshot',
      'queue-operation/enqueue',
      'summary',
      'system/turn_duration',
      'system/stop_hook_summary',
    ]) {
      assert.equal(isBookkeeping('claude-code', 'unknown', typeRaw), true, typeRaw);
    }
  });

  it("keeps Claude Code's prompts, commands, compactions and interrupts", () => {
    for (const typeRaw of [
      'user',
      'user/command',
      'user/meta',
      'user/interrupt',
      'user/compact_summary',
      'system/compact_boundary',
      'system/local_command',
      'progressive',
      'summary/other',
    ]) {
      assert.equal(isBookkeeping('claude-code', 'unknown', typeRaw), false, typeRaw);
    }
  });

  it('folds Inspect span ends, steps, sandbox, state, store and info events, and keeps span begins (the span headers), scores, errors and sample_init', () => {
    for (const typeRaw of ['event/span_end', 'event/step', 'event/sandbox', 'event/state', 'event/store', 'event/info']) {
      assert.equal(isBookkeeping('inspect-ai', 'unknown', typeRaw), true, typeRaw);
    }
    for (const typeRaw of ['event/span_begin', 'event/score', 'event/error', 'event/sample_init', 'event/input', 'event/approval', 'summaries/reductions']) {
      assert.equal(isBookkeeping('inspect-ai', 'unknown', typeRaw), false, typeRaw);
    }
  });

  it("folds Codex turn settings, counters and mirrors, and keeps the user's and developer's messages", () => {
    for (const typeRaw of [
      'turn_context',
      'event_msg/token_count',
      'event_msg/agent_message',
      'event_msg/agent_reasoning',
      'event_msg/task_started',
      'ghost_snapshot',
    ]) {
      assert.equal(isBookkeeping('codex', 'unknown', typeRaw), true, typeRaw);
    }
    for (const typeRaw of ['event_msg/user_message', 'response_item/message/user', 'response_item/message/developer', 'compacted', 'event_msg/turn_aborted']) {
      assert.equal(isBookkeeping('codex', 'unknown', typeRaw), false, typeRaw);
    }
  });

  it('folds OpenHands state changes and Cline checkpoints', () => {
    assert.equal(isBookkeeping('openhands', 'unknown', 'observation:agent_state_changed (running)'), true);
    assert.equal(isBookkeeping('openhands', 'unknown', 'action:message (user)'), false);
    assert.equal(isBookkeeping('cline', 'unknown', 'say/checkpoint_created'), true);
    assert.equal(isBookkeeping('cline', 'unknown', 'say/user_feedback'), false);
  });

  it('never folds a canonical event, whatever its raw type, nor an event of a format without rules', () => {
    assert.equal(isBookkeeping('claude-code', 'tool_result', 'progress/hook_progress'), false);
    assert.equal(isBookkeeping('inspect-ai', 'model_response', 'event/span_begin'), false);
    assert.equal(isBookkeeping('otel-otlp', 'unknown', 'progress/hook_progress'), false);
    assert.equal(isBookkeeping('constructor', 'unknown', 'summary'), false);
    assert.equal(isBookkeeping('__proto__', 'unknown', 'summary'), false);
  });
});

describe("a run's events without bookkeeping, through the API", () => {
  it('pages and counts over the events that are not bookkeeping, and places each event in both lists', async () => {
    const cache = temporaryDir('bookkeeping');
    try {
      const trace = await openTrace(join(fixtures, 'claude-code', 'parallel-split-lines.jsonl'), { cacheDir: cache.path, analysis: defaultAnalysis });
      const db = openDatabase(trace.dbPath, { readonly: true });
      try {
        const scope = { sourceIds: [1], optionsKey: '' };
        const request = { traceId: 't', runPk: 1, offset: 0, limit: 2000, collapsedSpans: [] };
        const all = queries.runEvents(db, scope, { ...request, hideBookkeeping: false });
        const content = queries.runEvents(db, scope, { ...request, hideBookkeeping: true });
        // A snapshot, two hook progress lines and the stop hook's summary; the run_start on the first progress line is no bookkeeping.
        const folded = all.rows.filter((row) => !content.rows.some((kept) => kept.eventId === row.eventId)).map((row) => `${row.line} ${row.typeRaw}`);
        assert.deepEqual(folded, ['1 file-history-snapshot', '2 progress/hook_progress', '7 progress/hook_progress', '16 system/stop_hook_summary']);
        assert.equal(all.hiddenBookkeeping, 4);
        assert.equal(content.hiddenBookkeeping, 4);
        assert.equal(content.total, all.total - 4);
        assert.equal(content.rows.length, content.total);
        // A page further on is the same rows as the whole list has there: paged over the kept rows, in order.
        const page = queries.runEvents(db, scope, { ...request, offset: 3, limit: 4, hideBookkeeping: true });
        assert.deepEqual(
          page.rows.map((row) => row.eventId),
          content.rows.slice(3, 7).map((row) => row.eventId),
        );
        const progress = all.rows.find((row) => row.line === 7)!;
        assert.equal(queries.eventPosition(db, scope, { traceId: 't', eventId: progress.eventId, collapsedSpans: [] }).visibleIndex, null);
        const result = content.rows[5]!;
        assert.deepEqual(queries.eventPosition(db, scope, { traceId: 't', eventId: result.eventId, collapsedSpans: [] }), {
          runPk: 1,
          index: all.rows.indexOf(all.rows.find((row) => row.eventId === result.eventId)!),
          visibleIndex: 5,
        });
        // Step 1's first row: the run's first event at or after its line, not bookkeeping when that is hidden.
        const step = queries.stepPosition(db, scope, { traceId: 't', runPk: 1, step: 1, direction: 'at', hideBookkeeping: true, collapsedSpans: [] });
        assert.equal(content.rows[step!.index]?.step, 1);
      } finally {
        db.close();
      }
    } finally {
      cache.remove();
    }
  });
});

describe('an Inspect sample without its bookkeeping, and its waterfall, through the API', () => {
  it('folds span ends, sandbox, state, store and info events, keeps the span headers, the calls and the score, and places the calls in time', async () => {
    const cache = temporaryDir('bookkeeping-inspect');
    try {
      const trace = await openTrace(join(testFixturesDir, 'ui', 'inspect-spans', 'spans.json'), {
        cacheDir: cache.path,
        analysis: defaultAnalysis,
      });
      const db = openDatabase(trace.dbPath, { readonly: true });
      try {
        const scope = { sourceIds: [1], optionsKey: '' };
        const sample = { runPk: (db.prepare("SELECT id FROM runs WHERE run_id = 'evalSpans1/count-lines/epoch1'").get() as { id: number }).id };
        const request = { traceId: 't', runPk: sample.runPk, offset: 0, limit: 2000, collapsedSpans: [] };
        const all = queries.runEvents(db, scope, { ...request, hideBookkeeping: false });
        const content = queries.runEvents(db, scope, { ...request, hideBookkeeping: true });
        const kept = new Set(content.rows.map((row) => row.eventId));
        const folded = all.rows.filter((row) => !kept.has(row.eventId)).map((row) => row.typeRaw);
        assert.deepEqual(
          folded.toSorted(),
          [...Array(4).fill('event/span_end'), 'event/info', 'event/sandbox', 'event/sandbox', 'event/state', 'event/store'].toSorted(),
        );
        assert.equal(content.hiddenBookkeeping, 9);
        const shown = content.rows.map((row) => row.typeRaw);
        for (const typeRaw of ['event/span_begin', 'event/sample_init', 'event/score']) assert.ok(shown.includes(typeRaw), `${typeRaw} is shown`);
        assert.deepEqual(
          content.rows.filter((row) => row.type === 'model_response' || row.type === 'tool_result').map((row) => row.type),
          ['model_response', 'tool_result', 'model_response'],
        );

        // The model events record their time (output.time) and the tool its working_time: spans end at their events' times.
        const waterfall = queries.runWaterfall(db, scope, { traceId: 't', runPk: sample.runPk });
        const at = (seconds: number) => Date.parse(`2025-06-11T14:00:${seconds.toFixed(3).padStart(6, '0')}Z`);
        assert.deepEqual(
          waterfall.spans.map((span) => [span.kind, span.startMs - at(0), span.endMs - at(0), span.track]),
          [
            ['model', at(2) - 1200 - at(0), at(2) - at(0), 0],
            ['model', at(4) - 900 - at(0), at(4) - at(0), 0],
            ['tool', at(2.5) - 300 - at(0), at(2.5) - at(0), 0],
          ],
        );
        assert.deepEqual([waterfall.untimed, waterfall.omitted], [0, 0]);
      } finally {
        db.close();
      }
    } finally {
      cache.remove();
    }
  });
});
