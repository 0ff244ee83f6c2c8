/**
 * Cline task histories (ui_messages.json), read by the real engine: steps from api_req_started,
 * tool and command messages as calls with synthesized ids, results from the next request's
 * `[tool] Result:` blocks (else the UI's own evidence), the end derived from the last message.
 * Fixtures: test/fixtures/formats/cline/ (invented tasks; see docs/formats/cline.md).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { resultBlocks } from '../../../../src-main/engine/adapters/cline/results';
import { clineFormat } from '../../../../src-main/engine/adapters/cline/format';
import type { MappedEvent } from '../../../../src-main/engine/adapters/formatAdapter';
import { openTrace, readReport } from '../../../../src-main/engine/engine';
import { readRawLine } from '../../../../src-main/engine/store/rawLines';
import { openDatabase } from '../../../../src-main/engine/store/traceDatabase';
import type { AnalyzeReport } from '../../../../shared/report';
import { defaultAnalysis, temporaryDir } from '../../../support/engineHarness';
import {
  callLatencies,
  fixtures,
  findingsOf,
  detectFile,
  examplesAndOtherFixtures,
  filesUnder,
  runCountsOf as runsOf,
  type StoredEvent,
  TRACE_AND_LOG_NAMES,
} from '../../../support/formatTests';

const FORMAT = 'cline';
const fixture = (name: string): string => join(fixtures, FORMAT, name);

interface EventRow extends StoredEvent {
  call_id: string | null;
  name: string | null;
  outcome: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  result_ok: number | null;
  error_code: string | null;
  summary: string | null;
}

/** The report, stored events and raw lines of a file read as this format (registered or not, `format` names it). */
async function ingest(path: string): Promise<{ report: AnalyzeReport; events: EventRow[]; raw: (line: number) => string | undefined }> {
  const cache = temporaryDir('cline');
  try {
    const trace = await openTrace(path, { cacheDir: cache.path, analysis: defaultAnalysis, format: FORMAT });
    const db = openDatabase(trace.dbPath, { readonly: true });
    try {
      const events = db
        .prepare(
          'SELECT line, type, type_raw, step, call_id, name, outcome, input_tokens, output_tokens, cost_usd, result_ok, error_code, summary FROM events ORDER BY id',
        )
        .all() as EventRow[];
      const lines = new Map(events.map((event) => [event.line, readRawLine(db, trace.sourceId, event.line)?.bytes.toString('utf8')]));
      return { report: readReport(trace, defaultAnalysis), events, raw: (line) => lines.get(line) };
    } finally {
      db.close();
    }
  } finally {
    cache.remove();
  }
}

const canonical = (events: EventRow[]): string[] =>
  events
    .filter((event) => event.type !== 'unknown' && event.type !== 'tool_call_start')
    .map(
      (event) =>
        `${event.type}@${event.step}${event.call_id ? ` ${event.call_id}` : ''}${event.outcome ? ` ${event.outcome}` : ''}${event.result_ok === 0 ? ' error' : ''}`,
    );

function detect(path: string): string | null {
  return detectFile(clineFormat, path);
}

