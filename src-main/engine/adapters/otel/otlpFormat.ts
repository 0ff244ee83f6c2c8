/**
 * OpenTelemetry spans as OTLP JSON, one export request per line — what the OpenTelemetry
 * Collector's file exporter writes: `{resourceSpans: [{resource, scopeSpans: [{scope, spans}]}]}`,
 * attributes as `[{key, value: {stringValue | intValue | …}}]`, times as Unix nanoseconds. The
 * spans go through the shared GenAI mapping in assembler.ts; see docs/formats/otel.md.
 */
import { isRecord, type Emit, type FormatAdapter, type LineRef, type MapFailure } from '../formatAdapter';
import { unknownEvent } from '../kit/events';
import { SpanAssembler } from './assembler';
import { normalizeSpanId, timeFromUnixNanos, type OtelSpan, type OtelSpanEvent, type SpanStatusCode } from './spans';

/** An OTLP `AnyValue` as a plain value: int64 text becomes a number when it is exact, arrays and key-value lists nest. */
function anyValue(value: unknown): unknown {
  if (!isRecord(value)) return value;
  if ('stringValue' in value) return value['stringValue'];
  if ('boolValue' in value) return value['boolValue'];
  if ('intValue' in value) {
    const int = value['intValue'];
    if (typeof int === 'string' && /^-?\d+$/.test(int) && Number.isSafeInteger(Number(int))) return Number(int);
    return int;
  }
  if ('doubleValue' in value) {
    const double = value['doubleValue'];
    return typeof double === 'string' && Number.isFinite(Number(double)) ? Number(double) : double;
  }
  if ('arrayValue' in value) {
    const array = value['arrayValue'];
    return isRecord(array) && Array.isArray(array['values']) ? array['values'].map(anyValue) : [];
  }
  if ('kvlistValue' in value) {
    const list = value['kvlistValue'];
    return keyValues(isRecord(list) ? list['values'] : undefined);
  }
  if ('bytesValue' in value) return value['bytesValue'];
  return null;
}

function keyValues(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (const entry of list) {
    if (isRecord(entry) && typeof entry['key'] === 'string') out[entry['key']] = anyValue(entry['value']);
  }
  return out;
}

/** OTLP status codes are enum numbers in OTLP/JSON (`2`) and names in some writers (`STATUS_CODE_ERROR`). */
function statusCodeOf(status: unknown): SpanStatusCode {
  const code = isRecord(status) ? status['code'] : undefined;
  if (code === 1 || code === 'STATUS_CODE_OK' || code === 'OK') return 'OK';
  if (code === 2 || code === 'STATUS_CODE_ERROR' || code === 'ERROR') return 'ERROR';
  return 'UNSET';
}

function decodeSpan(raw: unknown, service: string | null): OtelSpan | null {
  if (!isRecord(raw)) return null;
  const traceId = normalizeSpanId(raw['traceId']);
  const spanId = normalizeSpanId(raw['spanId']);
  if (traceId === null || spanId === null) return null;
  const status = raw['status'];
  const message = isRecord(status) && typeof status['message'] === 'string' && status['message'] !== '' ? status['message'] : null;
  const events: OtelSpanEvent[] = (Array.isArray(raw['events']) ? raw['events'] : []).filter(isRecord).map((event) => ({
    name: typeof event['name'] === 'string' ? event['name'] : '',
    time: timeFromUnixNanos(event['timeUnixNano']),
    attributes: keyValues(event['attributes']),
  }));
  return {
    traceId,
    spanId,
    parentId: normalizeSpanId(raw['parentSpanId']),
    name: typeof raw['name'] === 'string' ? raw['name'] : '',
    start: timeFromUnixNanos(raw['startTimeUnixNano']),
    end: timeFromUnixNanos(raw['endTimeUnixNano']),
    statusCode: statusCodeOf(status),
    statusMessage: message,
    attributes: keyValues(raw['attributes']),
    events,
    service,
  };
}

