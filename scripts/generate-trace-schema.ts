/**
 * Generates `docs/trace-format.schema.json` (JSON Schema draft 2020-12) from the zod schemas in
 * `shared/trace/canonicalEvents.ts`, the single source of truth for the canonical trace format.
 *
 * Run with `npm run schema`. `test/trace-schema.test.ts` fails when the committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  budgetsSchema,
  canonicalEventSchema,
  idSchema,
  modelOutcomeSchema,
  modelRequestSchema,
  modelResponseSchema,
  permissionDecisionSchema,
  runEndSchema,
  runStartSchema,
  streamFragmentSchema,
  timestampSchema,
  toolCallNotExecutedSchema,
  toolCallSchema,
  toolCallStartSchema,
  toolErrorSchema,
  toolResultSchema,
  usageSchema,
} from '../shared/trace/canonicalEvents';

export const schemaId = 'urn:loopscope:trace-format:event:v1';

export const schemaPath = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'trace-format.schema.json');

/** Names for the shared pieces, so they land in `$defs` under readable names instead of being inlined. */
function namedDefinitions(): z.core.$ZodRegistry<z.core.JSONSchemaMeta> {
  const registry = z.registry<z.core.JSONSchemaMeta>();
  const named: [z.ZodType, string, string][] = [
    [idSchema, 'Id', 'An id: a non-empty string or a number (kept as the exact text written).'],
    [timestampSchema, 'Timestamp', 'ISO-8601 text or a Unix epoch number (seconds or milliseconds).'],
    [usageSchema, 'Usage', 'Token usage and cost of one model call.'],
    [budgetsSchema, 'Budgets', 'Limits declared for the run.'],
    [toolCallSchema, 'ToolCall', 'One tool call issued by a model response.'],
    [toolErrorSchema, 'ToolError', 'Structured tool error: {code, retryable, safe_message, details_ref}.'],
    [modelOutcomeSchema, 'ModelOutcome', 'Classification of a model response.'],
    [permissionDecisionSchema, 'PermissionDecision', 'Permission decision for a tool call.'],
    [runStartSchema, 'RunStart', 'Start of a run: configuration and budgets.'],
    [modelRequestSchema, 'ModelRequest', 'What was sent to the model for one step.'],
    [modelResponseSchema, 'ModelResponse', 'What the model returned for one step.'],
    [streamFragmentSchema, 'StreamFragment', 'One streamed chunk of a model response.'],
    [toolCallStartSchema, 'ToolCallStart', 'The loop starts executing a tool call.'],
    [toolResultSchema, 'ToolResult', 'The one result of a tool call.'],
    [toolCallNotExecutedSchema, 'ToolCallNotExecuted', 'A tool call the loop deliberately did not execute.'],
    [runEndSchema, 'RunEnd', 'The terminal event of a run.'],
  ];
  for (const [schema, id, description] of named) registry.add(schema, { id, description });
  return registry;
}

/** Builds the schema text exactly as it is committed: 2-space indentation and a trailing newline. */
export function buildTraceSchemaText(): string {
  // `io: 'input'` describes what a loop may write (ids as string or number), not the parsed output.
  const generated = z.toJSONSchema(canonicalEventSchema, {
    io: 'input',
    target: 'draft-2020-12',
    metadata: namedDefinitions(),
  });
  const { $schema, ...body } = generated;
  const schema = {
    $schema,
    $id: schemaId,
    title: 'Loopscope canonical trace event',
    description:
      'One line of a Loopscope canonical trace (JSONL: one JSON object per line). The `type` field selects the event kind. ' +
      'Only canonical type names are listed: resolve aliases (e.g. `llm_response`) first. Unknown fields are allowed; ' +
      'Loopscope also keeps lines with an unknown `type` as unknown events instead of rejecting them. ' +
      'Generated from shared/trace/canonicalEvents.ts by `npm run schema`; see docs/trace-format.md.',
    ...body,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

function isMain(): boolean {
  const entry = process.argv[1];
  return entry !== undefined && resolve(entry) === fileURLToPath(import.meta.url);
}

if (isMain()) {
  writeFileSync(schemaPath, buildTraceSchemaText());
  console.log(`wrote ${schemaPath}`);
}
