/**
 * A logged request read from its bytes, message by message: the requests of a run resend the same
 * history, so each message is parsed and normalized only the first time its bytes are seen (they
 * key a map as they are: V8 hashes a string natively); later requests reuse it (and its identity,
 * for alignment). The same goes for the tool definitions. A request line is never parsed whole.
 *
 * Most of a request is the previous request's messages array, byte for byte: its bytes are
 * compared with that array's (memcmp), and the elements wholly inside the common prefix are taken
 * as they were — not scanned, hashed or looked up again. Only what follows is scanned.
 *
 * Read this way: Chat Completions and Anthropic Messages bodies (HTTP exchange logs) and canonical
 * `model_request` lines. Anything else — Responses input (items merge across elements, and a
 * continuation needs the response it names), a body in an unexpected shape — returns null and is
 * read whole (requestHistory.ts); both give the same normalized request.
 */
import {
  memberValue,
  scanArray,
  scanObject,
  scanTopLevel,
  ScanError,
  type ElementRange,
  type ScannedMember,
  type SkipMember,
  type TopLevelScan,
} from '../bytes/topLevelScan';
import { OPEN_BRACKET } from '../bytes/jsonBytes';
import { sharedElements } from '../bytes/commonPrefix';
import { apiOf } from '../adapters/httpExchange/apis';
import { isRecord } from '../adapters/formatAdapter';
import { assembleRequest, canonicalParams, normalizeMessages, normalizeTool, requestParams, systemText } from '../../../shared/requests/apiRequestBodies';
import {
  messageIdentity,
  rememberMessageIdentity,
  type NormalizedRequest,
  type RequestMessage,
  type ToolDefinition,
} from '../../../shared/requests/normalizedRequest';

/**
 * Bytes of distinct messages (and tool lists) remembered; more start the cache over (they are
 * only parsed again, never wrong). Well under the store worker's heap: a normalized message holds
 * its text, and a long run's distinct history can be hundreds of megabytes.
 */
const DEFAULT_CACHE_BYTES = 2 * 1024 * 1024;

interface NormalizedElement {
  /** What one element of the messages array normalizes to (an Anthropic user turn with several tool results: several). */
  messages: RequestMessage[];
  identities: string[];
}

/** The members of a body that are not parameters, by API. */
const structuralKeys = {
  'openai-chat': ['messages', 'tools'],
  'anthropic-messages': ['messages', 'system', 'tools'],
} as const;

function value(bytes: Buffer, member: ScannedMember | undefined): unknown {
  return member === undefined ? undefined : memberValue(bytes, member);
}

/**
 * A messages array as read: its bytes, its elements' ranges (relative to its start) and the
 * messages each element became, numbered by its position: an element the next request shares
 * sits at the same position, so its messages are taken as they are.
 */
interface ReadArray {
  bytes: Buffer;
  ranges: ElementRange[];
  messages: RequestMessage[][];
}

/**
 * Where one run is in its requests: the messages array its last request was read with, which its
 * next request repeats. Runs read in turns (their requests interleaved in the file) each keep their
 * own; the caches of distinct messages are shared.
 */
export interface RequestThread {
  last: ReadArray | null;
}

/** A messages array found while scanning its line: where, its elements' ranges there, and how many of them the last array had. */
interface ScannedArray {
  bytes: Buffer;
  open: number;
  end: number;
  ranges: ElementRange[];
  shared: number;
}

export class RequestBytesReader {
  private readonly elements = new Map<string, NormalizedElement>();
  private readonly toolLists = new Map<string, ToolDefinition[]>();
  private cachedBytes = 0;
  /** The thread of callers that name none (one run read at a time). */
  private readonly ownThread: RequestThread = { last: null };
  /** The thread of the line being read. */
  private thread: RequestThread = this.ownThread;
  /** The messages array of the line being read, as its scan found it. */
  private scanned: ScannedArray | null = null;

  constructor(private readonly maxCachedBytes = DEFAULT_CACHE_BYTES) {}

  /** The line's messages array, scanned on from where it stops being the last one's. */
  private readonly skipMessages: SkipMember = (key, bytes, open) => {
    if (key !== 'messages' || bytes[open] !== OPEN_BRACKET) return null;
    const last = this.thread.last;
    const known = last === null ? [] : sharedElements(last, bytes, open);
    const { elements, end } = scanArray(bytes, open, known);
    this.scanned = { bytes, open, end, ranges: elements, shared: known.length };
    return { end, size: elements.length };
  };

  /**
   * The request of a canonical `model_request` line, or null to have it read whole. The reader
   * keeps a view of the line's messages for the next request: the caller must not overwrite the
   * buffer while the thread holds it (`thread.last`), as LoggedRequestReader reuses a line's buffer
   * only once the thread has moved on to another. `thread`: the run's, when runs are read in turns.
   */
  canonical(line: Buffer, thread = this.ownThread): NormalizedRequest | null {
    return this.guard(thread, () => {
      const scan = scanTopLevel(line, this.skipMessages);
      const params = value(line, scan.get('params'));
      const model = value(line, scan.get('model'));
      if ((params !== undefined && !isRecord(params)) || (model !== undefined && typeof model !== 'string')) return null;
      return this.assemble(line, scan, systemText(value(line, scan.get('system'))), canonicalParams(params, model));
    });
  }

