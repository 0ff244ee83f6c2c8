/**
 * OpenTelemetry GenAI spans — the console exporter's pretty-printed span objects (otel-console)
 * and OTLP JSON export lines (otel-otlp): agent invocations as runs, chat spans as model calls,
 * execute_tool spans as tool calls correlated by gen_ai.tool.call.id, spans deduplicated and put in
 * time order per trace. Fixtures: test/fixtures/formats/otel/ (invented spans; see
 * docs/formats/otel.md). The adapters are tested directly, then through the real engine.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { FormatAdapter, MappedEvent } from '../../../../src-main/engine/adapters/formatAdapter';
import { otelConsoleFormat } from '../../../../src-main/engine/adapters/otel/consoleFormat';
import { otelOtlpFormat } from '../../../../src-main/engine/adapters/otel/otlpFormat';
import { sampleFile } from '../../../../src-main/engine/ingest/detectFormat';
import type { AnalyzeReport } from '../../../../shared/report';
import { normalizeTerminalStatus } from '../../../../shared/trace/runStatus';
import { analyzeFile } from '../../../support/engineHarness';
import { callLatencies, modelLatencies, fixtures, ingestEvents, runCountsOf as runsOf } from '../../../support/formatTests';
import { examplesDir } from '../../../../devkit/repoPaths';

const fixture = (name: string): string => join(fixtures, 'otel', name);

/** What an ended span with status UNSET normalizes to (see docs/formats/otel.md). */
const UNSET_STATUS = normalizeTerminalStatus({ status: 'UNSET' }).status;

/**
 * Findings as [kind, run, step, call]. A run holding only run_start and unknown events is not
 * analyzed by the engine today, so an unterminated trace-level run may or may not carry an
 * unterminated_run finding: those are checked apart.
 */
function findingsOf(report: AnalyzeReport): [string, string | null, number | null, string | null][] {
  return report.findings
    .filter((finding) => finding.kind !== 'unterminated_run')
    .map((finding) => [finding.kind, finding.run_id, finding.step, finding.call_id]);
}

function unterminatedFindingRuns(report: AnalyzeReport): (string | null)[] {
  return report.findings.filter((finding) => finding.kind === 'unterminated_run').map((finding) => finding.run_id);
}

function traceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return traceFiles(path);
    return name.endsWith('.jsonl') || name.endsWith('.json') ? [path] : [];
  });
}

function detect(adapter: FormatAdapter, path: string): string | null {
  return adapter.detect(sampleFile({ path, size: statSync(path).size, mtimeMs: 0, fingerprint: '' }));
}

// ---------------------------------------------------------------------------------------------
// Adapter-level helpers

const TRACE = 'aa11bb22cc33dd44ee55ff6600778899';

function at(seconds: number): string {
  const whole = Math.floor(seconds);
  const micros = Math.round((seconds - whole) * 1e6);
  return `2025-06-01T10:00:${String(whole).padStart(2, '0')}.${String(micros).padStart(6, '0')}Z`;
}

interface SpanSpec {
  name: string;
  id: string;
  parent?: string;
  trace?: string;
  start: number;
  end?: number;
  attributes?: Record<string, unknown>;
  status?: 'UNSET' | 'OK' | 'ERROR';
  description?: string;
}

/** A span as the Python ConsoleSpanExporter prints it. */
function consoleSpan(spec: SpanSpec): Record<string, unknown> {
  return {
    name: spec.name,
    context: { trace_id: `0x${spec.trace ?? TRACE}`, span_id: `0x${spec.id}`, trace_state: '[]' },
    kind: 'SpanKind.INTERNAL',
    parent_id: spec.parent === undefined ? null : `0x${spec.parent}`,
    start_time: at(spec.start),
    end_time: spec.end === undefined ? null : at(spec.end),
    status: { status_code: spec.status ?? 'UNSET', ...(spec.description ? { description: spec.description } : {}) },
    attributes: spec.attributes ?? {},
    events: [],
    links: [],
    resource: { attributes: { 'service.name': 'unit' }, schema_url: '' },
  };
}

const agent = (id: string, start: number, end: number | undefined, extra: Partial<SpanSpec> = {}): Record<string, unknown> =>
  consoleSpan({
    name: 'invoke_agent Helper',
    id,
    start,
    ...(end !== undefined ? { end } : {}),
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Helper' },
    ...extra,
  });
const chat = (
  id: string,
  parent: string,
  start: number,
  end: number | undefined,
  finish?: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> =>
  consoleSpan({
    name: 'chat gpt-test',
    id,
    parent,
    start,
    ...(end !== undefined ? { end } : {}),
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-test',
      ...(finish ? { 'gen_ai.response.finish_reasons': JSON.stringify([finish]) } : {}),
      ...extra,
    },
  });
const tool = (id: string, parent: string, callId: string, start: number, end: number | undefined, extra: Partial<SpanSpec> = {}): Record<string, unknown> =>
  consoleSpan({
    name: 'execute_tool lookup',
    id,
    parent,
    start,
    ...(end !== undefined ? { end } : {}),
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': callId },
    ...extra,
  });

