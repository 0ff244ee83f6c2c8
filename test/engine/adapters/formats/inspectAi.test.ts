/**
 * Inspect AI eval logs, read by the real engine: the `.eval` ZIP container (built here, entry by
 * entry, with a small deflate writer, so no binary fixture is committed) and the plain JSON log
 * (test/fixtures/formats/inspect-ai/eval-log.json, invented). See docs/formats/inspect-ai.md.
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { crc32, deflateRawSync } from 'node:zlib';
import { inspectAiFormat } from '../../../../src-main/engine/adapters/inspectAi';
import { openTrace, readReport } from '../../../../src-main/engine/engine';
import { readZipDirectory, ZipFormatError } from '../../../../src-main/engine/bytes/zipEntries';
import { readRawLine } from '../../../../src-main/engine/store/rawLines';
import { openDatabase } from '../../../../src-main/engine/store/traceDatabase';
import type { AnalyzeReport } from '../../../../shared/report';
import { analyzeFile, defaultAnalysis, temporaryDir } from '../../../support/engineHarness';
import { callLatencies, modelLatencies, fixtures, detectFile, type StoredEvent } from '../../../support/formatTests';
import { examplesDir } from '../../../../devkit/repoPaths';

const FORMAT = 'inspect-ai';
const jsonLog = join(fixtures, FORMAT, 'eval-log.json');

interface ZipInput {
  name: string;
  data?: unknown;
  /** Stored (method 0) instead of deflated. */
  stored?: boolean;
  /** Extra bytes in the local header only, so the data offset must come from the local header. */
  localExtra?: Buffer;
}

