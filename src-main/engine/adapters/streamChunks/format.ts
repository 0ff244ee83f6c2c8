/**
 * Streaming chunk logs: one streamed chunk per line, as a provider sent it — OpenAI Chat
 * Completions `chat.completion.chunk` objects, Anthropic Messages stream events, or OpenAI
 * Responses stream events — with several responses per file. Each response becomes one model call
 * (one step of the file's single run), assembled from its chunks; every chunk line is kept as a
 * `stream_fragment`. See docs/formats/stream-chunks.md.
 */
import { basename } from 'node:path';
import { isRecord, type DetectionSample, type FormatAdapter, type FormatMapper } from '../formatAdapter';
import { apiErrorFields } from '../httpExchange/apis';
import { isAnthropicCompanion, isAnthropicEvent, mapAnthropicEvent } from './anthropic';
import { CHAT_CHUNK, isChatChunk, mapChatChunk } from './chat';
import { StreamLog } from './common';
import { isResponsesError, isResponsesEvent, mapResponsesEvent } from './responses';

type Family = 'chat' | 'anthropic' | 'responses';

function familyOf(value: Record<string, unknown>): Family | null {
  if (isChatChunk(value)) return 'chat';
  if (isAnthropicEvent(value)) return 'anthropic';
  if (isResponsesEvent(value)) return 'responses';
  return null;
}

const familyNames: Record<Family, string> = {
  chat: `${CHAT_CHUNK} objects`,
  anthropic: 'Anthropic message stream events',
  responses: 'Responses API stream events',
};

function detect(sample: DetectionSample): string | null {
  const counts = new Map<Family, number>();
  let companions = 0;
  for (const value of sample.values) {
    if (!isRecord(value)) continue;
    const family = familyOf(value);
    if (family !== null) counts.set(family, (counts.get(family) ?? 0) + 1);
    else if (isAnthropicCompanion(value) || isResponsesError(value)) companions += 1;
  }
  const identified = [...counts.values()].reduce((sum, n) => sum + n, 0);
  // Most of the first records must be stream chunks, and at least one must say which provider's.
  if (identified === 0 || (identified + companions) * 2 < sample.values.length) return null;
  const what = [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([family, n]) => `${n} ${familyNames[family]}`)
    .join(', ');
  return `streaming chunk log: of the first ${sample.values.length} records, ${what}`;
}

/** One run per file, named after it: the responses of a stream log are the steps of one conversation. */
export function streamRunId(path: string): string {
  const name = basename(path).replace(/\.(jsonl|ndjson|json|txt|log)$/i, '');
  return name === '' ? 'stream' : name;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

function createMapper(context: { path: string }): FormatMapper {
  const log = new StreamLog(streamRunId(context.path));
  return {
    map(value, line, emit) {
      if (!isRecord(value)) return { reason: `not a stream chunk: the line is ${describe(value)}, not an object` };
      const family = familyOf(value);
      if (family === 'chat') return mapChatChunk(log, value, line, emit);
      if (family === 'responses' || isResponsesError(value)) return mapResponsesEvent(log, value, line, emit);
      if (family === 'anthropic' || isAnthropicCompanion(value)) return mapAnthropicEvent(log, value, line, emit);
      log.seen(line, undefined);
      // A provider's error body in the stream (`{"error":{…}}`) ends the one response being streamed.
      const open = [...log.openResponses()];
      if (isRecord(value['error']) && open.length === 1) {
        const error = value['error'];
        const response = open[0]!;
        response.failure = `stream error${typeof error['message'] === 'string' ? `: ${error['message']}` : ''}`;
        response.apiError = apiErrorFields(error);
        response.ended = true;
        log.fragment(emit, response, line, 'error');
        log.close(emit, response);
        return undefined;
      }
      const typeRaw = typeof value['type'] === 'string' ? value['type'] : typeof value['object'] === 'string' ? value['object'] : 'record';
      log.unknown(emit, line, typeRaw);
      return undefined;
    },
    finish(emit) {
      log.finish(emit);
    },
  };
}

export const streamChunksFormat: FormatAdapter = {
  name: 'stream-chunks',
  detect,
  createMapper,
};
