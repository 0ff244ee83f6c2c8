/**
 * `exportOtlp` (src-main/otlp/otlpExport.ts): a trace exported as OpenTelemetry GenAI spans and read
 * back by Loopscope's own `otel-otlp` adapter is the trace it was — the same runs (status, steps,
 * sub-agents), the same calls (tool, call id, how each was answered) and the same findings (kind,
 * severity, tool) — for every bundled example and for generated traces; an export is the same bytes
 * every time; it reaches an OTLP/HTTP endpoint (Loopscope's receiver); and every attribute it writes
 * is one of the pinned semantic conventions' (shared/otel/genAiRegistry.ts) or Loopscope's own.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { examplesDir } from '../../devkit/repoPaths';
import { generateSyntheticTrace } from '../../devkit/traceGenerators/syntheticTrace';
import { openDatabase, readReportOutline, timedCalls } from '../../src-main/engine';
import { exportOtlp, OtlpExportError } from '../../src-main/otlp/otlpExport';
import { startOtlpReceiver } from '../../src-main/otlp/otlpReceiver';
import { registryAttributes, semconvSchemaUrl, type RegistryAttributeType } from '../../shared/otel/genAiRegistry';
import type { FindingKind } from '../../shared/report';
import { analyzeFile, defaultAnalysis, temporaryDir } from '../support/engineHarness';

/**
 * Findings spans cannot carry, each with the reason; every other kind must come back.
 * - `secret_in_trace`: credentials are redacted before they are exported, by design.
 * - `duplicate_run_end`: a span ends once; a second `run_end` has no span to end.
 * - `out_of_order_result`: an anomaly of the log's line order; spans have times, not lines, and the
 *   reader orders a call's events after the response that issued it.
 * - the requests' findings: a request's messages are exported in the conventions' `{role, parts}`
 *   shape, which Loopscope's request comparison (shared/requests/normalizedRequest.ts) does not read yet.
 */
const notCarriedBySpans: ReadonlySet<FindingKind> = new Set<FindingKind>([
  'secret_in_trace',
  'duplicate_run_end',
  'out_of_order_result',
  'history_rewrite',
  'history_compacted',
  'system_or_tools_changed',
  'missing_tool_result_in_history',
  'reconstruction_mismatch',
]);

/**
 * Without content, what is judged on arguments and outputs cannot be judged again either; and a call
 * of a response that did not issue it (docs/semantics.md §1.2), never started nor answered, is only in
 * the response's output messages: no span stands for it.
 */
const judgedOnContent: ReadonlySet<FindingKind> = new Set<FindingKind>(['repeated_action', 'invalid_arguments']);
const onlyInContent: ReadonlySet<string> = new Set(['not_issued']);

interface Projection {
  runs: { status: string; steps: number; toolCalls: number; toolResults: number; parentCall: string | null; calls: string[] }[];
  findings: string[];
}

/** What must survive the round trip: runs by position, their calls, the findings as a sorted multiset of kind, severity and tool. */
async function projection(
  file: string,
  cacheDir: string,
  ignored: ReadonlySet<FindingKind>,
  ignoredCalls: ReadonlySet<string> = new Set(),
): Promise<Projection> {
  const { report, trace } = await analyzeFile(file, { cacheDir });
  const outline = readReportOutline(trace, defaultAnalysis);
  const db = openDatabase(trace.dbPath, { readonly: true });
  try {
    const toolOf = new Map<string, string>();
    const runs = outline.runs.map(({ runPk, report: run }) => {
      const calls = timedCalls(db, runPk, Number.MAX_SAFE_INTEGER);
      for (const call of calls) toolOf.set(`${run.run_id}\u0000${call.call_id}`, call.name);
      return {
        status: run.status,
        steps: run.steps,
        toolCalls: run.tool_calls,
        toolResults: run.tool_results,
        parentCall: run.parent === undefined ? null : (run.parent.call_id ?? '(none)'),
        calls: calls.filter((call) => call.state === null || !ignoredCalls.has(call.state)).map((call) => `${call.name} ${call.call_id} ${call.state}`),
      };
    });
    const findings = report.findings
      .filter((finding) => !ignored.has(finding.kind))
      .map((finding) => {
        const tool = finding.call_id === null || finding.run_id === null ? '' : (toolOf.get(`${finding.run_id}\u0000${finding.call_id}`) ?? '');
        return `${finding.kind} ${finding.severity} ${tool}`;
      })
      .sort();
    return { runs, findings };
  } finally {
    db.close();
  }
}

const examples = readdirSync(examplesDir)
  .filter((name) => name.endsWith('.jsonl'))
  .sort()
  .map((name) => join(examplesDir, name));