  /** The request of an HTTP exchange line, or null to have it read whole. */
  exchange(line: Buffer, thread = this.ownThread): NormalizedRequest | null {
    return this.guard(thread, () => {
      // One pass over the line: the request object, in it the body, in that the messages array.
      const found: { request?: TopLevelScan; body?: TopLevelScan } = {};
      const nested =
        (name: 'request' | 'body', inner: SkipMember): SkipMember =>
        (key, bytes, open) => {
          if (key !== name || bytes[open] === OPEN_BRACKET) return null;
          const { members, end } = scanObject(bytes, open, inner);
          found[name] = members;
          return { end, size: members.size };
        };
      scanTopLevel(line, nested('request', nested('body', this.skipMessages)));
      const bodyScan = found.body;
      const url = value(line, found.request?.get('url'));
      if (typeof url !== 'string' || bodyScan === undefined) return null;
      // What apiOf reads of a body: which of these members are there, and of what kind.
      const probe: Record<string, unknown> = {
        messages: bodyScan.get('messages')?.kind === 'array' ? [] : undefined,
        input: bodyScan.has('input') ? value(line, bodyScan.get('input')) : undefined,
        previous_response_id: value(line, bodyScan.get('previous_response_id')),
        anthropic_version: value(line, bodyScan.get('anthropic_version')),
      };
      const api = apiOf(url, probe);
      if (api !== 'openai-chat' && api !== 'anthropic-messages') return null;
      // fromEntries keeps a "__proto__" member a member instead of making it the prototype.
      const params: Record<string, unknown> = Object.fromEntries(
        [...bodyScan].filter(([key]) => !(structuralKeys[api] as readonly string[]).includes(key)).map(([key, member]) => [key, memberValue(line, member)]),
      );
      const system = api === 'anthropic-messages' ? systemText(value(line, bodyScan.get('system'))) : null;
      return this.assemble(line, bodyScan, system, requestParams(params, []));
    });
  }

  /** A scan error or an unexpected shape: the caller reads the line whole and reports exactly what is wrong. */
  private guard(thread: RequestThread, read: () => NormalizedRequest | null): NormalizedRequest | null {
    this.thread = thread;
    try {
      return read();
    } catch (error) {
      if (error instanceof ScanError || error instanceof SyntaxError) return null;
      throw error;
    } finally {
      // A scan belongs to its line only.
      this.scanned = null;
    }
  }

  private assemble(bytes: Buffer, scan: TopLevelScan, system: string | null, params: Record<string, unknown>): NormalizedRequest | null {
    const messagesMember = scan.get('messages');
    const toolsMember = scan.get('tools');
    if (messagesMember?.kind !== 'array' || (toolsMember !== undefined && toolsMember.kind !== 'array')) return null;
    const scanned = this.scanned;
    if (scanned === null || scanned.bytes !== bytes || scanned.open !== messagesMember.start) return null;
    const messages = this.messages(scanned);
    if (messages === null) return null;
    const tools = toolsMember === undefined ? [] : this.tools(bytes.subarray(toolsMember.start, toolsMember.end));
    return assembleRequest(system, messages, tools, params);
  }

  private messages(array: ScannedArray): RequestMessage[] | null {
    const thread = this.thread;
    const last = thread.last;
    const messages: RequestMessage[] = [];
    const byElement: RequestMessage[][] = [];
    for (let index = 0; index < array.ranges.length; index++) {
      let numbered = index < array.shared && last !== null ? last.messages[index]! : null;
      if (numbered === null) {
        const range = array.ranges[index]!;
        const element = this.element(array.bytes.subarray(range.start, range.end));
        if (element === null) {
          thread.last = null;
          return null;
        }
        numbered = element.messages.map((message, i) => {
          const copy = { ...message, sourceIndex: index };
          rememberMessageIdentity(copy, element.identities[i]!);
          return copy;
        });
      }
      byElement.push(numbered);
      messages.push(...numbered);
    }
    thread.last = {
      // A view, not a copy: the line's buffer is left alone while the thread holds it (the callers' contract, see canonical()).
      bytes: array.bytes.subarray(array.open, array.end),
      ranges: array.ranges.map((range) => ({ start: range.start - array.open, end: range.end - array.open })),
      messages: byElement,
    };
    return messages;
  }

  /** One element, normalized once per distinct bytes; null for a Responses item that merges with its neighbours. */
  private element(bytes: Buffer): NormalizedElement | null {
    const key = bytes.toString('latin1');
    const known = this.elements.get(key);
    if (known !== undefined) return known;
    const item: unknown = JSON.parse(bytes.toString('utf8'));
    if (isRecord(item) && item['type'] === 'function_call') return null;
    const messages = normalizeMessages([item]);
    const normalized = { messages, identities: messages.map(messageIdentity) };
    this.remember(bytes.length);
    this.elements.set(key, normalized);
    return normalized;
  }

  /** The tool definitions; the same bytes give the same array, which diffTools then skips. */
  private tools(array: Buffer): ToolDefinition[] {
    const key = array.toString('latin1');
    const known = this.toolLists.get(key);
    if (known !== undefined) return known;
    const tools = (JSON.parse(array.toString('utf8')) as unknown[]).map(normalizeTool);
    this.remember(array.length);
    this.toolLists.set(key, tools);
    return tools;
  }

  /** Counts what is about to be cached, starting over first when it would exceed the budget (the threads keep what they hold). */
  private remember(bytes: number): void {
    if (this.cachedBytes + bytes > this.maxCachedBytes) {
      this.elements.clear();
      this.toolLists.clear();
      this.cachedBytes = 0;
    }
    this.cachedBytes += bytes;
  }
}
