/**
 * Full-text search through the real engine (ingest worker, SQLite file with its FTS5 index) and
 * the `search` query the API answers with: what is found, how words are read, paging, and caches
 * that are reused or rebuilt.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type Database from 'better-sqlite3';
import { searchEvents } from '../../src-main/api/search';
import { openDatabase } from '../../src-main/engine/store/traceDatabase';
import type { ApiResponse } from '../../shared/api';
import { analyzeFile, temporaryDir } from '../support/engineHarness';
import { fixtures } from '../support/formatTests';

const event = (runId: string, fields: Record<string, unknown>): string => JSON.stringify({ run_id: runId, ...fields });

/** Two runs; each distinctive word sits in one kind of content. */
const trace = [
  event('r1', { type: 'run_start', task: 'Reconcile the quarterly ledger' }),
  event('r1', {
    type: 'model_request',
    step: 1,
    messages: [
      { role: 'system', content: 'You keep an obsidian notebook.' },
      { role: 'user', content: [{ type: 'text', text: 'Start with the tangerine account.' }] },
    ],
  }),
  event('r1', {
    type: 'model_response',
    step: 1,
    finish_reason: 'tool_calls',
    text: 'Let me open the marmalade report.',
    tool_calls: [{ call_id: 'c1', name: 'read_file', arguments: '{"path":"reports/quetzal-2024.csv"}' }],
  }),
  event('r1', { type: 'tool_result', step: 1, call_id: 'c1', status: 'ok', output: 'date,amount\n2024-01-02,17\nSettled via zanzibar clearing' }),
  event('r1', { type: 'model_response', step: 2, finish_reason: 'stop', text: 'The Crème brûlée fund is balanced; black OR white, NEAR(the) end: "done"*' }),
  event('r1', { type: 'run_end', status: 'MODEL_FINISHED' }),
  event('r2', { type: 'run_start', task: 'Audit the ledger again' }),
  event('r2', { type: 'tool_result', step: 0, call_id: 'c2', status: 'error', error: { code: 'EACCES', message: 'permission denied on the vault' } }),
  event('r2', { type: 'stream_fragment', step: 1, text_delta: 'Hel' }),
  event('r2', { type: 'stream_fragment', step: 1, text_delta: 'lo wor' }),
  event('r2', { type: 'stream_fragment', step: 1, text_delta: 'ld', finish_reason: 'stop' }),
  event('r2', { type: 'run_end', status: 'MODEL_FINISHED' }),
];

/** Lines (1-based) of `trace` by what they hold. */
const lines = { task: 1, request: 2, response: 3, result: 4, finalAnswer: 5, secondTask: 7, errorResult: 8, lastFragment: 11 };

type SearchHit = ApiResponse<'search'>['rows'][number];

/** The marked parts of a hit's snippet. */
const highlighted = (hit: SearchHit): string[] => hit.matches.map(([start, end]) => hit.snippet.slice(start, end));