describe('exporting to OpenTelemetry: the round trip through the otel-otlp adapter', () => {
  const dir = temporaryDir('otlp-export');
  const cacheDir = join(dir.path, 'cache');
  after(() => dir.remove());

  for (const content of [true, false]) {
    it(`gives back every example's runs, calls and findings (content ${content ? 'on' : 'off'})`, async () => {
      const ignored = content ? notCarriedBySpans : new Set([...notCarriedBySpans, ...judgedOnContent]);
      const ignoredCalls = content ? new Set<string>() : onlyInContent;
      let compared = 0;
      for (const example of examples) {
        const original = await projection(example, cacheDir, ignored, ignoredCalls);
        if (original.runs.length === 0) continue;
        const out = join(dir.path, `${content ? 'content' : 'bare'}-${example.split('/').at(-1)!}`);
        await exportOtlp({ inputs: [example], destination: out, content, cacheDir, log: () => {} });
        assert.deepEqual(await projection(out, cacheDir, ignored, ignoredCalls), original, example);
        compared += 1;
      }
      assert.ok(compared >= 40, `only ${compared} examples compared`);
    });
  }

  it('gives back the runs of generated traces', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 8_000, max: 60_000 }), async (seed, targetBytes) => {
        const trace = join(dir.path, `synthetic-${seed}-${targetBytes}.jsonl`);
        const out = join(dir.path, `synthetic-${seed}-${targetBytes}.otlp.jsonl`);
        generateSyntheticTrace({ seed, targetBytes, outPath: trace });
        await exportOtlp({ inputs: [trace], destination: out, content: true, cacheDir, log: () => {} });
        assert.deepEqual(await projection(out, cacheDir, notCarriedBySpans), await projection(trace, cacheDir, notCarriedBySpans));
      }),
      { numRuns: 6 },
    );
  });

  it('writes the same bytes every time', async () => {
    const first = join(dir.path, 'first.otlp.jsonl');
    const second = join(dir.path, 'second.otlp.jsonl');
    await exportOtlp({ inputs: [examplesDir], destination: first, content: true, cacheDir, log: () => {} });
    // A fresh cache: nothing of the first export's ingest (row ids, say) may show in the output.
    await exportOtlp({ inputs: [examplesDir], destination: second, content: true, cacheDir: join(dir.path, 'other-cache'), log: () => {} });
    assert.ok(readFileSync(first).equals(readFileSync(second)));
  });

  it('refuses a file it cannot write, naming it, and leaves nothing behind', async () => {
    const out = join(dir.path, 'missing', 'out.jsonl');
    await assert.rejects(
      exportOtlp({ inputs: [examples[0]!], destination: out, content: false, cacheDir, log: () => {} }),
      (error: unknown) => error instanceof OtlpExportError && error.message.startsWith(`${out}: cannot be written`),
    );
    assert.equal(existsSync(join(dir.path, 'missing')), false);
  });
});

describe('exporting to an OTLP/HTTP endpoint', () => {
  const dir = temporaryDir('otlp-export-http');
  const cacheDir = join(dir.path, 'cache');
  const example = join(examplesDir, 'dangling-call.jsonl');
  after(() => dir.remove());

  it('POSTs to /v1/traces of a URL without a path, and the received spans read back as the same runs', async () => {
    const receiver = await startOtlpReceiver({ file: join(dir.path, 'received.jsonl'), port: 0 });
    try {
      const totals = await exportOtlp({ inputs: [examplesDir], destination: receiver.endpoint, content: true, cacheDir, log: () => {} });
      assert.ok(totals.traces > 40 && totals.spans > totals.runs);
    } finally {
      await receiver.close();
    }
    const exported = join(dir.path, 'exported.jsonl');
    await exportOtlp({ inputs: [examplesDir], destination: exported, content: true, cacheDir, log: () => {} });
    assert.deepEqual(await projection(receiver.file, cacheDir, notCarriedBySpans), await projection(exported, cacheDir, notCarriedBySpans));
  });

  it('fails with the status and the answer when the endpoint refuses', async () => {
    const receiver = await startOtlpReceiver({ file: join(dir.path, 'refused.jsonl'), port: 0, token: 'secret-token' });
    try {
      await assert.rejects(
        exportOtlp({ inputs: [example], destination: `${receiver.endpoint}/v1/traces`, content: false, cacheDir, log: () => {} }),
        (error: unknown) => error instanceof OtlpExportError && /answered 401\b/.test(error.message) && error.message.includes(receiver.endpoint),
      );
    } finally {
      await receiver.close();
    }
  });

  it('fails naming the URL when nothing listens there', async () => {
    const receiver = await startOtlpReceiver({ file: join(dir.path, 'closed.jsonl'), port: 0 });
    await receiver.close();
    await assert.rejects(
      exportOtlp({ inputs: [example], destination: receiver.endpoint, content: false, cacheDir, log: () => {} }),
      (error: unknown) => error instanceof OtlpExportError && error.message.startsWith(`${receiver.endpoint}/v1/traces: cannot be reached`),
    );
  });
});

