/**
 * Attribute families that came before the OpenTelemetry GenAI semantic conventions, read as the
 * `gen_ai.*` attributes they stand for, so the span mapping (assembler.ts) has one vocabulary:
 *
 * - OpenInference (Arize; spec/semantic_conventions.md): `openinference.span.kind`, `llm.model_name`,
 *   `llm.token_count.*`, flattened `llm.input_messages.N.message.*` / `llm.output_messages.N.message.*`,
 *   `llm.tools.N.tool.json_schema`, `llm.invocation_parameters`, `tool.name`, `tool_call.id`,
 *   `input.value` / `output.value`.
 * - OpenLLMetry (Traceloop; opentelemetry-semantic-conventions-ai): `llm.request.type`,
 *   `traceloop.span.kind` / `traceloop.entity.*`, flattened `gen_ai.prompt.N.*` /
 *   `gen_ai.completion.N.*` (older `llm.prompts.N.*` / `llm.completions.N.*`), `llm.usage.*`,
 *   `llm.request.functions.N.*`, `llm.vendor`, `llm.request.model` / `llm.response.model`.
 * - promptflow's tracer (docs/reference/trace-span-spec-reference.md): `span_type: LLM`,
 *   `llm.usage.*`, `llm.response.model`, `inputs` (the call's arguments) and `output` (the OpenAI
 *   response) as JSON text, `llm.generated_message` (the output message alone).
 *
 * A `gen_ai.*` attribute the span already has always wins. See docs/formats/otel.md.
 */
import { isRecord } from '../formatAdapter';
import { text } from '../kit/jsonValues';
import { parseJsonish } from './attributes';
import type { OtelSpan } from './spans';

/** The span kinds of each family that are a model call, a tool call or an agent invocation. */
function operationOf(attributes: Record<string, unknown>): string | undefined {
  const kind = (key: string): string | undefined => text(attributes[key])?.toLowerCase();
  // promptflow's `Tool` span is a flow node (which may itself wrap the LLM call), not a call the model issued.
  if (kind('span_type') === 'llm') return 'chat';
  const spanKind = kind('openinference.span.kind') ?? kind('traceloop.span.kind');
  if (spanKind === 'llm') return 'chat';
  if (spanKind === 'tool') return 'execute_tool';
  if (spanKind === 'agent') return 'invoke_agent';
  // OpenLLMetry marks its model-call spans by request type, not by span kind.
  const requestType = kind('llm.request.type');
  if (requestType === 'chat') return 'chat';
  if (requestType === 'completion') return 'text_completion';
  return undefined;
}

/**
 * Flattened attributes under `prefix` (`prefix.0.role`, `prefix.0.tool_calls.1.id`, …) rebuilt as
 * the array they were flattened from; undefined when there are none.
 */
function unflatten(attributes: Record<string, unknown>, prefix: string): unknown[] | undefined {
  const root: unknown[] = [];
  let found = false;
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(prefix) || !/^\d/.test(key.slice(prefix.length))) continue;
    const path = key.slice(prefix.length).split('.');
    // A key naming an object's prototype would write into every object.
    if (path.some((segment) => segment === '__proto__' || segment === 'constructor' || segment === 'prototype')) continue;
    found = true;
    let container: Record<string, unknown> | unknown[] = root;
    path.forEach((segment, index) => {
      const slot = /^\d+$/.test(segment) ? Number(segment) : segment;
      const holder = container as Record<string | number, unknown>;
      if (index === path.length - 1) {
        holder[slot] = value;
        return;
      }
      if (typeof holder[slot] !== 'object' || holder[slot] === null) holder[slot] = /^\d+$/.test(path[index + 1]!) ? [] : {};
      container = holder[slot] as Record<string, unknown> | unknown[];
    });
  }
  return found ? root.filter((item) => item !== undefined) : undefined;
}

/** A flattened message (OpenInference wraps it in `message`, its calls in `tool_call`) in the OpenAI shape attributes.ts reads. */
function messageOf(flattened: unknown): unknown {
  const message = isRecord(flattened) && isRecord(flattened['message']) ? flattened['message'] : flattened;
  if (!isRecord(message) || !Array.isArray(message['tool_calls'])) return message;
  const calls = message['tool_calls']
    .filter((call) => call !== undefined)
    .map((call) => (isRecord(call) && isRecord(call['tool_call']) ? call['tool_call'] : call));
  return { ...message, tool_calls: calls };
}

function messagesUnder(attributes: Record<string, unknown>, ...prefixes: string[]): unknown[] | undefined {
  for (const prefix of prefixes) {
    const messages = unflatten(attributes, prefix);
    if (messages !== undefined) return messages.map(messageOf);
  }
  return undefined;
}