const otherSignals = ['resourceLogs', 'resourceMetrics', 'resourceProfiles'] as const;

function isOtlpExport(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && (Array.isArray(value['resourceSpans']) || otherSignals.some((signal) => Array.isArray(value[signal])));
}

/** The first trace id a log export names, so its unknown event lands in that trace's run. */
function firstLogTraceId(value: Record<string, unknown>): string | null {
  for (const resource of Array.isArray(value['resourceLogs']) ? value['resourceLogs'] : []) {
    if (!isRecord(resource)) continue;
    for (const scope of Array.isArray(resource['scopeLogs']) ? resource['scopeLogs'] : []) {
      if (!isRecord(scope)) continue;
      for (const record of Array.isArray(scope['logRecords']) ? scope['logRecords'] : []) {
        const traceId = isRecord(record) ? normalizeSpanId(record['traceId']) : null;
        if (traceId !== null) return traceId;
      }
    }
  }
  return null;
}

/**
 * One OTLP export request: its spans go to the assembler; logs, metrics and spans without ids are
 * kept as unknown events. Shared with the console adapter, which reads pretty-printed exports.
 */
export function mapOtlpExport(value: unknown, line: LineRef, assembler: SpanAssembler, emit: Emit): MapFailure | undefined {
  if (!isOtlpExport(value)) {
    return { reason: 'not an OTLP JSON export: the record has no resourceSpans (nor resourceLogs / resourceMetrics) array' };
  }
  const unknown = (typeRaw: string, runId: string | null): void => {
    emit({ event: unknownEvent(typeRaw, { run_id: runId ?? undefined }), typeRaw, line });
  };
  for (const signal of otherSignals) {
    if (Array.isArray(value[signal]) && value[signal].length > 0) unknown(signal, signal === 'resourceLogs' ? firstLogTraceId(value) : null);
  }
  for (const resource of Array.isArray(value['resourceSpans']) ? value['resourceSpans'] : []) {
    if (!isRecord(resource)) continue;
    const resourceAttributes = isRecord(resource['resource']) ? keyValues(resource['resource']['attributes']) : {};
    const service = typeof resourceAttributes['service.name'] === 'string' ? resourceAttributes['service.name'] : null;
    // `instrumentationLibrarySpans` is the name before OTLP 0.15.
    const scopes = resource['scopeSpans'] ?? resource['instrumentationLibrarySpans'];
    for (const scope of Array.isArray(scopes) ? scopes : []) {
      if (!isRecord(scope)) continue;
      for (const raw of Array.isArray(scope['spans']) ? scope['spans'] : []) {
        const span = decodeSpan(raw, service);
        if (span !== null) assembler.add(span, line, emit);
        else unknown('span without traceId/spanId', isRecord(raw) ? normalizeSpanId(raw['traceId']) : null);
      }
    }
  }
  return undefined;
}

const OTLP_HEAD = /^\s*\{\s*"resource(Spans|Logs|Metrics)"\s*:\s*\[/;

export const otelOtlpFormat: FormatAdapter = {
  name: 'otel-otlp',
  detect(sample) {
    const exports = sample.values.filter(isOtlpExport);
    const withSpans = exports.filter((value) => Array.isArray(value['resourceSpans']));
    if (withSpans.length > 0 && exports.length * 2 >= sample.values.length) {
      return `OpenTelemetry OTLP JSON: ${exports.length} of the first ${sample.values.length} lines are export requests, ${withSpans.length} with resourceSpans`;
    }
    // A first export longer than the detection sample: recognised from its opening bytes.
    if (sample.values.length === 0 && OTLP_HEAD.test(sample.head) && sample.head.includes('"resourceSpans"')) {
      return 'OpenTelemetry OTLP JSON: the file opens with a resourceSpans export request (too long to sample whole)';
    }
    return null;
  },
  createMapper() {
    const assembler = new SpanAssembler();
    return {
      map(value, line, emit) {
        assembler.recordRead(emit);
        return mapOtlpExport(value, line, assembler, emit);
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