interface OtlpKeyValue {
  key: string;
  value: Record<string, unknown>;
}
interface OtlpSpanJson {
  name: string;
  attributes: OtlpKeyValue[];
  events: { name: string; attributes: OtlpKeyValue[] }[];
}
interface OtlpRequestJson {
  resourceSpans: { schemaUrl?: string; resource: { attributes: OtlpKeyValue[] }; scopeSpans: { schemaUrl?: string; spans: OtlpSpanJson[] }[] }[];
}

/** Whether an OTLP AnyValue is of the registry's type. */
function hasType(value: Record<string, unknown>, type: RegistryAttributeType): boolean {
  const values = (value['arrayValue'] as { values?: Record<string, unknown>[] } | undefined)?.values;
  switch (type) {
    case 'string':
      return typeof value['stringValue'] === 'string';
    case 'int':
      return typeof value['intValue'] === 'string';
    case 'double':
      return typeof value['doubleValue'] === 'number' || typeof value['intValue'] === 'string';
    case 'boolean':
      return typeof value['boolValue'] === 'boolean';
    case 'string[]':
      return values !== undefined && values.every((item) => typeof item['stringValue'] === 'string');
    case 'int[]':
    case 'double[]':
    case 'boolean[]':
      return values !== undefined;
    case 'any':
      return true;
  }
}

describe('exported spans follow the pinned semantic conventions', () => {
  const dir = temporaryDir('otlp-export-registry');
  const out = join(dir.path, 'examples.otlp.jsonl');
  let requests: OtlpRequestJson[];
  before(async () => {
    await exportOtlp({ inputs: [examplesDir], destination: out, content: true, cacheDir: join(dir.path, 'cache'), log: () => {} });
    requests = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as OtlpRequestJson);
  });
  after(() => dir.remove());

  it('writes only attributes of the registry, with its types, or in the loopscope namespace', () => {
    const keys = new Map<string, Record<string, unknown>>();
    for (const request of requests) {
      for (const resource of request.resourceSpans) {
        for (const { key, value } of resource.resource.attributes) keys.set(key, value);
        for (const scope of resource.scopeSpans) {
          for (const span of scope.spans) {
            for (const { key, value } of span.attributes) keys.set(key, value);
            for (const event of span.events) for (const { key, value } of event.attributes) keys.set(key, value);
          }
        }
      }
    }
    const foreign = [...keys.keys()].filter((key) => !key.startsWith('loopscope.') && registryAttributes[key] === undefined);
    assert.deepEqual(foreign, []);
    const mistyped = [...keys.entries()].filter(([key, value]) => registryAttributes[key] !== undefined && !hasType(value, registryAttributes[key]));
    assert.deepEqual(mistyped, []);
    // The attributes the exporter is there for are all written somewhere.
    for (const key of ['gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'gen_ai.usage.input_tokens', 'gen_ai.response.finish_reasons', 'error.type']) {
      assert.ok(keys.has(key), key);
    }
  });

  it('names each span `{operation} {name}` and sets the schema URL', () => {
    for (const request of requests) {
      for (const resource of request.resourceSpans) {
        assert.equal(resource.schemaUrl, semconvSchemaUrl);
        for (const scope of resource.scopeSpans) {
          assert.equal(scope.schemaUrl, semconvSchemaUrl);
          for (const span of scope.spans) {
            const attribute = (key: string): unknown => span.attributes.find((entry) => entry.key === key)?.value['stringValue'];
            const operation = attribute('gen_ai.operation.name');
            const named =
              operation === 'chat'
                ? attribute('gen_ai.request.model')
                : operation === 'execute_tool'
                  ? attribute('gen_ai.tool.name')
                  : attribute('gen_ai.agent.name');
            assert.equal(span.name, named === undefined ? operation : `${String(operation)} ${String(named)}`);
          }
        }
      }
    }
  });

  it('puts findings on spans as loopscope.finding events', () => {
    const findings = requests.flatMap((request) =>
      request.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans.flatMap((span) => span.events))),
    );
    assert.ok(findings.length > 0 && findings.every((event) => event.name === 'loopscope.finding'));
    const danglingOnToolSpan = requests.some((request) =>
      request.resourceSpans.some((resource) =>
        resource.scopeSpans.some((scope) =>
          scope.spans.some(
            (span) =>
              span.name.startsWith('execute_tool ') &&
              span.events.some((event) =>
                event.attributes.some((entry) => entry.key === 'loopscope.finding.kind' && entry.value['stringValue'] === 'dangling_call'),
              ),
          ),
        ),
      ),
    );
    assert.ok(danglingOnToolSpan, 'a dangling_call finding is on its call’s span');
  });
});
