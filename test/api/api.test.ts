/**
 * The API host over the real engine: example traces ingested by the worker threads into SQLite
 * files, every query answered by the query worker, every response checked against shared/api.ts
 * by the host. What a view of the app would show: runs and their counts, a run's budgets and
 * lanes, an event's original line, calls and their states, findings, parse errors; and what it
 * refuses.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse, TraceSummary } from '../../shared/api';
import { ApiError, toApiError } from '../../src-main/api/apiHost';
import { openTrace, TraceFileError, type StoredRuns } from '../../src-main/engine/engine';
import { openDatabase } from '../../src-main/engine/store/traceDatabase';
import { generateSyntheticTrace } from '../../devkit/traceGenerators/syntheticTrace';
import { callFailure, startTestHost, type TestHost } from '../support/apiHarness';
import { defaultAnalysis, temporaryDir } from '../support/engineHarness';
import { examplesDir } from '../../devkit/repoPaths';

interface ExpectedRun {
  run_id: string;
  status: string;
  status_raw: string;
  steps: number;
  tool_calls: number;
  tool_results: number;
  input_tokens: number | null;
  output_tokens: number | null;
}

interface Expected {
  runs: ExpectedRun[];
  findings: { kind: string; severity: string; run_id: string; call_id: string | null }[];
  parse_error_lines: number[];
}

const examplePath = (name: string): string => join(examplesDir, `${name}.jsonl`);
const expected = (name: string): Expected => JSON.parse(readFileSync(join(examplesDir, 'expected', `${name}.json`), 'utf8')) as Expected;
/** The lines of a file as a reader sees them: without their terminator (`\n` or `\r\n`). */
const fileLines = (path: string): string[] => readFileSync(path, 'utf8').split(/\r?\n/);

type Runs = ApiResponse<'runs'>;