/** promptflow's `output` of an LLM span: the OpenAI chat completion, whose choices are the output messages. */
function promptflowOutput(attributes: Record<string, unknown>): { messages: unknown[]; id?: string } | undefined {
  const output = parseJsonish(attributes['output']);
  if (!isRecord(output) || !Array.isArray(output['choices'])) return undefined;
  const messages = output['choices'].filter(isRecord).map((choice) => ({
    ...(isRecord(choice['message']) ? choice['message'] : {}),
    ...(typeof choice['finish_reason'] === 'string' ? { finish_reason: choice['finish_reason'] } : {}),
  }));
  return { messages, ...(typeof output['id'] === 'string' ? { id: output['id'] } : {}) };
}

function toolDefinitions(attributes: Record<string, unknown>): unknown[] | undefined {
  const openInference = unflatten(attributes, 'llm.tools.');
  if (openInference !== undefined)
    return openInference.map((tool) => (isRecord(tool) && isRecord(tool['tool']) ? parseJsonish(tool['tool']['json_schema']) : tool));
  return unflatten(attributes, 'llm.request.functions.');
}

function first(attributes: Record<string, unknown>, ...keys: string[]): unknown {
  for (const key of keys) if (attributes[key] !== undefined && attributes[key] !== '') return attributes[key];
  return undefined;
}

/** The span with the `gen_ai.*` attributes its pre-convention attributes stand for; the span itself when it has none. */
export function withGenAiAttributes(span: OtelSpan): OtelSpan {
  const attributes = span.attributes;
  const operation = operationOf(attributes);
  if (operation === undefined && !Object.keys(attributes).some((key) => key.startsWith('gen_ai.prompt.') || key.startsWith('gen_ai.completion.'))) return span;
  const isPromptflow = attributes['framework'] === 'promptflow' || typeof attributes['span_type'] === 'string';
  const derived: Record<string, unknown> = {
    'gen_ai.operation.name': operation,
    'gen_ai.system': first(attributes, 'llm.provider', 'llm.system', 'llm.vendor'),
    'gen_ai.request.model': first(attributes, 'llm.request.model', 'llm.model_name'),
    'gen_ai.response.model': first(attributes, 'llm.response.model', 'llm.model_name'),
    'gen_ai.usage.input_tokens': first(attributes, 'llm.token_count.prompt', 'llm.usage.prompt_tokens'),
    'gen_ai.usage.output_tokens': first(attributes, 'llm.token_count.completion', 'llm.usage.completion_tokens'),
    'gen_ai.usage.cache_read.input_tokens': first(attributes, 'llm.token_count.prompt_details.cache_read'),
    'gen_ai.usage.cache_creation.input_tokens': first(attributes, 'llm.token_count.prompt_details.cache_write'),
    'gen_ai.usage.reasoning.output_tokens': first(attributes, 'llm.token_count.completion_details.reasoning'),
    'gen_ai.input.messages': messagesUnder(attributes, 'llm.input_messages.', 'gen_ai.prompt.', 'llm.prompts.'),
    'gen_ai.output.messages': messagesUnder(attributes, 'llm.output_messages.', 'gen_ai.completion.', 'llm.completions.'),
    'gen_ai.tool.definitions': toolDefinitions(attributes),
  };
  if (operation === 'chat' || operation === 'text_completion') {
    const invocation = parseJsonish(attributes['llm.invocation_parameters']);
    if (isRecord(invocation)) {
      for (const [key, value] of Object.entries(invocation)) if (key !== 'model') derived[`gen_ai.request.${key}`] = value;
    }
    if (isPromptflow) {
      const inputs = parseJsonish(attributes['inputs']);
      if (isRecord(inputs)) derived['gen_ai.input.messages'] ??= inputs['messages'];
      const output = promptflowOutput(attributes);
      const generated = parseJsonish(attributes['llm.generated_message']);
      derived['gen_ai.output.messages'] ??= output?.messages ?? (isRecord(generated) ? [generated] : undefined);
      derived['gen_ai.response.id'] = output?.id;
    }
  }
  if (operation === 'execute_tool') {
    derived['gen_ai.tool.name'] = first(attributes, 'tool.name', 'traceloop.entity.name');
    derived['gen_ai.tool.call.id'] = first(attributes, 'tool_call.id');
    derived['gen_ai.tool.call.arguments'] = first(attributes, 'input.value', 'traceloop.entity.input');
    derived['gen_ai.tool.call.result'] = first(attributes, 'output.value', 'traceloop.entity.output');
  }
  if (operation === 'invoke_agent') derived['gen_ai.agent.name'] = first(attributes, 'agent.name', 'traceloop.entity.name');

  const merged: Record<string, unknown> = { ...attributes };
  for (const [key, value] of Object.entries(derived)) {
    if (value !== undefined && merged[key] === undefined) merged[key] = value;
  }
  return { ...span, attributes: merged };
}