describe('cline: ui_messages.json', () => {
  it('a completed task: parallel reads (one failing), an edit and a command, results from the next request, the end from completion_result', async () => {
    const { report, events, raw } = await ingest(fixture('task-completed.json'));
    assert.equal(report.files[0]?.format, FORMAT);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      { run_id: 'task-completed', status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 4, tool_results: 4 },
    ]);
    assert.deepEqual(findingsOf(report), [['tool_error', 'msg-7']]);
    assert.deepEqual(canonical(events), [
      'run_start@0',
      'model_response@1 tool_calls',
      'tool_result@1 msg-5',
      'tool_result@1 msg-7 error',
      'model_response@2 tool_calls',
      'tool_result@2 msg-12',
      'tool_result@2 msg-13',
      'model_response@3 final',
      'run_end@3',
    ]);
    const first = events.find((event) => event.type === 'model_response');
    // tokensIn + cacheWrites + cacheReads; the cost as Cline recorded it.
    assert.deepEqual([first?.input_tokens, first?.output_tokens, first?.cost_usd], [12 + 9800 + 0, 210, 0.0412]);
    assert.equal(report.runs[0]?.input_tokens, 9812 + 11009 + 11648);
    // Every event points at its own message in the pretty-printed array.
    const started = events.find((event) => event.type === 'tool_call_start' && event.call_id === 'msg-5')!;
    assert.equal(started.line, 67);
    assert.equal((JSON.parse(raw(started.line)!) as { say: string }).say, 'tool');
    const response = events.find((event) => event.type === 'model_response' && event.step === 2)!;
    assert.equal((JSON.parse(raw(response.line)!) as { say: string }).say, 'api_req_started');
    assert.match(events.find((event) => event.call_id === 'msg-7' && event.type === 'tool_result')?.summary ?? '', /^error: Error reading file: ENOENT/);
  });

  it('a resumed task: a denied edit, a model call whose api_req_started was removed, a failed stream, an interrupted tool, then a question', async () => {
    const { report, events } = await ingest(fixture('task-resumed.json'));
    assert.deepEqual(runsOf(report), [
      { run_id: 'task-resumed', status: 'waiting_for_input', status_raw: 'waiting_for_input', steps: 6, tool_calls: 3, tool_results: 3 },
    ]);
    // The failed stream is a provider error the loop recovered from: the next call went through. The
    // model call whose api_req_started was removed is an incomplete response (docs/semantics.md §1).
    assert.deepEqual(findingsOf(report), [
      ['api_error', null],
      ['incomplete_response', null],
      ['tool_error', 'msg-20'],
      ['tool_error', 'msg-3'],
    ]);
    const apiError = report.findings.find((finding) => finding.kind === 'api_error');
    assert.equal(apiError?.severity, 'info');
    assert.match(apiError?.message ?? '', /step 4 .* failed at the provider with ECONNRESET: terminated; the loop retried/);
    assert.deepEqual(canonical(events), [
      'run_start@0',
      'model_response@1 tool_calls',
      'tool_result@1 msg-3 error',
      'model_response@2 tool_calls',
      'model_response@3 incomplete',
      'tool_result@2 msg-8',
      'model_response@4 incomplete',
      'model_response@5 tool_calls',
      'tool_result@5 msg-20 error',
      'model_response@6 final',
      'run_end@6',
    ]);
    assert.deepEqual(
      events.filter((event) => event.type === 'tool_result' && event.result_ok === 0).map((event) => event.error_code),
      ['denied', 'interrupted'],
    );
    // The implicit step is anchored to its first message (the reasoning), the others to their api_req_started.
    assert.deepEqual(
      events.filter((event) => event.type === 'model_response').map((event) => event.type_raw),
      ['say/api_req_started', 'say/api_req_started', 'say/reasoning', 'say/api_req_started', 'say/api_req_started', 'say/api_req_started'],
    );
    // A minified document: one line, each event at its own byte range.
    assert.ok(events.every((event) => event.line === 1));
  });

  it('a task cut while a tool ran: the call has no result and the run has no end', async () => {
    const { report } = await ingest(fixture('task-cut.json'));
    assert.deepEqual(runsOf(report), [{ run_id: 'task-cut', status: 'unterminated', status_raw: '', steps: 2, tool_calls: 2, tool_results: 1 }]);
    assert.deepEqual(findingsOf(report), [
      ['dangling_call', 'msg-6'],
      ['unterminated_run', null],
    ]);
  });

  it('a failed edit said as diff_error is a call with its error; a command awaiting approval at the end is pending, not dangling', async () => {
    const { report, events } = await ingest(fixture('task-awaiting-approval.json'));
    assert.deepEqual(runsOf(report), [
      { run_id: 'task-awaiting-approval', status: 'waiting_for_approval', status_raw: 'waiting_for_approval', steps: 2, tool_calls: 2, tool_results: 1 },
    ]);
    assert.deepEqual(findingsOf(report), [['tool_error', 'msg-2']]);
    assert.deepEqual(canonical(events), [
      'run_start@0',
      'model_response@1 tool_calls',
      'tool_result@1 msg-2 error',
      'model_response@2 tool_calls',
      'run_end@2',
    ]);
  });

  it('each element that is not a UI message is a parse error at its own line; the rest of the task loads', async () => {
    const dir = temporaryDir('cline-broken');
    try {
      const messages = JSON.parse(readFileSync(fixture('task-completed.json'), 'utf8')) as unknown[];
      messages.splice(3, 0, { note: 'hand-edited' }, 42);
      const path = join(dir.path, 'ui_messages.json');
      writeFileSync(path, JSON.stringify(messages, null, 4));
      const { report } = await ingest(path);
      assert.deepEqual(
        report.files[0]?.parse_errors.map((error) => [error.line, error.message]),
        [
          [41, 'element 3 is not a Cline UI message: no "type":"say"|"ask" with its "say"/"ask" subtype'],
          [44, 'element 4 is not a Cline UI message: not an object'],
        ],
      );
      assert.deepEqual(runsOf(report), [
        { run_id: 'ui_messages', status: 'model_finished', status_raw: 'model_finished', steps: 3, tool_calls: 4, tool_results: 4 },
      ]);

      // A UI message written on its own, outside an array, is read like one element.
      const object = join(dir.path, 'object.json');
      writeFileSync(object, '{"ts": 1751878800000, "type": "say", "say": "task", "text": "hi"}\n');
      const { report: single } = await ingest(object);
      assert.deepEqual(single.files[0]?.parse_errors, []);
      assert.equal(single.runs[0]?.run_id, 'object');
    } finally {
      dir.remove();
    }
  });
});