describe('search', () => {
  const dir = temporaryDir('search');
  const cacheDir = join(dir.path, 'cache');
  const tracePath = join(dir.path, 'search.jsonl');
  let db: Database.Database;
  let runPks: Map<string, number>;

  const search = (query: string, options: { offset?: number; limit?: number; runPk?: number } = {}): ApiResponse<'search'> =>
    searchEvents(db, {
      traceId: 'trace',
      query,
      offset: options.offset ?? 0,
      limit: options.limit ?? 200,
      ...(options.runPk !== undefined ? { runPk: options.runPk } : {}),
    });
  const hitLines = (query: string): number[] =>
    search(query)
      .rows.map((hit) => hit.line)
      .sort((a, b) => a - b);

  before(async () => {
    writeFileSync(tracePath, `${trace.join('\n')}\n`);
    const { trace: handle } = await analyzeFile(tracePath, { cacheDir, searchIndex: true });
    db = openDatabase(handle.dbPath, { readonly: true });
    runPks = new Map(
      db
        .prepare<[], { run_id: string; id: number }>('SELECT run_id, id FROM runs')
        .all()
        .map((run) => [run.run_id, run.id]),
    );
  });
  after(() => {
    db.close();
    dir.remove();
  });

  it('finds a word of a tool result, with the text around it and the match marked', () => {
    const { total, rows } = search('zanzibar');
    assert.equal(total, 1);
    const [hit] = rows;
    assert.equal(hit?.line, lines.result);
    assert.equal(hit?.type, 'tool_result');
    assert.equal(hit?.runId, 'r1');
    assert.equal(hit?.runPk, runPks.get('r1'));
    assert.equal(hit?.step, 1);
    assert.equal(hit?.snippet, 'date,amount 2024-01-02,17 Settled via zanzibar clearing', 'line breaks read as spaces');
    assert.deepEqual(highlighted(hit!), ['zanzibar']);
  });

  it('finds a word of tool call arguments, in the response that made the call', () => {
    assert.deepEqual(hitLines('quetzal'), [lines.response]);
    assert.deepEqual(highlighted(search('quetzal').rows[0]!), ['quetzal']);
  });

  it('finds a word of a model response, a run task, and a tool error message', () => {
    assert.deepEqual(hitLines('marmalade'), [lines.response]);
    assert.deepEqual(hitLines('ledger'), [lines.task, lines.secondTask]);
    assert.deepEqual(hitLines('vault'), [lines.errorResult]);
    assert.deepEqual(hitLines('EACCES'), [lines.errorResult]);
  });

  it("indexes only a model request's last message, not the history it resends", () => {
    assert.deepEqual(hitLines('tangerine'), [lines.request]);
    assert.deepEqual(hitLines('obsidian'), []);
  });

  it('finds the text of a streamed response joined across its fragments', () => {
    const { rows } = search('hello world');
    assert.deepEqual(
      rows.map((hit) => hit.line),
      [lines.lastFragment],
    );
    assert.deepEqual(highlighted(rows[0]!), ['Hello', 'world']);
  });

  it('matches the last word as a prefix, and only the last one', () => {
    assert.deepEqual(hitLines('zanz'), [lines.result]);
    assert.deepEqual(highlighted(search('zanz').rows[0]!), ['zanzibar']);
    assert.deepEqual(hitLines('zanz clearing'), []);
  });

  it('requires every word, in any order, ignoring case and diacritics', () => {
    assert.deepEqual(hitLines('clearing SETTLED'), [lines.result]);
    assert.deepEqual(hitLines('clearing marmalade'), []);
    const { rows } = search('creme brulee');
    assert.deepEqual(
      rows.map((hit) => hit.line),
      [lines.finalAnswer],
    );
    assert.deepEqual(highlighted(rows[0]!), ['Crème', 'brûlée']);
  });

  it('reads FTS5 syntax as plain text and never fails on it', () => {
    for (const query of [
      '"',
      '""',
      '*',
      'OR',
      'AND',
      'NOT',
      'NEAR(',
      'NEAR(a b, 2)',
      '-',
      ':',
      'text:',
      '^',
      '(',
      ')',
      '+',
      '{a b}',
      'a"b',
      '"unbalanced',
      'x OR',
      '- zanzibar',
      '"zanzibar"*',
      'zanzibar*',
    ]) {
      assert.doesNotThrow(() => search(query), `query ${JSON.stringify(query)}`);
    }
    assert.deepEqual(hitLines('OR'), [lines.finalAnswer], '"OR" is the word or, not an operator');
    assert.deepEqual(hitLines('black OR white'), [lines.finalAnswer]);
    assert.deepEqual(hitLines('NEAR('), [lines.finalAnswer]);
    assert.deepEqual(hitLines('"done"*'), [lines.finalAnswer]);
    assert.deepEqual(hitLines('"zanzibar"*'), [lines.result]);
    assert.deepEqual(search('"').rows, [], 'no word at all matches nothing');
    assert.equal(search(': - *').total, 0);
  });

  it('reads a word the tokenizer splits as a phrase', () => {
    assert.deepEqual(hitLines('quetzal-2024'), [lines.response]);
    assert.deepEqual(hitLines('2024-quetzal'), []);
  });

  it('filters by run', () => {
    assert.deepEqual(
      search('ledger', { runPk: runPks.get('r2')! }).rows.map((hit) => hit.line),
      [lines.secondTask],
    );
    assert.deepEqual(search('zanzibar', { runPk: runPks.get('r2')! }), { total: 0, offset: 0, rows: [] });
  });

  it('pages through the hits in a stable order, with the total of all of them', () => {
    const all = search('the');
    assert.ok(all.total >= 5, `"the" is in at least five events, found ${all.total}`);
    const pages = [0, 2, 4].map((offset) => search('the', { offset, limit: 2 }));
    for (const [index, page] of pages.entries()) {
      assert.equal(page.total, all.total);
      assert.equal(page.offset, index * 2);
      assert.ok(page.rows.length <= 2);
    }
    assert.deepEqual(
      pages.flatMap((page) => page.rows.map((hit) => hit.eventId)),
      all.rows.slice(0, 6).map((hit) => hit.eventId),
    );
    assert.deepEqual(search('the', { offset: all.total }).rows, []);
  });
});

