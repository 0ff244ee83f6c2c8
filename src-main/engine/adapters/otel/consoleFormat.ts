/**
 * OpenTelemetry spans as the Python SDK's ConsoleSpanExporter prints them: one pretty-printed JSON
 * object per span, written back to back (`{name, context{trace_id, span_id}, parent_id,
 * start_time, end_time, status{status_code}, attributes{…}, events[], resource}`), hence the
 * `json-values` framing. Pretty-printed OTLP JSON exports are read too. The spans go through the
 * shared GenAI mapping in assembler.ts; see docs/formats/otel.md.
 */
import { isRecord, type FormatAdapter, type MapFailure } from '../formatAdapter';
import { text } from '../kit/jsonValues';
import { mapOtlpExport } from './otlpFormat';
import { SpanAssembler } from './assembler';
import { normalizeSpanId, timeFromIso, type OtelSpan, type OtelSpanEvent, type SpanStatusCode } from './spans';

function isConsoleSpan(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value) || typeof value['name'] !== 'string' || !isRecord(value['context'])) return false;
  const context = value['context'];
  return typeof context['trace_id'] === 'string' && typeof context['span_id'] === 'string' && 'start_time' in value;
}

function isOtlpDocument(value: unknown): boolean {
  return isRecord(value) && Array.isArray(value['resourceSpans']);
}

/** `UNSET` / `OK` / `ERROR`, as `StatusCode.name` prints; older SDKs wrote `StatusCode.ERROR`. */
function statusCodeOf(raw: unknown): SpanStatusCode {
  const code = typeof raw === 'string' ? raw.replace(/^StatusCode\./, '').toUpperCase() : '';
  return code === 'OK' || code === 'ERROR' ? code : 'UNSET';
}

function parseConsoleSpan(value: unknown): OtelSpan | MapFailure {
  if (!isConsoleSpan(value)) {
    return { reason: 'not an OpenTelemetry console span: expected an object with name, context.trace_id, context.span_id and start_time' };
  }
  const context = value['context'] as Record<string, unknown>;
  const traceId = normalizeSpanId(context['trace_id']);
  const spanId = normalizeSpanId(context['span_id']);
  if (traceId === null || spanId === null) return { reason: 'not an OpenTelemetry console span: its context.trace_id or context.span_id is empty' };
  const status = isRecord(value['status']) ? value['status'] : {};
  const description = typeof status['description'] === 'string' && status['description'] !== '' ? status['description'] : null;
  const events: OtelSpanEvent[] = (Array.isArray(value['events']) ? value['events'] : []).filter(isRecord).map((event) => ({
    name: text(event['name']) ?? '',
    time: timeFromIso(event['timestamp']),
    attributes: isRecord(event['attributes']) ? event['attributes'] : {},
  }));
  const resource = isRecord(value['resource']) && isRecord(value['resource']['attributes']) ? value['resource']['attributes'] : {};
  return {
    traceId,
    spanId,
    parentId: normalizeSpanId(value['parent_id']),
    name: value['name'] as string,
    start: timeFromIso(value['start_time']),
    end: timeFromIso(value['end_time']),
    statusCode: statusCodeOf(status['status_code']),
    statusMessage: description,
    attributes: isRecord(value['attributes']) ? value['attributes'] : {},
    events,
    service: text(resource['service.name']) ?? null,
  };
}

/** The console exporter's first span, recognised from its opening bytes when it is too long to sample whole. */
const CONSOLE_HEAD = /^\s*\{\s*"name"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*"context"\s*:\s*\{\s*"trace_id"\s*:\s*"0x[0-9a-f]+"/;

export const otelConsoleFormat: FormatAdapter = {
  name: 'otel-console',
  framing: 'json-values',
  detect(sample) {
    const framed = sample.framedValues;
    const spans = framed.filter(isConsoleSpan);
    if (spans.length > 0 && spans.length * 2 >= framed.length) {
      const genAi = spans.filter((span) => isRecord(span['attributes']) && Object.keys(span['attributes']).some((key) => key.startsWith('gen_ai.'))).length;
      return `OpenTelemetry console-exporter spans: ${spans.length} of the first ${framed.length} JSON values have context.trace_id/span_id and start_time (${genAi} with gen_ai.* attributes)`;
    }
    // Pretty-printed OTLP JSON: one document over many lines, which line framing cannot read.
    const documents = framed.filter(isOtlpDocument);
    if (documents.length > 0 && documents.length * 2 >= framed.length && !sample.values.some(isOtlpDocument)) {
      return `pretty-printed OpenTelemetry OTLP JSON: ${documents.length} of the first ${framed.length} JSON values are resourceSpans exports spanning several lines`;
    }
    if (framed.length === 0 && CONSOLE_HEAD.test(sample.head)) {
      return 'OpenTelemetry console-exporter spans: the file opens with a span object (name, context.trace_id) too long to sample whole';
    }
    return null;
  },
  createMapper() {
    const assembler = new SpanAssembler();
    return {
      map(value, line, emit) {
        assembler.recordRead(emit);
        if (isOtlpDocument(value)) return mapOtlpExport(value, line, assembler, emit);
        const span = parseConsoleSpan(value);
        if ('reason' in span) return span;
        assembler.add(span, line, emit);
        return undefined;
      },
      finish(emit) {
        assembler.finish(emit);
      },
      checkpoint(emit) {
        assembler.checkpoint(emit);
      },
    };
  },
};
