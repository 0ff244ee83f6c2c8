/**
 * The JSON report written a piece at a time (report/reportJson.ts) is the very text of the whole
 * report validated and stringified at once, on varied reports: empty and long lists, optional
 * fields present or not, strings with newlines, quotes and non-ASCII text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { writeReportJson } from '../../../src-main/engine/report/reportJson';
import { analyzeReportSchema, findingKindSchema, severitySchema, type AnalyzeReport, type RequestReport, type RunReport } from '../../../shared/report';
import { runStatusSchema } from '../../../shared/trace/runStatus';

const text = fc.oneof(fc.string(), fc.constantFrom('', 'line one\nline two', 'a "quoted" \\ path', 'café ✓ 🙂', '  indented\n  twice'));
const integer = fc.integer({ min: -1e9, max: 1e12 });
const number = fc.oneof(integer, fc.double({ noNaN: true, noDefaultInfinity: true }));
const names = fc.array(text, { maxLength: 3 });

const request: fc.Arbitrary<RequestReport> = fc.record({
  index: integer,
  line: integer,
  step: fc.option(integer),
  reconstructed: fc.boolean(),
  messages: integer,
  appended_messages: integer,
  rewrite: fc.option(
    fc.record({ message_index: integer, message_number: integer, kind: fc.constantFrom('edited', 'dropped', 'reordered', 'compacted', 'inserted') }),
  ),
  prefix_change: fc.option(fc.record({ system: fc.boolean(), tools_added: names, tools_removed: names, tools_changed: names, tools_reordered: fc.boolean() })),
  compaction: fc.option(
    fc.record({
      evidence: fc.constantFrom('marker', 'diff', 'token_drop'),
      marker: fc.option(fc.record({ type: text, line: integer })),
      tokens_before: fc.option(number),
      tokens_after: fc.option(number),
      tokens_removed: fc.option(number),
      messages_removed: fc.option(integer),
    }),
  ),
  input_tokens: fc.option(number),
  input_tokens_source: fc.option(fc.constantFrom('recorded', 'estimated')),
  cached_input_tokens: fc.option(number),
  output_tokens: fc.option(number),
});

const run: fc.Arbitrary<RunReport> = fc.record(
  {
    run_id: text,
    file: text,
    status: fc.constantFrom(...runStatusSchema.options),
    status_raw: text,
    steps: integer,
    tool_calls: integer,
    tool_results: integer,
    input_tokens: fc.option(number),
    output_tokens: fc.option(number),
    started_at: fc.option(text),
    ended_at: fc.option(text),
    duration_ms: fc.option(number),
    first_line: integer,
    last_line: integer,
    findings: fc.record({ error: integer, warning: integer, info: integer }),
    parent: fc.record({ run_id: text, call_id: fc.option(text), file: text }),
    requests: fc.array(request, { maxLength: 4 }),
  },
  {
    requiredKeys: [
      'run_id',
      'file',
      'status',
      'status_raw',
      'steps',
      'tool_calls',
      'tool_results',
      'input_tokens',
      'output_tokens',
      'started_at',
      'ended_at',
      'duration_ms',
      'first_line',
      'last_line',
      'findings',
      'requests',
    ],
  },
);

const report: fc.Arbitrary<AnalyzeReport> = fc.record({
  files: fc.array(
    fc.record({
      path: text,
      format: text,
      format_reason: text,
      bytes: integer,
      lines: integer,
      events: integer,
      unknown_events: integer,
      parse_errors: fc.array(fc.record({ line: integer, offset: integer, length: integer, message: text, excerpt: text, loaded: fc.boolean() }), {
        maxLength: 2,
      }),
    }),
    { maxLength: 3 },
  ),
  runs: fc.array(run, { maxLength: 4 }),
  findings: fc.array(
    fc.record(
      {
        file: text,
        kind: fc.constantFrom(...findingKindSchema.options),
        severity: fc.constantFrom(...severitySchema.options),
        run_id: fc.option(text),
        step: fc.option(integer),
        call_id: fc.option(text),
        line: fc.option(integer),
        message: text,
        details: fc.dictionary(text, fc.jsonValue()),
      },
      { requiredKeys: ['file', 'kind', 'severity', 'run_id', 'step', 'call_id', 'line', 'message'] },
    ),
    { maxLength: 3 },
  ),
  skipped: fc.array(fc.record({ path: text, reason: text }), { maxLength: 2 }),
});

function written(whole: AnalyzeReport): string {
  const chunks: string[] = [];
  writeReportJson(
    {
      files: whole.files,
      runs: whole.runs.map(({ requests, ...fields }) => ({ report: fields, requests })),
      findings: whole.findings,
      skipped: whole.skipped,
    },
    (chunk) => chunks.push(chunk),
  );
  return chunks.join('');
}

describe('the JSON report written a piece at a time', () => {
  it('is the text of the whole report, validated and stringified at once', () => {
    fc.assert(
      fc.property(report, (whole) => {
        assert.equal(written(whole), `${JSON.stringify(analyzeReportSchema.parse(whole), null, 2)}\n`);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the order of a run's fields when the fields arrive in another order", () => {
    fc.assert(
      fc.property(run, (single) => {
        const shuffled = Object.fromEntries(Object.entries(single).reverse()) as RunReport;
        const whole: AnalyzeReport = { files: [], runs: [shuffled], findings: [], skipped: [] };
        assert.equal(written(whole), `${JSON.stringify(analyzeReportSchema.parse(whole), null, 2)}\n`);
      }),
      { numRuns: 100 },
    );
  });

  it('rejects a run that does not fit the report schema, as the whole report would', () => {
    const whole = { files: [], runs: [{ run_id: 'r', requests: [] }], findings: [], skipped: [] } as unknown as AnalyzeReport;
    assert.throws(() => analyzeReportSchema.parse(whole));
    assert.throws(() => written(whole));
  });
});
