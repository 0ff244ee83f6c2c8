/**
 * A span's GenAI attributes read as values: JSON held as text or structure, strings and counts,
 * the span's role (agent, model call, tool call), its error, and the content of its output
 * messages.
 */
import type { ToolCall } from '../../../../shared/trace/canonicalEvents';
import { isRecord } from '../formatAdapter';
import { defined } from '../kit/events';
import type { OtelSpan } from './spans';

/** An attribute that holds JSON as text (the console exporter and most SDKs) or as a structured value (OTLP). */
export function parseJsonish(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (!text.startsWith('[') && !text.startsWith('{')) return value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return value;
  }
}

export function stringAttr(attributes: Record<string, unknown>, key: string): string | undefined {
  const value = attributes[key];
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

export function numberAttr(attributes: Record<string, unknown>, ...keys: string[]): number | undefined {
  for (const key of keys) {
    const value = attributes[key];
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number === 'number' && Number.isFinite(number) && number >= 0) return number;
  }
  return undefined;
}

/** Newer instrumentations put message content on a `gen_ai.client.inference.operation.details` span event instead. */
const DETAILS_EVENT = 'gen_ai.client.inference.operation.details';

export function contentAttr(span: OtelSpan, key: string): unknown {
  if (span.attributes[key] !== undefined) return parseJsonish(span.attributes[key]);
  for (const event of span.events) {
    if (event.name === DETAILS_EVENT && event.attributes[key] !== undefined) return parseJsonish(event.attributes[key]);
  }
  return undefined;
}

function operationOf(span: OtelSpan): string {
  const operation = stringAttr(span.attributes, 'gen_ai.operation.name');
  if (operation !== undefined) return operation;
  return span.name.split(' ')[0] ?? '';
}

export type Role = 'agent' | 'chat' | 'tool' | 'other';

const inferenceOperations = new Set(['chat', 'text_completion', 'generate_content']);

export function roleOf(span: OtelSpan): Role {
  const operation = operationOf(span);
  if (operation === 'invoke_agent') return 'agent';
  if (inferenceOperations.has(operation)) return 'chat';
  if (operation === 'execute_tool') return 'tool';
  return 'other';
}

/** The first `exception` span event: the error signal of a failed span. */
function exceptionOf(span: OtelSpan): { type?: string; message?: string } | undefined {
  const event = span.events.find((candidate) => candidate.name === 'exception');
  if (event === undefined) return undefined;
  const type = stringAttr(event.attributes, 'exception.type');
  const message = stringAttr(event.attributes, 'exception.message');
  return { ...(type !== undefined ? { type } : {}), ...(message !== undefined ? { message } : {}) };
}

export function errorOf(span: OtelSpan): { code?: string; message?: string } {
  const exception = exceptionOf(span);
  const code = stringAttr(span.attributes, 'error.type') ?? exception?.type;
  const message = span.statusMessage ?? exception?.message;
  return defined({ code, message });
}

/** The HTTP status a failed call's span records (`http.response.status_code`, or the older `http.status_code`). */
export function httpStatusOf(attributes: Record<string, unknown>): { status?: number } {
  const status = numberAttr(attributes, 'http.response.status_code', 'http.status_code');
  return status !== undefined && Number.isInteger(status) ? { status } : {};
}

export function finishReasonsOf(span: OtelSpan): string[] {
  const raw = parseJsonish(span.attributes['gen_ai.response.finish_reasons']);
  if (typeof raw === 'string') return [raw];
  return Array.isArray(raw) ? raw.filter((reason): reason is string => typeof reason === 'string') : [];
}

interface OutputContent {
  text: string | null;
  calls: ToolCall[];
  finishReason: string | undefined;
}

/**
 * `gen_ai.output.messages` (semantic conventions: `[{role, parts: [{type: text, content} |
 * {type: tool_call, id, name, arguments}], finish_reason}]`); OpenAI-shaped messages
 * (`tool_calls[].function`) are read too. Undefined when the span carries no output messages.
 */
export function outputContentOf(span: OtelSpan): OutputContent | undefined {
  const messages = contentAttr(span, 'gen_ai.output.messages');
  if (!Array.isArray(messages)) return undefined;
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  let finishReason: string | undefined;
  for (const message of messages) {
    if (!isRecord(message)) continue;
    if (typeof message['finish_reason'] === 'string') finishReason ??= message['finish_reason'];
    if (typeof message['content'] === 'string') texts.push(message['content']);
    for (const part of Array.isArray(message['parts']) ? message['parts'] : []) {
      if (!isRecord(part)) continue;
      if (part['type'] === 'text' && typeof part['content'] === 'string') texts.push(part['content']);
      if (part['type'] === 'tool_call' && (typeof part['id'] === 'string' || typeof part['id'] === 'number')) {
        calls.push({
          call_id: part['id'],
          name: typeof part['name'] === 'string' ? part['name'] : '',
          ...('arguments' in part ? { arguments: part['arguments'] } : {}),
        });
      }
    }
    for (const call of Array.isArray(message['tool_calls']) ? message['tool_calls'] : []) {
      if (!isRecord(call) || (typeof call['id'] !== 'string' && typeof call['id'] !== 'number')) continue;
      const fn = isRecord(call['function']) ? call['function'] : call;
      calls.push({ call_id: call['id'], name: typeof fn['name'] === 'string' ? fn['name'] : '', ...('arguments' in fn ? { arguments: fn['arguments'] } : {}) });
    }
  }
  return { text: texts.length > 0 ? texts.join('') : null, calls, finishReason };
}

export function requestParamsOf(span: OtelSpan): Record<string, unknown> | undefined {
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(span.attributes)) {
    if (key.startsWith('gen_ai.request.') && key !== 'gen_ai.request.model') params[key.slice('gen_ai.request.'.length)] = value;
  }
  return Object.keys(params).length > 0 ? params : undefined;
}

export function arrayOrUndefined(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}