/** Feeds records to a fresh mapper, one per "line"; returns the events and the rejected records. */
function mapRecords(adapter: FormatAdapter, records: unknown[]): { events: MappedEvent[]; failures: [number, string][] } {
  const mapper = adapter.createMapper({ path: 'unit' });
  const events: MappedEvent[] = [];
  const failures: [number, string][] = [];
  const emit = (mapped: MappedEvent): void => {
    events.push(mapped);
  };
  records.forEach((record, index) => {
    const line = { lineNumber: index + 1, offset: index * 1000, length: 1000 };
    const failure = mapper.map(record, line, emit, Buffer.from(JSON.stringify(record)));
    if (failure !== undefined) failures.push([index + 1, failure.reason]);
  });
  mapper.finish(emit);
  return { events, failures };
}

/** `line type step call` per event, the shape the ingester sees. */
function outline(events: MappedEvent[]): string[] {
  return events.map(({ event, line }) => {
    const record = event as Record<string, unknown>;
    const callId = typeof record['call_id'] === 'string' ? ` ${record['call_id']}` : '';
    return `${line.lineNumber} ${event.type}${event.step !== undefined ? ` ${event.step}` : ''}${callId}`;
  });
}

function eventOf<T extends string>(events: MappedEvent[], type: T): Record<string, unknown> {
  const found = events.find((mapped) => mapped.event.type === type);
  assert.ok(found, `no ${type} event`);
  return found.event as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------

describe('otel: detection', () => {
  it('recognises the console exporter fixtures and the OTLP fixture, each by its own adapter only', () => {
    for (const name of ['console-workflow.jsonl', 'console-nested-content.jsonl', 'console-openllmetry.jsonl', 'console-promptflow.json']) {
      assert.match(
        detect(otelConsoleFormat, fixture(name)) ?? '',
        /^OpenTelemetry console-exporter spans: \d+ of the first \d+ JSON values have context\.trace_id\/span_id and start_time \(\d+ with gen_ai\.\* attributes\)$/,
      );
      assert.equal(detect(otelOtlpFormat, fixture(name)), null, name);
    }
    assert.equal(
      detect(otelOtlpFormat, fixture('otlp-collector.jsonl')),
      'OpenTelemetry OTLP JSON: 4 of the first 5 lines are export requests, 3 with resourceSpans',
    );
    assert.equal(detect(otelConsoleFormat, fixture('otlp-collector.jsonl')), null);
    assert.equal(
      detect(otelOtlpFormat, fixture('otlp-openinference.jsonl')),
      'OpenTelemetry OTLP JSON: 2 of the first 2 lines are export requests, 2 with resourceSpans',
    );
    assert.equal(detect(otelConsoleFormat, fixture('otlp-openinference.jsonl')), null);
  });

  it('rejects the canonical examples and the other formats’ fixtures', () => {
    const examples = traceFiles(examplesDir).filter((path) => path.endsWith('.jsonl'));
    const others = [...examples, ...traceFiles(fixtures).filter((path) => !path.includes(join('formats', 'otel')))];
    assert.ok(others.length > 20);
    for (const path of others) {
      assert.equal(detect(otelConsoleFormat, path), null, path);
      assert.equal(detect(otelOtlpFormat, path), null, path);
    }
  });

  it('recognises a first record too long to sample from the opening bytes', () => {
    const consoleHead = '{\n    "name": "chat gpt-test",\n    "context": {\n        "trace_id": "0xaa11bb22cc33dd44ee55ff6600778899",\n        "span_id": "0x1';
    assert.match(otelConsoleFormat.detect({ path: 'big.jsonl', values: [], framedValues: [], head: consoleHead }) ?? '', /too long to sample whole/);
    const otlpHead = '{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"x"}}]},"scopeSpans":[{"spans":[{"traceId":"';
    assert.match(otelOtlpFormat.detect({ path: 'big.jsonl', values: [], framedValues: [], head: otlpHead }) ?? '', /too long to sample whole/);
    assert.equal(otelOtlpFormat.detect({ path: 'x.jsonl', values: [], framedValues: [], head: '{"resourceMetrics":[' }), null);
  });

  it('reads a pretty-printed OTLP export with the console adapter, which frames JSON values', () => {
    const document = {
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: TRACE, spanId: '01', name: 'chat x', startTimeUnixNano: '1', endTimeUnixNano: '2' }] }] }],
    };
    assert.match(
      otelConsoleFormat.detect({ path: 'otlp.json', values: [], framedValues: [document], head: '' }) ?? '',
      /^pretty-printed OpenTelemetry OTLP JSON/,
    );
    // One export per line is the OTLP adapter's.
    assert.equal(otelConsoleFormat.detect({ path: 'otlp.jsonl', values: [document], framedValues: [document], head: '' }), null);
  });
});

