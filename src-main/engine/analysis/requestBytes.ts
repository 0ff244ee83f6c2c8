/**
 * A logged request read from its bytes, message by message: the requests of a run resend the same
 * history, so each message is hashed on its bytes and parsed and normalized only the first time
 * those bytes are seen; later requests reuse it (and its content hash, for alignment). The same
 * goes for the tool definitions. A request line is never parsed whole.
 *
 * Read this way: Chat Completions and Anthropic Messages bodies (HTTP exchange logs) and canonical
 * `model_request` lines. Anything else — Responses input (items merge across elements, and a
 * continuation needs the response it names), a body in an unexpected shape — returns null and is
 * read whole (requestHistory.ts); both give the same normalized request.
 */
import { contentHash } from '../ingest/contentHash';
import { memberValue, scanArrayElements, scanTopLevel, ScanError, type ScannedMember, type TopLevelScan } from '../ingest/topLevelScan';
import { apiOf } from '../adapters/httpExchangeApis';
import { isRecord } from '../adapters/formatAdapter';
import { assembleRequest, canonicalParams, normalizeMessages, normalizeTool, requestParams, systemText } from '../../../shared/requests/normalizeRequest';
import { messageHash, rememberMessageHash, type NormalizedRequest, type RequestMessage, type ToolDefinition } from '../../../shared/requests/normalizedRequest';

/**
 * Bytes of distinct messages (and tool lists) remembered; more start the cache over (they are
 * only parsed again, never wrong). Well under the store worker's heap: a normalized message holds
 * its text, and a long run's distinct history can be hundreds of megabytes.
 */
const DEFAULT_CACHE_BYTES = 8 * 1024 * 1024;

interface NormalizedElement {
  /** What one element of the messages array normalizes to (an Anthropic user turn with several tool results: several). */
  messages: RequestMessage[];
  hashes: string[];
}

/** The members of a body that are not parameters, by API. */
const structuralKeys = {
  'openai-chat': ['messages', 'tools'],
  'anthropic-messages': ['messages', 'system', 'tools'],
} as const;

function value(bytes: Buffer, member: ScannedMember | undefined): unknown {
  return member === undefined ? undefined : memberValue(bytes, member);
}

export class RequestBytesReader {
  private readonly elements = new Map<string, NormalizedElement>();
  private readonly toolLists = new Map<string, ToolDefinition[]>();
  private cachedBytes = 0;

  constructor(private readonly maxCachedBytes = DEFAULT_CACHE_BYTES) {}

  /** Forgets every message: a new run resends its own history, rarely another run's. */
  clear(): void {
    this.elements.clear();
    this.toolLists.clear();
    this.cachedBytes = 0;
  }

  /** The request of a canonical `model_request` line, or null to have it read whole. */
  canonical(line: Buffer): NormalizedRequest | null {
    return this.guard(() => {
      const scan = scanTopLevel(line);
      const params = value(line, scan.get('params'));
      const model = value(line, scan.get('model'));
      if ((params !== undefined && !isRecord(params)) || (model !== undefined && typeof model !== 'string')) return null;
      return this.assemble(line, scan, systemText(value(line, scan.get('system'))), canonicalParams(params, model));
    });
  }

  /** The request of an HTTP exchange line, or null to have it read whole. */
  exchange(line: Buffer): NormalizedRequest | null {
    return this.guard(() => {
      const request = scanTopLevel(line).get('request');
      if (request?.kind !== 'object') return null;
      const requestBytes = line.subarray(request.start, request.end);
      const requestScan = scanTopLevel(requestBytes);
      const url = value(requestBytes, requestScan.get('url'));
      const body = requestScan.get('body');
      if (typeof url !== 'string' || body?.kind !== 'object') return null;
      const bodyBytes = requestBytes.subarray(body.start, body.end);
      const scan = scanTopLevel(bodyBytes);
      // What apiOf reads of a body: which of these members are there, and of what kind.
      const probe: Record<string, unknown> = {
        messages: scan.get('messages')?.kind === 'array' ? [] : undefined,
        input: scan.has('input') ? value(bodyBytes, scan.get('input')) : undefined,
        previous_response_id: value(bodyBytes, scan.get('previous_response_id')),
        anthropic_version: value(bodyBytes, scan.get('anthropic_version')),
      };
      const api = apiOf(url, probe);
      if (api !== 'openai-chat' && api !== 'anthropic-messages') return null;
      const params: Record<string, unknown> = {};
      for (const [key, member] of scan) if (!(structuralKeys[api] as readonly string[]).includes(key)) params[key] = memberValue(bodyBytes, member);
      const system = api === 'anthropic-messages' ? systemText(value(bodyBytes, scan.get('system'))) : null;
      return this.assemble(bodyBytes, scan, system, requestParams(params, []));
    });
  }

  /** A scan error or an unexpected shape: the caller reads the line whole and reports exactly what is wrong. */
  private guard(read: () => NormalizedRequest | null): NormalizedRequest | null {
    try {
      return read();
    } catch (error) {
      if (error instanceof ScanError || error instanceof SyntaxError) return null;
      throw error;
    }
  }

  private assemble(bytes: Buffer, scan: TopLevelScan, system: string | null, params: Record<string, unknown>): NormalizedRequest | null {
    const messagesMember = scan.get('messages');
    const toolsMember = scan.get('tools');
    if (messagesMember?.kind !== 'array' || (toolsMember !== undefined && toolsMember.kind !== 'array')) return null;
    const messages = this.messages(bytes.subarray(messagesMember.start, messagesMember.end));
    if (messages === null) return null;
    const tools = toolsMember === undefined ? [] : this.tools(bytes.subarray(toolsMember.start, toolsMember.end));
    return assembleRequest(system, messages, tools, params);
  }

  private messages(array: Buffer): RequestMessage[] | null {
    const messages: RequestMessage[] = [];
    const ranges = scanArrayElements(array);
    for (let index = 0; index < ranges.length; index++) {
      const range = ranges[index]!;
      const element = this.element(array.subarray(range.start, range.end));
      if (element === null) return null;
      element.messages.forEach((message, i) => {
        const copy = { ...message, sourceIndex: index };
        rememberMessageHash(copy, element.hashes[i]!);
        messages.push(copy);
      });
    }
    return messages;
  }

  /** One element, normalized once per distinct bytes; null for a Responses item that merges with its neighbours. */
  private element(bytes: Buffer): NormalizedElement | null {
    const key = contentHash(bytes);
    const known = this.elements.get(key);
    if (known !== undefined) return known;
    const item: unknown = JSON.parse(bytes.toString('utf8'));
    if (isRecord(item) && item['type'] === 'function_call') return null;
    const messages = normalizeMessages([item]);
    const normalized = { messages, hashes: messages.map(messageHash) };
    this.remember(bytes.length);
    this.elements.set(key, normalized);
    return normalized;
  }

  /** The tool definitions; the same bytes give the same array, which diffTools then skips. */
  private tools(array: Buffer): ToolDefinition[] {
    const key = contentHash(array);
    const known = this.toolLists.get(key);
    if (known !== undefined) return known;
    const tools = (JSON.parse(array.toString('utf8')) as unknown[]).map(normalizeTool);
    this.remember(array.length);
    this.toolLists.set(key, tools);
    return tools;
  }

  /** Counts what is about to be cached, starting over first when it would exceed the budget. */
  private remember(bytes: number): void {
    if (this.cachedBytes + bytes > this.maxCachedBytes) this.clear();
    this.cachedBytes += bytes;
  }
}