describe('cline: mapping and detection', () => {
  const dir = temporaryDir('cline-detect');
  after(() => dir.remove());

  it('names the run after the task directory, as Cline lays tasks out', () => {
    const mapper = clineFormat.createMapper({ path: '/home/me/.cline/tasks/1751878800000/ui_messages.json' });
    const events: MappedEvent[] = [];
    const value = { ts: 1751878800000, type: 'say', say: 'task', text: 'hi' };
    const bytes = Buffer.from(JSON.stringify(value));
    assert.equal(
      mapper.map(value, { lineNumber: 1, offset: 0, length: bytes.length }, (event) => events.push(event), bytes),
      undefined,
    );
    mapper.finish((event) => events.push(event));
    assert.deepEqual(
      events.map(({ event }) => [event.type, event.run_id]),
      [['run_start', '1751878800000']],
    );
  });

  it('splits a request into its result blocks, leaving out what Cline appends after them', () => {
    const blocks = resultBlocks(
      "[read_file for 'a.ts'] Result:\none\n\n[search_files for 'x' in '*.ts'] Result:\nFound 0 results.\n\n<environment_details>\n# Time\n</environment_details>",
    );
    assert.deepEqual(blocks, [
      { name: 'read_file', body: 'one' },
      { name: 'search_files', body: 'Found 0 results.' },
    ]);
  });

  it('recognises every fixture of its own, and a document too large for the sample from its first bytes', () => {
    for (const path of filesUnder(join(fixtures, FORMAT), TRACE_AND_LOG_NAMES))
      assert.match(detect(path) ?? '', /^Cline task history \(ui_messages\.json\)/, path);
    const head = readFileSync(fixture('task-completed.json'), 'utf8').slice(0, 300);
    assert.match(clineFormat.detect({ path: 'ui_messages.json', values: [], framedValues: [], head }) ?? '', /from its first bytes/);
  });

  it('rejects the canonical examples, the other formats’ fixtures and other JSON arrays', () => {
    const others = examplesAndOtherFixtures(FORMAT, TRACE_AND_LOG_NAMES);
    assert.ok(others.length > 5);
    for (const path of others) assert.equal(detect(path), null, path);
    const events = join(dir.path, 'events.json');
    writeFileSync(events, JSON.stringify([{ id: 1, timestamp: '2025-07-07T10:00:00', source: 'agent', action: 'run' }]));
    assert.equal(detect(events), null);
  });
});

describe('cline: latency', () => {
  it("a call runs from its message to its error, the next call's message or the next request; across an interruption it is not recorded", async () => {
    assert.deepEqual(await callLatencies(join(fixtures, 'cline', 'task-completed.json'), 'cline'), [
      // readFile at +3.5 s, the next readFile at +4.9 s.
      ['msg-5', 1400],
      // readFile at +4.9 s failed with the error message at +5.6 s.
      ['msg-7', 700],
      ['msg-12', 700],
      // The command at +9.1 s, the next request at +11.9 s.
      ['msg-13', 2800],
    ]);
    assert.deepEqual(await callLatencies(join(fixtures, 'cline', 'task-resumed.json'), 'cline'), [
      ['msg-3', 2100],
      // The edit's result reached the model after a resume_task ten minutes later.
      ['msg-8', null],
      // Interrupted: its result is the interruption, which is no end of the call.
      ['msg-20', null],
    ]);
  });
});