describe('otel: span mapping', () => {
  it('orders a trace by time whatever order its spans were exported in, and credits tool spans to the model call before them', () => {
    const A = 'a000000000000001';
    const { events, failures } = mapRecords(otelConsoleFormat, [
      tool('7000000000000001', A, 'call_1', 2.1, 2.4),
      chat('c000000000000002', A, 2.5, 3.0, 'stop'),
      chat('c000000000000001', A, 1.0, 2.0, 'tool_calls'),
      agent(A, 0.5, 3.1),
    ]);
    assert.deepEqual(failures, []);
    assert.deepEqual(outline(events), [
      '4 run_start',
      '3 model_request 1',
      '3 model_response 1',
      '1 tool_call_start 1 call_1',
      '1 tool_result 1 call_1',
      '2 model_request 2',
      '2 model_response 2',
      '4 run_end',
    ]);
    assert.ok(
      events.every(({ event }) => event.run_id === TRACE),
      'the root agent’s run is the trace',
    );
    // Output messages were not captured: the response's call is the execute_tool span's, and says so.
    assert.deepEqual(eventOf(events, 'model_response')['tool_calls'], [{ call_id: 'call_1', name: 'lookup' }]);
    assert.equal(eventOf(events, 'model_response')['tool_calls_from'], 'execute_tool spans');
    assert.equal(eventOf(events, 'run_end')['status'], 'UNSET');
    assert.equal(eventOf(events, 'model_request')['ts'], '2025-06-01T10:00:01.000Z');
  });

  it('keeps one copy of a span exported twice or first open: start events on the first record, end events on the closed one', () => {
    const A = 'a000000000000001';
    const C = 'c000000000000001';
    const { events } = mapRecords(otelConsoleFormat, [
      agent(A, 0.5, undefined),
      chat(C, A, 1, undefined),
      chat(C, A, 1, 2, 'stop'),
      chat(C, A, 1, 2, 'stop'),
      agent(A, 0.5, 3),
    ]);
    assert.deepEqual(outline(events), ['1 run_start', '2 model_request 1', '3 model_response 1', '5 run_end']);
  });

  it('flushes a trace a few records after its root ended: later copies are ignored, a span closed later still gets its end event', () => {
    const A = 'a000000000000001';
    const other = 'ffffffffffffffffffffffffffffffff';
    const filler = Array.from({ length: 8 }, (_, index) =>
      consoleSpan({ name: 'http.get', id: `f00000000000000${index}`, trace: other, parent: 'e000000000000000', start: 5 + index, end: 5.5 + index }),
    );
    const { events } = mapRecords(otelConsoleFormat, [
      chat('c000000000000001', A, 1, 2, 'tool_calls'),
      tool('7000000000000001', A, 'call_1', 2.1, undefined),
      agent(A, 0.5, 4),
      ...filler,
      chat('c000000000000001', A, 1, 2, 'tool_calls'),
      tool('7000000000000001', A, 'call_1', 2.1, 3.5),
    ]);
    const mine = outline(events.filter(({ event }) => event.run_id === TRACE));
    assert.deepEqual(mine, ['3 run_start', '1 model_request 1', '1 model_response 1', '2 tool_call_start 1 call_1', '3 run_end', '13 tool_result 1 call_1']);
    // The trace was flushed before the filler trace, which has no root here and waits for the end
    // (where the trace's late tool_result comes first: traces are flushed in the order they appeared).
    assert.equal(
      events.findIndex(({ event }) => event.run_id === other),
      mine.length,
    );
  });

  it('puts spans beside an agent span (same parent, inside its time range) in its run, and nested agents in their own runs', () => {
    const root = 'r000000000000001';
    const executor = 'e000000000000001';
    const A = 'a000000000000001';
    const T = '7000000000000001';
    const sub = 'a000000000000002';
    const { events } = mapRecords(otelConsoleFormat, [
      consoleSpan({ name: 'workflow.run', id: root, start: 0, end: 10 }),
      consoleSpan({ name: 'executor.process Helper', id: executor, parent: root, start: 0.1, end: 9 }),
      agent(A, 0.2, 8, { parent: executor }),
      chat('c000000000000001', executor, 0.3, 1, 'tool_calls'),
      tool(T, executor, 'call_1', 1.1, 5),
      agent(sub, 1.2, 4.5, { parent: T, name: 'invoke_agent Sub' }),
      chat('c000000000000002', sub, 1.3, 4, 'stop'),
      consoleSpan({ name: 'message.send', id: 'm000000000000001', parent: executor, start: 8.5, end: 8.6 }),
    ]);
    const runOf = (type: string, line: number): unknown => events.find(({ event, line: ref }) => event.type === type && ref.lineNumber === line)?.event.run_id;
    assert.equal(runOf('run_start', 1), TRACE);
    assert.equal(runOf('unknown', 2), TRACE);
    assert.equal(runOf('model_response', 4), `${TRACE}/${A}`);
    assert.equal(runOf('tool_result', 5), `${TRACE}/${A}`);
    assert.equal(runOf('model_response', 7), `${TRACE}/${sub}`);
    assert.equal(runOf('unknown', 8), TRACE, 'after the agent span ended: the trace’s');
    assert.equal(eventOf(events, 'model_response')['step'], 1);
  });

  it('maps errors: a failed tool span is an error result, a failed model call an incomplete response, a failed agent a failed run', () => {
    const A = 'a000000000000001';
    const { events } = mapRecords(otelConsoleFormat, [
      chat('c000000000000001', A, 1, 2, 'tool_calls'),
      tool('7000000000000001', A, 'call_1', 2.1, 2.5, {
        status: 'ERROR',
        description: 'lookup timed out',
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': 'call_1', 'error.type': 'TimeoutError' },
      }),
      consoleSpan({
        name: 'chat gpt-test',
        id: 'c000000000000002',
        parent: A,
        start: 3,
        end: 3.5,
        status: 'ERROR',
        attributes: { 'gen_ai.operation.name': 'chat', 'error.type': 'RateLimitError' },
      }),
      agent(A, 0.5, 4, { status: 'ERROR', description: 'gave up' }),
    ]);
    const result = eventOf(events, 'tool_result');
    assert.equal(result['status'], 'error');
    assert.deepEqual(result['error'], { code: 'TimeoutError', message: 'lookup timed out' });
    const failed = events.filter(({ event }) => event.type === 'model_response')[1]?.event as Record<string, unknown>;
    assert.equal(failed['outcome'], 'incomplete');
    assert.equal(failed['incomplete_reason'], 'error: RateLimitError');
    assert.equal(eventOf(events, 'run_end')['status'], 'ERROR');
    assert.equal(eventOf(events, 'run_end')['reason'], 'gave up');
  });

  it('reads captured content: input and output messages, tool calls by id, arguments and results', () => {
    const A = 'a000000000000001';
    const output = [
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Checking.' },
          { type: 'tool_call', id: 'call_9', name: 'lookup', arguments: { id: 7 } },
        ],
        finish_reason: 'tool_call',
      },
    ];
    const { events } = mapRecords(otelConsoleFormat, [
      chat('c000000000000001', A, 1, 2, 'tool_calls', {
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Find 7' }] }]),
        'gen_ai.output.messages': JSON.stringify(output),
        'gen_ai.request.temperature': 0.1,
        'gen_ai.usage.input_tokens': 50,
        'gen_ai.usage.output_tokens': 9,
      }),
      // A tool span without a call id answers the first unclaimed call of its name.
      consoleSpan({
        name: 'execute_tool lookup',
        id: '7000000000000001',
        parent: A,
        start: 2.1,
        end: 2.2,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'lookup',
          'gen_ai.tool.call.arguments': '{"id": 7}',
          'gen_ai.tool.call.result': 'found',
        },
      }),
      agent(A, 0.5, 3),
    ]);
    const request = eventOf(events, 'model_request');
    assert.deepEqual(request['messages'], [{ role: 'user', parts: [{ type: 'text', content: 'Find 7' }] }]);
    assert.deepEqual(request['params'], { temperature: 0.1 });
    const response = eventOf(events, 'model_response');
    assert.equal(response['text'], 'Checking.');
    assert.equal(response['finish_reason'], 'tool_calls');
    assert.deepEqual(response['tool_calls'], [{ call_id: 'call_9', name: 'lookup', arguments: { id: 7 } }]);
    assert.deepEqual(response['usage'], { input_tokens: 50, output_tokens: 9 });
    assert.equal(response['tool_calls_from'], undefined);
    assert.equal(eventOf(events, 'tool_call_start')['arguments'], '{"id": 7}');
    assert.equal(eventOf(events, 'tool_result')['call_id'], 'call_9');
    assert.equal(eventOf(events, 'tool_result')['output'], 'found');
  });

  it('decodes OTLP attributes (int64 as text, arrays, key-value lists), nanosecond times and numeric status codes', () => {
    const attribute = (key: string, value: unknown): unknown => ({ key, value });
    const exportLine = {
      resourceSpans: [
        {
          resource: { attributes: [attribute('service.name', { stringValue: 'svc' })] },
          scopeSpans: [
            {
              scope: { name: 'x' },
              spans: [
                {
                  traceId: TRACE,
                  spanId: 'c000000000000001',
                  parentSpanId: '',
                  name: 'chat m',
                  kind: 3,
                  startTimeUnixNano: '1748772000123456789',
                  endTimeUnixNano: '1748772001000000000',
                  attributes: [
                    attribute('gen_ai.operation.name', { stringValue: 'chat' }),
                    attribute('gen_ai.usage.input_tokens', { intValue: '412' }),
                    attribute('gen_ai.usage.output_tokens', { intValue: 38 }),
                    attribute('gen_ai.response.finish_reasons', { arrayValue: { values: [{ stringValue: 'length' }] } }),
                    attribute('gen_ai.request.stop', { kvlistValue: { values: [attribute('a', { boolValue: true })] } }),
                  ],
                  status: { code: 2, message: 'cut' },
                },
              ],
            },
          ],
        },
      ],
    };
    const { events, failures } = mapRecords(otelOtlpFormat, [exportLine, { status: 'ok' }]);
    assert.deepEqual(failures, [[2, 'not an OTLP JSON export: the record has no resourceSpans (nor resourceLogs / resourceMetrics) array']]);
    const request = eventOf(events, 'model_request');
    assert.equal(request['ts'], '2025-06-01T10:00:00.123Z');
    assert.deepEqual(request['params'], { stop: { a: true } });
    const response = eventOf(events, 'model_response');
    assert.deepEqual(response['usage'], { input_tokens: 412, output_tokens: 38 });
    assert.equal(response['finish_reason'], 'length');
    assert.equal(response['outcome'], 'incomplete');
    assert.equal(response['latency_ms'], 876.544);
    // A root chat span with no agent: the trace is the run, and the span bounds it.
    assert.deepEqual(outline(events), ['1 run_start', '1 model_request 1', '1 model_response 1', '1 run_end']);
    assert.equal(eventOf(events, 'run_end')['status'], 'ERROR');
  });

  it('rejects a value that is not a span, with the reason', () => {
    const { failures } = mapRecords(otelConsoleFormat, [{ name: 'x' }, [1, 2]]);
    assert.deepEqual(
      failures.map(([line]) => line),
      [1, 2],
    );
    assert.match(failures[0]![1], /^not an OpenTelemetry console span/);
  });

  it('bounds memory: beyond the buffer limit the least recently touched traces are flushed before the end', () => {
    const mapper = otelConsoleFormat.createMapper({ path: 'unit' });
    let emitted = 0;
    const emit = (): void => {
      emitted += 1;
    };
    for (let index = 0; index < 20_100; index += 1) {
      const trace = (index + 1).toString(16).padStart(32, '0');
      mapper.map(
        consoleSpan({ name: 'work', id: 'b000000000000001', parent: 'c000000000000001', trace, start: 1 }),
        { lineNumber: index + 1, offset: 0, length: 1 },
        emit,
        Buffer.alloc(0),
      );
    }
    assert.ok(emitted >= 100, `${emitted} events emitted before the end`);
    mapper.finish(emit);
    assert.equal(emitted, 20_100);
  });
});