describe('search across caches and formats', () => {
  const dir = temporaryDir('search-cache');
  after(() => dir.remove());

  const searchTrace = (dbPath: string, query: string): number[] => {
    const db = openDatabase(dbPath, { readonly: true });
    try {
      return searchEvents(db, { traceId: 'trace', query, offset: 0, limit: 50 }).rows.map((hit) => hit.line);
    } finally {
      db.close();
    }
  };

  it('still searches a trace opened again from its cache', async () => {
    const tracePath = join(dir.path, 'reopened.jsonl');
    writeFileSync(tracePath, `${trace.join('\n')}\n`);
    const cacheDir = join(dir.path, 'reopened-cache');
    const first = await analyzeFile(tracePath, { cacheDir, searchIndex: true });
    const second = await analyzeFile(tracePath, { cacheDir, searchIndex: true });
    assert.equal(second.trace.reused, true);
    assert.equal(second.trace.dbPath, first.trace.dbPath);
    assert.deepEqual(searchTrace(second.trace.dbPath, 'zanzibar'), [lines.result]);
  });

  it('builds no index for `loopscope analyze`, and reads the trace again when the app needs one', async () => {
    const tracePath = join(dir.path, 'cli-first.jsonl');
    writeFileSync(tracePath, `${trace.join('\n')}\n`);
    const cacheDir = join(dir.path, 'cli-first-cache');
    const cli = await analyzeFile(tracePath, { cacheDir });
    assert.deepEqual(searchTrace(cli.trace.dbPath, 'zanzibar'), []);
    const app = await analyzeFile(tracePath, { cacheDir, searchIndex: true });
    assert.equal(app.trace.reused, false);
    assert.deepEqual(searchTrace(app.trace.dbPath, 'zanzibar'), [lines.result]);
    // An indexed cache serves the CLI too.
    assert.equal((await analyzeFile(tracePath, { cacheDir })).trace.reused, true);
  });

  it('rebuilds a cache written before search existed, index included', async () => {
    const tracePath = join(dir.path, 'old-cache.jsonl');
    writeFileSync(tracePath, `${trace.join('\n')}\n`);
    const cacheDir = join(dir.path, 'old-cache');
    const { trace: handle } = await analyzeFile(tracePath, { cacheDir, searchIndex: true });
    // What a Loopscope of an older schema left: no search tables, another schema version.
    const db = openDatabase(handle.dbPath);
    db.exec('DROP TABLE search_index; DROP TABLE search_text; PRAGMA user_version = 2;');
    db.close();
    const reopened = await analyzeFile(tracePath, { cacheDir, searchIndex: true });
    assert.equal(reopened.trace.reused, false);
    assert.deepEqual(searchTrace(reopened.trace.dbPath, 'zanzibar'), [lines.result]);
  });

  it('searches a Claude Code session and the sub-agent transcript opened with it', async () => {
    const session = join(fixtures, 'claude-code', '3b8e0f4d-6a2c-4e91-b7d5-0c9f1e2a4d68.jsonl');
    const { trace: handle } = await analyzeFile(session, { cacheDir: join(dir.path, 'claude-code'), searchIndex: true });
    const db = openDatabase(handle.dbPath, { readonly: true });
    try {
      const { rows } = searchEvents(db, { traceId: 'trace', query: 'toFixed', offset: 0, limit: 50 });
      const runs = new Set(rows.map((hit) => hit.runId));
      assert.equal(runs.size, 2, 'the session and its sub-agent both mention toFixed');
      assert.ok(rows.some((hit) => hit.type === 'tool_result' && highlighted(hit).includes('toFixed')));
    } finally {
      db.close();
    }
  });
});