describe('API host over example traces', () => {
  let t: TestHost;
  const work = temporaryDir('api-work');
  /** Four examples in one file: runs with different statuses, sizes and findings. */
  const combinedExamples = ['dangling-call', 'budget-exhausted', 'normal-query', 'repeated-action'];
  const combined = join(work.path, 'combined.jsonl');
  const ids = new Map<string, string>();
  const traceId = (name: string): string => ids.get(name) ?? assert.fail(`${name} is not open`);

  before(async () => {
    t = startTestHost();
    writeFileSync(combined, combinedExamples.map((name) => readFileSync(examplePath(name), 'utf8').trimEnd()).join('\n') + '\n');
    for (const name of ['dangling-call', 'budget-exhausted', 'broken-lines', 'tool-after-budget', 'latency-sources']) {
      const summary = await t.openSettled(examplePath(name));
      assert.equal(summary.state, 'ready', summary.error ?? '');
      ids.set(name, summary.traceId);
    }
    ids.set('combined', (await t.openSettled(combined)).traceId);
  });
  after(async () => {
    await t.close();
    work.remove();
  });

  const runs = async (request: Record<string, unknown>): Promise<Runs> => (await t.host.call('runs', request)) as Runs;

  it('lists each run with the status, counts and tokens the example expects', async () => {
    for (const name of ['dangling-call', 'budget-exhausted', 'broken-lines']) {
      const page = await runs({ traceId: traceId(name) });
      const want = expected(name);
      assert.equal(page.total, want.runs.length, name);
      assert.equal(page.partial, undefined, 'a ready trace answers from its database');
      assert.deepEqual(
        page.rows.map((row) => [row.runId, row.status, row.statusRaw, row.steps, row.toolCalls, row.toolResults, row.inputTokens, row.outputTokens]),
        want.runs.map((run) => [run.run_id, run.status, run.status_raw, run.steps, run.tool_calls, run.tool_results, run.input_tokens, run.output_tokens]),
        name,
      );
      for (const row of page.rows) {
        const findings = want.findings.filter((f) => f.run_id === row.runId);
        const count = (severity: string): number => findings.filter((f) => f.severity === severity).length;
        assert.deepEqual(row.findings, { error: count('error'), warning: count('warning'), info: count('info') }, `${name}: finding counts`);
        assert.deepEqual(row.findingKinds, [...new Set(findings.map((f) => f.kind))].sort(), `${name}: finding kinds`);
        assert.equal(row.format, 'loopscope');
        assert.equal(row.file, examplePath(name));
      }
    }
  });

  it('sorts, filters and pages runs in the database', async () => {
    const id = traceId('combined');
    const all = await runs({ traceId: id });
    assert.deepEqual(
      all.rows.map((row) => row.runId),
      combinedExamples,
      'file order by default',
    );
    const page = await runs({ traceId: id, offset: 1, limit: 2 });
    assert.equal(page.total, 4);
    assert.equal(page.offset, 1);
    assert.deepEqual(
      page.rows.map((row) => row.runId),
      ['budget-exhausted', 'normal-query'],
    );
    const bySteps = await runs({ traceId: id, sort: 'steps', descending: true });
    assert.deepEqual(
      bySteps.rows.map((row) => row.steps),
      [...all.rows.map((row) => row.steps)].sort((a, b) => b - a),
    );
    const stepsPage = await runs({ traceId: id, sort: 'steps', descending: true, offset: 1, limit: 2 });
    assert.deepEqual(stepsPage.rows, bySteps.rows.slice(1, 3), "a page is that part of the whole list, each run's finding counts and kinds with it");
    assert.ok(
      bySteps.rows.some((row) => row.findings.error + row.findings.warning + row.findings.info > 0),
      'the list has findings to count',
    );
    const byErrors = await runs({ traceId: id, sort: 'errors', descending: true, limit: 1 });
    assert.equal(byErrors.rows[0]?.runId, 'dangling-call', 'the run with an error-severity finding comes first');
    const budget = await runs({ traceId: id, status: 'budget_exceeded' });
    assert.deepEqual(
      budget.rows.map((row) => row.runId),
      ['budget-exhausted'],
    );
    const repeated = await runs({ traceId: id, findingKind: 'repeated_action' });
    assert.deepEqual(
      repeated.rows.map((row) => row.runId),
      ['repeated-action'],
    );
    const byText = await runs({ traceId: id, text: 'PROTOCOL' });
    assert.deepEqual(
      byText.rows.map((row) => row.runId),
      ['dangling-call'],
      'text matches the raw status, whatever its case',
    );
    assert.equal((await runs({ traceId: id, text: 'combined.jsonl' })).total, 4, 'text matches the file name');
    assert.equal((await runs({ traceId: id, text: '%' })).total, 0, 'LIKE wildcards in the text are taken literally');
  });

  it("reports a run's budgets: used against limit, and which one stopped it", async () => {
    const [exhausted] = (await runs({ traceId: traceId('budget-exhausted') })).rows;
    const run = (await t.host.call('run', { traceId: traceId('budget-exhausted'), runPk: exhausted!.runPk })) as ApiResponse<'run'>;
    assert.equal(run.endLimit, 'max_tool_calls');
    assert.deepEqual(run.budgets, [
      { name: 'turns', used: 5, limit: 10, exceeded: false },
      { name: 'tool_calls', used: 4, limit: 4, exceeded: true },
    ]);
    assert.equal(run.task, 'Which of my orders this year had the blue rain jacket in it? I want to reorder the same size.');
    assert.equal((run.config?.['budgets'] as Record<string, unknown>)['max_tool_calls'], 4);
    assert.deepEqual(run.children, []);

    const [afterBudget] = (await runs({ traceId: traceId('tool-after-budget') })).rows;
    const overrun = (await t.host.call('run', { traceId: traceId('tool-after-budget'), runPk: afterBudget!.runPk })) as ApiResponse<'run'>;
    assert.deepEqual(
      overrun.budgets.find((budget) => budget.name === 'tool_calls'),
      { name: 'tool_calls', used: 3, limit: 2, exceeded: true },
      'a call executed after the budget was used up',
    );
  });

  it("lists a run's events in order, paged, each in its lane", async () => {
    const id = traceId('budget-exhausted');
    const [run] = (await runs({ traceId: id })).rows;
    const events = (await t.host.call('runEvents', { traceId: id, runPk: run!.runPk, limit: 2000 })) as ApiResponse<'runEvents'>;
    assert.equal(events.total, 21);
    const lines = fileLines(examplePath('budget-exhausted'));
    assert.deepEqual(
      events.rows.map((event) => [event.type, event.lane]),
      lines
        .filter((line) => line !== '')
        .map((line) => {
          const type = (JSON.parse(line) as { type: string }).type;
          const lane = {
            run_start: 'input',
            model_request: 'input',
            model_response: 'model',
            tool_call_start: 'call',
            tool_call_not_executed: 'call',
            tool_result: 'result',
            run_end: 'other',
          }[type];
          return [type, lane];
        }),
    );
    const page = (await t.host.call('runEvents', { traceId: id, runPk: run!.runPk, offset: 5, limit: 5 })) as ApiResponse<'runEvents'>;
    assert.deepEqual(
      page.rows.map((event) => event.eventId),
      events.rows.slice(5, 10).map((event) => event.eventId),
    );
    const target = events.rows[13]!;
    // A canonical trace has no bookkeeping: its place is the same in both lists.
    assert.deepEqual(await t.host.call('eventPosition', { traceId: id, eventId: target.eventId }), { runPk: run!.runPk, index: 13, visibleIndex: 13 });

    // Steps, one at a time, each where its first event sits in the list.
    const firstIndexOf = (step: number) => events.rows.findIndex((event) => event.step === step);
    const stepAt = (step: number, direction: 'at' | 'after' | 'before') => t.host.call('stepPosition', { traceId: id, runPk: run!.runPk, step, direction });
    const walked: unknown[] = [];
    for (
      let position = (await stepAt(-1, 'after')) as ApiResponse<'stepPosition'>;
      position !== null;
      position = (await stepAt(position.step, 'after')) as ApiResponse<'stepPosition'>
    ) {
      walked.push(position);
    }
    assert.deepEqual(
      walked,
      [0, 1, 2, 3, 4, 5].map((step) => ({ step, index: firstIndexOf(step) })),
    );
    assert.deepEqual(await stepAt(3, 'at'), { step: 3, index: firstIndexOf(3) });
    assert.deepEqual(await stepAt(3, 'before'), { step: 2, index: firstIndexOf(2) });
    assert.equal(await stepAt(0, 'before'), null);
    assert.equal(await stepAt(99, 'at'), null);

    // A jump asks for the position with the pages around it: the pages runEvents answers, every one holding a row within `around`.
    const pageAt = (offset: number) => t.host.call('runEvents', { traceId: id, runPk: run!.runPk, offset, limit: 4, hideBookkeeping: true });
    const withPages = (await t.host.call('eventPosition', {
      traceId: id,
      eventId: target.eventId,
      pages: { pageSize: 4, around: 3, hideBookkeeping: true },
    })) as ApiResponse<'eventPosition'>;
    assert.deepEqual(withPages, { runPk: run!.runPk, index: 13, visibleIndex: 13, pages: [await pageAt(8), await pageAt(12), await pageAt(16)] });
    const stepWithPages = (await t.host.call('stepPosition', {
      traceId: id,
      runPk: run!.runPk,
      step: 5,
      direction: 'at',
      hideBookkeeping: true,
      pages: { pageSize: 4, around: 30 },
    })) as ApiResponse<'stepPosition'>;
    // The 21 events' pages from the first: the list ends before the page at 24 that `around` reaches.
    assert.deepEqual(stepWithPages, { step: 5, index: firstIndexOf(5), pages: await Promise.all([0, 4, 8, 12, 16, 20].map(pageAt)) });

    const broken = traceId('broken-lines');
    const [brokenRun] = (await runs({ traceId: broken })).rows;
    const brokenEvents = (await t.host.call('runEvents', { traceId: broken, runPk: brokenRun!.runPk })) as ApiResponse<'runEvents'>;
    const heartbeat = brokenEvents.rows.find((event) => event.typeRaw === 'heartbeat');
    assert.deepEqual([heartbeat?.type, heartbeat?.lane], ['unknown', 'other'], 'an unknown event that is no prompt goes to the other lane');
  });

  it("shows an event's original line, byte for byte, and cuts it at maxBytes", async () => {
    // broken-lines has CRLF line endings: the record is the line without its terminator.
    const id = traceId('broken-lines');
    const lines = fileLines(examplePath('broken-lines'));
    const [run] = (await runs({ traceId: id })).rows;
    const events = (await t.host.call('runEvents', { traceId: id, runPk: run!.runPk })) as ApiResponse<'runEvents'>;
    assert.ok(events.rows.length > 5);
    for (const row of events.rows) {
      const detail = (await t.host.call('event', { traceId: id, eventId: row.eventId })) as ApiResponse<'event'>;
      assert.equal(detail.record?.text, lines[row.line - 1], `line ${row.line}`);
      assert.equal(detail.record?.stale, false);
      assert.equal(detail.record?.truncated, false);
      assert.equal(detail.record?.file, examplePath('broken-lines'));
      assert.equal(detail.runId, 'broken-lines');
    }
    const first = events.rows[0]!;
    const cut = (await t.host.call('event', { traceId: id, eventId: first.eventId, maxBytes: 40 })) as ApiResponse<'event'>;
    assert.equal(cut.record?.truncated, true);
    assert.equal(cut.record?.text, lines[first.line - 1]!.slice(0, 40));
  });

  it('lists the calls an event issued, with how each was answered', async () => {
    const id = traceId('dangling-call');
    const dangling = expected('dangling-call').findings.find((f) => f.kind === 'dangling_call')!;
    const calls = (await t.host.call('calls', { traceId: id })) as ApiResponse<'calls'>;
    assert.deepEqual(
      calls.rows.map((call) => [call.name, call.state]),
      [
        ['get_shipment', 'ok'],
        ['get_shipment', 'dangling'],
      ],
    );
    assert.deepEqual(calls.names, ['get_shipment']);
    const answered = calls.rows[0]!;
    assert.equal(typeof answered.answerEventId, 'number');
    assert.equal(answered.latencyMs, 301, 'the latency the result logged');
    const onlyDangling = (await t.host.call('calls', { traceId: id, state: 'dangling' })) as ApiResponse<'calls'>;
    assert.deepEqual(
      onlyDangling.rows.map((call) => [call.callId, call.answerEventId, call.latencyMs]),
      [[dangling.call_id, null, null]],
    );
    assert.deepEqual(onlyDangling.names, calls.names, 'the tool filter offers every tool, whatever the state filter');
    assert.equal(((await t.host.call('calls', { traceId: id, name: 'get_shipment' })) as ApiResponse<'calls'>).total, 2);
    assert.equal(((await t.host.call('calls', { traceId: id, name: 'get_order' })) as ApiResponse<'calls'>).total, 0);

    const issuing = (await t.host.call('event', { traceId: id, eventId: answered.eventId })) as ApiResponse<'event'>;
    assert.deepEqual(
      issuing.calls.map((call) => call.state),
      ['ok', 'dangling'],
    );
    assert.deepEqual(
      issuing.findings.map((f) => [f.kind, f.callId, f.eventId]),
      [['dangling_call', dangling.call_id, answered.eventId]],
      'the finding is drawn on the response that issued the call',
    );
  });

  it("a call's latency: what its result recorded, else the time from its tool_call_start, else not recorded (never the time since the response)", async () => {
    const id = traceId('latency-sources');
    const calls = (await t.host.call('calls', { traceId: id })) as ApiResponse<'calls'>;
    assert.deepEqual(
      calls.rows.map((call) => [call.callId, call.latencyMs]),
      [
        // latency_ms 287 on the result, though its start and result lines are 311 ms apart.
        ['call_lat_search', 287],
        // No latency_ms: tool_call_start at 02.130, result at 03.364.
        ['call_lat_order', 1234],
        // Neither: the 2.3 s since the response that issued it is not the call's latency.
        ['call_lat_shipment', null],
      ],
    );
    const [run] = (await runs({ traceId: id })).rows;
    const events = (await t.host.call('runEvents', { traceId: id, runPk: run!.runPk })) as ApiResponse<'runEvents'>;
    assert.deepEqual(
      events.rows.filter((row) => row.type === 'tool_result' || row.type === 'model_response').map((row) => [row.type, row.latencyMs]),
      [
        ['model_response', 842],
        ['tool_result', 287],
        ['model_response', 771],
        ['tool_result', 1234],
        ['model_response', null],
        ['tool_result', null],
        ['model_response', 851],
      ],
      'the timeline and inspector show the same latencies on the events',
    );
  });
  it('groups findings by kind and severity, in file order', async () => {
    const id = traceId('combined');
    const all = (await t.host.call('findings', { traceId: id })) as ApiResponse<'findings'>;
    const want = combinedExamples.flatMap((name) => expected(name).findings);
    assert.equal(all.total, want.length);
    assert.deepEqual(all.rows.map((f) => [f.runId, f.kind]).sort(), want.map((f) => [f.run_id, f.kind]).sort());
    assert.deepEqual(
      [...new Set(all.rows.map((f) => f.runId))],
      combinedExamples.filter((name) => expected(name).findings.length > 0),
      'runs in file order',
    );
    const counted = new Map<string, number>();
    for (const f of want) counted.set(`${f.kind}/${f.severity}`, (counted.get(`${f.kind}/${f.severity}`) ?? 0) + 1);
    assert.deepEqual(new Map(all.groups.map((group) => [`${group.kind}/${group.severity}`, group.count])), counted);
    assert.equal(all.groups[0]?.severity, 'error', 'errors first');
    for (const f of all.rows) assert.equal(typeof f.eventId, 'number', `${f.kind} links to an event`);
    const errors = (await t.host.call('findings', { traceId: id, severity: 'error' })) as ApiResponse<'findings'>;
    assert.deepEqual(
      errors.rows.map((f) => f.kind),
      ['dangling_call'],
    );
    assert.deepEqual(errors.groups, all.groups, 'groups count the whole trace, not the filtered rows');
  });

  it('lists parse errors with their raw lines', async () => {
    const id = traceId('broken-lines');
    const lines = fileLines(examplePath('broken-lines'));
    const errors = (await t.host.call('parseErrors', { traceId: id })) as ApiResponse<'parseErrors'>;
    assert.deepEqual(
      errors.rows.map((error) => error.line),
      expected('broken-lines').parse_error_lines,
    );
    for (const error of errors.rows) {
      assert.equal(error.file, examplePath('broken-lines'));
      const raw = (await t.host.call('rawLine', { traceId: id, sourceId: error.sourceId, line: error.line })) as ApiResponse<'rawLine'>;
      assert.equal(raw.text, lines[error.line - 1], `line ${error.line}`);
    }
    assert.deepEqual(await callFailure(t.host, 'rawLine', { traceId: id, sourceId: errors.rows[0]!.sourceId, line: 5 }), {
      code: 'not_found',
      message: 'nothing was recorded for line 5 (a blank line, or past the end of the file)',
    });
  });

  it('searches the trace for plain words, each hit linking to an event that contains them', async () => {
    const id = traceId('budget-exhausted');
    const lines = fileLines(examplePath('budget-exhausted'));
    const hits = (await t.host.call('search', { traceId: id, query: 'rain jacket' })) as ApiResponse<'search'>;
    assert.ok(hits.total > 0);
    for (const hit of hits.rows) {
      assert.match(lines[hit.line - 1]!, /rain jacket/i, `line ${hit.line}`);
      assert.equal(hit.runId, 'budget-exhausted');
    }
    const none = (await t.host.call('search', { traceId: id, query: 'zeppelin' })) as ApiResponse<'search'>;
    assert.equal(none.total, 0);
  });

  it('rejects invalid requests, naming the field', async () => {
    const id = traceId('dangling-call');
    const tooSmall = await callFailure(t.host, 'runs', { traceId: id, limit: 0 });
    assert.equal(tooSmall.code, 'invalid_request');
    assert.match(tooSmall.message, /^runs: limit: /);
    const missing = await callFailure(t.host, 'event', {});
    assert.equal(missing.code, 'invalid_request');
    assert.match(missing.message, /traceId/);
    assert.equal((await callFailure(t.host, 'runs', { traceId: id, sort: 'DROP TABLE runs' })).code, 'invalid_request');
    assert.equal((await callFailure(t.host, 'runs', 'not an object')).code, 'invalid_request');
  });

  it('answers not_found for an unknown method, trace, run or event', async () => {
    const id = traceId('dangling-call');
    assert.equal((await callFailure(t.host, 'dropTables', {})).code, 'not_found');
    assert.equal((await callFailure(t.host, 'runs', { traceId: 'no-such-trace' })).code, 'not_found');
    assert.equal((await callFailure(t.host, 'run', { traceId: id, runPk: 999 })).code, 'not_found');
    assert.equal((await callFailure(t.host, 'event', { traceId: id, eventId: 999 })).code, 'not_found');
  });

  it('refuses to open paths or dialogs in the browser shell', async () => {
    assert.deepEqual(await t.host.call('appInfo', {}), { version: '0.0.0-test', shell: 'browser', canOpenPaths: false });
    assert.equal((await callFailure(t.host, 'openPath', { path: examplePath('normal-query') })).code, 'not_allowed');
    assert.equal((await callFailure(t.host, 'openDialog', {})).code, 'not_allowed');
    assert.equal(
      ((await t.host.call('listTraces', {})) as TraceSummary[]).some((trace) => trace.path === examplePath('normal-query')),
      false,
    );
  });

  it('keeps one trace per path, and reuses the database of an unchanged file on reload', async () => {
    const again = await t.host.open(examplePath('dangling-call'));
    assert.equal(again.traceId, traceId('dangling-call'));
    assert.equal(again.state, 'ready');
    const traces = (await t.host.call('listTraces', {})) as TraceSummary[];
    assert.equal(traces.filter((trace) => trace.path === examplePath('dangling-call')).length, 1);
    const reloading = (await t.host.call('reload', { traceId: traceId('dangling-call') })) as TraceSummary;
    assert.equal(reloading.state, 'ingesting');
    const reloaded = await t.settled(reloading.traceId);
    assert.equal(reloaded.state, 'ready');
    assert.equal(reloaded.reused, true);
    assert.deepEqual(reloaded.progress, { bytesRead: 3826, totalBytes: 3826, events: 6, parseErrors: 0 }, 'a reused trace still reports its size and counts');
    assert.equal((await runs({ traceId: reloaded.traceId })).total, 1);
  });
});