describe('otel: through the engine', () => {
  it('console exporter, Microsoft Agent Framework shape: agents beside their chat and tool spans, duplicates, an unclosed workflow', async () => {
    const { report } = await analyzeFile(fixture('console-workflow.jsonl'));
    assert.equal(report.files[0]?.format, 'otel-console');
    assert.deepEqual(report.files[0]?.parse_errors, []);
    const t1 = '7a3e0c51d2b94f6a8e1c0b5d4f3a2e19';
    const t2 = 'c04d9e2f1a7b4c3d9e8f7a6b5c4d3e21';
    assert.deepEqual(runsOf(report), [
      // The workflow trace: its root span closed with status UNSET.
      { run_id: t1, status: UNSET_STATUS, status_raw: 'UNSET', steps: 0, tool_calls: 0, tool_results: 0 },
      // Parallel calls, known only from their execute_tool spans (content capture off).
      { run_id: `${t1}/1000000000000003`, status: UNSET_STATUS, status_raw: 'UNSET', steps: 2, tool_calls: 2, tool_results: 2 },
      // This workflow span was never exported closed.
      { run_id: t2, status: 'unterminated', status_raw: '', steps: 0, tool_calls: 0, tool_results: 0 },
      { run_id: `${t2}/2000000000000003`, status: 'succeeded', status_raw: 'OK', steps: 3, tool_calls: 1, tool_results: 1 },
    ]);
    // Usage counted once per chat span, not again from the agent span's totals.
    assert.equal(report.runs[1]?.input_tokens, 412 + 530);
    assert.equal(report.runs[1]?.output_tokens, 38 + 61);
    assert.deepEqual(findingsOf(report), [
      // A tool_calls response no execute_tool span followed.
      ['dropped_tool_call', `${t2}/2000000000000003`, 1, null],
      ['tool_error', `${t2}/2000000000000003`, 2, 'call_Look33'],
    ]);
    assert.ok(unterminatedFindingRuns(report).every((run) => run === t2));
    // Spans exported twice or open then closed are loaded once: 15 events for trace 1, 11 for trace 2.
    assert.equal(report.files[0]?.events, 26);
    assert.equal(report.findings.find((finding) => finding.kind === 'tool_error')?.line, 724);
  });

  it('console exporter, semantic-conventions nesting with content: a sub-agent run, an error result, a call never executed', async () => {
    const { report } = await analyzeFile(fixture('console-nested-content.jsonl'));
    assert.equal(report.files[0]?.format, 'otel-console');
    assert.deepEqual(report.files[0]?.parse_errors, []);
    const t3 = '9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b';
    assert.deepEqual(runsOf(report), [
      { run_id: t3, status: 'failed', status_raw: 'ERROR', steps: 2, tool_calls: 3, tool_results: 2 },
      { run_id: `${t3}/3000000000000004`, status: UNSET_STATUS, status_raw: 'UNSET', steps: 1, tool_calls: 0, tool_results: 0 },
    ]);
    assert.equal(report.runs[0]?.input_tokens, 620 + 790);
    assert.deepEqual(findingsOf(report), [
      ['tool_error', t3, 1, 'call_Fetch02'],
      ['dangling_call', t3, 2, 'call_Fetch03'],
    ]);
    assert.deepEqual(unterminatedFindingRuns(report), []);
  });

  it('OTLP JSON lines: attributes decoded, a call matched by tool name, a log export kept, a line that is not OTLP reported', async () => {
    const { report } = await analyzeFile(fixture('otlp-collector.jsonl'));
    assert.equal(report.files[0]?.format, 'otel-otlp');
    assert.deepEqual(
      report.files[0]?.parse_errors.map((error) => [error.line, error.message]),
      [[4, 'not an OTLP JSON export: the record has no resourceSpans (nor resourceLogs / resourceMetrics) array']],
    );
    assert.deepEqual(runsOf(report), [
      { run_id: '4bf92f3577b34da6a3ce929d0e0e4736', status: 'succeeded', status_raw: 'OK', steps: 2, tool_calls: 2, tool_results: 2 },
      // An HTTP server span around a rate-limited model call.
      { run_id: '0af7651916cd43dd8448eb211c80319c', status: 'failed', status_raw: 'ERROR', steps: 1, tool_calls: 0, tool_results: 0 },
    ]);
    assert.equal(report.runs[0]?.input_tokens, 1200 + 1500);
    assert.equal(report.runs[0]?.started_at, '2025-11-04T09:53:20.500Z');
    // The rate-limited model call failed at the provider: an api_error, once (docs/semantics.md §7).
    assert.deepEqual(findingsOf(report), [['api_error', '0af7651916cd43dd8448eb211c80319c', 1, null]]);
    assert.equal(report.findings[0]?.severity, 'error');
    assert.match(report.findings[0]?.message ?? '', /failed at the provider with RateLimitError: 429 Too Many Requests; no model call went through after it/);
    assert.equal(report.files[0]?.events, 15);
  });
});

