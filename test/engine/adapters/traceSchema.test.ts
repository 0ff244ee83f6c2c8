/**
 * The committed JSON Schema matches the zod source of truth, and every example trace is a real
 * canonical trace (except the files that are broken on purpose).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { buildTraceSchemaText, buildValidatorsModuleText, schemaPath, validatorsPath } from '../../../devkit/traceSchema';
import { validateEvent } from '../../../src-main/engine/adapters/canonical/eventValidators';
import { canonicalEventSchema, canonicalEventType } from '../../../shared/trace/canonicalEvents';
import { examplesDir } from '../../../devkit/repoPaths';

/**
 * Examples that contain malformed lines on purpose; `examples/expected/<name>.json` lists them.
 * `bad-fields.jsonl` holds events with bad fields, which load repaired (docs/semantics.md §10).
 */
const intentionallyBroken = new Set(['broken-lines.jsonl', 'bad-fields.jsonl']);

function inOtherFormat(name: string): boolean {
  return (JSON.parse(readFileSync(join(examplesDir, 'expected', `${name}.json`), 'utf8')) as { format?: string }).format !== undefined;
}

const exampleFiles = readdirSync(examplesDir)
  .filter((name) => name.endsWith('.jsonl'))
  .sort();

describe('docs/trace-format.schema.json', () => {
  it('is up to date with shared/trace/canonicalEvents.ts', () => {
    assert.equal(readFileSync(schemaPath, 'utf8'), buildTraceSchemaText(), 'run npm run schema');
  });

  it('is compiled into the validators ingest runs, and they are up to date', () => {
    assert.equal(readFileSync(validatorsPath, 'utf8'), buildValidatorsModuleText(), 'run npm run schema');
  });

  it('rejects what the zod schema rejects, naming the field', () => {
    const reason = (validation: ReturnType<typeof validateEvent>): string | null => (validation.ok ? null : validation.reason);
    assert.equal(reason(validateEvent('tool_result', { type: 'tool_result' })), 'invalid tool_result event: call_id: is required');
    assert.equal(
      reason(validateEvent('model_response', { type: 'model_response', tool_calls: [{ call_id: 'c1' }] })),
      'invalid model_response event: tool_calls.0.name: is required',
    );
    assert.equal(validateEvent('run_end', { type: 'run_end', status: 'MODEL_FINISHED', extra: { kept: true } }).ok, true);
  });

  it('describes every canonical event type', () => {
    const schema = JSON.parse(buildTraceSchemaText()) as { $schema: string; oneOf: unknown[] };
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(schema.oneOf.length, 8);
  });
});

describe('examples/*.jsonl', () => {
  it('exist', () => {
    assert.ok(exampleFiles.length >= 20, `only ${exampleFiles.length} example files`);
  });

  for (const file of exampleFiles) {
    const name = basename(file, '.jsonl');

    it(`${file} has an expected report`, () => {
      const expected = JSON.parse(readFileSync(join(examplesDir, 'expected', `${name}.json`), 'utf8')) as {
        format?: string;
        runs: { run_id: string }[];
        findings: { run_id: string }[];
        parse_error_lines: number[];
      };
      const runIds = new Set(expected.runs.map((run) => run.run_id));
      assert.ok(runIds.size > 0);
      for (const finding of expected.findings) assert.ok(runIds.has(finding.run_id), finding.run_id);
      assert.equal(expected.parse_error_lines.length > 0, intentionallyBroken.has(file));
    });

    // An example in another format (an HTTP exchange log) says so in its expected report, which
    // examples.test.ts checks against the format Loopscope detects: its lines are not canonical events.
    if (intentionallyBroken.has(file) || inOtherFormat(name)) continue;

    it(`${file}: every line is a canonical event`, () => {
      const text = readFileSync(join(examplesDir, file), 'utf8');
      assert.ok(text.endsWith('\n'), 'ends with a newline');
      const lines = text.slice(0, -1).split('\n');
      lines.forEach((line, index) => {
        const where = `${file}:${index + 1}`;
        const value: unknown = JSON.parse(line);
        assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `${where}: not an object`);
        const raw = (value as { type?: unknown }).type;
        assert.equal(typeof raw, 'string', `${where}: no type`);
        const type = canonicalEventType(raw as string);
        // Unknown event types are kept and shown by design; only known ones must match the schema.
        if (type === undefined) return;
        const result = canonicalEventSchema.safeParse({ ...value, type });
        assert.ok(result.success, `${where}: ${result.success ? '' : result.error.message}`);
      });
    });
  }
});