describe('API host: files that change or cannot be read', () => {
  let t: TestHost;
  const work = temporaryDir('api-files');
  before(() => {
    t = startTestHost();
  });
  after(async () => {
    await t.close();
    work.remove();
  });

  it('reports a file that cannot be opened as a failed trace naming the file and the reason', async () => {
    const missing = join(work.path, 'missing.jsonl');
    const summary = await t.openSettled(missing);
    assert.equal(summary.state, 'failed');
    assert.equal(summary.error, `${missing}: no such file`);
    assert.deepEqual(await callFailure(t.host, 'runs', { traceId: summary.traceId }), { code: 'trace_file', message: `${missing}: no such file` });
    const notATrace = join(work.path, 'notes.txt');
    writeFileSync(notATrace, 'shopping list\nmilk\n');
    const unknown = await t.openSettled(notATrace);
    assert.equal(unknown.state, 'failed');
    assert.match(unknown.error ?? '', new RegExp(`^${notATrace.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
  });

  it('says a record is stale when the file changed since it was read, and reload reads it again', async () => {
    const path = join(work.path, 'rewritten.jsonl');
    const original = readFileSync(examplePath('normal-query'));
    writeFileSync(path, original);
    const summary = await t.openSettled(path);
    const [run] = ((await t.host.call('runs', { traceId: summary.traceId })) as Runs).rows;
    // Rewritten in place (an editor's save): the first line's bytes are no longer the ones read.
    writeFileSync(path, Buffer.concat([Buffer.from(original.toString().replace('"run_start"', '"run_begin"')), readFileSync(examplePath('dangling-call'))]));
    const event = (await t.host.call('event', { traceId: summary.traceId, eventId: 1 })) as ApiResponse<'event'>;
    assert.deepEqual([event.record?.stale, event.record?.text], [true, '']);
    await t.host.call('reload', { traceId: summary.traceId });
    const reloaded = await t.settled(summary.traceId);
    assert.equal(reloaded.reused, false);
    const after = (await t.host.call('runs', { traceId: summary.traceId })) as Runs;
    assert.deepEqual(
      after.rows.map((row) => row.runId),
      [run!.runId, 'dangling-call'],
    );
    const fresh = (await t.host.call('event', { traceId: summary.traceId, eventId: 1 })) as ApiResponse<'event'>;
    assert.equal(fresh.record?.stale, false);
  });

  it('turns thrown values into transport errors', () => {
    assert.deepEqual(toApiError(new ApiError('not_ready', 'wait')), { error: { code: 'not_ready', message: 'wait' } });
    assert.deepEqual(toApiError(new TraceFileError('not_found', '/x.jsonl', 'no such file')), {
      error: { code: 'trace_file', message: '/x.jsonl: no such file' },
    });
    assert.deepEqual(toApiError(new Error('boom\n    at somewhere')), { error: { code: 'internal', message: 'internal error: boom' } });
  });
});

describe('API host: a reopened trace', () => {
  const work = temporaryDir('api-reopen');
  const cache = temporaryDir('api-reopen-cache');
  after(() => {
    work.remove();
    cache.remove();
  });

  it("answers the runs table's first page as the query worker does, and every other page from its database", async () => {
    // Run ids are the trace's text: one with a credential in it is masked on every path.
    const key = 'sk-ant-api03-' + 'EXAMPLE0KEY0NOT0REAL0'.repeat(4);
    const path = join(work.path, 'reopened.jsonl');
    const runs = ['dangling-call', 'budget-exhausted', 'normal-query'].map((name) => readFileSync(examplePath(name), 'utf8').trimEnd());
    writeFileSync(path, [...runs, runs[2]!.replaceAll('"normal-query"', `"normal-query-${key}"`)].join('\n') + '\n');
    const requests = [{}, { descending: true }, { limit: 2 }, {}];
    const answersOf = async (t: TestHost): Promise<{ summary: TraceSummary; answers: Runs[] }> => {
      const summary = await t.openSettled(path);
      // What the reopened trace reads on its thread once ready (scheduled before this) is read by now.
      await new Promise((resolve) => setImmediate(resolve));
      const answers: Runs[] = [];
      for (const request of requests) answers.push((await t.host.call('runs', { traceId: summary.traceId, ...request })) as Runs);
      return { summary, answers };
    };
    const first = startTestHost({ cacheDir: cache.path });
    const ingested = await answersOf(first).finally(() => first.close());
    const second = startTestHost({ cacheDir: cache.path });
    const reopened = await answersOf(second).finally(() => second.close());
    assert.deepEqual([ingested.summary.reused, reopened.summary.reused], [false, true]);
    assert.deepEqual(reopened.answers, ingested.answers);
    const [page, descending, two] = reopened.answers;
    assert.equal(page!.total, 4);
    assert.equal(JSON.stringify(reopened.answers).includes(key), false, 'the credential is masked');
    assert.deepEqual(
      descending!.rows.map((row) => row.runId),
      page!.rows.map((row) => row.runId).reverse(),
    );
    assert.equal(two!.rows.length, 2);
  });
});

describe('API host in the desktop shell', () => {
  it('opens dropped and picked files, and remembers those that opened', async () => {
    const recent: string[] = [];
    const t = startTestHost({
      shell: 'electron',
      canOpenPaths: true,
      openDialog: async () => [examplePath('refusal'), examplePath('tool-error')],
      recentFiles: { list: () => [...recent], add: (path) => recent.push(path) },
    });
    try {
      const dropped = (await t.host.call('openPath', { path: examplePath('normal-query') })) as TraceSummary;
      assert.equal((await t.settled(dropped.traceId)).state, 'ready');
      const picked = (await t.host.call('openDialog', {})) as TraceSummary[];
      assert.deepEqual(
        picked.map((trace) => trace.name),
        ['refusal.jsonl', 'tool-error.jsonl'],
      );
      for (const trace of picked) await t.settled(trace.traceId);
      assert.deepEqual(
        ((await t.host.call('recentFiles', {})) as string[]).sort(),
        [examplePath('normal-query'), examplePath('refusal'), examplePath('tool-error')].sort(),
      );
    } finally {
      await t.close();
    }
  });
});

describe('runs while a large trace is being ingested', () => {
  const work = temporaryDir('api-large');
  const large = join(work.path, 'large.jsonl');
  let generatedRuns = 0;
  before(() => {
    // Over the store-worker threshold (16 MiB): the database is written by a second thread, without a journal.
    generatedRuns = generateSyntheticTrace({ targetBytes: 20 * 1024 * 1024, seed: 7, outPath: large }).runs;
  });
  after(() => work.remove());

  it('the engine reports every stored run before the ingest resolves, as the database ends up with them', async () => {
    const cache = temporaryDir('api-large-cache');
    try {
      const reported = new Map<number, StoredRuns['runs'][number]>();
      let batches = 0;
      let resolved = false;
      const trace = await openTrace(large, {
        cacheDir: cache.path,
        analysis: defaultAnalysis,
        onRuns: ({ source, runs }) => {
          assert.equal(resolved, false, 'runs arrive before the ingest resolves');
          assert.equal(source.path, large);
          batches += 1;
          for (const run of runs) reported.set(run.id, run);
        },
      });
      resolved = true;
      assert.ok(batches > 1, `runs arrive batch by batch as they are stored (${batches} batches)`);
      const db = openDatabase(trace.dbPath, { readonly: true });
      try {
        const stored = db
          .prepare<[], { id: number; run_id: string; status: string; steps: number; tool_calls: number }>(
            'SELECT id, run_id, status, steps, tool_calls FROM runs ORDER BY id',
          )
          .all();
        assert.equal(stored.length, generatedRuns);
        assert.deepEqual(
          [...reported.values()]
            .sort((a, b) => a.id - b.id)
            .map((run) => ({ id: run.id, run_id: run.run_id, status: run.status, steps: run.steps, tool_calls: run.tool_calls })),
          stored,
        );
      } finally {
        db.close();
      }
    } finally {
      cache.remove();
    }
  });

  it('the host serves the runs stored so far while the trace is ingesting, then the analyzed ones', async () => {
    const seen: { total: number; partial: boolean | undefined }[] = [];
    const otherViews: string[] = [];
    const t = startTestHost({
      onTraceUpdate: (summary) => {
        if (summary.state !== 'ingesting') return;
        // Asked from inside the update, so the answers are about the trace in exactly this state.
        void t.host.call('runs', { traceId: summary.traceId, sort: 'steps', descending: true, limit: 5 }).then((page) => {
          const runs = page as Runs;
          seen.push({ total: runs.total, partial: runs.partial });
        });
        void callFailure(t.host, 'findings', { traceId: summary.traceId }).then((failure) => otherViews.push(failure.code));
      },
    });
    try {
      const summary = await t.openSettled(large);
      assert.equal(summary.state, 'ready');
      const during = seen.filter((answer) => answer.total > 0);
      assert.ok(during.length > 1, 'the runs table fills in during the ingest');
      assert.ok(during.every((answer) => answer.partial === true && answer.total <= generatedRuns));
      assert.ok(during.at(-1)!.total > during[0]!.total, 'more runs as more of the file is read');
      assert.ok(otherViews.length > 0 && otherViews.every((code) => code === 'not_ready'), 'other views wait for the trace to be ready');
      const ready = (await t.host.call('runs', { traceId: summary.traceId, limit: 2000 })) as Runs;
      assert.equal(ready.total, generatedRuns);
      assert.equal(ready.partial, undefined);
      assert.ok(
        ready.rows.some((row) => row.findings.error + row.findings.warning > 0),
        'findings are counted once the trace is ready',
      );
    } finally {
      await t.close();
    }
  });
});

describe('API host: a file followed while it is written', () => {
  const work = temporaryDir('api-follow');
  const updates: TraceSummary[] = [];
  let t: TestHost;
  before(() => {
    t = startTestHost({ idleAfterMs: 60_000, onTraceUpdate: (summary) => updates.push(summary) });
  });
  after(async () => {
    await t.close();
    work.remove();
  });

  /** The next summary the host reports that `match`es (every change of a trace's summary is reported). */
  async function nextUpdate(match: (summary: TraceSummary) => boolean): Promise<TraceSummary> {
    const from = updates.length;
    for (let waited = 0; waited < 10_000; waited += 50) {
      const found = updates.slice(from).find(match);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no matching trace update within 10 s; last: ${JSON.stringify(updates.at(-1))}`);
  }

  const line = (fields: Record<string, unknown>): string => `${JSON.stringify({ run_id: 'r1', ...fields })}\n`;

  it('says the file is followed, and on each append bumps the revision with the new counts; a truncated file is read again with a notice; a deleted one is no longer followed', async () => {
    const path = join(work.path, 'live.jsonl');
    writeFileSync(path, line({ type: 'run_start' }));
    const opened = await t.openSettled(path);
    assert.deepEqual(opened.follow, { state: 'following', idleAfterMs: 60_000, revision: 0, grewAt: null });
    assert.equal((await runsOf(t, opened.traceId))[0]?.status, 'running');

    writeFileSync(path, line({ type: 'run_start' }) + line({ type: 'run_end', status: 'ok' }));
    const grown = await nextUpdate((summary) => (summary.follow?.revision ?? 0) > 0);
    assert.equal(grown.progress.events, 2);
    assert.equal(grown.follow?.state, 'following');
    assert.ok(grown.follow?.grewAt !== null);
    assert.equal((await runsOf(t, opened.traceId))[0]?.status, 'succeeded');

    writeFileSync(path, line({ run_id: 'r2', type: 'run_start' }));
    const reread = await nextUpdate((summary) => summary.state === 'ready' && summary.notice !== null);
    assert.match(reread.notice ?? '', /^live\.jsonl was read again from the start at .+: it was truncated from \d+ to \d+ bytes\.$/);
    assert.deepEqual(
      (await runsOf(t, opened.traceId)).map((run) => run.runId),
      ['r2'],
    );

    rmSync(path);
    const stopped = await nextUpdate((summary) => summary.follow?.state === 'stopped');
    assert.match(stopped.notice ?? '', /is no longer followed: the file was deleted/);
    assert.deepEqual(
      (await runsOf(t, opened.traceId)).map((run) => run.runId),
      ['r2'],
      'what was read stays',
    );
  });
});

async function runsOf(t: TestHost, traceId: string): Promise<ApiResponse<'runs'>['rows']> {
  return ((await t.host.call('runs', { traceId })) as ApiResponse<'runs'>).rows;
}