describe('otel: latency', () => {
  it("a call's and a response's latency are their spans' end minus start", async () => {
    const path = join(fixtures, 'otel', 'otlp-collector.jsonl');
    assert.deepEqual(await callLatencies(path, 'otel-otlp'), [
      ['toolu_Wx01', 300],
      ['toolu_Fl02', 800],
    ]);
    assert.deepEqual(await modelLatencies(path, 'otel-otlp'), [1500, 1500, 600]);
  });
});

describe('otel: attribute families that came before the GenAI conventions', () => {
  const A = 'a000000000000001';

  it('OpenInference: LLM spans are model calls (flattened messages, tool calls, token counts, model, parameters), TOOL spans tool calls, AGENT spans runs', () => {
    const { events } = mapRecords(otelConsoleFormat, [
      consoleSpan({
        name: 'ChatCompletion',
        id: 'c000000000000001',
        parent: A,
        start: 1,
        end: 2,
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.provider': 'openai',
          'llm.model_name': 'gpt-4o-mini',
          'llm.invocation_parameters': '{"temperature": 0.3, "model": "gpt-4o-mini"}',
          'llm.input_messages.0.message.role': 'user',
          'llm.input_messages.0.message.content': 'Find 7',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': 'Looking it up.',
          'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_7',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'lookup',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"id": 7}',
          'llm.tools.0.tool.json_schema': '{"type": "function", "function": {"name": "lookup"}}',
          'llm.token_count.prompt': 120,
          'llm.token_count.completion': 14,
          'llm.token_count.prompt_details.cache_read': 64,
        },
      }),
      consoleSpan({
        name: 'lookup',
        id: '7000000000000001',
        parent: A,
        start: 2.1,
        end: 2.2,
        attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'lookup', 'input.value': '{"id": 7}', 'output.value': 'found' },
      }),
      consoleSpan({ name: 'postprocess', id: '8000000000000001', parent: A, start: 2.3, end: 2.4, attributes: { 'openinference.span.kind': 'CHAIN' } }),
      consoleSpan({ name: 'Agent.run', id: A, start: 0.5, end: 3, status: 'OK', attributes: { 'openinference.span.kind': 'AGENT', 'agent.name': 'Finder' } }),
    ]);
    assert.deepEqual(outline(events), [
      '4 run_start',
      '1 model_request 1',
      '1 model_response 1',
      '2 tool_call_start 1 call_7',
      '2 tool_result 1 call_7',
      '3 unknown',
      '4 run_end',
    ]);
    assert.deepEqual(eventOf(events, 'run_start')['config'], { span: 'Agent.run', agent: { name: 'Finder' }, service: 'unit' });
    const request = eventOf(events, 'model_request');
    assert.deepEqual(request['messages'], [{ role: 'user', content: 'Find 7' }]);
    assert.deepEqual(request['params'], { temperature: 0.3 });
    assert.deepEqual(request['tools'], [{ type: 'function', function: { name: 'lookup' } }]);
    assert.equal(request['provider'], 'openai');
    const response = eventOf(events, 'model_response');
    assert.equal(response['model'], 'gpt-4o-mini');
    assert.equal(response['text'], 'Looking it up.');
    assert.deepEqual(response['tool_calls'], [{ call_id: 'call_7', name: 'lookup', arguments: '{"id": 7}' }]);
    assert.deepEqual(response['usage'], { input_tokens: 120, output_tokens: 14, cached_input_tokens: 64 });
    assert.equal(eventOf(events, 'tool_call_start')['arguments'], '{"id": 7}');
    assert.equal(eventOf(events, 'tool_result')['output'], 'found');
  });

  it('OpenLLMetry: llm.request.type spans are model calls read from gen_ai.prompt.N / gen_ai.completion.N (older llm.prompts / llm.completions), traceloop tool and agent spans', () => {
    const { events } = mapRecords(otelConsoleFormat, [
      consoleSpan({
        name: 'openai.chat',
        id: 'c000000000000001',
        parent: A,
        start: 1,
        end: 2,
        attributes: {
          'llm.request.type': 'chat',
          'gen_ai.system': 'OpenAI',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.response.model': 'gpt-4o-2024-08-06',
          'gen_ai.prompt.0.role': 'user',
          'gen_ai.prompt.0.content': 'Find 7',
          'gen_ai.completion.0.role': 'assistant',
          'gen_ai.completion.0.finish_reason': 'tool_calls',
          'gen_ai.completion.0.tool_calls.0.id': 'call_7',
          'gen_ai.completion.0.tool_calls.0.name': 'lookup',
          'gen_ai.completion.0.tool_calls.0.arguments': '{"id": 7}',
          'gen_ai.usage.prompt_tokens': 90,
          'gen_ai.usage.completion_tokens': 11,
        },
      }),
      // No call id on a traceloop tool span: it answers the first unclaimed call of its name.
      consoleSpan({
        name: 'lookup.tool',
        id: '7000000000000001',
        parent: A,
        start: 2.1,
        end: 2.2,
        attributes: {
          'traceloop.span.kind': 'tool',
          'traceloop.entity.name': 'lookup',
          'traceloop.entity.input': '{"args": [7]}',
          'traceloop.entity.output': '"found"',
        },
      }),
      consoleSpan({
        name: 'finder.task',
        id: '8000000000000001',
        parent: A,
        start: 2.3,
        end: 2.4,
        attributes: { 'traceloop.span.kind': 'task', 'traceloop.entity.name': 'finder' },
      }),
      consoleSpan({
        name: 'finder.agent',
        id: A,
        start: 0.5,
        end: 3,
        status: 'OK',
        attributes: { 'traceloop.span.kind': 'agent', 'traceloop.entity.name': 'finder' },
      }),
      consoleSpan({
        name: 'anthropic.completion',
        id: 'c000000000000002',
        trace: 'bb11bb22cc33dd44ee55ff6600778899',
        start: 5,
        end: 6,
        attributes: {
          'llm.request.type': 'completion',
          'llm.vendor': 'Anthropic',
          'llm.request.model': 'claude-2.1',
          'llm.prompts.0.user': 'Human: hi',
          'llm.completions.0.content': 'Hello.',
          'llm.completions.0.finish_reason': 'stop_sequence',
          'llm.usage.prompt_tokens': 8,
          'llm.usage.completion_tokens': 3,
        },
      }),
    ]);
    const responses = events.filter((mapped) => mapped.event.type === 'model_response').map((mapped) => mapped.event as Record<string, unknown>);
    assert.deepEqual(
      responses.map((response) => [response['run_id'], response['step'], response['model'], response['finish_reason'], response['text'], response['usage']]),
      [
        [TRACE, 1, 'gpt-4o-2024-08-06', 'tool_calls', null, { input_tokens: 90, output_tokens: 11 }],
        // No response model recorded: the response names the model the request asked for.
        ['bb11bb22cc33dd44ee55ff6600778899', 1, 'claude-2.1', 'stop_sequence', 'Hello.', { input_tokens: 8, output_tokens: 3 }],
      ],
    );
    assert.deepEqual(responses[0]?.['tool_calls'], [{ call_id: 'call_7', name: 'lookup', arguments: '{"id": 7}' }]);
    assert.deepEqual(eventOf(events, 'model_request')['messages'], [{ role: 'user', content: 'Find 7' }]);
    const requests = events.filter((mapped) => mapped.event.type === 'model_request').map((mapped) => mapped.event as Record<string, unknown>);
    assert.deepEqual(
      requests.map((request) => [request['model'], request['provider']]),
      [
        ['gpt-4o', 'OpenAI'],
        ['claude-2.1', 'Anthropic'],
      ],
    );
    assert.deepEqual((eventOf(events, 'run_start')['config'] as Record<string, unknown>)['agent'], { name: 'finder' });
    const result = eventOf(events, 'tool_result');
    assert.deepEqual([result['call_id'], result['name'], result['output']], ['call_7', 'lookup', '"found"']);
    assert.equal(eventOf(events, 'tool_call_start')['arguments'], '{"args": [7]}');
    assert.equal(eventOf(events, 'unknown')['type_raw'], 'finder.task');
  });

  it('promptflow: an LLM span is a model call whose inputs hold the messages and whose output is the OpenAI response; its generated message when the output was streamed', () => {
    const response = {
      id: 'chatcmpl-1',
      choices: [{ index: 0, finish_reason: 'length', message: { role: 'assistant', content: 'We open at', tool_calls: null } }],
    };
    const llm = (id: string, start: number, output: unknown, generated: string): Record<string, unknown> =>
      consoleSpan({
        name: 'openai_chat',
        id,
        parent: A,
        start,
        end: start + 1,
        status: 'OK',
        attributes: {
          framework: 'promptflow',
          span_type: 'LLM',
          inputs: JSON.stringify({ messages: [{ role: 'user', content: 'Hours?' }], model: 'gpt-35-turbo' }),
          output: JSON.stringify(output),
          'llm.generated_message': JSON.stringify({ role: 'assistant', content: generated, tool_calls: null }),
          'llm.response.model': 'gpt-35-turbo',
          'llm.usage.prompt_tokens': 30,
          'llm.usage.completion_tokens': 4,
        },
      });
    const { events } = mapRecords(otelConsoleFormat, [
      llm('c000000000000001', 1, response, 'We open at'),
      llm('c000000000000002', 3, '<generator object at 0x1>', 'Nine.'),
      consoleSpan({
        name: 'embed',
        id: 'e000000000000001',
        parent: A,
        start: 5,
        end: 5.5,
        attributes: { framework: 'promptflow', span_type: 'Embedding', 'llm.usage.prompt_tokens': 3 },
      }),
      consoleSpan({ name: 'answer', id: A, start: 0.5, end: 6, attributes: { framework: 'promptflow', span_type: 'Function', function: 'answer' } }),
    ]);
    assert.deepEqual(outline(events), [
      '4 run_start',
      '1 model_request 1',
      '1 model_response 1',
      '2 model_request 2',
      '2 model_response 2',
      '3 unknown',
      '4 run_end',
    ]);
    const responses = events.filter((mapped) => mapped.event.type === 'model_response').map((mapped) => mapped.event as Record<string, unknown>);
    assert.deepEqual(
      responses.map((event) => [event['model'], event['finish_reason'], event['text'], event['response_id'], event['usage']]),
      [
        ['gpt-35-turbo', 'length', 'We open at', 'chatcmpl-1', { input_tokens: 30, output_tokens: 4 }],
        ['gpt-35-turbo', undefined, 'Nine.', undefined, { input_tokens: 30, output_tokens: 4 }],
      ],
    );
    assert.deepEqual(eventOf(events, 'model_request')['messages'], [{ role: 'user', content: 'Hours?' }]);
  });

  it('a gen_ai.* attribute the span has wins over its older name; spans of no family, and hostile keys, are left as they were', () => {
    const { events } = mapRecords(otelConsoleFormat, [
      chat('c000000000000001', A, 1, 2, 'stop', {
        'gen_ai.usage.input_tokens': 5,
        'llm.token_count.prompt': 9,
        'openinference.span.kind': 'LLM',
        'llm.input_messages.0.__proto__.polluted': 'yes',
      }),
      consoleSpan({
        name: 'retrieve',
        id: '8000000000000001',
        parent: A,
        start: 2.1,
        end: 2.2,
        attributes: { 'openinference.span.kind': 'RETRIEVER', 'llm.token_count.prompt': 3 },
      }),
      agent(A, 0.5, 3),
    ]);
    assert.deepEqual(eventOf(events, 'model_response')['usage'], { input_tokens: 5 });
    assert.equal(eventOf(events, 'model_request')['messages'], undefined);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.deepEqual(outline(events), ['3 run_start', '1 model_request 1', '1 model_response 1', '2 unknown', '3 run_end']);
  });

  it('through the engine: an OpenInference OTLP export, an OpenLLMetry console trace and a promptflow console trace become steps, calls and results', async () => {
    const stored = async (name: string, format: string) =>
      ingestEvents<{
        type: string;
        step: number | null;
        call_id: string | null;
        name: string | null;
        finish_reason: string | null;
        input_tokens: number | null;
        output_tokens: number | null;
      }>(
        fixture(name),
        format,
        "SELECT type, step, call_id, name, finish_reason, input_tokens, output_tokens FROM events WHERE type IN ('model_response', 'tool_result') ORDER BY id",
      );
    const openInference = await stored('otlp-openinference.jsonl', 'otel-otlp');
    assert.deepEqual(runsOf(openInference.report), [
      { run_id: '5d0c3b2a19f8e7d6c5b4a39281706f5e', status: 'succeeded', status_raw: 'OK', steps: 2, tool_calls: 2, tool_results: 2 },
    ]);
    assert.deepEqual(
      openInference.report.findings.map((finding) => [finding.kind, finding.step, finding.call_id]),
      [['tool_error', 1, 'call_bergen']],
    );
    assert.deepEqual(
      openInference.events.map((event) => [event.type, event.step, event.call_id, event.input_tokens, event.output_tokens]),
      [
        ['model_response', 1, null, 320, 24],
        ['tool_result', 1, 'call_oslo', null, null],
        ['tool_result', 1, 'call_bergen', null, null],
        ['model_response', 2, null, 410, 30],
      ],
    );

    const openLlmetry = await stored('console-openllmetry.jsonl', 'otel-console');
    const B = '6e1f2a3b4c5d6e7f8091a2b3c4d5e6f7';
    assert.deepEqual(runsOf(openLlmetry.report), [
      { run_id: `${B}/b200000000000002`, status: UNSET_STATUS, status_raw: 'UNSET', steps: 2, tool_calls: 1, tool_results: 1 },
      { run_id: B, status: UNSET_STATUS, status_raw: 'UNSET', steps: 0, tool_calls: 0, tool_results: 0 },
      { run_id: '7f2a3b4c5d6e7f8091a2b3c4d5e6f708', status: 'succeeded', status_raw: 'OK', steps: 1, tool_calls: 0, tool_results: 0 },
    ]);
    assert.deepEqual(findingsOf(openLlmetry.report), []);
    assert.deepEqual(
      openLlmetry.events.map((event) => [event.type, event.step, event.call_id, event.name, event.finish_reason, event.input_tokens]),
      [
        ['model_response', 1, null, null, 'tool_calls', 210],
        ['tool_result', 1, 'call_LIS1', 'search_flights', null, null],
        ['model_response', 2, null, null, 'stop', 260],
        ['model_response', 1, null, null, 'stop_sequence', 55],
      ],
    );

    const promptflow = await stored('console-promptflow.json', 'otel-console');
    assert.deepEqual(runsOf(promptflow.report), [
      { run_id: '8a3b4c5d6e7f8091a2b3c4d5e6f70819', status: UNSET_STATUS, status_raw: 'UNSET', steps: 2, tool_calls: 0, tool_results: 0 },
      // An embedding call reports tokens but is no model step.
      { run_id: '9b4c5d6e7f8091a2b3c4d5e6f708192a', status: 'succeeded', status_raw: 'OK', steps: 0, tool_calls: 0, tool_results: 0 },
    ]);
    assert.deepEqual(
      promptflow.events.map((event) => [event.type, event.step, event.finish_reason, event.input_tokens, event.output_tokens]),
      [
        ['model_response', 1, 'stop', 42, 9],
        ['model_response', 2, null, 58, 6],
      ],
    );
  });
});