/** A ZIP archive with correct local headers, central directory and End Of Central Directory record. */
function zipArchive(inputs: ZipInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const input of inputs) {
    const name = Buffer.from(input.name);
    const raw = input.data === undefined ? Buffer.alloc(0) : Buffer.from(typeof input.data === 'string' ? input.data : JSON.stringify(input.data, null, 2));
    const method = input.stored || input.name.endsWith('/') ? 0 : 8;
    const data = method === 0 ? raw : deflateRawSync(raw);
    const crc = crc32(raw);
    const extra = input.localExtra ?? Buffer.alloc(0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(extra.length, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, extra, data);
    centrals.push(central, name);
    offset += local.length + name.length + extra.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(inputs.length, 8);
  end.writeUInt16LE(inputs.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const evalSpec = {
  eval_id: 'evalZip1',
  run_id: 'runZip1',
  created: '2025-04-01T09:00:00+00:00',
  task: 'fix_tests',
  task_id: 'task9',
  model: 'anthropic/claude-3-5-sonnet-latest',
  config: { epochs: 1, message_limit: 6, cost_limit: 2 },
};

function modelEvent(ts: string, message: Record<string, unknown>, stopReason: string, usage: Record<string, number>): Record<string, unknown> {
  return {
    timestamp: ts,
    event: 'model',
    model: evalSpec.model,
    input: [{ role: 'user', content: 'attachment://0f0f' }],
    tools: [{ name: 'bash' }, { name: 'read_file' }],
    tool_choice: 'auto',
    config: { max_tokens: 1024 },
    output: { model: 'claude-3-5-sonnet-20241022', choices: [{ message: { role: 'assistant', ...message }, stop_reason: stopReason }], usage },
    call: { request: { model: 'claude-3-5-sonnet-20241022' }, response: { id: 'msg_1' } },
  };
}

/** Parallel calls (one failing), attachments, then a final answer. */
const sampleParallel = {
  id: 1,
  epoch: 1,
  input: 'attachment://0f0f',
  target: 'pass',
  messages: [{ role: 'user', content: 'attachment://0f0f' }],
  output: { model: 'claude-3-5-sonnet-20241022', choices: [{ message: { role: 'assistant', content: 'Tests pass now.' }, stop_reason: 'stop' }] },
  events: [
    { timestamp: '2025-04-01T09:00:01+00:00', event: 'sample_init', sample: { id: 1 } },
    { timestamp: '2025-04-01T09:00:01.5+00:00', event: 'span_begin', id: 's1', type: 'solver', name: 'react', span_id: 's1' },
    modelEvent(
      '2025-04-01T09:00:03+00:00',
      {
        content: 'Looking first.',
        tool_calls: [
          { id: 'toolu_a', function: 'bash', arguments: { cmd: 'pytest -q' }, type: 'function' },
          { id: 'toolu_b', function: 'read_file', arguments: { path: 'setup.cfg' }, type: 'function' },
        ],
      },
      'tool_calls',
      { input_tokens: 500, output_tokens: 40, input_tokens_cache_read: 300, total_tokens: 840 },
    ),
    {
      timestamp: '2025-04-01T09:00:04+00:00',
      event: 'tool',
      type: 'function',
      id: 'toolu_a',
      function: 'bash',
      arguments: { cmd: 'pytest -q' },
      result: 'attachment://beef',
      working_time: 0.8,
    },
    {
      timestamp: '2025-04-01T09:00:04.2+00:00',
      event: 'tool',
      type: 'function',
      id: 'toolu_b',
      function: 'read_file',
      arguments: { path: 'setup.cfg' },
      result: '',
      error: { type: 'file_not_found', message: 'setup.cfg not found' },
    },
    modelEvent('2025-04-01T09:00:06+00:00', { content: 'Tests pass now.' }, 'stop', { input_tokens: 700, output_tokens: 8 }),
    { timestamp: '2025-04-01T09:00:07+00:00', event: 'score', score: { value: 'C' } },
  ],
  attachments: { '0f0f': 'Make the tests pass.', beef: '3 passed' },
};

/** A call issued, then the message limit: the call was never run. */
const sampleLimited = {
  id: 2,
  epoch: 1,
  input: 'Refactor utils.',
  target: '',
  messages: [],
  limit: { type: 'message', limit: 6 },
  events: [
    modelEvent('2025-04-01T09:01:00+00:00', { content: '', tool_calls: [{ id: 'toolu_c', function: 'bash', arguments: { cmd: 'ls' } }] }, 'tool_calls', {
      input_tokens: 100,
      output_tokens: 10,
    }),
    { timestamp: '2025-04-01T09:01:01+00:00', event: 'sample_limit', type: 'message', message: 'Message limit 6 exceeded', limit: 6 },
  ],
};

/** No events: read from the messages; the sample failed. */
const sampleMessages = {
  id: 'three',
  epoch: 2,
  input: 'Divide.',
  target: '',
  messages: [
    { role: 'system', content: 'You are careful.' },
    { role: 'user', content: 'Divide.' },
    { role: 'assistant', content: [{ type: 'text', text: 'Trying.' }], tool_calls: [{ id: 'call_d', function: 'python', arguments: { code: '1/0' } }] },
    { role: 'tool', tool_call_id: 'call_d', function: 'python', content: '', error: { type: 'unknown', message: 'ZeroDivisionError' } },
    { role: 'assistant', content: 'I give up.' },
  ],
  output: {
    model: 'm',
    choices: [{ message: { role: 'assistant', content: 'I give up.' }, stop_reason: 'stop' }],
    usage: { input_tokens: 90, output_tokens: 4 },
  },
  error: { message: 'RuntimeError: scorer crashed', traceback: 'Traceback …' },
};

/** Model events but no tool event: the result is the tool message (as older logs nest tool events). */
const sampleNested = {
  id: 4,
  epoch: 1,
  input: 'List.',
  target: '',
  messages: [
    { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_e', function: 'bash', arguments: { cmd: 'ls' } }] },
    { role: 'tool', tool_call_id: 'toolu_e', function: 'bash', content: 'a\nb' },
  ],
  events: [
    modelEvent('2025-04-01T09:02:00+00:00', { content: '', tool_calls: [{ id: 'toolu_e', function: 'bash', arguments: { cmd: 'ls' } }] }, 'tool_calls', {
      input_tokens: 50,
      output_tokens: 5,
    }),
    modelEvent('2025-04-01T09:02:02+00:00', { content: 'a and b.' }, 'stop', { input_tokens: 60, output_tokens: 4 }),
  ],
};

const summaries = [{ id: 1, epoch: 1, scores: { match: { value: 'C' } } }];

function evalArchive(status = 'success'): Buffer {
  return zipArchive([
    { name: '_journal/start.json', data: { version: 2, eval: evalSpec, plan: { name: 'plan', steps: [] } }, stored: true },
    { name: 'samples/' },
    { name: 'samples/1_epoch_1.json', data: sampleParallel, localExtra: Buffer.from([0xca, 0xfe, 4, 0, 1, 2, 3, 4]) },
    { name: 'samples/2_epoch_1.json', data: sampleLimited },
    { name: 'samples/three_epoch_2.json', data: sampleMessages },
    { name: 'samples/4_epoch_1.json', data: sampleNested },
    { name: '_journal/summaries/1.json', data: summaries },
    { name: 'summaries.json', data: summaries },
    { name: 'reductions.json', data: [{ scorer: 'match', samples: [{ value: 1, sample_id: 1 }] }] },
    { name: 'logs/notes.txt', data: 'not a record' },
    {
      name: 'header.json',
      data: { version: 2, status, eval: evalSpec, stats: { started_at: '2025-04-01T09:00:00+00:00', completed_at: '2025-04-01T09:03:00+00:00' } },
    },
  ]);
}

interface EventRow extends StoredEvent {
  call_id: string | null;
  outcome: string | null;
  finish_reason: string | null;
  input_tokens: number | null;
  result_ok: number | null;
  error_code: string | null;
  summary: string | null;
}

function runsOf(report: AnalyzeReport) {
  return report.runs
    .map(({ run_id, status, status_raw, steps, tool_calls, tool_results }) => ({ run_id, status, status_raw, steps, tool_calls, tool_results }))
    .sort((a, b) => a.run_id.localeCompare(b.run_id));
}

function findingsOf(report: AnalyzeReport): [string, string | null, string | null][] {
  return report.findings
    .map((finding): [string, string | null, string | null] => [finding.kind, finding.run_id ?? null, finding.call_id])
    .sort((a, b) => `${a[0]} ${a[1]} ${a[2]}`.localeCompare(`${b[0]} ${b[1]} ${b[2]}`));
}

const canonical = (events: EventRow[]): string[] =>
  events
    .filter((event) => event.type !== 'unknown')
    .map(
      (event) =>
        `${event.type}@${event.step}${event.call_id ? ` ${event.call_id}` : ''}${event.outcome ? ` ${event.outcome}` : ''}${event.result_ok === 0 ? ' error' : ''}`,
    );

/** Report, stored events (per run) and raw records of a file, read by the real engine. */
async function ingest(path: string): Promise<{ report: AnalyzeReport; eventsOf: (runId: string) => EventRow[]; raw: (line: number) => Buffer | undefined }> {
  const cache = temporaryDir('inspect-ai');
  try {
    const trace = await openTrace(path, { cacheDir: cache.path, analysis: defaultAnalysis });
    const db = openDatabase(trace.dbPath, { readonly: true });
    try {
      const rows = db
        .prepare(
          'SELECT r.run_id AS run_id, e.line, e.type, e.type_raw, e.step, e.call_id, e.outcome, e.finish_reason, e.input_tokens, e.result_ok, e.error_code, e.summary FROM events e JOIN runs r ON r.id = e.run_pk ORDER BY e.id',
        )
        .all() as (EventRow & { run_id: string })[];
      const lines = new Map<number, Buffer | undefined>();
      for (const row of rows) if (!lines.has(row.line)) lines.set(row.line, readRawLine(db, trace.sourceId, row.line)?.bytes);
      return { report: readReport(trace, defaultAnalysis), eventsOf: (runId) => rows.filter((row) => row.run_id === runId), raw: (line) => lines.get(line) };
    } finally {
      db.close();
    }
  } finally {
    cache.remove();
  }
}

function detect(path: string): string | null {
  return detectFile(inspectAiFormat, path);
}

describe('inspect-ai: .eval container', () => {
  const dir = temporaryDir('inspect-ai-eval');
  after(() => dir.remove());
  const archive = join(dir.path, 'log.eval');
  writeFileSync(archive, evalArchive());

  it('one run per sample and one for the eval; ends from error, limit, header status; a call cut by the limit dangles', async () => {
    const { report, eventsOf, raw } = await ingest(archive);
    assert.equal(report.files[0]?.format, FORMAT);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.equal(report.files[0]?.lines, 11);
    const runs = runsOf(report);
    const limited = runs.find((run) => run.run_id === 'evalZip1/2/epoch1');
    // `message_limit` is Inspect's own name; the normalizer may not know it yet.
    assert.ok(limited && ['unknown', 'budget_exceeded'].includes(limited.status), limited?.status);
    assert.deepEqual(
      runs.map((run) => (run.run_id === 'evalZip1/2/epoch1' ? { ...run, status: '(checked above)' } : run)),
      [
        { run_id: 'evalZip1', status: 'succeeded', status_raw: 'success', steps: 0, tool_calls: 0, tool_results: 0 },
        { run_id: 'evalZip1/1/epoch1', status: 'succeeded', status_raw: 'completed', steps: 2, tool_calls: 2, tool_results: 2 },
        { run_id: 'evalZip1/2/epoch1', status: '(checked above)', status_raw: 'message_limit', steps: 1, tool_calls: 1, tool_results: 0 },
        { run_id: 'evalZip1/4/epoch1', status: 'succeeded', status_raw: 'completed', steps: 2, tool_calls: 1, tool_results: 1 },
        { run_id: 'evalZip1/three/epoch2', status: 'failed', status_raw: 'error', steps: 2, tool_calls: 1, tool_results: 1 },
      ],
    );
    const kinds = findingsOf(report);
    assert.ok(
      kinds.some(([kind, run, call]) => kind === 'dangling_call' && run === 'evalZip1/2/epoch1' && call === 'toolu_c'),
      JSON.stringify(kinds),
    );
    assert.deepEqual(
      kinds.filter(([kind]) => kind === 'dangling_call' || kind === 'orphan_result'),
      [['dangling_call', 'evalZip1/2/epoch1', 'toolu_c']],
    );

    const parallel = eventsOf('evalZip1/1/epoch1');
    assert.deepEqual(canonical(parallel), [
      'run_start@0',
      'model_request@1',
      'model_response@1 tool_calls',
      'tool_result@1 toolu_a',
      'tool_result@1 toolu_b error',
      'model_request@2',
      'model_response@2 final',
      'run_end@2',
    ]);
    const first = parallel.find((event) => event.type === 'model_response')!;
    // Anthropic's input_tokens leaves out the 300 cache reads (total 840 = 500 + 300 + 40 output): the whole input is 800.
    assert.deepEqual([first.finish_reason, first.input_tokens], ['tool_calls', 800]);
    assert.equal(parallel.find((event) => event.call_id === 'toolu_b')?.error_code, 'file_not_found');
    // Attachments are resolved: the result's summary is its text.
    assert.equal(parallel.find((event) => event.call_id === 'toolu_a')?.summary, '3 passed');
    // The sample's "line" is its entry (3rd in the directory), and its raw bytes are the entry inflated.
    assert.ok(parallel.every((event) => event.line === 3));
    assert.equal((JSON.parse(raw(3)!.toString('utf8')) as { id: number }).id, 1);
    assert.deepEqual(JSON.parse(raw(1)!.toString('utf8')), { version: 2, eval: evalSpec, plan: { name: 'plan', steps: [] } });

    assert.deepEqual(canonical(eventsOf('evalZip1/three/epoch2')), [
      'run_start@0',
      'model_response@1 tool_calls',
      'tool_result@1 call_d error',
      'model_response@2 final',
      'run_end@2',
    ]);
    assert.deepEqual(canonical(eventsOf('evalZip1/4/epoch1')), [
      'run_start@0',
      'model_request@1',
      'model_response@1 tool_calls',
      'model_request@2',
      'model_response@2 final',
      'tool_result@1 toolu_e',
      'run_end@2',
    ]);
    // The eval's run: its start, the summaries and reductions kept as unknown events, its end from header.json.
    const evalRun = eventsOf('evalZip1');
    assert.deepEqual(
      evalRun.map((event) => `${event.type}:${event.line}`),
      ['run_start:1', 'unknown:7', 'unknown:8', 'unknown:9', 'run_end:11'],
    );
  });

  it('an eval still running (header status started) leaves the eval run unterminated', async () => {
    const path = join(dir.path, 'running.eval');
    writeFileSync(path, evalArchive('started'));
    const { report } = await analyzeFile(path);
    assert.equal(report.runs.find((run) => run.run_id === 'evalZip1')?.status, 'unterminated');
  });

  it('the reader refuses what it cannot read, with a reason', () => {
    const path = join(dir.path, 'cut.eval');
    const whole = evalArchive();
    writeFileSync(path, whole.subarray(0, whole.length - 30));
    const fd = openSync(path, 'r');
    try {
      assert.throws(() => readZipDirectory(fd, statSync(path).size), ZipFormatError);
    } finally {
      closeSync(fd);
    }
  });
});

/**
 * The shape of a real Anthropic `.eval` sample: no `started_at`/`completed_at`, its first events
 * stamped with the eval's start a day before the sample ran, `total_time`; each model event's input
 * grows by the previous answer and result; Anthropic usage leaves cache reads and writes out of
 * `input_tokens`. The second call's usage is OpenAI's split (input includes the cached tokens).
 */
const sampleRanLater = {
  id: 'oxdna',
  epoch: 3,
  input: 'attachment://task',
  target: '',
  total_time: 30.5,
  working_time: 12.25,
  messages: [],
  events: [
    { timestamp: '2025-04-01T09:00:00.100000+00:00', event: 'span_begin', id: 'sample', type: 'sample', name: 'sample' },
    { timestamp: '2025-04-01T09:00:00.200000+00:00', event: 'sample_init', sample: { id: 'oxdna' } },
    { timestamp: '2025-04-02T14:00:00.500000+00:00', event: 'span_begin', id: 'solver', type: 'solver', name: 'react' },
    {
      ...modelEvent('2025-04-02T14:00:02+00:00', { content: '', tool_calls: [{ id: 'toolu_f', function: 'bash', arguments: { cmd: 'ls' } }] }, 'tool_use', {
        input_tokens: 6,
        input_tokens_cache_read: 1000,
        input_tokens_cache_write: 400,
        output_tokens: 50,
        total_tokens: 1456,
      }),
      input: [
        { role: 'system', content: 'You are an agent.' },
        { role: 'user', content: 'attachment://task', source: 'input' },
      ],
    },
    { timestamp: '2025-04-02T14:00:05+00:00', event: 'tool', type: 'function', id: 'toolu_f', function: 'bash', arguments: { cmd: 'ls' }, result: 'run.sh' },
    {
      ...modelEvent('2025-04-02T14:00:20+00:00', { content: 'Done.' }, 'stop', {
        input_tokens: 1500,
        input_tokens_cache_read: 1400,
        output_tokens: 20,
        total_tokens: 1520,
      }),
      input: [
        { role: 'system', content: 'You are an agent.' },
        { role: 'user', content: 'attachment://task', source: 'input' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_f', function: 'bash', arguments: { cmd: 'ls' } }] },
        { role: 'tool', tool_call_id: 'toolu_f', function: 'bash', content: 'run.sh' },
      ],
    },
    { timestamp: '2025-04-02T14:00:30+00:00', event: 'span_end', id: 'solver' },
  ],
  attachments: { task: 'Simulate the duplex.' },
};

describe('inspect-ai: a sample run after the eval started, Anthropic usage', () => {
  const dir = temporaryDir('inspect-ai-later');
  after(() => dir.remove());
  const archive = join(dir.path, 'later.eval');
  writeFileSync(
    archive,
    zipArchive([
      { name: '_journal/start.json', data: { version: 2, eval: evalSpec, plan: { name: 'plan', steps: [] } } },
      { name: 'samples/oxdna_epoch_3.json', data: sampleRanLater },
    ]),
  );

  it("the run lasts the sample's total_time, not from the eval's start", async () => {
    const { report } = await ingest(archive);
    const run = report.runs.find((candidate) => candidate.run_id === 'evalZip1/oxdna/epoch3')!;
    // Its last event at 14:00:30 less its total_time of 30.5 s.
    assert.deepEqual([run.started_at, run.ended_at, run.duration_ms], ['2025-04-02T13:59:59.500Z', '2025-04-02T14:00:30.000Z', 30_500]);
  });

  it('input tokens count the cache reads and writes Anthropic leaves out; an input that already holds them is kept', async () => {
    const { report, eventsOf } = await ingest(archive);
    const responses = eventsOf('evalZip1/oxdna/epoch3').filter((event) => event.type === 'model_response');
    assert.deepEqual(
      responses.map((event) => event.input_tokens),
      [6 + 1000 + 400, 1500],
    );
    const run = report.runs.find((candidate) => candidate.run_id === 'evalZip1/oxdna/epoch3')!;
    assert.deepEqual(
      run.requests.map((request) => [request.input_tokens, request.cached_input_tokens]),
      [
        [1406, 1000],
        [1500, 1400],
      ],
    );
  });

  it("each request is its model event's own input, not the sample's final messages", async () => {
    const { report } = await ingest(archive);
    const run = report.runs.find((candidate) => candidate.run_id === 'evalZip1/oxdna/epoch3')!;
    // The system prompt is the request's system, not a message: 1 message (the task), then 3 (+ the call and its result).
    assert.deepEqual(
      run.requests.map((request) => [request.reconstructed, request.messages, request.appended_messages]),
      [
        [false, 1, 1],
        [false, 3, 2],
      ],
    );
  });
});

describe('inspect-ai: plain JSON log', () => {
  it('reads the document whole: samples as runs, the eval error as its end, a call cut by the error dangles', async () => {
    const { report, eventsOf } = await ingest(jsonLog);
    assert.equal(report.files[0]?.format, FORMAT);
    assert.deepEqual(report.files[0]?.parse_errors, []);
    assert.deepEqual(runsOf(report), [
      { run_id: 'evalJson7', status: 'failed', status_raw: 'error', steps: 0, tool_calls: 0, tool_results: 0 },
      { run_id: 'evalJson7/count-files/epoch1', status: 'failed', status_raw: 'error', steps: 1, tool_calls: 1, tool_results: 0 },
      { run_id: 'evalJson7/find-readme/epoch1', status: 'succeeded', status_raw: 'completed', steps: 2, tool_calls: 1, tool_results: 1 },
    ]);
    assert.deepEqual(
      findingsOf(report).filter(([kind]) => kind === 'dangling_call' || kind === 'orphan_result'),
      [['dangling_call', 'evalJson7/count-files/epoch1', 'call_find2']],
    );
    assert.deepEqual(canonical(eventsOf('evalJson7/find-readme/epoch1')), [
      'run_start@0',
      'model_request@1',
      'model_response@1 tool_calls',
      'tool_result@1 call_ls1',
      'model_request@2',
      'model_response@2 final',
      'run_end@2',
    ]);
  });
});

describe('inspect-ai: detection', () => {
  const dir = temporaryDir('inspect-ai-detect');
  after(() => dir.remove());

  it('accepts the .eval container and the JSON log', () => {
    const archive = join(dir.path, 'a.eval');
    writeFileSync(archive, evalArchive());
    assert.match(detect(archive) ?? '', /^Inspect AI \.eval log/);
    assert.match(detect(jsonLog) ?? '', /^Inspect AI JSON eval log/);
  });

  it('accepts a running .eval without header.json, from _journal/start.json', () => {
    const path = join(dir.path, 'running.eval');
    writeFileSync(
      path,
      zipArchive([
        { name: '_journal/start.json', data: { version: 2, eval: evalSpec } },
        { name: 'samples/1_epoch_1.json', data: sampleNested },
      ]),
    );
    assert.match(detect(path) ?? '', /_journal\/start\.json/);
  });

  it('rejects another ZIP, the canonical examples and the other formats', () => {
    const other = join(dir.path, 'other.zip');
    writeFileSync(other, zipArchive([{ name: 'data.json', data: { a: 1 } }]));
    assert.equal(detect(other), null);
    const examples = readdirSync(examplesDir).filter((name) => name.endsWith('.jsonl'));
    for (const name of examples) assert.equal(detect(join(examplesDir, name)), null, name);
    for (const format of readdirSync(fixtures)) {
      if (format === FORMAT) continue;
      for (const name of readdirSync(join(fixtures, format))) {
        const path = join(fixtures, format, name);
        if (statSync(path).isFile()) assert.equal(detect(path), null, `${format}/${name}`);
      }
    }
  });
});

describe('inspect-ai: latency', () => {
  it("a tool event's working_time and a model event's output.time; a call answered only in the messages is not timed", async () => {
    assert.deepEqual(await callLatencies(jsonLog, FORMAT), [
      ['call_ls1', 400],
      ['call_find2', null],
    ]);
    assert.deepEqual(await modelLatencies(jsonLog, FORMAT), [1250, null, null]);
  });
});
