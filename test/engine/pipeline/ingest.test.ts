/**
 * Ingest through the real engine (worker thread, SQLite file): line endings, encodings, broken
 * and oversized lines, byte-for-byte retrieval of every line, and reuse of the database.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openTrace, readReport } from '../../../src-main/engine/engine';
import { openDatabase } from '../../../src-main/engine/store/traceDatabase';
import { SCHEMA_VERSION, storedSchemaVersion } from '../../../src-main/engine/store/schema';
import { readRawLine, SourceChangedError } from '../../../src-main/engine/store/rawLines';
import { analyzeFile, defaultAnalysis, temporaryDir } from '../../support/engineHarness';
import { examplesDir, testFixturesDir } from '../../../devkit/repoPaths';

const event = (fields: Record<string, unknown>): string => JSON.stringify({ run_id: 'r1', ...fields });
const healthyRun = [
  event({ type: 'run_start', config: { model: 'm' } }),
  event({
    type: 'model_response',
    step: 1,
    outcome: 'tool_calls',
    finish_reason: 'tool_calls',
    tool_calls: [{ call_id: 'c1', name: 'get_order', arguments: '{"id":"A-1"}' }],
  }),
  event({ type: 'tool_result', step: 1, call_id: 'c1', status: 'ok', output: { ok: true } }),
  event({ type: 'model_response', step: 2, outcome: 'final', finish_reason: 'stop', text: 'done' }),
  event({ type: 'run_end', status: 'MODEL_FINISHED' }),
];

describe('ingest', () => {
  const dir = temporaryDir('ingest');
  let fileCount = 0;
  const writeTrace = (content: string | Buffer): string => {
    const path = join(dir.path, `trace-${++fileCount}.jsonl`);
    writeFileSync(path, content);
    return path;
  };
  after(() => dir.remove());

  it('reads CRLF line endings, a UTF-8 BOM, blank lines and a last line without newline', async () => {
    const content = `\uFEFF${healthyRun[0]}\r\n\r\n${healthyRun.slice(1, 4).join('\r\n')}\r\n   \r\n${healthyRun[4]}`;
    const { report } = await analyzeFile(writeTrace(content));
    assert.equal(report.files[0]?.events, 5);
    assert.equal(report.files[0]?.lines, 7);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.equal(report.runs[0]?.status, 'model_finished');
    assert.equal(report.runs[0]?.last_line, 7);
    assert.deepEqual(report.findings, []);
  });

  it('loads a line with invalid UTF-8, replaces the bytes and reports it', async () => {
    const broken = Buffer.concat([
      Buffer.from(`${healthyRun[0]}\n${healthyRun[1]}\n`),
      Buffer.from('{"type":"tool_result","run_id":"r1","call_id":"c1","status":"ok","output":"caf'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`"}\n${healthyRun.slice(3).join('\n')}\n`),
    ]);
    const { report } = await analyzeFile(writeTrace(broken));
    assert.equal(report.files[0]?.events, 5);
    const [issue] = report.files[0]?.parse_errors ?? [];
    assert.equal(issue?.line, 3);
    assert.equal(issue?.loaded, true);
    assert.match(issue?.message ?? '', /invalid UTF-8/);
    assert.deepEqual(report.findings, []);
  });

  it('reports a line over the size limit without loading it, and loads the rest', async () => {
    const huge = event({ type: 'tool_result', call_id: 'c9', output: 'x'.repeat(5000) });
    const { report } = await analyzeFile(writeTrace([...healthyRun.slice(0, 3), huge, ...healthyRun.slice(3)].join('\n')), { maxLineBytes: 1024 });
    const errors = report.files[0]?.parse_errors ?? [];
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.line, 4);
    assert.equal(errors[0]?.length, Buffer.byteLength(huge));
    assert.match(errors[0]?.message ?? '', /over the line size limit/);
    assert.equal(report.files[0]?.events, 5);
  });

  it('turns non-JSON lines and non-events into parse errors with line, offset and reason', async () => {
    const lines = [healthyRun[0], '{"type": "model_resp', '[1, 2, 3]', '{"run_id": "r1"}', '{"type":"tool_result","run_id":"r1"}', ...healthyRun.slice(1)];
    const { report } = await analyzeFile(writeTrace(lines.join('\n')));
    const errors = report.files[0]?.parse_errors ?? [];
    assert.deepEqual(
      errors.map((e) => e.line),
      [2, 3, 4, 5],
    );
    assert.equal(errors[0]?.offset, Buffer.byteLength(`${lines[0]}\n`));
    assert.match(errors[0]?.message ?? '', /not valid JSON/);
    assert.match(errors[1]?.message ?? '', /array/);
    assert.match(errors[2]?.message ?? '', /no "type"/);
    assert.match(errors[3]?.message ?? '', /invalid tool_result event: it has no "call_id", so it cannot be paired with a call/);
    assert.equal(report.files[0]?.events, 5);
  });

  describe('a bad field is a diagnostic on its line, not a lost event (docs/semantics.md §10)', () => {
    // Padding makes a line long enough to be read from its top level (traceIngester.ts SCAN_FIRST_BYTES).
    const padding = 'x'.repeat(9000);
    const badFieldsRun = (long: boolean): string[] => [
      healthyRun[0]!,
      event({
        type: 'model_response',
        step: '1',
        outcome: 'tool_calls',
        finish_reason: 'tool_calls',
        tool_calls: [{ call_id: 'c1', name: 'get_order', arguments: '{"id":"A-1"}' }],
        usage: { input_tokens: '100', output_tokens: 'n/a' },
      }),
      event({ type: 'tool_result', step: '1', call_id: 'c1', status: 'ok', output: long ? padding : { ok: true }, latency_ms: '250' }),
      event({ type: 'model_response', step: 2, outcome: 'final', finish_reason: 'stop', text: 'done' }),
      event({ type: 'run_end', status: 'MODEL_FINISHED' }),
    ];

    for (const long of [false, true]) {
      it(`keeps the event, coerces a number written as a string and ignores what is not one${long ? ', on a line read from its top level too' : ''}`, async () => {
        const { report } = await analyzeFile(writeTrace(badFieldsRun(long).join('\n')));
        assert.equal(report.files[0]?.events, 5);
        // The response is kept, so its result pairs with its call: no orphan, no dangling call.
        assert.deepEqual(report.findings, []);
        assert.equal(report.runs[0]?.input_tokens, 100);
        assert.equal(report.runs[0]?.output_tokens, null);
        assert.deepEqual(
          report.files[0]?.parse_errors.map(({ line, message, loaded }) => ({ line, message, loaded })),
          [
            { line: 2, message: '"step" is the string "1": read as the number 1; the line was loaded', loaded: true },
            { line: 2, message: '"usage.input_tokens" is the string "100": read as the number 100; the line was loaded', loaded: true },
            { line: 2, message: '"usage.output_tokens" is the string "n/a", not a number: ignored; the line was loaded', loaded: true },
            { line: 3, message: '"step" is the string "1": read as the number 1; the line was loaded', loaded: true },
            { line: 3, message: '"latency_ms" is the string "250": read as the number 250; the line was loaded', loaded: true },
          ],
        );
      });
    }

    it('reads bad fields the same way in events written as one JSON document', async () => {
      const lines = await analyzeFile(writeTrace(badFieldsRun(false).join('\n')));
      const document = await analyzeFile(
        writeTrace(
          JSON.stringify(
            badFieldsRun(false).map((line) => JSON.parse(line) as unknown),
            null,
            2,
          ),
        ),
      );
      assert.equal(document.report.files[0]?.format, 'loopscope-json');
      assert.equal(document.report.files[0]?.events, 5);
      assert.deepEqual(document.report.findings, []);
      // Only the line numbers differ: each event is anchored to the line its value starts on.
      assert.deepEqual(
        document.report.files[0]?.parse_errors.map(({ message, loaded }) => ({ message, loaded })),
        lines.report.files[0]?.parse_errors.map(({ message, loaded }) => ({ message, loaded })),
      );
    });

    it('keeps a call without a call_id under a derived id, and pairs no result with it by guess', async () => {
      const lines = [
        healthyRun[0]!,
        event({
          type: 'model_response',
          step: 1,
          finish_reason: 'tool_calls',
          tool_calls: [
            { name: 'get_order', arguments: '{"id":"A-1"}' },
            { call_id: 'c2', name: 'get_shipment', arguments: '{}' },
          ],
        }),
        event({ type: 'tool_result', step: 1, call_id: 'c1', status: 'ok', output: 'shipped' }),
        event({ type: 'tool_result', step: 1, call_id: 'c2', status: 'ok', output: 'DPD' }),
        event({ type: 'model_response', step: 2, finish_reason: 'stop', text: 'done' }),
        event({ type: 'run_end', status: 'MODEL_FINISHED' }),
      ];
      const { report } = await analyzeFile(writeTrace(lines.join('\n')));
      assert.equal(report.runs[0]?.tool_calls, 2);
      assert.deepEqual(
        report.findings.map(({ kind, call_id, line }) => ({ kind, call_id, line })),
        [
          { kind: 'dangling_call', call_id: 'r1:step1:call0', line: 2 },
          { kind: 'orphan_result', call_id: 'c1', line: 3 },
        ],
      );
      assert.deepEqual(
        report.files[0]?.parse_errors.map(({ line, message, loaded }) => ({ line, message, loaded })),
        [
          {
            line: 2,
            message:
              '"tool_calls[0].call_id" is missing: the call (get_order) is kept as call r1:step1:call0, an id derived from its run, step and position, which no result is paired with; the line was loaded',
            loaded: true,
          },
        ],
      );
    });

    it('still refuses a result without a usable call_id, saying why', async () => {
      const lines = [...healthyRun.slice(0, 3), event({ type: 'tool_result', step: '1', call_id: null, status: 'ok' }), ...healthyRun.slice(3)];
      const { report } = await analyzeFile(writeTrace(lines.join('\n')));
      assert.equal(report.files[0]?.events, 5);
      assert.deepEqual(
        report.files[0]?.parse_errors.map(({ line, message, loaded }) => ({ line, message, loaded })),
        [{ line: 4, message: 'invalid tool_result event: its "call_id" is null, so it cannot be paired with a call', loaded: false }],
      );
    });
  });

  it('keeps unknown event types and unknown fields as events', async () => {
    const lines = [
      healthyRun[0],
      event({ type: 'memory_write', key: 'k' }),
      event({ ...JSON.parse(healthyRun[1]!), vendor_extra: { a: 1 } }),
      ...healthyRun.slice(2),
    ];
    const cacheDir = temporaryDir('unknown');
    try {
      const path = writeTrace(lines.join('\n'));
      const trace = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      const db = openDatabase(trace.dbPath, { readonly: true });
      const types = db.prepare('SELECT type, type_raw FROM events ORDER BY line').all();
      assert.deepEqual(types[1], { type: 'unknown', type_raw: 'memory_write' });
      assert.match(readRawLine(db, trace.sourceId, 3)?.bytes.toString() ?? '', /vendor_extra/);
      db.close();
      assert.deepEqual(readReport(trace, defaultAnalysis).findings, []);
    } finally {
      cacheDir.remove();
    }
  });

  describe('retrieving original lines', () => {
    const cacheDir = temporaryDir('raw');
    after(() => cacheDir.remove());
    const original = Buffer.concat([
      Buffer.from(`${healthyRun[0]}\r\n`),
      Buffer.from('not json at all\n\n'),
      Buffer.from('{"type":"model_response","run_id":"r1","text":"h\u00e9llo \u{1F600}"}\n'),
      Buffer.from(`${healthyRun[4]}`),
    ]);
    let path = '';
    before(() => {
      path = writeTrace(original);
    });

    it('returns every event and parse-error line byte for byte', async () => {
      const trace = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      const db = openDatabase(trace.dbPath, { readonly: true });
      const expected = original
        .toString('latin1')
        .split('\n')
        .map((line) => Buffer.from(line, 'latin1'));
      for (const lineNumber of [1, 2, 4, 5]) {
        assert.deepEqual(readRawLine(db, trace.sourceId, lineNumber)?.bytes, expected[lineNumber - 1], `line ${lineNumber}`);
      }
      assert.equal(readRawLine(db, trace.sourceId, 3), null, 'a blank line has nothing to retrieve');
      db.close();
    });

    it('still returns the ingested lines of a file that only grew since (a trace still being written)', async () => {
      const trace = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      appendFileSync(path, '\n{"type":"run_end","run_id":"r2"}');
      const db = openDatabase(trace.dbPath, { readonly: true });
      assert.deepEqual(readRawLine(db, trace.sourceId, 1)?.bytes, original.subarray(0, original.indexOf(0x0a)));
      db.close();
    });

    it('refuses to return bytes once the ingested part of the file has changed', async () => {
      const trace = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      const rewritten = Buffer.from(original);
      rewritten[2] = rewritten[2] === 0x41 ? 0x42 : 0x41;
      writeFileSync(path, Buffer.concat([rewritten, Buffer.from('\n{"type":"run_end","run_id":"r2"}')]));
      const db = openDatabase(trace.dbPath, { readonly: true });
      assert.throws(() => readRawLine(db, trace.sourceId, 1), SourceChangedError);
      writeFileSync(path, original.subarray(0, original.length - 3));
      assert.throws(() => readRawLine(db, trace.sourceId, 1), SourceChangedError, 'a truncated file');
      db.close();
    });
  });

  describe('the trace database', () => {
    const cacheDir = temporaryDir('reuse');
    after(() => cacheDir.remove());

    it('is reused for an unchanged file and rebuilt when the file changes', async () => {
      const path = writeTrace(healthyRun.join('\n'));
      const first = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      const second = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      assert.equal(first.reused, false);
      assert.equal(second.reused, true);
      appendFileSync(path, `\n${event({ type: 'run_start', run_id: 'r2' })}`);
      const third = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      assert.equal(third.reused, false);
      assert.deepEqual(
        readReport(third, defaultAnalysis).runs.map((run) => run.run_id),
        ['r1', 'r2'],
      );
      assert.equal(readdirSync(cacheDir.path).filter((f) => f.endsWith('.sqlite')).length, 1);
    });

    it('is stamped with the schema version, and rebuilt when a cache has another one', async () => {
      const path = writeTrace(healthyRun.join('\n'));
      const first = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      const storedVersion = (): number => {
        const db = openDatabase(first.dbPath, { readonly: true });
        try {
          return storedSchemaVersion(db);
        } finally {
          db.close();
        }
      };
      assert.equal(storedVersion(), SCHEMA_VERSION);
      assert.equal((await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis })).reused, true, 'same version: reused');
      for (const otherVersion of [0, SCHEMA_VERSION - 1, SCHEMA_VERSION + 1]) {
        const db = openDatabase(first.dbPath);
        db.pragma(`user_version = ${otherVersion}`);
        db.close();
        const again = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
        assert.equal(again.reused, false, `version ${otherVersion}: rebuilt`);
        assert.equal(storedVersion(), SCHEMA_VERSION);
        assert.equal(readReport(again, defaultAnalysis).runs[0]?.status, 'model_finished');
      }
    });

    it('redoes an ingest that never completed', async () => {
      const path = writeTrace(healthyRun.join('\n'));
      const first = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      const db = openDatabase(first.dbPath);
      db.prepare('UPDATE sources SET ingest_completed_at = NULL').run();
      db.prepare('DELETE FROM events WHERE line > 2').run();
      db.close();
      const again = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      assert.equal(again.reused, false);
      assert.equal(readReport(again, defaultAnalysis).files[0]?.events, 5);
    });

    it('rebuilds a corrupted database from the trace', async () => {
      const path = writeTrace(healthyRun.join('\n'));
      const first = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      writeFileSync(first.dbPath, 'this is not a database '.repeat(200));
      const again = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      assert.equal(again.reused, false);
      assert.equal(readReport(again, defaultAnalysis).runs[0]?.status, 'model_finished');
    });

    it('recomputes only the analysis when the options change', async () => {
      const path = writeTrace(healthyRun.join('\n'));
      await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      const other = await openTrace(path, { cacheDir: cacheDir.path, analysis: { window: 4, threshold: 2 } });
      assert.equal(other.reused, true);
      assert.deepEqual(
        readReport(other, { window: 4, threshold: 2 }).runs.map((run) => run.status),
        ['model_finished'],
      );
    });
  });
});

describe('the stored trace', () => {
  it('holds every step of a run with its response, and every call with how it was answered', async () => {
    const cacheDir = temporaryDir('stored');
    try {
      const trace = await openTrace(join(examplesDir, 'budget-exhausted.jsonl'), {
        cacheDir: cacheDir.path,
        analysis: defaultAnalysis,
      });
      const db = openDatabase(trace.dbPath, { readonly: true });
      const steps = db.prepare('SELECT s.step, e.type, e.outcome FROM steps s LEFT JOIN events e ON e.id = s.response_event_id ORDER BY s.step').all();
      assert.deepEqual(steps, [
        { step: 0, type: null, outcome: null },
        ...[1, 2, 3, 4, 5].map((step) => ({ step, type: 'model_response', outcome: 'tool_calls' })),
      ]);
      const calls = db.prepare('SELECT step, name, state FROM calls ORDER BY line, call_index').all() as { step: number; state: string }[];
      assert.deepEqual(
        calls.map((call) => [call.step, call.state]),
        [
          [1, 'ok'],
          [2, 'ok'],
          [3, 'ok'],
          [4, 'ok'],
          [5, 'unexecuted'],
        ],
      );
      db.close();
    } finally {
      cacheDir.remove();
    }
  });
  it("holds each step's earliest and latest timestamp as its events wrote them, in the order of their texts", async () => {
    // A leap second is kept as written (no date holds it), the others as numbers while the run is read.
    const cacheDir = temporaryDir('stepTimes');
    const event = (fields: Record<string, unknown>): string => JSON.stringify({ run_id: 'r', step: 1, ...fields });
    const path = join(cacheDir.path, 'step-times.jsonl');
    writeFileSync(
      path,
      [
        event({ type: 'run_start', step: undefined, ts: '2016-12-31T23:59:58.000Z' }),
        event({ type: 'model_response', ts: '2016-12-31T23:59:59.500Z', outcome: 'tool_calls', tool_calls: [{ call_id: 'c1', name: 'ls', arguments: '{}' }] }),
        event({ type: 'tool_call_start', ts: '2016-12-31T23:59:60.250Z', call_id: 'c1', name: 'ls' }),
        event({ type: 'tool_result', ts: '2016-12-31T23:59:59.000Z', call_id: 'c1', name: 'ls', status: 'ok', output: 'a' }),
        event({ type: 'run_end', step: undefined, ts: '2016-12-31T23:59:59.750Z', status: 'succeeded' }),
      ].join('\n'),
    );
    try {
      const trace = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      const db = openDatabase(trace.dbPath, { readonly: true });
      const step = db.prepare('SELECT started_at, ended_at, events FROM steps WHERE step = 1').get();
      db.close();
      assert.deepEqual(step, { started_at: '2016-12-31T23:59:59.000Z', ended_at: '2016-12-31T23:59:60.250Z', events: 4 });
    } finally {
      cacheDir.remove();
    }
  });
});

describe('lines an adapter folds into events anchored elsewhere', () => {
  it('stay retrievable byte for byte, every one of them', async () => {
    const cacheDir = temporaryDir('absorbed');
    try {
      const path = join(testFixturesDir, 'formats', 'claude-code', 'parallel-split-lines.jsonl');
      const trace = await openTrace(path, { cacheDir: cacheDir.path, analysis: defaultAnalysis });
      const db = openDatabase(trace.dbPath, { readonly: true });
      const lines = readFileSync(path, 'utf8').split('\n');
      let checked = 0;
      lines.forEach((text, index) => {
        if (text.trim() === '') return;
        assert.equal(readRawLine(db, trace.sourceId, index + 1)?.bytes.toString(), text, `line ${index + 1}`);
        checked += 1;
      });
      db.close();
      assert.ok(checked > 5);
    } finally {
      cacheDir.remove();
    }
  });
});
