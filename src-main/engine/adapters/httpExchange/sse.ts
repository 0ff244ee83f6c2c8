/**
 * Server-sent events as an HTTP exchange log keeps them: the raw `text/event-stream` body
 * (`event: …\ndata: {…}\n\n`). Parsed into events whose `data` is JSON when it parses; a payload
 * cut off by a stream that ended early simply does not parse, and the stream's assembly
 * (httpExchangeStreams.ts) then sees no closing event.
 */

export interface SseEvent {
  /** The `event:` field, when the stream names its events (Anthropic, Responses); else null. */
  event: string | null;
  /** The parsed `data:` payload, or undefined when it is not JSON (`[DONE]`, a cut-off payload). */
  data: unknown;
  /** The `data:` payload as written (several data lines joined by `\n`). */
  raw: string;
}

/** Does this body look like an event stream rather than JSON or plain text? */
export function looksLikeSse(text: string): boolean {
  return /^(?:\s*:[^\n]*\n)*\s*(?:event|data|id|retry):/.test(text.slice(0, 256));
}

function parseData(raw: string): unknown {
  const trimmed = raw.trim();
  if (trimmed === '' || (trimmed[0] !== '{' && trimmed[0] !== '[')) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

/** Splits an event-stream body into its events (blank line = end of event; `:` lines are comments). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  let event: string | null = null;
  let data: string[] = [];
  const dispatch = (): void => {
    if (data.length > 0) {
      const raw = data.join('\n');
      events.push({ event, data: parseData(raw), raw });
    }
    event = null;
    data = [];
  };
  for (const rawLine of text.split('\n')) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  dispatch();
  return events;
}
